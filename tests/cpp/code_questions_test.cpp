// The code exercises' reference functions and their named mistakes, against
// values worked out by hand (sin 1 = 0.8414709848, cos 1 = 0.5403023059, …).
#include <gtest/gtest.h>

#include <cmath>

#include "poslab/api_json.hpp"
#include "poslab/code_questions.hpp"
#include "poslab/errors.hpp"
#include "poslab/grading.hpp"

using namespace poslab;
using namespace poslab::grading;

namespace {

void expect_row(const json& got, const std::vector<double>& want, double tol = 1e-9) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i].get<double>(), want[i], tol) << "at " << i;
}

TEST(CodeReference, SinusoidalByHand) {
    // Position 1, D = 4: pair 0 has ω = 1, pair 1 has ω = 1/10000^(2/4) = 1/100.
    const json pe = code_reference("build_sinusoidal_encoding", json::array({2, 4}));
    expect_row(pe[0], {0, 1, 0, 1});
    expect_row(pe[1], {0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004});
    expect_row(code_reference("build_sinusoidal_encoding", json::array({2, 4}), "sin_cos_swapped")[1],
               {0.5403023059, 0.8414709848, 0.9999500004, 0.0099998333});
    // i instead of 2i: pair 1 has ω = 1/10000^(1/4) = 1/10.
    expect_row(code_reference("build_sinusoidal_encoding", json::array({2, 4}), "i_not_2i")[1],
               {0.8414709848, 0.5403023059, 0.0998334166, 0.9950041653});
    // No / d_model: pair 1 has ω = 1/10000^2 = 1e-8.
    expect_row(code_reference("build_sinusoidal_encoding", json::array({2, 4}), "no_divide_d_model")[1],
               {0.8414709848, 0.5403023059, 1e-8, 1.0});
    EXPECT_THROW(code_reference("build_sinusoidal_encoding", json::array({2, 5})), InvalidArgument);
}

TEST(CodeReference, AddPositionalInformationAddsPerPositionOverBatches) {
    const json h = json::parse("[[[1,1,1,1],[0,0,0,0]],[[2,2,2,2],[1,1,1,1]]]");
    const json out = code_reference("add_positional_information", json::array({h}));
    expect_row(out[0][0], {1, 2, 1, 2});
    expect_row(out[1][1], {1.8414709848, 1.5403023059, 1.0099998333, 1.9999500004});
}

TEST(CodeReference, AttentionRowScales) {
    // q·k = 1 and 0; softmax([1/√2, 0])[0] = 1/(1+e^(−0.7071)) = 0.6697615; out = weights (values = identity).
    const json args = json::parse("[[1,0],[[1,0],[0,1]],[[1,0],[0,1]]]");
    expect_row(code_reference("attention_row", args), {0.6697615493, 0.3302384507});
    expect_row(code_reference("attention_row", args, "no_scale"), {0.7310585786, 0.2689414214});
    expect_row(code_reference("attention_row", args, "divide_by_dk"), {0.6224593312, 0.3775406688});
}

TEST(CodeReference, CausalMaskAndMaskedSoftmax) {
    EXPECT_EQ(code_reference("causal_mask", json::array({3})), json::parse("[[1,0,0],[1,1,0],[1,1,1]]"));
    EXPECT_EQ(code_reference("causal_mask", json::array({2}), "mask_transposed"), json::parse("[[1,1],[0,1]]"));
    const json zeros = json::array({json::parse("[[0,0],[0,0]]")});
    EXPECT_EQ(code_reference("masked_softmax", zeros), json::parse("[[1.0,0.0],[0.5,0.5]]"));
    // Over queries instead of keys: column 0 shares between rows 0 and 1; column 1 has row 1 only.
    EXPECT_EQ(code_reference("masked_softmax", zeros, "softmax_wrong_axis"), json::parse("[[0.5,0.0],[0.5,1.0]]"));
    EXPECT_EQ(code_reference("masked_softmax", zeros, "no_mask"), json::parse("[[0.5,0.5],[0.5,0.5]]"));
}

TEST(CodeReference, RopeRotatesPairs) {
    // θ_0 = 1, θ_1 = 10000^(−2/4) = 0.01.
    const json args = json::parse("[[1,0,1,0],1,10000]");
    expect_row(code_reference("rope_rotate", args), {0.5403023059, 0.8414709848, 0.9999500004, 0.0099998333});
    expect_row(code_reference("rope_rotate", args, "negative_angle"), {0.5403023059, -0.8414709848, 0.9999500004, -0.0099998333});
    EXPECT_THROW(code_reference("rope_rotate", json::parse("[[1,0,1],1,10000]")), InvalidArgument);
}

TEST(CodeReference, AlibiSlopesPaperRule) {
    expect_row(code_reference("alibi_slopes", json::array({8})), {0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625});
    // 6 heads: the 4-head slopes 2^-2, 2^-4, 2^-6, 2^-8, then every other of the 8-head ones: 2^-1, 2^-3.
    expect_row(code_reference("alibi_slopes", json::array({6})), {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125});
    expect_row(code_reference("alibi_slopes", json::array({6}), "naive_rule"),
               {std::pow(2, -8.0 / 6), std::pow(2, -16.0 / 6), 0.0625, std::pow(2, -32.0 / 6), std::pow(2, -40.0 / 6), 0.00390625});
}

