// The optimised kernels against straightforward double-precision references
// written out here, on random shapes chosen to hit every edge of the blocking:
// rows and columns that are not multiples of the 4 x 8 register tile, k past
// the 256-long k slice, m past the 128-row block, S = 1, H = 1 and H = D.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "poslab/attention.hpp"
#include "poslab/kernels.hpp"
#include "poslab/positional.hpp"

namespace {

using Floats = std::vector<float>;
using Doubles = std::vector<double>;

Floats random_floats(std::size_t count, std::uint32_t seed, float scale = 1.0f) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-scale, scale);
    Floats v(count);
    for (float& x : v) x = dist(gen);
    return v;
}

// Reference product, in double. Also returns Σ_p |a_ip·b_pj|, the scale a
// float dot product's rounding error is proportional to, so "relative" means
// relative to the terms summed (an entry that cancels to ~0 is not held to
// 1e-5 of itself).
struct Product {
    Doubles value, magnitude;
};
Product reference_gemm(const Floats& a, std::size_t lda, const Floats& b, std::size_t ldb,
                       bool b_transposed, std::size_t m, std::size_t k, std::size_t n,
                       double scale) {
    Product r{Doubles(m * n), Doubles(m * n)};
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double sum = 0, mag = 0;
            for (std::size_t p = 0; p < k; ++p) {
                const double bv = b_transposed ? b[j * ldb + p] : b[p * ldb + j];
                sum += static_cast<double>(a[i * lda + p]) * bv;
                mag += std::abs(static_cast<double>(a[i * lda + p]) * bv);
            }
            r.value[i * n + j] = scale * sum;
            r.magnitude[i * n + j] = std::abs(scale) * mag;
        }
    return r;
}

constexpr double kRelative = 1e-5;

struct Shape {
    std::size_t m, k, n;
};
const Shape kShapes[] = {{1, 1, 1},    {1, 7, 3},     {7, 5, 9},     {4, 8, 8},   {13, 17, 11},
                         {64, 64, 64}, {3, 300, 5},   {130, 257, 70}, {129, 33, 17},
                         {5, 513, 129}, {200, 768, 24}};

TEST(KernelsMatmul, MatchesReferenceOnAwkwardShapes) {
    std::uint32_t seed = 1;
    for (const Shape& s : kShapes) {
        const Floats a = random_floats(s.m * s.k, seed++), b = random_floats(s.k * s.n, seed++);
        Floats c(s.m * s.n, std::numeric_limits<float>::quiet_NaN());  // overwritten, not accumulated
        poslab::kernels::matmul(a.data(), b.data(), c.data(), s.m, s.k, s.n);
        const Product ref = reference_gemm(a, s.k, b, s.n, false, s.m, s.k, s.n, 1.0);
        for (std::size_t i = 0; i < c.size(); ++i)
            ASSERT_NEAR(c[i], ref.value[i], kRelative * ref.magnitude[i] + 1e-30)
                << "m=" << s.m << " k=" << s.k << " n=" << s.n << " at " << i;
    }
}

TEST(KernelsMatmul, KnownSmallProduct) {
    // [[1,2],[3,4]]·[[5,6],[7,8]] = [[19,22],[43,50]] by hand.
    const float a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
    float c[4];
    poslab::kernels::matmul(a, b, c, 2, 2, 2);
    EXPECT_EQ(c[0], 19.0f);
    EXPECT_EQ(c[1], 22.0f);
    EXPECT_EQ(c[2], 43.0f);
    EXPECT_EQ(c[3], 50.0f);
}

