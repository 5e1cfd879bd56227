// Option order per learner, what repeated attempts cost, prediction and
// free-text (explain) questions: the rules the page and `poslab grade` share.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "poslab/grading.hpp"

using namespace poslab::grading;

namespace {

json strings(std::initializer_list<const char*> s) {
    json a = json::array();
    for (const char* x : s) a.push_back(x);
    return a;
}

json option(const char* id) { return {{"id", id}, {"label", {{"ja", id}, {"en", id}}}}; }

json choice4() {
    return {{"type", "choice"}, {"id", "which"}, {"prompt", {{"ja", "p"}, {"en", "p"}}},
            {"options", {option("a"), option("b"), option("c"), option("d")}}, {"answer", {"a"}}};
}

int position_of(const std::vector<std::string>& order, const std::string& id) {
    return static_cast<int>(std::find(order.begin(), order.end(), id) - order.begin());
}

}  // namespace

TEST(OptionOrder, IsAStablePermutationOfTheOptions) {
    const json q = choice4();
    for (std::uint32_t seed : {0u, 1u, 12345u, 0xffffffffu}) {
        const auto order = option_order(q, seed);
        EXPECT_EQ(order, option_order(q, seed)) << "the same seed gives the same order";
        std::vector<std::string> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(sorted, (std::vector<std::string>{"a", "b", "c", "d"})) << "a permutation";
    }
}

TEST(OptionOrder, TheRightOptionTakesEveryPositionOverLearners) {
    // 200 learners of one exercise version: the right option "a" lands in each
    // of the 4 places about 50 times (binomial, sd ≈ 6.1); at least 25 each.
    const json q = choice4();
    std::map<int, int> at;
    std::set<std::vector<std::string>> distinct;
    for (int i = 0; i < 200; ++i) {
        const std::uint32_t seed = variant_seed("learner-" + std::to_string(i), "ex", "0123456789abcdef");
        const auto order = option_order(q, seed);
        ++at[position_of(order, "a")];
        distinct.insert(order);
    }
    for (int p = 0; p < 4; ++p) EXPECT_GE(at[p], 25) << "position " << p;
    EXPECT_GE(distinct.size(), 18u) << "most of the 24 orders occur";
}

TEST(OptionOrder, QuestionsOfOneLearnerAreShuffledApart) {
    // Two questions with the same options and the same seed: over 50 seeds
    // their orders differ at least once (the question id enters the draw).
    json q1 = choice4(), q2 = choice4();
    q2["id"] = "other";
    int differ = 0;
    for (std::uint32_t s = 0; s < 50; ++s) differ += option_order(q1, s) != option_order(q2, s);
    EXPECT_GT(differ, 25);
}

