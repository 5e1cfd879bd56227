#pragma once
// Grading, the same in the page (formative feedback, through wasm) and in the
// instructor's re-grade (poslab grade, natively): numbers with rtol/atol,
// choices with partial credit, "make the lab show X" tasks re-run by the core,
// hints after N wrong attempts, known mistakes, attempt limits, seeded
// variants and content hashes. Exercises and answers are JSON values.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace poslab::grading {

using json = nlohmann::json;

// PrairieLearn's defaults.
constexpr double kDefaultRtol = 1e-2;
constexpr double kDefaultAtol = 1e-8;

// Limits on what a learner's submission may ask of the grader (poslab grade
// and the page's gradeExercise). Anything past them is refused with a status,
// never attempted: the grader must finish every batch in bounded time/memory.
constexpr std::size_t kMaxSubmissionBytes = 8u << 20;   // one submission file
constexpr std::size_t kMaxDepth = 32;                   // nesting of arrays/objects in a submission
constexpr std::size_t kMaxStringBytes = 65536;          // any one string in a submission
constexpr std::size_t kMaxNumberChars = 100;            // a typed number (numeric answer field)
constexpr std::size_t kMaxAttemptsPerQuestion = 200;    // attempts graded per question and learner
constexpr std::size_t kMaxLearnerIdBytes = 256;
// A code answer longer than this (characters: Unicode code points) is never
// run: the re-runner (scripts/grade-code.mjs, the results page) and the grader
// read this one constant (wasm: limits().maxCodeChars).
constexpr std::size_t kMaxCodeChars = 10000;
// A code question's time limit when the exercise gives none (time_limit_ms).
constexpr int kDefaultCodeTimeLimitMs = 2000;
// What one re-graded row may carry: longer messages are cut (with "…"), and
// at most this many details / flags are kept (a last one says how many more).
constexpr std::size_t kMaxRowMessageChars = 2000;
constexpr std::size_t kMaxRowItems = 20;
// The lab's number controls, when the exercise's `lab.ranges` does not say.
constexpr long long kDefaultMaxD = 64, kDefaultMaxHeads = 8, kDefaultMaxTokens = 64;

// A problem the grader found in a learner's file or attempt: the English
// text (poslab grade's CSV, the row's `message`) and a stable code with its
// parameters, which the results page words in its own language
// (web/i18n/{ja,en}.json: grade_msg.<code>). No code: no problem.
struct Problem {
    std::string code;
    json params = json::object();
    std::string text;
    bool empty() const { return code.empty(); }
    json value() const { return {{"code", code}, {"params", params}}; }  // {code, params}
};

// Empty when the JSON text nests arrays/objects at most max_depth deep (a
// linear scan, no recursion, before any parser sees it); else what is wrong.
Problem json_text_detail(const std::string& text, std::size_t max_depth = kMaxDepth);
std::string json_text_problem(const std::string& text, std::size_t max_depth = kMaxDepth);
// Empty when the parsed value nests at most max_depth deep and every string
// (and key) is at most kMaxStringBytes; checked without recursion.
Problem json_value_detail(const nlohmann::json& value, std::size_t max_depth = kMaxDepth);
std::string json_value_problem(const nlohmann::json& value, std::size_t max_depth = kMaxDepth);
// Empty when the id is a learner id the grader accepts: 1 to kMaxLearnerIdBytes
// bytes of valid UTF-8 with no control characters.
Problem learner_id_detail(const std::string& id);
std::string learner_id_problem(const std::string& id);
// Empty when the learner's lab settings (the `lab` saved with an attempt) are
// ones the exercise lets a learner choose: a setting with a control
// (lab.controls) within its range (lab.ranges, lab.schemes); every other
// setting the exercise's fixed value (or the page's default). Else the first
// setting that is not allowed and what is.
Problem lab_detail(const nlohmann::json& exercise, const nlohmann::json& lab);
std::string lab_problem(const nlohmann::json& exercise, const nlohmann::json& lab);
// The same for a task's answer: settings it takes from the lab ('lab.pe') follow
// the lab's rules; lists (tokens, a permutation) at most the exercise's token limit.
// (params.field: the answer's key the problem is in.)
Problem task_answer_detail(const nlohmann::json& exercise, const nlohmann::json& question, const nlohmann::json& answer);
std::string task_answer_problem(const nlohmann::json& exercise, const nlohmann::json& question,
                                const nlohmann::json& answer);