TEST(KernelsMatmulBt, MatchesReferenceWithStridesAndScale) {
    std::uint32_t seed = 100;
    for (const Shape& s : kShapes) {
        // Row strides wider than k: one head's columns of a wider matrix.
        const std::size_t lda = s.k + 3, ldb = s.k + 5;
        const Floats a = random_floats(s.m * lda, seed++), b = random_floats(s.n * ldb, seed++);
        Floats c(s.m * s.n, std::numeric_limits<float>::quiet_NaN());
        const float scale = 0.125f;
        poslab::kernels::matmul_bt(a.data(), lda, b.data(), ldb, c.data(), s.m, s.k, s.n, scale);
        const Product ref = reference_gemm(a, lda, b, ldb, true, s.m, s.k, s.n, scale);
        for (std::size_t i = 0; i < c.size(); ++i)
            ASSERT_NEAR(c[i], ref.value[i], kRelative * ref.magnitude[i] + 1e-30)
                << "m=" << s.m << " k=" << s.k << " n=" << s.n << " at " << i;
    }
}

TEST(KernelsGemm, WritesOnlyItsBlockOfAWiderOutput) {
    const std::size_t m = 9, k = 13, n = 11, ldc = 20;
    const Floats a = random_floats(m * k, 7), b = random_floats(k * n, 8);
    const float sentinel = 12345.0f;
    Floats c(m * ldc, sentinel);
    poslab::kernels::gemm(a.data(), k, b.data(), n, false, c.data(), ldc, m, k, n, 2.0f);
    const Product ref = reference_gemm(a, k, b, n, false, m, k, n, 2.0);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < ldc; ++j) {
            if (j < n)
                ASSERT_NEAR(c[i * ldc + j], ref.value[i * n + j], kRelative * ref.magnitude[i * n + j]);
            else
                ASSERT_EQ(c[i * ldc + j], sentinel) << "wrote past column n at row " << i;
        }
}

Doubles reference_softmax(const Floats& row) {
    double mx = -std::numeric_limits<double>::infinity();
    for (float v : row) mx = std::max(mx, static_cast<double>(v));
    Doubles e(row.size());
    double sum = 0;
    for (std::size_t j = 0; j < row.size(); ++j) sum += e[j] = std::exp(row[j] - mx);
    for (double& v : e) v /= sum;
    return e;
}

TEST(KernelsSoftmax, MatchesReferenceAndSumsToOne) {
    std::uint32_t seed = 200;
    for (std::size_t cols : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 37u, 1000u}) {
        const std::size_t rows = 3;
        Floats x = random_floats(rows * cols, seed++, 20.0f);
        const Floats original = x;
        poslab::kernels::softmax_rows(x.data(), rows, cols);
        for (std::size_t r = 0; r < rows; ++r) {
            const Doubles ref = reference_softmax(
                Floats(original.begin() + r * cols, original.begin() + (r + 1) * cols));
            double sum = 0;
            for (std::size_t j = 0; j < cols; ++j) {
                ASSERT_NEAR(x[r * cols + j], ref[j], kRelative * ref[j] + 1e-30) << "cols=" << cols;
                sum += x[r * cols + j];
            }
            EXPECT_NEAR(sum, 1.0, 1e-6);
        }
    }
}

TEST(KernelsSoftmax, StableForHugeScoresAndZeroForMinusInfinity) {
    const float inf = std::numeric_limits<float>::infinity();
    // exp(1e30) overflows; subtracting the maximum first leaves [1, 1, 0, e^-1]/(2 + e^-1).
    Floats x = {1e30f, 1e30f, -inf, 1e30f - 1e24f, -inf};
    poslab::kernels::softmax_rows(x.data(), 1, x.size());
    EXPECT_FLOAT_EQ(x[0], 0.5f);
    EXPECT_FLOAT_EQ(x[1], 0.5f);
    EXPECT_EQ(x[2], 0.0f);
    EXPECT_EQ(x[3], 0.0f);  // 1e24 below the maximum
    EXPECT_EQ(x[4], 0.0f);
}

TEST(KernelsSoftmax, ExponentialAccurateOverTheWholeRange) {
    // Row [0, t]: the second weight is e^t / (1 + e^t), worked out in double,
    // for t from -87 (near float's smallest normal) up to 0.
    for (double t = -87.0; t <= 0.0; t += 0.37) {
        Floats x = {0.0f, static_cast<float>(t)};
        poslab::kernels::softmax_rows(x.data(), 1, 2);
        const double et = std::exp(static_cast<double>(static_cast<float>(t)));
        ASSERT_NEAR(x[1], et / (1.0 + et), kRelative * et) << "t=" << t;
        ASSERT_NEAR(x[0], 1.0 / (1.0 + et), kRelative) << "t=" << t;
    }
}

