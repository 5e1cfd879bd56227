// One submission file's re-grade: the checks `poslab grade` makes on a file
// (size, nesting, JSON, format, learner id, entries, content hashes,
// duplicate entries) and the grade of each exercise. The CLI
// (cpp/cli/grade.cpp) and the instructor's results page (wasm
// gradeSubmission) both call this, so they cannot disagree.
#include <algorithm>
#include <cmath>
#include <map>
#include <cstdio>
#include <new>

#include "poslab/errors.hpp"
#include "poslab/grading.hpp"
#include "poslab/tokenizer.hpp"

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

// The key of one attempt in a merged exercise history, as code_attempts_text
// lists it and code_results are keyed: "exercise id/question id/index" (the
// index into the merged, ordered history, 0-based).
std::string attempt_key(const std::string& exercise, const std::string& question, std::size_t index) {
    return exercise + "/" + question + "/" + std::to_string(index);
}

bool is_code_answer(const json& a) {
    return a.is_object() && a.contains("answer") && a["answer"].is_object() && a["answer"].contains("code") &&
           a["answer"]["code"].is_string();
}

// One counted code attempt: its index in the merged history, question, and
// its 1-based place among the question's counted attempts.
struct CodeSlot {
    std::size_t index;
    std::string question;
    int counted;
};

// The code attempts grade_exercise will count, decided by its own rules
// (attempt_rejection, the per-question cap, malformed answers not counted,
// max_attempts) before anything is run. Throws what grade_exercise throws.
std::vector<CodeSlot> code_slots(const json& exercise, const json& attempts) {
    if (!attempts.is_array()) throw InvalidArgument("bad_attempts", "attempts must be a list");
    if (const std::string p = json_value_problem(attempts); !p.empty()) throw InvalidArgument("too_large", "attempts: " + p);
    std::vector<CodeSlot> out;
    std::map<std::string, std::size_t> accepted;
    std::map<std::string, int> counted;
    for (std::size_t i = 0; i < attempts.size(); ++i) {
        const json& a = attempts[i];
        if (!a.is_object() || !a.contains("question") || !a["question"].is_string() || !a.contains("answer"))
            throw InvalidArgument("bad_attempts", "attempt " + std::to_string(i) + " needs a question id and an answer");
        const std::string id = a["question"].get<std::string>();
        const json& question = find_question(exercise, id);
        if (!attempt_rejection(exercise, question, a).empty()) continue;
        if (accepted[id] >= kMaxAttemptsPerQuestion) continue;
        ++accepted[id];
        if (question.value("type", "") != "code" || !is_code_answer(a)) continue;
        const int limit = max_attempts(question);
        if (limit > 0 && counted[id] >= limit) continue;
        out.push_back({i, id, ++counted[id]});
    }
    return out;
}

// The entries of a submission that name an exercise of the folder with its
// content hash, grouped by exercise (file order); rows for every other entry.
struct Entries {
    std::string learner;
    std::vector<std::string> order;
    std::map<std::string, std::vector<const json*>> groups;
};

// One exercise's attempts from all its entries, as one history: the copies'
// attempts in time order (ISO times), else in file order.
json merged_attempts(const std::vector<const json*>& group) {
    json attempts = json::array();
    bool timed = true;
    for (const json* e : group)
        for (const json& a : e->value("attempts", json::array())) {
            timed = timed && a.is_object() && a.contains("time") && a["time"].is_string();
            attempts.push_back(a);
        }
    if (group.size() > 1 && timed)
        std::stable_sort(attempts.begin(), attempts.end(), [](const json& x, const json& y) {
            return x["time"].get_ref<const std::string&>() < y["time"].get_ref<const std::string&>();
        });
    return attempts;
}

int time_limit_of(const json& q) {
    const json& t = q.contains("time_limit_ms") ? q["time_limit_ms"] : json();
    if (t.is_number_integer() && t.get<long long>() >= 1 && t.get<long long>() <= 60000) return t.get<int>();
    return kDefaultCodeTimeLimitMs;
}

const std::vector<std::string>& run_statuses() {
    static const std::vector<std::string> s = {"ok", "timeout", "syntax_error", "load_error", "no_function",
                                               "memory", "crashed", "blocked"};
    return s;
}

bool is_reason_word(const json& v) {
    if (!v.is_string()) return false;
    const std::string& w = v.get_ref<const std::string&>();
    if (w.empty() || w.size() > 32) return false;
    for (char c : w)
        if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
    return true;
}