// |answer - expected| <= atol + rtol·|expected| (numpy.isclose's rule).
bool is_close(double answer, double expected, double rtol = kDefaultRtol, double atol = kDefaultAtol);

// A number as a student types it: full-width digits, signs and point
// (０．６７０), the Unicode minus (−), spaces around; nothing else. nullopt if
// it is not a number (which costs the student no attempt).
std::optional<double> parse_number(const std::string& text);

// The exercise with every number as a double and keys sorted, as text: equal
// for the same file parsed by js-yaml in the page and by yaml-cpp natively.
std::string canonical_json(const json& exercise);
// 16 hex digits (FNV-1a 64 of canonical_json).
std::string content_hash(const json& exercise);
// A 32-bit seed from (learner id, exercise id, content hash).
std::uint32_t variant_seed(const std::string& learner, const std::string& exercise_id,
                           const std::string& content_hash);

// The exercise's `variants` drawn from the seed: {"name": value, …}; and for
// each code question, "code:<id>": its cases (code_cases in code_questions.hpp).
//   {kind: integer, min, max} · {kind: choice, options: [...]} ·
//   {kind: vector, length, min, max, step} · {kind: permutation, length}
json make_variant(const json& exercise, std::uint32_t seed);

// The order a choice question's options are shown in for this seed: the
// option ids, a permutation of the file's, drawn from (seed, question id) so
// each question is shuffled on its own. Options with `fixed: true` keep their
// place in the file ("none of the above" last); `shuffle: false` keeps the
// file's order. Other question types keep the file's order. Grading never
// depends on it (answers are option ids); the page shows it, and `poslab
// grade` reports it.
std::vector<std::string> option_order(const json& question, std::uint32_t seed);
// {question id: [option ids]} for every choice and prediction question.
json option_orders(const json& exercise, std::uint32_t seed);

// Replaces "$name" strings in args by the variant's value, else the lab
// state's (the page's current sentence, D, scheme…); {ja, en} objects by the
// language's text. Unknown names throw.
json substitute(const json& args, const json& variant, const json& lab, const std::string& lang);

// The number an `expect` ({call, args, pick}) asks for.
double expected_number(const json& expect, const json& variant, const json& lab, const std::string& lang);

// Every question (numeric, choice, task block) of an exercise, in order.
std::vector<json> questions(const json& exercise);
const json& find_question(const json& exercise, const std::string& question_id);
double question_points(const json& question);  // `points`, default 1 (explain: always 0)

// What repeated attempts cost. `max_attempts` (default: none; a prediction: 1)
// bounds the attempts that count; `credit: [c1, c2, …]` (each 0…1) caps what
// the k-th counted attempt can earn at c_k of its score (the last entry for
// every later attempt; no list: 1 for each). A question's score is the best
// over its counted attempts of score × credit, as PrairieLearn's exam
// questions do with their points list.
int max_attempts(const json& question);                      // 0: no limit
double attempt_credit(const json& question, int attempt);    // attempt: 1-based; 0 past max_attempts
// What the page shows before the next attempt, after `made` counted ones:
// {made, maxAttempts (null: no limit), left (null: no limit), nextCredit}.
json attempt_status(const json& question, int made);

struct AttemptResult {
    std::string status;            // "correct", "partial", "incorrect", "malformed", or "recorded"
                                   // (prediction and explain: kept, never right or wrong)
    double score = 0.0;            // 0…1
    std::vector<bool> parts;       // per field (numeric) or per option (choice)
    std::optional<json> feedback;  // {ja, en} of a matched known mistake, or of the wrong choice
    // The named mistake that matched: numeric {id ("mistake-N", 1-based place in
    // the question's `mistakes`, or the mistake's own `id`), index, feedback};
    // choice {id: "option-<option id>", option, feedback} for a wrong option with a `why`.
    std::optional<json> mistake;
    std::string message;           // what is malformed, for "malformed"
    std::vector<double> expected;  // numeric: the values (for showing after the last attempt)
    std::optional<json> detail;    // code: which case failed and how (code_questions.hpp)
};

