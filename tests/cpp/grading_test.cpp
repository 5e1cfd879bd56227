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
     "condition": {"call": "forward", "args": {"text": "犬が猫", "pe": "learned"}, "free": {"positionOffset": {"path": "wall.state.pos", "min": 0, "max": 2047}},
                   "error": {"code": "position_past_table", "params": {"max_positions": 1024}}}},
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
    const auto r = check_attempt(q("wall"), json{{"text", "犬"}, {"positionOffset", 1500}}, {}, kNoLab);
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
    // The presenter's notes are not graded: adding or editing them keeps the version.
    json presented = kExercise;
    presented["presenter"] = {{"step", 3}, {"minutes", 15}, {"talking_points", {{{"ja", "一緒に計算する"}, {"en", "Compute it together"}}}}};
    EXPECT_EQ(content_hash(presented), h);
    presented["presenter"]["minutes"] = 10;
    EXPECT_EQ(content_hash(presented), h);
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

TEST(Grading, RopePairsLeavingAreComputedByTheCorePerVariant) {
    // d 6, base 1000: θ = 1, 0.1, 0.01; L 10. Pair 0 turned 10 rad ≥ 2π in
    // training: it never leaves. s 2, none: pair 1 reaches 20·0.1 = 2 > 1 and
    // pair 2 reaches 0.2 > 0.1: both leave. s 2, NTK: θ'₁ = 0.1/√2 reaches 1.41
    // > 1 (leaves), θ'₂ = 0.01/2 reaches 0.1, its trained span (stays).
    const json q = json::parse(R"({"type": "choice", "id": "leave", "multiple": true, "prompt": {"ja": "p", "en": "p"},
      "options": [{"id": "p0", "label": {"ja": "0", "en": "0"}}, {"id": "p1", "label": {"ja": "1", "en": "1"}},
                  {"id": "p2", "label": {"ja": "2", "en": "2"}}],
      "answer_from": {"pairs_leaving": {"args": {"d": 6, "base": 1000, "trainedLength": 10, "s": "$s", "method": "$method"}}}})");
    const json none = {{"s", 2}, {"method", "none"}}, ntk = {{"s", 2}, {"method", "ntk"}};
    EXPECT_EQ(check_attempt(q, strings({"p1", "p2"}), none, json::object()).status, "correct");
    EXPECT_EQ(check_attempt(q, strings({"p1"}), none, json::object()).status, "partial");
    EXPECT_EQ(check_attempt(q, strings({"p1"}), ntk, json::object()).status, "correct");
    // One right (+1) and one wrong (−1) of one: 0.
    EXPECT_EQ(check_attempt(q, strings({"p1", "p2"}), ntk, json::object()).status, "incorrect");
    EXPECT_EQ(check_attempt(q, strings({"p0"}), ntk, json::object()).status, "incorrect");
    // "none": right exactly when no pair leaves (PI: θ'ᵢ = θᵢ/2 reach 20·θᵢ/2 = 10·θᵢ).
    json with_none = q;
    with_none["options"].push_back(json::parse(R"({"id": "none", "label": {"ja": "なし", "en": "none"}})"));
    const json pi = {{"s", 2}, {"method", "pi"}};
    EXPECT_EQ(check_attempt(with_none, strings({"none"}), pi, json::object()).status, "correct");
    EXPECT_EQ(check_attempt(with_none, strings({"p1"}), pi, json::object()).status, "incorrect");
    EXPECT_EQ(check_attempt(with_none, strings({"none"}), none, json::object()).status, "incorrect");
    EXPECT_EQ(check_attempt(with_none, strings({"p1", "p2"}), none, json::object()).status, "correct");
    // An option id that names no pair is an error in the file, not a wrong answer.
    json bad = q;
    bad["options"][2]["id"] = "p7";
    EXPECT_THROW(check_attempt(bad, strings({"p1"}), none, json::object()), InvalidArgument);
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

// ---- Hostile input (issue 11) ----

