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

const char* kGradeUsage = R"(poslab grade --exercises DIR SUBMISSION.json… [--format csv|json]

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

Exit status: 0 when every row was graded with no flag, 1 when some row was
not graded or is flagged (the CSV still has every row), 2 on a usage error.

  poslab exercise-info FILE…        id, content hash of exercise files
  poslab variant --exercise FILE --learner ID   the seed and variant a learner gets
)";

struct Exercise {
    json data;
    std::string hash;
    std::string file;
};

std::map<std::string, Exercise> load_exercises(const std::string& dir) {
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
    std::map<std::string, Exercise> out;
    for (const std::string& f : files) {
        json ex = load_exercise_file(f);
        if (!ex.is_object() || !ex.contains("id") || !ex["id"].is_string())
            throw InvalidArgument("cli", f + ": not an exercise file (no id)");
        const std::string id = ex["id"].get<std::string>();
        if (out.count(id)) throw InvalidArgument("cli", f + ": exercise id '" + id + "' is also in " + out[id].file);
        out[id] = Exercise{ex, g::content_hash(ex), f};
    }
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

json row(const std::string& file, const std::string& learner, const std::string& exercise, const std::string& status,
         const std::string& message = "") {
    return {{"file", file}, {"learner", learner}, {"exercise", exercise}, {"points", nullptr}, {"max", nullptr},
            {"claimedPoints", nullptr}, {"claimedDiffers", nullptr}, {"status", status}, {"message", message},
            {"flags", json::array()}};
}

std::string type_name(const json& v) {
    if (v.is_string()) return "text";
    if (v.is_number()) return "a number";
    if (v.is_boolean()) return "true/false";
    if (v.is_null()) return "null";
    return v.is_array() ? "a list" : "an object";
}

// The submission file's text, or a status row saying why not (unreadable, too large, too deep).
bool read_submission(const std::string& path, json& sub, json& rows) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        rows.push_back(row(path, "", "", "invalid_file", "cannot read the file"));
        return false;
    }
    std::string text(g::kMaxSubmissionBytes + 1, '\0');
    in.read(&text[0], static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > g::kMaxSubmissionBytes) {
        rows.push_back(row(path, "", "", "too_large",
                           "the file is larger than " + std::to_string(g::kMaxSubmissionBytes >> 20) +
                               " MB; a submission is never that large"));
        return false;
    }
    // Before the parser: a deeply nested file must be refused, not walked.
    if (const std::string p = g::json_text_problem(text); !p.empty()) {
        rows.push_back(row(path, "", "", "too_large", "the file is " + p + "; a submission nests at most " +
                                                           std::to_string(g::kMaxDepth)));
        return false;
    }
    try {
        sub = json::parse(text);
    } catch (const std::exception& e) {
        rows.push_back(row(path, "", "", "invalid_file", std::string("not JSON: ") + e.what()));
        return false;
    }
    if (const std::string p = g::json_value_problem(sub); !p.empty()) {
        rows.push_back(row(path, "", "", "too_large", "the file holds " + p));
        return false;
    }
    return true;
}

