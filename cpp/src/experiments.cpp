#include "poslab/experiments.hpp"

#include <cmath>

#include <algorithm>
#include <limits>
#include <string>

#include "poslab/attention.hpp"
#include "poslab/embedding.hpp"
#include "poslab/kernels.hpp"
#include "poslab/errors.hpp"
#include "poslab/positional.hpp"
#include "poslab/random.hpp"
#include "poslab/tokenizer.hpp"

namespace poslab {
namespace {

void check_permutation(const std::vector<std::size_t>& perm, std::size_t length) {
    if (perm.size() != length)
        throw InvalidArgument("bad_permutation",
                              "permutation has " + std::to_string(perm.size()) + " entries but the input has " +
                                  std::to_string(length) + " rows; give each of 0 to " +
                                  std::to_string(length - 1) + " once",
                              {{"length", std::to_string(length)}});
    std::vector<bool> seen(length, false);
    for (std::size_t i = 0; i < perm.size(); ++i) {
        if (perm[i] >= length || seen[perm[i]])
            throw InvalidArgument("bad_permutation",
                                  "permutation[" + std::to_string(i) + "] = " + std::to_string(perm[i]) +
                                      (perm[i] >= length ? " is out of range" : " repeats an earlier entry") +
                                      "; give each of 0 to " + std::to_string(length - 1) + " once",
                                  {{"length", std::to_string(length)}});
        seen[perm[i]] = true;
    }
}

}  // namespace

PermutationCheck permutation_check(const ForwardOptions& options, const std::vector<std::size_t>& permutation) {
    PermutationCheck c;
    c.original = forward(options);
    const std::size_t seq = c.original.input.shape(0);
    check_permutation(permutation, seq);
    c.permutation = permutation;

    ForwardOptions p = options;
    if (options.vectors) {
        std::vector<std::vector<double>> rows(seq);
        for (std::size_t i = 0; i < seq; ++i) rows[i] = (*options.vectors)[permutation[i]];
        p.vectors = std::move(rows);
    } else {
        std::vector<std::string> toks(seq);
        for (std::size_t i = 0; i < seq; ++i) toks[i] = c.original.tokens[permutation[i]];
        p.text.reset();
        p.tokens = std::move(toks);
    }
    c.permuted = forward(p);

    // Attention(PX) against P·Attention(X): row i of the first is row perm[i] of the second.
    const std::size_t width = c.original.output.shape(1);
    double worst = 0.0;
    for (std::size_t i = 0; i < seq; ++i)
        for (std::size_t d = 0; d < width; ++d)
            worst = std::max(worst, std::fabs(static_cast<double>(c.permuted.output(i, d)) -
                                              static_cast<double>(c.original.output(permutation[i], d))));
    c.max_abs_diff = worst;
    return c;
}

ScoreScale parse_score_scale(const std::string& name) {
    if (name == "sqrt_dk") return ScoreScale::sqrt_dk;
    if (name == "none") return ScoreScale::none;
    if (name == "dk") return ScoreScale::dk;
    throw InvalidArgument("unknown_scale", "unknown scale '" + name + "'; allowed: sqrt_dk, none, dk",
                          {{"value", name}});
}

AttentionSteps attention_steps(const ForwardOptions& options, ScoreScale scale) {
    AttentionSteps r;
    r.forward = forward(options);
    const std::size_t seq = r.forward.hidden.shape(0), width = r.forward.hidden.shape(1);
    constexpr std::size_t kMaxStepsLength = 256;
    if (seq > kMaxStepsLength)
        throw InvalidArgument("too_many_tokens",
                              "attention steps are for small inputs: at most " + std::to_string(kMaxStepsLength) +
                                  " tokens, got " + std::to_string(seq),
                              {{"limit", std::to_string(kMaxStepsLength)}});
    const std::size_t heads = options.heads, d_head = width / heads;
    const AttentionWeights w = make_attention_weights(options.weights, width, options.seed);
    xt::xtensor<float, 2> q = r.forward.hidden, k = r.forward.hidden, v = r.forward.hidden;
    if (w.kind == WeightsKind::random) {
        kernels::matmul(r.forward.hidden.data(), w.wq.data(), q.data(), seq, width, width);
        kernels::matmul(r.forward.hidden.data(), w.wk.data(), k.data(), seq, width, width);
        kernels::matmul(r.forward.hidden.data(), w.wv.data(), v.data(), seq, width, width);
    }
    if (options.pe == PositionScheme::rope) {
        std::vector<std::size_t> positions(seq);
        for (std::size_t s = 0; s < seq; ++s) positions[s] = options.position_offset + s;
        apply_rope(q, heads, options.base, positions);
        apply_rope(k, heads, options.base, positions);
    }
    const double dk = static_cast<double>(d_head);
    const float factor = static_cast<float>(scale == ScoreScale::sqrt_dk ? 1.0 / std::sqrt(dk)
                                            : scale == ScoreScale::dk    ? 1.0 / dk
                                                                         : 1.0);
    const std::vector<double> slopes =
        options.pe == PositionScheme::alibi ? alibi_slopes(heads) : std::vector<double>{};
    r.dots = xt::xtensor<float, 3>({heads, seq, seq});
    r.scores = xt::xtensor<float, 3>({heads, seq, seq});
    r.weights = xt::xtensor<float, 3>({heads, seq, seq});
    xt::xtensor<float, 2> context = xt::zeros<float>({seq, width});
    for (std::size_t h = 0; h < heads; ++h) {
        float* dots = r.dots.data() + h * seq * seq;
        kernels::matmul_bt(q.data() + h * d_head, width, k.data() + h * d_head, width, dots, seq, d_head, seq, 1.0f);
        for (std::size_t i = 0; i < seq; ++i)
            for (std::size_t j = 0; j < seq; ++j) {
                float s = dots[i * seq + j] * factor;
                if (!slopes.empty()) s -= static_cast<float>(slopes[h]) * static_cast<float>(i > j ? i - j : j - i);
                if (options.causal && j > i) s = -std::numeric_limits<float>::infinity();
                r.scores(h, i, j) = s;
            }
        float* weights = r.weights.data() + h * seq * seq;
        std::copy(r.scores.data() + h * seq * seq, r.scores.data() + (h + 1) * seq * seq, weights);
        kernels::softmax_rows(weights, seq, seq);
        for (std::size_t i = 0; i < seq; ++i)
            for (std::size_t j = 0; j < seq; ++j)
                for (std::size_t d = 0; d < d_head; ++d)
                    context(i, h * d_head + d) += weights[i * seq + j] * v(j, h * d_head + d);
    }
    if (w.kind == WeightsKind::random) {
        r.output = xt::xtensor<float, 2>({seq, width});
        kernels::matmul(context.data(), w.wo.data(), r.output.data(), seq, width, width);
    } else {
        r.output = context;
    }
    return r;
}

xt::xtensor<float, 3> alibi_bias_table(std::size_t length, std::size_t heads) {
    if (length < 1 || length > 1024)
        throw InvalidArgument("out_of_range_option", "length must be from 1 to 1024, got " + std::to_string(length),
                              {{"field", "length"}, {"min", "1"}, {"max", "1024"}});
    if (heads < 1 || heads > 64)
        throw InvalidArgument("out_of_range_option", "heads must be from 1 to 64, got " + std::to_string(heads),
                              {{"field", "heads"}, {"min", "1"}, {"max", "64"}});
    return alibi_biases(length, heads);
}

RopeCheck rope_relative_check(std::size_t d_head, std::size_t m, std::size_t n, std::size_t shift,
                              std::uint32_t seed, double base, const std::vector<float>& q,
                              const std::vector<float>& k) {
    if (d_head < 2 || d_head % 2 != 0 || d_head > kMaxDModel)
        throw InvalidArgument("odd_width",
                              "dHead must be even, from 2 to " + std::to_string(kMaxDModel) +
                                  " (RoPE rotates pairs of values), got " + std::to_string(d_head),
                              {{"field", "dHead"}, {"value", std::to_string(d_head)}, {"scheme", "rope"}});
    const std::size_t top = std::max(m, n) + shift;
    if (m >= kMaxPosition || n >= kMaxPosition || shift >= kMaxPosition || top >= kMaxPosition)
        throw InvalidArgument("position_limit", "m, n and m+shift, n+shift must be below " +
                                                    std::to_string(kMaxPosition),
                              {{"limit", std::to_string(kMaxPosition - 1)}});
    RopeCheck r;
    if (q.empty() != k.empty())
        throw InvalidArgument("rope_vectors", "give both q and k, or neither");
    if (!q.empty()) {
        if (q.size() != d_head || k.size() != d_head)
            throw InvalidArgument("rope_vectors", "q and k must both have dHead = " + std::to_string(d_head) +
                                                      " values");
        for (float v : q) if (!std::isfinite(v)) throw InvalidArgument("non_finite_value", "q has a NaN or infinite value");
        for (float v : k) if (!std::isfinite(v)) throw InvalidArgument("non_finite_value", "k has a NaN or infinite value");
        r.q = q;
        r.k = k;
    } else {
        Rng rng(mix_seed(seed, 0x20beull));
        r.q.resize(d_head);
        r.k.resize(d_head);
        for (float& v : r.q) v = static_cast<float>(rng.normal());
        for (float& v : r.k) v = static_cast<float>(rng.normal());
    }
    auto score_at = [&](std::size_t pm, std::size_t pn) {
        xt::xtensor<float, 2> qq({1, d_head}), kk({1, d_head});
        std::copy(r.q.begin(), r.q.end(), qq.begin());
        std::copy(r.k.begin(), r.k.end(), kk.begin());
        apply_rope(qq, 1, base, {pm});
        apply_rope(kk, 1, base, {pn});
        double s = 0.0;
        for (std::size_t i = 0; i < d_head; ++i) s += static_cast<double>(qq(0, i)) * kk(0, i);
        return s;
    };
    r.score = score_at(m, n);
    r.shifted_score = score_at(m + shift, n + shift);
    r.diff = std::fabs(r.shifted_score - r.score);
    return r;
}

xt::xtensor<float, 2> sinusoidal_shift_matrix(std::size_t shift, std::size_t d_model, double base) {
    if (d_model < 2 || d_model % 2 != 0 || d_model > kMaxDModel)
        throw InvalidArgument("odd_width",
                              "dModel must be even, from 2 to " + std::to_string(kMaxDModel) +
                                  " for sinusoidal, got " + std::to_string(d_model),
                              {{"field", "dModel"}, {"value", std::to_string(d_model)}, {"scheme", "sinusoidal"}});
    if (!std::isfinite(base) || base <= 1.0)
        throw InvalidArgument("bad_base", "base must be a finite number greater than 1");
    if (shift >= kMaxPosition)
        throw InvalidArgument("position_limit", "shift must be below " + std::to_string(kMaxPosition));
    // sin((p+k)w) =  cos(kw)·sin(pw) + sin(kw)·cos(pw)
    // cos((p+k)w) = -sin(kw)·sin(pw) + cos(kw)·cos(pw)
    xt::xtensor<float, 2> m = xt::zeros<float>({d_model, d_model});
    for (std::size_t i = 0; i < d_model / 2; ++i) {
        const double w = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d_model));
        const double c = std::cos(static_cast<double>(shift) * w), s = std::sin(static_cast<double>(shift) * w);
        m(2 * i, 2 * i) = static_cast<float>(c);
        m(2 * i, 2 * i + 1) = static_cast<float>(s);
        m(2 * i + 1, 2 * i) = static_cast<float>(-s);
        m(2 * i + 1, 2 * i + 1) = static_cast<float>(c);
    }
    return m;
}

