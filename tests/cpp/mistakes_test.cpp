// Which named mistake a wrong answer matched is kept in the grade (the
// results page groups wrong answers by it), and one submission file's
// re-grade (grade_submission_text) is the core's, for the CLI and the page.
// Expected values are worked out by hand: with vectors (1,0),(0,1) and
// identity weights the first row's scores are (1, 0) divided by the scale:
//   √2 → softmax(0.7071, 0) = (0.6698, 0.3302)
//   1 (no scale) → softmax(1, 0) = (0.7311, 0.2689)
//   2 (d_k) → softmax(0.5, 0) = (0.6225, 0.3775)
#include <gtest/gtest.h>

#include "poslab/grading.hpp"

using namespace poslab::grading;

namespace {

const json kEx = json::parse(R"J({
  "id": "mistakes-demo", "order": 1,
  "title": {"ja": "誤答", "en": "Mistakes"},
  "blocks": [
    {"type": "numeric", "id": "w", "prompt": {"ja": "重み", "en": "weights"},
     "fields": [
       {"label": "w11", "expect": {"call": "attentionSteps", "args": {"vectors": [[1, 0], [0, 1]], "weights": "identity"}, "pick": "weights.data.0"}},
       {"label": "w12", "expect": {"call": "attentionSteps", "args": {"vectors": [[1, 0], [0, 1]], "weights": "identity"}, "pick": "weights.data.1"}}],
     "tolerance": {"atol": 0.005},
     "mistakes": [
       {"expect": [{"call": "attentionSteps", "args": {"vectors": [[1, 0], [0, 1]], "weights": "identity", "scale": "none"}, "pick": "weights.data.0"}, null],
        "feedback": {"ja": "√d_k で割っていません", "en": "did not scale by sqrt(d_k)"}},
       {"expect": [{"call": "attentionSteps", "args": {"vectors": [[1, 0], [0, 1]], "weights": "identity", "scale": "dk"}, "pick": "weights.data.0"}, null],
        "feedback": {"ja": "d_k で割っています", "en": "divided by d_k"}}]},
    {"type": "choice", "id": "p", "prompt": {"ja": "性質", "en": "property"},
     "options": [{"id": "equivariance", "label": {"ja": "置換等価性", "en": "equivariance"}},
                 {"id": "invariance", "label": {"ja": "不変性", "en": "invariance"}, "why": {"ja": "出力も並べ替わります", "en": "the outputs move too"}},
                 {"id": "other", "label": {"ja": "その他", "en": "other"}}],
     "answer": ["equivariance"]}
  ]})J");

json nums(const char* a, const char* b) { return json::array({a, b}); }

}  // namespace

TEST(Mistakes, ANumericAnswerCarriesTheNamedMistakeItMatched) {
    const json& q = find_question(kEx, "w");
    const AttemptResult none = check_attempt(q, nums("0.731", "0.269"), json::object(), json::object());
    ASSERT_TRUE(none.mistake.has_value());
    EXPECT_EQ((*none.mistake)["id"], "mistake-1");
    EXPECT_EQ((*none.mistake)["index"], 1);
    EXPECT_EQ((*none.mistake)["feedback"]["en"], "did not scale by sqrt(d_k)");
    const AttemptResult dk = check_attempt(q, nums("0.622", "0.378"), json::object(), json::object());
    ASSERT_TRUE(dk.mistake.has_value());
    EXPECT_EQ((*dk.mistake)["id"], "mistake-2");
    EXPECT_EQ((*dk.mistake)["feedback"]["en"], "divided by d_k");
    // A wrong answer no mistake describes, and a right one: no mistake.
    EXPECT_FALSE(check_attempt(q, nums("0.5", "0.5"), json::object(), json::object()).mistake.has_value());
    const AttemptResult right = check_attempt(q, nums("0.670", "0.330"), json::object(), json::object());
    EXPECT_EQ(right.status, "correct");
    EXPECT_FALSE(right.mistake.has_value());
}

TEST(Mistakes, AWrongOptionWithAWhyIsANamedMistake) {
    const json& q = find_question(kEx, "p");
    const AttemptResult r = check_attempt(q, json::array({"invariance"}), json::object(), json::object());
    ASSERT_TRUE(r.mistake.has_value());
    EXPECT_EQ((*r.mistake)["id"], "option-invariance");
    EXPECT_EQ((*r.mistake)["option"], "invariance");
    // A wrong option with no explanation is wrong, but no named mistake.
    EXPECT_FALSE(check_attempt(q, json::array({"other"}), json::object(), json::object()).mistake.has_value());
}

