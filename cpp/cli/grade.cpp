// poslab grade: the instructor's authoritative re-grade. Every score is
// recomputed from the raw answers with the same core the page uses; the score
// the page claimed is only compared, never trusted.
#include <chrono>
#include <dirent.h>
#include <fstream>
#include <iostream>
#include <map>
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
reported in its row; every other file is still graded. Exit status: 0 when
every row was graded, 1 when some rows could not be, 2 on a usage error.

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

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
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
            {"claimedPoints", nullptr}, {"claimedDiffers", nullptr}, {"status", status}, {"message", message}};
}

void grade_file(const std::string& path, const std::map<std::string, Exercise>& exercises, json& rows) {
    json sub;
    try {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw std::runtime_error("cannot read the file");
        sub = json::parse(in);
    } catch (const std::exception& e) {
        rows.push_back(row(path, "", "", "invalid_file", std::string("not JSON: ") + e.what()));
        return;
    }
    if (!sub.is_object() || sub.value("format", "") != "position-lab-submission") {
        rows.push_back(row(path, "", "", "invalid_file", "not a Position Lab submission (format is not \"position-lab-submission\")"));
        return;
    }
    if (sub.value("version", 0) != 1) {
        rows.push_back(row(path, "", "", "invalid_file", "submission version " + sub.value("version", json(0)).dump() + " is not supported (this grader reads version 1)"));
        return;
    }
    if (!sub.contains("learner") || !sub["learner"].is_string() || sub["learner"].get<std::string>().empty() ||
        !sub.contains("exercises") || !sub["exercises"].is_array()) {
        rows.push_back(row(path, "", "", "invalid_file", "a submission needs a learner id and a list of exercises"));
        return;
    }
    const std::string learner = sub["learner"].get<std::string>();
    for (const json& e : sub["exercises"]) {
        const std::string id = e.is_object() ? e.value("id", "") : "";
        if (id.empty()) {
            rows.push_back(row(path, learner, "", "invalid_exercise", "an exercise entry has no id"));
            continue;
        }
        auto it = exercises.find(id);
        if (it == exercises.end()) {
            rows.push_back(row(path, learner, id, "unknown_exercise", "the exercises folder has no exercise '" + id + "'"));
            continue;
        }
        const Exercise& ex = it->second;
        const std::string hash = e.value("contentHash", "");
        if (hash != ex.hash) {
            rows.push_back(row(path, learner, id, "hash_mismatch",
                               "answered for another version of the exercise (content hash " + hash + ", the folder has " +
                                   ex.hash + ")"));
            continue;
        }
        // The variant is recomputed from the learner id: a seed edited in the file changes nothing.
        const std::uint32_t seed = g::variant_seed(learner, id, ex.hash);
        json r = row(path, learner, id, "graded");
        try {
            const json graded = g::grade_exercise(ex.data, seed, e.value("attempts", json::array()));
            r["points"] = graded["points"];
            r["max"] = graded["max"];
            r["questions"] = graded["questions"];
            std::string notes;
            if (e.contains("seed") && e["seed"] != json(seed)) notes = "the file's seed was not this learner's; graded with " + std::to_string(seed);
            if (e.contains("claimed") && e["claimed"].is_object() && e["claimed"].contains("points") &&
                e["claimed"]["points"].is_number()) {
                const double claimed = e["claimed"]["points"].get<double>();
                r["claimedPoints"] = claimed;
                r["claimedDiffers"] = std::fabs(claimed - graded["points"].get<double>()) > 1e-9;
            }
            r["message"] = notes;
        } catch (const std::exception& ex_err) {
            r = row(path, learner, id, "invalid_exercise", ex_err.what());
        }
        rows.push_back(r);
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
    bool all_graded = true;
    for (const json& r : rows) all_graded = all_graded && r["status"] == "graded";
    if (format == "json") {
        std::cout << json{{"rows", rows}, {"files", a.positional().size()}, {"seconds", seconds}}.dump() << '\n';
    } else {
        std::cout << "file,learner,exercise,points,max,claimed_points,claimed_differs,status,message\n";
        for (const json& r : rows) {
            auto num = [&](const char* k) { return r[k].is_number() ? number_text(r[k].get<double>()) : std::string(); };
            std::cout << csv_field(r["file"]) << ',' << csv_field(r["learner"]) << ',' << csv_field(r["exercise"]) << ','
                      << num("points") << ',' << num("max") << ',' << num("claimedPoints") << ','
                      << (r["claimedDiffers"].is_boolean() ? (r["claimedDiffers"].get<bool>() ? "yes" : "no") : "") << ','
                      << r["status"].get<std::string>() << ',' << csv_field(r["message"]) << '\n';
        }
    }
    std::cerr << "poslab grade: " << a.positional().size() << " file(s), " << rows.size() << " row(s) in " << seconds
              << " s\n";
    return all_graded ? 0 : 1;
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
    const json ex = load_exercise_file(a.get("--exercise", ""));
    const std::string hash = g::content_hash(ex);
    const std::uint32_t seed = g::variant_seed(a.get("--learner", ""), ex.value("id", ""), hash);
    return print_json({{"id", ex.value("id", "")}, {"contentHash", hash}, {"seed", seed}, {"variant", g::make_variant(ex, seed)}});
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
