// One submission file's re-grade: the checks `poslab grade` makes on a file
// (size, nesting, JSON, format, learner id, entries, content hashes,
// duplicate entries) and the grade of each exercise. The CLI
// (cpp/cli/grade.cpp) and the instructor's results page (wasm
// gradeSubmission) both call this, so they cannot disagree.
#include <algorithm>
#include <cmath>
#include <map>
#include <new>

#include "poslab/errors.hpp"
#include "poslab/grading.hpp"

namespace poslab::grading {
namespace {

// The JSON type of v: its stable name (params.type; the page words it as
// grade_msg.type_<name>) and its English text.
std::string type_key(const json& v) {
    if (v.is_string()) return "text";
    if (v.is_number()) return "number";
    if (v.is_boolean()) return "boolean";
    if (v.is_null()) return "null";
    return v.is_array() ? "list" : "object";
}
std::string type_name(const json& v) {
    static const std::map<std::string, std::string> english = {{"text", "text"},       {"number", "a number"},
                                                               {"boolean", "true/false"}, {"null", "null"},
                                                               {"list", "a list"},     {"object", "an object"}};
    return english.at(type_key(v));
}
json detail(const std::string& code, json params = json::object()) { return {{"code", code}, {"params", std::move(params)}}; }

}  // namespace

json submission_row(const std::string& file, const std::string& learner, const std::string& exercise,
                    const std::string& status, const std::string& message, const json& details) {
    return {{"file", file}, {"learner", learner}, {"exercise", exercise}, {"points", nullptr}, {"max", nullptr},
            {"claimedPoints", nullptr}, {"claimedDiffers", nullptr}, {"status", status}, {"message", message},
            {"details", details}, {"flags", json::array()}};
}
json submission_row(const std::string& file, const std::string& learner, const std::string& exercise,
                    const std::string& status, const Problem& problem) {
    return submission_row(file, learner, exercise, status, problem.text, json::array({problem.value()}));
}

GradingExercises grading_exercises(const std::vector<json>& exercises, const std::vector<std::string>& where) {
    GradingExercises out;
    std::map<std::string, std::string> from;
    for (std::size_t i = 0; i < exercises.size(); ++i) {
        const json& ex = exercises[i];
        const std::string at = i < where.size() ? where[i] : "exercise " + std::to_string(i + 1);
        if (!ex.is_object() || !ex.contains("id") || !ex["id"].is_string())
            throw InvalidArgument("bad_exercises", at + ": not an exercise file (no id)");
        const std::string id = ex["id"].get<std::string>();
        if (out.count(id)) throw InvalidArgument("bad_exercises", at + ": exercise id '" + id + "' is also in " + from[id]);
        out[id] = GradingExercise{ex, content_hash(ex)};
        from[id] = at;
    }
    return out;
}

json grade_submission_value(const json& sub, const std::string& path, const GradingExercises& exercises) {
    json rows = json::array();
    auto row = [&](const std::string& learner, const std::string& exercise, const std::string& status,
                   const std::string& message = "", const json& part = nullptr) {
        return submission_row(path, learner, exercise, status, message, part.is_null() ? json::array() : json::array({part}));
    };
    if (!sub.is_object() || !sub.contains("format") || sub["format"] != "position-lab-submission") {
        rows.push_back(row("", "", "invalid_file", "not a Position Lab submission (format is not \"position-lab-submission\")",
                           detail("not_submission")));
        return rows;
    }
    if (!sub.contains("version") || !sub["version"].is_number_integer() || sub["version"] != 1) {
        rows.push_back(row("", "", "invalid_file",
                           "submission version " + (sub.contains("version") ? sub["version"].dump() : std::string("(none)")) +
                               " is not supported (this grader reads version 1, the number)",
                           detail("bad_version", {{"version", sub.contains("version") ? sub["version"].dump() : std::string("-")}})));
        return rows;
    }
    if (!sub.contains("learner") || !sub["learner"].is_string() || !sub.contains("exercises") || !sub["exercises"].is_array()) {
        rows.push_back(row("", "", "invalid_file", "a submission needs a learner id (text) and a list of exercises", detail("no_learner")));
        return rows;
    }
    const std::string learner = sub["learner"].get<std::string>();
    if (const Problem p = learner_id_detail(learner); !p.empty()) {
        rows.push_back(submission_row(path, "", "", "invalid_file", p));
        return rows;
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
            rows.push_back(row(learner, "", "invalid_exercise", at + " is " + type_name(e) + ", not an object",
                               detail("entry_not_object", {{"entry", k + 1}, {"type", type_key(e)}})));
            continue;
        }
        if (!e.contains("id") || !e["id"].is_string() || e["id"].get<std::string>().empty()) {
            rows.push_back(row(learner, "", "invalid_exercise",
                               at + ": id must be text" + (e.contains("id") ? ", got " + type_name(e["id"]) : ""),
                               e.contains("id") ? detail("entry_id_type", {{"entry", k + 1}, {"type", type_key(e["id"])}})
                                                : detail("entry_no_id", {{"entry", k + 1}})));
            continue;
        }
        const std::string id = e["id"].get<std::string>();
        if (e.contains("contentHash") && !e["contentHash"].is_string()) {
            rows.push_back(row(learner, id, "invalid_exercise", at + ": contentHash must be text, got " + type_name(e["contentHash"]),
                               detail("entry_hash_type", {{"entry", k + 1}, {"type", type_key(e["contentHash"])}})));
            continue;
        }
        if (e.contains("attempts") && !e["attempts"].is_array()) {
            rows.push_back(row(learner, id, "invalid_exercise", at + ": attempts must be a list, got " + type_name(e["attempts"]),
                               detail("entry_attempts_type", {{"entry", k + 1}, {"type", type_key(e["attempts"])}})));
            continue;
        }
        auto it = exercises.find(id);
        if (it == exercises.end()) {
            rows.push_back(row(learner, id, "unknown_exercise", "the exercises folder has no exercise '" + id + "'",
                               detail("unknown_exercise", {{"exercise", id}})));
            continue;
        }
        const std::string hash = e.value("contentHash", "");
        if (hash != it->second.hash) {
            rows.push_back(row(learner, id, "hash_mismatch",
                               "answered for another version of the exercise (content hash " + hash + ", the folder has " +
                                   it->second.hash + ")",
                               detail("hash_mismatch", {{"hash", hash}, {"expected", it->second.hash}})));
            continue;
        }
        if (!groups.count(id)) order.push_back(id);
        groups[id].push_back(&e);
    }
    for (const std::string& id : order) {
        const GradingExercise& ex = exercises.at(id);
        const std::vector<const json*>& group = groups[id];
        // The variant is recomputed from the learner id: a seed edited in the file changes nothing.
        const std::uint32_t seed = variant_seed(learner, id, ex.hash);
        json r = row(learner, id, "graded");
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
            const json graded = grade_exercise(ex.data, seed, attempts);
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
            json details = json::array();
            double claimed = -1;
            bool has_claim = false;
            for (const json* e : group) {
                if (e->contains("seed") && (*e)["seed"] != json(seed)) {
                    notes = "the file's seed was not this learner's; graded with " + std::to_string(seed);
                    details = json::array({detail("seed_replaced", {{"seed", seed}})});
                }
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
                json d = detail("not_graded", {{"more", graded["rejected"].size() > 1}});
                d["detail"] = first.value("detail", json(nullptr));
                details.push_back(d);
            }
            r["message"] = notes;
            r["details"] = details;
        } catch (const std::exception& ex_err) {
            // The core's error as the page words its errors (err.<code> in web/i18n).
            json params = json::object();
            for (const auto& [k, v] : error_params(ex_err)) params[k] = v;
            r = row(learner, id, error_code(ex_err) == "too_large" ? "too_large" : "invalid_exercise", ex_err.what(),
                    detail("core_error", {{"error", error_code(ex_err)}, {"errorParams", params}}));
        }
        r["flags"] = flags;
        rows.push_back(r);
    }
    return rows;
}

