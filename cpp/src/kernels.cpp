// The hot loops. One code path for wasm and native: GCC/Clang vector
// extensions (4 x float) lower to SIMD128 under -msimd128 and to SSE2 on the
// baseline x86-64 host, so no -march=native is needed (one wasm builtin, for
// the row maximum, is the only platform-specific line).
//
// Matrix products follow the GotoBLAS scheme: B is packed into NR-column
// panels ([k][NR], contiguous), A into MR-row panels ([k][MR]), and an MR x NR
// register tile of C is accumulated over a KC-long slice of k, so the B slice
// stays in L1 while the A block streams from L2. Packing buffers live in a
// per-thread workspace that only ever grows: no allocation per call once warm.
#include "poslab/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace poslab::kernels {
namespace {

typedef float v4f __attribute__((vector_size(16)));
typedef std::int32_t v4i __attribute__((vector_size(16)));

inline v4f load4(const float* p) {
    v4f v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store4(float* p, v4f v) { std::memcpy(p, &v, sizeof v); }
inline v4f splat(float x) { return v4f{x, x, x, x}; }
inline float hsum(v4f v) { return (v[0] + v[1]) + (v[2] + v[3]); }
#ifdef __wasm_simd128__
// f32x4.pmax is one maxps in V8; the portable select below becomes a compare
// and a bitselect there. The two differ only for NaN, which scores of finite
// inputs never hold.
inline v4f vmax(v4f a, v4f b) { return (v4f)__builtin_wasm_pmax_f32x4(a, b); }
#else
inline v4f vmax(v4f a, v4f b) { return a > b ? a : b; }
#endif

// e^x for x <= 0 (softmax arguments after the row maximum is subtracted),
// relative error ~2e-7; x below -87.3 (including -inf) gives exactly 0.
inline v4f exp_nonpositive(v4f x) {
    const v4f lo = splat(-87.33654f);
    const v4i underflow = x < lo;
    x = vmax(x, lo);
    // x = n·ln2 + r, |r| <= ln2/2. Adding 1.5·2^23 rounds x·log2(e) to the
    // nearest integer n and leaves n in the low bits of the sum, so 2^n is
    // built from those bits without a float-to-int conversion (slow in wasm).
    const v4f magic = splat(12582912.0f);  // 1.5 · 2^23
    const v4f shifted = x * splat(1.44269504f) + magic;
    const v4f n = shifted - magic;
    v4f r = x - n * splat(0.693359375f);  // ln2 split in two for an exact product
    r = r - n * splat(-2.12194440e-4f);
    // Minimax polynomial for e^r on [-ln2/2, ln2/2] (Cephes expf).
    v4f p = splat(1.9875691500e-4f);
    p = p * r + splat(1.3981999507e-3f);
    p = p * r + splat(8.3334519073e-3f);
    p = p * r + splat(4.1665795894e-2f);
    p = p * r + splat(1.6666665459e-1f);
    p = p * r + splat(5.0000001201e-1f);
    p = p * (r * r) + r + splat(1.0f);
    // 2^n: n >= -126 here, so the exponent field n + 127 stays normal.
    v4i ni;
    std::memcpy(&ni, &shifted, sizeof ni);
    ni -= 0x4B400000;  // the bits of 1.5·2^23
    const v4i bits = (ni + 127) << 23;
    v4f scale;
    std::memcpy(&scale, &bits, sizeof scale);
    v4f result = p * scale;
    v4i rbits;
    std::memcpy(&rbits, &result, sizeof rbits);
    rbits &= ~underflow;
    std::memcpy(&result, &rbits, sizeof result);
    return result;
}

// Register tile: MR rows x NR columns of C = 4 x 2 vectors = 8 accumulators,
// which with 2 B vectors and 1 broadcast fits the 16 SIMD registers of both
// SSE2 and V8's wasm code generator.
constexpr std::size_t MR = 4;
constexpr std::size_t NR = 8;
constexpr std::size_t KC = 256;  // k slice: a B panel slice is KC·NR·4 = 8 KiB (L1)
constexpr std::size_t MC = 128;  // rows of A per block: MC·KC·4 = 128 KiB (L2)

inline std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

// Grows only; reused by every call on this thread.
struct Workspace {
    std::vector<float> packed_a, packed_b, packed_k, packed_v, scores, alibi_bias;
};
Workspace& workspace() {
    static thread_local Workspace w;
    return w;
}
float* reserve(std::vector<float>& buffer, std::size_t count) {
    if (buffer.size() < count) buffer.resize(count);
    return buffer.data();
}

// c[0:MR, 0:NR] (row stride ldc) = (accumulate ? c : 0) + scale · Σ_p a(:, p) ⊗ b_panel[p].
// A is either a packed panel (PackedA: a[p·MR + i]) or MR rows read in place
// (a[i·lda + p]); both give the register tile one broadcast per row and step.
// Rows/columns past rows/cols are padding and are not stored.
template <bool PackedA>
inline void micro_kernel(std::size_t kc, const float* a, std::size_t lda, const float* bp, float* c,
                         std::size_t ldc, bool accumulate, std::size_t rows, std::size_t cols, float scale) {
    v4f c00 = splat(0.0f), c01 = splat(0.0f), c10 = splat(0.0f), c11 = splat(0.0f);
    v4f c20 = splat(0.0f), c21 = splat(0.0f), c30 = splat(0.0f), c31 = splat(0.0f);
    const float* a0 = a;
    const float* a1 = PackedA ? a + 1 : a + lda;
    const float* a2 = PackedA ? a + 2 : a + 2 * lda;
    const float* a3 = PackedA ? a + 3 : a + 3 * lda;
    constexpr std::size_t step = PackedA ? MR : 1;
    for (std::size_t p = 0; p < kc; ++p) {
        const v4f b0 = load4(bp), b1 = load4(bp + 4);
        v4f x = splat(a0[p * step]);
        c00 += x * b0;
        c01 += x * b1;
        x = splat(a1[p * step]);
        c10 += x * b0;
        c11 += x * b1;
        x = splat(a2[p * step]);
        c20 += x * b0;
        c21 += x * b1;
        x = splat(a3[p * step]);
        c30 += x * b0;
        c31 += x * b1;
        bp += NR;
    }
    if (scale != 1.0f) {
        const v4f s = splat(scale);
        c00 *= s, c01 *= s, c10 *= s, c11 *= s, c20 *= s, c21 *= s, c30 *= s, c31 *= s;
    }
    if (rows == MR && cols == NR) {
        if (accumulate) {
            c00 += load4(c), c01 += load4(c + 4);
            c10 += load4(c + ldc), c11 += load4(c + ldc + 4);
            c20 += load4(c + 2 * ldc), c21 += load4(c + 2 * ldc + 4);
            c30 += load4(c + 3 * ldc), c31 += load4(c + 3 * ldc + 4);
        }
        store4(c, c00), store4(c + 4, c01);
        store4(c + ldc, c10), store4(c + ldc + 4, c11);
        store4(c + 2 * ldc, c20), store4(c + 2 * ldc + 4, c21);
        store4(c + 3 * ldc, c30), store4(c + 3 * ldc + 4, c31);
        return;
    }
    float tile[MR * NR];
    store4(tile, c00), store4(tile + 4, c01), store4(tile + 8, c10), store4(tile + 12, c11);
    store4(tile + 16, c20), store4(tile + 20, c21), store4(tile + 24, c30), store4(tile + 28, c31);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j)
            c[i * ldc + j] = (accumulate ? c[i * ldc + j] : 0.0f) + tile[i * NR + j];
}

// A rows [0, m) x k columns [p0, p0+kc) → MR-row panels [kc][MR], zero-padded
// to a multiple of MR rows, each value multiplied by scale.
void pack_a(const float* a, std::size_t lda, std::size_t m, std::size_t p0, std::size_t kc,
            float scale, float* out) {
    for (std::size_t i0 = 0; i0 < m; i0 += MR) {
        const std::size_t rows = std::min(MR, m - i0);
        for (std::size_t p = 0; p < kc; ++p) {
            for (std::size_t i = 0; i < rows; ++i) out[i] = scale * a[(i0 + i) * lda + p0 + p];
            for (std::size_t i = rows; i < MR; ++i) out[i] = 0.0f;
            out += MR;
        }
    }
}

// B (k x n, B(p, j) = b[p*ldb + j], or b[j*ldb + p] when transposed) → NR-column
// panels [k][NR], zero-padded to a multiple of NR columns. Panel jp starts at
// out + jp·k·NR, and its rows [p0, p0+kc) are a contiguous slice.
void pack_b(const float* b, std::size_t ldb, bool transposed, std::size_t k, std::size_t n,
            float* out) {
    for (std::size_t j0 = 0; j0 < n; j0 += NR) {
        const std::size_t cols = std::min(NR, n - j0);
        if (!transposed && cols == NR) {
            for (std::size_t p = 0; p < k; ++p, out += NR) {
                store4(out, load4(b + p * ldb + j0));
                store4(out + 4, load4(b + p * ldb + j0 + 4));
            }
            continue;
        }
        for (std::size_t p = 0; p < k; ++p, out += NR) {
            for (std::size_t j = 0; j < cols; ++j)
                out[j] = transposed ? b[(j0 + j) * ldb + p] : b[p * ldb + j0 + j];
            for (std::size_t j = cols; j < NR; ++j) out[j] = 0.0f;
        }
    }
}

// c (ldc) = scale · A(m x k, lda) · packed B (k x n), with A packed here block
// by block. The B panels were packed with panel_k >= k rows (only the first k
// are used, which is how the causal path skips masked keys).
void gemm_packed_b(const float* a, std::size_t lda, const float* packed_b, std::size_t panel_k,
                   std::size_t k, std::size_t n, float* c, std::size_t ldc, std::size_t m,
                   float scale, std::vector<float>& a_buffer) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        for (std::size_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
        return;
    }
    float* packed_a = reserve(a_buffer, MC * KC);
    const std::size_t panel_stride = panel_k * NR;
    for (std::size_t p0 = 0; p0 < k; p0 += KC) {
        const std::size_t kc = std::min(KC, k - p0);
        const bool accumulate = p0 > 0;
        for (std::size_t i0 = 0; i0 < m; i0 += MC) {
            const std::size_t mc = std::min(MC, m - i0);
            pack_a(a + i0 * lda, lda, mc, p0, kc, scale, packed_a);
            for (std::size_t j0 = 0; j0 < n; j0 += NR) {
                const float* bp = packed_b + (j0 / NR) * panel_stride + p0 * NR;
                const std::size_t cols = std::min(NR, n - j0);
                for (std::size_t ii = 0; ii < mc; ii += MR) {
                    micro_kernel<true>(kc, packed_a + ii * kc, MR, bp, c + (i0 + ii) * ldc + j0, ldc,
                                       accumulate, std::min(MR, mc - ii), cols, 1.0f);
                }
            }
        }
    }
}

