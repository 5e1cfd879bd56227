#pragma once
// Multi-head self-attention: softmax(QKᵀ/√d_k + bias)V with Q=XW^Q, K=XW^K,
// V=XW^V, per head, then an output projection for random weights.
#include <cstdint>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace poslab {

enum class WeightsKind {
    identity,  // W^Q = W^K = W^V = I, no output projection: the seed's hand calculation
    random     // seeded N(0, 1/D) projections and an output projection
};
WeightsKind parse_weights_kind(const std::string& name);  // throws std::invalid_argument
std::string to_string(WeightsKind kind);

struct AttentionWeights {
    WeightsKind kind = WeightsKind::identity;
    std::size_t d_model = 0;
    // [D, D] each, row-major, used as X·W. Empty for identity.
    xt::xtensor<float, 2> wq, wk, wv, wo;
};
AttentionWeights make_attention_weights(WeightsKind kind, std::size_t d_model, std::uint32_t seed);

struct AttentionOptions {
    std::size_t heads = 1;
    bool causal = false;          // j > i excluded
    bool rope = false;            // rotate Q and K by position
    double rope_base = 10000.0;
    bool alibi = false;           // add -m_h·|i-j| to head h's scores
    std::size_t position_offset = 0;  // position of the first row (RoPE, ALiBi are relative anyway)
    bool return_weights = true;   // materialise [B, H, S, S]
};

struct AttentionResult {
    xt::xtensor<float, 4> weights;  // [B, H, S, S]; shape {0,0,0,0} when not asked for
    xt::xtensor<float, 3> output;   // [B, S, D]
};

// x is [B, S, D]. Throws std::invalid_argument if heads does not divide D,
// D differs from the weights', RoPE's d_head is odd, or x has a non-finite value.
AttentionResult self_attention(const xt::xtensor<float, 3>& x, const AttentionWeights& weights,
                               const AttentionOptions& options);

// The two halves of self_attention for one sequence (batch 1), so that its
// heads can be computed apart (in several Workers) and put together again
// with the same bits as one call:
// attention_context gives heads [head_begin, head_end)'s context, [S, n·d_head]
// with n = head_end - head_begin: each head's softmax(q·kᵀ/√d_head + bias)·v,
// side by side, before the output projection. Its projections take only those
// heads' columns of W^Q, W^K, W^V (each output element is the same sum, in the
// same order, as in the full product). weights_out, when given, receives the
// [n, S, S] softmax weights.
// attention_output gives context · W^O ([S, D]; a copy for identity weights).
// self_attention is attention_context over all heads, then attention_output.
// Both check as self_attention does, and head_begin < head_end <= heads.
xt::xtensor<float, 2> attention_context(const float* x, std::size_t seq, std::size_t width,
                                        const AttentionWeights& weights, const AttentionOptions& options,
                                        std::size_t head_begin, std::size_t head_end, float* weights_out = nullptr);
xt::xtensor<float, 2> attention_output(const xt::xtensor<float, 2>& context, const AttentionWeights& weights);

// [S, S]: 0 where j <= i, -inf where j > i.
xt::xtensor<float, 2> causal_mask(std::size_t length);

}  // namespace poslab
