// RoPE context extension: each scaling rule against values worked out by
// hand (the arithmetic is in the comments), and the angle picture's
// "which pairs leave the trained range".
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "poslab/errors.hpp"
#include "poslab/rope_scaling.hpp"

namespace poslab {
namespace {

constexpr double kTwoPi = 6.283185307179586;

TEST(RopeScaling, ThetaByHand) {
    // d = 8, base 10^4: θᵢ = 10^(−4·2i/8) = 10^(−i): 1, 0.1, 0.01, 0.001.
    EXPECT_DOUBLE_EQ(rope_theta(8, 1e4, 0), 1.0);
    EXPECT_NEAR(rope_theta(8, 1e4, 1), 0.1, 1e-15);
    EXPECT_NEAR(rope_theta(8, 1e4, 3), 0.001, 1e-17);
}

TEST(RopeScaling, PositionInterpolationDividesPositions) {
    EXPECT_DOUBLE_EQ(pi_position(12.0, 4.0), 3.0);  // 12/4
    // θ'ᵢ = θᵢ/s: d 8, base 10^4, s 4 → 0.25, 0.025, 0.0025, 0.00025.
    RopeScalingParams p;
    p.s = 4;
    const ScaledRope r = scale_rope(8, 1e4, RopeScaling::pi, p);
    EXPECT_NEAR(r.theta[0], 0.25, 1e-15);
    EXPECT_NEAR(r.theta[3], 0.00025, 1e-18);
    EXPECT_EQ(r.logit_scale, 1.0);
}

TEST(RopeScaling, NtkBaseByHand) {
    // 10^4 · 4^(8/6) = 10^4 · 2^(8/3) = 10^4 · 4 · 2^(2/3) = 10^4 · 4 · 1.587401052 = 63496.042.
    EXPECT_NEAR(ntk_base(1e4, 4.0, 8), 63496.042, 1e-3);
    // d 6, base 1000, s 2: base' = 1000·2^(6/4) = 2828.427; θ'₀ = 1 (kept),
    // θ'₁ = 2828.427^(−1/3) = 0.1/√2 = 0.0707107, θ'₂ = 2828.427^(−2/3) = 0.01/2 (= PI).
    RopeScalingParams p;
    p.s = 2;
    const ScaledRope r = scale_rope(6, 1000, RopeScaling::ntk, p);
    EXPECT_NEAR(r.base_used, 2828.42712, 1e-4);
    EXPECT_NEAR(r.theta[0], 1.0, 1e-15);
    EXPECT_NEAR(r.theta[1], 0.0707107, 1e-7);
    EXPECT_NEAR(r.theta[2], 0.005, 1e-12);
    EXPECT_THROW(ntk_base(1e4, 2.0, 2), InvalidArgument);  // d/(d−2) undefined
}

TEST(RopeScaling, YarnTemperatureByHand) {
    EXPECT_DOUBLE_EQ(yarn_sqrt_inv_temperature(1.0), 1.0);                 // 0.1·ln 1 + 1
    EXPECT_NEAR(yarn_sqrt_inv_temperature(std::exp(1.0)), 1.1, 1e-15);     // 0.1·1 + 1
    EXPECT_NEAR(yarn_sqrt_inv_temperature(std::exp(2.0)), 1.2, 1e-15);
    RopeScalingParams p;
    p.s = std::exp(1.0);
    // logits × 1/t = (√(1/t))² = 1.1² = 1.21
    EXPECT_NEAR(scale_rope(8, 1e4, RopeScaling::yarn, p).logit_scale, 1.21, 1e-14);
}

TEST(RopeScaling, YarnRampByHand) {
    EXPECT_EQ(yarn_ramp(0.5, 1, 5), 0.0);
    EXPECT_EQ(yarn_ramp(3.0, 1, 5), 0.5);   // (3−1)/(5−1)
    EXPECT_EQ(yarn_ramp(2.0, 1, 5), 0.25);  // (2−1)/(5−1)
    EXPECT_EQ(yarn_ramp(6.0, 1, 5), 1.0);
    EXPECT_EQ(yarn_ramp(0.9, 1, 1), 0.0);  // an empty band: a step at α
    EXPECT_EQ(yarn_ramp(1.0, 1, 1), 1.0);
    // The paper's edges at the lab's scale: with L = 33 no pair turns 32 times
    // (the fastest turns 33/2π = 5.25 times), so β = 32 leaves the band empty.
    EXPECT_EQ(yarn_ramp(33.0 / kTwoPi, kYarnPaperAlpha, kYarnPaperBeta),
              (33.0 / kTwoPi - 1.0) / 31.0);
    // The lab's rescaled edges: α = 1, β = L/2π; L = 8π gives β = 4.
    EXPECT_EQ(yarn_edges(8 * M_PI).alpha, 1.0);
    EXPECT_NEAR(yarn_edges(8 * M_PI).beta, 4.0, 1e-14);
}

TEST(RopeScaling, YarnFrequenciesByHand) {
    // d 4, base 100: θ = 1, 0.1. L = 100, s = 2: β = 100/2π = 15.9155;
    // pair 0 turns 100/2π = β times → γ₀ = 1, θ'₀ = 1;
    // pair 1 turns 10/2π = 1.59155 → γ₁ = 0.59155/14.9155 = 0.0396601,
    // θ'₁ = (1−γ₁)·0.1/2 + γ₁·0.1 = 0.0480170 + 0.0039660 = 0.0519830.
    RopeScalingParams p;
    p.s = 2;
    p.trained_length = 100;
    const ScaledRope r = scale_rope(4, 100, RopeScaling::yarn, p);
    EXPECT_NEAR(r.beta, 15.9155, 1e-4);
    EXPECT_NEAR(r.ramp[0], 1.0, 1e-12);
    EXPECT_NEAR(r.ramp[1], 0.0396601, 1e-7);
    EXPECT_NEAR(r.theta[0], 1.0, 1e-12);
    EXPECT_NEAR(r.theta[1], 0.0519830, 1e-7);
    // (0.1·ln 2 + 1)² = 1.0693147² = 1.1434340
    EXPECT_NEAR(r.logit_scale, 1.1434340, 1e-7);
}

TEST(RopeScaling, LargerBaseSlowsEveryPairButTheFirst) {
    RopeScalingParams p;
    p.s = 2;
    p.new_base = 1e4;
    const ScaledRope r = scale_rope(4, 100, RopeScaling::base, p);  // θ' = 1, 10^4^(−1/2)
    EXPECT_NEAR(r.theta[0], 1.0, 1e-15);
    EXPECT_NEAR(r.theta[1], 0.01, 1e-15);
}

TEST(RopeAngleMap, PlainRopeLeavesOnlyWherePairsNeverTurned) {
    // d 4, base 100: θ = 1, 0.1. L = 10: pair 0 swept 10 rad ≥ 2π (every
    // angle seen); pair 1 swept [0, 1]. s = 2: positions 0 … 20.
    const RopeAngleMap m = rope_angle_map(4, 100, 10, 2.0, RopeScaling::none);
    ASSERT_EQ(m.positions, 21u);
    ASSERT_EQ(m.pairs, 2u);
    EXPECT_FALSE(m.leaves[0]);
    EXPECT_TRUE(m.leaves[1]);
    EXPECT_NEAR(m.angles[7 * 2 + 0], 7.0 - kTwoPi, 1e-12);  // 7 mod 2π = 0.716815
    EXPECT_NEAR(m.angles[15 * 2 + 1], 1.5, 1e-12);
    EXPECT_EQ(m.unseen[10 * 2 + 1], 0);  // 10·0.1 = 1.0: the edge was seen
    EXPECT_EQ(m.unseen[11 * 2 + 1], 1);  // 1.1 > 1
    EXPECT_NEAR(m.trained_span[1], 1.0, 1e-12);
    EXPECT_NEAR(m.max_angle[1], 2.0, 1e-12);
}

TEST(RopeAngleMap, PositionInterpolationStaysInside) {
    // θ'₁ = 0.05: 20·0.05 = 1.0 = the trained span, nothing unseen.
    const RopeAngleMap m = rope_angle_map(4, 100, 10, 2.0, RopeScaling::pi);
    EXPECT_FALSE(m.leaves[0]);
    EXPECT_FALSE(m.leaves[1]);
    EXPECT_NEAR(m.angles[20 * 2 + 1], 1.0, 1e-12);
    EXPECT_NEAR(m.angles[1 * 2 + 0], 0.5, 1e-12);  // neighbours s = 2 times closer
}

TEST(RopeAngleMap, NtkKeepsTheLastPairInsideButNotTheMiddle) {
    // d 6, base 1000, L 10, s 2 (θ' from NtkBaseByHand): pair 1 swept 1.0 in
    // training, now reaches 20·0.0707107 = 1.414 (first unseen at m = 15,
    // 15·0.0707107 = 1.0607 > 1 while 14·0.0707107 = 0.9900); pair 2 reaches
    // 20·0.005 = 0.1 = its span 10·0.01.
    const RopeAngleMap m = rope_angle_map(6, 1000, 10, 2.0, RopeScaling::ntk);
    EXPECT_FALSE(m.leaves[0]);
    EXPECT_TRUE(m.leaves[1]);
    EXPECT_FALSE(m.leaves[2]);
    EXPECT_EQ(m.unseen[14 * 3 + 1], 0);
    EXPECT_EQ(m.unseen[15 * 3 + 1], 1);
}

TEST(RopeAngleMap, YarnAndLargerBase) {
    // YaRN, d 4, base 100, L 10, s 2: β = 10/2π = 1.59; pair 0 turns 1.59 → kept;
    // pair 1 turns 0.159 < α → interpolated (0.05): nothing leaves.
    const RopeAngleMap y = rope_angle_map(4, 100, 10, 2.0, RopeScaling::yarn);
    EXPECT_FALSE(y.leaves[0]);
    EXPECT_FALSE(y.leaves[1]);
    EXPECT_NEAR(y.rope.theta[1], 0.05, 1e-15);
    // Larger base 10^4: θ'₁ = 0.01, 20·0.01 = 0.2 — but the trained model saw
    // pair 1 turn at 0.1 per position: the 0.2 lies inside [0, 1].
    const RopeAngleMap b = rope_angle_map(4, 100, 10, 2.0, RopeScaling::base, 1e4);
    EXPECT_FALSE(b.leaves[1]);
}

TEST(RopeAngleMap, RejectsBadInput) {
    EXPECT_THROW(rope_angle_map(5, 100, 10, 2.0, RopeScaling::none), InvalidArgument);    // odd d
    EXPECT_THROW(rope_angle_map(512, 100, 10, 2.0, RopeScaling::none), InvalidArgument);  // d > 256
    EXPECT_THROW(rope_angle_map(4, 1.0, 10, 2.0, RopeScaling::none), InvalidArgument);    // base ≤ 1
    EXPECT_THROW(rope_angle_map(4, 100, 10, 0.5, RopeScaling::pi), InvalidArgument);      // s < 1
    EXPECT_THROW(rope_angle_map(4, 100, 1000, 8.0, RopeScaling::pi), InvalidArgument);    // 8000 positions
    EXPECT_THROW(rope_angle_map(4, 100, 10, std::nan(""), RopeScaling::pi), InvalidArgument);
    EXPECT_THROW(parse_rope_scaling("rope"), InvalidArgument);
    EXPECT_EQ(parse_rope_scaling("yarn"), RopeScaling::yarn);
}

}  // namespace
}  // namespace poslab
