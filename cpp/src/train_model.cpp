// The tiny Transformer's forward and backward pass (see tiny_transformer.hpp).
// Activations are [N, width] row-major, one row per token of the packed
// sequences (see TokenBatch). Linear layers are X·W with W [in, out].
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "poslab/kernels.hpp"
#include "poslab/random.hpp"
#include "poslab/tiny_transformer.hpp"
#include "poslab/train_kernels.hpp"

namespace poslab {
namespace {

constexpr double kLayerNormEps = 1e-5;

// The float model runs train_kernels.hpp's kernels unless this thread asked
// for the plain loops (train_kernels::set_reference); the double model (the
// gradient checks) always runs the plain loops.
template <class T>
bool fast_path() {
    if constexpr (std::is_same_v<T, float>) return !train_kernels::reference();
    return false;
}

// c[m, n] = a[m, k] · b[k, n], all contiguous: the double-precision path.
template <class T>
void gemm_nn(std::size_t m, std::size_t k, std::size_t n, const T* a, const T* b, T* c) {
    for (std::size_t i = 0; i < m; ++i) {
        T* crow = c + i * n;
        std::fill(crow, crow + n, T(0));
        for (std::size_t p = 0; p < k; ++p) {
            const T aip = a[i * k + p];
            const T* brow = b + p * n;
            for (std::size_t j = 0; j < n; ++j) crow[j] += aip * brow[j];
        }
    }
}

// Contiguous y[m, n] = x[m, k] · w[k, n]: the linear layers, through the shared
// kernel in float.
template <class T>
void matmul(const T* x, const T* w, T* y, std::size_t m, std::size_t k, std::size_t n) {
    if constexpr (std::is_same_v<T, float>) {
        kernels::matmul(x, w, y, m, k, n);
    } else {
        gemm_nn(m, k, n, x, w, y);
    }
}

template <class T>
void transpose(const T* a, std::size_t rows, std::size_t cols, std::size_t lda, T* out) {
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) out[j * rows + i] = a[i * lda + j];
}

// Causal attention touches only the lower triangle j <= i of an [S, S] matrix;
// these three products skip the rest (it is zero).

// c[i, j] = Σ_p a[i, p]·bt[p, j] for j <= i, 0 above (scores Q·Kᵀ with bt = Kᵀ [k, S]).
template <class T>
void lower_scores(std::size_t S, std::size_t k, const T* a, std::size_t lda, const T* bt, T* c) {
    for (std::size_t i = 0; i < S; ++i) {
        T* row = c + i * S;
        std::fill(row, row + S, T(0));
        for (std::size_t p = 0; p < k; ++p) {
            const T aip = a[i * lda + p];
            const T* b = bt + p * S;
            for (std::size_t j = 0; j <= i; ++j) row[j] += aip * b[j];
        }
    }
}

// c[i, :] = Σ_{j<=i} l[i, j]·b[j, :], l lower-triangular [S, S], b and c [S, n].
template <class T>
void lower_times(std::size_t S, std::size_t n, const T* l, const T* b, std::size_t ldb, T* c,
                 std::size_t ldc) {
    if constexpr (std::is_same_v<T, float>)
        if (fast_path<T>()) return train_kernels::lower_times(S, n, l, b, ldb, c, ldc);
    for (std::size_t i = 0; i < S; ++i) {
        T* crow = c + i * ldc;
        std::fill(crow, crow + n, T(0));
        for (std::size_t j = 0; j <= i; ++j) {
            const T lij = l[i * S + j];
            const T* brow = b + j * ldb;
            for (std::size_t d = 0; d < n; ++d) crow[d] += lij * brow[d];
        }
    }
}

// c[j, :] = Σ_{i>=j} l[i, j]·b[i, :]: lᵀ·b for the same l.
template <class T>
void lower_transposed_times(std::size_t S, std::size_t n, const T* l, const T* b, std::size_t ldb,
                            T* c, std::size_t ldc) {
    if constexpr (std::is_same_v<T, float>)
        if (fast_path<T>()) return train_kernels::lower_transposed_times(S, n, l, b, ldb, c, ldc);
    for (std::size_t j = 0; j < S; ++j) std::fill(c + j * ldc, c + j * ldc + n, T(0));
    for (std::size_t i = 0; i < S; ++i) {
        const T* brow = b + i * ldb;
        for (std::size_t j = 0; j <= i; ++j) {
            const T lij = l[i * S + j];
            T* crow = c + j * ldc;
            for (std::size_t d = 0; d < n; ++d) crow[d] += lij * brow[d];
        }
    }
}

// y = x·W + b, x [N, in], W [in, out].
template <class T>
void linear(const std::vector<T>& x, const T* w, const T* b, std::size_t n, std::size_t in,
            std::size_t out, std::vector<T>& y) {
    y.resize(n * out);
    if constexpr (std::is_same_v<T, float>)
        if (fast_path<T>()) return train_kernels::linear_forward(x.data(), w, b, y.data(), n, in, out);
    matmul(x.data(), w, y.data(), n, in, out);
    for (std::size_t r = 0; r < n; ++r)
        for (std::size_t j = 0; j < out; ++j) y[r * out + j] += b[j];
}

// Given dy [N, out]: dW += xᵀ·dy, db += Σ_rows dy, and dx = dy·Wᵀ (overwritten).
template <class T>
void linear_backward(const std::vector<T>& x, const T* w, const std::vector<T>& dy, std::size_t n,
                     std::size_t in, std::size_t out, T* dw, T* db, std::vector<T>& dx,
                     std::vector<T>& scratch) {
    if constexpr (std::is_same_v<T, float>)
        if (fast_path<T>()) {
            train_kernels::accumulate_xt_dy(x.data(), dy.data(), dw, n, in, out);
            for (std::size_t r = 0; r < n; ++r)
                for (std::size_t j = 0; j < out; ++j) db[j] += dy[r * out + j];
            dx.resize(n * in);
            train_kernels::dy_wt(dy.data(), w, dx.data(), n, out, in);
            return;
        }
    // xᵀ·dy as a plain matmul of the transposed x, so that it too goes
    // through the shared kernel.
    scratch.resize(in * n);
    transpose(x.data(), n, in, in, scratch.data());
    std::vector<T> dw_batch(in * out);
    matmul(scratch.data(), dy.data(), dw_batch.data(), in, n, out);
    for (std::size_t i = 0; i < in * out; ++i) dw[i] += dw_batch[i];
    scratch.resize(in * out);
    for (std::size_t r = 0; r < n; ++r)
        for (std::size_t j = 0; j < out; ++j) db[j] += dy[r * out + j];
    transpose(w, in, out, out, scratch.data());  // Wᵀ [out, in]
    dx.resize(n * in);
    matmul(dy.data(), scratch.data(), dx.data(), n, out, in);
}

template <class T>
void layer_norm(const std::vector<T>& x, const T* g, const T* b, std::size_t n, std::size_t d,
                std::vector<T>& xhat, std::vector<T>& rstd, std::vector<T>& y) {
    xhat.resize(n * d);
    rstd.resize(n);
    y.resize(n * d);
    for (std::size_t r = 0; r < n; ++r) {
        const T* xr = x.data() + r * d;
        T mean = 0;
        for (std::size_t j = 0; j < d; ++j) mean += xr[j];
        mean /= T(d);
        T var = 0;
        for (std::size_t j = 0; j < d; ++j) var += (xr[j] - mean) * (xr[j] - mean);
        var /= T(d);
        const T rs = T(1) / std::sqrt(var + T(kLayerNormEps));
        rstd[r] = rs;
        for (std::size_t j = 0; j < d; ++j) {
            const T xh = (xr[j] - mean) * rs;
            xhat[r * d + j] = xh;
            y[r * d + j] = xh * g[j] + b[j];
        }
    }
}

// dx += LayerNorm backward of dy; dg, db accumulate.
template <class T>
void layer_norm_backward(const std::vector<T>& dy, const std::vector<T>& xhat,
                         const std::vector<T>& rstd, const T* g, std::size_t n, std::size_t d,
                         T* dg, T* db, std::vector<T>& dx) {
    for (std::size_t r = 0; r < n; ++r) {
        const T* dyr = dy.data() + r * d;
        const T* xh = xhat.data() + r * d;
        T mean_dxhat = 0, mean_dxhat_xhat = 0;
        for (std::size_t j = 0; j < d; ++j) {
            const T dxhat = dyr[j] * g[j];
            mean_dxhat += dxhat;
            mean_dxhat_xhat += dxhat * xh[j];
            dg[j] += dyr[j] * xh[j];
            db[j] += dyr[j];
        }
        mean_dxhat /= T(d);
        mean_dxhat_xhat /= T(d);
        for (std::size_t j = 0; j < d; ++j) {
            const T dxhat = dyr[j] * g[j];
            dx[r * d + j] += rstd[r] * (dxhat - mean_dxhat - xh[j] * mean_dxhat_xhat);
        }
    }
}

bool is_power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

}  // namespace

