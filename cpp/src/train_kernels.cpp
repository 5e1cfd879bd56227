// See train_kernels.hpp. Vectors run across outputs (columns j of a product,
// or a head's width d), never across the terms of one sum, so each output is
// the same chain of float multiplies and adds as in the plain loops.
#include "poslab/train_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace poslab::train_kernels {
namespace {

typedef float v4f __attribute__((vector_size(16)));

inline v4f load4(const float* p) {
    v4f v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store4(float* p, v4f v) { std::memcpy(p, &v, sizeof v); }
inline v4f splat(float x) { return v4f{x, x, x, x}; }

thread_local bool use_reference = false;

// Register tile of the products: 4 rows x 8 columns (8 accumulators; with 2
// B vectors and a broadcast it fits SSE2's and V8's 16 vector registers).
// The same tile as kernels::matmul had, whose edge tiles stored 0 + sum; that
// is kept below for fidelity, though it cannot change a value: every sum
// starts at +0, and +0 plus a zero of either sign is +0, so no sum is -0.
constexpr std::size_t MR = 4;
constexpr std::size_t NR = 8;

inline std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

struct Workspace {
    std::vector<float> panels, transposed;
};
Workspace& workspace() {
    static thread_local Workspace w;
    return w;
}
float* reserve(std::vector<float>& buffer, std::size_t count) {
    if (buffer.size() < count) buffer.resize(count);
    return buffer.data();
}

// B (k x n; B(p, j) = b[p*ldb + j], or b[j*ldb + p] when transposed) → NR-column
// panels [k][NR], zero-padded; panel jp at out + jp·k·NR.
void pack_b(const float* b, std::size_t ldb, bool transposed, std::size_t k, std::size_t n, float* out) {
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
            for (std::size_t j = 0; j < cols; ++j) out[j] = transposed ? b[(j0 + j) * ldb + p] : b[p * ldb + j0 + j];
            for (std::size_t j = cols; j < NR; ++j) out[j] = 0.0f;
        }
    }
}

struct Tile {
    v4f c[MR][2];
};

// Σ_{p < kc} a_i(p)·panel[p], a_i(p) = a[i*a_row + p*a_step], each output in p order from 0.
// Rows past `rows` read row 0 again (never stored).
inline Tile tile_sum(std::size_t kc, const float* a, std::size_t a_row, std::size_t a_step, std::size_t rows,
                     const float* bp) {
    const float* a0 = a;
    const float* a1 = rows > 1 ? a + a_row : a;
    const float* a2 = rows > 2 ? a + 2 * a_row : a;
    const float* a3 = rows > 3 ? a + 3 * a_row : a;
    v4f c00 = splat(0.0f), c01 = splat(0.0f), c10 = splat(0.0f), c11 = splat(0.0f);
    v4f c20 = splat(0.0f), c21 = splat(0.0f), c30 = splat(0.0f), c31 = splat(0.0f);
    for (std::size_t p = 0, q = 0; p < kc; ++p, q += a_step, bp += NR) {
        const v4f b0 = load4(bp), b1 = load4(bp + 4);
        v4f x = splat(a0[q]);
        c00 += x * b0;
        c01 += x * b1;
        x = splat(a1[q]);
        c10 += x * b0;
        c11 += x * b1;
        x = splat(a2[q]);
        c20 += x * b0;
        c21 += x * b1;
        x = splat(a3[q]);
        c30 += x * b0;
        c31 += x * b1;
    }
    return Tile{{{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}}};
}

// The whole sum of a tile over k in kSliceK slices, grouped as kernels::matmul
// did: first slice (0 + it on an edge tile), then each next slice + the total.
inline Tile product_tile(std::size_t k, const float* a, std::size_t a_row, std::size_t a_step, std::size_t rows,
                         const float* panel, bool edge) {
    Tile total = tile_sum(std::min(kSliceK, k), a, a_row, a_step, rows, panel);
    if (edge)
        for (auto& row : total.c) row[0] = splat(0.0f) + row[0], row[1] = splat(0.0f) + row[1];
    for (std::size_t p0 = kSliceK; p0 < k; p0 += kSliceK) {
        const Tile t = tile_sum(std::min(kSliceK, k - p0), a + p0 * a_step, a_row, a_step, rows, panel + p0 * NR);
        for (std::size_t i = 0; i < MR; ++i)
            total.c[i][0] = t.c[i][0] + total.c[i][0], total.c[i][1] = t.c[i][1] + total.c[i][1];
    }
    return total;
}

