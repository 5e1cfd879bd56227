#pragma once
// The hot loops, on raw row-major float buffers. Everything above this layer
// uses xtensor; these are kept plain so clang/gcc vectorise them (SIMD128 in
// wasm, SSE2 natively: no -march=native in what ships).
#include <cstddef>

namespace poslab::kernels {

// c[m, n] = a[m, k] · b[k, n]; c is overwritten.
void matmul(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n);

// c[m, n] = scale · a[m, k] · b[n, k]ᵀ (rows of a against rows of b); c is overwritten.
// lda/ldb are the row strides of a and b (>= k), so one head's slice of a
// wider matrix can be used in place.
void matmul_bt(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
               std::size_t m, std::size_t k, std::size_t n, float scale);

// Softmax of each row of x[rows, cols], in place, stable for large scores
// (the row maximum is subtracted first). -inf entries get weight 0; a row of
// all -inf cannot occur (the diagonal is never masked).
void softmax_rows(float* x, std::size_t rows, std::size_t cols);

// The general strided product behind the two above:
// c[i*ldc + j] = scale · Σ_p a[i*lda + p] · B(p, j) for i < m, j < n, where
// B(p, j) = b[p*ldb + j], or b[j*ldb + p] when b_transposed; c is overwritten.
void gemm(const float* a, std::size_t lda, const float* b, std::size_t ldb, bool b_transposed,
          float* c, std::size_t ldc, std::size_t m, std::size_t k, std::size_t n, float scale);

// Scaled dot-product attention of every head, one query block at a time:
// for head h (columns [h·d_head, (h+1)·d_head) of q, k, v, row stride ld),
// context_h = softmax(q_h·k_hᵀ/√d_head + bias) · v_h, written into the same
// columns of context (row stride ldc). bias is -alibi_slopes[h]·|i-j| when
// alibi_slopes is given (heads entries); with causal, keys j > i get weight 0
// and are skipped. weights, when given, receives the [heads, seq, seq]
// softmax weights; when null, only a [64, seq] block of scores exists at a
// time, so the [S, S] matrix is never materialised.
void attention_heads(const float* q, const float* k, const float* v, std::size_t ld,
                     float* context, std::size_t ldc, std::size_t seq, std::size_t heads,
                     std::size_t d_head, bool causal, const float* alibi_slopes,
                     float* weights);

}  // namespace poslab::kernels
