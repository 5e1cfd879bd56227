#include "poslab/grading.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "poslab/api_json.hpp"
#include "poslab/code_questions.hpp"
#include "poslab/errors.hpp"
#include "poslab/extend_runs.hpp"
#include "poslab/random.hpp"
#include "poslab/tokenizer.hpp"

namespace poslab::grading {
namespace {

// Decodes one UTF-8 code point at s[i] (the text is known to be UTF-8 when it
// comes from JSON); returns it and advances i.
char32_t next_code_point(const std::string& s, std::size_t& i) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 1;
    if (i + len > s.size()) len = 1;
    char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += len;
    return cp;
}

json to_doubles(const json& v) {
    if (v.is_number()) return json(v.get<double>());
    if (v.is_array()) {
        json a = json::array();
        for (const auto& e : v) a.push_back(to_doubles(e));
        return a;
    }
    if (v.is_object()) {
        json o = json::object();
        for (const auto& [k, e] : v.items()) o[k] = to_doubles(e);
        return o;
    }
    return v;
}

std::string hex64(std::uint64_t h) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

// {ja, en}: a value per language (text, or e.g. a target token list).
bool is_text(const json& v) { return v.is_object() && v.size() == 2 && v.contains("ja") && v.contains("en"); }

InvalidArgument exercise_error(const std::string& what) {
    return InvalidArgument("bad_exercise", what);
}

std::pair<double, double> tolerance_of(const json& question) {
    double rtol = kDefaultRtol, atol = kDefaultAtol;
    if (question.contains("tolerance")) {
        const json& t = question["tolerance"];
        if (t.contains("rtol")) rtol = t["rtol"].get<double>();
        if (t.contains("atol")) atol = t["atol"].get<double>();
        // Giving only atol means "absolute only", as the exercise files read.
        if (t.contains("atol") && !t.contains("rtol")) rtol = 0.0;
    }
    return {rtol, atol};
}

// A task's `error: {code, params}`: the call failed with that code, and each
// named param has that value (numbers compared as numbers).
bool error_matches(const json& want, const std::string& code, const ErrorParams& params) {
    if (!want.is_object() || !want.contains("code") || !want["code"].is_string())
        throw exercise_error("a task's error needs a code (the core's error code, e.g. position_past_table)");
    if (code != want["code"].get<std::string>()) return false;
    const json expected = want.value("params", json::object());
    for (const auto& [k, v] : expected.items()) {
        const auto it = params.find(k);
        if (it == params.end()) return false;
        if (v.is_number()) {
            char* end = nullptr;
            const double got = std::strtod(it->second.c_str(), &end);
            if (it->second.empty() || *end != '\0' || got != v.get<double>()) return false;
        } else if (!v.is_string() || it->second != v.get<std::string>()) {
            return false;
        }
    }
    return true;
}

AttemptResult malformed(const std::string& message) {
    AttemptResult r;
    r.status = "malformed";
    r.message = message;
    return r;
}

void set_status(AttemptResult& r, std::size_t right, std::size_t total) {
    r.status = right == total ? "correct" : right == 0 ? "incorrect" : "partial";
}

AttemptResult check_numeric(const json& q, const json& answer, const json& variant, const json& lab,
                            const std::string& lang) {
    const json& fields = q.at("fields");
    if (!answer.is_array() || answer.size() != fields.size())
        return malformed("this question takes " + std::to_string(fields.size()) + " number" +
                         (fields.size() == 1 ? "" : "s"));
    // Every field is read first, so a malformed answer says which fields
    // (parts: true where the field is a number) and costs no attempt.
    std::vector<double> typed;
    std::vector<bool> readable;
    std::string first_problem;
    for (std::size_t i = 0; i < answer.size(); ++i) {
        std::optional<double> v;
        if (answer[i].is_string()) v = parse_number(answer[i].get<std::string>());
        else if (answer[i].is_number()) v = answer[i].get<double>();
        const bool ok = v && std::isfinite(*v);
        readable.push_back(ok);
        typed.push_back(ok ? *v : 0.0);
        if (!ok && first_problem.empty()) {
            const std::string shown = answer[i].is_string() ? answer[i].get<std::string>() : answer[i].dump();
            first_problem = shown.empty() ? "field " + std::to_string(i + 1) + " is empty"
                                          : "field " + std::to_string(i + 1) + ": '" + shown + "' is not a number";
        }
    }
    if (!first_problem.empty()) {
        AttemptResult bad = malformed(first_problem);
        bad.parts = readable;
        return bad;
    }
    const auto [rtol, atol] = tolerance_of(q);
    AttemptResult r;
    std::size_t right = 0;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const double want = expected_number(fields[i].at("expect"), variant, lab, lang);
        r.expected.push_back(want);
        r.parts.push_back(is_close(typed[i], want, rtol, atol));
        right += r.parts.back();
    }
    r.score = double(right) / double(fields.size());
    set_status(r, right, fields.size());
    if (r.status != "correct" && q.contains("mistakes")) {
        std::size_t index = 0;
        for (const json& m : q["mistakes"]) {
            ++index;
            const json& pins = m.at("expect");
            bool any = false, all = true;
            for (std::size_t i = 0; i < pins.size() && i < typed.size(); ++i) {
                if (pins[i].is_null()) continue;
                any = true;
                if (!is_close(typed[i], expected_number(pins[i], variant, lab, lang), rtol, atol)) all = false;
            }
            if (any && all) {
                r.feedback = m.at("feedback");
                // Which named mistake: its `id` if the file gives one, else its place in the list.
                const std::string id = m.contains("id") && m["id"].is_string() ? m["id"].get<std::string>()
                                                                              : "mistake-" + std::to_string(index);
                r.mistake = json{{"id", id}, {"index", index}, {"feedback", m.at("feedback")}};
                break;
            }
        }
    }
    return r;
}

