// Plain, correct kernels (a first version; the blocked SIMD version replaces
// these loops without changing the contracts in kernels.hpp).
#include "poslab/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace poslab::kernels {

void matmul(const float* a, const float* b, float* c, std::size_t m, std::size_t k, std::size_t n) {
    std::fill(c, c + m * n, 0.0f);
    for (std::size_t i = 0; i < m; ++i) {
        float* crow = c + i * n;
        for (std::size_t p = 0; p < k; ++p) {
            const float aip = a[i * k + p];
            const float* brow = b + p * n;
            for (std::size_t j = 0; j < n; ++j) crow[j] += aip * brow[j];
        }
    }
}

void matmul_bt(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
               std::size_t m, std::size_t k, std::size_t n, float scale) {
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (std::size_t p = 0; p < k; ++p) sum += a[i * lda + p] * b[j * ldb + p];
            c[i * n + j] = scale * sum;
        }
    }
}

void softmax_rows(float* x, std::size_t rows, std::size_t cols) {
    for (std::size_t i = 0; i < rows; ++i) {
        float* row = x + i * cols;
        float mx = -std::numeric_limits<float>::infinity();
        for (std::size_t j = 0; j < cols; ++j) mx = std::max(mx, row[j]);
        float sum = 0.0f;
        for (std::size_t j = 0; j < cols; ++j) {
            row[j] = std::exp(row[j] - mx);
            sum += row[j];
        }
        const float inv = 1.0f / sum;
        for (std::size_t j = 0; j < cols; ++j) row[j] *= inv;
    }
}

}  // namespace poslab::kernels