// Reference attention of every head (columns h·dh … of q, k, v), in double.
struct ReferenceAttention {
    Doubles weights;  // [H, S, S]
    Doubles context;  // [S, H·dh]
};
ReferenceAttention reference_attention(const Floats& q, const Floats& k, const Floats& v,
                                       std::size_t seq, std::size_t heads, std::size_t dh,
                                       bool causal, const std::vector<double>* slopes) {
    const std::size_t width = heads * dh;
    ReferenceAttention r{Doubles(heads * seq * seq, 0.0), Doubles(seq * width, 0.0)};
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t i = 0; i < seq; ++i) {
            Doubles s(seq);
            double mx = -std::numeric_limits<double>::infinity();
            const std::size_t last = causal ? i + 1 : seq;
            for (std::size_t j = 0; j < last; ++j) {
                double dot = 0;
                for (std::size_t d = 0; d < dh; ++d)
                    dot += static_cast<double>(q[i * width + h * dh + d]) * k[j * width + h * dh + d];
                s[j] = dot / std::sqrt(static_cast<double>(dh));
                if (slopes) s[j] -= (*slopes)[h] * std::abs(static_cast<double>(i) - static_cast<double>(j));
                mx = std::max(mx, s[j]);
            }
            double sum = 0;
            for (std::size_t j = 0; j < last; ++j) sum += s[j] = std::exp(s[j] - mx);
            for (std::size_t j = 0; j < last; ++j) {
                const double wij = s[j] / sum;
                r.weights[(h * seq + i) * seq + j] = wij;
                for (std::size_t d = 0; d < dh; ++d)
                    r.context[i * width + h * dh + d] += wij * v[j * width + h * dh + d];
            }
        }
    return r;
}

double max_abs(const Doubles& x) {
    double m = 0;
    for (double v : x) m = std::max(m, std::abs(v));
    return m;
}

struct HeadsCase {
    std::size_t seq, heads, d_head;
};
const HeadsCase kHeadsCases[] = {{1, 1, 1},  {1, 3, 4},  {7, 1, 5},   {7, 2, 3},   {8, 4, 8},
                                 {33, 3, 7}, {64, 2, 64}, {65, 1, 9}, {130, 12, 1}, {150, 2, 20}};

