#include <gtest/gtest.h>

#include <cmath>

#include "poslab/errors.hpp"
#include "poslab/experiments.hpp"
#include "reference.hpp"

using namespace poslab;

TEST(PermutationCheck, VectorsInput) {
    ForwardOptions o;
    o.vectors = std::vector<std::vector<double>>{{1, 0}, {0, 1}};
    o.weights = WeightsKind::identity;
    const auto c = permutation_check(o, {1, 0});
    EXPECT_LT(c.max_abs_diff, 1e-7);
    EXPECT_NEAR(c.permuted.output(1, 0), 0.670, 5e-4);  // x1, now second, still gets (0.670, 0.330)
    o.pe = PositionScheme::sinusoidal;
    EXPECT_GT(permutation_check(o, {1, 0}).max_abs_diff, 1e-2);
}

TEST(PermutationCheck, AThreeCycleAgainstTheReference) {
    // [1, 2, 0] is not its own inverse: a check written against P⁻¹ would fail here.
    const ref::Mat x = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0.5, 0, 2, 1}};
    const std::vector<std::size_t> perm = {1, 2, 0};
    ForwardOptions o;
    o.vectors = std::vector<std::vector<double>>(x.begin(), x.end());
    o.weights = WeightsKind::identity;
    const auto c = permutation_check(o, perm);
    const ref::Attn before = ref::attention(x, 1, false);
    ref::Mat px;
    for (std::size_t i : perm) px.push_back(x[i]);
    const ref::Attn after = ref::attention(px, 1, false);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t d = 0; d < 4; ++d) {
            EXPECT_NEAR(c.original.output(i, d), before.output[i][d], 1e-5);
            EXPECT_NEAR(c.permuted.output(i, d), after.output[i][d], 1e-5);
            EXPECT_NEAR(after.output[i][d], before.output[perm[i]][d], 1e-9);  // equivariance, in the reference
        }
    EXPECT_LT(c.max_abs_diff, 1e-6);
    EXPECT_EQ(c.permutation, perm);
    // With position information the same 3-cycle changes the outputs.
    o.pe = PositionScheme::sinusoidal;
    EXPECT_GT(permutation_check(o, perm).max_abs_diff, 1e-3);
}

TEST(PermutationCheck, AThreeCycleOfTokens) {
    // Text input goes through the token path: row i of PX is token perm[i] of X.
    ForwardOptions o;
    o.text = "犬が猫";  // 犬, が, 猫
    const std::vector<std::size_t> perm = {1, 2, 0};
    const auto c = permutation_check(o, perm);
    EXPECT_EQ(c.permuted.tokens, (std::vector<std::string>{"が", "猫", "犬"}));
    EXPECT_LT(c.max_abs_diff, 1e-6);  // no position information: equivariant
}

TEST(PermutationCheck, RejectsBadPermutations) {
    ForwardOptions o;
    o.text = "犬が猫";
    EXPECT_THROW(permutation_check(o, {0, 1}), std::invalid_argument);
    EXPECT_THROW(permutation_check(o, {0, 1, 1}), std::invalid_argument);
    EXPECT_THROW(permutation_check(o, {0, 1, 3}), std::invalid_argument);
    EXPECT_NO_THROW(permutation_check(o, {2, 0, 1}));
}

TEST(RopeCheck, SameDistanceSameScore) {
    for (std::size_t shift : {1u, 10u, 1000u, 100000u}) {
        const auto r = rope_relative_check(64, 7, 3, shift, 42);
        EXPECT_LT(r.diff, 1e-3 * (1 + std::fabs(r.score))) << shift;
    }
    const auto a = rope_relative_check(8, 7, 3, 0, 1), b = rope_relative_check(8, 7, 4, 0, 1);
    EXPECT_GT(std::fabs(a.score - b.score), 1e-3);
    // Given q and k: with d_head 2 and q = k = (1, 0), the score is cos(m - n).
    const auto c = rope_relative_check(2, 5, 2, 9, 0, kDefaultBase, {1, 0}, {1, 0});
    EXPECT_NEAR(c.score, std::cos(3.0), 1e-6);
    EXPECT_NEAR(c.shifted_score, std::cos(3.0), 1e-5);
    EXPECT_THROW(rope_relative_check(3, 1, 0, 1, 0), std::invalid_argument);
    EXPECT_THROW(rope_relative_check(2, 1, 0, 1, 0, kDefaultBase, {1, 0}, {}), std::invalid_argument);
}

