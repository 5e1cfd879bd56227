// Task questions ("make the lab show X"): the learner's settings re-run by a
// core call, and its result (or its error) checked as the exercise says.
#include "poslab/grading.hpp"

#include <cstdlib>
#include <map>
#include <string>

#include "poslab/api_json.hpp"
#include "poslab/errors.hpp"
#include "poslab/grading_internal.hpp"

namespace poslab::grading {
using namespace internal;
namespace {

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

}  // namespace

namespace internal {

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

}  // namespace internal
}  // namespace poslab::grading