TEST(KernelsAttentionHeads, MatchesReferenceFusedAndMaterialised) {
    std::uint32_t seed = 300;
    for (const HeadsCase& c : kHeadsCases)
        for (bool causal : {false, true})
            for (bool alibi : {false, true}) {
                const std::size_t width = c.heads * c.d_head;
                const Floats q = random_floats(c.seq * width, seed++, 2.0f);
                const Floats k = random_floats(c.seq * width, seed++, 2.0f);
                const Floats v = random_floats(c.seq * width, seed++);
                const std::vector<double> slopes = poslab::alibi_slopes(c.heads);
                std::vector<float> slopes_f(slopes.begin(), slopes.end());
                const ReferenceAttention ref =
                    reference_attention(q, k, v, c.seq, c.heads, c.d_head, causal, alibi ? &slopes : nullptr);
                const double scale = max_abs(ref.context);
                const std::string where = "S=" + std::to_string(c.seq) + " H=" + std::to_string(c.heads) +
                                          " dh=" + std::to_string(c.d_head) + (causal ? " causal" : "") +
                                          (alibi ? " alibi" : "");

                Floats fused(c.seq * width, std::numeric_limits<float>::quiet_NaN());
                poslab::kernels::attention_heads(q.data(), k.data(), v.data(), width, fused.data(), width,
                                                 c.seq, c.heads, c.d_head, causal,
                                                 alibi ? slopes_f.data() : nullptr, nullptr);
                Floats context(c.seq * width, std::numeric_limits<float>::quiet_NaN());
                Floats weights(c.heads * c.seq * c.seq, std::numeric_limits<float>::quiet_NaN());
                poslab::kernels::attention_heads(q.data(), k.data(), v.data(), width, context.data(), width,
                                                 c.seq, c.heads, c.d_head, causal,
                                                 alibi ? slopes_f.data() : nullptr, weights.data());
                for (std::size_t i = 0; i < fused.size(); ++i) {
                    ASSERT_NEAR(fused[i], ref.context[i], kRelative * scale) << where << " at " << i;
                    ASSERT_NEAR(context[i], ref.context[i], kRelative * scale) << where << " at " << i;
                }
                for (std::size_t h = 0; h < c.heads; ++h)
                    for (std::size_t i = 0; i < c.seq; ++i) {
                        double sum = 0;
                        for (std::size_t j = 0; j < c.seq; ++j) {
                            const std::size_t at = (h * c.seq + i) * c.seq + j;
                            ASSERT_NEAR(weights[at], ref.weights[at], kRelative * ref.weights[at] + 1e-9)
                                << where << " h=" << h << " i=" << i << " j=" << j;
                            if (causal && j > i) {
                                ASSERT_EQ(weights[at], 0.0f) << where;
                            }
                            sum += weights[at];
                        }
                        ASSERT_NEAR(sum, 1.0, 1e-5) << where;
                    }
            }
}

TEST(KernelsAttentionHeads, HonoursRowStridesWiderThanTheHeads) {
    // q, k, v rows are ld = width + 3 wide and context rows ldc = width + 5:
    // the padding columns are neither read (NaN there would spread) nor written.
    const std::size_t seq = 37, heads = 3, dh = 6, width = heads * dh, ld = width + 3, ldc = width + 5;
    Floats q = random_floats(seq * ld, 501, 2.0f), k = random_floats(seq * ld, 502, 2.0f), v = random_floats(seq * ld, 503);
    Floats q_dense(seq * width), k_dense(seq * width), v_dense(seq * width);
    for (std::size_t i = 0; i < seq; ++i)
        for (std::size_t j = 0; j < ld; ++j) {
            if (j >= width) {
                q[i * ld + j] = k[i * ld + j] = v[i * ld + j] = std::numeric_limits<float>::quiet_NaN();
                continue;
            }
            q_dense[i * width + j] = q[i * ld + j];
            k_dense[i * width + j] = k[i * ld + j];
            v_dense[i * width + j] = v[i * ld + j];
        }
    const ReferenceAttention ref = reference_attention(q_dense, k_dense, v_dense, seq, heads, dh, true, nullptr);
    const double scale = max_abs(ref.context);
    const float sentinel = -777.0f;
    Floats context(seq * ldc, sentinel);
    poslab::kernels::attention_heads(q.data(), k.data(), v.data(), ld, context.data(), ldc, seq, heads, dh, true,
                                     nullptr, nullptr);
    for (std::size_t i = 0; i < seq; ++i)
        for (std::size_t j = 0; j < ldc; ++j) {
            if (j < width)
                ASSERT_NEAR(context[i * ldc + j], ref.context[i * width + j], kRelative * scale) << i << "," << j;
            else
                ASSERT_EQ(context[i * ldc + j], sentinel) << "wrote padding at row " << i;
        }
}