// The options "sA-B" (swap tokens A and B, 1-based) that change token T's
// output: each swap re-run by the core, the row compared within 1e-6.
std::set<std::string> swaps_changing(const json& q, const json& spec, const json& variant, const json& lab,
                                     const std::string& lang) {
    const std::size_t token = spec.at("token").get<std::size_t>();
    json args = substitute(spec.at("args"), variant, lab, lang);
    const json tokens = args.contains("text") ? call_json("tokenize", args["text"]) : args.at("tokens");
    const std::size_t n = tokens.size();
    std::set<std::string> changed;
    for (const json& o : q.at("options")) {
        const std::string id = o.at("id").get<std::string>();
        std::size_t a = 0, b = 0;
        if (std::sscanf(id.c_str(), "s%zu-%zu", &a, &b) != 2 || a < 1 || b < 1 || a > n || b > n || token > n)
            throw InvalidArgument("page_too_few_tokens",
                                  "option '" + id + "' swaps tokens the sentence does not have (it has " +
                                      std::to_string(n) + ")",
                                  {{"need", std::to_string(std::max({a, b, token}))}, {"have", std::to_string(n)}});
        std::vector<std::size_t> perm(n);
        for (std::size_t i = 0; i < n; ++i) perm[i] = i;
        std::swap(perm[a - 1], perm[b - 1]);
        json check_args = args;
        check_args["permutation"] = perm;
        const json r = call_json("permutationCheck", check_args);
        // Token T's output before, against the same token's output where it now stands.
        const std::size_t t0 = token - 1;
        const std::size_t moved = static_cast<std::size_t>(std::find(perm.begin(), perm.end(), t0) - perm.begin());
        const std::size_t width = r["original"]["output"]["shape"][1].get<std::size_t>();
        for (std::size_t d = 0; d < width; ++d) {
            const double before = r["original"]["output"]["data"][t0 * width + d].get<double>();
            const double after = r["permuted"]["output"]["data"][moved * width + d].get<double>();
            if (!is_close(after, before, 0.0, 1e-6)) {
                changed.insert(id);
                break;
            }
        }
    }
    return changed;
}

// The options "pI" (RoPE pair I, 0-based) whose angles leave the trained
// range under `args` (ropeAngleMap options; $-names substituted), or the
// option "none" when no pair leaves.
std::set<std::string> pairs_leaving(const json& q, const json& spec, const json& variant, const json& lab,
                                    const std::string& lang) {
    const json r = call_json("ropeAngleMap", substitute(spec.at("args"), variant, lab, lang));
    const json& leaves = r.at("leaves");
    std::set<std::string> out;
    bool any = false;
    for (const json& l : leaves) any = any || l.get<bool>();
    for (const json& o : q.at("options")) {
        const std::string id = o.at("id").get<std::string>();
        if (id == "none") {  // "no pair leaves": right exactly when none does
            if (!any) out.insert(id);
            continue;
        }
        std::size_t i = 0;
        char extra = 0;
        if (std::sscanf(id.c_str(), "p%zu%c", &i, &extra) != 1 || i >= leaves.size())
            throw InvalidArgument("bad_option_id",
                                  "option '" + id + "' names no pair: with pairs_leaving, ids are p0 … p" +
                                      std::to_string(leaves.size() - 1),
                                  {{"option", id}, {"pairs", std::to_string(leaves.size())}});
        if (leaves[i].get<bool>()) out.insert(id);
    }
    return out;
}

// The options "method-M" whose curve (zero-shot, or fine-tuned with
// `finetuned: true`) solved every n = 1 … testMax for every seed of the
// learner's run, or "none" when no method did. The run is recomputed by the
// core for (args, seeds) — extension_run_curves, from the compiled-in cache
// when it holds them — never read from the submission.
std::set<std::string> extend_run_methods(const json& q, const json& spec, const json& variant, const json& lab,
                                         const std::string& lang) {
    const json seeds = substitute(spec.at("seeds"), variant, lab, lang);
    if (!seeds.is_array() || seeds.empty() || seeds.size() > 8)
        throw InvalidArgument("bad_run_seeds", "the run's seeds must list 1 to 8 seeds, got " + seeds.dump().substr(0, 80));
    const bool finetuned = spec.value("finetuned", false);
    const json args = substitute(spec.value("args", json::object()), variant, lab, lang);
    ExtensionOptions o = extension_options_from_json(args);
    std::map<std::string, bool> solved_all;
    for (RopeScaling m : o.methods) solved_all[to_string(m)] = true;
    for (const json& seed : seeds) {
        if (!seed.is_number() || seed.get<double>() != std::floor(seed.get<double>()) || seed.get<double>() < 0 ||
            seed.get<double>() > 4294967295.0)
            throw InvalidArgument("bad_run_seeds", "a seed of the run must be a whole number from 0 to 4294967295, got " +
                                                       seed.dump().substr(0, 40));
        o.train.seed = std::int64_t(seed.get<double>());
        validate(o);
        std::map<std::string, bool> seen;
        for (const ExtensionRunCurve& c : extension_run_curves(o)) {
            if (c.finetuned != finetuned) continue;
            seen[to_string(c.method)] = true;
            if (c.solved_up_to < o.train.test_max) solved_all[to_string(c.method)] = false;
        }
        for (auto& [m, all] : solved_all)
            if (!seen.count(m)) all = false;  // no such curve (finetuned with 0 fine-tune steps)
    }
    std::set<std::string> out;
    bool any = false;
    for (const auto& [m, all] : solved_all) any = any || all;
    for (const json& opt : q.at("options")) {
        const std::string id = opt.at("id").get<std::string>();
        if (id == "none") {  // "no method did": right exactly when none did
            if (!any) out.insert(id);
            continue;
        }
        const auto it = id.rfind("method-", 0) == 0 ? solved_all.find(id.substr(7)) : solved_all.end();
        if (it == solved_all.end())
            throw InvalidArgument("bad_method_option",
                                  "option '" + id + "' names no method of the run: with extend_run, ids are method-M for M in args.methods, or none",
                                  {{"option", id}});
        if (it->second) out.insert(id);
    }
    return out;
}

// A question answered from the learner's Part 2 run needs that run's seeds (lab.runSeeds).
bool reads_run(const json& q) { return q.contains("answer_from") && q["answer_from"].contains("extend_run"); }
const char* const kNoRun =
    "this question reads your run of Part 2, and the answer came with no finished run (lab.runSeeds): run the experiment, then answer";

