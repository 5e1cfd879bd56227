#include <gtest/gtest.h>

#include <cmath>

#include "poslab/errors.hpp"
#include "poslab/positional.hpp"
#include "reference.hpp"

using namespace poslab;

TEST(Sinusoidal, FirstRowsByHand) {
    const auto pe = sinusoidal_encoding(4, 4);
    // Position 0: sin 0 = 0 and cos 0 = 1 in every pair.
    EXPECT_FLOAT_EQ(pe(0, 0), 0.0f);
    EXPECT_FLOAT_EQ(pe(0, 1), 1.0f);
    EXPECT_FLOAT_EQ(pe(0, 2), 0.0f);
    EXPECT_FLOAT_EQ(pe(0, 3), 1.0f);
    // Pair 0 has frequency 1: PE(1, 0) = sin 1, PE(1, 1) = cos 1.
    EXPECT_NEAR(pe(1, 0), 0.8414709848, 1e-7);
    EXPECT_NEAR(pe(1, 1), 0.5403023059, 1e-7);
    // D = 4, pair 1: frequency 10000^(-2/4) = 1/100, so PE(2, 2) = sin(0.02).
    EXPECT_NEAR(pe(2, 2), 0.0199986667, 1e-7);
    EXPECT_NEAR(pe(2, 3), 0.9998000067, 1e-7);
}

TEST(Sinusoidal, MatchesTheGuidesFormulaAtManyPositions) {
    const std::size_t d = 512;
    const auto pe = sinusoidal_encoding(2048, d);
    for (std::size_t pos : {0u, 1u, 3u, 7u, 100u, 1023u, 1024u, 2047u})
        for (std::size_t dim : {0u, 1u, 2u, 3u, 20u, 21u, 254u, 255u, 510u, 511u})
            EXPECT_NEAR(pe(pos, dim), ref::sinusoidal(pos, dim, d), 2e-6) << "pos " << pos << " dim " << dim;
}

TEST(Sinusoidal, OffsetRowsEqualTheFullTable) {
    const auto full = sinusoidal_encoding(40, 16, 500.0);
    const auto tail = sinusoidal_encoding(8, 16, 500.0, 32);
    for (std::size_t r = 0; r < 8; ++r)
        for (std::size_t c = 0; c < 16; ++c) EXPECT_FLOAT_EQ(tail(r, c), full(32 + r, c));
    // Far positions still have values: nothing runs out.
    const auto far = sinusoidal_encoding(1, 8, kDefaultBase, 1000000);
    EXPECT_NEAR(far(0, 0), std::sin(1000000.0), 1e-5);
}

TEST(Sinusoidal, RejectsOddWidthAndBadBase) {
    try {
        sinusoidal_encoding(4, 7);
        FAIL();
    } catch (const InvalidArgument& e) {
        EXPECT_EQ(e.code(), "odd_width");
        EXPECT_NE(std::string(e.what()).find("got 7"), std::string::npos);
    }
    EXPECT_THROW(sinusoidal_encoding(4, 0), std::invalid_argument);
    EXPECT_THROW(sinusoidal_encoding(4, 8, 1.0), std::invalid_argument);
    EXPECT_THROW(sinusoidal_encoding(4, 8, NAN), std::invalid_argument);
}

TEST(Learned, TableHasGpt2InitialisationStatistics) {
    const auto table = learned_position_table(1024, 768, 7);
    ASSERT_EQ(table.shape(0), 1024u);
    ASSERT_EQ(table.shape(1), 768u);
    double sum = 0, sq = 0;
    for (float v : table) {
        sum += v;
        sq += double(v) * v;
    }
    const double n = double(table.size());
    const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
    EXPECT_NEAR(mean, 0.0, 0.0005);      // 786k samples: standard error 2.3e-5
    EXPECT_NEAR(sd, 0.02, 0.02 * 0.01);  // within 1%
}

TEST(Learned, RowsAreTheSameWhateverSliceIsAsked) {
    const auto table = learned_position_table(1024, 16, 3);
    const auto slice = learned_position_table(1024, 16, 3, 1000, 24);
    for (std::size_t r = 0; r < 24; ++r)
        for (std::size_t c = 0; c < 16; ++c) EXPECT_EQ(slice(r, c), table(1000 + r, c));
    const auto other_seed = learned_position_table(1024, 16, 4, 0, 1);
    EXPECT_NE(other_seed(0, 0), table(0, 0));
}

TEST(Learned, Position1023IsFinePosition1024IsTheWall) {
    EXPECT_NO_THROW(learned_position_table(1024, 768, 0, 1023, 1));
    try {
        learned_position_table(1024, 768, 0, 1020, 5);  // positions 1020..1024
        FAIL() << "position 1024 must not exist";
    } catch (const std::out_of_range& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("position 1024"), std::string::npos) << m;
        EXPECT_NE(m.find("1024 rows"), std::string::npos) << m;
        EXPECT_NE(m.find("0 to 1023"), std::string::npos) << m;
        const auto* typed = dynamic_cast<const OutOfRange*>(&e);
        ASSERT_NE(typed, nullptr);
        EXPECT_EQ(typed->code(), "position_past_table");
        EXPECT_EQ(typed->params().at("position"), "1024");
    }
    EXPECT_THROW(learned_position_table(1024, 8, 0, 5000, 1), std::out_of_range);
}

