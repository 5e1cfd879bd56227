// Properties of the grader, checked over many generated histories rather than
// a few hand-picked ones:
//   * a submission's duplicate entries of one exercise are one history in time
//     order, whatever order the file lists the entries and their attempts in;
//   * max_attempts and the credit schedule hold across such duplicates, and the
//     points equal a model of the rules written out here (best over the counted
//     attempts of score × credit × points);
//   * every lab setting and every setting a task answer takes from the lab is
//     refused one step outside what the exercise allows, and accepted at the
//     edge itself.
// Code answers are left to code_questions_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "poslab/grading.hpp"

using namespace poslab::grading;

namespace {

json option(const char* id) { return {{"id", id}, {"label", {{"ja", id}, {"en", id}}}}; }

// Two choice questions with different attempt rules.
const json kPropertyExercise = [] {
    json ex = {{"id", "props"}, {"order", 1}, {"title", {{"ja", "t"}, {"en", "t"}}}, {"blocks", json::array()}};
    ex["blocks"].push_back({{"type", "choice"}, {"id", "one"}, {"prompt", {{"ja", "p"}, {"en", "p"}}}, {"points", 2},
                            {"max_attempts", 3}, {"credit", {1, 0.5, 0.25}},
                            {"options", {option("a"), option("b"), option("c"), option("d")}}, {"answer", {"a"}}});
    ex["blocks"].push_back({{"type", "choice"}, {"id", "many"}, {"prompt", {{"ja", "p"}, {"en", "p"}}}, {"points", 3},
                            {"multiple", true}, {"credit", {1, 0.6}},
                            {"options", {option("a"), option("b"), option("c"), option("d")}}, {"answer", {"a", "b"}}});
    return ex;
}();

struct Made {
    std::string question;
    std::vector<std::string> chosen;
    int second;  // its time, in seconds after the first
};

std::string iso_time(int second) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "2026-03-01T%02d:%02d:%02d.000Z", 10 + second / 3600, second / 60 % 60, second % 60);
    return buf;
}

json attempt_json(const Made& m, bool timed = true) {
    json a = {{"question", m.question}, {"answer", m.chosen}};
    if (timed) a["time"] = iso_time(m.second);
    return a;
}

// The rules, written out independently of the grader (grading_choice.cpp,
// grading_verdict.cpp): a choice scores
// (right chosen − wrong chosen) / |answer| (at least 0); the k-th counted
// attempt earns credit[k] (the last entry after the list ends) of it; at most
// max_attempts count; the question's points are the best of these × points.
struct Expected {
    double points = 0;
    int attempts = 0, ignored = 0;
    bool solved = false;
};
Expected model(const std::string& question, const std::vector<Made>& in_time_order) {
    const bool one = question == "one";
    const std::set<std::string> want = one ? std::set<std::string>{"a"} : std::set<std::string>{"a", "b"};
    const std::vector<double> credit = one ? std::vector<double>{1, 0.5, 0.25} : std::vector<double>{1, 0.6};
    const int limit = one ? 3 : 0;
    const double points = one ? 2 : 3;
    Expected e;
    for (const Made& m : in_time_order) {
        if (m.question != question) continue;
        if (limit && e.attempts == limit) {
            ++e.ignored;
            continue;
        }
        ++e.attempts;
        int right = 0, wrong = 0;
        for (const std::string& c : m.chosen) (want.count(c) ? right : wrong)++;
        const double score = std::max(0.0, double(right - wrong) / double(want.size()));
        const double c = credit[std::min<std::size_t>(e.attempts - 1, credit.size() - 1)];
        e.points = std::max(e.points, score * c * points);
        if (score == 1.0) e.solved = true;
    }
    return e;
}

std::vector<Made> random_history(std::mt19937& rng) {
    const char* ids[] = {"a", "b", "c", "d"};
    std::vector<Made> h;
    const int n = 1 + int(rng() % 9);
    std::vector<int> seconds;
    for (int i = 0; i < n; ++i) seconds.push_back(int(rng() % 5000));
    std::sort(seconds.begin(), seconds.end());
    seconds.erase(std::unique(seconds.begin(), seconds.end()), seconds.end());
    for (int s : seconds) {
        Made m;
        m.question = rng() % 2 ? "one" : "many";
        m.second = s;
        if (m.question == "one") m.chosen = {ids[rng() % 4]};
        else
            for (const char* id : ids)
                if (rng() % 2) m.chosen.push_back(id);
        if (m.chosen.empty()) m.chosen = {"c"};
        h.push_back(m);
    }
    return h;
}

