// The lab settings an attempt may carry (lab_detail: controls, ranges, fixed
// values), a task answer's limits, and the attempts refused before grading.
#include "poslab/grading.hpp"

#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "poslab/grading_internal.hpp"
#include "poslab/tokenizer.hpp"

namespace poslab::grading {
using namespace internal;
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

}  // namespace poslab::grading