enum class Store { overwrite, add_bias, accumulate };

// c[m, n] (row stride n) from A (a_i(p) as in tile_sum, row i at a + i*a_row) and packed B.
void product(std::size_t m, std::size_t k, std::size_t n, const float* a, std::size_t a_row, std::size_t a_step,
             const float* panels, float* c, Store how, const float* bias) {
    for (std::size_t j0 = 0; j0 < n; j0 += NR) {
        const std::size_t cols = std::min(NR, n - j0);
        const float* panel = panels + (j0 / NR) * k * NR;
        float bias_row[NR] = {0, 0, 0, 0, 0, 0, 0, 0};
        if (how == Store::add_bias && bias) std::memcpy(bias_row, bias + j0, cols * sizeof(float));
        const v4f bias0 = load4(bias_row), bias1 = load4(bias_row + 4);
        for (std::size_t i0 = 0; i0 < m; i0 += MR) {
            const std::size_t rows = std::min(MR, m - i0);
            Tile t = product_tile(k, a + i0 * a_row, a_row, a_step, rows, panel, rows < MR || cols < NR);
            float* out = c + i0 * n + j0;
            if (how == Store::add_bias)
                for (auto& row : t.c) row[0] = row[0] + bias0, row[1] = row[1] + bias1;
            if (rows == MR && cols == NR) {
                for (std::size_t i = 0; i < MR; ++i) {
                    float* o = out + i * n;
                    if (how == Store::accumulate) {
                        store4(o, load4(o) + t.c[i][0]);
                        store4(o + 4, load4(o + 4) + t.c[i][1]);
                    } else {
                        store4(o, t.c[i][0]);
                        store4(o + 4, t.c[i][1]);
                    }
                }
                continue;
            }
            for (std::size_t i = 0; i < rows; ++i) {
                float values[NR];
                store4(values, t.c[i][0]);
                store4(values + 4, t.c[i][1]);
                float* o = out + i * n;
                for (std::size_t j = 0; j < cols; ++j) o[j] = how == Store::accumulate ? o[j] + values[j] : values[j];
            }
        }
    }
}

}  // namespace

void set_reference(bool on) { use_reference = on; }
bool reference() { return use_reference; }

void linear_forward(const float* x, const float* w, const float* b, float* y, std::size_t m, std::size_t k,
                    std::size_t n) {
    if (m == 0 || n == 0) return;
    float* panels = reserve(workspace().panels, round_up(n, NR) * k);
    pack_b(w, n, false, k, n, panels);
    product(m, k, n, x, k, 1, panels, y, b ? Store::add_bias : Store::overwrite, b);
}

void accumulate_xt_dy(const float* x, const float* dy, float* dw, std::size_t m, std::size_t k, std::size_t n) {
    if (m == 0 || k == 0 || n == 0) return;
    float* panels = reserve(workspace().panels, round_up(n, NR) * m);
    pack_b(dy, n, false, m, n, panels);
    // A = xᵀ [k, m]: row i is x's column i (step k from one term to the next).
    product(k, m, n, x, 1, k, panels, dw, Store::accumulate, nullptr);
}

void dy_wt(const float* dy, const float* w, float* dx, std::size_t m, std::size_t n, std::size_t k) {
    if (m == 0 || k == 0) return;
    float* panels = reserve(workspace().panels, round_up(k, NR) * n);
    pack_b(w, n, true, n, k, panels);  // B = wᵀ [n, k]
    product(m, n, k, dy, n, 1, panels, dx, Store::overwrite, nullptr);
}

