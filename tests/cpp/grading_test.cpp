#include <gtest/gtest.h>

#include <cmath>

#include "poslab/api_json.hpp"
#include "poslab/errors.hpp"
#include "poslab/grading.hpp"

using namespace poslab;
using namespace poslab::grading;

namespace {

// The hand calculation, as an exercise file would declare it.
const json kExercise = json::parse(R"J({
  "id": "hand-calc", "order": 3,
  "title": {"ja": "手で計算する", "en": "Compute it by hand"},
  "variants": {"scale": {"kind": "integer", "min": 1, "max": 3}},
  "blocks": [
    {"type": "text", "body": {"ja": "説明", "en": "text"}},
    {"type": "numeric", "id": "weights", "points": 2, "max_attempts": 3,
     "prompt": {"ja": "重み", "en": "weights"},
     "fields": [
       {"label": "w11", "expect": {"call": "attentionSteps", "args": {"vectors": [[1, 0], [0, 1]], "weights": "identity"}, "pick": "weights.data.0"}},
       {"label": "w12", "expect": {"call": "attentionSteps", "args": {"vectors": [[1, 0], [0, 1]], "weights": "identity"}, "pick": "weights.data.1"}}],
     "tolerance": {"atol": 0.005},
     "mistakes": [{"expect": [{"call": "attentionSteps", "args": {"vectors": [[1, 0], [0, 1]], "weights": "identity", "scale": "none"}, "pick": "weights.data.0"}, null],
                   "feedback": {"ja": "√d_k で割っていません", "en": "not divided by sqrt(d_k)"}}],
     "hints": [{"after": 1, "text": {"ja": "ヒント1", "en": "hint 1"}}, {"after": 2, "text": {"ja": "ヒント2", "en": "hint 2"}}]},
    {"type": "numeric", "id": "default-tolerance", "prompt": {"ja": "p", "en": "p"},
     "fields": [{"label": "sin 1", "expect": {"call": "encoding", "args": {"length": 2, "dModel": 2}, "pick": "encoding.data.2"}}]},
    {"type": "choice", "id": "property", "prompt": {"ja": "性質", "en": "property"},
     "options": [{"id": "equivariance", "label": {"ja": "置換等価性", "en": "permutation equivariance"}},
                 {"id": "invariance", "label": {"ja": "不変性", "en": "invariance"}, "why": {"ja": "出力も並べ替わります", "en": "the outputs move too"}}],
     "answer": ["equivariance"]},
    {"type": "choice", "id": "schemes", "multiple": true, "prompt": {"ja": "相対", "en": "relative"},
     "options": [{"id": "rope", "label": {"ja": "RoPE", "en": "RoPE"}}, {"id": "alibi", "label": {"ja": "ALiBi", "en": "ALiBi"}},
                 {"id": "learned", "label": {"ja": "学習", "en": "learned"}}, {"id": "sinusoidal", "label": {"ja": "正弦", "en": "sinusoidal"}}],
     "answer": ["rope", "alibi"]},
    {"type": "task", "id": "wall", "prompt": {"ja": "壁", "en": "wall"},
     "condition": {"call": "forward", "args": {"text": "犬が猫", "pe": "learned"}, "free": ["positionOffset"], "is_error": true}},
    {"type": "task", "id": "scaled", "prompt": {"ja": "倍率", "en": "scale"},
     "condition": {"call": "forward", "args": {"vectors": [["$scale", 0], [0, 1]], "weights": "identity"}, "free": [], "path": "output.data.0", "gt": 0.75}}
  ]})J");

const json kNoLab = json::object();
const json& q(const char* id) { return find_question(kExercise, id); }
json strings(std::initializer_list<const char*> s) {
    json a = json::array();
    for (const char* x : s) a.push_back(x);
    return a;
}

}  // namespace

TEST(Grading, IsCloseFollowsNumpysRule) {
    EXPECT_TRUE(is_close(0.670, 0.66976, 0, 0.005));
    EXPECT_FALSE(is_close(0.676, 0.66976, 0, 0.005));
    EXPECT_TRUE(is_close(101, 100, 0.01, 0));    // 1 <= 0.01·100
    EXPECT_FALSE(is_close(101.5, 100, 0.01, 0));
    EXPECT_TRUE(is_close(100.99, 100));         // defaults rtol 1e-2, atol 1e-8
    EXPECT_FALSE(is_close(1e-7, 0.0));          // atol 1e-8 only, near zero
    EXPECT_FALSE(is_close(NAN, NAN));
}

