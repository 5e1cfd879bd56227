#pragma once
// A tiny causal decoder with its own forward and backward pass, small enough
// to train in the browser: token embedding (+ learned or sinusoidal position),
// pre-LayerNorm blocks of causal multi-head self-attention (optionally RoPE or
// ALiBi) and a ReLU MLP, a final LayerNorm and an untied output layer.
// Templated on the scalar: float to train, double to check the gradient
// against finite differences.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "poslab/positional.hpp"

namespace poslab {

struct TinyTransformerConfig {
    std::size_t vocab = 5;
    std::size_t d_model = 32;
    std::size_t heads = 4;
    std::size_t layers = 2;
    std::size_t d_mlp = 128;
    std::size_t max_positions = 98;  // rows of the learned table; the longest input allowed
    PositionScheme scheme = PositionScheme::none;
    double base = 1e4;  // of sinusoidal and RoPE frequencies
    // RoPE context extension (rope_scaling.hpp): pair i turns by θᵢ per
    // position; empty means base^(−2i/d_head). Otherwise d_head/2 finite values.
    std::vector<double> rope_theta;
    // Every attention logit q·k/√d_head is multiplied by this (YaRN's 1/t); > 0.
    double logit_scale = 1.0;
};

// Sequences packed back to back, without padding: rows [start_b, start_b +
// lengths[b]) are sequence b, positions 0 … lengths[b]-1. Attention never
// crosses from one sequence into another. The loss is the mean cross entropy
// over the rows whose weight is 1 (weights are 0 or 1).
struct TokenBatch {
    std::vector<std::size_t> lengths;
    std::vector<int> tokens;
    std::vector<int> targets;
    std::vector<float> weights;
};

// One named slice of the flat parameter vector.
struct ParameterGroup {
    std::string name;    // e.g. "layer1.w_qkv"
    std::size_t offset;  // into parameters()
    std::size_t size;
    double init_std;     // N(0, init_std²); 0 means a constant init_value
    double init_value;
};

// The m_h of ALiBi for h = 1..heads (the paper's rule: 2^{-8h/H} when H is a
// power of two, else those of the nearest lower power of two followed by every
// other slope of the next one).
std::vector<double> alibi_head_slopes(std::size_t heads);

template <class T>
class TinyTransformer {
public:
    // Throws std::invalid_argument if heads does not divide d_model, or RoPE's
    // head width is odd, or sinusoidal's d_model is odd, or a size is 0.
    explicit TinyTransformer(const TinyTransformerConfig& config);

    const TinyTransformerConfig& config() const { return config_; }
    const std::vector<ParameterGroup>& groups() const { return groups_; }
    std::vector<T>& parameters() { return params_; }
    const std::vector<T>& parameters() const { return params_; }

    // Token embeddings N(0, 1), other weights N(0, 0.02²), biases 0, LayerNorm gains 1.
    void initialize(std::uint64_t seed);

    // Mean cross entropy over the weighted positions (forward only).
    T loss(const TokenBatch& batch);
    // The same loss, and its gradient in `gradient` (resized to parameters().size()).
    T loss_and_gradient(const TokenBatch& batch, std::vector<T>& gradient);
    // [rows, vocab] logits.
    std::vector<T> logits(const TokenBatch& batch);

private:
    struct LayerOffsets {
        std::size_t ln1_g, ln1_b, w_qkv, b_qkv, w_o, b_o, ln2_g, ln2_b, w_1, b_1, w_2, b_2;
    };
    // What the backward pass needs from the forward pass, per layer.
    struct LayerActivations {
        std::vector<T> xhat1, rstd1, h1, qkv, probs, ctx, xhat2, rstd2, h2, u, a;
    };

    void check_batch(const TokenBatch& batch);  // and sets positions_
    T forward(const TokenBatch& batch);  // fills activations and logits_
    void backward(const TokenBatch& batch, std::vector<T>& gradient);
    void attention_forward(const TokenBatch& batch, LayerActivations& act);
    void attention_backward(const TokenBatch& batch, const LayerActivations& act,
                            const std::vector<T>& dctx, std::vector<T>& dqkv);
    void rotate(std::vector<T>& qkv, bool inverse) const;

    TinyTransformerConfig config_;
    std::size_t d_head_;
    std::vector<ParameterGroup> groups_;
    std::vector<T> params_;
    std::size_t tok_emb_, pos_emb_, lnf_g_, lnf_b_, w_out_, b_out_;
    std::vector<LayerOffsets> layer_;
    std::vector<T> sinusoid_;          // [max_positions, d_model] for sinusoidal
    std::vector<T> rope_cos_, rope_sin_;  // [max_positions, d_head/2] for RoPE
    std::vector<T> slopes_;            // [heads] for ALiBi

    // Buffers of one forward/backward, kept from step to step by the float
    // kernels (no allocation per step once warm).
    struct Workspace {
        std::vector<T> x, tmp, scratch, dh, dx, dlogits, du, dctx, dqkv, kt, vt, dp;
    };
    Workspace work_;

    // Forward state kept for backward.
    std::vector<std::size_t> positions_;  // [rows]: each row's position in its sequence
    std::vector<LayerActivations> acts_;
    std::vector<T> xhatf_, rstdf_, hf_, logits_, probs_out_;
    T weight_sum_ = 0;
};

extern template class TinyTransformer<float>;
extern template class TinyTransformer<double>;

}  // namespace poslab
