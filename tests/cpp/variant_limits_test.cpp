// make_variant on hostile exercise files: extreme ranges, huge lengths and
// fields of the wrong type are a bad_exercise naming the field, never a
// SIGFPE, a signed overflow or unbounded memory (issue 11, item 8).
#include <gtest/gtest.h>

#include <string>

#include "poslab/errors.hpp"
#include "poslab/grading.hpp"

using namespace poslab;
using namespace poslab::grading;

namespace {

// The message of the bad_exercise that make_variant throws for these variants.
std::string variant_error(const std::string& variants) {
    try {
        make_variant(json::parse("{\"variants\": " + variants + "}"), 1);
    } catch (const InvalidArgument& e) {
        EXPECT_EQ(e.code(), "bad_exercise") << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error for " << variants;
    return "";
}

}  // namespace

TEST(VariantLimits, TheFull64BitRangeIsRejectedNotDivided) {
    // hi − lo + 1 = 2^64 wrapped to 0 in the old code: a division by zero (SIGFPE).
    EXPECT_EQ(variant_error(R"({"n": {"kind": "integer", "min": -9223372036854775808, "max": 9223372036854775807}})"),
              "variants.n.min: must be a whole number from -9007199254740991 to 9007199254740991, got "
              "-9223372036854775808");
    // hi − lo overflows a signed 64-bit integer here (UB), though both ends fit.
    EXPECT_EQ(variant_error(R"({"n": {"kind": "integer", "min": -5, "max": 9223372036854775807}})"),
              "variants.n.max: must be a whole number from -9007199254740991 to 9007199254740991, got "
              "9223372036854775807");
    EXPECT_EQ(variant_error(R"({"n": {"kind": "integer", "min": 0, "max": 18446744073709551615}})"),
              "variants.n.max: must be a whole number from -9007199254740991 to 9007199254740991, got "
              "18446744073709551615");
    EXPECT_EQ(variant_error(R"({"n": {"kind": "integer", "min": 1e300, "max": 2e300}})"),
              "variants.n.min: must be a whole number from -9007199254740991 to 9007199254740991, got 1e+300");
}

TEST(VariantLimits, TheWidestAllowedRangeDrawsInsideIt) {
    const json ex = json::parse(R"({"variants": {"n": {"kind": "integer", "min": -9007199254740991, "max": 9007199254740991},
                                                 "one": {"kind": "integer", "min": 7, "max": 7.0}}})");
    bool negative = false, positive = false;
    for (std::uint32_t seed = 0; seed < 64; ++seed) {
        const json v = make_variant(ex, seed);
        const long long n = v["n"].get<long long>();
        EXPECT_LE(n, 9007199254740991LL);
        EXPECT_GE(n, -9007199254740991LL);
        negative = negative || n < 0;
        positive = positive || n > 0;
        EXPECT_EQ(v["one"], 7);
    }
    EXPECT_TRUE(negative && positive);  // both halves of the range are reached
}

TEST(VariantLimits, FieldsAreCheckedAndNamed) {
    EXPECT_EQ(variant_error(R"({"n": {"kind": "integer", "min": "1", "max": 5}})"),
              "variants.n.min: must be a whole number from -9007199254740991 to 9007199254740991, got \"1\"");
    EXPECT_EQ(variant_error(R"({"n": {"kind": "integer", "min": 1.5, "max": 5}})"),
              "variants.n.min: must be a whole number from -9007199254740991 to 9007199254740991, got 1.5");
    EXPECT_EQ(variant_error(R"({"n": {"kind": "integer", "max": 5}})"), "variants.n: needs 'min'");
    EXPECT_EQ(variant_error(R"({"n": {"kind": "integer", "min": 5, "max": 4}})"), "variants.n: max (4) is below min (5)");
    EXPECT_EQ(variant_error(R"({"n": [1, 2]})"), "variants.n: must be a mapping {kind, …}");
    EXPECT_EQ(variant_error(R"([1, 2])"), "variants: must be a mapping of name: {kind, …}");
    EXPECT_EQ(variant_error(R"({"n": {"kind": 3}})"),
              "variants.n.kind: unknown kind '3'; allowed: integer, choice, vector, permutation");
    EXPECT_EQ(variant_error(R"({"c": {"kind": "choice", "options": {}}})"), "variants.c.options: must be a non-empty list");
    EXPECT_EQ(variant_error(R"({"v": {"kind": "vector", "length": 2, "min": "a", "max": 1}})"),
              "variants.v.min: must be a number, got \"a\"");
}

TEST(VariantLimits, LengthsAndStepCountsAreBounded) {
    // A billion-entry permutation or vector asked 8 GB of the old code.
    EXPECT_EQ(variant_error(R"({"p": {"kind": "permutation", "length": 1000000000}})"),
              "variants.p.length: must be a whole number from 0 to 4096, got 1000000000");
    EXPECT_EQ(variant_error(R"({"p": {"kind": "permutation", "length": -1}})"),
              "variants.p.length: must be a whole number from 0 to 4096, got -1");
    EXPECT_EQ(variant_error(R"({"v": {"kind": "vector", "length": 4097, "min": 0, "max": 1}})"),
              "variants.v.length: must be a whole number from 0 to 4096, got 4097");
    // (max − min) / step = 2e608 → inf: the old code cast it to an integer (UB).
    const std::string steps = variant_error(R"({"v": {"kind": "vector", "length": 2, "min": -1e308, "max": 1e308, "step": 1e-300}})");
    EXPECT_EQ(steps.rfind("variants.v: (max − min) / step must be below 2^53", 0), 0u) << steps;
    const json ok = make_variant(json::parse(R"({"variants": {"p": {"kind": "permutation", "length": 4096},
                                                             "v": {"kind": "vector", "length": 3, "min": 0, "max": 1e15, "step": 1}}})"), 3);
    EXPECT_EQ(ok["p"].size(), 4096u);
    EXPECT_EQ(ok["v"].size(), 3u);
}

TEST(VariantLimits, NoVariantsOrAnEmptyMappingDrawNothing) {
    EXPECT_EQ(make_variant(json::parse(R"({"id": "x"})"), 1), json::object());
    EXPECT_EQ(make_variant(json::parse(R"({"variants": null})"), 1), json::object());
    EXPECT_EQ(make_variant(json::parse(R"({"variants": {}})"), 1), json::object());
}
