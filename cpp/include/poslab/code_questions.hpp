#pragma once
// Programming exercises ("code" questions): the student writes a small Python
// function; the page (or scripts/grade-code.mjs) runs it in a sandbox on the
// question's cases and hands the results here. The core knows each function's
// right answer and the usual wrong versions (the named mistakes), in double
// precision, and compares.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "poslab/grading.hpp"

namespace poslab::grading {

// Functions a code question may ask for.
const std::vector<std::string>& code_functions();
// The named mistakes the core can compute for a function.
std::vector<std::string> code_mistakes(const std::string& function);

// The function's result for these arguments (a list as Python's positional
// arguments), or a named mistake's result. Nested lists of numbers. Throws
// InvalidArgument for arguments the function must refuse (odd d_model, …)
// and for unknown functions or mistakes.
nlohmann::json code_reference(const std::string& function, const nlohmann::json& args,
                              const std::string& mistake = "");

// The cases of a code question for a learner's seed:
// {"visible": [{args, raises?}], "hidden": [{args, raises?}]}. Visible cases
// are the file's `cases`; hidden ones are drawn from `hidden` (groups of
// {count, sizes, args, raises?}) with an Rng seeded by (seed, question id).
nlohmann::json code_cases(const nlohmann::json& question, std::uint32_t seed);

// Compares run results with the reference on a set of cases. results: one
// per case, {ok: true, value} or {ok: false, error, message}. Returns
// {passed, total, cases: [{ok, kind?, at?, expected_len?, got_len?, got?, error?, message?,
// expected? (only when show_expected)}]}; kind is shape, type, value, exception,
// no_raise, wrong_exception.
nlohmann::json code_compare(const nlohmann::json& question, const nlohmann::json& cases,
                            const nlohmann::json& results, bool show_expected);

// "Run" in the page: the visible cases, with the expected values shown.
nlohmann::json code_run(const nlohmann::json& question, const nlohmann::json& results);

// One attempt at a code question. answer: {code, status, results, message?}:
// status "ok" and one result per hidden case (the variant's "code:<id>"), or
// what stopped the run (timeout, syntax_error, load_error, no_function,
// memory, crashed, blocked: incorrect, score 0). Score: the share of hidden
// cases right. detail: {passed, total, failed?: {case, args, kind, at, …},
// mistake?} — never the expected values of hidden cases.
AttemptResult check_code_attempt(const nlohmann::json& question, const nlohmann::json& answer,
                                 const nlohmann::json& variant);

}  // namespace poslab::grading
