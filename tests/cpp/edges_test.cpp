// Edge cases per module, written for the mutants of issue #23 ("Test strength",
// tests/mutants/edges.txt and the tokenizer, api_json, code_questions and
// experiments lists): each expectation is worked out by hand from the rule the
// header or the docs state, at the boundary a plausible one-line bug would move.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "poslab/api_json.hpp"
#include "poslab/code_questions.hpp"
#include "poslab/errors.hpp"
#include "poslab/grading_internal.hpp"
#include "poslab/model.hpp"
#include "poslab/grading.hpp"
#include "poslab/tokenizer.hpp"

using namespace poslab;
using namespace poslab::grading;
using poslab::grading::internal::to_doubles;

namespace {
using Tokens = std::vector<std::string>;
const json kNone = json::object();
}  // namespace

// ---- the tokenizer's post-pass ------------------------------------------------

// docs/developers/tokenizer.md: a kanji ICU found no word for takes its okurigana
// up to an auxiliary, which stays a token of its own. When the hiragana after
// the kanji is the auxiliary whole (見|ま|した), the kanji is the verb stem alone.
TEST(TokenizerEdges, AnAuxiliaryThatIsTheWholeOkuriganaLeavesTheKanjiAlone) {
    EXPECT_EQ(tokens_from_segments({"見", "ま", "した"}), (Tokens{"見", "ました"}));
    EXPECT_EQ(tokens_from_segments({"見", "ま", "す"}), (Tokens{"見", "ます"}));
    EXPECT_EQ(tokens_from_segments({"猫", "を", "見", "ま", "した"}), (Tokens{"猫", "を", "見", "ました"}));
    // With okurigana before the auxiliary, as before: 食|べ|ま|した → 食べ|ました.
    EXPECT_EQ(tokens_from_segments({"食", "べ", "ま", "した"}), (Tokens{"食べ", "ました"}));
}

TEST(TokenizerEdges, TheWholeSentenceWithMimashita) {
    // Whatever ICU's segments, the tokens spell the text and end in 見|ました.
    const Tokens t = tokenize("犬を見ました");
    ASSERT_GE(t.size(), 2u);
    EXPECT_EQ(t[t.size() - 2], "見");
    EXPECT_EQ(t.back(), "ました");
}

TEST(TokenizerEdges, CaseFoldingReachesZ) {
    // A–Z fold to a–z, the last letter too.
    EXPECT_EQ(tokens_from_segments({"ZOO", " ", "Az"}), (Tokens{"zoo", "az"}));
    EXPECT_EQ(token_skeleton("XYZ"), "xyz");
}

TEST(TokenizerEdges, LatinOneFoldsButTheMultiplicationSignStays) {
    // À–Þ fold by +0x20 except × (U+00D7), which is no letter (+0x20 would make it ÷).
    EXPECT_EQ(token_skeleton("\u00C0\u00DE"), "\u00E0\u00FE");
    EXPECT_EQ(token_skeleton("2\u00D73"), "2\u00D73");
}

TEST(TokenizerEdges, DelAndTheC1ControlsAreRefused) {
    // U+007F and U+0080–U+009F are control characters; U+00A0 (no-break space) is not.
    for (const char* bad : {"a\x7F", "a\u0080", "a\u0085b", "a\u009F"}) {
        try {
            token_skeleton(bad);
            ADD_FAILURE() << "accepted a control character";
        } catch (const InvalidArgument& e) {
            EXPECT_EQ(e.code(), "bad_character");
        }
    }
    EXPECT_EQ(token_skeleton("a\u00A0b"), "ab");
}

TEST(TokenizerEdges, TheWholeHiraganaBlockIsOkurigana) {
    // U+3041–U+309F: a decomposed べ (へ + U+3099, the combining voiced mark) and the
    // iteration mark ゞ (U+309E) are hiragana, so they join the kanji before them.
    EXPECT_EQ(tokens_from_segments({"食", "へ\u3099", "た"}), (Tokens{"食へ\u3099", "た"}));
    EXPECT_EQ(tokens_from_segments({"見", "ゞ"}), (Tokens{"見ゞ"}));
}