TEST(ShiftMatrix, MovesTheEncodingByK) {
    const std::size_t d = 16;
    for (std::size_t k : {1u, 5u, 100u}) {
        const auto m = sinusoidal_shift_matrix(k, d);
        for (std::size_t pos : {0u, 3u, 50u}) {
            for (std::size_t r = 0; r < d; ++r) {
                double v = 0;
                for (std::size_t c = 0; c < d; ++c) v += m(r, c) * ref::sinusoidal(pos, c, d);
                EXPECT_NEAR(v, ref::sinusoidal(pos + k, r, d), 2e-6) << "k " << k << " pos " << pos << " r " << r;
            }
        }
    }
    EXPECT_THROW(sinusoidal_shift_matrix(1, 5), std::invalid_argument);
}

TEST(Similarity, SinusoidalAndRopeHaveConstantDiagonalAndDependOnDistance) {
    const std::size_t d = 8, s = 12;
    const auto sin_sim = position_similarity(PositionScheme::sinusoidal, s, d);
    const auto rope_sim = position_similarity(PositionScheme::rope, s, d);
    for (std::size_t i = 0; i < s; ++i) {
        EXPECT_NEAR(sin_sim(i, i), d / 2.0, 1e-5);  // sin² + cos² = 1 per pair
        EXPECT_NEAR(rope_sim(i, i), d / 2.0, 1e-5);
        for (std::size_t j = 0; j + 1 < s && i + 1 < s; ++j) {
            EXPECT_NEAR(sin_sim(i, j), sin_sim(i + 1, j + 1), 1e-5);  // PE_i·PE_j = Σ cos((i-j)ω)
            EXPECT_NEAR(rope_sim(i, j), rope_sim(i + 1, j + 1), 1e-5);
        }
    }
    double expected = 0;
    for (std::size_t p = 0; p < d / 2; ++p) expected += std::cos(3.0 / std::pow(10000.0, 2.0 * p / d));
    EXPECT_NEAR(sin_sim(5, 2), expected, 1e-5);
    const auto alibi = position_similarity(PositionScheme::alibi, 4, d, kDefaultBase, 0, 1024, 8);
    EXPECT_FLOAT_EQ(alibi(0, 3), -1.5f);  // slope 1/2 × distance 3
    for (float v : position_similarity(PositionScheme::none, 4, d)) EXPECT_EQ(v, 0.0f);
    EXPECT_THROW(position_similarity(PositionScheme::learned, 2000, d), std::out_of_range);
}

TEST(AttentionSteps, TheHandCalculationStepByStep) {
    ForwardOptions o;
    o.vectors = std::vector<std::vector<double>>{{1, 0}, {0, 1}};
    o.weights = WeightsKind::identity;
    const auto s = attention_steps(o);
    EXPECT_FLOAT_EQ(s.dots(0, 0, 0), 1.0f);  // x1·x1
    EXPECT_FLOAT_EQ(s.dots(0, 0, 1), 0.0f);  // x1·x2
    EXPECT_NEAR(s.scores(0, 0, 0), 1 / std::sqrt(2.0), 1e-7);  // 0.707
    EXPECT_NEAR(s.weights(0, 0, 0), 0.670, 5e-4);
    EXPECT_NEAR(s.output(0, 0), 0.670, 5e-4);
    // The usual mistakes: no scaling gives e/(e+1) = 0.731; dividing by d_k gives e^0.5/(e^0.5+1) = 0.622.
    EXPECT_NEAR(attention_steps(o, ScoreScale::none).weights(0, 0, 0), std::exp(1.0) / (std::exp(1.0) + 1), 1e-6);
    EXPECT_NEAR(attention_steps(o, ScoreScale::dk).weights(0, 0, 0), std::exp(0.5) / (std::exp(0.5) + 1), 1e-6);
    EXPECT_THROW(parse_score_scale("sqrt"), std::invalid_argument);
}

TEST(AttentionSteps, AgreeWithTheForwardPassForEveryScheme) {
    for (PositionScheme pe : {PositionScheme::none, PositionScheme::sinusoidal, PositionScheme::learned,
                              PositionScheme::rope, PositionScheme::alibi}) {
        for (bool causal : {false, true}) {
            ForwardOptions o;
            o.text = "The keys on the table are lost.";
            o.pe = pe;
            o.causal = causal;
            o.d_model = 8;
            o.heads = 2;
            o.seed = 4;
            const auto s = attention_steps(o);
            for (std::size_t i = 0; i < s.weights.size(); ++i)
                ASSERT_NEAR(s.weights.data()[i], s.forward.attention.data()[i], 1e-6) << to_string(pe);
            for (std::size_t i = 0; i < s.output.size(); ++i)
                ASSERT_NEAR(s.output.data()[i], s.forward.output.data()[i], 1e-5) << to_string(pe);
        }
    }
}