TEST(Grading, ParsesNumbersAsStudentsTypeThem) {
    EXPECT_EQ(parse_number("0.670"), 0.670);
    EXPECT_EQ(parse_number("０．６７０"), 0.670);  // full-width
    EXPECT_EQ(parse_number(" −1 "), -1.0);        // Unicode minus
    EXPECT_EQ(parse_number("－２"), -2.0);
    EXPECT_EQ(parse_number(".5"), 0.5);
    EXPECT_EQ(parse_number("1e-3"), 0.001);
    EXPECT_EQ(parse_number("7."), 7.0);
    for (const char* bad : {"", "abc", "0.6.7", "1,5", "0x10", "inf", "nan", "1e999", "--1", "約0.67"})
        EXPECT_FALSE(parse_number(bad).has_value()) << bad;
}

TEST(Grading, NumericAnswersWithToleranceAndKnownMistakes) {
    const double w = std::exp(M_SQRT1_2) / (std::exp(M_SQRT1_2) + 1);  // 0.66976
    auto r = check_attempt(q("weights"), strings({"0.670", "0.330"}), json::object(), kNoLab);
    EXPECT_EQ(r.status, "correct");
    EXPECT_DOUBLE_EQ(r.score, 1.0);
    ASSERT_EQ(r.expected.size(), 2u);
    EXPECT_NEAR(r.expected[0], w, 1e-6);
    r = check_attempt(q("weights"), strings({"0.670", "0.5"}), json::object(), kNoLab);
    EXPECT_EQ(r.status, "partial");
    EXPECT_DOUBLE_EQ(r.score, 0.5);
    EXPECT_EQ(r.parts, (std::vector<bool>{true, false}));
    // Softmax without √d_k: e/(e+1) = 0.731, recognised and explained.
    r = check_attempt(q("weights"), strings({"0.731", "0.269"}), json::object(), kNoLab);
    EXPECT_EQ(r.status, "incorrect");
    ASSERT_TRUE(r.feedback.has_value());
    EXPECT_EQ((*r.feedback)["en"], "not divided by sqrt(d_k)");
    r = check_attempt(q("weights"), strings({"0.67", "abc"}), json::object(), kNoLab);
    EXPECT_EQ(r.status, "malformed");
    EXPECT_NE(r.message.find("'abc' is not a number"), std::string::npos);
    EXPECT_EQ(check_attempt(q("weights"), strings({"0.67"}), json::object(), kNoLab).status, "malformed");
    // Default tolerance (rtol 1e-2): sin 1 = 0.84147.
    EXPECT_EQ(check_attempt(q("default-tolerance"), strings({"0.84"}), json::object(), kNoLab).status, "correct");
    EXPECT_EQ(check_attempt(q("default-tolerance"), strings({"0.83"}), json::object(), kNoLab).status, "incorrect");
}

TEST(Grading, ChoicesWithPartialCreditForMultiple) {
    EXPECT_EQ(check_attempt(q("property"), strings({"equivariance"}), {}, kNoLab).status, "correct");
    auto r = check_attempt(q("property"), strings({"invariance"}), {}, kNoLab);
    EXPECT_EQ(r.status, "incorrect");
    EXPECT_EQ((*r.feedback)["ja"], "出力も並べ替わります");
    EXPECT_EQ(check_attempt(q("property"), strings({"equivariance", "invariance"}), {}, kNoLab).status, "malformed");
    EXPECT_EQ(check_attempt(q("property"), strings({}), {}, kNoLab).status, "malformed");
    EXPECT_EQ(check_attempt(q("property"), strings({"nope"}), {}, kNoLab).status, "malformed");
    // Multiple: +1/2 per right choice, -1/2 per wrong one, floor 0.
    EXPECT_DOUBLE_EQ(check_attempt(q("schemes"), strings({"rope", "alibi"}), {}, kNoLab).score, 1.0);
    EXPECT_DOUBLE_EQ(check_attempt(q("schemes"), strings({"rope"}), {}, kNoLab).score, 0.5);
    EXPECT_EQ(check_attempt(q("schemes"), strings({"rope"}), {}, kNoLab).status, "partial");
    EXPECT_DOUBLE_EQ(check_attempt(q("schemes"), strings({"rope", "alibi", "learned"}), {}, kNoLab).score, 0.5);
    EXPECT_DOUBLE_EQ(check_attempt(q("schemes"), strings({"rope", "learned", "sinusoidal"}), {}, kNoLab).score, 0.0);
}

