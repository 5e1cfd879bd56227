// RoPE context extension: each scaling rule against values worked out by
// hand (the arithmetic is in the comments), and the angle picture's
// "which pairs leave the trained range".
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
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
    EXPECT_EQ(yarn_edges(YarnEdgeRule::lab, 8 * M_PI).alpha, 1.0);
    EXPECT_NEAR(yarn_edges(YarnEdgeRule::lab, 8 * M_PI).beta, 4.0, 1e-14);
    // The paper's, at any L.
    EXPECT_EQ(yarn_edges(YarnEdgeRule::paper, 16).alpha, 1.0);
    EXPECT_EQ(yarn_edges(YarnEdgeRule::paper, 16).beta, 32.0);
    EXPECT_EQ(yarn_edges(YarnEdgeRule::paper, 4096).beta, 32.0);
}

TEST(RopeScaling, YarnFrequenciesByHand) {
    // d 4, base 100: θ = 1, 0.1. L = 100, s = 2: β = 100/2π = 15.9155;
    // pair 0 turns 100/2π = β times → γ₀ = 1, θ'₀ = 1;
    // pair 1 turns 10/2π = 1.59155 → γ₁ = 0.59155/14.9155 = 0.0396601,
    // θ'₁ = (1−γ₁)·0.1/2 + γ₁·0.1 = 0.0480170 + 0.0039660 = 0.0519830.
    RopeScalingParams p;
    p.s = 2;
    p.trained_length = 100;
    p.yarn_edges = YarnEdgeRule::lab;
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
    // YaRN (lab edges), d 4, base 100, L 10, s 2: β = 10/2π = 1.59; pair 0 turns 1.59 → kept;
    // pair 1 turns 0.159 < α → interpolated (0.05): nothing leaves.
    RopeAngleOptions lab;
    lab.yarn_edges = YarnEdgeRule::lab;
    const RopeAngleMap y = rope_angle_map(4, 100, 10, 2.0, RopeScaling::yarn, lab);
    EXPECT_NEAR(y.rope.theta[0], 1.0, 1e-15);
    EXPECT_FALSE(y.leaves[0]);
    EXPECT_FALSE(y.leaves[1]);
    EXPECT_NEAR(y.rope.theta[1], 0.05, 1e-15);
    // Larger base 10^4: θ'₁ = 0.01, 20·0.01 = 0.2 — but the trained model saw
    // pair 1 turn at 0.1 per position: the 0.2 lies inside [0, 1].
    RopeAngleOptions larger;
    larger.new_base = 1e4;
    const RopeAngleMap b = rope_angle_map(4, 100, 10, 2.0, RopeScaling::base, larger);
    EXPECT_FALSE(b.leaves[1]);
}

// The paper's ramp written out once more, plainly (Peng et al. 2023, §3.2):
// r = L/λ with λ = 2π/θ; γ = 0 below α, 1 above β, linear between;
// θ' = (1 − γ)·θ/s + γ·θ.
double plain_yarn_theta(std::size_t d, double base, std::size_t i, double L, double s, double alpha, double beta) {
    const double theta = std::pow(base, -2.0 * double(i) / double(d));
    const double wavelength = 2.0 * M_PI / theta;
    const double r = L / wavelength;
    double gamma;
    if (r < alpha)
        gamma = 0.0;
    else if (r > beta)
        gamma = 1.0;
    else
        gamma = (r - alpha) / (beta - alpha);
    return (1.0 - gamma) * theta / s + gamma * theta;
}

TEST(RopeScaling, YarnIsThePapersRampByDefault) {
    for (std::size_t d : {4u, 8u, 64u, 128u})
        for (double base : {100.0, 1e4, 5e5})
            for (double L : {16.0, 65.0, 1024.0, 4096.0})
                for (double s : {1.5, 2.0, 16.0}) {
                    RopeScalingParams p;
                    p.s = s;
                    p.trained_length = L;
                    const ScaledRope r = scale_rope(d, base, RopeScaling::yarn, p);
                    ASSERT_EQ(r.theta.size(), d / 2);
                    EXPECT_EQ(r.alpha, 1.0);
                    EXPECT_EQ(r.beta, 32.0);
                    for (std::size_t i = 0; i < d / 2; ++i)
                        EXPECT_NEAR(r.theta[i], plain_yarn_theta(d, base, i, L, s, 1.0, 32.0),
                                    1e-12 * r.original[i])
                            << "d " << d << " base " << base << " L " << L << " s " << s << " pair " << i;
                    // The lab's rule: β = L/2π.
                    p.yarn_edges = YarnEdgeRule::lab;
                    const ScaledRope q = scale_rope(d, base, RopeScaling::yarn, p);
                    EXPECT_NEAR(q.beta, L / (2 * M_PI), 1e-12 * L);
                    for (std::size_t i = 0; i < d / 2; ++i) {
                        const double want = L / (2 * M_PI) > 1.0
                                                ? plain_yarn_theta(d, base, i, L, s, 1.0, L / (2 * M_PI))
                                                : q.original[i] * (q.original[i] * L / (2 * M_PI) < 1.0 ? 1.0 / s : 1.0);
                        EXPECT_NEAR(q.theta[i], want, 1e-12 * q.original[i]) << "lab, L " << L << " pair " << i;
                    }
                }
}

