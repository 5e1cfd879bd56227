// poslab grade: the instructor's authoritative re-grade. Every score is
// recomputed from the raw answers with the same core the page uses; the score
// the page claimed is only compared, never trusted.
#include <algorithm>
#include <chrono>
#include <dirent.h>
#include <fstream>
#include <iostream>
#include <map>
#include <new>
#include <set>
#include <sstream>

#include "cli_common.hpp"
#include "poslab/errors.hpp"
#include "poslab/grading.hpp"
#include "yaml_json.hpp"

namespace poslab::cli {
namespace {

using json = nlohmann::json;
namespace g = poslab::grading;

const char* kGradeUsage = R"(poslab grade --exercises DIR [--code-results FILE.json] [--format csv|json] [--bom] [--no-header] [--] SUBMISSION.json…

Re-grades downloaded submissions: recomputes each learner's variants and every
score from the raw answers, ignoring the score the page claimed, and reports
per learner and exercise: points, max, the claimed points and whether they
differ. A file that is not a submission, an exercise the folder does not have,
or an exercise whose content changed since the attempt (content hash) is
reported in its row; every other file is still graded. Several entries for
one exercise are graded as one history (flag duplicate_entries:N).

Status per row: graded · invalid_file (not JSON, not a submission, a field of
the wrong type, a bad learner id) · too_large (over 8 MB, nested over 32 deep,
a string over 64 KiB) · invalid_exercise (an entry or attempt the exercise
cannot take) · unknown_exercise · hash_mismatch. Flags (last column):
duplicate_entries:N, lab_not_allowed:N (attempts with lab settings the
exercise does not allow; not graded), too_many_attempts:N (past 200 per
question; not graded). Cells starting with = + - @ tab or CR get a leading '.

--bom starts the CSV with a UTF-8 byte order mark, so Excel (Japanese
Windows, say) opens it as UTF-8 and learner names read right.

Code questions: the grader never reads the status, results or output a
submission stores beside an attempt's code. --code-results FILE.json gives
the re-run results ({"SUBMISSION path": {"attempt key": {status, results?,
message?}}}; keys from poslab code-attempts; scripts/grade-code.mjs writes
it). A counted code attempt with no re-run result scores 0 and the row is
flagged not_rerun:N (code_runs column: not_rerun(too_long | no_result |
no_code_results | budget | sandbox_unavailable | bad_result)). Without
--code-results every code attempt is not re-run; other answers still grade.

Put -- before the files when a file name could start with --.
--no-header leaves out the CSV header line (for a caller writing one file at a time).

Exit status: 0 when every row was graded with no flag, 1 when some row was
not graded or is flagged (the CSV still has every row), 2 on a usage error.

