#pragma once
// A second, deliberately simple implementation of the math (double precision,
// no kernels, no shared code with cpp/src) that tests compare the core against.
#include <cmath>
#include <limits>
#include <vector>

namespace ref {

using Mat = std::vector<std::vector<double>>;

inline Mat zeros(std::size_t r, std::size_t c) { return Mat(r, std::vector<double>(c, 0.0)); }

inline Mat matmul(const Mat& a, const Mat& b) {
    Mat c = zeros(a.size(), b[0].size());
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < b[0].size(); ++j)
            for (std::size_t k = 0; k < b.size(); ++k) c[i][j] += a[i][k] * b[k][j];
    return c;
}

// PE(pos, 2i) = sin(pos / base^(2i/D)), PE(pos, 2i+1) = cos(...), written the
// PyTorch way of the guide: div_term = exp(-ln(base) * 2i / D).
inline double sinusoidal(std::size_t pos, std::size_t dim, std::size_t d_model, double base = 10000.0) {
    const std::size_t i2 = dim - dim % 2;
    const double div_term = std::exp(-std::log(base) * static_cast<double>(i2) / static_cast<double>(d_model));
    return dim % 2 == 0 ? std::sin(pos * div_term) : std::cos(pos * div_term);
}

// Rotates pair p of a d-wide head vector by pos * base^(-2p/d).
inline void rope(std::vector<double>& v, std::size_t offset, std::size_t d_head, std::size_t pos, double base) {
    for (std::size_t p = 0; p < d_head / 2; ++p) {
        const double theta = pos / std::pow(base, 2.0 * p / d_head);
        const double x = v[offset + 2 * p], y = v[offset + 2 * p + 1];
        v[offset + 2 * p] = x * std::cos(theta) - y * std::sin(theta);
        v[offset + 2 * p + 1] = x * std::sin(theta) + y * std::cos(theta);
    }
}

struct Attn {
    std::vector<Mat> weights;  // [H][S][S]
    Mat output;                // [S][D]
};

// softmax(QKᵀ/√d_k + bias + mask) V per head; wq..wo empty means identity and no projection.
inline Attn attention(const Mat& x, std::size_t heads, bool causal, const Mat& wq = {}, const Mat& wk = {},
                      const Mat& wv = {}, const Mat& wo = {}, const std::vector<double>& alibi = {},
                      bool use_rope = false, double base = 10000.0, std::size_t offset = 0) {
    const std::size_t s = x.size(), d = x[0].size(), dh = d / heads;
    Mat q = wq.empty() ? x : matmul(x, wq), k = wk.empty() ? x : matmul(x, wk), v = wv.empty() ? x : matmul(x, wv);
    if (use_rope)
        for (std::size_t i = 0; i < s; ++i)
            for (std::size_t h = 0; h < heads; ++h) {
                rope(q[i], h * dh, dh, offset + i, base);
                rope(k[i], h * dh, dh, offset + i, base);
            }
    Attn r;
    Mat concat = zeros(s, d);
    for (std::size_t h = 0; h < heads; ++h) {
        Mat w = zeros(s, s);
        for (std::size_t i = 0; i < s; ++i) {
            std::vector<double> sc(s);
            double mx = -std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j < s; ++j) {
                double dot = 0;
                for (std::size_t t = 0; t < dh; ++t) dot += q[i][h * dh + t] * k[j][h * dh + t];
                sc[j] = dot / std::sqrt(static_cast<double>(dh));
                if (!alibi.empty()) sc[j] -= alibi[h] * std::fabs(double(i) - double(j));
                if (causal && j > i) sc[j] = -std::numeric_limits<double>::infinity();
                mx = std::max(mx, sc[j]);
            }
            double sum = 0;
            for (std::size_t j = 0; j < s; ++j) sum += (w[i][j] = std::exp(sc[j] - mx));
            for (std::size_t j = 0; j < s; ++j) w[i][j] /= sum;
            for (std::size_t j = 0; j < s; ++j)
                for (std::size_t t = 0; t < dh; ++t) concat[i][h * dh + t] += w[i][j] * v[j][h * dh + t];
        }
        r.weights.push_back(w);
    }
    r.output = wo.empty() ? concat : matmul(concat, wo);
    return r;
}

}  // namespace ref