json submission(const json& entries) {
    return {{"format", "position-lab-submission"}, {"version", 1}, {"learner", "learner-7"}, {"exercises", entries}};
}
json entry(const json& attempts) {
    return {{"id", "props"}, {"contentHash", content_hash(kPropertyExercise)}, {"attempts", attempts}};
}

const GradingExercises& exercises() {
    static const GradingExercises ex = grading_exercises({kPropertyExercise});
    return ex;
}

}  // namespace

TEST(GradingProperty, DuplicateEntriesAreOneHistoryInTimeOrderWhateverTheFileOrder) {
    std::mt19937 rng(20260301);
    for (int trial = 0; trial < 150; ++trial) {
        const std::vector<Made> history = random_history(rng);
        // The same attempts, in time order, in one entry: the reference file.
        json ordered = json::array();
        for (const Made& m : history) ordered.push_back(attempt_json(m));
        const json single = grade_submission_value(submission(json::array({entry(ordered)})), "f", exercises());
        ASSERT_EQ(single.size(), 1u);
        ASSERT_EQ(single[0]["status"], "graded") << single[0].dump();

        // Spread over 2 to 4 entries, each entry's attempts shuffled, the entries shuffled.
        const std::size_t copies = 2 + rng() % 3;
        std::vector<json> parts(copies, json::array());
        std::vector<Made> shuffled = history;
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        for (const Made& m : shuffled) parts[rng() % copies].push_back(attempt_json(m));
        json entries = json::array();
        for (const json& p : parts) entries.push_back(entry(p));
        const json rows = grade_submission_value(submission(entries), "f", exercises());
        ASSERT_EQ(rows.size(), 1u) << "one row per exercise, however many entries";
        const json& r = rows[0];
        ASSERT_EQ(r["status"], "graded") << r.dump();
        EXPECT_EQ(r["flags"], json::array({"duplicate_entries:" + std::to_string(copies)}));
        EXPECT_EQ(r["questions"], single[0]["questions"]) << "trial " << trial;
        EXPECT_DOUBLE_EQ(r["points"].get<double>(), single[0]["points"].get<double>()) << "trial " << trial;

        // And both equal the model of the rules, question by question.
        double total = 0;
        for (const json& q : r["questions"]) {
            const Expected e = model(q["id"], history);
            EXPECT_NEAR(q["points"].get<double>(), e.points, 1e-12) << q["id"] << " trial " << trial;
            EXPECT_EQ(q["attempts"], e.attempts) << q["id"] << " trial " << trial;
            EXPECT_EQ(q["ignored"], e.ignored) << q["id"] << " trial " << trial;
            EXPECT_EQ(q["solved"], e.solved) << q["id"] << " trial " << trial;
            total += e.points;
        }
        EXPECT_NEAR(r["points"].get<double>(), total, 1e-12) << "trial " << trial;
        EXPECT_DOUBLE_EQ(r["max"].get<double>(), 5.0);
    }
}

TEST(GradingProperty, ASecondCopyCannotEscapeMaxAttempts) {
    // Three wrong attempts first (in time), then the right one, which is the
    // 4th of "one" (max_attempts 3): it earns nothing, even when the copy that
    // holds it comes first in the file and even when it is the only attempt of
    // its copy.
    const std::vector<Made> wrong = {{"one", {"b"}, 10}, {"one", {"c"}, 20}, {"one", {"d"}, 30}};
    const Made right = {"one", {"a"}, 40};
    json first = json::array({attempt_json(right)}), rest = json::array();
    for (const Made& m : wrong) rest.push_back(attempt_json(m));
    for (const json& entries : {json::array({entry(first), entry(rest)}), json::array({entry(rest), entry(first)})}) {
        const json r = grade_submission_value(submission(entries), "f", exercises())[0];
        const json& q = r["questions"][0];
        EXPECT_EQ(q["id"], "one");
        EXPECT_DOUBLE_EQ(q["points"].get<double>(), 0.0) << r.dump();
        EXPECT_EQ(q["attempts"], 3);
        EXPECT_EQ(q["ignored"], 1);
        EXPECT_FALSE(q["solved"].get<bool>());
    }
    // The right answer at the 2nd and 3rd place in time earns credit 0.5 and 0.25 of 2 points.
    for (int place : {1, 2}) {
        json a = json::array(), b = json::array();
        for (int i = 0; i < place; ++i) a.push_back(attempt_json(wrong[i]));
        b.push_back(attempt_json({"one", {"a"}, 10 * place + 5}));
        const json r = grade_submission_value(submission(json::array({entry(b), entry(a)})), "f", exercises())[0];
        EXPECT_DOUBLE_EQ(r["questions"][0]["points"].get<double>(), place == 1 ? 1.0 : 0.5) << r.dump();
        EXPECT_EQ(r["questions"][0]["attemptsToCorrect"], place + 1);
    }
}

