#include <gtest/gtest.h>

#include <cmath>

#include "poslab/attention.hpp"
#include "poslab/errors.hpp"
#include "poslab/positional.hpp"
#include "poslab/random.hpp"
#include "reference.hpp"
#include "support.hpp"

using namespace poslab;

namespace {

using support::as_mat;
using support::batch_of;

ref::Mat random_rows(std::size_t s, std::size_t d, std::uint64_t seed, double scale = 1.0) {
    Rng rng(seed);
    ref::Mat m = ref::zeros(s, d);
    for (auto& row : m)
        for (auto& v : row) v = scale * rng.normal();
    return m;
}

void expect_close(const AttentionResult& got, const ref::Attn& want, double tol) {
    const std::size_t heads = want.weights.size(), s = want.output.size(), d = want.output[0].size();
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t i = 0; i < s; ++i)
            for (std::size_t j = 0; j < s; ++j)
                ASSERT_NEAR(got.weights(0, h, i, j), want.weights[h][i][j], tol) << h << "," << i << "," << j;
    for (std::size_t i = 0; i < s; ++i)
        for (std::size_t j = 0; j < d; ++j) ASSERT_NEAR(got.output(0, i, j), want.output[i][j], tol) << i << "," << j;
}

}  // namespace

TEST(Attention, TheSeedsHandCalculation) {
    // x1 = (1,0), x2 = (0,1), W = I, d_k = 2: scores 1/√2 ≈ 0.707 and 0;
    // softmax: e^0.707 / (e^0.707 + 1) = 2.028 / 3.028 ≈ 0.670.
    const double w = std::exp(1 / std::sqrt(2.0)) / (std::exp(1 / std::sqrt(2.0)) + 1);
    EXPECT_NEAR(w, 0.670, 5e-4);
    AttentionOptions o;
    const auto r = self_attention(batch_of({{1, 0}, {0, 1}}), make_attention_weights(WeightsKind::identity, 2, 0), o);
    EXPECT_NEAR(r.weights(0, 0, 0, 0), w, 1e-6);
    EXPECT_NEAR(r.weights(0, 0, 0, 1), 1 - w, 1e-6);
    EXPECT_NEAR(r.output(0, 0, 0), w, 1e-6);      // x1's output (0.670, 0.330)
    EXPECT_NEAR(r.output(0, 0, 1), 1 - w, 1e-6);
    // The other order: x1 is now row 1, and its output is the same (0.670, 0.330).
    const auto swapped =
        self_attention(batch_of({{0, 1}, {1, 0}}), make_attention_weights(WeightsKind::identity, 2, 0), o);
    EXPECT_NEAR(swapped.weights(0, 0, 1, 0), 1 - w, 1e-6);
    EXPECT_NEAR(swapped.output(0, 1, 0), w, 1e-6);
    EXPECT_NEAR(swapped.output(0, 1, 1), 1 - w, 1e-6);
}

TEST(Attention, RandomWeightsMatchTheReference) {
    for (std::size_t heads : {1u, 2u, 4u}) {
        const std::size_t s = 7, d = 8;
        const ref::Mat x = random_rows(s, d, 11 + heads);
        const AttentionWeights w = make_attention_weights(WeightsKind::random, d, 5);
        AttentionOptions o;
        o.heads = heads;
        const auto got = self_attention(batch_of(x), w, o);
        const auto want = ref::attention(x, heads, false, as_mat(w.wq), as_mat(w.wk), as_mat(w.wv), as_mat(w.wo));
        expect_close(got, want, 1e-5);
    }
}

// Random weights: W_Q, W_K, W_V, W_O are four independent N(0, 1/D) draws. Were
// W_K the same as W_Q, every score q_i·k_j would equal q_j·k_i: the score
// matrix (before the mask and softmax) would be symmetric.
TEST(Attention, RandomWeightsAreFourDifferentDraws) {
    const std::size_t d = 16;
    const AttentionWeights w = make_attention_weights(WeightsKind::random, d, 9);
    const xt::xtensor<float, 2>* m[] = {&w.wq, &w.wk, &w.wv, &w.wo};
    for (int a = 0; a < 4; ++a) {
        double sum = 0, sum2 = 0;
        for (float v : *m[a]) sum += v, sum2 += double(v) * v;
        EXPECT_NEAR(sum / (d * d), 0.0, 0.03) << a;
        EXPECT_NEAR(sum2 / (d * d), 1.0 / d, 0.25 / d) << a;  // variance 1/D
        for (int b = a + 1; b < 4; ++b) EXPECT_NE(*m[a], *m[b]) << a << " vs " << b;
    }
    // Scores of two different rows x_i, x_j: (x_i W_Q)·(x_j W_K) ≠ (x_j W_Q)·(x_i W_K).
    const ref::Mat x = random_rows(2, d, 3);
    const ref::Mat q = ref::matmul(x, as_mat(w.wq)), k = ref::matmul(x, as_mat(w.wk));
    double s01 = 0, s10 = 0;
    for (std::size_t c = 0; c < d; ++c) s01 += q[0][c] * k[1][c], s10 += q[1][c] * k[0][c];
    EXPECT_GT(std::fabs(s01 - s10), 1e-3);
}