std::vector<double> alibi_head_slopes(std::size_t heads) {
    if (heads == 0) throw std::invalid_argument("ALiBi needs at least 1 head, got 0");
    auto power_of_two_slopes = [](std::size_t n) {
        std::vector<double> s(n);
        for (std::size_t h = 1; h <= n; ++h) s[h - 1] = std::exp2(-8.0 * double(h) / double(n));
        return s;
    };
    if (is_power_of_two(heads)) return power_of_two_slopes(heads);
    std::size_t lower = 1;
    while (lower * 2 < heads) lower *= 2;
    std::vector<double> slopes = power_of_two_slopes(lower);
    const std::vector<double> next = power_of_two_slopes(2 * lower);
    for (std::size_t i = 0; slopes.size() < heads; i += 2) slopes.push_back(next[i]);
    return slopes;
}

template <class T>
TinyTransformer<T>::TinyTransformer(const TinyTransformerConfig& config) : config_(config) {
    const auto& c = config_;
    auto positive = [](std::size_t v, const char* name) {
        if (v == 0) throw std::invalid_argument(std::string(name) + " must be at least 1, got 0");
    };
    positive(c.vocab, "vocab");
    positive(c.d_model, "d_model");
    positive(c.heads, "heads");
    positive(c.layers, "layers");
    positive(c.d_mlp, "d_mlp");
    positive(c.max_positions, "max_positions");
    if (c.d_model % c.heads != 0)
        throw std::invalid_argument("heads must divide d_model: d_model " +
                                    std::to_string(c.d_model) + ", heads " +
                                    std::to_string(c.heads));
    d_head_ = c.d_model / c.heads;
    if (c.scheme == PositionScheme::rope && d_head_ % 2 != 0)
        throw std::invalid_argument("RoPE needs an even head width d_model/heads, got " +
                                    std::to_string(d_head_));
    if (c.scheme == PositionScheme::sinusoidal && c.d_model % 2 != 0)
        throw std::invalid_argument("the sinusoidal encoding needs an even d_model, got " +
                                    std::to_string(c.d_model));
    if (!(c.base > 1.0) || !std::isfinite(c.base))
        throw std::invalid_argument("base must be a finite number > 1, got " +
                                    std::to_string(c.base));
    if (!c.rope_theta.empty()) {
        if (c.scheme != PositionScheme::rope || c.rope_theta.size() != d_head_ / 2)
            throw std::invalid_argument("rope_theta needs the rope scheme and d_head/2 = " +
                                        std::to_string(d_head_ / 2) + " values, got " +
                                        std::to_string(c.rope_theta.size()));
        for (double t : c.rope_theta)
            if (!std::isfinite(t)) throw std::invalid_argument("rope_theta values must be finite");
    }
    if (!(c.logit_scale > 0.0) || !std::isfinite(c.logit_scale))
        throw std::invalid_argument("logit_scale must be a finite number > 0, got " +
                                    std::to_string(c.logit_scale));

    const std::size_t D = c.d_model, F = c.d_mlp, V = c.vocab;
    std::size_t offset = 0;
    auto add = [&](const std::string& name, std::size_t size, double std_dev, double value = 0.0) {
        groups_.push_back({name, offset, size, std_dev, value});
        offset += size;
        return offset - size;
    };
    constexpr double kStd = 0.02;
    tok_emb_ = add("token_embedding", V * D, 1.0);
    pos_emb_ = c.scheme == PositionScheme::learned ? add("position_table", c.max_positions * D, kStd)
                                                   : 0;
    for (std::size_t l = 0; l < c.layers; ++l) {
        const std::string p = "layer" + std::to_string(l + 1) + ".";
        LayerOffsets o;
        o.ln1_g = add(p + "ln1_gain", D, 0.0, 1.0);
        o.ln1_b = add(p + "ln1_bias", D, 0.0);
        o.w_qkv = add(p + "w_qkv", D * 3 * D, kStd);
        o.b_qkv = add(p + "b_qkv", 3 * D, 0.0);
        o.w_o = add(p + "w_o", D * D, kStd);
        o.b_o = add(p + "b_o", D, 0.0);
        o.ln2_g = add(p + "ln2_gain", D, 0.0, 1.0);
        o.ln2_b = add(p + "ln2_bias", D, 0.0);
        o.w_1 = add(p + "w_mlp1", D * F, kStd);
        o.b_1 = add(p + "b_mlp1", F, 0.0);
        o.w_2 = add(p + "w_mlp2", F * D, kStd);
        o.b_2 = add(p + "b_mlp2", D, 0.0);
        layer_.push_back(o);
    }
    lnf_g_ = add("final_ln_gain", D, 0.0, 1.0);
    lnf_b_ = add("final_ln_bias", D, 0.0);
    w_out_ = add("w_out", D * V, kStd);
    b_out_ = add("b_out", V, 0.0);
    params_.assign(offset, T(0));
    acts_.resize(c.layers);

    // Fixed tables, computed in double: the same formulas as positional.hpp.
    const std::size_t P = c.max_positions;
    if (c.scheme == PositionScheme::sinusoidal) {
        sinusoid_.resize(P * D);
        for (std::size_t pos = 0; pos < P; ++pos)
            for (std::size_t i = 0; i < D / 2; ++i) {
                const double angle = double(pos) / std::pow(c.base, 2.0 * double(i) / double(D));
                sinusoid_[pos * D + 2 * i] = T(std::sin(angle));
                sinusoid_[pos * D + 2 * i + 1] = T(std::cos(angle));
            }
    }
    if (c.scheme == PositionScheme::rope) {
        const std::size_t half = d_head_ / 2;
        rope_cos_.resize(P * half);
        rope_sin_.resize(P * half);
        for (std::size_t pos = 0; pos < P; ++pos)
            for (std::size_t i = 0; i < half; ++i) {
                const double theta = c.rope_theta.empty()
                                         ? std::pow(c.base, -2.0 * double(i) / double(d_head_))
                                         : c.rope_theta[i];
                const double angle = double(pos) * theta;
                rope_cos_[pos * half + i] = T(std::cos(angle));
                rope_sin_[pos * half + i] = T(std::sin(angle));
            }
    }
    if (c.scheme == PositionScheme::alibi)
        for (double s : alibi_head_slopes(c.heads)) slopes_.push_back(T(s));
}