TEST(RopeScaling, YarnAtTheExactRampEdges) {
    // d 4, base 100 → θ₀ = 1, r₀ = L/2π. Choose L so that r₀ sits on an edge.
    RopeScalingParams p;
    p.s = 4;
    p.yarn_alpha = 2.0;
    p.yarn_beta = 6.0;
    for (double r0 : {1.999, 2.0, 2.001, 4.0, 5.999, 6.0, 6.001}) {
        p.trained_length = r0 * 2 * M_PI;
        const ScaledRope r = scale_rope(4, 100, RopeScaling::yarn, p);
        // By hand: γ = 0 below 2, (r−2)/4 between, 1 above 6; θ' = (1−γ)/4 + γ.
        const double gamma = r0 <= 2.0 ? 0.0 : r0 >= 6.0 ? 1.0 : (r0 - 2.0) / 4.0;
        EXPECT_NEAR(r.ramp[0], gamma, 1e-9) << r0;
        EXPECT_NEAR(r.theta[0], (1 - gamma) * 0.25 + gamma, 1e-9) << r0;
        EXPECT_NEAR(r.theta[0], plain_yarn_theta(4, 100, 0, p.trained_length, 4, 2, 6), 1e-12) << r0;
    }
}

TEST(RopeScaling, ThePapersEdgesAtTheLabsScale) {
    // "With β = 32, YaRN would be PI for every pair" is not exact: at L = 16,
    // base 10⁴, d 8, pair 0 turns 16/2π = 2.546 times > α = 1, so
    // γ₀ = (2.546 − 1)/31 = 0.0499: 5 % kept, 95 % interpolated; the other
    // pairs turn < 1 time (γ = 0, exactly PI).
    RopeScalingParams p;
    p.s = 2;
    p.trained_length = 16;
    const ScaledRope r = scale_rope(8, 1e4, RopeScaling::yarn, p);
    EXPECT_NEAR(r.ramp[0], (16 / (2 * M_PI) - 1) / 31, 1e-12);
    EXPECT_NEAR(r.ramp[0], 0.0499, 1e-4);
    for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(r.ramp[i], 0.0) << i;
    EXPECT_NEAR(r.theta[0], (1 - r.ramp[0]) * 0.5 + r.ramp[0], 1e-15);
    // The lab's edges there: β = 2.546 = r₀, so pair 0 is kept whole.
    p.yarn_edges = YarnEdgeRule::lab;
    EXPECT_NEAR(scale_rope(8, 1e4, RopeScaling::yarn, p).theta[0], 1.0, 1e-12);
}