// What the grader puts in place of a code attempt's answer: the code and the
// out-of-band re-run result, never the status/results/message the file holds.
json rerun_answer(const json& stored, const json* result, std::size_t hidden_cases, const char* missing) {
    const std::string& code = stored["code"].get_ref<const std::string&>();
    auto not_rerun = [&](const std::string& reason) { return json{{"code", code}, {"status", "not_rerun"}, {"reason", reason}}; };
    if (code_points(code) > kMaxCodeChars) return not_rerun("too_long");
    if (!result) return not_rerun(missing);
    if (!result->is_object() || !result->contains("status") || !(*result)["status"].is_string()) return not_rerun("bad_result");
    const std::string status = (*result)["status"].get<std::string>();
    if (status == "not_rerun") return not_rerun(is_reason_word(result->value("reason", json())) ? (*result)["reason"].get<std::string>() : "bad_result");
    if (std::find(run_statuses().begin(), run_statuses().end(), status) == run_statuses().end()) return not_rerun("bad_result");
    if (status == "ok") {
        const json& res = result->contains("results") ? (*result)["results"] : json();
        if (!res.is_array() || res.size() != hidden_cases) return not_rerun("bad_result");
        return {{"code", code}, {"status", "ok"}, {"results", res}};
    }
    std::string message = result->contains("message") && (*result)["message"].is_string() ? (*result)["message"].get<std::string>() : "";
    if (message.size() > 500) message = message.substr(0, 500);
    return {{"code", code}, {"status", status}, {"message", message}};
}

}  // namespace

std::size_t code_points(const std::string& text) {
    std::size_t n = 0;
    for (unsigned char c : text) n += (c & 0xC0) != 0x80;
    return n;
}

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