template <class T>
void TinyTransformer<T>::initialize(std::uint64_t seed) {
    // Each group draws from (seed, its name) alone, so the schemes share every
    // weight they have in common (the learned table is one more group).
    for (const auto& g : groups_) {
        Rng rng(mix_seed(seed, hash_string(g.name)));
        for (std::size_t i = 0; i < g.size; ++i)
            params_[g.offset + i] =
                g.init_std > 0 ? T(rng.normal() * g.init_std) : T(g.init_value);
    }
}

template <class T>
void TinyTransformer<T>::check_batch(const TokenBatch& b) {
    if (b.lengths.empty())
        throw std::invalid_argument("a batch needs at least one sequence");
    positions_.clear();
    for (std::size_t len : b.lengths) {
        if (len == 0) throw std::invalid_argument("a sequence in the batch is empty");
        if (len > config_.max_positions)
            throw std::out_of_range("sequence length " + std::to_string(len) +
                                    " exceeds the model's max_positions " +
                                    std::to_string(config_.max_positions));
        for (std::size_t s = 0; s < len; ++s) positions_.push_back(s);
    }
    const std::size_t n = positions_.size();
    if (b.tokens.size() != n || b.targets.size() != n || b.weights.size() != n)
        throw std::invalid_argument(
            "tokens, targets and weights must each hold one value per row: " + std::to_string(n));
    for (std::size_t i = 0; i < n; ++i) {
        if (b.tokens[i] < 0 || std::size_t(b.tokens[i]) >= config_.vocab ||
            b.targets[i] < 0 || std::size_t(b.targets[i]) >= config_.vocab)
            throw std::out_of_range("token ids must be in 0.." + std::to_string(config_.vocab - 1));
    }
}