TEST(GradingHostile, OnlyAtolIsCheckedInsideTheBandUpToAtolPlusOnePercent) {
    // atol 0.005 alone means |a - w| <= 0.005 with no relative part: w + 0.008
    // is within atol + 1%·w (0.0117) but must be wrong.
    const double w = std::exp(M_SQRT1_2) / (std::exp(M_SQRT1_2) + 1);
    const std::string in = std::to_string(w + 0.004), band = std::to_string(w + 0.008);
    const std::string other = std::to_string(1 - w);
    EXPECT_EQ(check_attempt(q("weights"), strings({in.c_str(), other.c_str()}), {}, kNoLab).status, "correct");
    const auto r = check_attempt(q("weights"), strings({band.c_str(), other.c_str()}), {}, kNoLab);
    EXPECT_EQ(r.status, "partial");
    EXPECT_FALSE(r.parts[0]);
}

TEST(GradingHostile, LongAndOddNumbersNeitherCrashNorParse) {
    // std::regex recursed per character: 30 000 digits overflowed the stack.
    EXPECT_FALSE(parse_number(std::string(30000, '1')).has_value());
    EXPECT_FALSE(parse_number(std::string(200000, '1') + "x").has_value());
    EXPECT_EQ(parse_number(std::string(50, '0') + "1.5"), 1.5);  // long but under the cap
    for (const char* bad : {".", "+", "-.", "1e", "1e+", "e5", ".e1", "1.2.", "1e5.0", "+-1", "1 e5x"})
        EXPECT_FALSE(parse_number(bad).has_value()) << bad;
    EXPECT_EQ(parse_number("+.5E+1"), 5.0);
    EXPECT_EQ(parse_number("-7.e-1"), -0.7);
}

TEST(GradingHostile, DeepAnswersAreRefusedBeforeAnyWalk) {
    std::string deep;
    for (int i = 0; i < 200000; ++i) deep += '[';
    EXPECT_NE(json_text_problem(deep), "");
    EXPECT_EQ(json_text_problem(R"({"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "b": [[1]]})"), "");  // brackets in strings do not count
    json v = json::array();
    for (int i = 0; i < 40; ++i) v = json::array({v});
    EXPECT_NE(json_value_problem(v), "");
    const json attempts = json::array({{{"question", "property"}, {"answer", v}}});
    try {
        grade_exercise(kExercise, 1, attempts);
        FAIL() << "a 40-deep answer was graded";
    } catch (const InvalidArgument& e) {
        EXPECT_EQ(e.code(), "too_large");
    }
    EXPECT_NE(json_value_problem(json(std::string(kMaxStringBytes + 1, 'a'))), "");
}

TEST(GradingHostile, AnErrorTaskPassesOnlyOnTheErrorItTeaches) {
    EXPECT_EQ(check_attempt(q("wall"), json{{"positionOffset", 1022}}, {}, kNoLab).status, "correct");
    // Each fails with another code (a bad value), or is outside the free range: no point.
    for (const json& bad : {json("x"), json(0.5), json(-1), json(nullptr), json(true), json(3000)}) {
        const auto r = check_attempt(q("wall"), json{{"positionOffset", bad}}, {}, kNoLab);
        EXPECT_NE(r.status, "correct") << bad.dump();
    }
    // An exercise that still says is_error is refused, not graded leniently.
    json old = q("wall");
    old["condition"].erase("error");
    old["condition"]["is_error"] = true;
    EXPECT_THROW(check_attempt(old, json{{"positionOffset", 1022}}, {}, kNoLab), InvalidArgument);
    // The params count too: the same code from a table of another size does not pass.
    json other = q("wall");
    other["condition"]["error"]["params"]["max_positions"] = 512;
    EXPECT_EQ(check_attempt(other, json{{"positionOffset", 1022}}, {}, kNoLab).status, "incorrect");
}

