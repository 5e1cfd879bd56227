// The submission reader and the grader, exactly as `poslab grade` and the
// results page run them for each file: grading::grade_submission_text (size
// and nesting checks, JSON, format, version, learner, entries, content
// hashes, duplicates, each exercise's grade) against light exercises of the
// lab (no training runs). Any input gives rows, never an exception or a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "poslab/grading.hpp"
#include "yaml_json.hpp"

namespace {
using json = nlohmann::json;
namespace g = poslab::grading;

g::GradingExercises* exercises = nullptr;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    std::vector<json> list;
    for (const char* f : {"tests/fixtures/exercises/grading-demo.yaml", "exercises/01-reorder.yaml",
                          "exercises/05-causal-mask.yaml", "exercises/08-rope.yaml", "exercises/10-alibi.yaml"})
        list.push_back(poslab::cli::load_exercise_file(std::string(POSLAB_SOURCE_DIR) + "/" + f));
    exercises = new g::GradingExercises(g::grading_exercises(list));
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    // Never throws: every problem is a row with its status.
    const json rows = g::grade_submission_text(text, "fuzz.json", *exercises);
    if (!rows.is_array() || rows.empty()) std::abort();
    (void)rows.dump(-1, ' ', false, json::error_handler_t::replace);
    // The re-runner's list: the same parse, never throws; every listed attempt has a key.
    const json list = g::code_attempts_text(text, "fuzz.json", *exercises);
    for (const json& a : list["attempts"])
        if (!a["key"].is_string()) std::abort();
    for (const json& r : rows) (void)g::csv_row(r);
    return 0;
}