// As gemm_packed_b, but A's rows are read in place (no packing pass): for the
// attention's own operands, Q rows and rows of weights, which are already
// contiguous in k. A last group of fewer than MR rows is packed (zero-padded).
void gemm_rows_packed_b(const float* a, std::size_t lda, const float* packed_b, std::size_t panel_k,
                        std::size_t k, std::size_t n, float* c, std::size_t ldc, std::size_t m, float scale,
                        std::vector<float>& a_buffer) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        for (std::size_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
        return;
    }
    const std::size_t panel_stride = panel_k * NR;
    const std::size_t full = m / MR * MR;
    float* tail = m > full ? reserve(a_buffer, MR * std::min(KC, k)) : nullptr;
    for (std::size_t p0 = 0; p0 < k; p0 += KC) {
        const std::size_t kc = std::min(KC, k - p0);
        const bool accumulate = p0 > 0;
        if (tail) pack_a(a + full * lda, lda, m - full, p0, kc, 1.0f, tail);
        for (std::size_t j0 = 0; j0 < n; j0 += NR) {
            const float* bp = packed_b + (j0 / NR) * panel_stride + p0 * NR;
            const std::size_t cols = std::min(NR, n - j0);
            for (std::size_t i = 0; i < full; i += MR)
                micro_kernel<false>(kc, a + i * lda + p0, lda, bp, c + i * ldc + j0, ldc, accumulate, MR, cols,
                                    scale);
            if (tail)
                micro_kernel<true>(kc, tail, MR, bp, c + full * ldc + j0, ldc, accumulate, m - full, cols, scale);
        }
    }
}