// One attempt at one question. answer: numeric → array of strings as typed;
// choice → array of option ids (the right ones from `answer`, or computed by
// the core: `answer_from: {swaps_changing: {token, args}}` — the options
// "sA-B" whose swap changes token T's output; or `answer_from: {pairs_leaving:
// {args}}` — the options "pI" whose RoPE pair I leaves the trained range under
// ropeAngleMap(args)); task → the options the student
// set (an object), merged over the task's fixed args and re-run; prediction →
// one option id (recorded; score 1: the credit is for predicting); explain →
// the text (recorded; score 0: read by the instructor, never scored).
AttemptResult check_attempt(const json& question, const json& answer, const json& variant, const json& lab,
                            const std::string& lang = "ja");

struct Attempt {
    json answer;
    json lab = json::object();
    std::string lang = "ja";
};

struct QuestionGrade {
    std::string id;
    double points = 0.0, max = 0.0;
    int attempts = 0;        // counted (malformed ones are not)
    int ignored = 0;         // past max_attempts
    bool solved = false;     // right (or a prediction recorded); explain: always (it is optional)
    int hints_unlocked = 0;  // hints whose `after` wrong attempts have been made
    std::optional<json> response;  // prediction: the (first) prediction; explain: the last text
    // prediction: the page recorded {"ran_before_prediction": true} (training
    // started with no prediction) before any prediction; every later attempt is ignored.
    bool ran_before_prediction = false;
    int attempts_to_correct = 0;   // counted attempts up to and including the first correct one; 0: never correct
    // Each counted attempt that was not right (incorrect or partial), in order:
    // {attempt (1-based, counted), status, score, mistake (AttemptResult::mistake or null), answer}.
    json wrong = json::array();
};

// Best score × credit over the counted attempts (at most max_attempts of them).
QuestionGrade grade_question(const json& question, const std::vector<Attempt>& attempts, const json& variant);

// One exercise's attempts, as a submission stores them: [{question, answer,
// lab?, lang?, time?}, …] in the order made. Returns {points, max, questions:
// [{id, type, points, max, attempts, ignored, solved, hintsUnlocked,
// attemptsToCorrect (null: never correct), wrong (QuestionGrade::wrong), order?
// (choice: the options as this learner saw them), response? (prediction,
// explain: what the learner wrote or chose), ranBeforePrediction? (true: the
// learner trained before predicting; QuestionGrade::ran_before_prediction)}], rejected: [{attempt, question,
// status, message}]}; a question nobody attempted scores 0 of its points. An
// attempt naming no question of the exercise throws; the attempts are first
// checked against the limits above (deeper or longer throws `too_large`). An
// attempt whose lab (or task answer) the exercise does not allow is not
// graded: it is listed in `rejected` with status "lab_not_allowed"; attempts
// past kMaxAttemptsPerQuestion for one question are listed there with status
// "too_many_attempts".
json grade_exercise(const json& exercise, std::uint32_t seed, const json& attempts);
// Why grade_exercise leaves an attempt out before grading it (lab settings or a
// task answer the exercise does not allow, a run-reading question with no run):
// empty when it is graded. The one rule, for grade_exercise and the code plan.
Problem attempt_rejection(const json& exercise, const json& question, const json& attempt);

// The re-grade of one submission file, shared by `poslab grade` and the
// instructor's results page (wasm gradeSubmission): one source of truth for
// the file's checks and statuses.
struct GradingExercise {
    json data;
    std::string hash;  // content_hash(data)
};
using GradingExercises = std::map<std::string, GradingExercise>;
// The exercises by id, each with its content hash. Throws InvalidArgument for
// an exercise with no id and for two with one id (`where` names each: a file
// path natively, else "exercise N").
GradingExercises grading_exercises(const std::vector<json>& exercises, const std::vector<std::string>& where = {});
// Reading and parsing a submission (status too_large / invalid_file), then
// grade_submission_value. Never throws: whatever the file holds, it yields
// its own rows. Text over kMaxSubmissionBytes is refused as too_large.
//
// Code questions: the grader never reads the status, results or output a
// submission stores beside an attempt's `code`. code_results holds the
// re-run results out of band, {attempt key: {status, results?, message?}} (or
// {status: "not_rerun", reason} when the re-runner chose not to run it: budget,
// sandbox_unavailable); null: none were given (every code attempt not re-run).
// A counted code attempt with no usable result scores 0 and the row is flagged
// not_rerun:N; row.codeRuns says per question how its counted attempts ended.
json grade_submission_text(const std::string& text, const std::string& file, const GradingExercises& exercises,
                           const json& code_results = json());