AttemptResult check_choice(const json& q, const json& answer, const json& variant, const json& lab,
                           const std::string& lang) {
    const json& options = q.at("options");
    std::set<std::string> ids, want, got;
    for (const json& o : options) ids.insert(o.at("id").get<std::string>());
    if (reads_run(q)) {
        if (!lab.is_object() || !lab.contains("runSeeds")) return malformed(kNoRun);
        want = extend_run_methods(q, q["answer_from"].at("extend_run"), variant, lab, lang);
    } else if (q.contains("answer_from") && q["answer_from"].contains("pairs_leaving")) {
        want = pairs_leaving(q, q["answer_from"].at("pairs_leaving"), variant, lab, lang);
    } else if (q.contains("answer_from")) {
        want = swaps_changing(q, q["answer_from"].at("swaps_changing"), variant, lab, lang);
    } else {
        for (const json& a : q.at("answer")) want.insert(a.get<std::string>());
    }
    const bool multiple = q.value("multiple", false);
    if (!answer.is_array()) return malformed("choose " + std::string(multiple ? "one or more options" : "one option"));
    for (const json& a : answer) {
        if (!a.is_string() || !ids.count(a.get<std::string>()))
            return malformed("'" + (a.is_string() ? a.get<std::string>() : a.dump()) + "' is not one of the options");
        got.insert(a.get<std::string>());
    }
    if (got.empty()) return malformed("choose an option");
    if (!multiple && got.size() > 1) return malformed("choose only one option");
    AttemptResult r;
    std::size_t right_chosen = 0, wrong_chosen = 0, parts_right = 0;
    for (const json& o : options) {
        const std::string id = o["id"].get<std::string>();
        const bool chosen = got.count(id) != 0, should = want.count(id) != 0;
        r.parts.push_back(chosen == should);
        parts_right += chosen == should;
        right_chosen += chosen && should;
        wrong_chosen += chosen && !should;
        if (chosen && !should && !r.feedback && o.contains("why")) {
            r.feedback = o["why"];
            // A wrong option the file explains is a named mistake too.
            r.mistake = json{{"id", "option-" + id}, {"option", id}, {"feedback", o["why"]}};
        }
    }
    // Partial credit for multiple choice: each right choice earns 1/|answer|,
    // each wrong one takes 1/|answer| away, never below 0.
    if (multiple) r.score = want.empty() ? (got.empty() ? 1.0 : 0.0)
                                         : std::max(0.0, (double(right_chosen) - double(wrong_chosen)) / double(want.size()));
    else r.score = wrong_chosen == 0 && right_chosen == 1 ? 1.0 : 0.0;
    const bool exact = parts_right == options.size();
    r.status = exact ? "correct" : r.score > 0 ? "partial" : "incorrect";
    if (exact) r.score = 1.0;
    return r;
}

AttemptResult check_task(const json& q, const json& answer, const json& variant, const json& lab,
                         const std::string& lang) {
    // An exercise file's condition says where the page watches (widget, path)
    // and, under `check`, how the core re-checks; a bare condition is the check.
    const json& c = q.at("condition").contains("check") ? q["condition"]["check"] : q.at("condition");
    if (!c.contains("call"))
        throw exercise_error("task '" + q.value("id", "?") + "': its condition needs a core call to re-run");
    if (!answer.is_object()) return malformed("a task's answer is the lab settings it was solved with (an object)");
    json args = substitute(c.value("args", json::object()), variant, lab, lang);
    // `free`: the options the learner sets, as a list of names or as
    // {name: widget path} / {name: {path, min, max}} (the page reads the
    // value at the path; the core checks the limits).
    std::map<std::string, json> free;
    const json free_spec = c.value("free", json::array());
    if (free_spec.is_array())
        for (const json& k : free_spec) free[k.get<std::string>()] = json::object();
    else
        for (const auto& [k, v] : free_spec.items()) free[k] = v.is_object() ? v : json::object();
    for (const auto& [key, value] : answer.items()) {
        auto it = free.find(key);
        if (it == free.end()) {
            std::string list;
            for (const auto& f : free) list += (list.empty() ? "" : ", ") + f.first;
            return malformed("the task cannot set '" + key + "'" + (list.empty() ? "" : "; it sets only " + list));
        }
        if (it->second.contains("min") && !(value.is_number() && value.get<double>() >= it->second["min"].get<double>()))
            return malformed(key + " must be at least " + it->second["min"].dump());
        if (it->second.contains("max") && !(value.is_number() && value.get<double>() <= it->second["max"].get<double>()))
            return malformed(key + " must be at most " + it->second["max"].dump());
        args[key] = value;
    }
    if (c.contains("is_error"))
        throw exercise_error("task '" + q.value("id", "?") +
                             "': is_error passes on any error; name the one the task teaches: error: {code, params}");
    bool failed = false;
    std::string code;
    ErrorParams params;
    json result;
    try {
        result = call_json(c.at("call").get<std::string>(), args);
    } catch (const std::exception& e) {
        failed = true;
        code = error_code(e);
        params = error_params(e);
    }
    bool ok = false;
    if (c.contains("error")) {
        ok = failed && error_matches(c["error"], code, params);
    } else if (!failed) {
        const json& v = json_at_path(result, c.at("path").get<std::string>());
        if (c.contains("equals")) ok = to_doubles(v) == to_doubles(substitute(c["equals"], variant, lab, lang));
        else if (c.contains("gt")) ok = v.is_number() && v.get<double>() > c["gt"].get<double>();
        else if (c.contains("lt")) ok = v.is_number() && v.get<double>() < c["lt"].get<double>();
    }
    AttemptResult r;
    r.score = ok ? 1.0 : 0.0;
    r.status = ok ? "correct" : "incorrect";
    r.parts = {ok};
    return r;
}

// Counts code points (the text is UTF-8 from JSON).
std::size_t code_points(const std::string& s) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++n) next_code_point(s, i);
    return n;
}

// A prediction is recorded, never right or wrong: one option id.
AttemptResult check_prediction(const json& q, const json& answer) {
    std::set<std::string> ids;
    for (const json& o : q.at("options")) ids.insert(o.at("id").get<std::string>());
    if (!answer.is_array() || answer.size() != 1) return malformed("choose one option");
    if (!answer[0].is_string() || !ids.count(answer[0].get<std::string>()))
        return malformed("'" + (answer[0].is_string() ? answer[0].get<std::string>() : answer[0].dump()) +
                         "' is not one of the options");
    AttemptResult r;
    r.status = "recorded";
    r.score = 1.0;
    for (const json& o : q["options"]) r.parts.push_back(o["id"] == answer[0]);
    return r;
}

// A free-text explanation: kept for the instructor, never scored.
constexpr std::size_t kExplainHardMax = 5000;
AttemptResult check_explain(const json& q, const json& answer) {
    const std::size_t max = std::min<std::size_t>(q.value("max_length", std::size_t{2000}), kExplainHardMax);
    if (!answer.is_string()) return malformed("an explanation is text");
    const std::string text = answer.get<std::string>();
    // Checked on the bytes first, so a huge answer is refused without decoding it.
    if (text.size() > 4 * max || code_points(text) > max)
        return malformed("the explanation is longer than " + std::to_string(max) + " characters");
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) return malformed("the explanation is empty");
    AttemptResult r;
    r.status = "recorded";
    r.score = 0.0;
    return r;
}