void grade_entries(const std::string& path, const json& sub, const std::map<std::string, Exercise>& exercises,
                   json& rows) {
    if (!sub.is_object() || !sub.contains("format") || sub["format"] != "position-lab-submission") {
        rows.push_back(row(path, "", "", "invalid_file", "not a Position Lab submission (format is not \"position-lab-submission\")"));
        return;
    }
    if (!sub.contains("version") || !sub["version"].is_number_integer() || sub["version"] != 1) {
        rows.push_back(row(path, "", "", "invalid_file",
                           "submission version " + (sub.contains("version") ? sub["version"].dump() : std::string("(none)")) +
                               " is not supported (this grader reads version 1, the number)"));
        return;
    }
    if (!sub.contains("learner") || !sub["learner"].is_string() || !sub.contains("exercises") || !sub["exercises"].is_array()) {
        rows.push_back(row(path, "", "", "invalid_file", "a submission needs a learner id (text) and a list of exercises"));
        return;
    }
    const std::string learner = sub["learner"].get<std::string>();
    if (const std::string p = g::learner_id_problem(learner); !p.empty()) {
        rows.push_back(row(path, "", "", "invalid_file", p));
        return;
    }
    // Entries for one exercise are graded together: a second copy cannot
    // escape max_attempts, and the row is flagged.
    std::vector<std::string> order;
    std::map<std::string, std::vector<const json*>> groups;
    const json& entries = sub["exercises"];
    for (std::size_t k = 0; k < entries.size(); ++k) {
        const json& e = entries[k];
        const std::string at = "exercise entry " + std::to_string(k + 1);
        if (!e.is_object()) {
            rows.push_back(row(path, learner, "", "invalid_exercise", at + " is " + type_name(e) + ", not an object"));
            continue;
        }
        if (!e.contains("id") || !e["id"].is_string() || e["id"].get<std::string>().empty()) {
            rows.push_back(row(path, learner, "", "invalid_exercise",
                               at + ": id must be text" + (e.contains("id") ? ", got " + type_name(e["id"]) : "")));
            continue;
        }
        const std::string id = e["id"].get<std::string>();
        if (e.contains("contentHash") && !e["contentHash"].is_string()) {
            rows.push_back(row(path, learner, id, "invalid_exercise", at + ": contentHash must be text, got " + type_name(e["contentHash"])));
            continue;
        }
        if (e.contains("attempts") && !e["attempts"].is_array()) {
            rows.push_back(row(path, learner, id, "invalid_exercise", at + ": attempts must be a list, got " + type_name(e["attempts"])));
            continue;
        }
        auto it = exercises.find(id);
        if (it == exercises.end()) {
            rows.push_back(row(path, learner, id, "unknown_exercise", "the exercises folder has no exercise '" + id + "'"));
            continue;
        }
        const std::string hash = e.value("contentHash", "");
        if (hash != it->second.hash) {
            rows.push_back(row(path, learner, id, "hash_mismatch",
                               "answered for another version of the exercise (content hash " + hash + ", the folder has " +
                                   it->second.hash + ")"));
            continue;
        }
        if (!groups.count(id)) order.push_back(id);
        groups[id].push_back(&e);
    }
    for (const std::string& id : order) {
        const Exercise& ex = exercises.at(id);
        const std::vector<const json*>& group = groups[id];
        // The variant is recomputed from the learner id: a seed edited in the file changes nothing.
        const std::uint32_t seed = g::variant_seed(learner, id, ex.hash);
        json r = row(path, learner, id, "graded");
        json flags = json::array();
        json attempts = json::array();
        bool timed = true;
        for (const json* e : group)
            for (const json& a : e->value("attempts", json::array())) {
                timed = timed && a.is_object() && a.contains("time") && a["time"].is_string();
                attempts.push_back(a);
            }
        if (group.size() > 1) {
            flags.push_back("duplicate_entries:" + std::to_string(group.size()));
            // One history: the copies' attempts in time order (ISO times), else in file order.
            if (timed)
                std::stable_sort(attempts.begin(), attempts.end(), [](const json& x, const json& y) {
                    return x["time"].get_ref<const std::string&>() < y["time"].get_ref<const std::string&>();
                });
        }
        try {
            const json graded = g::grade_exercise(ex.data, seed, attempts);
            r["points"] = graded["points"];
            r["max"] = graded["max"];
            r["questions"] = graded["questions"];
            r["rejected"] = graded["rejected"];
            std::size_t lab_rejected = 0, over = 0;
            for (const json& x : graded["rejected"]) {
                if (x["status"] == "lab_not_allowed") ++lab_rejected;
                else over += x.value("count", std::size_t(0));
            }
            if (lab_rejected) flags.push_back("lab_not_allowed:" + std::to_string(lab_rejected));
            if (over) flags.push_back("too_many_attempts:" + std::to_string(over));
            std::string notes;
            double claimed = -1;
            bool has_claim = false;
            for (const json* e : group) {
                if (e->contains("seed") && (*e)["seed"] != json(seed))
                    notes = "the file's seed was not this learner's; graded with " + std::to_string(seed);
                if (e->contains("claimed") && (*e)["claimed"].is_object() && (*e)["claimed"].contains("points") &&
                    (*e)["claimed"]["points"].is_number()) {
                    claimed = std::max(claimed, (*e)["claimed"]["points"].get<double>());
                    has_claim = true;
                }
            }
            if (has_claim) {
                r["claimedPoints"] = claimed;
                r["claimedDiffers"] = std::fabs(claimed - graded["points"].get<double>()) > 1e-9;
            }
            if (!graded["rejected"].empty()) {
                const json& first = graded["rejected"][0];
                notes += (notes.empty() ? "" : "; ") + std::string("not graded: ") + first.value("message", "") +
                         (graded["rejected"].size() > 1 ? " (and more)" : "");
            }
            r["message"] = notes;
        } catch (const std::exception& ex_err) {
            r = row(path, learner, id, error_code(ex_err) == "too_large" ? "too_large" : "invalid_exercise", ex_err.what());
        }
        r["flags"] = flags;
        rows.push_back(r);
    }
}

void grade_file(const std::string& path, const std::map<std::string, Exercise>& exercises, json& rows) {
    const std::size_t before = rows.size();
    try {
        json sub;
        if (!read_submission(path, sub, rows)) return;
        grade_entries(path, sub, exercises, rows);
    } catch (const std::exception& e) {
        // Whatever a file does, it loses only its own rows, never the batch.
        rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(before), rows.end());
        const std::string code = error_code(e);
        rows.push_back(row(path, "", "", code == "too_large" || dynamic_cast<const std::bad_alloc*>(&e) ? "too_large" : "invalid_file",
                           e.what()));
    }
}

int cmd_grade(int argc, char** argv) {
    Args a(argc, argv, {"--exercises", "--format"}, {});
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