TEST(Grading, TasksAreReRunByTheCore) {
    // Place the sentence past position 1023 of the learned table.
    EXPECT_EQ(check_attempt(q("wall"), json{{"positionOffset", 1022}}, {}, kNoLab).status, "correct");
    EXPECT_EQ(check_attempt(q("wall"), json{{"positionOffset", 1000}}, {}, kNoLab).status, "incorrect");
    // Only the free options may be set: the text is the task's own.
    const auto r = check_attempt(q("wall"), json{{"text", "犬"}, {"positionOffset", 5000}}, {}, kNoLab);
    EXPECT_EQ(r.status, "malformed");
    EXPECT_NE(r.message.find("cannot set 'text'"), std::string::npos);
    // Variants reach task args: x1 = (scale, 0) gives a larger weight on itself for scale > 1.
    const double w2 = std::exp(2 / std::sqrt(2.0)) / (std::exp(2 / std::sqrt(2.0)) + 1);  // 0.804
    EXPECT_GT(w2, 0.75);
    EXPECT_EQ(check_attempt(q("scaled"), json::object(), json{{"scale", 2}}, kNoLab).status, "correct");
    EXPECT_EQ(check_attempt(q("scaled"), json::object(), json{{"scale", 1}}, kNoLab).status, "incorrect");
}

TEST(Grading, AttemptsHintsAndLimits) {
    std::vector<Attempt> a = {{strings({"x", "y"})},       // malformed: not counted
                              {strings({"0.731", "0.269"})},  // wrong
                              {strings({"0.5", "0.5"})},      // wrong
                              {strings({"0.670", "0.330"})},  // right, third counted
                              {strings({"0.670", "0.330"})}};  // past max_attempts (3)
    const auto g = grade_question(q("weights"), a, json::object());
    EXPECT_EQ(g.attempts, 3);
    EXPECT_EQ(g.ignored, 1);
    EXPECT_TRUE(g.solved);
    EXPECT_DOUBLE_EQ(g.points, 2.0);  // points: 2
    EXPECT_DOUBLE_EQ(g.max, 2.0);
    EXPECT_EQ(g.hints_unlocked, 2);
    // Solved only after the limit: no credit; the best counted attempt is kept.
    std::vector<Attempt> late = {{strings({"0.670", "0.1"})}, {strings({"0.1", "0.1"})}, {strings({"0.1", "0.1"})},
                                 {strings({"0.670", "0.330"})}};
    const auto gl = grade_question(q("weights"), late, json::object());
    EXPECT_FALSE(gl.solved);
    EXPECT_DOUBLE_EQ(gl.points, 1.0);  // 0.5 × 2 points
    EXPECT_EQ(unlocked_hints(q("weights"), 0).size(), 0u);
    EXPECT_EQ(unlocked_hints(q("weights"), 1).size(), 1u);
}

TEST(Grading, ContentHashesAndSeeds) {
    const std::string h = content_hash(kExercise);
    EXPECT_EQ(h.size(), 16u);
    // Integers and the same number written as a float hash alike (js-yaml vs yaml-cpp).
    json as_float = kExercise;
    as_float["order"] = 3.0;
    EXPECT_EQ(content_hash(as_float), h);
    json edited = kExercise;
    edited["blocks"][1]["tolerance"]["atol"] = 0.006;
    EXPECT_NE(content_hash(edited), h);
    // Same learner, same seed; another learner or another version, another seed.
    EXPECT_EQ(variant_seed("alice", "hand-calc", h), variant_seed("alice", "hand-calc", h));
    EXPECT_NE(variant_seed("alice", "hand-calc", h), variant_seed("bob", "hand-calc", h));
    EXPECT_NE(variant_seed("alice", "hand-calc", h), variant_seed("alice", "hand-calc", content_hash(edited)));
    EXPECT_NE(variant_seed("alice", "hand-calc", h), variant_seed("alice", "rope", h));
}

