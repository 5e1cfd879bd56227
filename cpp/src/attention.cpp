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

AttentionResult self_attention(const xt::xtensor<float, 3>& x, const AttentionWeights& weights,
                               const AttentionOptions& options) {
    const std::size_t batch = x.shape(0), seq = x.shape(1), width = x.shape(2);
    const std::size_t heads = options.heads;
    if (batch < 1 || seq < 1 || width < 1)
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
    for (float v : x)
        if (!std::isfinite(v))
            throw InvalidArgument("non_finite_value", "the attention input has a NaN or infinite value; "
                                                      "every value must be a finite number");
    const std::size_t d_head = width / heads;
    std::vector<float> slopes;
    if (options.alibi)
        for (double m : alibi_slopes(heads)) slopes.push_back(static_cast<float>(m));
    std::vector<std::size_t> positions;
    if (options.rope) {
        positions.resize(seq);
        for (std::size_t s = 0; s < seq; ++s) positions[s] = options.position_offset + s;
    }

    AttentionResult result;
    result.output = xt::xtensor<float, 3>({batch, seq, width});
    if (options.return_weights) result.weights = xt::xtensor<float, 4>({batch, heads, seq, seq});
    else result.weights = xt::xtensor<float, 4>({0, 0, 0, 0});

    xt::xtensor<float, 2> q({seq, width}), k({seq, width}), v({seq, width}), heads_out({seq, width});
    for (std::size_t b = 0; b < batch; ++b) {
        const float* xb = x.data() + b * seq * width;
        if (weights.kind == WeightsKind::identity) {
            std::copy(xb, xb + seq * width, q.data());
            std::copy(xb, xb + seq * width, k.data());
            std::copy(xb, xb + seq * width, v.data());
        } else {
            kernels::matmul(xb, weights.wq.data(), q.data(), seq, width, width);
            kernels::matmul(xb, weights.wk.data(), k.data(), seq, width, width);
            kernels::matmul(xb, weights.wv.data(), v.data(), seq, width, width);
        }
        if (options.rope) {
            apply_rope(q, heads, options.rope_base, positions);
            apply_rope(k, heads, options.rope_base, positions);
        }
        // Every head at once, one block of query rows at a time: the [S, S]
        // weights are only written out when the caller asked for them.
        float* weights_out =
            options.return_weights ? result.weights.data() + b * heads * seq * seq : nullptr;
        kernels::attention_heads(q.data(), k.data(), v.data(), width, heads_out.data(), width, seq, heads,
                                 d_head, options.causal, options.alibi ? slopes.data() : nullptr,
                                 weights_out);
        float* ob = result.output.data() + b * seq * width;
        if (weights.kind == WeightsKind::identity)
            std::copy(heads_out.begin(), heads_out.end(), ob);
        else
            kernels::matmul(heads_out.data(), weights.wo.data(), ob, seq, width, width);
    }
    return result;
}

}  // namespace poslab