  poslab exercise-info FILE…        id, content hash of exercise files
  poslab variant --exercise FILE --learner ID   the seed and variant a learner gets
  poslab code-attempts --exercises DIR [--] SUBMISSION.json…
      JSON lines, one per file: the code attempts that can count, as the
      grader reads the file (key, exercise, question, attempt, function,
      timeLimitMs, code, cases: the learner's hidden cases, runnable, reason?)
)";

std::map<std::string, g::GradingExercise> load_exercises(const std::string& dir) {
    DIR* d = opendir(dir.c_str());
    if (!d) throw InvalidArgument("cli", "--exercises " + dir + ": not a folder that can be read");
    std::vector<std::string> files;
    while (dirent* e = readdir(d)) {
        const std::string name = e->d_name;
        auto ends = [&](const char* ext) {
            const std::string x = ext;
            return name.size() > x.size() && name.compare(name.size() - x.size(), x.size(), x) == 0;
        };
        if ((ends(".yaml") || ends(".yml")) && name[0] != '.') files.push_back(dir + "/" + name);
    }
    closedir(d);
    std::vector<json> exercises;
    for (const std::string& f : files) exercises.push_back(load_exercise_file(f));
    auto out = g::grading_exercises(exercises, files);
    if (out.empty()) throw InvalidArgument("cli", "--exercises " + dir + ": no .yaml exercise files in it");
    return out;
}

// The file's text: at most one byte past the limit is read, so a larger file is refused as too large.
bool read_text(const std::string& path, std::string& text) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    text.assign(g::kMaxSubmissionBytes + 1, '\0');
    in.read(&text[0], static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return true;
}

// One file's rows: the file is read here (at most one byte past the limit);
// every check and the grade are the core's (grading::grade_submission_text),
// the same the results page runs in wasm.
void grade_file(const std::string& path, const g::GradingExercises& exercises, const json& code_results, json& rows) {
    std::string text;
    if (!read_text(path, text)) {
        rows.push_back(g::submission_row(path, "", "", "invalid_file", "cannot read the file"));
        return;
    }
    for (json& r : g::grade_submission_text(text, path, exercises, code_results)) rows.push_back(std::move(r));
}

// --code-results: {file path: {attempt key: result}}, at most 64 MB.
json load_code_results(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InvalidArgument("cli", "--code-results " + path + ": cannot read the file");
    std::string text(std::size_t(64) << 20 | 1, '\0');
    in.read(&text[0], static_cast<std::streamsize>(text.size()));
    if (static_cast<std::size_t>(in.gcount()) > (std::size_t(64) << 20))
        throw InvalidArgument("cli", "--code-results " + path + ": larger than 64 MB");
    text.resize(static_cast<std::size_t>(in.gcount()));
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throw InvalidArgument("cli", "--code-results " + path + ": not JSON (" + e.what() + ")");
    }
    if (!j.is_object()) throw InvalidArgument("cli", "--code-results " + path + ": must be an object {file: {attempt key: result}}");
    return j;
}

int cmd_grade(int argc, char** argv) {
    Args a(argc, argv, {"--exercises", "--format", "--code-results"}, {"--bom", "--no-header"});
    if (!a.has("--exercises")) throw InvalidArgument("cli", "grade needs --exercises DIR (poslab grade --help)");
    const std::string format = a.get("--format", "csv");
    if (format != "csv" && format != "json") throw InvalidArgument("cli", "--format must be csv or json, got '" + format + "'");
    if (a.positional().empty()) throw InvalidArgument("cli", "grade needs at least one SUBMISSION.json");
    const auto start = std::chrono::steady_clock::now();
    const auto exercises = load_exercises(a.get("--exercises", ""));
    const json all_results = a.has("--code-results") ? load_code_results(a.get("--code-results", "")) : json();
    json rows = json::array();
    for (const std::string& f : a.positional()) {
        const json& results = all_results.is_object() ? (all_results.contains(f) ? all_results[f] : json::object()) : json();
        grade_file(f, exercises, results, rows);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bool clean = true;
    for (const json& r : rows) clean = clean && r["status"] == "graded" && r["flags"].empty();
    // Text that is not UTF-8 (a file name, a parser's message quoting the file) is shown with U+FFFD, never fatal.
    const auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
    if (format == "json") {
        std::cout << dump(json{{"rows", rows}, {"files", a.positional().size()}, {"seconds", seconds}}) << '\n';
    } else {
        // --bom: a UTF-8 byte order mark first, so Excel (Japanese Windows) reads the file as UTF-8.
        if (a.has("--bom")) std::cout << "\xEF\xBB\xBF";
        if (!a.has("--no-header")) std::cout << g::csv_header() << '\n';
        for (const json& r : rows) std::cout << g::csv_row(r) << '\n';
    }
    std::cerr << "poslab grade: " << a.positional().size() << " file(s), " << rows.size() << " row(s) in " << seconds
              << " s\n";
    return clean ? 0 : 1;
}

int cmd_code_attempts(int argc, char** argv) {
    Args a(argc, argv, {"--exercises"}, {});
    if (!a.has("--exercises")) throw InvalidArgument("cli", "code-attempts needs --exercises DIR (poslab grade --help)");
    if (a.positional().empty()) throw InvalidArgument("cli", "code-attempts needs at least one SUBMISSION.json");
    const auto exercises = load_exercises(a.get("--exercises", ""));
    for (const std::string& f : a.positional()) {
        std::string text;
        json out = read_text(f, text) ? g::code_attempts_text(text, f, exercises)
                                      : json{{"file", f}, {"learner", ""}, {"ok", false}, {"status", "invalid_file"}, {"attempts", json::array()}};
        std::cout << out.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
    }
    return 0;
}

int cmd_exercise_info(int argc, char** argv) {
    Args a(argc, argv, {}, {});
    if (a.positional().empty()) throw InvalidArgument("cli", "exercise-info needs exercise files");
    json out = json::array();
    for (const std::string& f : a.positional()) {
        const json ex = load_exercise_file(f);
        out.push_back({{"file", f}, {"id", ex.value("id", "")}, {"contentHash", g::content_hash(ex)}});
    }
    return print_json(out);
}

int cmd_variant(int argc, char** argv) {
    Args a(argc, argv, {"--exercise", "--learner"}, {});
    if (!a.has("--exercise") || !a.has("--learner"))
        throw InvalidArgument("cli", "variant needs --exercise FILE and --learner ID");
    if (const std::string p = g::learner_id_problem(a.get("--learner", "")); !p.empty())
        throw InvalidArgument("cli", "--learner: " + p);
    const json ex = load_exercise_file(a.get("--exercise", ""));
    const std::string hash = g::content_hash(ex);
    const std::uint32_t seed = g::variant_seed(a.get("--learner", ""), ex.value("id", ""), hash);
    return print_json({{"id", ex.value("id", "")},
                       {"contentHash", hash},
                       {"seed", seed},
                       {"variant", g::make_variant(ex, seed)},
                       {"optionOrders", g::option_orders(ex, seed)}});
}

}  // namespace
}  // namespace poslab::cli

// Called by main.cpp for "poslab grade | exercise-info | variant".
int poslab_cli_grade(int argc, char** argv) {
    using namespace poslab::cli;
    const std::string cmd = argv[0];
    // --help asks for help only as an option: not as the value of one (--learner --help) nor after "--".
    static const std::set<std::string> kValueFlags = {"--exercises", "--format", "--code-results", "--exercise", "--learner"};
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") break;
        if (kValueFlags.count(arg)) {
            ++i;
            continue;
        }
        if (arg == "--help") {
            std::cout << kGradeUsage;
            return 0;
        }
    }
    try {
        if (cmd == "exercise-info") return cmd_exercise_info(argc, argv);
        if (cmd == "variant") return cmd_variant(argc, argv);
        if (cmd == "code-attempts") return cmd_code_attempts(argc, argv);
        return cmd_grade(argc, argv);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}