namespace {

// A row of the file being graded, with `part` (if any) its one detail.
json file_row(const std::string& path, const std::string& learner, const std::string& exercise, const std::string& status,
              const std::string& message = "", const json& part = nullptr) {
    return submission_row(path, learner, exercise, status, message, part.is_null() ? json::array() : json::array({part}));
}

// Step 1, the file as a whole: its format, version and learner id. The file's
// one row when it is refused, else null.
json refused_file(const json& sub, const std::string& path) {
    if (!sub.is_object() || !sub.contains("format") || sub["format"] != "position-lab-submission")
        return file_row(path, "", "", "invalid_file", "not a Position Lab submission (format is not \"position-lab-submission\")",
                        detail("not_submission"));
    if (!sub.contains("version") || !sub["version"].is_number_integer() || sub["version"] != 1)
        return file_row(path, "", "", "invalid_file",
                        "submission version " + (sub.contains("version") ? sub["version"].dump() : std::string("(none)")) +
                            " is not supported (this grader reads version 1, the number)",
                        detail("bad_version", {{"version", sub.contains("version") ? sub["version"].dump() : std::string("-")}}));
    if (!sub.contains("learner") || !sub["learner"].is_string() || !sub.contains("exercises") || !sub["exercises"].is_array())
        return file_row(path, "", "", "invalid_file", "a submission needs a learner id (text) and a list of exercises", detail("no_learner"));
    const std::string learner = sub["learner"].get<std::string>();
    if (const Problem p = learner_id_detail(learner); !p.empty()) return submission_row(path, "", "", "invalid_file", p);
    return nullptr;
}

// Step 2, the entries: those that name an exercise of the folder with its
// content hash, grouped by exercise (Entries); a row in `rows` for every
// other entry. Entries for one exercise are graded together: a second copy
// cannot escape max_attempts, and the row is flagged.
Entries group_entries(const json& sub, const std::string& path, const GradingExercises& exercises, json& rows) {
    Entries out;
    out.learner = sub["learner"].get<std::string>();
    const std::string& learner = out.learner;
    std::vector<std::string>& order = out.order;
    std::map<std::string, std::vector<const json*>>& groups = out.groups;
    auto row = [&](const std::string& who, const std::string& exercise, const std::string& status,
                   const std::string& message, const json& part) { return file_row(path, who, exercise, status, message, part); };
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
    return out;
}

// Step 3, code attempts: the stored status/results/message are replaced by
// the out-of-band re-run result (or not_rerun with the reason), before
// grading. Returns the tally {question id: {status: count}}; adds the
// attempts not re-run to `not_rerun`.
json rerun_code_attempts(const GradingExercise& ex, const std::string& id, std::uint32_t seed, json& attempts,
                         const json& code_results, std::size_t& not_rerun) {
    json code_runs = json::object();
    const std::vector<CodeSlot> slots = code_slots(ex.data, attempts);
    std::map<std::size_t, const CodeSlot*> counted;
    for (const CodeSlot& c : slots) counted[c.index] = &c;
    json variant;
    for (std::size_t i = 0; i < attempts.size(); ++i) {
        json& a = attempts[i];
        const std::string qid = a["question"].get<std::string>();
        if (find_question(ex.data, qid).value("type", "") != "code" || !is_code_answer(a)) continue;
        if (!counted.count(i)) {  // past max_attempts or the cap, or lab-rejected: never graded
            a["answer"] = json{{"code", a["answer"]["code"]}, {"status", "not_rerun"}, {"reason", "past_cap"}};
            continue;
        }
        if (variant.is_null()) variant = make_variant(ex.data, seed);
        const std::string key = attempt_key(id, qid, i);
        const json* result = code_results.is_object() && code_results.contains(key) ? &code_results[key] : nullptr;
        const std::size_t hidden = variant["code:" + qid]["hidden"].size();
        a["answer"] = rerun_answer(a["answer"], result, hidden, code_results.is_object() ? "no_result" : "no_code_results");
        const std::string st = a["answer"]["status"].get<std::string>();
        const std::string shown = st == "not_rerun" ? "not_rerun(" + a["answer"]["reason"].get<std::string>() + ")" : st;
        if (st == "not_rerun") ++not_rerun;
        json& tally = code_runs[qid];
        if (!tally.is_object()) tally = json::object();
        tally[shown] = tally.value(shown, 0) + 1;
    }
    return code_runs;
}

// Step 4, the row's flags: attempts refused for their lab settings, past the
// per-question cap, and code attempts not re-run.
void add_flags(json& flags, const json& graded, std::size_t not_rerun) {
    std::size_t lab_rejected = 0, over = 0;
    for (const json& x : graded["rejected"]) {
        if (x["status"] == "lab_not_allowed") ++lab_rejected;
        else over += x.value("count", std::size_t(0));
    }
    if (lab_rejected) flags.push_back("lab_not_allowed:" + std::to_string(lab_rejected));
    if (over) flags.push_back("too_many_attempts:" + std::to_string(over));
    if (not_rerun) flags.push_back("not_rerun:" + std::to_string(not_rerun));
    std::size_t ran_first = 0;
    for (const json& q : graded["questions"]) ran_first += q.value("ranBeforePrediction", false) ? 1 : 0;
    if (ran_first) flags.push_back("ran_before_prediction:" + std::to_string(ran_first));
}

// Step 5, the row's claimed points and its message and details: a seed in
// the file that was not the learner's, the first attempt not graded, the
// code attempts not re-run and why.
void add_notes(json& r, const std::vector<const json*>& group, std::uint32_t seed, const json& graded,
               const json& code_runs, std::size_t not_rerun) {
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
    if (not_rerun) {
        // Which reasons (too_long, no_result, budget, …), in a stable order.
        std::map<std::string, int> why;
        for (const auto& [q, tally] : code_runs.items())
            for (const auto& [st, n] : tally.items())
                if (st.rfind("not_rerun(", 0) == 0) why[st.substr(10, st.size() - 11)] += n.get<int>();
        std::string reasons;
        for (const auto& [w, n] : why) reasons += (reasons.empty() ? "" : ", ") + w;
        notes += (notes.empty() ? "" : "; ") + std::to_string(not_rerun) + " code attempt(s) not re-run (" + reasons +
                 "): they score 0";
        details.push_back(detail("not_rerun", {{"n", not_rerun}, {"reasons", reasons}}));
    }
    r["message"] = notes;
    r["details"] = details;
}

// One exercise's row: its entries' attempts merged (steps 3 to 5 around
// grade_exercise), or the core's error when the exercise cannot be graded.
json graded_row(const std::string& path, const std::string& learner, const std::string& id, const GradingExercise& ex,
                const std::vector<const json*>& group, const json& code_results) {
    // The variant is recomputed from the learner id: a seed edited in the file changes nothing.
    const std::uint32_t seed = variant_seed(learner, id, ex.hash);
    json r = file_row(path, learner, id, "graded");
    json flags = json::array();
    json attempts = merged_attempts(group);
    if (group.size() > 1) flags.push_back("duplicate_entries:" + std::to_string(group.size()));
    try {
        std::size_t not_rerun = 0;
        const json code_runs = rerun_code_attempts(ex, id, seed, attempts, code_results, not_rerun);
        r["codeRuns"] = code_runs;
        const json graded = grade_exercise(ex.data, seed, attempts);
        r["points"] = graded["points"];
        r["max"] = graded["max"];
        r["questions"] = graded["questions"];
        r["rejected"] = graded["rejected"];
        add_flags(flags, graded, not_rerun);
        add_notes(r, group, seed, graded, code_runs, not_rerun);
    } catch (const std::exception& ex_err) {
        // The core's error as the page words its errors (err.<code> in web/i18n).
        json params = json::object();
        for (const auto& [k, v] : error_params(ex_err)) params[k] = v;
        r = file_row(path, learner, id, error_code(ex_err) == "too_large" ? "too_large" : "invalid_exercise", ex_err.what(),
                     detail("core_error", {{"error", error_code(ex_err)}, {"errorParams", params}}));
    }
    r["flags"] = flags;
    return r;
}

}  // namespace

