#pragma once
// The tiny Transformer's hot loops in float (train_model.cpp), on raw
// row-major buffers: 4-lane vectors (SIMD128 in wasm, SSE2 natively, through
// the same GCC/Clang vector extensions as kernels.cpp) across independent
// outputs, so that every output is accumulated in exactly the order of the
// plain loops they replaced. The results are bit for bit those of the
// reference path (set_reference(true)), natively and in wasm: no term is
// reassociated and nothing is contracted into a fused multiply-add.
//
// The products of the linear layers keep the grouping of kernels::matmul as
// it was when the training runs were generated: each output sums its terms
// in k order, in slices of kSliceK, and the slices are added in turn. These
// kernels do not call kernels.cpp, so a change there (a different blocking
// of the attention kernel) leaves every training run's numbers as they are.
#include <cstddef>

namespace poslab::train_kernels {

// k slice of the products (kernels.cpp's KC when the runs were generated).
constexpr std::size_t kSliceK = 256;

// The plain loops instead of these kernels, for this thread: the "before" of
// bench/train_bench.cpp and the second implementation of the tests.
void set_reference(bool on);
bool reference();

// y[m, n] = x[m, k]·w[k, n] + b[n] (b may be null: no bias).
void linear_forward(const float* x, const float* w, const float* b, float* y, std::size_t m,
                    std::size_t k, std::size_t n);

// dw[k, n] += x[m, k]ᵀ·dy[m, n]: the weight gradient of a linear layer over
// its m rows (the batch's whole sum is formed first, then added to dw).
void accumulate_xt_dy(const float* x, const float* dy, float* dw, std::size_t m, std::size_t k,
                      std::size_t n);

// dx[m, k] = dy[m, n]·w[k, n]ᵀ: the input gradient of a linear layer.
void dy_wt(const float* dy, const float* w, float* dx, std::size_t m, std::size_t n, std::size_t k);

// Causal attention's products on one head of S rows (lower triangle j <= i
// of an [S, S] matrix l, row stride S; zero above):
// c[i, j] = Σ_p a[i, p]·b[j, p] for j <= i, 0 above (a, b [S, k] with row strides lda, ldb).
void lower_scores(std::size_t S, std::size_t k, const float* a, std::size_t lda, const float* b,
                  std::size_t ldb, float* c);
// c[i, :] = Σ_{j<=i} l[i, j]·b[j, :]   (b, c [S, n])
void lower_times(std::size_t S, std::size_t n, const float* l, const float* b, std::size_t ldb,
                 float* c, std::size_t ldc);
// c[j, :] = Σ_{i>=j} l[i, j]·b[i, :]   (lᵀ·b)
void lower_transposed_times(std::size_t S, std::size_t n, const float* l, const float* b,
                            std::size_t ldb, float* c, std::size_t ldc);

}  // namespace poslab::train_kernels