// Rotates (or, with inverse, rotates back) each interleaved pair of every
// head of the Q and K parts of qkv [N, 3D] by its position's angle.
template <class T>
void TinyTransformer<T>::rotate(std::vector<T>& qkv, bool inverse) const {
    const std::size_t D = config_.d_model, half = d_head_ / 2;
    for (std::size_t r = 0; r < positions_.size(); ++r) {
        T* row = qkv.data() + r * 3 * D;
        const T* cs = rope_cos_.data() + positions_[r] * half;
        const T* sn = rope_sin_.data() + positions_[r] * half;
        for (std::size_t part = 0; part < 2; ++part)  // Q, then K
            for (std::size_t h = 0; h < config_.heads; ++h) {
                T* v = row + part * D + h * d_head_;
                for (std::size_t i = 0; i < half; ++i) {
                    const T c = cs[i], si = inverse ? -sn[i] : sn[i];
                    const T x0 = v[2 * i], x1 = v[2 * i + 1];
                    v[2 * i] = x0 * c - x1 * si;
                    v[2 * i + 1] = x0 * si + x1 * c;
                }
            }
    }
}

template <class T>
void TinyTransformer<T>::attention_forward(const TokenBatch& batch, LayerActivations& act) {
    const std::size_t D = config_.d_model, H = config_.heads, dh = d_head_;
    const T scale = T(config_.logit_scale) / std::sqrt(T(dh));
    std::size_t prob_size = 0;
    for (std::size_t S : batch.lengths) prob_size += H * S * S;
    act.probs.resize(prob_size);
    act.ctx.resize(positions_.size() * D);
    const bool fast = fast_path<T>();
    std::vector<T> local;
    std::vector<T>& kt = fast ? work_.kt : local;
    std::size_t row0 = 0;
    T* p = act.probs.data();
    for (std::size_t S : batch.lengths) {
        const T* base = act.qkv.data() + row0 * 3 * D;
        kt.resize(dh * S);
        for (std::size_t h = 0; h < H; ++h, p += S * S) {
            const T* q = base + h * dh;
            const T* k = base + D + h * dh;
            const T* v = base + 2 * D + h * dh;
            if constexpr (std::is_same_v<T, float>)
                if (fast) train_kernels::lower_scores(S, dh, q, 3 * D, k, 3 * D, p);
            if (!fast) {
                transpose(k, S, dh, 3 * D, kt.data());
                lower_scores(S, dh, q, 3 * D, kt.data(), p);
            }
            for (std::size_t i = 0; i < S; ++i) {
                T* row = p + i * S;
                T mx = -std::numeric_limits<T>::infinity();
                for (std::size_t j = 0; j <= i; ++j) {
                    row[j] *= scale;
                    if (!slopes_.empty()) row[j] -= slopes_[h] * T(i - j);
                    mx = std::max(mx, row[j]);
                }
                T sum = 0;
                for (std::size_t j = 0; j <= i; ++j) {
                    row[j] = std::exp(row[j] - mx);
                    sum += row[j];
                }
                const T inv = T(1) / sum;
                for (std::size_t j = 0; j <= i; ++j) row[j] *= inv;
            }
            lower_times(S, dh, p, v, 3 * D, act.ctx.data() + row0 * D + h * dh, D);
        }
        row0 += S;
    }
}