json grade_submission_value(const json& sub, const std::string& path, const GradingExercises& exercises,
                            const json& code_results) {
    json rows = json::array();
    if (json refused = refused_file(sub, path); !refused.is_null()) {
        rows.push_back(std::move(refused));
        return rows;
    }
    const Entries entries = group_entries(sub, path, exercises, rows);
    for (const std::string& id : entries.order)
        rows.push_back(graded_row(path, entries.learner, id, exercises.at(id), entries.groups.at(id), code_results));
    return rows;
}

namespace {

bool valid_utf8(const std::string& s, std::size_t& at) {
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        if (n == 0 || i + n > s.size()) return at = i, false;
        std::uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
        for (std::size_t k = 1; k < n; ++k) {
            const unsigned char d = static_cast<unsigned char>(s[i + k]);
            if ((d & 0xC0) != 0x80) return at = i, false;
            cp = (cp << 6) | (d & 0x3F);
        }
        // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return at = i, false;
        i += n;
    }
    return true;
}

// The one reading of a submission's bytes, for the grader and the code plan:
// the size, UTF-8, NUL, nesting and JSON checks. The parsed value, or the
// file's one row saying why not.
bool parse_submission(const std::string& text, const std::string& path, json& sub, json& rows) {
    auto refuse = [&](const std::string& status, const std::string& message, const json& d) {
        rows = json::array({submission_row(path, "", "", status, message, json::array({d}))});
        return false;
    };
    if (text.size() > kMaxSubmissionBytes)
        return refuse("too_large", "the file is larger than " + std::to_string(kMaxSubmissionBytes >> 20) + " MB; a submission is never that large",
                      detail("file_too_large", {{"mb", kMaxSubmissionBytes >> 20}}));
    std::size_t at = 0;
    if (!valid_utf8(text, at))
        return refuse("invalid_file", "not JSON: the file is not UTF-8 text (byte " + std::to_string(at) + ")", detail("not_utf8"));
    // A NUL byte is not JSON anywhere in a file (a parser that stops at it would read a different file).
    if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
        return refuse("invalid_file", "not JSON: the file holds a NUL byte (byte " + std::to_string(nul) + ")",
                      detail("nul_byte", {{"byte", nul}}));
    // At most one UTF-8 byte order mark, at the start (as an editor may write it); a second one is not JSON.
    const std::size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    if (start && text.compare(3, 3, "\xEF\xBB\xBF") == 0)
        return refuse("invalid_file", "not JSON: the file starts with two byte order marks (at most one, before the JSON)",
                      detail("two_boms"));
    if (Problem p = json_text_detail(text); !p.empty()) {
        p.text = "the file is " + p.text + "; a submission nests at most " + std::to_string(kMaxDepth);
        rows = json::array({submission_row(path, "", "", "too_large", p)});
        return false;
    }
    try {
        sub = json::parse(text.begin() + static_cast<std::ptrdiff_t>(start), text.end());
    } catch (const json::exception& e) {
        return refuse("invalid_file", std::string("not JSON: ") + e.what(), detail("not_json", {{"error", e.what()}}));
    }
    if (Problem p = json_value_detail(sub); !p.empty()) {
        p.text = "the file holds " + p.text;
        rows = json::array({submission_row(path, "", "", "too_large", p)});
        return false;
    }
    return true;
}

// UTF-8 text cut to at most `max` code points (at a character boundary), with "…".
std::string cut_text(const std::string& s, std::size_t max) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == max) return s.substr(0, i) + "\xE2\x80\xA6";
    return s;
}