// Row maximum, then e^(x - max) in place; returns the sum (not yet divided).
float exp_row(float* row, std::size_t cols) {
    std::size_t j = 0;
    v4f mx4 = splat(-std::numeric_limits<float>::infinity());
    for (; j + 4 <= cols; j += 4) mx4 = vmax(mx4, load4(row + j));
    float mx = std::max(std::max(mx4[0], mx4[1]), std::max(mx4[2], mx4[3]));
    for (; j < cols; ++j) mx = std::max(mx, row[j]);

    v4f sum4 = splat(0.0f);
    const v4f m4 = splat(mx);
    for (j = 0; j + 4 <= cols; j += 4) {
        const v4f e = exp_nonpositive(load4(row + j) - m4);
        store4(row + j, e);
        sum4 += e;
    }
    if (j < cols) {  // the tail, through the same exp as the body
        float tail[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
        std::memcpy(tail, row + j, (cols - j) * sizeof(float));
        const v4f e = exp_nonpositive(load4(tail) - m4);
        sum4 += e;
        store4(tail, e);
        std::memcpy(row + j, tail, (cols - j) * sizeof(float));
    }
    return hsum(sum4);
}

void scale_row(float* row, std::size_t cols, float factor) {
    const v4f f = splat(factor);
    std::size_t j = 0;
    for (; j + 4 <= cols; j += 4) store4(row + j, load4(row + j) * f);
    for (; j < cols; ++j) row[j] *= factor;
}

void softmax_row(float* row, std::size_t cols) { scale_row(row, cols, 1.0f / exp_row(row, cols)); }

}  // namespace