template <class T>
void TinyTransformer<T>::attention_backward(const TokenBatch& batch, const LayerActivations& act,
                                            const std::vector<T>& dctx, std::vector<T>& dqkv) {
    const std::size_t D = config_.d_model, H = config_.heads, dh = d_head_;
    const T scale = T(config_.logit_scale) / std::sqrt(T(dh));
    dqkv.resize(positions_.size() * 3 * D);
    const bool fast = fast_path<T>();
    std::vector<T> local_vt, local_dp;
    std::vector<T>& vt = fast ? work_.vt : local_vt;
    std::vector<T>& dp = fast ? work_.dp : local_dp;
    std::size_t row0 = 0;
    const T* p = act.probs.data();
    for (std::size_t S : batch.lengths) {
        const T* base = act.qkv.data() + row0 * 3 * D;
        T* dbase = dqkv.data() + row0 * 3 * D;
        const T* dc = dctx.data() + row0 * D;
        vt.resize(dh * S);
        dp.resize(S * S);
        for (std::size_t h = 0; h < H; ++h, p += S * S) {
            const T* q = base + h * dh;
            const T* k = base + D + h * dh;
            const T* v = base + 2 * D + h * dh;
            const T* dch = dc + h * dh;
            // dP = dctx·Vᵀ, dV = Pᵀ·dctx
            if constexpr (std::is_same_v<T, float>)
                if (fast) train_kernels::lower_scores(S, dh, dch, D, v, 3 * D, dp.data());
            if (!fast) {
                transpose(v, S, dh, 3 * D, vt.data());
                lower_scores(S, dh, dch, D, vt.data(), dp.data());
            }
            lower_transposed_times(S, dh, p, dch, D, dbase + 2 * D + h * dh, 3 * D);
            // Softmax backward: dScore = P ⊙ (dP − Σ_j P·dP), then the 1/√d_k.
            for (std::size_t i = 0; i < S; ++i) {
                const T* prow = p + i * S;
                T* row = dp.data() + i * S;
                T dot = 0;
                for (std::size_t j = 0; j <= i; ++j) dot += prow[j] * row[j];
                for (std::size_t j = 0; j <= i; ++j) row[j] = prow[j] * (row[j] - dot) * scale;
            }
            // dQ = dScore·K, dK = dScoreᵀ·Q
            lower_times(S, dh, dp.data(), k, 3 * D, dbase + h * dh, 3 * D);
            lower_transposed_times(S, dh, dp.data(), q, 3 * D, dbase + D + h * dh, 3 * D);
        }
        row0 += S;
    }
}