void lower_scores(std::size_t S, std::size_t k, const float* a, std::size_t lda, const float* b, std::size_t ldb,
                  float* c) {
    // bᵀ [k, S4], zero-padded to a multiple of 4 columns so every chunk loads whole.
    const std::size_t S4 = round_up(S, 4);
    float* bt = reserve(workspace().transposed, k * S4);
    for (std::size_t p = 0; p < k; ++p) {
        for (std::size_t j = 0; j < S; ++j) bt[p * S4 + j] = b[j * ldb + p];
        for (std::size_t j = S; j < S4; ++j) bt[p * S4 + j] = 0.0f;
    }
    for (std::size_t i = 0; i < S; ++i) {
        float* row = c + i * S;
        const float* ai = a + i * lda;
        const std::size_t valid = i + 1;
        std::size_t j0 = 0;
        for (; j0 + 8 <= valid; j0 += 8) {
            v4f s0 = splat(0.0f), s1 = splat(0.0f);
            for (std::size_t p = 0; p < k; ++p) {
                const v4f x = splat(ai[p]);
                s0 += x * load4(bt + p * S4 + j0);
                s1 += x * load4(bt + p * S4 + j0 + 4);
            }
            store4(row + j0, s0);
            store4(row + j0 + 4, s1);
        }
        for (; j0 < valid; j0 += 4) {
            v4f s = splat(0.0f);
            for (std::size_t p = 0; p < k; ++p) s += splat(ai[p]) * load4(bt + p * S4 + j0);
            if (j0 + 4 <= valid) {
                store4(row + j0, s);
            } else {
                float values[4];
                store4(values, s);
                std::memcpy(row + j0, values, (valid - j0) * sizeof(float));
            }
        }
        std::fill(row + valid, row + S, 0.0f);
    }
}

void lower_times(std::size_t S, std::size_t n, const float* l, const float* b, std::size_t ldb, float* c,
                 std::size_t ldc) {
    for (std::size_t i = 0; i < S; ++i) {
        const float* li = l + i * S;
        float* ci = c + i * ldc;
        std::size_t d0 = 0;
        for (; d0 + 8 <= n; d0 += 8) {
            v4f s0 = splat(0.0f), s1 = splat(0.0f);
            for (std::size_t j = 0; j <= i; ++j) {
                const v4f x = splat(li[j]);
                s0 += x * load4(b + j * ldb + d0);
                s1 += x * load4(b + j * ldb + d0 + 4);
            }
            store4(ci + d0, s0);
            store4(ci + d0 + 4, s1);
        }
        for (; d0 + 4 <= n; d0 += 4) {
            v4f s = splat(0.0f);
            for (std::size_t j = 0; j <= i; ++j) s += splat(li[j]) * load4(b + j * ldb + d0);
            store4(ci + d0, s);
        }
        for (; d0 < n; ++d0) {
            float s = 0.0f;
            for (std::size_t j = 0; j <= i; ++j) s += li[j] * b[j * ldb + d0];
            ci[d0] = s;
        }
    }
}

void lower_transposed_times(std::size_t S, std::size_t n, const float* l, const float* b, std::size_t ldb,
                            float* c, std::size_t ldc) {
    for (std::size_t j = 0; j < S; ++j) {
        float* cj = c + j * ldc;
        std::size_t d0 = 0;
        for (; d0 + 8 <= n; d0 += 8) {
            v4f s0 = splat(0.0f), s1 = splat(0.0f);
            for (std::size_t i = j; i < S; ++i) {
                const v4f x = splat(l[i * S + j]);
                s0 += x * load4(b + i * ldb + d0);
                s1 += x * load4(b + i * ldb + d0 + 4);
            }
            store4(cj + d0, s0);
            store4(cj + d0 + 4, s1);
        }
        for (; d0 + 4 <= n; d0 += 4) {
            v4f s = splat(0.0f);
            for (std::size_t i = j; i < S; ++i) s += splat(l[i * S + j]) * load4(b + i * ldb + d0);
            store4(cj + d0, s);
        }
        for (; d0 < n; ++d0) {
            float s = 0.0f;
            for (std::size_t i = j; i < S; ++i) s += l[i * S + j] * b[i * ldb + d0];
            cj[d0] = s;
        }
    }
}

}  // namespace poslab::train_kernels