void gemm(const float* a, std::size_t lda, const float* b, std::size_t ldb, bool b_transposed,
          float* c, std::size_t ldc, std::size_t m, std::size_t k, std::size_t n, float scale) {
    Workspace& w = workspace();
    float* packed_b = reserve(w.packed_b, round_up(n, NR) * k);
    pack_b(b, ldb, b_transposed, k, n, packed_b);
    gemm_packed_b(a, lda, packed_b, k, k, n, c, ldc, m, scale, w.packed_a);
}

void matmul(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n) {
    gemm(a, k, b, n, false, c, n, m, k, n, 1.0f);
}

void matmul_bt(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
               std::size_t m, std::size_t k, std::size_t n, float scale) {
    gemm(a, lda, b, ldb, true, c, n, m, k, n, scale);
}

void softmax_rows(float* x, std::size_t rows, std::size_t cols) {
    for (std::size_t i = 0; i < rows; ++i) softmax_row(x + i * cols, cols);
}

void attention_heads(const float* q, const float* k, const float* v, std::size_t ld,
                     float* context, std::size_t ldc, std::size_t seq, std::size_t heads,
                     std::size_t d_head, bool causal, const float* alibi_slopes,
                     float* weights) {
    if (seq == 0 || heads == 0 || d_head == 0) return;
    // Query rows per block: the block's scores (QB x S) stay in L2 and the
    // packed K and V of the head are reused by every block.
    constexpr std::size_t QB = 64;
    Workspace& w = workspace();
    const float scale = 1.0f / std::sqrt(static_cast<float>(d_head));
    float* packed_k = reserve(w.packed_k, round_up(seq, NR) * d_head);
    float* packed_v = reserve(w.packed_v, round_up(d_head, NR) * seq);
    float* block_scores = weights ? nullptr : reserve(w.scores, QB * seq);
    std::vector<float>& bias = w.alibi_bias;  // bias[d] = -slope·d, d = |i - j|

    for (std::size_t h = 0; h < heads; ++h) {
        const float* qh = q + h * d_head;
        const float* kh = k + h * d_head;
        const float* vh = v + h * d_head;
        pack_b(kh, ld, true, d_head, seq, packed_k);    // Kᵀ: k = d_head, n = seq
        pack_b(vh, ld, false, seq, d_head, packed_v);   // V:  k = seq,    n = d_head
        const float* bias_row = nullptr;
        if (alibi_slopes) {
            float* b = reserve(bias, seq);
            const double slope = alibi_slopes[h];
            for (std::size_t d = 0; d < seq; ++d) b[d] = static_cast<float>(-slope * static_cast<double>(d));
            bias_row = b;
        }
        for (std::size_t i0 = 0; i0 < seq; i0 += QB) {
            const std::size_t rows = std::min(QB, seq - i0);
            // With the causal mask, keys past the block's last row carry weight 0.
            const std::size_t keys = causal ? i0 + rows : seq;
            float* s = weights ? weights + (h * seq + i0) * seq : block_scores;
            gemm_rows_packed_b(qh + i0 * ld, ld, packed_k, d_head, d_head, keys, s, seq, rows, scale,
                               w.packed_a);
            float inv_sum[QB];
            for (std::size_t r = 0; r < rows; ++r) {
                const std::size_t i = i0 + r;
                float* row = s + r * seq;
                const std::size_t valid = causal ? i + 1 : seq;
                if (bias_row) {
                    for (std::size_t j = 0; j < valid; ++j) row[j] += bias_row[i > j ? i - j : j - i];
                }
                inv_sum[r] = 1.0f / exp_row(row, valid);
                std::fill(row + valid, row + (weights ? seq : keys), 0.0f);
            }
            // The division by the row sum is applied to the d_head-wide output
            // row rather than to the S-wide weights row; the returned weights
            // are normalised afterwards, so the output is the same either way.
            float* out = context + i0 * ldc + h * d_head;
            gemm_rows_packed_b(s, seq, packed_v, seq, keys, d_head, out, ldc, rows, 1.0f, w.packed_a);
            for (std::size_t r = 0; r < rows; ++r) {
                scale_row(out + r * ldc, d_head, inv_sum[r]);
                if (weights) scale_row(s + r * seq, causal ? i0 + r + 1 : seq, inv_sum[r]);
            }
        }
    }
}

}  // namespace poslab::kernels