bool is_question_type(const std::string& type) {
    return type == "numeric" || type == "choice" || type == "task" || type == "prediction" || type == "explain" ||
           type == "code";
}

}  // namespace

bool is_close(double answer, double expected, double rtol, double atol) {
    if (!std::isfinite(answer) || !std::isfinite(expected)) return false;
    return std::fabs(answer - expected) <= atol + rtol * std::fabs(expected);
}

std::optional<double> parse_number(const std::string& text) {
    // Bounded before anything else: no answer field is a hundred characters long.
    if (text.size() > 4 * kMaxNumberChars) return std::nullopt;
    std::string ascii;
    for (std::size_t i = 0; i < text.size();) {
        const char32_t c = next_code_point(text, i);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x3000 || c == 0x00A0) continue;
        if (c >= 0xFF10 && c <= 0xFF19) ascii += char('0' + (c - 0xFF10));
        else if (c == 0xFF0E) ascii += '.';
        else if (c == 0xFF0B) ascii += '+';
        else if (c == 0xFF0D || c == 0x2212 || c == 0x2012 || c == 0x2013 || c == 0x2014 || c == 0xFE63) ascii += '-';
        else if (c == 0xFF45 || c == 0xFF25) ascii += 'e';
        else if (c < 0x80) ascii += static_cast<char>(c);
        else return std::nullopt;
    }
    if (ascii.size() > kMaxNumberChars) return std::nullopt;
    // [+-]? (digits [.] digits? | . digits) ([eE] [+-]? digits)?, scanned once
    // left to right (std::regex recursed per character and overflowed the stack).
    const std::size_t n = ascii.size();
    std::size_t i = 0;
    auto digits = [&] {
        std::size_t count = 0;
        while (i < n && ascii[i] >= '0' && ascii[i] <= '9') ++i, ++count;
        return count;
    };
    if (i < n && (ascii[i] == '+' || ascii[i] == '-')) ++i;
    std::size_t mantissa = digits();
    if (i < n && ascii[i] == '.') {
        ++i;
        mantissa += digits();
    }
    if (mantissa == 0) return std::nullopt;
    if (i < n && (ascii[i] == 'e' || ascii[i] == 'E')) {
        ++i;
        if (i < n && (ascii[i] == '+' || ascii[i] == '-')) ++i;
        if (digits() == 0) return std::nullopt;
    }
    if (i != n) return std::nullopt;
    const double v = std::strtod(ascii.c_str(), nullptr);
    if (!std::isfinite(v)) return std::nullopt;
    return v;
}

std::string canonical_json(const json& exercise) { return to_doubles(exercise).dump(); }

// The version of what is graded: the presenter's talking points and minutes
// (`presenter:`) are left out, so editing them does not split a class's
// submissions into two versions.
std::string content_hash(const json& exercise) {
    if (exercise.is_object() && exercise.contains("presenter")) {
        json graded = exercise;
        graded.erase("presenter");
        return hex64(hash_string(canonical_json(graded)));
    }
    return hex64(hash_string(canonical_json(exercise)));
}

std::uint32_t variant_seed(const std::string& learner, const std::string& exercise_id, const std::string& hash) {
    const std::uint64_t h = hash_string(learner + '\x1f' + exercise_id + '\x1f' + hash);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
}

namespace {
json make_variant_values(const json& exercise, std::uint32_t seed);
}

json make_variant(const json& exercise, std::uint32_t seed) {
    json out = make_variant_values(exercise, seed);
    if (exercise.is_object() && exercise.contains("blocks") && exercise["blocks"].is_array())
        for (const json& q : questions(exercise))
            if (q.value("type", "") == "code") out["code:" + q.value("id", "")] = code_cases(q, seed);
    return out;
}

namespace {
json make_variant_values(const json& exercise, std::uint32_t seed) {
    json out = json::object();
    if (!exercise.is_object() || !exercise.contains("variants") || exercise["variants"].is_null()) return out;
    // Hostile files: every field is checked before use, errors name the field
    // (variants.NAME.FIELD), and every range is computed without overflow.
    // Integers stay within ±(2^53 − 1) so the page (JS numbers) agrees;
    // lengths are capped so no exercise can ask for unbounded memory.
    constexpr double kSafe = 9007199254740991.0;  // 2^53 − 1
    constexpr std::size_t kMaxLength = 4096;
    if (!exercise["variants"].is_object()) throw exercise_error("variants: must be a mapping of name: {kind, …}");
    Rng rng(mix_seed(seed, 0x7a1a47ull));
    auto below = [&](std::uint64_t n) { return static_cast<std::uint64_t>(rng.uniform() * double(n)) % n; };
    for (const auto& item : exercise["variants"].items()) {  // sorted by name: reproducible
        const std::string& name = item.key();
        const json& spec = item.value();
        const std::string at = "variants." + name;
        if (!spec.is_object()) throw exercise_error(at + ": must be a mapping {kind, …}");
        auto field = [&](const char* key) -> const json& {
            if (!spec.contains(key)) throw exercise_error(at + ": needs '" + key + "'");
            return spec[key];
        };
        auto number = [&](const char* key) {
            const json& v = field(key);
            if (!v.is_number() || !std::isfinite(v.get<double>()))
                throw exercise_error(at + "." + key + ": must be a number, got " + v.dump());
            return v.get<double>();
        };
        auto whole = [&](const char* key, double lo, double hi) {
            const json& v = field(key);
            const double d = v.is_number() ? v.get<double>() : NAN;
            if (!(d >= lo && d <= hi) || d != std::floor(d))
                throw exercise_error(at + "." + key + ": must be a whole number from " +
                                     std::to_string(static_cast<long long>(lo)) + " to " +
                                     std::to_string(static_cast<long long>(hi)) + ", got " + v.dump());
            // Exact for integers beyond 2^53 too (the double was only a range check).
            return v.is_number_integer() ? v.get<long long>() : static_cast<long long>(d);
        };
        const json& kind_v = spec.contains("kind") ? spec["kind"] : json("");
        const std::string kind = kind_v.is_string() ? kind_v.get<std::string>() : kind_v.dump();
        if (kind == "integer") {
            const long long lo = whole("min", -kSafe, kSafe), hi = whole("max", -kSafe, kSafe);
            if (hi < lo) throw exercise_error(at + ": max (" + std::to_string(hi) + ") is below min (" + std::to_string(lo) + ")");
            // In unsigned arithmetic: hi − lo + 1 cannot overflow (at most 2^54 − 1).
            const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
            out[name] = lo + static_cast<long long>(below(span));
        } else if (kind == "choice") {
            const json& options = field("options");
            if (!options.is_array() || options.empty()) throw exercise_error(at + ".options: must be a non-empty list");
            out[name] = options[below(options.size())];
        } else if (kind == "vector") {
            const double lo = number("min"), hi = number("max");
            const double step = spec.contains("step") ? number("step") : 1.0;
            const std::size_t length = static_cast<std::size_t>(whole("length", 0, double(kMaxLength)));
            if (!(step > 0) || hi < lo) throw exercise_error(at + ": needs min <= max and step > 0");
            const double steps = std::floor((hi - lo) / step + 1e-9);
            if (!(steps < kSafe))
                throw exercise_error(at + ": (max − min) / step must be below 2^53, got " + json((hi - lo) / step).dump());
            const std::uint64_t count = static_cast<std::uint64_t>(steps) + 1;
            json v = json::array();
            for (std::size_t i = 0; i < length; ++i) v.push_back(lo + step * double(below(count)));
            out[name] = v;
        } else if (kind == "permutation") {
            const std::size_t n = static_cast<std::size_t>(whole("length", 0, double(kMaxLength)));
            std::vector<std::size_t> p(n);
            for (std::size_t i = 0; i < n; ++i) p[i] = i;
            for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[below(i)]);  // Fisher–Yates
            out[name] = p;
        } else {
            throw exercise_error(at + ".kind: unknown kind '" + kind +
                                 "'; allowed: integer, choice, vector, permutation");
        }
    }
    return out;
}
}  // namespace