xt::xtensor<float, 2> position_similarity(PositionScheme scheme, std::size_t length, std::size_t d_model,
                                          double base, std::uint32_t seed, std::size_t max_positions,
                                          std::size_t heads) {
    if (length < 1 || length > kMaxTokens)
        throw InvalidArgument("out_of_range_option", "length must be from 1 to " + std::to_string(kMaxTokens) +
                                                         ", got " + std::to_string(length),
                              {{"field", "length"}, {"min", "1"}, {"max", std::to_string(kMaxTokens)}});
    if (d_model < 1 || d_model > kMaxDModel)
        throw InvalidArgument("out_of_range_option", "dModel must be from 1 to " + std::to_string(kMaxDModel),
                              {{"field", "dModel"}, {"min", "1"}, {"max", std::to_string(kMaxDModel)}});
    xt::xtensor<float, 2> sim = xt::zeros<float>({length, length});
    auto gram = [&](const xt::xtensor<float, 2>& pe) {
        for (std::size_t i = 0; i < length; ++i)
            for (std::size_t j = 0; j < length; ++j) {
                double s = 0.0;
                for (std::size_t d = 0; d < d_model; ++d) s += static_cast<double>(pe(i, d)) * pe(j, d);
                sim(i, j) = static_cast<float>(s);
            }
    };
    switch (scheme) {
        case PositionScheme::sinusoidal: gram(sinusoidal_encoding(length, d_model, base)); break;
        case PositionScheme::learned: gram(learned_position_table(max_positions, d_model, seed, 0, length)); break;
        case PositionScheme::rope: {
            if (d_model < 2 || d_model % 2 != 0)
                throw InvalidArgument("odd_width", "dModel must be even for RoPE, got " + std::to_string(d_model));
            if (!std::isfinite(base) || base <= 1.0)
                throw InvalidArgument("bad_base", "base must be a finite number greater than 1");
            for (std::size_t i = 0; i < length; ++i)
                for (std::size_t j = 0; j < length; ++j) {
                    double s = 0.0;
                    for (std::size_t p = 0; p < d_model / 2; ++p)
                        s += std::cos((static_cast<double>(i) - static_cast<double>(j)) *
                                      std::pow(base, -2.0 * static_cast<double>(p) / static_cast<double>(d_model)));
                    sim(i, j) = static_cast<float>(s);
                }
            break;
        }
        case PositionScheme::alibi: sim = alibi_bias(length, alibi_slopes(heads)[0]); break;
        case PositionScheme::none: break;
    }
    return sim;
}