// The code attempts of a submission that can count, as the grader reads the
// file (the same size, UTF-8, JSON, learner, entry, hash and duplicate rules;
// after duplicate entries are merged, in the grader's order, lab-rejected ones
// left out, at most kMaxAttemptsPerQuestion and max_attempts per question):
// {file, learner, ok, status, attempts: [{key, exercise, question, attempt
// (1-based, counted), function, timeLimitMs, code, cases: [args, …] (the
// learner's hidden cases), runnable, reason? (too_long)}]}. ok false (status:
// the grader's row status) when the file itself cannot be graded.
json code_attempts_text(const std::string& text, const std::string& file, const GradingExercises& exercises);
// Number of Unicode code points in UTF-8 text.
std::size_t code_points(const std::string& text);

// The one CSV writer of re-graded rows (poslab grade, grade-code.mjs, the
// results page through wasm): columns file, learner, exercise, points, max,
// claimed_points, claimed_differs, status, message, flags, code_runs. Numbers
// with at most 6 decimals (csv_number); text cells through csv_cell.
std::string csv_header();
std::string csv_row(const json& row);
// A number rounded to 6 decimals, trailing zeros dropped ("1.666667", "2", "0.5").
std::string csv_number(double v);
// Any table through the same cells: rows of cells (number → csv_number, text →
// csv_cell, null → empty), lines ended by CRLF when crlf (the results page's
// exports) else LF.
std::string csv_table(const json& rows, bool crlf = false);
// One cell: invisible and bidirectional-control characters shown as \uXXXX
// (display_text), a leading = + - @ tab CR neutralised with ', and quoted when
// it holds , ; " CR or LF.
std::string csv_cell(const std::string& text);
// Text with control, bidirectional-control and other invisible format
// characters (U+200B…U+200F, U+202A…U+202E, U+2060…U+2069, U+FEFF, U+00AD,
// U+061C, C0/C1 controls) written as visible \uXXXX escapes; bytes that are
// not UTF-8 as U+FFFD; the rest in Unicode Normalization Form C (nfc).
std::string display_text(const std::string& text);
// Rows, one per exercise entry (several entries of one exercise: one row,
// their attempts as one history, flag duplicate_entries:N), or one row for
// the whole file: {file, learner, exercise, points, max, claimedPoints,
// claimedDiffers, status, message, flags, questions?, rejected?}. Statuses:
// graded · invalid_file · too_large · invalid_exercise · unknown_exercise ·
// hash_mismatch; flags duplicate_entries:N, lab_not_allowed:N,
// too_many_attempts:N. The variant is recomputed from the learner id; the
// claimed score is only compared.
json grade_submission_value(const json& submission, const std::string& file, const GradingExercises& exercises,
                            const json& code_results = json());
// A row with no grade: for a file that could not be graded at all. Every row
// has `details`: the parts of its message as [{code, params}] (Problem::value;
// a nested {code: "not_graded", params: {more}, detail} for a rejected
// attempt), for the results page to word in its language.
json submission_row(const std::string& file, const std::string& learner, const std::string& exercise,
                    const std::string& status, const std::string& message = "", const json& details = json::array());
json submission_row(const std::string& file, const std::string& learner, const std::string& exercise,
                    const std::string& status, const Problem& problem);

// Hints visible after `wrong` wrong attempts: `hints: [{after, text}]`, or the
// single `hint` (after `hint_after`, default 2).
std::vector<json> unlocked_hints(const json& question, int wrong);

}  // namespace poslab::grading