TEST(RopeScaling, YarnEdgesAreSettableAndChecked) {
    RopeScalingParams p;
    p.s = 2;
    p.trained_length = 64;
    p.yarn_beta = 8.0;  // α from the rule (1)
    ScaledRope r = scale_rope(4, 100, RopeScaling::yarn, p);
    EXPECT_EQ(r.alpha, 1.0);
    EXPECT_EQ(r.beta, 8.0);
    // r₀ = 64/2π = 10.19 > 8: kept; r₁ = 1.019: γ = 0.019/7.
    EXPECT_NEAR(r.ramp[1], (6.4 / (2 * M_PI) - 1) / 7, 1e-12);
    auto code_of = [](const RopeScalingParams& q) {
        try {
            scale_rope(4, 100, RopeScaling::yarn, q);
        } catch (const InvalidArgument& e) {
            return std::string(e.code()) + ": " + e.what();
        }
        return std::string("no error");
    };
    RopeScalingParams bad = p;
    bad.yarn_alpha = 8.0;  // α = β
    EXPECT_NE(code_of(bad).find("yarn_edges_order"), std::string::npos) << code_of(bad);
    EXPECT_NE(code_of(bad).find("less than yarnBeta"), std::string::npos) << code_of(bad);
    bad.yarn_alpha = 9.0;  // α > β
    EXPECT_NE(code_of(bad).find("yarn_edges_order"), std::string::npos);
    bad.yarn_alpha = -0.5;
    EXPECT_NE(code_of(bad).find("yarnAlpha must be a number from 0 to 10000"), std::string::npos) << code_of(bad);
    bad.yarn_alpha = std::nan("");
    EXPECT_NE(code_of(bad).find("yarnAlpha"), std::string::npos);
    bad.yarn_alpha = 1.0;
    bad.yarn_beta = std::numeric_limits<double>::infinity();
    EXPECT_NE(code_of(bad).find("yarnBeta must be a number from 0 to 10000"), std::string::npos) << code_of(bad);
    bad.yarn_beta = 10000.5;
    EXPECT_NE(code_of(bad).find("yarnBeta"), std::string::npos);
    bad.yarn_beta = 10000.0;
    EXPECT_EQ(code_of(bad), "no error");
    // Only an explicit β below the rule's α: the order error too.
    RopeScalingParams low;
    low.yarn_beta = 0.5;
    EXPECT_NE(code_of(low).find("yarn_edges_order"), std::string::npos);
    // The lab rule at L < 2π (β < 1 = α) is not an error: an empty band, a step at α.
    RopeScalingParams tiny;
    tiny.trained_length = 4;
    tiny.s = 2;
    tiny.yarn_edges = YarnEdgeRule::lab;
    r = scale_rope(4, 100, RopeScaling::yarn, tiny);  // r₀ = 0.64 < 1: PI
    EXPECT_NEAR(r.theta[0], 0.5, 1e-15);
    EXPECT_EQ(parse_yarn_edge_rule("paper"), YarnEdgeRule::paper);
    EXPECT_EQ(parse_yarn_edge_rule("lab"), YarnEdgeRule::lab);
    EXPECT_EQ(to_string(YarnEdgeRule::lab), "lab");
    EXPECT_EQ(to_string(YarnEdgeRule::paper), "paper");
    EXPECT_THROW(parse_yarn_edge_rule("Paper"), InvalidArgument);
    // The angle map takes them too.
    RopeAngleOptions o;
    o.yarn_alpha = 3.0;
    o.yarn_beta = 2.0;
    EXPECT_THROW(rope_angle_map(4, 100, 10, 2.0, RopeScaling::yarn, o), InvalidArgument);
    o.yarn_alpha = 0.0;
    EXPECT_EQ(rope_angle_map(4, 100, 10, 2.0, RopeScaling::yarn, o).rope.beta, 2.0);
}

TEST(RopeAngleMap, UnseenIsDecidedOnTheWrappedAngle) {
    // span 1.0: seen is [0, 1] mod 2π.
    EXPECT_FALSE(angle_unseen(0.0, 1.0));
    EXPECT_FALSE(angle_unseen(1.0, 1.0));             // the edge itself
    EXPECT_TRUE(angle_unseen(1.0 + 1e-6, 1.0));
    EXPECT_TRUE(angle_unseen(kTwoPi - 1e-6, 1.0));    // just before a full turn
    EXPECT_FALSE(angle_unseen(kTwoPi, 1.0));          // a full turn: angle 0
    EXPECT_FALSE(angle_unseen(-1e-12, 1.0));          // wraps to 2π − 10⁻¹², next to angle 0
    EXPECT_FALSE(angle_unseen(kTwoPi - 1e-12, 1.0));
    EXPECT_FALSE(angle_unseen(kTwoPi + 0.5, 1.0));    // turned past 2π, back inside
    EXPECT_FALSE(angle_unseen(kTwoPi + 1.0, 1.0));
    EXPECT_TRUE(angle_unseen(kTwoPi + 1.0 + 1e-6, 1.0));
    EXPECT_TRUE(angle_unseen(3 * kTwoPi + 3.0, 1.0));
    EXPECT_FALSE(angle_unseen(3.0, kTwoPi));          // the whole circle was seen
    EXPECT_FALSE(angle_unseen(3.0, 7.0));
    EXPECT_TRUE(angle_unseen(kTwoPi - 1e-3, kTwoPi - 2e-3));
    // d 4, base 100, L 10 (pair 1 swept [0, 1]), s 8: positions 0 … 80. Plain
    // RoPE: 62·0.1 = 6.2 is unseen; 63·0.1 = 6.3 − 2π = 0.0168 was seen
    // (position 0 … 1 swept it), though 6.3 > 1 unwrapped.
    const RopeAngleMap m = rope_angle_map(4, 100, 10, 8.0, RopeScaling::none);
    EXPECT_EQ(m.unseen[62 * 2 + 1], 1);
    EXPECT_EQ(m.unseen[63 * 2 + 1], 0);
    EXPECT_EQ(m.unseen[72 * 2 + 1], 0);  // 7.2 − 2π = 0.9168 ≤ 1: seen
    EXPECT_EQ(m.unseen[73 * 2 + 1], 1);  // 7.3 − 2π = 1.0168 > 1: unseen
}

