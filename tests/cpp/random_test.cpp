// The core's random numbers against a second implementation written here from
// the published definitions (SplitMix64, FNV-1a 64, Box–Muller) and their
// published test values, and the tables built from them (token embeddings, the
// learned position table) against that second implementation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "poslab/embedding.hpp"
#include "poslab/errors.hpp"
#include "poslab/positional.hpp"
#include "poslab/random.hpp"

using namespace poslab;

namespace {

// SplitMix64 (Steele, Lea, Flood 2014; Vigna's splitmix64.c).
struct SplitMix {
    std::uint64_t x;
    std::uint64_t next() {
        std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // 53 bits to a double in (0, 1), half a step off 0.
    double uniform() { return (double(next() >> 11) + 0.5) / 9007199254740992.0; }
};

// Box–Muller, both values: r·cos θ first, then r·sin θ.
std::vector<double> normals(SplitMix g, std::size_t n) {
    std::vector<double> out;
    while (out.size() < n) {
        const double u1 = g.uniform(), u2 = g.uniform();
        const double r = std::sqrt(-2.0 * std::log(u1)), t = 6.283185307179586 * u2;
        out.push_back(r * std::cos(t));
        out.push_back(r * std::sin(t));
    }
    out.resize(n);
    return out;
}

std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
    return SplitMix{a ^ (b * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull)}.next();
}

}  // namespace

TEST(Random, SplitMix64PublishedValues) {
    // splitmix64 from state 0: the first outputs published with the generator.
    Rng r(0);
    EXPECT_EQ(r.next_u64(), 0xe220a8397b1dcdafull);
    EXPECT_EQ(r.next_u64(), 0x6e789e6aa1b965f4ull);
    EXPECT_EQ(r.next_u64(), 0x06c45d188009454full);
    for (std::uint64_t seed : {1ull, 42ull, 0xdeadbeefull, ~0ull}) {
        Rng a(seed);
        SplitMix b{seed};
        for (int i = 0; i < 100; ++i) ASSERT_EQ(a.next_u64(), b.next()) << "seed " << seed << " draw " << i;
    }
}

TEST(Random, UniformIsTheTop53BitsPlusHalfAStep) {
    for (std::uint64_t seed : {0ull, 7ull, 123456789ull}) {
        Rng a(seed);
        SplitMix b{seed};
        for (int i = 0; i < 200; ++i) {
            const double u = a.uniform();
            ASSERT_EQ(u, b.uniform());
            ASSERT_GT(u, 0.0);
            ASSERT_LT(u, 1.0);
        }
    }
    // The smallest and largest values it can take, by hand: 0.5/2^53 and 1 − 0.5/2^53.
    EXPECT_EQ((double(0) + 0.5) / 9007199254740992.0, std::ldexp(1.0, -54));
}

TEST(Random, NormalIsBoxMullerUsingBothValues) {
    for (std::uint64_t seed : {0ull, 3ull, 99ull}) {
        Rng a(seed);
        const std::vector<double> want = normals(SplitMix{seed}, 101);
        for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(a.normal(), want[i], 1e-12) << "seed " << seed << " value " << i;
    }
}

TEST(Random, HashStringIsFnv1a64) {
    // The FNV-1a 64 test vectors (Fowler, Noll, Vo).
    EXPECT_EQ(hash_string(""), 0xcbf29ce484222325ull);
    EXPECT_EQ(hash_string("a"), 0xaf63dc4c8601ec8cull);
    EXPECT_EQ(hash_string("foobar"), 0x85944171f73967e8ull);
    for (const std::string& s : std::vector<std::string>{"犬", "the", "位置エンコーディング", std::string("a\0b", 3)}) EXPECT_EQ(hash_string(s), fnv1a(s)) << s;
}

TEST(Random, MixSeedOrderMattersAndMatchesItsDefinition) {
    for (std::uint64_t a : {0ull, 1ull, 77ull})
        for (std::uint64_t b : {0ull, 1ull, 5ull, 0x1ea2edull}) EXPECT_EQ(mix_seed(a, b), mix(a, b)) << a << "," << b;
    // a ^ b alone would make these equal.
    EXPECT_NE(mix_seed(1, 2), mix_seed(2, 1));
    EXPECT_NE(mix_seed(0, 3), mix_seed(3, 0));
}

TEST(Random, TokenEmbeddingRowsAreNormalsSeededByTokenAndSeed) {
    const std::vector<std::string> tokens = {"犬", "が", "猫", "犬"};
    const std::size_t d = 5;
    for (std::uint32_t seed : {0u, 9u}) {
        const auto e = token_embeddings(tokens, d, seed);
        ASSERT_EQ(e.shape(0), 4u);
        ASSERT_EQ(e.shape(1), d);
        for (std::size_t s = 0; s < tokens.size(); ++s) {
            const auto want = normals(SplitMix{mix(fnv1a(tokens[s]), seed)}, d);
            for (std::size_t j = 0; j < d; ++j) EXPECT_FLOAT_EQ(e(s, j), float(want[j])) << "seed " << seed << " token " << s;
        }
    }
    EXPECT_THROW(token_embeddings({"a"}, 0, 1), InvalidArgument);
    EXPECT_EQ(token_embeddings({"a"}, 1, 1).shape(1), 1u);
}

TEST(Random, LearnedPositionRowsAreSeededByTheirAbsolutePosition) {
    // Row r of a table starting at `first` is position first + r: 0.02 × normals seeded by it.
    for (std::size_t first : {0u, 3u}) {
        const auto t = learned_position_table(16, 6, 11, first, 4);
        for (std::size_t r = 0; r < 4; ++r) {
            const auto want = normals(SplitMix{mix(mix(11, 0x1ea2ed), first + r)}, 6);
            for (std::size_t j = 0; j < 6; ++j) EXPECT_FLOAT_EQ(t(r, j), float(0.02 * want[j])) << "first " << first << " row " << r;
        }
    }
}

TEST(MatrixFromRows, ValuesInPlaceAndEveryBadInputRefused) {
    const auto m = matrix_from_rows({{1, 2, 3}, {4, 5, 6}}, "vectors");
    ASSERT_EQ(m.shape(0), 2u);
    ASSERT_EQ(m.shape(1), 3u);
    EXPECT_EQ(m(0, 2), 3.0f);
    EXPECT_EQ(m(1, 0), 4.0f);
    EXPECT_EQ(m(1, 2), 6.0f);
    auto code = [](const std::vector<std::vector<double>>& rows) {
        try {
            matrix_from_rows(rows, "vectors");
        } catch (const InvalidArgument& e) {
            return std::string(e.code());
        }
        return std::string("none");
    };
    EXPECT_EQ(code({}), "empty_vectors");
    EXPECT_EQ(code({{}}), "empty_row");
    EXPECT_EQ(code({{1, 2}, {3}}), "ragged_vectors");
    EXPECT_EQ(code({{1, 2}, {3, 4, 5}}), "ragged_vectors");
    EXPECT_EQ(code({{1, INFINITY}}), "non_finite_value");
    EXPECT_EQ(code({{-INFINITY}}), "non_finite_value");
    EXPECT_EQ(code({{NAN}}), "non_finite_value");
    // Finite as a double, too big for a float (max ≈ 3.4e38).
    EXPECT_EQ(code({{3.5e38}}), "non_finite_value");
    EXPECT_EQ(code({{-3.5e38}}), "non_finite_value");
    EXPECT_EQ(code({{3.0e38, -3.0e38}}), "none");
}
