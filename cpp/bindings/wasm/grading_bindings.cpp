// Grading for the page: the same functions poslab grade uses, over JSON text
// (small values; api.js stringifies and parses). Each returns either the
// result or an error record, which api.js turns into a thrown Error.
#include <emscripten/bind.h>

#include "poslab/api_json.hpp"
#include "poslab/code_questions.hpp"
#include "poslab/errors.hpp"
#include "poslab/grading.hpp"

namespace poslab::wasm {
namespace {

using nlohmann::json;
namespace g = poslab::grading;

template <class F>
std::string json_guarded(const std::string& args_text, F&& f) {
    try {
        // Checked before parsing and before any copy: no walk deeper than the limit.
        if (const std::string p = g::json_text_problem(args_text, 2 * g::kMaxDepth); !p.empty())
            throw InvalidArgument("too_large", "the request is " + p);
        const json args = json::parse(args_text);
        return json{{"ok", f(args)}}.dump(-1, ' ', false, json::error_handler_t::replace);
    } catch (const std::exception& e) {
        json params = json::object();
        for (const auto& [k, v] : error_params(e)) params[k] = v;
        const std::string code = error_code(e);
        return json{{"__poslab_error", true}, {"message", error_message(e)}, {"code", code.empty() ? "error" : code}, {"params", params}}
            .dump(-1, ' ', false, json::error_handler_t::replace);
    }
}

const json& field(const json& args, const char* key) {
    if (!args.is_object() || !args.contains(key))
        throw InvalidArgument("missing_option", std::string("missing option '") + key + "'");
    return args.at(key);
}

std::string call_core(const std::string& a) {
    return json_guarded(a, [](const json& args) {
        return call_json(field(args, "call").get<std::string>(), args.value("args", json::object()));
    });
}

std::string content_hash(const std::string& a) {
    return json_guarded(a, [](const json& args) { return g::content_hash(field(args, "exercise")); });
}

std::string variant(const std::string& a) {
    return json_guarded(a, [](const json& args) {
        const json& ex = field(args, "exercise");
        const std::string hash = g::content_hash(ex);
        const std::uint32_t seed = g::variant_seed(field(args, "learner").get<std::string>(), ex.value("id", ""), hash);
        return json{{"contentHash", hash},
                    {"seed", seed},
                    {"variant", g::make_variant(ex, seed)},
                    {"optionOrders", g::option_orders(ex, seed)}};
    });
}

std::string check_attempt(const std::string& a) {
    return json_guarded(a, [](const json& args) {
        const json& ex = field(args, "exercise");
        const json& q = g::find_question(ex, field(args, "question").get<std::string>());
        const std::string lang = args.value("lang", "ja");
        // The same refusal as the re-grade's: lab settings the exercise does not
        // offer (a value changed in the URL, say) earn nothing, and are not kept.
        if (args.contains("lab")) {
            if (const std::string p = g::lab_problem(ex, args["lab"]); !p.empty())
                throw InvalidArgument("lab_not_allowed", p + " (settings this exercise does not offer are not graded)");
        }
        const g::AttemptResult r = g::check_attempt(q, field(args, "answer"), args.value("variant", json::object()),
                                                    args.value("lab", json::object()), lang);
        json out = {{"status", r.status}, {"score", r.score}, {"parts", r.parts}, {"expected", r.expected},
                    {"message", r.message}, {"feedback", r.feedback ? *r.feedback : json(nullptr)},
                    {"mistake", r.mistake ? *r.mistake : json(nullptr)}};
        if (r.detail) out["detail"] = *r.detail;
        return out;
    });
}

// "Run": a code question's visible cases, compared with the core's values (shown).
std::string code_run(const std::string& a) {
    return json_guarded(a, [](const json& args) {
        const json& q = g::find_question(field(args, "exercise"), field(args, "question").get<std::string>());
        if (q.value("type", "") != "code") throw InvalidArgument("bad_question", "codeRun takes a code question");
        return g::code_run(q, field(args, "results"));
    });
}

std::string grade_exercise(const std::string& a) {
    return json_guarded(a, [](const json& args) {
        return g::grade_exercise(field(args, "exercise"), field(args, "seed").get<std::uint32_t>(),
                                 field(args, "attempts"));
    });
}

// One submission file, re-graded as `poslab grade` does (the same core
// function): {exercises?: [exercise, …], file: name, text: the file's text}
// → the rows. The instructor's results page calls it once per file; it sends
// the exercises with the first file only (parsing and hashing them for each
// of 200 files was a quarter of the time): without `exercises`, the list of
// the last call that gave one is used.
std::string grade_submission(const std::string& a) {
    static g::GradingExercises kept;
    static bool have = false;
    return json_guarded(a, [](const json& args) {
        if (args.is_object() && args.contains("exercises")) {
            const json& list = args["exercises"];
            if (!list.is_array()) throw InvalidArgument("bad_exercises", "exercises must be a list of exercises");
            std::vector<json> exercises(list.begin(), list.end());
            kept = g::grading_exercises(exercises);
            have = true;
        } else if (!have) {
            throw InvalidArgument("bad_exercises", "no exercises yet: give them (exercises: [...]) with the first file");
        }
        const json& text = field(args, "text");
        if (!text.is_string()) throw InvalidArgument("bad_submission", "text must be the file's text");
        return g::grade_submission_text(text.get<std::string>(), args.value("file", ""), kept);
    });
}

std::string attempt_status(const std::string& a) {
    return json_guarded(a, [](const json& args) {
        const json& q = g::find_question(field(args, "exercise"), field(args, "question").get<std::string>());
        const json& made = field(args, "made");
        if (!made.is_number_integer() || made.get<long long>() < 0 || made.get<long long>() > 1000000)
            throw InvalidArgument("bad_attempts", "made must be a whole number of attempts, 0 or more");
        return g::attempt_status(q, made.get<int>());
    });
}

std::string unlocked_hints(const std::string& a) {
    return json_guarded(a, [](const json& args) {
        const json& q = g::find_question(field(args, "exercise"), field(args, "question").get<std::string>());
        return g::unlocked_hints(q, field(args, "wrong").get<int>());
    });
}

}  // namespace
}  // namespace poslab::wasm

EMSCRIPTEN_BINDINGS(poslab_grading) {
    using namespace poslab::wasm;
    emscripten::function("json_callCore", &call_core);
    emscripten::function("json_contentHash", &content_hash);
    emscripten::function("json_variant", &variant);
    emscripten::function("json_checkAttempt", &check_attempt);
    emscripten::function("json_gradeExercise", &grade_exercise);
    emscripten::function("json_gradeSubmission", &grade_submission);
    emscripten::function("json_codeRun", &code_run);
    emscripten::function("json_unlockedHints", &unlocked_hints);
    emscripten::function("json_attemptStatus", &attempt_status);
}