TEST(GradingProperty, UntimedDuplicatesKeepTheFileOrder) {
    // Without times there is no other order to use: the entries' order, then
    // each entry's. Right first in the file → full credit; right last → 0.25.
    const json right = attempt_json({"one", {"a"}, 0}, false);
    json wrongs = json::array();
    for (const char* c : {"b", "c"}) wrongs.push_back(attempt_json({"one", {c}, 0}, false));
    const json early = grade_submission_value(submission(json::array({entry(json::array({right})), entry(wrongs)})), "f", exercises())[0];
    EXPECT_DOUBLE_EQ(early["questions"][0]["points"].get<double>(), 2.0) << early.dump();
    const json late = grade_submission_value(submission(json::array({entry(wrongs), entry(json::array({right}))})), "f", exercises())[0];
    EXPECT_DOUBLE_EQ(late["questions"][0]["points"].get<double>(), 0.5) << late.dump();
    // One timed copy and one untimed: not every attempt has a time, so file order too.
    json timed_right = json::array({attempt_json({"one", {"a"}, 1})});
    const json mixed = grade_submission_value(submission(json::array({entry(wrongs), entry(timed_right)})), "f", exercises())[0];
    EXPECT_DOUBLE_EQ(mixed["questions"][0]["points"].get<double>(), 0.5) << mixed.dump();
}