namespace {
void check_range(const char* name, std::size_t v, std::size_t lo, std::size_t hi) {
    if (v < lo || v > hi)
        throw InvalidArgument("out_of_range_option",
                              std::string("superposition: ") + name + " must be from " + std::to_string(lo) + " to " +
                                  std::to_string(hi) + ", got " + std::to_string(v),
                              {{"option", name}, {"min", std::to_string(lo)}, {"max", std::to_string(hi)}});
}

// The row of `table` ([rows, d] row-major) nearest to x by cosine.
std::size_t nearest_row(const std::vector<double>& table, std::size_t rows, const std::vector<double>& norms,
                        const double* x, std::size_t d) {
    std::size_t best = 0;
    double best_cos = -2.0;
    double xn = 0.0;
    for (std::size_t k = 0; k < d; ++k) xn += x[k] * x[k];
    xn = std::sqrt(xn);
    for (std::size_t r = 0; r < rows; ++r) {
        double dot = 0.0;
        for (std::size_t k = 0; k < d; ++k) dot += table[r * d + k] * x[k];
        const double c = dot / (norms[r] * xn);
        if (c > best_cos) {
            best_cos = c;
            best = r;
        }
    }
    return best;
}
}  // namespace

std::vector<SuperpositionRow> superposition_experiment(const std::vector<std::size_t>& dims, std::size_t vocab,
                                                       std::size_t positions, std::size_t trials,
                                                       std::size_t pairs, std::size_t bins, std::uint32_t seed) {
    check_range("dims (their count)", dims.size(), 1, 8);
    for (std::size_t d : dims) check_range("each of dims", d, 1, 1024);
    check_range("vocab", vocab, 2, 1024);
    check_range("positions", positions, 2, 1024);
    check_range("trials", trials, 1, 2000);
    check_range("pairs", pairs, 1, 20000);
    check_range("bins", bins, 2, 200);
    std::vector<SuperpositionRow> out;
    for (std::size_t di = 0; di < dims.size(); ++di) {
        const std::size_t d = dims[di];
        SuperpositionRow row;
        row.d_model = d;
        row.histogram.assign(bins, 0);
        // (1) Cosines of independent pairs.
        Rng rng(mix_seed(mix_seed(seed, 0x5e9e7ull), d));
        std::vector<double> a(d), b(d);
        double sum = 0.0, sum_sq = 0.0;
        for (std::size_t p = 0; p < pairs; ++p) {
            double dot = 0.0, na = 0.0, nb = 0.0;
            for (std::size_t k = 0; k < d; ++k) {
                a[k] = rng.normal();
                b[k] = rng.normal();
                dot += a[k] * b[k];
                na += a[k] * a[k];
                nb += b[k] * b[k];
            }
            const double c = dot / std::sqrt(na * nb);
            sum += c;
            sum_sq += c * c;
            const auto bin = static_cast<std::size_t>(std::floor((c + 1.0) / 2.0 * double(bins)));
            ++row.histogram[std::min(bin, bins - 1)];
        }
        const double mean = sum / double(pairs);
        row.cosine_std = std::sqrt(std::max(0.0, sum_sq / double(pairs) - mean * mean));
        // (2) Recovery of token and position from their sum.
        Rng tables(mix_seed(mix_seed(seed, 0x7ab1e5ull), d));
        std::vector<double> tok(vocab * d), pos(positions * d), tok_norm(vocab), pos_norm(positions);
        for (double& v : tok) v = tables.normal();
        for (double& v : pos) v = tables.normal();
        for (std::size_t r = 0; r < vocab; ++r) {
            double n = 0.0;
            for (std::size_t k = 0; k < d; ++k) n += tok[r * d + k] * tok[r * d + k];
            tok_norm[r] = std::sqrt(n);
        }
        for (std::size_t r = 0; r < positions; ++r) {
            double n = 0.0;
            for (std::size_t k = 0; k < d; ++k) n += pos[r * d + k] * pos[r * d + k];
            pos_norm[r] = std::sqrt(n);
        }
        std::size_t tok_ok = 0, pos_ok = 0;
        std::vector<double> h(d);
        for (std::size_t t = 0; t < trials; ++t) {
            const auto v = static_cast<std::size_t>(rng.uniform() * double(vocab)) % vocab;
            const auto p = static_cast<std::size_t>(rng.uniform() * double(positions)) % positions;
            for (std::size_t k = 0; k < d; ++k) h[k] = tok[v * d + k] + pos[p * d + k];
            tok_ok += nearest_row(tok, vocab, tok_norm, h.data(), d) == v;
            pos_ok += nearest_row(pos, positions, pos_norm, h.data(), d) == p;
        }
        row.token_recovery = double(tok_ok) / double(trials);
        row.position_recovery = double(pos_ok) / double(trials);
        out.push_back(std::move(row));
    }
    return out;
}

}  // namespace poslab
