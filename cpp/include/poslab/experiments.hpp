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

// Why adding works (the seed's superposition claim), measured: for each width
// D, (1) the cosine of `pairs` pairs of independent N(0, 1) vectors, as a
// histogram of `bins` bins over [-1, 1] with its standard deviation (≈ 1/√D:
// random directions grow nearly orthogonal); (2) a token table (`vocab` rows)
// and a position table (`positions` rows), both N(0, 1), and `trials` sums
// token + position of a random pair: how often the nearest row (by cosine) of
// each table is the one that went in. Concatenating instead would recover both
// exactly but give each only part of the width. Deterministic per seed.
struct SuperpositionRow {
    std::size_t d_model = 0;
    std::vector<std::size_t> histogram;  // counts per bin, bin b = [-1 + 2b/bins, -1 + 2(b+1)/bins)
    double cosine_std = 0.0;             // over the pairs (their mean is ≈ 0)
    double token_recovery = 0.0;         // fraction of trials, 0…1
    double position_recovery = 0.0;
};
// dims: 1…8 widths, each 1…1024; vocab, positions 2…1024; trials 1…2000;
// pairs 1…20000; bins 2…200.
std::vector<SuperpositionRow> superposition_experiment(const std::vector<std::size_t>& dims, std::size_t vocab,
                                                       std::size_t positions, std::size_t trials,
                                                       std::size_t pairs, std::size_t bins, std::uint32_t seed);

}  // namespace poslab