// ---- grading_input: a submission's nesting, string lengths, learner ids ---------

TEST(InputEdges, NestingExactlyAtTheLimitIsAllowed) {
    EXPECT_EQ(json_text_problem("[[1]]", 2), "");
    EXPECT_NE(json_text_problem("[[[1]]]", 2), "");
    EXPECT_EQ(json_value_problem(json::parse("[[1]]"), 2), "");
    EXPECT_NE(json_value_problem(json::parse("[[[1]]]"), 2), "");
    EXPECT_EQ(json_value_detail(json::parse("[[[1]]]"), 2).code, "too_deep");
    EXPECT_EQ(json_value_problem(json::parse(R"({"a":{"b":1}})"), 2), "");
    EXPECT_NE(json_value_problem(json::parse(R"({"a":{"b":{"c":1}}})"), 2), "");
}

TEST(InputEdges, TheTextScanAndTheValueCheckAgreeOnDepth) {
    // A second reading of the same rule: nesting of [ and { outside strings.
    for (std::size_t depth = 1; depth <= 6; ++depth) {
        std::string text(depth, '[');
        text += "0";
        text += std::string(depth, ']');
        for (std::size_t max = 1; max <= 6; ++max) {
            const bool deep = depth > max;
            EXPECT_EQ(json_text_problem(text, max).empty(), !deep) << text << " max " << max;
            EXPECT_EQ(json_value_problem(json::parse(text), max).empty(), !deep) << text << " max " << max;
        }
    }
}