template <class T>
T TinyTransformer<T>::forward(const TokenBatch& batch) {
    check_batch(batch);
    const auto& c = config_;
    const std::size_t N = positions_.size(), D = c.d_model, F = c.d_mlp, V = c.vocab;
    const T* w = params_.data();

    // The float kernels reuse one workspace from step to step; the plain
    // loops allocate theirs per call, as they always did.
    Workspace local;
    Workspace& ws = fast_path<T>() ? work_ : local;
    std::vector<T>& x = ws.x;
    std::vector<T>& tmp = ws.tmp;
    x.resize(N * D);
    for (std::size_t r = 0; r < N; ++r) {
        const std::size_t s = positions_[r];
        const T* e = w + tok_emb_ + std::size_t(batch.tokens[r]) * D;
        for (std::size_t j = 0; j < D; ++j) {
            T value = e[j];
            if (c.scheme == PositionScheme::learned) value += w[pos_emb_ + s * D + j];
            if (c.scheme == PositionScheme::sinusoidal) value += sinusoid_[s * D + j];
            x[r * D + j] = value;
        }
    }
    for (std::size_t l = 0; l < c.layers; ++l) {
        const LayerOffsets& o = layer_[l];
        LayerActivations& act = acts_[l];
        layer_norm(x, w + o.ln1_g, w + o.ln1_b, N, D, act.xhat1, act.rstd1, act.h1);
        linear(act.h1, w + o.w_qkv, w + o.b_qkv, N, D, 3 * D, act.qkv);
        if (c.scheme == PositionScheme::rope) rotate(act.qkv, false);
        attention_forward(batch, act);
        linear(act.ctx, w + o.w_o, w + o.b_o, N, D, D, tmp);
        for (std::size_t i = 0; i < N * D; ++i) x[i] += tmp[i];
        layer_norm(x, w + o.ln2_g, w + o.ln2_b, N, D, act.xhat2, act.rstd2, act.h2);
        linear(act.h2, w + o.w_1, w + o.b_1, N, D, F, act.u);
        act.a.resize(N * F);
        for (std::size_t i = 0; i < N * F; ++i) act.a[i] = std::max(act.u[i], T(0));
        linear(act.a, w + o.w_2, w + o.b_2, N, F, D, tmp);
        for (std::size_t i = 0; i < N * D; ++i) x[i] += tmp[i];
    }
    layer_norm(x, w + lnf_g_, w + lnf_b_, N, D, xhatf_, rstdf_, hf_);
    linear(hf_, w + w_out_, w + b_out_, N, D, V, logits_);

    // Cross entropy; probs_out_ keeps the softmax for the backward pass.
    probs_out_.resize(N * V);
    T total = 0;
    weight_sum_ = 0;
    for (std::size_t r = 0; r < N; ++r) {
        const T* z = logits_.data() + r * V;
        T* pr = probs_out_.data() + r * V;
        const T mx = *std::max_element(z, z + V);
        T sum = 0;
        for (std::size_t j = 0; j < V; ++j) {
            pr[j] = std::exp(z[j] - mx);
            sum += pr[j];
        }
        for (std::size_t j = 0; j < V; ++j) pr[j] /= sum;
        if (batch.weights[r] != 0.0f) {
            total += T(batch.weights[r]) * (std::log(sum) + mx - z[batch.targets[r]]);
            weight_sum_ += T(batch.weights[r]);
        }
    }
    return weight_sum_ > 0 ? total / weight_sum_ : T(0);
}