TEST(Grading, VariantsAreSeededAndCoverTheirRange) {
    const json ex = json::parse(R"({"variants": {
        "n": {"kind": "integer", "min": 1, "max": 3},
        "s": {"kind": "choice", "options": ["犬が猫を追いかけた", "鳥が魚を見た"]},
        "x": {"kind": "vector", "length": 2, "min": -1, "max": 1, "step": 0.5},
        "p": {"kind": "permutation", "length": 6}}})");
    std::set<long long> ns;
    std::set<std::string> ss;
    for (std::uint32_t seed = 0; seed < 200; ++seed) {
        const json v = make_variant(ex, seed);
        EXPECT_EQ(v, make_variant(ex, seed));
        ns.insert(v["n"].get<long long>());
        ss.insert(v["s"].get<std::string>());
        for (const auto& x : v["x"]) {
            const double d = x.get<double>();
            EXPECT_TRUE(d >= -1 && d <= 1 && std::fmod(d + 1, 0.5) == 0) << d;
        }
        std::vector<std::size_t> p = v["p"].get<std::vector<std::size_t>>();
        std::sort(p.begin(), p.end());
        EXPECT_EQ(p, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
    }
    EXPECT_EQ(ns, (std::set<long long>{1, 2, 3}));
    EXPECT_EQ(ss.size(), 2u);
    EXPECT_THROW(make_variant(json::parse(R"({"variants": {"a": {"kind": "dice"}}})"), 0), std::invalid_argument);
}

TEST(Grading, SubstitutionAndPaths) {
    const json args = json::parse(R"({"text": "$sentence", "dModel": "$d", "note": {"ja": "犬", "en": "dog"}})");
    const json lab = {{"sentence", "犬が猫"}, {"d", 8}};
    EXPECT_EQ(substitute(args, json::object(), lab, "en"),
              json::parse(R"({"text": "犬が猫", "dModel": 8, "note": "dog"})"));
    EXPECT_THROW(substitute(json("$nope"), json::object(), lab, "ja"), std::invalid_argument);
    const json r = call_json("forward", json::parse(R"({"vectors": [[1, 0], [0, 1]], "weights": "identity"})"));
    EXPECT_NEAR(json_at_path(r, "output.data.0").get<double>(), 0.670, 5e-4);
    EXPECT_THROW(json_at_path(r, "output.data.9"), std::invalid_argument);
    EXPECT_THROW(json_at_path(r, "outputs"), std::invalid_argument);
    EXPECT_THROW(call_json("backward", json::object()), std::invalid_argument);
    EXPECT_THROW(call_json("forward", json::parse(R"({"text": "犬", "dmodel": 8})")), std::invalid_argument);
}

TEST(Grading, SwapsThatChangeATokenAreComputedByTheCore) {
    // With the causal mask and no position information, token 5 of
    // "a b c d e f g" sees a…e as a set: swapping two of a…d leaves it alone;
    // swapping in f, or moving token 5 itself, changes it.
    const json q = json::parse(R"({"type": "choice", "id": "swaps", "multiple": true, "prompt": {"ja": "p", "en": "p"},
      "options": [{"id": "s1-2", "label": {"ja": "1-2", "en": "1-2"}}, {"id": "s2-4", "label": {"ja": "2-4", "en": "2-4"}},
                  {"id": "s4-6", "label": {"ja": "4-6", "en": "4-6"}}, {"id": "s5-6", "label": {"ja": "5-6", "en": "5-6"}}],
      "answer_from": {"swaps_changing": {"token": 5, "args": {"text": "$sentence", "pe": "none", "causal": true, "dModel": 8}}}})");
    const json lab = {{"sentence", "a b c d e f g"}};
    EXPECT_EQ(check_attempt(q, strings({"s4-6", "s5-6"}), json::object(), lab).status, "correct");
    EXPECT_EQ(check_attempt(q, strings({"s1-2", "s4-6", "s5-6"}), json::object(), lab).status, "partial");
    EXPECT_EQ(check_attempt(q, strings({"s1-2", "s2-4"}), json::object(), lab).status, "incorrect");
    EXPECT_THROW(check_attempt(q, strings({"s1-2"}), json::object(), json{{"sentence", "a b c"}}), std::invalid_argument);
}