// The whole self_attention (random projections, RoPE, ALiBi, causal) against
// a reference written from the formulas: Q = XW^Q …, RoPE turns pair i of a
// head at position p by p·base^(-2i/d_head), output = context·W^O.
Doubles reference_self_attention(const Floats& x, const poslab::AttentionWeights& w, std::size_t seq,
                                 std::size_t width, const poslab::AttentionOptions& o,
                                 Doubles* weights_out) {
    auto project = [&](const Floats& in, const xt::xtensor<float, 2>& m) {
        Floats out(seq * width);
        for (std::size_t i = 0; i < seq; ++i)
            for (std::size_t j = 0; j < width; ++j) {
                double s = 0;
                for (std::size_t p = 0; p < width; ++p) s += static_cast<double>(in[i * width + p]) * m(p, j);
                out[i * width + j] = static_cast<float>(s);
            }
        return out;
    };
    Floats q = project(x, w.wq), k = project(x, w.wk), v = project(x, w.wv);
    const std::size_t dh = width / o.heads;
    if (o.rope) {
        for (Floats* t : {&q, &k})
            for (std::size_t s = 0; s < seq; ++s)
                for (std::size_t h = 0; h < o.heads; ++h)
                    for (std::size_t i = 0; i < dh / 2; ++i) {
                        const double angle = static_cast<double>(o.position_offset + s) *
                                             std::pow(o.rope_base, -2.0 * static_cast<double>(i) / dh);
                        float* p = &(*t)[s * width + h * dh + 2 * i];
                        const double a = p[0], b = p[1];
                        p[0] = static_cast<float>(a * std::cos(angle) - b * std::sin(angle));
                        p[1] = static_cast<float>(a * std::sin(angle) + b * std::cos(angle));
                    }
    }
    const std::vector<double> slopes = poslab::alibi_slopes(o.heads);
    const ReferenceAttention att = reference_attention(q, k, v, seq, o.heads, dh, o.causal, o.alibi ? &slopes : nullptr);
    if (weights_out) *weights_out = att.weights;
    Doubles out(seq * width, 0.0);
    for (std::size_t i = 0; i < seq; ++i)
        for (std::size_t j = 0; j < width; ++j)
            for (std::size_t p = 0; p < width; ++p) out[i * width + j] += att.context[i * width + p] * w.wo(p, j);
    return out;
}

struct ModelCase {
    std::size_t seq, width, heads;
};
const ModelCase kModelCases[] = {{1, 8, 2}, {7, 10, 5}, {7, 12, 1}, {33, 12, 6}, {70, 24, 4}, {5, 6, 6}};

TEST(KernelsSelfAttention, MatchesReferenceWithEveryOption) {
    std::uint32_t seed = 400;
    for (const ModelCase& c : kModelCases)
        for (int flags = 0; flags < 8; ++flags) {
            poslab::AttentionOptions o;
            o.heads = c.heads;
            o.causal = flags & 1;
            o.alibi = flags & 2;
            o.rope = (flags & 4) && (c.width / c.heads) % 2 == 0;  // RoPE needs an even d_head
            o.position_offset = 3;
            const std::string where = "S=" + std::to_string(c.seq) + " D=" + std::to_string(c.width) +
                                      " H=" + std::to_string(c.heads) + " flags=" + std::to_string(flags);
            const poslab::AttentionWeights w =
                poslab::make_attention_weights(poslab::WeightsKind::random, c.width, seed++);
            const Floats xs = random_floats(c.seq * c.width, seed++);
            xt::xtensor<float, 3> x({1, c.seq, c.width});
            std::copy(xs.begin(), xs.end(), x.begin());
            Doubles ref_weights;
            const Doubles ref = reference_self_attention(xs, w, c.seq, c.width, o, &ref_weights);
            const double scale = max_abs(ref);
            for (bool return_weights : {true, false}) {
                o.return_weights = return_weights;
                const poslab::AttentionResult r = poslab::self_attention(x, w, o);
                ASSERT_EQ(r.output.size(), ref.size()) << where;
                for (std::size_t i = 0; i < ref.size(); ++i)
                    ASSERT_NEAR(r.output.data()[i], ref[i], kRelative * scale) << where << " at " << i;
                if (!return_weights) continue;
                ASSERT_EQ(r.weights.size(), ref_weights.size()) << where;
                for (std::size_t i = 0; i < ref_weights.size(); ++i)
                    ASSERT_NEAR(r.weights.data()[i], ref_weights[i], kRelative * ref_weights[i] + 1e-9)
                        << where << " at " << i;
            }
        }
}

}  // namespace