// lab.tokens, checked: strings that, joined, spell lab.sentence (see check_tokens_of_text).
static json recorded_tokens(const json& lab) {
    const json& t = lab["tokens"];
    const auto bad = [](const std::string& why) {
        return InvalidArgument("bad_lab_tokens", "the attempt's lab.tokens " + why);
    };
    if (!t.is_array()) throw bad("is not a list of strings");
    if (!lab.contains("sentence") || !lab["sentence"].is_string()) throw bad("come without the lab.sentence they split");
    std::vector<std::string> tokens;
    for (const json& e : t) {
        if (!e.is_string()) throw bad("is not a list of strings");
        tokens.push_back(e.get<std::string>());
        if (tokens.size() > kMaxTokens) break;  // check_tokens_of_text reports the limit
    }
    check_tokens_of_text(lab["sentence"].get<std::string>(), tokens);
    return tokens;
}

json substitute(const json& args, const json& variant, const json& lab, const std::string& lang) {
    if (args.is_string()) {
        const std::string s = args.get<std::string>();
        if (s.size() > 1 && s[0] == '$') {
            const std::string name = s.substr(1);
            const json* value = variant.contains(name) ? &variant[name] : lab.contains(name) ? &lab[name] : nullptr;
            if (!value) throw exercise_error("'" + s + "' names no variant and no lab value");
            return substitute(*value, json::object(), json::object(), lang);
        }
        return args;
    }
    if (is_text(args)) return substitute(args[lang == "en" ? "en" : "ja"], variant, lab, lang);
    if (args.is_array()) {
        json a = json::array();
        for (const auto& e : args) a.push_back(substitute(e, variant, lab, lang));
        return a;
    }
    if (args.is_object()) {
        // The page records the tokens it split the sentence into (lab.tokens, from
        // the browser's ICU); re-run exactly those, checked against the sentence.
        const bool recorded = args.contains("text") && args["text"] == "$sentence" && lab.contains("tokens");
        json o = json::object();
        for (const auto& [k, e] : args.items())
            if (!(recorded && k == "text")) o[k] = substitute(e, variant, lab, lang);
        if (recorded) o["tokens"] = recorded_tokens(lab);
        return o;
    }
    return args;
}

double expected_number(const json& expect, const json& variant, const json& lab, const std::string& lang) {
    const std::string call = expect.at("call").get<std::string>();
    const json result = call_json(call, substitute(expect.value("args", json::object()), variant, lab, lang));
    const json& v = expect.contains("pick") ? json_at_path(result, expect["pick"].get<std::string>()) : result;
    if (!v.is_number())
        throw exercise_error("expect: " + call + " gave no number at '" + expect.value("pick", "") + "'");
    return v.get<double>();
}

std::vector<json> questions(const json& exercise) {
    std::vector<json> out;
    for (const json& b : exercise.value("blocks", json::array())) {
        const std::string type = b.value("type", "");
        if (is_question_type(type)) out.push_back(b);
    }
    return out;
}

const json& find_question(const json& exercise, const std::string& id) {
    for (const json& b : exercise.at("blocks"))
        if (b.value("id", "") == id && is_question_type(b.value("type", "")))
            return b;
    throw InvalidArgument("unknown_question", "exercise '" + exercise.value("id", "?") + "' has no question '" + id + "'",
                          {{"question", id}});
}

double question_points(const json& q) { return q.value("type", "") == "explain" ? 0.0 : q.value("points", 1.0); }

int max_attempts(const json& q) {
    const int dflt = q.value("type", "") == "prediction" ? 1 : 0;
    const int n = q.value("max_attempts", dflt);
    return n > 0 ? n : 0;
}

double attempt_credit(const json& q, int attempt) {
    const int limit = max_attempts(q);
    if (attempt < 1 || (limit > 0 && attempt > limit)) return 0.0;
    if (!q.contains("credit")) return 1.0;
    const json& c = q["credit"];
    if (!c.is_array() || c.empty()) throw exercise_error("'" + q.value("id", "?") + "': credit must be a list of numbers 0…1");
    const json& v = c[std::min<std::size_t>(static_cast<std::size_t>(attempt), c.size()) - 1];
    if (!v.is_number() || !(v.get<double>() >= 0.0 && v.get<double>() <= 1.0))
        throw exercise_error("'" + q.value("id", "?") + "': credit must be a list of numbers 0…1");
    return v.get<double>();
}

json attempt_status(const json& q, int made) {
    const int limit = max_attempts(q);
    return {{"made", made},
            {"maxAttempts", limit > 0 ? json(limit) : json(nullptr)},
            {"left", limit > 0 ? json(std::max(0, limit - made)) : json(nullptr)},
            {"nextCredit", attempt_credit(q, made + 1)}};
}

