#include "poslab/attention.hpp"

#include <cmath>
#include <limits>

#include "poslab/errors.hpp"
#include "poslab/kernels.hpp"
#include "poslab/positional.hpp"
#include "poslab/random.hpp"

namespace poslab {

WeightsKind parse_weights_kind(const std::string& name) {
    if (name == "identity") return WeightsKind::identity;
    if (name == "random") return WeightsKind::random;
    throw InvalidArgument("unknown_weights", "unknown weights '" + name + "'; allowed: identity, random",
                          {{"value", name}});
}

std::string to_string(WeightsKind kind) { return kind == WeightsKind::identity ? "identity" : "random"; }

AttentionWeights make_attention_weights(WeightsKind kind, std::size_t d_model, std::uint32_t seed) {
    if (d_model < 1) throw InvalidArgument("bad_d_model", "dModel must be at least 1, got 0");
    AttentionWeights w;
    w.kind = kind;
    w.d_model = d_model;
    if (kind == WeightsKind::identity) return w;
    // N(0, 1/D): keeps q·k of unit-variance inputs at unit variance.
    const double scale = 1.0 / std::sqrt(static_cast<double>(d_model));
    auto draw = [&](std::uint64_t which) {
        xt::xtensor<float, 2> m({d_model, d_model});
        Rng rng(mix_seed(mix_seed(seed, 0xa77e47ull), which));
        for (float& v : m) v = static_cast<float>(scale * rng.normal());
        return m;
    };
    w.wq = draw(1);
    w.wk = draw(2);
    w.wv = draw(3);
    w.wo = draw(4);
    return w;
}

xt::xtensor<float, 2> causal_mask(std::size_t length) {
    xt::xtensor<float, 2> mask({length, length});
    for (std::size_t i = 0; i < length; ++i)
        for (std::size_t j = 0; j < length; ++j)
            mask(i, j) = j > i ? -std::numeric_limits<float>::infinity() : 0.0f;
    return mask;
}

namespace {

void check_attention(std::size_t seq, std::size_t width, const AttentionWeights& weights,
                     const AttentionOptions& options) {
    const std::size_t heads = options.heads;
    if (seq < 1 || width < 1)
        throw InvalidArgument("empty_input", "attention needs at least one row of at least one value");
    if (heads < 1 || width % heads != 0)
        throw InvalidArgument("heads_not_dividing",
                              "heads (" + std::to_string(heads) + ") must divide the model width " +
                                  std::to_string(width) + " (each head takes width / heads values)",
                              {{"heads", std::to_string(heads)}, {"width", std::to_string(width)}});
    if (weights.kind == WeightsKind::random && weights.d_model != width)
        throw InvalidArgument("weights_width",
                              "the attention weights are " + std::to_string(weights.d_model) +
                                  " wide but the input is " + std::to_string(width) + " wide");
}

}  // namespace

xt::xtensor<float, 2> attention_context(const float* x, std::size_t seq, std::size_t width,
                                        const AttentionWeights& weights, const AttentionOptions& options,
                                        std::size_t head_begin, std::size_t head_end, float* weights_out) {
    check_attention(seq, width, weights, options);
    const std::size_t heads = options.heads;
    if (head_begin >= head_end || head_end > heads)
        throw InvalidArgument("bad_head_range",
                              "the heads to compute must be a non-empty range within 0.." + std::to_string(heads) +
                                  " (heads " + std::to_string(head_begin) + " to " + std::to_string(head_end) +
                                  " asked for)",
                              {{"from", std::to_string(head_begin)}, {"to", std::to_string(head_end)},
                               {"heads", std::to_string(heads)}});
    for (std::size_t i = 0; i < seq * width; ++i)
        if (!std::isfinite(x[i]))
            throw InvalidArgument("non_finite_value", "the attention input has a NaN or infinite value; "
                                                      "every value must be a finite number");
    const std::size_t d_head = width / heads;
    const std::size_t n = head_end - head_begin, cols = n * d_head, first = head_begin * d_head;
    std::vector<float> slopes;
    if (options.alibi) {
        const std::vector<double> all = alibi_slopes(heads);
        for (std::size_t h = head_begin; h < head_end; ++h) slopes.push_back(static_cast<float>(all[h]));
    }
    xt::xtensor<float, 2> q({seq, cols}), k({seq, cols}), v({seq, cols}), context({seq, cols});
    if (weights.kind == WeightsKind::identity) {
        for (std::size_t s = 0; s < seq; ++s) {
            const float* row = x + s * width + first;
            std::copy(row, row + cols, q.data() + s * cols);
            std::copy(row, row + cols, k.data() + s * cols);
            std::copy(row, row + cols, v.data() + s * cols);
        }
    } else {
        // Columns [first, first + cols) of X·W: B read in place with its full row stride.
        kernels::gemm(x, width, weights.wq.data() + first, width, false, q.data(), cols, seq, width, cols, 1.0f);
        kernels::gemm(x, width, weights.wk.data() + first, width, false, k.data(), cols, seq, width, cols, 1.0f);
        kernels::gemm(x, width, weights.wv.data() + first, width, false, v.data(), cols, seq, width, cols, 1.0f);
    }
    if (options.rope) {
        std::vector<std::size_t> positions(seq);
        for (std::size_t s = 0; s < seq; ++s) positions[s] = options.position_offset + s;
        // Each head is rotated alike (the frequencies depend on d_head only).
        apply_rope(q, n, options.rope_base, positions);
        apply_rope(k, n, options.rope_base, positions);
    }
    kernels::attention_heads(q.data(), k.data(), v.data(), cols, context.data(), cols, seq, n, d_head,
                             options.causal, options.alibi ? slopes.data() : nullptr, weights_out);
    return context;
}

xt::xtensor<float, 2> attention_output(const xt::xtensor<float, 2>& context, const AttentionWeights& weights) {
    const std::size_t seq = context.shape(0), width = context.shape(1);
    if (weights.kind == WeightsKind::identity) return context;
    if (weights.d_model != width)
        throw InvalidArgument("weights_width",
                              "the attention weights are " + std::to_string(weights.d_model) +
                                  " wide but the heads' output is " + std::to_string(width) + " wide");
    xt::xtensor<float, 2> out({seq, width});
    kernels::matmul(context.data(), weights.wo.data(), out.data(), seq, width, width);
    return out;
}

AttentionResult self_attention(const xt::xtensor<float, 3>& x, const AttentionWeights& weights,
                               const AttentionOptions& options) {
    const std::size_t batch = x.shape(0), seq = x.shape(1), width = x.shape(2);
    const std::size_t heads = options.heads;
    if (batch < 1) throw InvalidArgument("empty_input", "attention needs at least one row of at least one value");
    check_attention(seq, width, weights, options);
    for (float v : x)
        if (!std::isfinite(v))
            throw InvalidArgument("non_finite_value", "the attention input has a NaN or infinite value; "
                                                      "every value must be a finite number");
    AttentionResult result;
    result.output = xt::xtensor<float, 3>({batch, seq, width});
    if (options.return_weights) result.weights = xt::xtensor<float, 4>({batch, heads, seq, seq});
    else result.weights = xt::xtensor<float, 4>({0, 0, 0, 0});
    for (std::size_t b = 0; b < batch; ++b) {
        // Every head at once, one block of query rows at a time: the [S, S]
        // weights are only written out when the caller asked for them.
        float* weights_out =
            options.return_weights ? result.weights.data() + b * heads * seq * seq : nullptr;
        const xt::xtensor<float, 2> context =
            attention_context(x.data() + b * seq * width, seq, width, weights, options, 0, heads, weights_out);
        const xt::xtensor<float, 2> out = attention_output(context, weights);
        std::copy(out.begin(), out.end(), result.output.data() + b * seq * width);
    }
    return result;
}

}  // namespace poslab