TEST(AlibiBiasTable, EveryHeadWithItsSlope) {
    const auto b = alibi_bias_table(4, 8);
    ASSERT_EQ(b.shape(0), 8u);
    for (std::size_t h = 0; h < 8; ++h) {
        const double m = 1.0 / double(2 << h);  // 1/2 … 1/256
        EXPECT_FLOAT_EQ(b(h, 0, 3), float(-3 * m));
        EXPECT_FLOAT_EQ(b(h, 2, 2), 0.0f);
    }
    EXPECT_THROW(alibi_bias_table(0, 8), std::invalid_argument);
    EXPECT_THROW(alibi_bias_table(4, 65), std::invalid_argument);
}

// The superposition experiment: the cosine of two independent N(0, I_D)
// vectors has mean 0 and variance exactly 1/D (a known result: c·√D → N(0, 1)),
// so its spread shrinks as 1/√D; token and position recovered from their sum
// go from chance at D = 1 to certain at D = 512.
TEST(Superposition, CosinesSpreadAsOneOverRootDAndSumsToPairs) {
    const auto rows = superposition_experiment({4, 64, 512}, 64, 16, 50, 20000, 40, 7);
    ASSERT_EQ(rows.size(), 3u);
    for (const auto& r : rows) {
        std::size_t total = 0;
        for (std::size_t c : r.histogram) total += c;
        EXPECT_EQ(total, 20000u);
        const double want = 1.0 / std::sqrt(double(r.d_model));
        EXPECT_NEAR(r.cosine_std, want, 0.03 * want) << "D = " << r.d_model;
        // Symmetric about 0: the two halves hold about as many.
        std::size_t low = 0;
        for (std::size_t b = 0; b < 20; ++b) low += r.histogram[b];
        EXPECT_NEAR(double(low) / 20000.0, 0.5, 0.02);
    }
    // At D = 512 nothing falls outside |cos| < 0.3 (that is 6.8 standard deviations).
    const auto& wide = rows[2].histogram;
    for (std::size_t b = 0; b < 40; ++b)
        if (b < 14 || b >= 26) EXPECT_EQ(wide[b], 0u) << "bin " << b;
}

TEST(Superposition, RecoveryFromTheSumGrowsWithWidth) {
    const auto rows = superposition_experiment({1, 8, 512}, 256, 64, 400, 10, 10, 3);
    // D = 1: the cosine is ±1, so "nearest" is any row of the same sign: near chance.
    EXPECT_LT(rows[0].token_recovery, 0.05);
    EXPECT_LT(rows[0].position_recovery, 0.1);
    EXPECT_GT(rows[1].token_recovery, rows[0].token_recovery);
    EXPECT_EQ(rows[2].token_recovery, 1.0);
    EXPECT_EQ(rows[2].position_recovery, 1.0);
    // Deterministic per seed; another seed draws other tables.
    const auto again = superposition_experiment({1, 8, 512}, 256, 64, 400, 10, 10, 3);
    EXPECT_EQ(again[1].token_recovery, rows[1].token_recovery);
    EXPECT_EQ(again[1].histogram, rows[1].histogram);
    const auto other = superposition_experiment({8}, 256, 64, 400, 2000, 10, 4);
    const auto same_d = superposition_experiment({8}, 256, 64, 400, 2000, 10, 3);
    EXPECT_NE(other[0].histogram, same_d[0].histogram);
}

TEST(Superposition, RejectsWorkOutsideItsLimits) {
    for (auto bad : {std::vector<std::size_t>{}, std::vector<std::size_t>{0}, std::vector<std::size_t>{2048},
                     std::vector<std::size_t>(9, 8)}) {
        try {
            superposition_experiment(bad, 16, 16, 10, 10, 10, 0);
            ADD_FAILURE() << "accepted dims of size " << bad.size();
        } catch (const InvalidArgument& e) {
            EXPECT_EQ(e.code(), "out_of_range_option");
        }
    }
    EXPECT_THROW(superposition_experiment({8}, 1, 16, 10, 10, 10, 0), InvalidArgument);
    EXPECT_THROW(superposition_experiment({8}, 16, 16, 3000, 10, 10, 0), InvalidArgument);
    EXPECT_THROW(superposition_experiment({8}, 16, 16, 10, 10, 1, 0), InvalidArgument);
}
