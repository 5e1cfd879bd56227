// The verdict: an attempt checked by its question's type (check_attempt), a
// question's points from its attempts (credit, limits, hints), an exercise's.
#include "poslab/grading.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "poslab/code_questions.hpp"
#include "poslab/grading_internal.hpp"

namespace poslab::grading {
using namespace internal;
namespace internal {

InvalidArgument exercise_error(const std::string& what) {
    return InvalidArgument("bad_exercise", what);
}

AttemptResult malformed(const std::string& message) {
    AttemptResult r;
    r.status = "malformed";
    r.message = message;
    return r;
}

}  // namespace internal

namespace {

// Counts code points (the text is UTF-8 from JSON). Not grading::code_points
// (grade_submission.cpp): on bytes that are not UTF-8 the two count differently.
std::size_t code_points(const std::string& s) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++n) next_code_point(s, i);
    return n;
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
    // The page's mark that training started before any prediction (it is no
    // answer, so check_attempt finds it malformed): the question is closed
    // from then on, so nothing after it counts.
    const json ran_first = {{"ran_before_prediction", true}};
    for (const Attempt& a : attempts) {
        if (type == "prediction" && g.ran_before_prediction) {
            ++g.ignored;
            continue;
        }
        if (type == "prediction" && g.attempts == 0 && a.answer == ran_first) {
            g.ran_before_prediction = true;
            continue;
        }
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
        if (g.ran_before_prediction) row["ranBeforePrediction"] = true;
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