// What one row may carry (kMaxRowMessageChars, kMaxRowItems): a hostile file
// cannot make the CSV or the page hold megabytes for it.
json& cap_row(json& r) {
    if (r.contains("message") && r["message"].is_string()) r["message"] = cut_text(r["message"].get<std::string>(), kMaxRowMessageChars);
    for (const char* k : {"details", "flags"}) {
        if (!r.contains(k) || !r[k].is_array() || r[k].size() <= kMaxRowItems) continue;
        const std::size_t more = r[k].size() - (kMaxRowItems - 1);
        json kept(r[k].begin(), r[k].begin() + static_cast<std::ptrdiff_t>(kMaxRowItems - 1));
        if (std::string(k) == "flags") kept.push_back("more_flags:" + std::to_string(more));
        else kept.push_back(detail("more_details", {{"n", more}}));
        r[k] = kept;
    }
    if (r.contains("rejected") && r["rejected"].is_array() && r["rejected"].size() > kMaxRowItems) {
        json kept(r["rejected"].begin(), r["rejected"].begin() + static_cast<std::ptrdiff_t>(kMaxRowItems));
        r["rejectedMore"] = r["rejected"].size() - kMaxRowItems;
        r["rejected"] = kept;
    }
    return r;
}

}  // namespace

json grade_submission_text(const std::string& text, const std::string& path, const GradingExercises& exercises,
                           const json& code_results) {
    json rows;
    try {
        json sub;
        if (parse_submission(text, path, sub, rows)) rows = grade_submission_value(sub, path, exercises, code_results);
    } catch (const std::exception& e) {
        // Whatever a file does, it loses only its own rows, never the batch.
        const std::string code = error_code(e);
        rows = json::array({submission_row(path, "", "",
                                           code == "too_large" || dynamic_cast<const std::bad_alloc*>(&e) ? "too_large" : "invalid_file",
                                           e.what())});
    }
    for (json& r : rows) cap_row(r);
    return rows;
}

json code_attempts_text(const std::string& text, const std::string& path, const GradingExercises& exercises) {
    json out = {{"file", path}, {"learner", ""}, {"ok", false}, {"status", "invalid_file"}, {"attempts", json::array()}};
    try {
        json sub, rows;
        if (!parse_submission(text, path, sub, rows)) {
            out["status"] = rows[0]["status"];
            return out;
        }
        // The same file checks as the grader: its first row says when the file as a whole is refused.
        if (!sub.is_object() || sub.value("format", json()) != "position-lab-submission" || !sub.contains("version") ||
            !sub["version"].is_number_integer() || sub["version"] != 1 || !sub.contains("learner") || !sub["learner"].is_string() ||
            !sub.contains("exercises") || !sub["exercises"].is_array() || !learner_id_detail(sub["learner"].get<std::string>()).empty())
            return out;
        const std::string learner = sub["learner"].get<std::string>();
        out["learner"] = learner;
        out["ok"] = true;
        out["status"] = "graded";
        std::vector<std::string> order;
        std::map<std::string, std::vector<const json*>> groups;
        for (const json& e : sub["exercises"]) {
            // The entries the grader grades (grade_submission_value): an object with a text id,
            // text contentHash equal to the folder's, attempts a list.
            if (!e.is_object() || !e.contains("id") || !e["id"].is_string() || e["id"].get<std::string>().empty()) continue;
            if (e.contains("contentHash") && !e["contentHash"].is_string()) continue;
            if (e.contains("attempts") && !e["attempts"].is_array()) continue;
            const std::string id = e["id"].get<std::string>();
            auto it = exercises.find(id);
            if (it == exercises.end() || e.value("contentHash", "") != it->second.hash) continue;
            if (!groups.count(id)) order.push_back(id);
            groups[id].push_back(&e);
        }
        for (const std::string& id : order) {
            const GradingExercise& ex = exercises.at(id);
            const json attempts = merged_attempts(groups[id]);
            std::vector<CodeSlot> slots;
            try {
                slots = code_slots(ex.data, attempts);
            } catch (const std::exception&) {
                continue;  // the grader refuses this exercise's entry (invalid_exercise): nothing of it counts
            }
            if (slots.empty()) continue;
            const json variant = make_variant(ex.data, variant_seed(learner, id, ex.hash));
            for (const CodeSlot& c : slots) {
                const json& q = find_question(ex.data, c.question);
                const std::string& code = attempts[c.index]["answer"]["code"].get_ref<const std::string&>();
                json cases = json::array();
                for (const json& h : variant["code:" + c.question]["hidden"]) cases.push_back(h["args"]);
                json item = {{"key", attempt_key(id, c.question, c.index)},
                             {"exercise", id},
                             {"question", c.question},
                             {"attempt", c.counted},
                             {"function", q.value("function", "")},
                             {"timeLimitMs", time_limit_of(q)},
                             {"runnable", true}};
                if (code_points(code) > kMaxCodeChars) {
                    item["runnable"] = false;
                    item["reason"] = "too_long";
                    item["code"] = "";
                    item["cases"] = json::array();
                } else {
                    item["code"] = code;
                    item["cases"] = cases;
                }
                out["attempts"].push_back(std::move(item));
            }
        }
    } catch (const std::exception& e) {
        out = {{"file", path}, {"learner", ""}, {"ok", false}, {"status", "invalid_file"}, {"attempts", json::array()}};
    }
    return out;
}

