// The submission reader and the grader, on the path `poslab grade` takes for
// each file (cpp/cli/grade.cpp, grade_file): parse the JSON, check format,
// version, learner and exercises, then for each entry recompute the seed and
// grade its attempts with grading::grade_exercise against light exercises of
// the lab (no training runs). Any input gives rows or std::exception, never a
// crash.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "poslab/grading.hpp"
#include "yaml_json.hpp"

namespace {
using json = nlohmann::json;
namespace g = poslab::grading;

struct Exercise {
    json data;
    std::string hash;
};
std::map<std::string, Exercise>* exercises = nullptr;

void load(const std::string& file) {
    json ex = poslab::cli::load_exercise_file(std::string(POSLAB_SOURCE_DIR) + "/" + file);
    const std::string id = ex["id"].get<std::string>();
    (*exercises)[id] = Exercise{ex, g::content_hash(ex)};
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    exercises = new std::map<std::string, Exercise>;
    for (const char* f : {"tests/fixtures/exercises/grading-demo.yaml", "exercises/01-reorder.yaml",
                          "exercises/05-causal-mask.yaml", "exercises/07-rope.yaml", "exercises/08-alibi.yaml"})
        load(f);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const json sub = json::parse(data, data + size, nullptr, false);
    if (sub.is_discarded() || !sub.is_object()) return 0;
    try {
        // grade.cpp reads sub.value("version", 0): an int, so "version": 1e40 is a float-to-int overflow
        // (undefined behaviour, found by this harness; left to the grade.cpp rewrite of issue 11 item 2).
        // Compared as JSON numbers here, so the fuzzer goes on past it.
        if (sub.value("format", "") != "position-lab-submission" || !sub.contains("version") || sub["version"] != json(1))
            return 0;
        if (!sub.contains("learner") || !sub["learner"].is_string() || !sub.contains("exercises") ||
            !sub["exercises"].is_array())
            return 0;
        const std::string learner = sub["learner"].get<std::string>();
        for (const json& e : sub["exercises"]) {
            const std::string id = e.is_object() ? e.value("id", "") : "";
            auto it = exercises->find(id);
            if (it == exercises->end()) continue;
            const std::uint32_t seed = g::variant_seed(learner, id, it->second.hash);
            try {
                const json graded = g::grade_exercise(it->second.data, seed, e.value("attempts", json::array()));
                (void)graded.dump();
            } catch (const std::exception&) {
            }
        }
    } catch (const std::exception&) {
        // A field of the wrong type (e.g. "version": "1"): grade.cpp reports the file.
    }
    return 0;
}
