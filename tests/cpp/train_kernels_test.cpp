// train_kernels.hpp (the tiny Transformer's float kernels) against plain
// loops written here from the definitions, bit for bit, at sizes on both
// sides of every vector (4), tile (4 rows x 8 columns) and slice (256 terms)
// boundary; then the whole model, kernels against the plain loops
// (set_reference), bit for bit, for every scheme and for shapes whose head
// width and layer widths leave vector tails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "poslab/random.hpp"
#include "poslab/train.hpp"
#include "poslab/train_kernels.hpp"

namespace poslab {
namespace {

const std::size_t kDims[] = {1, 3, 4, 5, 7, 8, 9, 16, 17};

std::vector<float> random_values(std::size_t n, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<float> v(n);
    for (auto& x : v) x = float(rng.normal());
    return v;
}

// Bit patterns, so that -0 vs +0 and every last bit count.
::testing::AssertionResult same_bits(const std::vector<float>& want, const std::vector<float>& got) {
    if (want.size() != got.size())
        return ::testing::AssertionFailure() << "sizes " << want.size() << " vs " << got.size();
    for (std::size_t i = 0; i < want.size(); ++i)
        if (std::memcmp(&want[i], &got[i], sizeof(float)) != 0)
            return ::testing::AssertionFailure() << "element " << i << ": want " << want[i] << ", got " << got[i];
    return ::testing::AssertionSuccess();
}

// The grouping the kernels promise for c = Σ_p a(i, p)·b(p, j): terms in p
// order from 0 in slices of kSliceK, slices added in turn; a tile of the 4 x 8
// grid cut by the edge of the [m, n] result adds its first slice to 0 (as
// kernels::matmul did; no value changes, since a sum from +0 is never -0).
float grouped_sum(std::size_t i, std::size_t j, std::size_t m, std::size_t n, std::size_t k,
                  const std::function<float(std::size_t)>& term) {
    float total = 0.0f;
    for (std::size_t p0 = 0; p0 < k; p0 += train_kernels::kSliceK) {
        float s = 0.0f;
        for (std::size_t p = p0; p < std::min(k, p0 + train_kernels::kSliceK); ++p) s += term(p);
        if (p0 == 0) {
            const bool edge = (i / 4 * 4 + 4 > m) || (j / 8 * 8 + 8 > n);
            total = edge ? 0.0f + s : s;
        } else {
            total = s + total;
        }
    }
    return total;
}

TEST(TrainKernels, LinearForwardIsXWPlusBiasInOrder) {
    for (std::size_t m : kDims)
        for (std::size_t k : kDims)
            for (std::size_t n : kDims) {
                const auto x = random_values(m * k, 1 + m), w = random_values(k * n, 2 + k), b = random_values(n, 3);
                std::vector<float> want(m * n), got(m * n, 99.0f), nobias(m * n, 99.0f), want_nobias(m * n);
                for (std::size_t i = 0; i < m; ++i)
                    for (std::size_t j = 0; j < n; ++j) {
                        const float s = grouped_sum(i, j, m, n, k, [&](std::size_t p) { return x[i * k + p] * w[p * n + j]; });
                        want_nobias[i * n + j] = s;
                        want[i * n + j] = s + b[j];
                    }
                train_kernels::linear_forward(x.data(), w.data(), b.data(), got.data(), m, k, n);
                train_kernels::linear_forward(x.data(), w.data(), nullptr, nobias.data(), m, k, n);
                ASSERT_TRUE(same_bits(want, got)) << "m " << m << " k " << k << " n " << n;
                ASSERT_TRUE(same_bits(want_nobias, nobias)) << "m " << m << " k " << k << " n " << n;
            }
}

TEST(TrainKernels, WeightGradientSumsEveryRowInSlicesThenAdds) {
    // m (the rows summed over) crosses the 256-term slices.
    for (std::size_t m : {1, 5, 255, 256, 257, 600})
        for (std::size_t k : kDims)
            for (std::size_t n : {1, 4, 5, 8, 9, 17}) {
                const auto x = random_values(m * k, 4 + m), dy = random_values(m * n, 5 + n);
                auto dw = random_values(k * n, 6);
                std::vector<float> want = dw;
                for (std::size_t i = 0; i < k; ++i)
                    for (std::size_t j = 0; j < n; ++j)
                        want[i * n + j] = dw[i * n + j] + grouped_sum(i, j, k, n, m, [&](std::size_t r) {
                                              return x[r * k + i] * dy[r * n + j];
                                          });
                train_kernels::accumulate_xt_dy(x.data(), dy.data(), dw.data(), m, k, n);
                ASSERT_TRUE(same_bits(want, dw)) << "m " << m << " k " << k << " n " << n;
            }
}

TEST(TrainKernels, InputGradientIsDyTimesWTransposed) {
    for (std::size_t m : kDims)
        for (std::size_t n : {1, 4, 5, 8, 9, 17, 257})
            for (std::size_t k : kDims) {
                const auto dy = random_values(m * n, 7 + m), w = random_values(k * n, 8 + k);
                std::vector<float> want(m * k), got(m * k, 99.0f);
                for (std::size_t i = 0; i < m; ++i)
                    for (std::size_t c = 0; c < k; ++c)
                        want[i * k + c] = grouped_sum(i, c, m, k, n, [&](std::size_t j) { return dy[i * n + j] * w[c * n + j]; });
                train_kernels::dy_wt(dy.data(), w.data(), got.data(), m, n, k);
                ASSERT_TRUE(same_bits(want, got)) << "m " << m << " n " << n << " k " << k;
            }
}

TEST(TrainKernels, CausalProductsFollowTheLowerTriangleInOrder) {
    for (std::size_t S : {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33})
        for (std::size_t k : kDims) {
            // Operands inside wider rows (strides lda > k), as the heads of qkv are.
            const std::size_t lda = k + 3, ldb = k + 5, ldc = k + 2;
            const auto a = random_values(S * lda, 9 + S), b = random_values(S * ldb, 10 + k);
            auto l = random_values(S * S, 11);
            for (std::size_t i = 0; i < S; ++i)
                for (std::size_t j = i + 1; j < S; ++j) l[i * S + j] = 0.0f;

            std::vector<float> want(S * S), got(S * S, 99.0f);
            for (std::size_t i = 0; i < S; ++i)
                for (std::size_t j = 0; j < S; ++j) {
                    float s = 0.0f;
                    if (j <= i)
                        for (std::size_t p = 0; p < k; ++p) s += a[i * lda + p] * b[j * ldb + p];
                    want[i * S + j] = s;
                }
            train_kernels::lower_scores(S, k, a.data(), lda, b.data(), ldb, got.data());
            ASSERT_TRUE(same_bits(want, got)) << "scores S " << S << " k " << k;

            std::vector<float> want_c(S * ldc, 7.0f), got_c(S * ldc, 7.0f);
            for (std::size_t i = 0; i < S; ++i)
                for (std::size_t d = 0; d < k; ++d) {
                    float s = 0.0f;
                    for (std::size_t j = 0; j <= i; ++j) s += l[i * S + j] * b[j * ldb + d];
                    want_c[i * ldc + d] = s;
                }
            train_kernels::lower_times(S, k, l.data(), b.data(), ldb, got_c.data(), ldc);
            ASSERT_TRUE(same_bits(want_c, got_c)) << "l·b S " << S << " k " << k;

            std::vector<float> want_t(S * ldc, 7.0f), got_t(S * ldc, 7.0f);
            for (std::size_t j = 0; j < S; ++j)
                for (std::size_t d = 0; d < k; ++d) {
                    float s = 0.0f;
                    for (std::size_t i = j; i < S; ++i) s += l[i * S + j] * b[i * ldb + d];
                    want_t[j * ldc + d] = s;
                }
            train_kernels::lower_transposed_times(S, k, l.data(), b.data(), ldb, got_t.data(), ldc);
            ASSERT_TRUE(same_bits(want_t, got_t)) << "lᵀ·b S " << S << " k " << k;
        }
}

// A batch of the count task with these lengths n (rows 2n+1 each).
TokenBatch count_batch(const std::vector<std::size_t>& ns) {
    TokenBatch b;
    for (std::size_t n : ns) {
        const TokenBatch one = count_task_sequence(n);
        b.lengths.insert(b.lengths.end(), one.lengths.begin(), one.lengths.end());
        b.tokens.insert(b.tokens.end(), one.tokens.begin(), one.tokens.end());
        b.targets.insert(b.targets.end(), one.targets.begin(), one.targets.end());
        b.weights.insert(b.weights.end(), one.weights.begin(), one.weights.end());
    }
    return b;
}

struct Shape {
    std::size_t d_model, heads, d_mlp;
};

TEST(TrainKernels, ModelEqualsThePlainLoopsBitForBit) {
    // 32/4/128: exercise 7's; 24/4 (head width 6: a vector and a 2-wide
    // tail), 36/3 (12), 16/8 (2) and d_mlp 5 and 9: tails in every product.
    const Shape shapes[] = {{32, 4, 128}, {24, 4, 9}, {36, 3, 5}, {16, 8, 17}};
    // 9 sequences of up to 33 rows: 220 rows; 16 of 33: 528 rows, over the 256-term slice.
    const std::vector<std::vector<std::size_t>> batches = {{1, 16, 3, 7, 2, 9, 4, 11, 5},
                                                           std::vector<std::size_t>(16, 16)};
    for (auto scheme : {PositionScheme::none, PositionScheme::sinusoidal, PositionScheme::learned,
                        PositionScheme::rope, PositionScheme::alibi})
        for (const Shape& s : shapes)
            for (const auto& ns : batches) {
                TinyTransformerConfig c;
                c.vocab = kCountTaskVocab;
                c.d_model = s.d_model;
                c.heads = s.heads;
                c.d_mlp = s.d_mlp;
                c.layers = 2;
                c.max_positions = 40;
                c.scheme = scheme;
                TinyTransformer<float> model(c);
                // Larger weights than training's 0.02, so every path carries gradient.
                Rng rng(77);
                for (auto& p : model.parameters()) p = float(rng.normal() * 0.3);
                const TokenBatch batch = count_batch(ns);
                std::vector<float> plain_grad, fast_grad;
                train_kernels::set_reference(true);
                const float plain_loss = model.loss_and_gradient(batch, plain_grad);
                const std::vector<float> plain_logits = model.logits(batch);
                train_kernels::set_reference(false);
                const float fast_loss = model.loss_and_gradient(batch, fast_grad);
                const std::vector<float> fast_logits = model.logits(batch);
                const std::string what = to_string(scheme) + " d_model " + std::to_string(s.d_model) + " heads " +
                                         std::to_string(s.heads) + " d_mlp " + std::to_string(s.d_mlp) +
                                         " rows " + std::to_string(batch.tokens.size());
                ASSERT_TRUE(same_bits({plain_loss}, {fast_loss})) << what;
                ASSERT_TRUE(same_bits(plain_logits, fast_logits)) << what;
                ASSERT_TRUE(same_bits(plain_grad, fast_grad)) << what;
            }
}

TEST(TrainKernels, TrainingRunEqualsThePlainLoopsBitForBit) {
    // 30 Adam steps of exercise 7's run per scheme: losses, weights and the
    // evaluation the same with and without the kernels.
    for (auto scheme : {PositionScheme::none, PositionScheme::sinusoidal, PositionScheme::learned,
                        PositionScheme::rope, PositionScheme::alibi}) {
        ExtrapolationOptions o;
        o.scheme = scheme;
        o.steps = 30;
        o.test_max = 20;
        train_kernels::set_reference(true);
        ExtrapolationRun plain(o);
        plain.step(30);
        const auto plain_eval = plain.evaluate();
        train_kernels::set_reference(false);
        ExtrapolationRun fast(o);
        fast.step(30);
        const auto fast_eval = fast.evaluate();
        EXPECT_EQ(plain.losses(), fast.losses()) << to_string(scheme);
        EXPECT_TRUE(same_bits(plain.model().parameters(), fast.model().parameters())) << to_string(scheme);
        EXPECT_EQ(plain_eval.exact_match, fast_eval.exact_match) << to_string(scheme);
    }
}

TEST(TrainKernels, ReferenceSwitchIsPerThreadAndDefaultsOff) {
    EXPECT_FALSE(train_kernels::reference());
    train_kernels::set_reference(true);
    EXPECT_TRUE(train_kernels::reference());
    bool other_thread = true;
    std::thread([&] { other_thread = train_kernels::reference(); }).join();
    EXPECT_FALSE(other_thread);
    train_kernels::set_reference(false);
    EXPECT_FALSE(train_kernels::reference());
}

}  // namespace
}  // namespace poslab