template <class T>
void TinyTransformer<T>::backward(const TokenBatch& batch, std::vector<T>& grad) {
    const auto& c = config_;
    const std::size_t N = positions_.size(), D = c.d_model, F = c.d_mlp, V = c.vocab;
    const T* w = params_.data();
    grad.assign(params_.size(), T(0));
    T* g = grad.data();
    Workspace local;
    Workspace& ws = fast_path<T>() ? work_ : local;
    std::vector<T>& scratch = ws.scratch;
    std::vector<T>& dh = ws.dh;
    std::vector<T>& dx = ws.dx;
    std::vector<T>& dlogits = ws.dlogits;
    dx.assign(N * D, T(0));
    dlogits.assign(N * V, T(0));

    if (weight_sum_ > 0)
        for (std::size_t r = 0; r < N; ++r) {
            if (batch.weights[r] == 0.0f) continue;
            const T k = T(batch.weights[r]) / weight_sum_;
            for (std::size_t j = 0; j < V; ++j) dlogits[r * V + j] = k * probs_out_[r * V + j];
            dlogits[r * V + std::size_t(batch.targets[r])] -= k;
        }
    linear_backward(hf_, w + w_out_, dlogits, N, D, V, g + w_out_, g + b_out_, dh, scratch);
    layer_norm_backward(dh, xhatf_, rstdf_, w + lnf_g_, N, D, g + lnf_g_, g + lnf_b_, dx);

    std::vector<T>& du = ws.du;
    std::vector<T>& dctx = ws.dctx;
    std::vector<T>& dqkv = ws.dqkv;
    for (std::size_t l = c.layers; l-- > 0;) {
        const LayerOffsets& o = layer_[l];
        const LayerActivations& act = acts_[l];
        // x += ReLU(LN2(x)·W1 + b1)·W2 + b2
        linear_backward(act.a, w + o.w_2, dx, N, F, D, g + o.w_2, g + o.b_2, du, scratch);
        for (std::size_t i = 0; i < N * F; ++i)
            if (!(act.u[i] > T(0))) du[i] = T(0);
        linear_backward(act.h2, w + o.w_1, du, N, D, F, g + o.w_1, g + o.b_1, dh, scratch);
        layer_norm_backward(dh, act.xhat2, act.rstd2, w + o.ln2_g, N, D, g + o.ln2_g, g + o.ln2_b,
                            dx);
        // x += Attention(LN1(x))·Wo + bo
        linear_backward(act.ctx, w + o.w_o, dx, N, D, D, g + o.w_o, g + o.b_o, dctx, scratch);
        attention_backward(batch, act, dctx, dqkv);
        if (c.scheme == PositionScheme::rope) rotate(dqkv, true);
        linear_backward(act.h1, w + o.w_qkv, dqkv, N, D, 3 * D, g + o.w_qkv, g + o.b_qkv, dh,
                        scratch);
        layer_norm_backward(dh, act.xhat1, act.rstd1, w + o.ln1_g, N, D, g + o.ln1_g, g + o.ln1_b,
                            dx);
    }
    for (std::size_t r = 0; r < N; ++r) {
        const std::size_t s = positions_[r];
        T* ge = g + tok_emb_ + std::size_t(batch.tokens[r]) * D;
        for (std::size_t j = 0; j < D; ++j) ge[j] += dx[r * D + j];
        if (c.scheme == PositionScheme::learned)
            for (std::size_t j = 0; j < D; ++j) g[pos_emb_ + s * D + j] += dx[r * D + j];
    }
}

template <class T>
T TinyTransformer<T>::loss(const TokenBatch& batch) {
    return forward(batch);
}

template <class T>
T TinyTransformer<T>::loss_and_gradient(const TokenBatch& batch, std::vector<T>& gradient) {
    const T value = forward(batch);
    backward(batch, gradient);
    return value;
}

template <class T>
std::vector<T> TinyTransformer<T>::logits(const TokenBatch& batch) {
    forward(batch);
    return logits_;
}

template class TinyTransformer<float>;
template class TinyTransformer<double>;

}  // namespace poslab