TEST(Grading, TheTokensThePageRecordedAreReRun) {
    // The page splits the sentence with the browser's ICU and records the
    // tokens in lab.tokens; the grader re-runs those, not its own split.
    // Natively "abc d e f g" is 5 tokens, so "s5-6" would name a token it does
    // not have; the page's 7 tokens a…g make token 5 "e", as in the test above.
    const json q = json::parse(R"({"type": "choice", "id": "swaps", "multiple": true, "prompt": {"ja": "p", "en": "p"},
      "options": [{"id": "s1-2", "label": {"ja": "1-2", "en": "1-2"}}, {"id": "s4-6", "label": {"ja": "4-6", "en": "4-6"}},
                  {"id": "s5-6", "label": {"ja": "5-6", "en": "5-6"}}],
      "answer_from": {"swaps_changing": {"token": 5, "args": {"text": "$sentence", "pe": "none", "causal": true, "dModel": 8}}}})");
    const json page = {"a", "b", "c", "d", "e", "f", "g"};
    const json lab = {{"sentence", "abc d e f g"}, {"tokens", page}};
    EXPECT_EQ(check_attempt(q, strings({"s4-6", "s5-6"}), json::object(), lab).status, "correct");
    EXPECT_EQ(check_attempt(q, strings({"s1-2"}), json::object(), lab).status, "incorrect");
    EXPECT_EQ(substitute(json{{"text", "$sentence"}, {"pe", "none"}}, json::object(), lab, "ja"),
              (json{{"tokens", page}, {"pe", "none"}}));
    // Without lab.tokens (an older submission) the core's own split is used.
    EXPECT_THROW(check_attempt(q, strings({"s5-6"}), json::object(), json{{"sentence", "abc d e f g"}}),
                 std::invalid_argument);
    // Recorded tokens that do not spell the sentence, or are not strings, are refused.
    const auto code = [&](const json& l) {
        try {
            check_attempt(q, strings({"s4-6"}), json::object(), l);
        } catch (const InvalidArgument& e) {
            return e.code();
        }
        return std::string("none");
    };
    EXPECT_EQ(code({{"sentence", "abc d e f g"}, {"tokens", {"a", "b", "c", "d", "e", "f", "x"}}}), "tokens_not_of_text");
    EXPECT_EQ(code({{"sentence", "abc d e f g"}, {"tokens", {"abc", "", "d", "e", "f", "g"}}}), "empty_token");
    EXPECT_EQ(code({{"sentence", "abc d e f g"}, {"tokens", "abcdefg"}}), "bad_lab_tokens");
    EXPECT_EQ(code({{"sentence", "abc d e f g"}, {"tokens", {"a", 1}}}), "bad_lab_tokens");
    EXPECT_EQ(code({{"tokens", page}}), "bad_lab_tokens");
}

TEST(Grading, TaskFreeOptionsWithLimitsAndLanguageDependentTargets) {
    const json q = json::parse(R"({"type": "task", "id": "t", "prompt": {"ja": "p", "en": "p"},
      "condition": {"call": "forward", "args": {"pe": "none"}, "free": {"tokens": "state.order", "seed": {"path": "state.seed", "min": 1}},
                    "path": "tokens", "equals": {"ja": ["猫", "が", "犬"], "en": ["the", "table"]}}})");
    EXPECT_EQ(check_attempt(q, json{{"tokens", {"猫", "が", "犬"}}}, json::object(), kNoLab, "ja").status, "correct");
    EXPECT_EQ(check_attempt(q, json{{"tokens", {"犬", "が", "猫"}}}, json::object(), kNoLab, "ja").status, "incorrect");
    EXPECT_EQ(check_attempt(q, json{{"tokens", {"the", "table"}}}, json::object(), kNoLab, "en").status, "correct");
    EXPECT_EQ(check_attempt(q, json{{"tokens", {"猫"}}, {"seed", 0}}, json::object(), kNoLab, "ja").status, "malformed");
}

TEST(Grading, PlainValueFunctionsTakeTheirOptionObjectToo) {
    EXPECT_EQ(call_json("alibiSlopes", json{{"heads", 2}}), call_json("alibiSlopes", json(2)));
    EXPECT_EQ(call_json("tokenize", json{{"text", "犬が猫"}}), call_json("tokenize", json("犬が猫")));
    EXPECT_THROW(call_json("alibiSlopes", json{{"head", 2}}), std::invalid_argument);
}
