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
#include <sstream>

#include "cli_common.hpp"
#include "poslab/errors.hpp"
#include "poslab/grading.hpp"
#include "yaml_json.hpp"

namespace poslab::cli {
namespace {

using json = nlohmann::json;
namespace g = poslab::grading;

const char* kGradeUsage = R"(poslab grade --exercises DIR SUBMISSION.json… [--format csv|json] [--bom]

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

Exit status: 0 when every row was graded with no flag, 1 when some row was
not graded or is flagged (the CSV still has every row), 2 on a usage error.

  poslab exercise-info FILE…        id, content hash of exercise files
  poslab variant --exercise FILE --learner ID   the seed and variant a learner gets
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

// One CSV cell, neutralised as OWASP recommends for formula injection: a cell
// starting with = + - @ tab or CR gets a leading ' (a spreadsheet then shows
// it as text), and a cell holding a comma, quote, CR or LF is quoted.
std::string csv_field(const std::string& s) {
    std::string cell = s;
    if (!cell.empty() && std::string("=+-@\t\r").find(cell[0]) != std::string::npos) cell = "'" + cell;
    if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
    std::string q = "\"";
    for (char c : cell) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string number_text(double v) {
    std::ostringstream o;
    o << v;
    return o.str();
}

// One file's rows: the file is read here (at most one byte past the limit);
// every check and the grade are the core's (grading::grade_submission_text),
// the same the results page runs in wasm.
void grade_file(const std::string& path, const g::GradingExercises& exercises, json& rows) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        rows.push_back(g::submission_row(path, "", "", "invalid_file", "cannot read the file"));
        return;
    }
    std::string text(g::kMaxSubmissionBytes + 1, '\0');
    in.read(&text[0], static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    for (json& r : g::grade_submission_text(text, path, exercises)) rows.push_back(std::move(r));
}

int cmd_grade(int argc, char** argv) {
    Args a(argc, argv, {"--exercises", "--format"}, {"--bom"});
    if (!a.has("--exercises")) throw InvalidArgument("cli", "grade needs --exercises DIR (poslab grade --help)");
    const std::string format = a.get("--format", "csv");
    if (format != "csv" && format != "json") throw InvalidArgument("cli", "--format must be csv or json, got '" + format + "'");
    if (a.positional().empty()) throw InvalidArgument("cli", "grade needs at least one SUBMISSION.json");
    const auto start = std::chrono::steady_clock::now();
    const auto exercises = load_exercises(a.get("--exercises", ""));
    json rows = json::array();
    for (const std::string& f : a.positional()) grade_file(f, exercises, rows);
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
        std::cout << "file,learner,exercise,points,max,claimed_points,claimed_differs,status,message,flags\n";
        for (const json& r : rows) {
            auto num = [&](const char* k) { return r[k].is_number() ? number_text(r[k].get<double>()) : std::string(); };
            auto text = [&](const char* k) {  // as UTF-8 (U+FFFD for bad bytes), then neutralised
                const std::string quoted = dump(r[k]);
                return csv_field(json::parse(quoted).get<std::string>());
            };
            std::string flags;
            for (const json& f : r["flags"]) flags += (flags.empty() ? "" : ";") + f.get<std::string>();
            std::cout << text("file") << ',' << text("learner") << ',' << text("exercise") << ',' << num("points") << ','
                      << num("max") << ',' << num("claimedPoints") << ','
                      << (r["claimedDiffers"].is_boolean() ? (r["claimedDiffers"].get<bool>() ? "yes" : "no") : "") << ','
                      << r["status"].get<std::string>() << ',' << text("message") << ',' << csv_field(flags) << '\n';
        }
    }
    std::cerr << "poslab grade: " << a.positional().size() << " file(s), " << rows.size() << " row(s) in " << seconds
              << " s\n";
    return clean ? 0 : 1;
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
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--help") {
            std::cout << kGradeUsage;
            return 0;
        }
    try {
        if (cmd == "exercise-info") return cmd_exercise_info(argc, argv);
        if (cmd == "variant") return cmd_variant(argc, argv);
        return cmd_grade(argc, argv);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}