TEST(InputEdges, BracketsInsideStringsDoNotCountEvenAfterAnEscapedQuote) {
    // ["a\"[[[["]: one level; the brackets are inside the string.
    EXPECT_EQ(json_text_problem(R"(["a\"[[[["])", 1), "");
    EXPECT_EQ(json_text_problem(R"(["a\\", "[[[["])", 1), "");  // \\ is an escaped backslash: the quote closes
    EXPECT_NE(json_text_problem(R"(["a\\", [[1]]])", 2), "");
}

TEST(InputEdges, AStrayClosingBracketDoesNotHideTheNestingAfterIt) {
    // "]" at depth 0 is ignored (the parser refuses the text later); the three
    // "[" after it nest three deep.
    EXPECT_NE(json_text_problem("][[[", 2), "");
    EXPECT_EQ(json_text_problem("][[", 2), "");
}

TEST(InputEdges, StringsAndKeysExactlyAtTheLimit) {
    const std::string at(kMaxStringBytes, 'a'), past(kMaxStringBytes + 1, 'a');
    EXPECT_EQ(json_value_problem(json(at)), "");
    EXPECT_EQ(json_value_detail(json(past)).code, "long_string");
    EXPECT_EQ(json_value_detail(json(past)).params["bytes"], kMaxStringBytes + 1);
    EXPECT_EQ(json_value_problem(json{{at, 1}}), "");
    EXPECT_EQ(json_value_detail(json{{past, 1}}).code, "long_string");
    EXPECT_EQ(json_value_detail(json::array({1, json{{"k", past}}})).code, "long_string");
}

TEST(InputEdges, LearnerIdLengthExactlyAtTheLimit) {
    EXPECT_EQ(learner_id_problem(std::string(kMaxLearnerIdBytes, 'x')), "");
    EXPECT_EQ(learner_id_detail(std::string(kMaxLearnerIdBytes + 1, 'x')).code, "learner_too_long");
    // 85 × 3-byte あ = 255 bytes, allowed; 86 = 258 bytes, refused.
    std::string a85;
    for (int i = 0; i < 85; ++i) a85 += "あ";
    EXPECT_EQ(learner_id_problem(a85), "");
    EXPECT_EQ(learner_id_detail(a85 + "あ").code, "learner_too_long");
}

TEST(InputEdges, OverlongUtf8AndC1ControlsInLearnerIds) {
    EXPECT_EQ(learner_id_detail("a\xC0\xAF").code, "learner_not_utf8");          // '/' in two bytes
    EXPECT_EQ(learner_id_detail("a\xE0\x80\xAF").code, "learner_not_utf8");      // '/' in three
    EXPECT_EQ(learner_id_detail("a\xF0\x80\x80\xAF").code, "learner_not_utf8");  // and in four
    EXPECT_EQ(learner_id_detail("a\xED\xA0\x80").code, "learner_not_utf8");      // a surrogate
    EXPECT_EQ(learner_id_detail("a\xC2\x85" "b").code, "learner_control");       // U+0085 NEL
    EXPECT_EQ(learner_id_detail("a\xC2\x9F").code, "learner_control");           // U+009F
    EXPECT_EQ(learner_id_problem("a\xC2\xA0" "b"), "");                          // U+00A0 is printable
    EXPECT_EQ(learner_id_detail("a\x7F").code, "learner_control");
    EXPECT_EQ(learner_id_problem("Jos\xC3\xA9"), "");
}

// ---- grading_numeric: numbers as typed, partial credit, named mistakes ----------

TEST(NumericEdges, FullWidthDigitsAndSpaces) {
    EXPECT_EQ(parse_number("\xEF\xBC\x90"), 0.0);                          // ０
    EXPECT_EQ(parse_number("\xEF\xBC\x91\xEF\xBC\x92"), 12.0);             // １２
    EXPECT_EQ(parse_number("\xEF\xBC\x99\xEF\xBC\x8E\xEF\xBC\x95"), 9.5);  // ９．５
    EXPECT_EQ(parse_number("\xE3\x80\x80" "3"), 3.0);                      // ideographic space
    EXPECT_EQ(parse_number("\xC2\xA0" "3\xC2\xA0"), 3.0);                  // no-break spaces
}

TEST(NumericEdges, SignsExponentsAndTrailingText) {
    EXPECT_EQ(parse_number("+3"), 3.0);
    EXPECT_EQ(parse_number("-3"), -3.0);
    EXPECT_EQ(parse_number("+.5"), 0.5);
    EXPECT_EQ(parse_number("1e+2"), 100.0);
    EXPECT_EQ(parse_number("1E-2"), 0.01);
    EXPECT_FALSE(parse_number("1e"));
    EXPECT_FALSE(parse_number("1e+"));
    EXPECT_FALSE(parse_number("1.5x"));
    EXPECT_FALSE(parse_number("1.5.2"));
    EXPECT_FALSE(parse_number("--3"));
    EXPECT_FALSE(parse_number("3-"));
}

namespace {
// PE(0) of the sinusoidal encoding with d_model 2 is [sin 0, cos 0] = [0, 1], exactly.
json pe0(int index) {
    return json{{"call", "encoding"}, {"args", {{"length", 1}, {"dModel", 2}}}, {"pick", "encoding.data." + std::to_string(index)}};
}
json numeric_question() {
    return json{{"type", "numeric"},
                {"id", "pe0"},
                {"fields", {{{"label", "sin"}, {"expect", pe0(0)}}, {{"label", "cos"}, {"expect", pe0(1)}}}},
                {"tolerance", {{"atol", 0.01}}},
                // Two named mistakes without ids: the first pins field 1 to 5, the second to 7.
                {"mistakes",
                 {{{"expect", {nullptr, {{"call", "encoding"}, {"args", {{"length", 5}, {"dModel", 2}}}, {"pick", "encoding.shape.0"}}}},
                   {"feedback", {{"ja", "五"}, {"en", "five"}}}},
                  {{"expect", {nullptr, {{"call", "encoding"}, {"args", {{"length", 7}, {"dModel", 2}}}, {"pick", "encoding.shape.0"}}}},
                   {"feedback", {{"ja", "七"}, {"en", "seven"}}}}}}};
}
}  // namespace

TEST(NumericEdges, OneFieldOfTwoRightIsPartialAtHalfTheScore) {
    const json q = numeric_question();
    const AttemptResult both = check_attempt(q, json{"0", "1"}, kNone, kNone);
    EXPECT_EQ(both.status, "correct");
    EXPECT_EQ(both.score, 1.0);
    const AttemptResult one = check_attempt(q, json{"0", "3"}, kNone, kNone);
    EXPECT_EQ(one.status, "partial");
    EXPECT_EQ(one.score, 0.5);
    EXPECT_EQ(one.parts, (std::vector<bool>{true, false}));
    const AttemptResult none = check_attempt(q, json{"2", "3"}, kNone, kNone);
    EXPECT_EQ(none.status, "incorrect");
    EXPECT_EQ(none.score, 0.0);
}

TEST(NumericEdges, AMistakeWithoutAnIdIsNamedByItsOneBasedPlace) {
    const json q = numeric_question();
    const AttemptResult seven = check_attempt(q, json{"0", "7"}, kNone, kNone);
    ASSERT_TRUE(seven.mistake);
    EXPECT_EQ((*seven.mistake)["id"], "mistake-2");
    EXPECT_EQ((*seven.mistake)["index"], 2);
    EXPECT_EQ((*seven.feedback)["en"], "seven");
    const AttemptResult five = check_attempt(q, json{"0", "5"}, kNone, kNone);
    ASSERT_TRUE(five.mistake);
    EXPECT_EQ((*five.mistake)["id"], "mistake-1");
    EXPECT_FALSE(check_attempt(q, json{"0", "6"}, kNone, kNone).mistake);
}

// ---- grading_task: the re-run's error and thresholds -----------------------------

namespace {
// forward with a learned table of 1024 rows: three tokens from offset 1022 on pass the table's end.
json wall_task(json error, json free = json{{"positionOffset", {{"min", 0}, {"max", 2047}}}}) {
    return json{{"type", "task"},
                {"id", "wall"},
                {"condition",
                 {{"call", "forward"}, {"args", {{"text", "犬が猫"}, {"pe", "learned"}}}, {"free", free}, {"error", error}}}};
}
json past_table(json params = json{{"max_positions", 1024}}) { return json{{"code", "position_past_table"}, {"params", params}}; }
json threshold_task(const char* op, double value) {
    // encoding(length 1, dModel 2).data.1 = cos 0 = 1 exactly.
    return json{{"type", "task"},
                {"id", "t"},
                {"condition",
                 {{"call", "encoding"}, {"args", {{"length", 1}, {"dModel", 2}}}, {"free", json::array()}, {"path", "encoding.data.1"}, {op, value}}}};
}
}  // namespace

TEST(TaskEdges, TheErrorMustBeTheNamedOneWithEveryNamedParam) {
    const json at_end = json{{"positionOffset", 2047}};
    EXPECT_EQ(check_attempt(wall_task(past_table()), at_end, kNone, kNone).status, "correct");
    EXPECT_EQ(check_attempt(wall_task(past_table(json{{"max_positions", "1024"}})), at_end, kNone, kNone).status, "correct");
    // Another code, a param the error does not carry, a param with another value (number or text).
    EXPECT_EQ(check_attempt(wall_task(json{{"code", "bad_length"}}), at_end, kNone, kNone).status, "incorrect");
    EXPECT_EQ(check_attempt(wall_task(past_table(json{{"no_such_param", 1}})), at_end, kNone, kNone).status, "incorrect");
    EXPECT_EQ(check_attempt(wall_task(past_table(json{{"max_positions", 1023}})), at_end, kNone, kNone).status, "incorrect");
    EXPECT_EQ(check_attempt(wall_task(past_table(json{{"max_positions", "1023"}})), at_end, kNone, kNone).status, "incorrect");
    // No error at all (offset 0: positions 0..2 are in the table).
    EXPECT_EQ(check_attempt(wall_task(past_table()), json{{"positionOffset", 0}}, kNone, kNone).status, "incorrect");
}

TEST(TaskEdges, FreeSettingsAtTheirMinAndMaxAreAllowed) {
    const json q = wall_task(past_table());
    EXPECT_EQ(check_attempt(q, json{{"positionOffset", 0}}, kNone, kNone).status, "incorrect");   // checked, not malformed
    EXPECT_EQ(check_attempt(q, json{{"positionOffset", 2047}}, kNone, kNone).status, "correct");
    EXPECT_EQ(check_attempt(q, json{{"positionOffset", -1}}, kNone, kNone).status, "malformed");
    EXPECT_EQ(check_attempt(q, json{{"positionOffset", 2048}}, kNone, kNone).status, "malformed");
}

TEST(TaskEdges, GtAndLtAreStrict) {
    EXPECT_EQ(check_attempt(threshold_task("gt", 1.0), kNone, kNone, kNone).status, "incorrect");
    EXPECT_EQ(check_attempt(threshold_task("gt", 0.999), kNone, kNone, kNone).status, "correct");
    EXPECT_EQ(check_attempt(threshold_task("lt", 1.0), kNone, kNone, kNone).status, "incorrect");
    EXPECT_EQ(check_attempt(threshold_task("lt", 1.001), kNone, kNone, kNone).status, "correct");
}

// ---- grading_variants: the content hash, seeds, draws, substitution -------------

TEST(VariantEdges, TheHashReadsNumbersAsNumbersAndLeavesThePresenterOut) {
    // 1 and 1.0 are one number (js-yaml and yaml-cpp may read either).
    EXPECT_EQ(content_hash(json::parse(R"({"id":"e","n":1})")), content_hash(json::parse(R"({"id":"e","n":1.0})")));
    EXPECT_EQ(canonical_json(json::parse(R"({"n":[1,2.5]})")), R"({"n":[1.0,2.5]})");
    const json plain = json::parse(R"({"id":"e","n":1})");
    json talk = plain;
    talk["presenter"] = {{"minutes", 5}};
    EXPECT_EQ(content_hash(talk), content_hash(plain));
    EXPECT_NE(content_hash(json::parse(R"({"id":"e","n":2})")), content_hash(plain));
}

TEST(VariantEdges, TheSeedKeepsTheLearnerAndTheExerciseApart) {
    // ("ab", "c") and ("a", "bc") concatenate alike; the separator keeps them apart.
    EXPECT_NE(variant_seed("ab", "c", "0123456789abcdef"), variant_seed("a", "bc", "0123456789abcdef"));
    EXPECT_EQ(variant_seed("ab", "c", "0123456789abcdef"), variant_seed("ab", "c", "0123456789abcdef"));
}

TEST(VariantEdges, AnIntegerRangeUpsideDownIsRefused) {
    const json ex = json::parse(R"({"variants":{"k":{"kind":"integer","min":3,"max":2}}})");
    EXPECT_THROW(make_variant(ex, 1), InvalidArgument);
    const json one = json::parse(R"({"variants":{"k":{"kind":"integer","min":3,"max":3}}})");
    EXPECT_EQ(make_variant(one, 1)["k"], 3);
}

TEST(VariantEdges, AVectorReachesItsMaxWhenTheStepDividesTheRangeInDecimal) {
    // min 0, max 0.3, step 0.1: (0.3 − 0) / 0.1 is 2.9999999999999996 in doubles, but the
    // range holds four values 0, 0.1, 0.2, 0.3; in 200 draws each shows up.
    const json ex = json::parse(R"({"variants":{"v":{"kind":"vector","length":200,"min":0,"max":0.3,"step":0.1}}})");
    const json v = make_variant(ex, 7)["v"];
    ASSERT_EQ(v.size(), 200u);
    std::set<long> tenths;
    for (const json& x : v) {
        const double d = x.get<double>();
        EXPECT_NEAR(d * 10, std::round(d * 10), 1e-9);
        tenths.insert(std::lround(d * 10));
    }
    EXPECT_EQ(tenths, (std::set<long>{0, 1, 2, 3}));
}

TEST(VariantEdges, APermutationCanLeaveEveryItemInPlace) {
    // Fisher–Yates draws all n! orders; for n = 2 both [0,1] and [1,0] over 64 seeds.
    const json ex = json::parse(R"({"variants":{"p":{"kind":"permutation","length":2}}})");
    std::set<std::string> seen;
    for (std::uint32_t seed = 0; seed < 64; ++seed) seen.insert(make_variant(ex, seed)["p"].dump());
    EXPECT_EQ(seen, (std::set<std::string>{"[0,1]", "[1,0]"}));
    // n = 3: all six orders over 300 seeds.
    const json ex3 = json::parse(R"({"variants":{"p":{"kind":"permutation","length":3}}})");
    std::set<std::string> seen3;
    for (std::uint32_t seed = 0; seed < 300; ++seed) seen3.insert(make_variant(ex3, seed)["p"].dump());
    EXPECT_EQ(seen3.size(), 6u);
}

TEST(VariantEdges, ALoneDollarIsText) {
    EXPECT_EQ(substitute(json("$"), kNone, kNone, "ja"), json("$"));
    EXPECT_EQ(substitute(json{{"a", "$"}, {"b", "$x"}}, json{{"x", 4}}, kNone, "en"), (json{{"a", "$"}, {"b", 4}}));
    EXPECT_THROW(substitute(json("$y"), kNone, kNone, "ja"), InvalidArgument);
}

// ---- api_json: call_json's option checks and json_at_path ------------------------

namespace {
std::string code_of(const char* fn, const json& args) {
    try {
        call_json(fn, args);
    } catch (const InvalidArgument& e) {
        return e.code();
    }
    return "";
}
}  // namespace

TEST(ApiEdges, WholeNumbersMustBeWholeAndWithinTheirLimit) {
    EXPECT_EQ(code_of("encoding", {{"length", 2.5}, {"dModel", 2}}), "bad_option_type");
    EXPECT_EQ(code_of("encoding", {{"length", 2.0}, {"dModel", 2}}), "");
    // A seed is 32 bits: 2^32 − 1 is the largest.
    EXPECT_EQ(code_of("similarity", {{"scheme", "learned"}, {"length", 2}, {"seed", 4294967295.0}}), "");
    EXPECT_NE(code_of("similarity", {{"scheme", "learned"}, {"length", 2}, {"seed", 4294967296.0}}), "");
    // ropeRotate's position: 0 … kMaxPosition − 1.
    EXPECT_EQ(code_of("ropeRotate", {{"vector", {1, 0}}, {"position", double(kMaxPosition - 1)}}), "");
    EXPECT_NE(code_of("ropeRotate", {{"vector", {1, 0}}, {"position", double(kMaxPosition)}}), "");
}

TEST(ApiEdges, UnknownOptionsAndMissingOnesAreRefused) {
    EXPECT_NE(code_of("encoding", {{"length", 2}, {"dModel", 2}, {"bogus", 1}}), "");
    EXPECT_EQ(code_of("similarity", {{"scheme", "sinusoidal"}}), "missing_option");
    EXPECT_EQ(code_of("similarity", {{"length", 3}}), "missing_option");
    // A list of numbers with a string in it: the lab's error, not a JSON library's.
    EXPECT_EQ(code_of("ropeRotate", {{"vector", {"a", 1}}, {"position", 1}}), "bad_option_type");
}

TEST(ApiEdges, AMatrixShapeMustMatchItsDataAndRowsAreShapeOneLong) {
    EXPECT_EQ(code_of("forward", {{"vectors", {{"shape", {2, 2}}, {"data", {1, 2, 3}}}}, {"weights", "identity"}}), "bad_matrix");
    // One token: its softmax weight is 1, so identity attention returns the row itself: [3, 4].
    const json r = call_json("forward", {{"vectors", {{"shape", {1, 2}}, {"data", {3, 4}}}}, {"weights", "identity"}});
    EXPECT_EQ(to_doubles(json_at_path(r, "output.data")), json::parse("[3.0, 4.0]"));
}

TEST(ApiEdges, PathsReadMultiLetterKeysAndStopAtTheEndOfAList) {
    const json v = json::parse(R"({"ab":{"cd":[10, 20]}})");
    EXPECT_EQ(json_at_path(v, "ab.cd.1"), 20);
    EXPECT_THROW(json_at_path(v, "ab.cd.2"), InvalidArgument);
}

TEST(ApiEdges, MaskedScoresAreNullNotInfinity) {
    // Two tokens under the causal mask: exactly one score is masked (query 0, key 1), and
    // JSON has no −∞, so it is null; every other entry is a finite number.
    const json r = call_json("attentionSteps", {{"vectors", {{1, 0}, {0, 1}}}, {"causal", true}, {"weights", "identity"}});
    const json& data = json_at_path(r, "scores.data");
    ASSERT_EQ(data.size(), 4u);
    EXPECT_TRUE(data[1].is_null());
    for (const std::size_t i : {0u, 2u, 3u}) {
        ASSERT_TRUE(data[i].is_number());
        EXPECT_TRUE(std::isfinite(data[i].get<double>()));
    }
}

// ---- code_questions: comparison, tolerance, drawn sizes, the not-re-run path ------

namespace {
json pe_question(json tolerance = nullptr) {
    json q = {{"type", "code"}, {"id", "pe"}, {"function", "build_sinusoidal_encoding"}, {"params", {"seq_len", "d_model"}},
              {"cases", {{{"args", {2, 2}}}, {{"args", {1, 3}}, {"raises", "ValueError"}}}},
              {"hidden", {{{"count", 4}, {"sizes", {{"S", {3, 3}}, {"D", {2, 2}}}}, {"args", {"S", "D"}}}}}};
    if (!tolerance.is_null()) q["tolerance"] = tolerance;
    return q;
}
const double s1 = std::sin(1.0), c1 = std::cos(1.0);  // PE(1) for d_model 2: [sin 1, cos 1]
json ok_value(json v) { return json{{"ok", true}, {"value", v}}; }
}  // namespace

TEST(CodeEdges, TheFirstDifferenceIsNamedByItsPlace) {
    // PE for (2, 2) is [[0, 1], [sin 1, cos 1]]; the learner's cos 1 is off by 0.5.
    const json cases = json::array({json{{"args", {2, 2}}}});
    const json cmp = code_compare(pe_question(), cases, json::array({ok_value({{0, 1}, {s1, c1 + 0.5}})}), false);
    EXPECT_EQ(cmp["passed"], 0);
    EXPECT_EQ(cmp["cases"][0]["kind"], "value");
    EXPECT_EQ(cmp["cases"][0]["at"], json::parse("[1, 1]"));
    EXPECT_EQ(code_compare(pe_question(), cases, json::array({ok_value({{0, 1}, {s1, c1}})}), false)["passed"], 1);
}

TEST(CodeEdges, AQuestionsToleranceIsItsOwn) {
    const json cases = json::array({json{{"args", {1, 2}}}});  // PE for (1, 2) = [[0, 1]]
    // rtol 0.1: 1.05 is within 0.1·1 of 1.
    EXPECT_EQ(code_compare(pe_question({{"rtol", 0.1}}), cases, json::array({ok_value({{0, 1.05}})}), false)["passed"], 1);
    EXPECT_EQ(code_compare(pe_question(), cases, json::array({ok_value({{0, 1.05}})}), false)["passed"], 0);
    // atol alone means rtol 0: 0.0100005 off is past atol 0.01 (with the default rtol 1e-6 it would pass).
    EXPECT_EQ(code_compare(pe_question({{"atol", 0.01}}), cases, json::array({ok_value({{0, 1.0100005}})}), false)["passed"], 0);
    EXPECT_EQ(code_compare(pe_question({{"atol", 0.01}}), cases, json::array({ok_value({{0, 1.0099}})}), false)["passed"], 1);
}

TEST(CodeEdges, AnExpectedExceptionMustBeTheNamedOne) {
    const json cases = json::array({json{{"args", {1, 3}}, {"raises", "ValueError"}}});
    const json wrong = code_compare(pe_question(), cases, json::array({json{{"ok", false}, {"error", "TypeError"}}}), false);
    EXPECT_EQ(wrong["passed"], 0);
    EXPECT_EQ(wrong["cases"][0]["kind"], "wrong_exception");
    EXPECT_EQ(wrong["cases"][0]["want"], "ValueError");
    EXPECT_EQ(code_compare(pe_question(), cases, json::array({json{{"ok", false}, {"error", "ValueError"}}}), false)["passed"], 1);
}

TEST(CodeEdges, ASizeRangeOfOneValueDrawsThatValue) {
    const json hidden = code_cases(pe_question(), 5)["hidden"];
    ASSERT_EQ(hidden.size(), 4u);
    for (const json& c : hidden) EXPECT_EQ(c["args"], json::parse("[3, 2]"));
    // [2, 3] draws both ends over a few seeds.
    json q = pe_question();
    q["hidden"][0]["sizes"]["S"] = json::parse("[2, 3]");
    std::set<long long> seen;
    for (std::uint32_t seed = 0; seed < 16; ++seed) {
        const json drawn = code_cases(q, seed);
        for (const json& c : drawn["hidden"]) seen.insert(c["args"][0].get<long long>());
    }
    EXPECT_EQ(seen, (std::set<long long>{2, 3}));
}

TEST(CodeEdges, AnAttemptNotReRunCountsAndScoresZero) {
    const AttemptResult r = check_attempt(pe_question(), {{"code", "x"}, {"status", "not_rerun"}, {"reason", "budget"}}, kNone, kNone);
    EXPECT_EQ(r.status, "incorrect");
    EXPECT_EQ(r.score, 0.0);
    ASSERT_TRUE(r.detail);
    EXPECT_EQ((*r.detail)["kind"], "not_rerun");
    EXPECT_EQ((*r.detail)["reason"], "budget");
}

TEST(CodeEdges, MaskedSoftmaxOfLargeScoresIsStillAnAverage) {
    // Row 1 sees two equal scores of 1000: weights 1/2 each (e^1000 overflows unless the max is taken off).
    const json w = code_reference("masked_softmax", json::array({json::parse("[[1000, 0], [1000, 1000]]")}));
    EXPECT_DOUBLE_EQ(w[0][0].get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(w[1][0].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(w[1][1].get<double>(), 0.5);
}

// ---- experiments: the RoPE check's limit, the superposition spread ----------------

TEST(ExperimentEdges, TheShiftedPositionsCountTowardsTheLimit) {
    const double last = double(kMaxPosition - 1);
    EXPECT_EQ(code_of("ropeCheck", {{"dHead", 2}, {"m", last}, {"n", 0}, {"shift", 0}}), "");
    // m + shift = kMaxPosition: past the last position.
    EXPECT_EQ(code_of("ropeCheck", {{"dHead", 2}, {"m", last}, {"n", 0}, {"shift", 1}}), "position_limit");
    EXPECT_EQ(code_of("ropeCheck", {{"dHead", 2}, {"m", 0}, {"n", last}, {"shift", 1}}), "position_limit");
}

TEST(ExperimentEdges, OnePairHasNoSpread) {
    // The standard deviation of a single cosine is 0 (its mean is itself).
    const json r = call_json("superposition", {{"dims", {4, 16}}, {"pairs", 1}, {"vocab", 8}, {"positions", 8}, {"trials", 10}, {"seed", 3}});
    const json& rows = r.is_array() ? r : r.at("rows");
    ASSERT_EQ(rows.size(), 2u);
    for (const json& row : rows) EXPECT_EQ(row.at("cosineStd").get<double>(), 0.0);
}