json grade_submission_text(const std::string& text, const std::string& path, const GradingExercises& exercises) {
    try {
        if (text.size() > kMaxSubmissionBytes)
            return json::array({submission_row(path, "", "", "too_large",
                                               "the file is larger than " + std::to_string(kMaxSubmissionBytes >> 20) +
                                                   " MB; a submission is never that large",
                                               json::array({detail("file_too_large", {{"mb", kMaxSubmissionBytes >> 20}})}))});
        // Before the parser: a deeply nested file must be refused, not walked.
        if (Problem p = json_text_detail(text); !p.empty()) {
            p.text = "the file is " + p.text + "; a submission nests at most " + std::to_string(kMaxDepth);
            return json::array({submission_row(path, "", "", "too_large", p)});
        }
        json sub;
        try {
            sub = json::parse(text);
        } catch (const json::exception& e) {
            return json::array({submission_row(path, "", "", "invalid_file", std::string("not JSON: ") + e.what(),
                                               json::array({detail("not_json", {{"error", e.what()}})}))});
        }
        if (Problem p = json_value_detail(sub); !p.empty()) {
            p.text = "the file holds " + p.text;
            return json::array({submission_row(path, "", "", "too_large", p)});
        }
        return grade_submission_value(sub, path, exercises);
    } catch (const std::exception& e) {
        // Whatever a file does, it loses only its own rows, never the batch.
        const std::string code = error_code(e);
        return json::array({submission_row(path, "", "",
                                           code == "too_large" || dynamic_cast<const std::bad_alloc*>(&e) ? "too_large" : "invalid_file",
                                           e.what())});
    }
}

}  // namespace poslab::grading