TEST(GradingProperty, TheCreditScheduleMatchesTheModelForEveryPlaceOfTheRightAnswer) {
    // "many" (no max_attempts, credit [1, 0.6]): the k-th attempt earns 1, then
    // 0.6 for every later one; a partial answer earns its share × credit.
    for (int place = 1; place <= 6; ++place) {
        std::vector<Made> h;
        for (int i = 1; i < place; ++i) h.push_back({"many", {"c", "d"}, i});
        h.push_back({"many", {"a", "b"}, place});
        h.push_back({"many", {"a"}, place + 1});  // a later partial answer changes nothing
        json attempts = json::array();
        for (const Made& m : h) attempts.push_back(attempt_json(m));
        const json g = grade_exercise(kPropertyExercise, 1, attempts);
        const json& q = g["questions"][1];
        EXPECT_NEAR(q["points"].get<double>(), model("many", h).points, 1e-12) << place;
        EXPECT_NEAR(q["points"].get<double>(), place == 1 ? 3.0 : 1.8, 1e-12) << place;
        EXPECT_EQ(q["attempts"], place + 1);
        EXPECT_EQ(q["ignored"], 0);
    }
    // Only a partial answer (a, c: 1 right, 1 wrong → 0): nothing; (a): 1/2 × 3.
    EXPECT_DOUBLE_EQ(grade_exercise(kPropertyExercise, 1, json::array({attempt_json({"many", {"a", "c"}, 1})}))["points"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(grade_exercise(kPropertyExercise, 1, json::array({attempt_json({"many", {"a"}, 1})}))["points"].get<double>(), 1.5);
}

// ---------------------------------------------------------------------------
// Lab settings and task-answer settings, one step past every edge.

namespace {

json lab_exercise(bool heads_control, bool mask_control) {
    json controls = {"pe", "sentence", "d", "seed"};
    if (heads_control) controls.push_back("heads");
    if (mask_control) controls.push_back("mask");
    json ex = json::parse(R"J({
      "id": "edges", "order": 4, "title": {"ja": "t", "en": "t"},
      "lab": {"sentence": {"ja": "犬が猫を追いかけた", "en": "the dog chased the cat"}, "pe": "sinusoidal",
              "d": 8, "seed": 0, "heads": 1,
              "schemes": ["none", "sinusoidal", "learned"],
              "ranges": {"d": {"min": 2, "max": 16}, "heads": {"min": 1, "max": 4}, "seed": {"min": 3, "max": 99},
                         "tokens": {"max": 8}}},
      "blocks": [
        {"type": "task", "id": "outputs-differ", "prompt": {"ja": "p", "en": "p"},
         "condition": {"widget": "out", "path": "result.maxAbsDiff", "gt": 0.001,
           "check": {"call": "permutationCheck",
                     "args": {"text": "$sentence", "causal": "$causal", "dModel": "$d", "seed": "$seed", "heads": "$heads", "returnAttention": false},
                     "free": {"pe": "lab.pe", "permutation": "chips.state.order"}, "path": "maxAbsDiff", "gt": 0.001}}},
        {"type": "task", "id": "settings", "prompt": {"ja": "p", "en": "p"},
         "condition": {"call": "permutationCheck", "args": {"text": "$sentence"}, "path": "maxAbsDiff", "gt": 0.001,
                       "free": {"dModel": "lab.d", "heads": {"path": "lab.heads"}, "seed": "lab.seed", "pe": "lab.pe",
                                "causal": "lab.causal", "permutation": "chips.state.order"}}}]})J");
    ex["lab"]["controls"] = controls;
    return ex;
}

json base_lab() {
    return {{"sentence", "犬が猫を追いかけた"}, {"pe", "sinusoidal"}, {"causal", false}, {"d", 8},
            {"seed", 3}, {"heads", 1}, {"weights", "random"}};
}

// What a lab (one setting changed) or a task answer (one key) yields.
Problem lab_with(const json& ex, const std::string& key, const json& value) {
    json lab = base_lab();
    lab[key] = value;
    return lab_detail(ex, lab);
}

json permutation(std::size_t n) {
    json p = json::array();
    for (std::size_t i = 0; i < n; ++i) p.push_back((i + 1) % n);
    return p;
}

std::string words(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += (i ? " " : "") + std::string("word");
    return s;
}

}  // namespace

TEST(GradingProperty, EveryLabSettingIsRefusedOneStepPastWhatTheExerciseAllows) {
    const json ex = lab_exercise(true, false);
    ASSERT_TRUE(lab_detail(ex, base_lab()).empty()) << lab_detail(ex, base_lab()).text;
    // Number controls: the edges pass, one past each is refused with the range.
    struct Range {
        const char* key;
        long long lo, hi;
    };
    for (const Range& r : {Range{"d", 2, 16}, Range{"heads", 1, 4}, Range{"seed", 3, 99}}) {
        for (long long v : {r.lo, r.hi}) EXPECT_TRUE(lab_with(ex, r.key, v).empty()) << r.key << "=" << v << ": " << lab_with(ex, r.key, v).text;
        for (long long v : {r.lo - 1, r.hi + 1}) {
            const Problem p = lab_with(ex, r.key, v);
            EXPECT_EQ(p.code, "setting_range") << r.key << "=" << v;
            EXPECT_EQ(p.params.value("key", ""), r.key);
            EXPECT_EQ(p.params.value("min", ""), std::to_string(r.lo));
            EXPECT_EQ(p.params.value("max", ""), std::to_string(r.hi));
        }
        EXPECT_EQ(lab_with(ex, r.key, double(r.lo) + 0.5).code, "setting_not_whole") << r.key;
        EXPECT_EQ(lab_with(ex, r.key, "8").code, "setting_not_whole") << r.key;
    }
    // Without a control the exercise's own value is the only one.
    const json fixed = lab_exercise(false, false);
    EXPECT_TRUE(lab_with(fixed, "heads", 1).empty());
    for (int v : {0, 2}) EXPECT_EQ(lab_with(fixed, "heads", v).code, "setting_fixed") << v;
    // The mask: no control → causal is false only; with the control, both.
    EXPECT_TRUE(lab_with(ex, "causal", false).empty());
    EXPECT_EQ(lab_with(ex, "causal", true).code, "causal_fixed");
    EXPECT_EQ(lab_with(ex, "causal", 1).code, "causal_not_bool");
    const json masked = lab_exercise(true, true);
    EXPECT_TRUE(lab_with(masked, "causal", true).empty());
    EXPECT_TRUE(lab_with(masked, "causal", false).empty());
    // Schemes: every listed one passes, every other one is refused.
    for (const char* s : {"none", "sinusoidal", "learned"}) EXPECT_TRUE(lab_with(ex, "pe", s).empty()) << s;
    for (const char* s : {"rope", "alibi", "Sinusoidal", ""}) EXPECT_EQ(lab_with(ex, "pe", s).code, "pe_not_scheme") << s;
    // Tokens and the sentence: 8 (the exercise's max) pass, 9 do not.
    EXPECT_TRUE(lab_with(ex, "tokens", json(std::vector<std::string>(8, "w"))).empty());
    EXPECT_EQ(lab_with(ex, "tokens", json(std::vector<std::string>(9, "w"))).code, "tokens_too_many");
    EXPECT_TRUE(lab_with(ex, "sentence", words(8)).empty()) << lab_with(ex, "sentence", words(8)).text;
    EXPECT_EQ(lab_with(ex, "sentence", words(9)).code, "sentence_too_long");
    // Fixed values the lab has no control for.
    EXPECT_TRUE(lab_with(ex, "weights", "random").empty());
    EXPECT_EQ(lab_with(ex, "weights", "identity").code, "weights_fixed");
    EXPECT_EQ(lab_with(ex, "runSeeds", json::array({1})).code, "no_run");
    EXPECT_EQ(lab_with(ex, "debug", true).code, "unknown_setting");
}

TEST(GradingProperty, EveryTaskAnswerSettingIsCheckedAgainstTheExercise) {
    const json ex = lab_exercise(true, false);
    const json& q = find_question(ex, "settings");
    auto answer = [&](const std::string& key, const json& value) { return task_answer_detail(ex, q, json{{key, value}}); };
    struct Range {
        const char* field;
        long long lo, hi;
    };
    for (const Range& r : {Range{"dModel", 2, 16}, Range{"heads", 1, 4}, Range{"seed", 3, 99}}) {
        for (long long v : {r.lo, r.hi}) EXPECT_TRUE(answer(r.field, v).empty()) << r.field << "=" << v << ": " << answer(r.field, v).text;
        for (long long v : {r.lo - 1, r.hi + 1}) {
            const Problem p = answer(r.field, v);
            EXPECT_EQ(p.code, "setting_range") << r.field << "=" << v;
            EXPECT_EQ(p.params.value("field", ""), r.field) << "the problem names the answer's own key";
        }
    }
    for (const char* s : {"none", "sinusoidal", "learned"}) EXPECT_TRUE(answer("pe", s).empty()) << s;
    for (const char* s : {"rope", "alibi"}) EXPECT_EQ(answer("pe", s).code, "pe_not_scheme") << s;
    EXPECT_TRUE(answer("causal", false).empty());
    EXPECT_EQ(answer("causal", true).code, "causal_fixed");
    // A list in the answer: at most the exercise's token limit.
    EXPECT_TRUE(answer("permutation", permutation(8)).empty());
    const Problem longer = answer("permutation", permutation(9));
    EXPECT_EQ(longer.code, "answer_list_too_long");
    EXPECT_EQ(longer.params.value("field", ""), "permutation");

    // The grade: an answer setting outside the exercise is not graded, even
    // when the lab saved with it is allowed; the first question's honest
    // answer still earns its point.
    for (const json& bad : {json{{"dModel", 17}}, json{{"heads", 0}}, json{{"seed", 100}}, json{{"pe", "rope"}},
                            json{{"causal", true}}, json{{"permutation", permutation(9)}}}) {
        const json g = grade_exercise(ex, 1, json::array({{{"question", "settings"}, {"answer", bad}, {"lab", base_lab()}}}));
        ASSERT_EQ(g["rejected"].size(), 1u) << bad.dump();
        EXPECT_EQ(g["rejected"][0]["status"], "lab_not_allowed") << bad.dump();
        EXPECT_DOUBLE_EQ(g["points"].get<double>(), 0.0) << bad.dump();
        EXPECT_EQ(g["questions"][1]["attempts"], 0) << "a refused attempt is not counted";
    }
    const json bad_first = grade_exercise(
        ex, 1, json::array({{{"question", "outputs-differ"}, {"answer", {{"pe", "rope"}, {"permutation", {1, 0, 2, 3, 4, 5}}}}, {"lab", base_lab()}}}));
    EXPECT_EQ(bad_first["rejected"].size(), 1u);
    const json fair = grade_exercise(
        ex, 1, json::array({{{"question", "outputs-differ"}, {"answer", {{"pe", "sinusoidal"}, {"permutation", {1, 0, 2, 3, 4, 5}}}}, {"lab", base_lab()}}}));
    EXPECT_TRUE(fair["rejected"].empty()) << fair.dump();
    EXPECT_DOUBLE_EQ(fair["points"].get<double>(), 1.0) << fair.dump();
    // And the file's flag says how many were refused.
    const GradingExercises exs = grading_exercises({ex});
    const json sub = {{"format", "position-lab-submission"}, {"version", 1}, {"learner", "l"},
                      {"exercises", {{{"id", "edges"}, {"contentHash", content_hash(ex)},
                                      {"attempts", {{{"question", "settings"}, {"answer", {{"dModel", 1}}}, {"lab", base_lab()}},
                                                    {{"question", "settings"}, {"answer", {{"pe", "alibi"}}}, {"lab", base_lab()}}}}}}}};
    const json row = grade_submission_value(sub, "f", exs)[0];
    EXPECT_EQ(row["flags"], json::array({"lab_not_allowed:2"})) << row.dump();
}