TEST(OptionOrder, FixedOptionsStayAndShuffleFalseKeepsTheFile) {
    json q = choice4();
    q["options"][3]["fixed"] = true;  // "none of the above", last
    std::set<std::string> firsts;
    for (std::uint32_t s = 0; s < 100; ++s) {
        const auto order = option_order(q, s);
        EXPECT_EQ(order[3], "d");
        firsts.insert(order[0]);
    }
    EXPECT_EQ(firsts, (std::set<std::string>{"a", "b", "c"}));
    q["shuffle"] = false;
    EXPECT_EQ(option_order(q, 7), (std::vector<std::string>{"a", "b", "c", "d"}));
    json p = choice4();
    p["type"] = "prediction";
    p.erase("answer");
    EXPECT_EQ(option_order(p, 7), (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(OptionOrder, ExerciseListsEveryChoiceAndPredictionAndGradeReportsIt) {
    json ex = {{"id", "ex"}, {"blocks", {choice4()}}};
    const json orders = option_orders(ex, 99);
    ASSERT_TRUE(orders.contains("which"));
    EXPECT_EQ(orders["which"].get<std::vector<std::string>>(), option_order(choice4(), 99));
    const json g = grade_exercise(ex, 99, json::array({{{"question", "which"}, {"answer", {"a"}}}}));
    EXPECT_EQ(g["questions"][0]["order"], orders["which"]);
    EXPECT_DOUBLE_EQ(g["points"].get<double>(), 1.0) << "the order does not change grading";
}

TEST(AttemptCredit, DecreasesAsTheFileSays) {
    json q = choice4();
    q["points"] = 2;
    q["max_attempts"] = 3;
    q["credit"] = {1, 0.5, 0.25};
    EXPECT_DOUBLE_EQ(attempt_credit(q, 1), 1.0);
    EXPECT_DOUBLE_EQ(attempt_credit(q, 2), 0.5);
    EXPECT_DOUBLE_EQ(attempt_credit(q, 3), 0.25);
    EXPECT_DOUBLE_EQ(attempt_credit(q, 4), 0.0);  // past max_attempts
    auto grade = [&](std::initializer_list<const char*> answers) {
        std::vector<Attempt> a;
        for (const char* x : answers) a.push_back({strings({x})});
        return grade_question(q, a, json::object());
    };
    EXPECT_DOUBLE_EQ(grade({"a"}).points, 2.0);            // 2 × 1
    EXPECT_DOUBLE_EQ(grade({"b", "a"}).points, 1.0);       // 2 × 0.5
    EXPECT_DOUBLE_EQ(grade({"b", "c", "a"}).points, 0.5);  // 2 × 0.25
    const auto late = grade({"b", "c", "d", "a"});         // the 4th is not counted
    EXPECT_DOUBLE_EQ(late.points, 0.0);
    EXPECT_EQ(late.ignored, 1);
    EXPECT_FALSE(late.solved);
    // A right answer after a right one keeps the first attempt's credit.
    EXPECT_DOUBLE_EQ(grade({"a", "a"}).points, 2.0);
    // The last entry repeats up to max_attempts.
    q["credit"] = {1, 0.5};
    q["max_attempts"] = 4;
    EXPECT_DOUBLE_EQ(attempt_credit(q, 4), 0.5);
    EXPECT_DOUBLE_EQ(grade({"b", "c", "d", "a"}).points, 1.0);
    // No list: every counted attempt earns its full score; no limit: never 0.
    json plain = choice4();
    EXPECT_DOUBLE_EQ(attempt_credit(plain, 50), 1.0);
}

TEST(AttemptCredit, PartialScoresAreScaledToo) {
    // Multiple choice, answer {a, b}: picking only a scores 1/2 at attempt 1
    // (credit 1 → 0.5); both right at attempt 2 scores 1 × 0.6 = 0.6; best 0.6.
    json q = choice4();
    q["multiple"] = true;
    q["answer"] = {"a", "b"};
    q["credit"] = {1, 0.6};
    std::vector<Attempt> a = {{strings({"a"})}, {strings({"a", "b"})}};
    EXPECT_DOUBLE_EQ(grade_question(q, a, json::object()).points, 0.6);
    std::vector<Attempt> b = {{strings({"a", "c"})}, {strings({"a"})}};  // 0 at 1, 0.5 × 0.6 at 2
    EXPECT_DOUBLE_EQ(grade_question(q, b, json::object()).points, 0.3);
}

TEST(AttemptCredit, StatusForThePage) {
    json q = choice4();
    q["max_attempts"] = 3;
    q["credit"] = {1, 0.5, 0.25};
    EXPECT_EQ(attempt_status(q, 0), (json{{"made", 0}, {"maxAttempts", 3}, {"left", 3}, {"nextCredit", 1.0}}));
    EXPECT_EQ(attempt_status(q, 1)["nextCredit"], 0.5);
    EXPECT_EQ(attempt_status(q, 1)["left"], 2);
    EXPECT_EQ(attempt_status(q, 3), (json{{"made", 3}, {"maxAttempts", 3}, {"left", 0}, {"nextCredit", 0.0}}));
    EXPECT_EQ(attempt_status(q, 5)["left"], 0);
    const json free = attempt_status(choice4(), 2);
    EXPECT_TRUE(free["left"].is_null());
    EXPECT_TRUE(free["maxAttempts"].is_null());
    EXPECT_EQ(free["nextCredit"], 1.0);
    q["credit"] = {1, 2};  // not 0…1: the file is wrong, said clearly
    EXPECT_THROW(attempt_credit(q, 2), std::invalid_argument);
}

TEST(Prediction, IsRecordedNeverWrongAndKeepsTheFirst) {
    const json p = {{"type", "prediction"}, {"id", "predict"}, {"prompt", {{"ja", "p"}, {"en", "p"}}},
                    {"options", {option("learned"), option("sinusoidal"), option("rope"), option("alibi"), option("none")}}};
    for (const char* o : {"learned", "sinusoidal", "rope", "alibi", "none"}) {
        const auto r = check_attempt(p, strings({o}), json::object(), json::object());
        EXPECT_EQ(r.status, "recorded") << o;
        EXPECT_DOUBLE_EQ(r.score, 1.0);
    }
    EXPECT_EQ(check_attempt(p, strings({"cosine"}), json::object(), json::object()).status, "malformed");
    EXPECT_EQ(check_attempt(p, strings({"rope", "alibi"}), json::object(), json::object()).status, "malformed");
    EXPECT_EQ(check_attempt(p, json("rope"), json::object(), json::object()).status, "malformed");
    EXPECT_EQ(max_attempts(p), 1);
    std::vector<Attempt> a = {{strings({"rope"})}, {strings({"none"})}};  // changed after the run: not counted
    const auto g = grade_question(p, a, json::object());
    EXPECT_DOUBLE_EQ(g.points, 1.0);
    EXPECT_TRUE(g.solved);
    EXPECT_EQ(g.attempts, 1);
    EXPECT_EQ(g.ignored, 1);
    ASSERT_TRUE(g.response.has_value());
    EXPECT_EQ(*g.response, strings({"rope"}));
}

// The page's mark {"ran_before_prediction": true}: training started with no
// prediction recorded. It scores nothing, the instructor sees it, and nothing
// after it counts (the page closed the question); after a real prediction it
// means nothing.
TEST(Prediction, TrainingFirstIsShownAndClosesTheQuestion) {
    const json p = {{"type", "prediction"}, {"id", "predict"}, {"prompt", {{"ja", "p"}, {"en", "p"}}},
                    {"options", {option("rope"), option("none")}}};
    const json mark = {{"ran_before_prediction", true}};
    auto g = grade_question(p, {{mark}, {strings({"rope"})}, {strings({"none"})}}, json::object());
    EXPECT_TRUE(g.ran_before_prediction);
    EXPECT_DOUBLE_EQ(g.points, 0.0);
    EXPECT_FALSE(g.solved);
    EXPECT_EQ(g.attempts, 0);
    EXPECT_EQ(g.ignored, 2) << "a prediction made after training is not counted";
    EXPECT_FALSE(g.response.has_value());
    // A prediction first: the later mark is no answer and changes nothing.
    g = grade_question(p, {{strings({"rope"})}, {mark}}, json::object());
    EXPECT_FALSE(g.ran_before_prediction);
    EXPECT_DOUBLE_EQ(g.points, 1.0);
    EXPECT_EQ(g.attempts, 1);
    EXPECT_EQ(g.ignored, 0);
    // Only the exact mark counts: false, an extra key, or the mark on another type.
    for (const json& not_mark : {json{{"ran_before_prediction", false}}, json{{"ran_before_prediction", true}, {"x", 1}},
                                 json{{"ran_before_prediction", 1}}}) {
        g = grade_question(p, {{not_mark}, {strings({"none"})}}, json::object());
        EXPECT_FALSE(g.ran_before_prediction) << not_mark.dump();
        EXPECT_EQ(g.attempts, 1) << not_mark.dump();
        EXPECT_DOUBLE_EQ(g.points, 1.0) << not_mark.dump();
    }
    g = grade_question(choice4(), {{mark}, {strings({"a"})}}, json::object());
    EXPECT_FALSE(g.ran_before_prediction);
    EXPECT_EQ(g.attempts, 1);
    // In the exercise's grade: a field on that question only.
    const json ex = {{"id", "ex"}, {"blocks", {choice4(), p}}};
    const json ge = grade_exercise(ex, 1, json::array({{{"question", "predict"}, {"answer", mark}}}));
    EXPECT_EQ(ge["questions"][1]["ranBeforePrediction"], true);
    EXPECT_FALSE(ge["questions"][0].contains("ranBeforePrediction"));
    EXPECT_DOUBLE_EQ(ge["points"].get<double>(), 0.0);
}

TEST(Explain, IsKeptForTheInstructorAndNeverScored) {
    json e = {{"type", "explain"}, {"id", "why"}, {"points", 3}, {"prompt", {{"ja", "p"}, {"en", "p"}}}};
    auto r = check_attempt(e, json("出力も同じように並べ替わるから"), json::object(), json::object());
    EXPECT_EQ(r.status, "recorded");
    EXPECT_DOUBLE_EQ(r.score, 0.0);
    EXPECT_DOUBLE_EQ(question_points(e), 0.0) << "points in the file do not make it scored";
    std::string k2000, k2001;
    for (int i = 0; i < 2000; ++i) k2000 += "あ";  // 2000 characters, 6000 bytes
    k2001 = k2000 + "a";
    EXPECT_EQ(check_attempt(e, json(k2000), json::object(), json::object()).status, "recorded");
    r = check_attempt(e, json(k2001), json::object(), json::object());
    EXPECT_EQ(r.status, "malformed");
    EXPECT_NE(r.message.find("2000"), std::string::npos);
    EXPECT_EQ(check_attempt(e, json(" \n "), json::object(), json::object()).status, "malformed");
    EXPECT_EQ(check_attempt(e, strings({"x"}), json::object(), json::object()).status, "malformed");
    e["max_length"] = 5;
    EXPECT_EQ(check_attempt(e, json("abcdef"), json::object(), json::object()).status, "malformed");
    EXPECT_EQ(check_attempt(e, json("abcde"), json::object(), json::object()).status, "recorded");
    e.erase("max_length");
    const json ex = {{"id", "ex"}, {"blocks", {choice4(), e}}};
    const json g = grade_exercise(ex, 1, json::array({{{"question", "why"}, {"answer", "first"}},
                                                      {{"question", "which"}, {"answer", {"a"}}},
                                                      {{"question", "why"}, {"answer", "second"}}}));
    EXPECT_DOUBLE_EQ(g["points"].get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(g["max"].get<double>(), 1.0);
    EXPECT_EQ(g["questions"][1]["response"], "second");
    EXPECT_EQ(g["questions"][1]["type"], "explain");
    EXPECT_EQ(g["questions"][1]["attempts"], 2);
    // Optional: an unanswered explanation does not hold up completion.
    const json none = grade_exercise(ex, 1, json::array());
    EXPECT_EQ(none["questions"][1]["solved"], true);
    EXPECT_EQ(none["questions"][0]["solved"], false);
}