// ---- the one CSV writer ----

std::string display_text(const std::string& in) {
    // Bytes that are not UTF-8 first become U+FFFD (as the JSON writer's replace mode does).
    // Then NFC, so that a composed and a decomposed "José" read (and sort, and group) as one name.
    const std::string s = nfc(json::parse(json(in).dump(-1, ' ', false, json::error_handler_t::replace)).get<std::string>());
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
        std::uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
        for (std::size_t k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        const bool hidden = cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0xAD || cp == 0x61C || cp == 0x180E ||
                            (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
                            (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB);
        if (hidden) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(cp));
            out += buf;
        } else {
            out.append(s, i, n);
        }
        i += n;
    }
    return out;
}

std::string csv_cell(const std::string& text) {
    std::string cell = display_text(text);
    if (!cell.empty() && std::string("=+-@").find(cell[0]) != std::string::npos) cell = "'" + cell;
    if (cell.find_first_of(",;\"\r\n") == std::string::npos) return cell;
    std::string q = "\"";
    for (char c : cell) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string csv_number(double v) {
    if (!std::isfinite(v)) return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", v);
    std::string s = buf;
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    if (s == "-0") s = "0";
    return s;
}

std::string csv_table(const json& rows, bool crlf) {
    if (!rows.is_array()) throw InvalidArgument("bad_csv", "a table is a list of rows");
    std::string out;
    for (const json& row : rows) {
        if (!row.is_array()) throw InvalidArgument("bad_csv", "each row of a table is a list of cells");
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            const json& c = row[i];
            if (i) line += ',';
            if (c.is_number()) line += csv_number(c.get<double>());
            else if (c.is_string()) line += csv_cell(c.get<std::string>());
            else if (c.is_boolean()) line += c.get<bool>() ? "yes" : "no";
            else if (!c.is_null()) throw InvalidArgument("bad_csv", "a cell is a number, text, true/false or null");
        }
        out += line + (crlf ? "\r\n" : "\n");
    }
    return out;
}

std::string csv_header() { return "file,learner,exercise,points,max,claimed_points,claimed_differs,status,message,flags,code_runs"; }

std::string csv_row(const json& r) {
    auto text = [&](const char* k) { return r.contains(k) && r[k].is_string() ? csv_cell(r[k].get<std::string>()) : std::string(); };
    auto num = [&](const char* k) { return r.contains(k) && r[k].is_number() ? csv_number(r[k].get<double>()) : std::string(); };
    auto joined = [](const json& items, const char* sep) {
        std::string s;
        for (const json& f : items) s += (s.empty() ? "" : sep) + (f.is_string() ? f.get<std::string>() : f.dump());
        return s;
    };
    std::string runs;
    if (r.contains("codeRuns") && r["codeRuns"].is_object())
        for (const auto& [q, tally] : r["codeRuns"].items()) {
            std::string t;
            for (const auto& [st, n] : tally.items()) t += (t.empty() ? "" : "+") + st + "=" + n.dump();
            runs += (runs.empty() ? "" : ";") + q + ":" + t;
        }
    const json& differs = r.contains("claimedDiffers") ? r["claimedDiffers"] : json();
    return text("file") + ',' + text("learner") + ',' + text("exercise") + ',' + num("points") + ',' + num("max") + ',' +
           num("claimedPoints") + ',' + (differs.is_boolean() ? (differs.get<bool>() ? "yes" : "no") : "") + ',' + text("status") +
           ',' + text("message") + ',' + csv_cell(r.contains("flags") && r["flags"].is_array() ? joined(r["flags"], ";") : "") +
           ',' + csv_cell(runs);
}

}  // namespace poslab::grading