TEST(Attention, CausalMaskZerosTheFutureAndRowsSumToOne) {
    const std::size_t s = 9, d = 6;
    const ref::Mat x = random_rows(s, d, 3);
    AttentionOptions o;
    o.causal = true;
    o.heads = 3;
    const auto w = make_attention_weights(WeightsKind::random, d, 1);
    const auto r = self_attention(batch_of(x), w, o);
    for (std::size_t h = 0; h < 3; ++h)
        for (std::size_t i = 0; i < s; ++i) {
            double sum = 0;
            for (std::size_t j = 0; j < s; ++j) {
                if (j > i) {
                    EXPECT_EQ(r.weights(0, h, i, j), 0.0f) << i << "," << j;
                }
                sum += r.weights(0, h, i, j);
            }
            EXPECT_NEAR(sum, 1.0, 1e-6);
        }
    EXPECT_FLOAT_EQ(r.weights(0, 0, 0, 0), 1.0f);  // the first token sees only itself
    expect_close(r, ref::attention(x, 3, true, as_mat(w.wq), as_mat(w.wk), as_mat(w.wv), as_mat(w.wo)), 1e-5);
    const auto mask = causal_mask(3);
    EXPECT_EQ(mask(0, 0), 0.0f);
    EXPECT_EQ(mask(2, 1), 0.0f);
    EXPECT_TRUE(std::isinf(mask(1, 2)) && mask(1, 2) < 0);
}

TEST(Attention, AlibiAndRopeMatchTheReference) {
    const std::size_t s = 6, d = 8, heads = 2;
    const ref::Mat x = random_rows(s, d, 21);
    const auto w = make_attention_weights(WeightsKind::random, d, 9);
    AttentionOptions o;
    o.heads = heads;
    o.alibi = true;
    expect_close(self_attention(batch_of(x), w, o),
                 ref::attention(x, heads, false, as_mat(w.wq), as_mat(w.wk), as_mat(w.wv), as_mat(w.wo),
                                {1.0 / 16, 1.0 / 256}),
                 1e-5);
    o.alibi = false;
    o.rope = true;
    o.position_offset = 40;
    expect_close(self_attention(batch_of(x), w, o),
                 ref::attention(x, heads, false, as_mat(w.wq), as_mat(w.wk), as_mat(w.wv), as_mat(w.wo), {}, true,
                                10000.0, 40),
                 1e-5);
}

TEST(Attention, SoftmaxIsStableForLargeScores) {
    AttentionOptions o;
    const auto r = self_attention(batch_of({{1000, 0}, {0, 1000}, {-1000, 5}}),
                                  make_attention_weights(WeightsKind::identity, 2, 0), o);
    for (float v : r.weights) EXPECT_TRUE(std::isfinite(v));
    EXPECT_NEAR(r.weights(0, 0, 0, 0), 1.0f, 1e-6);  // 1000²/√2 dominates
    EXPECT_NEAR(r.weights(0, 0, 1, 1), 1.0f, 1e-6);
}

TEST(Attention, WeightsCanBeLeftOut) {
    AttentionOptions o;
    o.return_weights = false;
    const auto w = make_attention_weights(WeightsKind::random, 4, 2);
    const auto without = self_attention(batch_of(random_rows(5, 4, 8)), w, o);
    o.return_weights = true;
    const auto with = self_attention(batch_of(random_rows(5, 4, 8)), w, o);
    EXPECT_EQ(without.weights.size(), 0u);
    for (std::size_t i = 0; i < with.output.size(); ++i) EXPECT_FLOAT_EQ(without.output.data()[i], with.output.data()[i]);
}

TEST(Attention, BadInputIsRejected) {
    AttentionOptions o;
    o.heads = 3;
    const auto w = make_attention_weights(WeightsKind::identity, 4, 0);
    try {
        self_attention(batch_of(random_rows(2, 4, 1)), w, o);
        FAIL();
    } catch (const InvalidArgument& e) {
        EXPECT_EQ(e.code(), "heads_not_dividing");
        EXPECT_NE(std::string(e.what()).find("heads (3) must divide the model width 4"), std::string::npos);
    }
    o.heads = 1;
    auto x = batch_of(random_rows(2, 4, 1));
    x(0, 1, 2) = NAN;
    EXPECT_THROW(self_attention(x, w, o), std::invalid_argument);
    x(0, 1, 2) = INFINITY;
    EXPECT_THROW(self_attention(x, w, o), std::invalid_argument);
    EXPECT_THROW(self_attention(batch_of(random_rows(2, 4, 1)), make_attention_weights(WeightsKind::random, 6, 0), o),
                 std::invalid_argument);
    EXPECT_THROW(parse_weights_kind("xavier"), std::invalid_argument);
}
