// Grading for the page: the same functions poslab grade uses, over JSON text
// (small values; api.js stringifies and parses). Each returns either the
// result or an error record, which api.js turns into a thrown Error.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "convert.hpp"

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
// The exercises of the last call that gave them (gradeSubmission, codeAttempts, gradeSubmissionBytes).
g::GradingExercises& kept_exercises(const json* list) {
    static g::GradingExercises kept;
    static bool have = false;
    if (list) {
        if (!list->is_array()) throw InvalidArgument("bad_exercises", "exercises must be a list of exercises");
        std::vector<json> exercises(list->begin(), list->end());
        kept = g::grading_exercises(exercises);
        have = true;
    } else if (!have) {
        throw InvalidArgument("bad_exercises", "no exercises yet: give them (exercises: [...]) with the first file");
    }
    return kept;
}

// codeResults: {attempt key: {status, results?, message?}} (the re-run's, out of
// band); absent or null: none (every code attempt not re-run).
json code_results_of(const json& args) {
    if (!args.is_object() || !args.contains("codeResults") || args["codeResults"].is_null()) return json();
    if (!args["codeResults"].is_object())
        throw InvalidArgument("bad_submission", "codeResults must be an object {attempt key: {status, results?, message?}}");
    return args["codeResults"];
}

std::string grade_submission(const std::string& a) {
    return json_guarded(a, [](const json& args) {
        const g::GradingExercises& kept = kept_exercises(args.is_object() && args.contains("exercises") ? &args["exercises"] : nullptr);
        const json& text = field(args, "text");
        if (!text.is_string()) throw InvalidArgument("bad_submission", "text must be the file's text");
        return g::grade_submission_text(text.get<std::string>(), args.value("file", ""), kept, code_results_of(args));
    });
}

// The bytes calls: {bytes: Uint8Array (the file as read), file, exercises?,
// codeResults?}. The file's bytes reach the core's parser as they are (a BOM,
// a NUL, bytes that are not UTF-8), as poslab grade reads them.
json options_json(const emscripten::val& options, std::string& bytes) {
    using emscripten::val;
    if (options.isUndefined() || options.isNull() || options.typeOf().as<std::string>() != "object")
        throw InvalidArgument("bad_submission", "the call takes {bytes, file, exercises?, codeResults?}");
    const val b = options["bytes"];
    if (!b.instanceof(val::global("Uint8Array"))) throw InvalidArgument("bad_submission", "bytes must be the file's bytes (a Uint8Array)");
    const double n = b["length"].as<double>();
    if (n > double(g::kMaxSubmissionBytes + 1)) {
        bytes.assign(g::kMaxSubmissionBytes + 1, ' ');  // over the limit: refused as too large by the core
    } else {
        bytes.assign(static_cast<std::size_t>(n), '\0');
        val view(emscripten::typed_memory_view(bytes.size(), reinterpret_cast<std::uint8_t*>(&bytes[0])));
        view.call<void>("set", b);
    }
    json args = json::object();
    const val json_api = val::global("JSON");
    for (const char* k : {"exercises", "codeResults"}) {
        const val v = options[k];
        if (v.isUndefined()) continue;
        const std::string text = json_api.call<std::string>("stringify", v);
        if (const std::string p = g::json_text_problem(text, 2 * g::kMaxDepth); !p.empty())
            throw InvalidArgument("too_large", std::string(k) + " is " + p);
        args[k] = json::parse(text);
    }
    const val f = options["file"];
    args["file"] = f.isString() ? f.as<std::string>() : std::string();
    return args;
}

emscripten::val as_js(const json& j) {
    return emscripten::val::global("JSON").call<emscripten::val>(
        "parse", j.dump(-1, ' ', false, json::error_handler_t::replace));
}

emscripten::val grade_submission_bytes(emscripten::val options) {
    return guarded([&] {
        std::string bytes;
        const json args = options_json(options, bytes);
        const g::GradingExercises& kept = kept_exercises(args.contains("exercises") ? &args["exercises"] : nullptr);
        return as_js(g::grade_submission_text(bytes, args["file"].get<std::string>(), kept, code_results_of(args)));
    });
}

emscripten::val code_attempts_bytes(emscripten::val options) {
    return guarded([&] {
        std::string bytes;
        const json args = options_json(options, bytes);
        const g::GradingExercises& kept = kept_exercises(args.contains("exercises") ? &args["exercises"] : nullptr);
        return as_js(g::code_attempts_text(bytes, args["file"].get<std::string>(), kept));
    });
}

// The one CSV writer: {rows, header?: true, bom?: false} → the CSV text.
std::string grade_csv(const std::string& a) {
    return json_guarded(a, [](const json& args) {
        const json& rows = field(args, "rows");
        if (!rows.is_array()) throw InvalidArgument("bad_submission", "rows must be a list of rows");
        std::string out = args.value("bom", false) ? "\xEF\xBB\xBF" : "";
        if (args.value("header", true)) out += g::csv_header() + "\n";
        for (const json& r : rows) {
            if (!r.is_object()) throw InvalidArgument("bad_submission", "each row must be an object");
            out += g::csv_row(r) + "\n";
        }
        return json(out);
    });
}

// {rows: [[cell, …], …], bom?: true} → the CSV text (CRLF lines), the core's cells.
std::string csv_table(const std::string& a) {
    return json_guarded(a, [](const json& args) {
        return json(std::string(args.value("bom", true) ? "\xEF\xBB\xBF" : "") + g::csv_table(field(args, "rows"), true));
    });
}

// {text} → the text with invisible and bidirectional-control characters shown as \uXXXX.
std::string display_text(const std::string& a) {
    return json_guarded(a, [](const json& args) {
        const json& t = field(args, "text");
        if (!t.is_string()) throw InvalidArgument("bad_submission", "text must be text");
        return json(g::display_text(t.get<std::string>()));
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
    emscripten::function("raw_gradeSubmissionBytes", &grade_submission_bytes);
    emscripten::function("raw_codeAttempts", &code_attempts_bytes);
    emscripten::function("json_gradeCsv", &grade_csv);
    emscripten::function("json_displayText", &display_text);
    emscripten::function("json_csvTable", &csv_table);
    emscripten::function("json_codeRun", &code_run);
    emscripten::function("json_unlockedHints", &unlocked_hints);
    emscripten::function("json_attemptStatus", &attempt_status);
}