std::vector<std::string> option_order(const json& q, std::uint32_t seed) {
    std::vector<std::string> ids;
    if (!q.contains("options") || !q["options"].is_array()) return ids;
    std::vector<std::size_t> movable;  // positions of the options that may move
    for (std::size_t i = 0; i < q["options"].size(); ++i) {
        const json& o = q["options"][i];
        ids.push_back(o.at("id").get<std::string>());
        if (!o.value("fixed", false)) movable.push_back(i);
    }
    if (q.value("type", "") != "choice" || !q.value("shuffle", true)) return ids;
    // Fisher–Yates over the movable positions, from (seed, question id).
    Rng rng(mix_seed(seed, hash_string("options\x1f" + q.value("id", ""))));
    std::vector<std::string> out = ids;
    std::vector<std::string> pool;
    for (std::size_t i : movable) pool.push_back(ids[i]);
    for (std::size_t i = pool.size(); i > 1; --i) {
        const std::size_t j = static_cast<std::size_t>(rng.next_u64() % i);
        std::swap(pool[i - 1], pool[j]);
    }
    for (std::size_t k = 0; k < movable.size(); ++k) out[movable[k]] = pool[k];
    return out;
}

json option_orders(const json& exercise, std::uint32_t seed) {
    json out = json::object();
    for (const json& q : questions(exercise))
        if (q.contains("options")) out[q.value("id", "")] = option_order(q, seed);
    return out;
}

AttemptResult check_attempt(const json& question, const json& answer, const json& variant, const json& lab,
                            const std::string& lang) {
    const std::string type = question.value("type", "");
    if (type == "numeric") return check_numeric(question, answer, variant, lab, lang);
    if (type == "choice") return check_choice(question, answer, variant, lab, lang);
    if (type == "task") return check_task(question, answer, variant, lab, lang);
    if (type == "prediction") return check_prediction(question, answer);
    if (type == "explain") return check_explain(question, answer);
    if (type == "code") return check_code_attempt(question, answer, variant);
    throw exercise_error("'" + question.value("id", "?") + "' is not a question (type '" + type + "')");
}

std::vector<json> unlocked_hints(const json& q, int wrong) {
    std::vector<json> out;
    if (q.contains("hints"))
        for (const json& h : q["hints"])
            if (wrong >= h.value("after", 1)) out.push_back(h.at("text"));
    if (q.contains("hint") && wrong >= q.value("hint_after", 2)) out.push_back(q["hint"]);
    return out;
}

QuestionGrade grade_question(const json& question, const std::vector<Attempt>& attempts, const json& variant) {
    QuestionGrade g;
    g.id = question.value("id", "");
    g.max = question_points(question);
    const std::string type = question.value("type", "");
    const int limit = max_attempts(question);  // 0: no limit
    double best = 0.0;
    int wrong = 0;
    for (const Attempt& a : attempts) {
        const AttemptResult r = check_attempt(question, a.answer, variant, a.lab, a.lang);
        if (r.status == "malformed") continue;
        if (limit > 0 && g.attempts >= limit) {
            ++g.ignored;
            continue;
        }
        ++g.attempts;
        // Attempt k earns at most credit_k of its score (attempt_credit).
        best = std::max(best, r.score * attempt_credit(question, g.attempts));
        if (r.status == "correct" || r.status == "recorded") {
            if (!g.solved && r.status == "correct") g.attempts_to_correct = g.attempts;
            g.solved = true;
        } else {
            if (!g.solved) ++wrong;
            g.wrong.push_back({{"attempt", g.attempts},
                               {"status", r.status},
                               {"score", r.score},
                               {"mistake", r.mistake ? *r.mistake : json(nullptr)},
                               {"answer", a.answer}});
        }
        if (type == "explain" || (type == "prediction" && !g.response)) g.response = a.answer;
    }
    // An explanation is optional: nothing to solve, it never holds up completion.
    if (type == "explain") g.solved = true;
    g.points = best * g.max;
    g.hints_unlocked = static_cast<int>(unlocked_hints(question, wrong).size());
    return g;
}

namespace {
Problem problem(const std::string& code, json params, std::string text) { return Problem{code, std::move(params), std::move(text)}; }
Problem too_deep(std::size_t max_depth) {
    return problem("too_deep", {{"max", max_depth}},
                   "nested more than " + std::to_string(max_depth) + " levels deep (arrays and objects)");
}
}  // namespace

Problem json_text_detail(const std::string& text, std::size_t max_depth) {
    std::size_t depth = 0;
    bool in_string = false, escaped = false;
    for (const char ch : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (ch == '\\') escaped = true;
            else if (ch == '"') in_string = false;
        } else if (ch == '"') {
            in_string = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth > max_depth) return too_deep(max_depth);
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            --depth;
        }
    }
    return {};
}
std::string json_text_problem(const std::string& text, std::size_t max_depth) { return json_text_detail(text, max_depth).text; }

Problem json_value_detail(const json& value, std::size_t max_depth) {
    std::vector<std::pair<const json*, std::size_t>> stack{{&value, 0}};
    auto long_string = [](const std::string& s) {
        return problem("long_string", {{"bytes", s.size()}, {"max", kMaxStringBytes}},
                       "a string of " + std::to_string(s.size()) + " bytes; strings may be at most " +
                           std::to_string(kMaxStringBytes));
    };
    while (!stack.empty()) {
        const auto [v, depth] = stack.back();
        stack.pop_back();
        if (v->is_string() && v->get_ref<const std::string&>().size() > kMaxStringBytes)
            return long_string(v->get_ref<const std::string&>());
        if (!v->is_structured()) continue;
        if (depth + 1 > max_depth) return too_deep(max_depth);
        if (v->is_object()) {
            for (auto it = v->begin(); it != v->end(); ++it) {
                if (it.key().size() > kMaxStringBytes) return long_string(it.key());
                stack.push_back({&it.value(), depth + 1});
            }
        } else {
            for (const json& e : *v) stack.push_back({&e, depth + 1});
        }
    }
    return {};
}
std::string json_value_problem(const json& value, std::size_t max_depth) { return json_value_detail(value, max_depth).text; }