TEST(Rope, RotatesEachPairByItsAngle) {
    // One head of width 4 at position 2: pair 0 turns by 2 rad, pair 1 by 2/100 rad.
    xt::xtensor<float, 2> x = {{1, 0, 0, 1}};
    apply_rope(x, 1, kDefaultBase, {2});
    EXPECT_NEAR(x(0, 0), std::cos(2.0), 1e-6);
    EXPECT_NEAR(x(0, 1), std::sin(2.0), 1e-6);
    EXPECT_NEAR(x(0, 2), -std::sin(0.02), 1e-6);
    EXPECT_NEAR(x(0, 3), std::cos(0.02), 1e-6);
    EXPECT_DOUBLE_EQ(rope_angle(2, 1, 4), 0.02);
}

TEST(Rope, EveryHeadRotatesTheSameWayAndNormsAreKept) {
    xt::xtensor<float, 2> x = {{0.3f, -1.2f, 2.0f, 0.5f, 0.3f, -1.2f, 2.0f, 0.5f}};
    const double before = 0.3 * 0.3 + 1.2 * 1.2 + 4 + 0.25;
    apply_rope(x, 2, kDefaultBase, {37});
    for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(x(0, i), x(0, 4 + i));
    double after = 0;
    for (int i = 0; i < 4; ++i) after += double(x(0, i)) * x(0, i);
    EXPECT_NEAR(after, before, 1e-5);
}

TEST(Rope, ScoreDependsOnlyOnTheDistance) {
    const std::vector<float> q = {0.5f, -1.0f, 0.25f, 2.0f, -0.75f, 0.1f}, k = {1.5f, 0.5f, -0.2f, 0.3f, 1.0f, -2.0f};
    auto score = [&](std::size_t m, std::size_t n) {
        xt::xtensor<float, 2> qq({1, 6}), kk({1, 6});
        std::copy(q.begin(), q.end(), qq.begin());
        std::copy(k.begin(), k.end(), kk.begin());
        apply_rope(qq, 1, kDefaultBase, {m});
        apply_rope(kk, 1, kDefaultBase, {n});
        double s = 0;
        for (int i = 0; i < 6; ++i) s += double(qq(0, i)) * kk(0, i);
        return s;
    };
    EXPECT_NEAR(score(5, 2), score(105, 102), 1e-4);
    EXPECT_NEAR(score(5, 2), score(1005, 1002), 1e-4);
    EXPECT_GT(std::fabs(score(5, 2) - score(5, 3)), 1e-2);  // another distance, another score
}

TEST(Rope, RejectsOddHeadWidth) {
    xt::xtensor<float, 2> x = xt::zeros<float>({2, 6});
    EXPECT_THROW(apply_rope(x, 2, kDefaultBase), std::invalid_argument);  // d_head 3
    EXPECT_THROW(apply_rope(x, 4, kDefaultBase), std::invalid_argument);  // 4 does not divide 6
}

TEST(Alibi, SlopesForEightHeadsAreHalfToOne256th) {
    const auto s = alibi_slopes(8);
    ASSERT_EQ(s.size(), 8u);
    for (int h = 0; h < 8; ++h) EXPECT_DOUBLE_EQ(s[h], 1.0 / double(2 << h)) << h;  // 1/2, 1/4, …, 1/256
}

TEST(Alibi, SlopesForOtherHeadCounts) {
    // Powers of two: 2^{-8h/H}.
    const auto s4 = alibi_slopes(4);
    EXPECT_DOUBLE_EQ(s4[0], 0.25);
    EXPECT_DOUBLE_EQ(s4[3], 1.0 / 256);
    EXPECT_DOUBLE_EQ(alibi_slopes(1)[0], 1.0 / 256);
    // 12 heads (not a power of two): the 8-head slopes, then 16-head slopes 1, 3, 5, 7
    // (counting from 1), i.e. 2^{-0.5}, 2^{-1.5}, 2^{-2.5}, 2^{-3.5}.
    const auto s12 = alibi_slopes(12);
    ASSERT_EQ(s12.size(), 12u);
    for (int h = 0; h < 8; ++h) EXPECT_DOUBLE_EQ(s12[h], 1.0 / double(2 << h));
    EXPECT_NEAR(s12[8], std::pow(2.0, -0.5), 1e-15);
    EXPECT_NEAR(s12[9], std::pow(2.0, -1.5), 1e-15);
    EXPECT_NEAR(s12[10], std::pow(2.0, -2.5), 1e-15);
    EXPECT_NEAR(s12[11], std::pow(2.0, -3.5), 1e-15);
    EXPECT_THROW(alibi_slopes(0), std::invalid_argument);
}

TEST(Alibi, BiasIsMinusSlopeTimesDistance) {
    const auto b = alibi_bias(5, 0.5);
    EXPECT_FLOAT_EQ(b(0, 0), 0.0f);
    EXPECT_FLOAT_EQ(b(0, 4), -2.0f);
    EXPECT_FLOAT_EQ(b(4, 0), -2.0f);
    EXPECT_FLOAT_EQ(b(2, 3), -0.5f);
}

TEST(Names, ParseAndPrintEveryScheme) {
    for (const char* n : {"none", "sinusoidal", "learned", "rope", "alibi"})
        EXPECT_EQ(to_string(parse_position_scheme(n)), n);
    try {
        parse_position_scheme("Rope");
        FAIL();
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("allowed: none, sinusoidal, learned, rope, alibi"), std::string::npos);
    }
    EXPECT_THROW(parse_combine("stack"), std::invalid_argument);
}