TEST(Mistakes, TheExerciseGradeListsEachWrongAttemptWithItsMistake) {
    const json attempts = json::array({
        {{"question", "w"}, {"answer", nums("0.731", "0.269")}},
        {{"question", "w"}, {"answer", nums("0.5", "0.5")}},
        {{"question", "w"}, {"answer", nums("abc", "1")}},  // malformed: not counted, not listed
        {{"question", "w"}, {"answer", nums("0.670", "0.330")}},
        {{"question", "p"}, {"answer", json::array({"invariance"})}},
    });
    const json g = grade_exercise(kEx, 7, attempts);
    const json& w = g["questions"][0];
    ASSERT_EQ(w["id"], "w");
    ASSERT_EQ(w["wrong"].size(), 2u);
    EXPECT_EQ(w["wrong"][0]["attempt"], 1);
    EXPECT_EQ(w["wrong"][0]["mistake"]["id"], "mistake-1");
    EXPECT_EQ(w["wrong"][0]["answer"], nums("0.731", "0.269"));
    EXPECT_EQ(w["wrong"][1]["attempt"], 2);
    EXPECT_TRUE(w["wrong"][1]["mistake"].is_null());
    EXPECT_EQ(w["attemptsToCorrect"], 3);
    const json& p = g["questions"][1];
    ASSERT_EQ(p["wrong"].size(), 1u);
    EXPECT_EQ(p["wrong"][0]["mistake"]["id"], "option-invariance");
    EXPECT_TRUE(p["attemptsToCorrect"].is_null());
}

TEST(Mistakes, OneSubmissionFileIsGradedByTheCoreWithItsStatuses) {
    const GradingExercises set = grading_exercises({kEx});
    const std::string hash = content_hash(kEx);
    json sub = {{"format", "position-lab-submission"}, {"version", 1}, {"learner", "山田"},
                {"exercises", json::array({{{"id", "mistakes-demo"}, {"contentHash", hash}, {"claimed", {{"points", 2}, {"max", 2}}},
                                            {"attempts", json::array({{{"question", "w"}, {"answer", nums("0.622", "0.378")}}})}}})}};
    json rows = grade_submission_text(sub.dump(), "a.json", set);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["status"], "graded");
    EXPECT_EQ(rows[0]["learner"], "山田");
    EXPECT_EQ(rows[0]["points"], 0.0);
    EXPECT_EQ(rows[0]["max"], 2.0);
    EXPECT_EQ(rows[0]["claimedDiffers"], true);
    EXPECT_EQ(rows[0]["questions"][0]["wrong"][0]["mistake"]["id"], "mistake-2");

    EXPECT_EQ(rows[0]["details"], json::array());

    sub["exercises"][0]["contentHash"] = "0000000000000000";
    const json mismatch = grade_submission_text(sub.dump(), "b.json", set)[0];
    EXPECT_EQ(mismatch["status"], "hash_mismatch");
    // The message's parts as codes and parameters, for the results page's ja/en wording.
    EXPECT_EQ(mismatch["details"], json::array({{{"code", "hash_mismatch"}, {"params", {{"hash", "0000000000000000"}, {"expected", hash}}}}}));
    EXPECT_EQ(grade_submission_text("{not json", "c.json", set)[0]["status"], "invalid_file");
    EXPECT_EQ(grade_submission_text("{not json", "c.json", set)[0]["details"][0]["code"], "not_json");
    EXPECT_EQ(grade_submission_text(std::string(kMaxSubmissionBytes + 1, ' '), "d.json", set)[0]["status"], "too_large");
    EXPECT_EQ(grade_submission_text(std::string(40, '[') + std::string(40, ']'), "e.json", set)[0]["status"], "too_large");
    EXPECT_EQ(grade_submission_text(std::string(40, '[') + std::string(40, ']'), "e.json", set)[0]["details"],
              json::array({{{"code", "too_deep"}, {"params", {{"max", 32}}}}}));
    json bad_entry = sub;
    bad_entry["exercises"][0]["attempts"] = json::object();
    EXPECT_EQ(grade_submission_text(bad_entry.dump(), "f.json", set)[0]["details"],
              json::array({{{"code", "entry_attempts_type"}, {"params", {{"entry", 1}, {"type", "object"}}}}}));
    json other_seed = sub;
    other_seed["exercises"][0]["contentHash"] = hash;
    other_seed["exercises"][0]["seed"] = 12345;
    const json seeded = grade_submission_text(other_seed.dump(), "g.json", set)[0];
    EXPECT_EQ(seeded["details"][0]["code"], "seed_replaced");
    EXPECT_EQ(seeded["details"][0]["params"]["seed"], variant_seed("山田", "mistakes-demo", hash));
    // Two entries for one exercise: one row, flagged.
    sub["exercises"][0]["contentHash"] = hash;
    sub["exercises"].push_back(sub["exercises"][0]);
    const json dup = grade_submission_text(sub.dump(), "f.json", set);
    ASSERT_EQ(dup.size(), 1u);
    EXPECT_EQ(dup[0]["flags"][0], "duplicate_entries:2");
}