Problem learner_id_detail(const std::string& id) {
    const Problem not_utf8 = problem("learner_not_utf8", json::object(), "the learner id is not valid UTF-8");
    if (id.empty()) return problem("learner_empty", json::object(), "the learner id is empty");
    if (id.size() > kMaxLearnerIdBytes)
        return problem("learner_too_long", {{"bytes", id.size()}, {"max", kMaxLearnerIdBytes}},
                       "the learner id has " + std::to_string(id.size()) + " bytes; at most " +
                           std::to_string(kMaxLearnerIdBytes) + " are allowed");
    for (std::size_t i = 0; i < id.size();) {
        const unsigned char b = static_cast<unsigned char>(id[i]);
        std::size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || i + len > id.size()) return not_utf8;
        char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
        for (std::size_t k = 1; k < len; ++k) {
            const unsigned char c = static_cast<unsigned char>(id[i + k]);
            if ((c & 0xC0) != 0x80) return not_utf8;
            cp = (cp << 6) | (c & 0x3F);
        }
        const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return not_utf8;
        if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
            return problem("learner_control", json::object(),
                           "the learner id contains a control character (tab, newline, …); use letters, digits and punctuation");
        i += len;
    }
    return {};
}
std::string learner_id_problem(const std::string& id) { return learner_id_detail(id).text; }