const json kCodeExercise = json::parse(R"J({
  "id": "code-demo", "order": 99, "title": {"ja": "t", "en": "t"},
  "blocks": [{"type": "code", "id": "pe", "function": "build_sinusoidal_encoding", "params": ["seq_len", "d_model"],
    "prompt": {"ja": "p", "en": "p"}, "starter": "def build_sinusoidal_encoding(seq_len, d_model):\n    pass\n",
    "cases": [{"args": [2, 4]}, {"args": [1, 3], "raises": "ValueError"}],
    "hidden": [{"count": 3, "sizes": {"S": [1, 5], "D": {"even": [2, 8]}}, "args": ["S", "D"]},
               {"count": 1, "sizes": {"S": [1, 3], "D": {"odd": [3, 7]}}, "args": ["S", "D"], "raises": "ValueError"}],
    "tolerance": {"rtol": 1e-6, "atol": 1e-9},
    "mistakes": [{"name": "sin_cos_swapped", "feedback": {"ja": "sin と cos が逆", "en": "sin and cos swapped"}}]}]
})J");

json results_of(const json& cases, const std::string& mistake) {
    json out = json::array();
    for (const json& c : cases) {
        if (c.contains("raises")) out.push_back({{"ok", false}, {"error", "ValueError"}, {"message", "odd"}});
        else out.push_back({{"ok", true}, {"value", code_reference("build_sinusoidal_encoding", c["args"], mistake)}});
    }
    return out;
}

TEST(CodeQuestion, HiddenCasesFromTheSeedAndGrading) {
    const json v1 = make_variant(kCodeExercise, 7), v2 = make_variant(kCodeExercise, 7);
    EXPECT_EQ(v1, v2);
    const json& hidden = v1["code:pe"]["hidden"];
    ASSERT_EQ(hidden.size(), 4u);
    EXPECT_EQ(hidden[3]["args"][1].get<int>() % 2, 1);  // the raising case has an odd d_model
    for (int i = 0; i < 3; ++i) EXPECT_EQ(hidden[i]["args"][1].get<int>() % 2, 0);
    const json& q = kCodeExercise["blocks"][0];
    const AttemptResult right = check_attempt(q, {{"code", "x"}, {"status", "ok"}, {"results", results_of(hidden, "")}}, v1, json::object());
    EXPECT_EQ(right.status, "correct");
    EXPECT_DOUBLE_EQ(right.score, 1.0);
    const AttemptResult swapped =
        check_attempt(q, {{"code", "x"}, {"status", "ok"}, {"results", results_of(hidden, "sin_cos_swapped")}}, v1, json::object());
    EXPECT_EQ(swapped.status, "partial");  // the raising case still passes
    EXPECT_EQ((*swapped.detail)["mistake"], "sin_cos_swapped");
    ASSERT_TRUE(swapped.mistake.has_value());  // the matched mistake, as numeric questions record it
    EXPECT_EQ((*swapped.mistake)["id"], "sin_cos_swapped");
    EXPECT_FALSE(right.mistake.has_value());
    EXPECT_EQ((*swapped.detail)["failed"]["kind"], "value");
    EXPECT_FALSE((*swapped.detail)["failed"].contains("expected"));  // hidden values are never shown
    json noraise = results_of(hidden, "");
    noraise[3] = {{"ok", true}, {"value", json::array()}};
    const AttemptResult nr = check_attempt(q, {{"code", "x"}, {"status", "ok"}, {"results", noraise}}, v1, json::object());
    EXPECT_EQ((*nr.detail)["failed"]["kind"], "no_raise");
    EXPECT_DOUBLE_EQ(nr.score, 0.75);
    json shape = results_of(hidden, "");
    shape[0]["value"].push_back(json::array());
    EXPECT_EQ((*check_attempt(q, {{"code", "x"}, {"status", "ok"}, {"results", shape}}, v1, json::object()).detail)["failed"]["kind"], "shape");
    const AttemptResult timeout = check_attempt(q, {{"code", "x"}, {"status", "timeout"}}, v1, json::object());
    EXPECT_EQ(timeout.status, "incorrect");
    EXPECT_EQ((*timeout.detail)["kind"], "timeout");
    EXPECT_EQ(check_attempt(q, {{"code", "x"}, {"status", "ok"}, {"results", json::array()}}, v1, json::object()).status, "malformed");
    // Graded by grade_exercise like any question.
    const json graded = grade_exercise(kCodeExercise, 7, json::array({{{"question", "pe"}, {"answer", {{"code", "x"}, {"status", "ok"}, {"results", results_of(hidden, "")}}}}}));
    EXPECT_DOUBLE_EQ(graded["points"].get<double>(), 1.0);
}

TEST(CodeQuestion, RunShowsVisibleExpected) {
    const json& q = kCodeExercise["blocks"][0];
    const json run = code_run(q, json::parse(R"([{"ok": true, "value": [[0, 1, 0, 1], [0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004]]},
                                                 {"ok": false, "error": "ValueError", "message": "odd"}])"));
    EXPECT_EQ(run["passed"], 2);
    EXPECT_TRUE(run["cases"][0].contains("expected"));
}

}  // namespace