namespace {
// Exercise 4's shape: pe and sentence and d and seed are controls, no mask.
const json kLabExercise = json::parse(R"J({
  "id": "add-position", "order": 4, "title": {"ja": "t", "en": "t"},
  "lab": {"sentence": {"ja": "犬が猫を追いかけた", "en": "The keys on the table are lost."}, "pe": "sinusoidal",
          "d": 8, "seed": 0, "controls": ["pe", "sentence", "d", "seed"], "schemes": ["none", "sinusoidal", "learned"]},
  "blocks": [
    {"type": "task", "id": "outputs-differ", "prompt": {"ja": "p", "en": "p"},
     "condition": {"widget": "out", "path": "result.maxAbsDiff", "gt": 0.001,
       "check": {"call": "permutationCheck",
                 "args": {"text": "$sentence", "causal": "$causal", "dModel": "$d", "seed": "$seed", "heads": "$heads", "returnAttention": false},
                 "free": {"pe": "lab.pe", "permutation": "chips.state.order"}, "path": "maxAbsDiff", "gt": 0.001}}}]})J");

json lab_with(std::initializer_list<std::pair<const char*, json>> changes) {
    json lab = {{"sentence", "犬が猫を追いかけた"}, {"pe", "sinusoidal"}, {"causal", false}, {"d", 8},
                {"seed", 0},  {"heads", 1},               {"weights", "random"}};
    for (const auto& [k, v] : changes) lab[k] = v;
    return lab;
}
json one_attempt(const json& answer, const json& lab) {
    return json::array({{{"question", "outputs-differ"}, {"answer", answer}, {"lab", lab}}});
}
}  // namespace

TEST(GradingHostile, TheLabIsCheckedAgainstTheExercisesControls) {
    EXPECT_EQ(lab_problem(kLabExercise, lab_with({})), "");
    EXPECT_EQ(lab_problem(kLabExercise, lab_with({{"sentence", "my own words here"}, {"d", 16}, {"seed", 7}})), "");
    // No mask control: causal is the exercise's (false).
    EXPECT_NE(lab_problem(kLabExercise, lab_with({{"causal", true}})), "");
    EXPECT_NE(lab_problem(kLabExercise, lab_with({{"pe", "rope"}})), "");      // not in schemes
    EXPECT_NE(lab_problem(kLabExercise, lab_with({{"heads", 2}})), "");        // no heads control
    EXPECT_NE(lab_problem(kLabExercise, lab_with({{"d", 4096}})), "");         // past the default range 1-64
    EXPECT_NE(lab_problem(kLabExercise, lab_with({{"d", 8.5}})), "");
    EXPECT_NE(lab_problem(kLabExercise, lab_with({{"seed", -1}})), "");
    EXPECT_NE(lab_problem(kLabExercise, lab_with({{"debug", true}})), "");
    std::string long_sentence;
    for (int i = 0; i < 100; ++i) long_sentence += "word ";
    EXPECT_NE(lab_problem(kLabExercise, lab_with({{"sentence", long_sentence}})), "");  // 100 tokens > 64
    json ranged = kLabExercise;
    ranged["lab"]["ranges"] = {{"d", {{"min", 2}, {"max", 4096}}}};
    EXPECT_EQ(lab_problem(ranged, lab_with({{"d", 4096}})), "");  // the exercise's own range

    // The cheat of issue 11: pe none plus the mask, or a scheme outside `schemes`, earns nothing.
    const json cheat = grade_exercise(kLabExercise, 1, one_attempt({{"pe", "none"}, {"permutation", {1, 0, 2, 3, 4, 5}}},
                                                                   lab_with({{"pe", "none"}, {"causal", true}})));
    EXPECT_EQ(cheat["points"], 0.0);
    ASSERT_EQ(cheat["rejected"].size(), 1u);
    EXPECT_EQ(cheat["rejected"][0]["status"], "lab_not_allowed");
    const json rope = grade_exercise(kLabExercise, 1, one_attempt({{"pe", "rope"}, {"permutation", {1, 0, 2, 3, 4, 5}}},
                                                                  lab_with({{"pe", "rope"}})));
    EXPECT_EQ(rope["points"], 0.0);
    EXPECT_EQ(rope["rejected"].size(), 1u);
    // The honest way still passes.
    const json fair = grade_exercise(kLabExercise, 1, one_attempt({{"pe", "sinusoidal"}, {"permutation", {1, 0, 2, 3, 4, 5}}},
                                                                  lab_with({})));
    EXPECT_EQ(fair["points"], 1.0);
    EXPECT_TRUE(fair["rejected"].empty());
}