// Brute force, independent of the span formula: the trained positions
// m' = 0 … L produced the angles m'·θ mod 2π; an angle a was seen when it
// lies on the arc from m'·θ to (m'+1)·θ for some m' = 0 … L−1.
bool brute_seen(double a, double theta, std::size_t L) {
    for (std::size_t m = 0; m < L; ++m) {
        double from = std::fmod(double(m) * theta, kTwoPi);
        double ahead = std::fmod(a - from, kTwoPi);
        if (ahead < 0) ahead += kTwoPi;
        if (ahead <= theta + 1e-9 || ahead >= kTwoPi - 1e-9) return true;
    }
    return false;
}

TEST(RopeAngleMap, UnseenMatchesABruteForceOverTrainedPositions) {
    std::size_t settings = 0, old_rule_wrong = 0, cells = 0;
    for (std::size_t d : {4u, 8u})
        for (double base : {100.0, 1e4})
            for (std::size_t L = 4; L <= 64; L += 3)
                for (double s : {1.5, 2.0, 3.0, 4.0, 8.0})
                    for (RopeScaling method :
                         {RopeScaling::none, RopeScaling::pi, RopeScaling::ntk, RopeScaling::yarn, RopeScaling::base}) {
                        const RopeAngleMap map = rope_angle_map(d, base, L, s, method);
                        bool old_differs = false;
                        ++settings;
                        for (std::size_t i = 0; i < map.pairs; ++i) {
                            const double theta = std::pow(base, -2.0 * double(i) / double(d));
                            const double scaled = map.rope.theta[i];
                            bool leaves = false, old_leaves = false;
                            for (std::size_t m = 0; m < map.positions; ++m) {
                                double a = std::fmod(double(m) * scaled, kTwoPi);
                                const bool unseen = !brute_seen(a, theta, L);
                                leaves = leaves || unseen;
                                // The old rule: the unwrapped angle past L·θ.
                                old_leaves = old_leaves || (L * theta < kTwoPi && m * scaled > L * theta * (1 + 1e-9));
                                ASSERT_EQ(map.unseen[m * map.pairs + i], unseen ? 1 : 0)
                                    << "d " << d << " base " << base << " L " << L << " s " << s << " "
                                    << to_string(method) << " pair " << i << " m " << m << " angle " << a;
                                ++cells;
                            }
                            EXPECT_EQ(map.leaves[i], leaves);
                            if (old_leaves != leaves) old_differs = true;
                        }
                        if (old_differs) ++old_rule_wrong;
                    }
    EXPECT_EQ(settings, 2u * 2 * 21 * 5 * 5);
    // Comparing unwrapped angles called some of these "leaving" wrongly.
    EXPECT_GT(old_rule_wrong, 0u);
    EXPECT_GT(cells, 100000u);
}

TEST(RopeAngleMap, EdgesOfTheInputsAreExact) {
    // s·L = 5·819 = 4095 positions past 0 is the most allowed; 4·1024 = 4096 is one too many.
    const RopeAngleMap m = rope_angle_map(2, 100, 819, 5.0, RopeScaling::none);
    EXPECT_EQ(m.positions, 4096u);
    EXPECT_THROW(rope_angle_map(2, 100, 1024, 4.0, RopeScaling::none), InvalidArgument);
    // A base just above 1 is allowed (the bound is exclusive), d = 2 is the narrowest.
    EXPECT_NO_THROW(rope_angle_map(2, 1.0001, 4, 1.0, RopeScaling::none));
    EXPECT_THROW(rope_angle_map(3, 100, 4, 1.0, RopeScaling::none), InvalidArgument);
    RopeScalingParams p;
    p.s = 2;
    EXPECT_THROW(scale_rope(7, 100, RopeScaling::pi, p), InvalidArgument);  // odd d
    // A negative angle is the same point of the circle as angle + 2π.
    EXPECT_TRUE(angle_unseen(-0.5, 1.0));    // 2π − 0.5 = 5.78: past the span 1
    EXPECT_FALSE(angle_unseen(-kTwoPi + 0.5, 1.0));  // 0.5: seen
    EXPECT_TRUE(angle_unseen(-kTwoPi + 1.5, 1.0));   // 1.5: past 1
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
