#pragma once
// The checks the exercises are built on.
#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "poslab/model.hpp"

namespace poslab {

struct PermutationCheck {
    std::vector<std::size_t> permutation;  // row i of PX is row permutation[i] of X
    ForwardResult original;                // Attention(X)
    ForwardResult permuted;                // Attention(PX), positions as before
    double max_abs_diff = 0.0;             // max |Attention(PX) - P·Attention(X)|
};
// Reorders the tokens (or vectors) and runs the same forward pass again.
// permutation must hold each of 0…S-1 exactly once.
PermutationCheck permutation_check(const ForwardOptions& options,
                                   const std::vector<std::size_t>& permutation);

// The hand calculation, step by step: what the student computes with pencil
// and paper. `scale` reproduces the two usual mistakes (no scaling: 0.731 in
// the 2-token example; dividing by d_k instead of √d_k: 0.622).
enum class ScoreScale { sqrt_dk, none, dk };
ScoreScale parse_score_scale(const std::string& name);  // "sqrt_dk", "none", "dk"

struct AttentionSteps {
    ForwardResult forward;           // the same pass through forward()
    xt::xtensor<float, 3> dots;      // [H, S, S] q_i·k_j (after RoPE, before scaling)
    xt::xtensor<float, 3> scores;    // [H, S, S] scaled, with ALiBi bias; -inf where masked
    xt::xtensor<float, 3> weights;   // [H, S, S] softmax of the scores
    xt::xtensor<float, 2> output;    // [S, D'] weights·V (then W^O for random weights)
};
// S is limited to 256 here: these are for looking at, not for speed.
AttentionSteps attention_steps(const ForwardOptions& options, ScoreScale scale = ScoreScale::sqrt_dk);

// [heads, length, length]: each head's ALiBi bias -m_h·|i-j|, for display
// (length 1…1024, heads 1…64).
xt::xtensor<float, 3> alibi_bias_table(std::size_t length, std::size_t heads);

struct RopeCheck {
    double score = 0.0;          // ⟨R_m q, R_n k⟩
    double shifted_score = 0.0;  // ⟨R_{m+k} q, R_{n+k} k⟩
    double diff = 0.0;           // |shifted_score - score|
    std::vector<float> q, k;     // the vectors used (seeded, d_head wide)
};
// q, k drawn N(0,1) from seed, unless given (then both d_head wide).
RopeCheck rope_relative_check(std::size_t d_head, std::size_t m, std::size_t n, std::size_t shift,
                              std::uint32_t seed, double base = kDefaultBase,
                              const std::vector<float>& q = {}, const std::vector<float>& k = {});

// M_k [D, D] with PE_{pos+k} = M_k · PE_pos for the sinusoidal encoding:
// block diagonal, one 2×2 rotation per (sin, cos) pair.
xt::xtensor<float, 2> sinusoidal_shift_matrix(std::size_t shift, std::size_t d_model,
                                              double base = kDefaultBase);

// [S, S] similarity of positions. sinusoidal / learned: PE·PEᵀ. rope: the score
// between the same vector (1,0,1,0,…) rotated to positions m and n, i.e.
// Σ_i cos((m-n)θ_i). alibi: head 1's bias -m_1|i-j|. none: zeros.
xt::xtensor<float, 2> position_similarity(PositionScheme scheme, std::size_t length,
                                          std::size_t d_model, double base = kDefaultBase,
                                          std::uint32_t seed = 0,
                                          std::size_t max_positions = kDefaultMaxPositions,
                                          std::size_t heads = 1);

}  // namespace poslab