namespace {

bool is_whole(const json& v) { return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() == std::floor(v.get<double>()); }

// The exercise's range for a number setting: lab.ranges.<key>.{min,max}, else the defaults.
std::pair<double, double> range_of(const json& lab_spec, const std::string& key) {
    double lo = key == "seed" ? 0.0 : 1.0;
    double hi = key == "d" ? double(kDefaultMaxD) : key == "heads" ? double(kDefaultMaxHeads)
              : key == "tokens" ? double(kDefaultMaxTokens) : 4294967295.0;
    if (lab_spec.contains("ranges") && lab_spec["ranges"].contains(key)) {
        const json& r = lab_spec["ranges"][key];
        if (r.contains("min")) lo = r["min"].get<double>();
        if (r.contains("max")) hi = r["max"].get<double>();
    }
    return {lo, hi};
}

// A whole number as 64, not 64.0.
json whole_or(double v) { return v == std::floor(v) && std::fabs(v) < 9e15 ? json(static_cast<long long>(v)) : json(v); }

std::string shown(const json& v) {
    const std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// One lab setting (key as the page's lab names it) against the exercise's lab
// section. Values in params are shown as JSON text (as in the English text).
Problem setting_problem(const json& spec, const std::string& key, const json& value) {
    std::set<std::string> controls;
    for (const json& c : spec.value("controls", json::array())) controls.insert(c.get<std::string>());
    const std::string control = key == "causal" ? "mask" : key;
    const bool free = controls.count(control) != 0;
    if (key == "sentence") {
        if (!value.is_string()) return problem("sentence_not_text", {{"value", shown(value)}}, "sentence must be text, got " + shown(value));
        if (!free && spec.contains("sentence")) {
            const json& fixed = spec["sentence"];
            const bool same = is_text(fixed) ? value == fixed["ja"] || value == fixed["en"] : value == fixed;
            if (!same)
                return problem("sentence_fixed", json::object(),
                               "this exercise has no sentence control; the sentence is the exercise's own");
        }
        const double max_tokens = range_of(spec, "tokens").second;
        std::size_t count = 0;
        try {
            count = tokenize(value.get<std::string>()).size();
        } catch (const std::exception& e) {
            return problem("sentence_bad", {{"error", e.what()}}, std::string("sentence: ") + e.what());
        }
        if (double(count) > max_tokens)
            return problem("sentence_too_long", {{"n", count}, {"max", whole_or(max_tokens)}},
                           "the sentence has " + std::to_string(count) + " tokens; this exercise allows at most " +
                               shown(whole_or(max_tokens)));
        return {};
    }
    if (key == "tokens") {
        // The words the page split the sentence into (the browser's ICU); that
        // they split the recorded sentence is checked where they are used.
        if (!value.is_array()) return problem("tokens_not_list", {{"value", shown(value)}}, "tokens must be a list of strings, got " + shown(value));
        const double max_tokens = range_of(spec, "tokens").second;
        if (double(value.size()) > max_tokens)
            return problem("tokens_too_many", {{"n", value.size()}, {"max", whole_or(max_tokens)}},
                           "tokens has " + std::to_string(value.size()) + " entries; this exercise allows at most " +
                               shown(whole_or(max_tokens)));
        for (const json& t : value)
            if (!t.is_string())
                return problem("tokens_not_strings", {{"value", shown(t)}},
                               "tokens must be a list of strings, got " + shown(t) + " in it");
        return {};
    }
    if (key == "pe") {
        if (!value.is_string()) return problem("pe_not_name", {{"value", shown(value)}}, "pe must be a scheme name, got " + shown(value));
        if (!free) {
            const json fixed = spec.value("pe", json("none"));
            if (value == fixed) return {};
            return problem("pe_fixed", {{"fixed", shown(fixed)}, {"value", shown(value)}},
                           "this exercise has no position-information control; pe is " + shown(fixed));
        }
        const json schemes = spec.value("schemes", json{"none", "sinusoidal", "learned", "rope", "alibi"});
        for (const json& s : schemes)
            if (s == value) return {};
        return problem("pe_not_scheme", {{"value", shown(value)}, {"schemes", shown(schemes)}},
                       "pe " + shown(value) + " is not one of this exercise's schemes " + shown(schemes));
    }
    if (key == "causal") {
        if (!value.is_boolean()) return problem("causal_not_bool", {{"value", shown(value)}}, "causal must be true or false, got " + shown(value));
        const json fixed = spec.value("causal", json(false));
        if (!free && value != fixed)
            return problem("causal_fixed", {{"fixed", shown(fixed)}}, "this exercise has no mask control; causal is " + shown(fixed));
        return {};
    }
    if (key == "d" || key == "seed" || key == "heads") {
        if (!is_whole(value))
            return problem("setting_not_whole", {{"key", key}, {"value", shown(value)}}, key + " must be a whole number, got " + shown(value));
        const double v = value.get<double>();
        if (!free) {
            const double fixed = spec.value(key, key == "d" ? 8.0 : key == "seed" ? 0.0 : 1.0);
            if (v == fixed) return {};
            return problem("setting_fixed", {{"key", key}, {"fixed", shown(whole_or(fixed))}, {"value", shown(value)}},
                           "this exercise has no " + key + " control; " + key + " is " + shown(whole_or(fixed)));
        }
        const auto [lo, hi] = range_of(spec, key);
        if (v < lo || v > hi)
            return problem("setting_range", {{"key", key}, {"min", shown(whole_or(lo))}, {"max", shown(whole_or(hi))}, {"value", shown(value)}},
                           key + " must be from " + shown(whole_or(lo)) + " to " + shown(whole_or(hi)) +
                               " in this exercise, got " + shown(value));
        return {};
    }
    if (key == "weights") {
        const json fixed = spec.value("weights", json("random"));
        if (value == fixed) return {};
        return problem("weights_fixed", {{"fixed", shown(fixed)}, {"value", shown(value)}}, "weights is " + shown(fixed) + " in this exercise");
    }
    if (key == "runSeeds") {
        // The seeds of the learner's Part 2 run: exactly one of the exercise's sets (lab.run_seeds).
        const json choices = spec.value("run_seeds", json::array());
        if (choices.empty())
            return problem("no_run", json::object(), "this exercise has no run; runSeeds is not one of its settings");
        for (const json& c : choices)
            if (c == value) return {};
        return problem("run_seeds_not_allowed", {{"value", shown(value)}, {"allowed", shown(choices)}},
                       "runSeeds " + shown(value) + " is not one of this exercise's seed sets " + shown(choices) +
                           " (a run with other seeds is not graded)");
    }
    return problem("unknown_setting", {{"key", key}},
                   "'" + key + "' is not a lab setting (sentence, tokens, pe, causal, d, seed, heads, weights, runSeeds)");
}

}  // namespace

Problem lab_detail(const json& exercise, const json& lab) {
    if (!lab.is_object())
        return problem("lab_not_object", {{"value", shown(lab)}}, "lab must be an object of settings, got " + shown(lab));
    const json spec = exercise.value("lab", json::object());
    for (const auto& [key, value] : lab.items()) {
        Problem p = setting_problem(spec, key, value);
        if (!p.empty()) {
            p.text = "lab: " + p.text;
            return p;
        }
    }
    return {};
}
std::string lab_problem(const json& exercise, const json& lab) { return lab_detail(exercise, lab).text; }

Problem task_answer_detail(const json& exercise, const json& question, const json& answer) {
    if (question.value("type", "") != "task" || !answer.is_object()) return {};
    const json spec = exercise.value("lab", json::object());
    const json& cond = question.at("condition");
    const json& c = cond.contains("check") ? cond["check"] : cond;
    const json free = c.value("free", json::array());
    const double max_list = range_of(spec, "tokens").second;
    for (const auto& [key, value] : answer.items()) {
        std::string where;
        if (free.is_object() && free.contains(key))
            where = free[key].is_string() ? free[key].get<std::string>() : free[key].value("path", "");
        if (where.rfind("lab.", 0) == 0) {
            Problem p = setting_problem(spec, where.substr(4), value);
            if (!p.empty()) {
                p.text = key + ": " + p.text;
                p.params["field"] = key;
                return p;
            }
        }
        if (value.is_array() && double(value.size()) > max_list)
            return problem("answer_list_too_long", {{"field", key}, {"n", value.size()}, {"max", whole_or(max_list)}},
                           key + " has " + std::to_string(value.size()) + " entries; this exercise allows at most " +
                               shown(whole_or(max_list)));
    }
    return {};
}
std::string task_answer_problem(const json& exercise, const json& question, const json& answer) {
    return task_answer_detail(exercise, question, answer).text;
}

Problem attempt_rejection(const json& exercise, const json& question, const json& a) {
    Problem not_allowed = a.contains("lab") ? lab_detail(exercise, a["lab"]) : Problem{};
    if (not_allowed.empty()) not_allowed = task_answer_detail(exercise, question, a["answer"]);
    if (not_allowed.empty() && reads_run(question) && !(a.contains("lab") && a["lab"].contains("runSeeds")))
        not_allowed = problem("run_missing", json::object(), kNoRun);
    return not_allowed;
}

json grade_exercise(const json& exercise, std::uint32_t seed, const json& attempts) {
    if (!attempts.is_array()) throw InvalidArgument("bad_attempts", "attempts must be a list");
    // Checked before any copy or recursive walk of the learner's data.
    if (const std::string p = json_value_problem(attempts); !p.empty())
        throw InvalidArgument("too_large", "attempts: " + p);
    const json variant = make_variant(exercise, seed);
    std::map<std::string, std::vector<Attempt>> by_question;
    json rejected = json::array();
    std::map<std::string, std::size_t> over_limit;
    for (std::size_t i = 0; i < attempts.size(); ++i) {
        const json& a = attempts[i];
        if (!a.is_object() || !a.contains("question") || !a["question"].is_string() || !a.contains("answer"))
            throw InvalidArgument("bad_attempts", "attempt " + std::to_string(i) + " needs a question id and an answer");
        const std::string id = a["question"].get<std::string>();
        const json& question = find_question(exercise, id);  // throws for a question the exercise does not have
        const Problem not_allowed = attempt_rejection(exercise, question, a);
        if (!not_allowed.empty()) {
            rejected.push_back({{"attempt", i}, {"question", id}, {"status", "lab_not_allowed"}, {"message", not_allowed.text},
                                {"detail", not_allowed.value()}});
            continue;
        }
        if (by_question[id].size() >= kMaxAttemptsPerQuestion) {
            ++over_limit[id];
            continue;
        }
        Attempt at;
        at.answer = a["answer"];
        if (a.contains("lab")) at.lab = a["lab"];
        at.lang = a.value("lang", "ja") == "en" ? "en" : "ja";
        by_question[id].push_back(std::move(at));
    }
    json out = {{"points", 0.0}, {"max", 0.0}, {"questions", json::array()}};
    double points = 0, max = 0;
    for (const json& q : questions(exercise)) {
        const QuestionGrade g = grade_question(q, by_question[q.value("id", "")], variant);
        points += g.points;
        max += g.max;
        json row = {{"id", g.id},
                    {"type", q.value("type", "")},
                    {"points", g.points},
                    {"max", g.max},
                    {"attempts", g.attempts},
                    {"ignored", g.ignored},
                    {"solved", g.solved},
                    {"hintsUnlocked", g.hints_unlocked},
                    {"attemptsToCorrect", g.attempts_to_correct ? json(g.attempts_to_correct) : json(nullptr)},
                    {"wrong", g.wrong}};
        if (q.value("type", "") == "choice") row["order"] = option_order(q, seed);
        if (g.response) row["response"] = *g.response;
        out["questions"].push_back(std::move(row));
    }
    for (const auto& [id, count] : over_limit)
        rejected.push_back({{"question", id}, {"status", "too_many_attempts"}, {"count", count},
                            {"message", std::to_string(count) + " attempts past the first " +
                                            std::to_string(kMaxAttemptsPerQuestion) + " were not graded"},
                            {"detail", problem("too_many_attempts", {{"n", count}, {"max", kMaxAttemptsPerQuestion}}, "").value()}});
    out["points"] = points;
    out["max"] = max;
    out["rejected"] = rejected;
    return out;
}

}  // namespace poslab::grading