// Each problem also comes as a stable code with parameters (the results page
// words it in ja/en); the English text is unchanged.
TEST(GradingHostile, LabProblemsCarryACodeAndParameters) {
    const Problem range = lab_detail(kLabExercise, lab_with({{"d", 4096}}));
    EXPECT_EQ(range.code, "setting_range");
    EXPECT_EQ(range.params, json({{"key", "d"}, {"min", "1"}, {"max", "64"}, {"value", "4096"}}));
    EXPECT_EQ(range.text, "lab: d must be from 1 to 64 in this exercise, got 4096");
    EXPECT_EQ(lab_detail(kLabExercise, lab_with({{"heads", 2}})).code, "setting_fixed");
    EXPECT_EQ(lab_detail(kLabExercise, lab_with({{"debug", true}})).params, json({{"key", "debug"}}));
    EXPECT_TRUE(lab_detail(kLabExercise, lab_with({})).empty());
    const json g = grade_exercise(kLabExercise, 1, one_attempt({{"pe", "rope"}, {"permutation", {1, 0, 2, 3, 4, 5}}},
                                                               lab_with({{"pe", "rope"}})));
    ASSERT_EQ(g["rejected"].size(), 1u);
    EXPECT_EQ(g["rejected"][0]["detail"]["code"], "pe_not_scheme");
    EXPECT_EQ(g["rejected"][0]["detail"]["params"]["value"], "\"rope\"");
    EXPECT_EQ(learner_id_detail("").code, "learner_empty");
    EXPECT_EQ(learner_id_detail(std::string(300, 'a')).params, json({{"bytes", 300}, {"max", 256}}));
}

TEST(GradingHostile, AttemptsPerQuestionAreCapped) {
    json attempts = json::array();
    for (std::size_t i = 0; i < kMaxAttemptsPerQuestion + 5; ++i)
        attempts.push_back({{"question", "property"}, {"answer", json::array({"invariance"})}});
    const json g = grade_exercise(kExercise, 1, attempts);
    ASSERT_EQ(g["rejected"].size(), 1u);
    EXPECT_EQ(g["rejected"][0]["status"], "too_many_attempts");
    EXPECT_EQ(g["rejected"][0]["count"], 5);
}

TEST(GradingHostile, LearnerIds) {
    EXPECT_EQ(learner_id_problem("s1234567"), "");
    EXPECT_EQ(learner_id_problem("山田 花子"), "");
    EXPECT_NE(learner_id_problem(""), "");
    EXPECT_NE(learner_id_problem("\xff\xfe"), "");
    EXPECT_NE(learner_id_problem("\xc0\xaf"), "");         // overlong '/'
    EXPECT_NE(learner_id_problem("\xed\xa0\x80"), "");     // a surrogate
    EXPECT_NE(learner_id_problem("a\rb"), "");
    EXPECT_NE(learner_id_problem(std::string(kMaxLearnerIdBytes + 1, 'a')), "");
}

TEST(GradingHostile, RtolIsRelativeToTheExpectedValueNotTheAnswer) {
    // numpy.isclose(a, b): |a - b| <= atol + rtol·|b|, b the expected value (worked by hand):
    EXPECT_TRUE(is_close(1.0, 2.0, 0.5, 0.0));   // |1 - 2| = 1 <= 0.5·2
    EXPECT_FALSE(is_close(2.0, 1.0, 0.5, 0.0));  // |2 - 1| = 1 >  0.5·1 (it would pass against 0.5·|answer|)
}

TEST(GradingHostile, ForeignExceptionsGetACodeAndAReadableMessage) {
    // What wasm used to report as code "error", message "std::bad_alloc" or "vector".
    const std::bad_alloc oom;
    const std::length_error len("vector");
    EXPECT_EQ(error_code(oom), "too_large");
    EXPECT_EQ(error_code(len), "too_large");
    EXPECT_NE(error_message(len).find("too large for the lab's memory"), std::string::npos);
    EXPECT_NE(error_message(oom).find("fewer tokens"), std::string::npos);
    EXPECT_EQ(error_code(std::runtime_error("x")), "");
    EXPECT_EQ(error_message(std::runtime_error("x")), "x");
}
