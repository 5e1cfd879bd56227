#pragma once
// Stretching RoPE past its trained length: the frequency rules real LLMs use,
// as plain functions, and the picture of where the angles go.
//
// RoPE rotates pair i (i = 0 … d/2−1) of a d-wide head at position m by the
// angle m·θᵢ with θᵢ = base^(−2i/d). A model trained on positions 0 … L has
// seen pair i's angles only in [0, L·θᵢ]; evaluated at positions up to s·L,
// every method below replaces θᵢ by a θ'ᵢ:
//
//   none   θ'ᵢ = θᵢ                         (low-frequency pairs leave the trained range)
//   pi     θ'ᵢ = θᵢ / s                     Position Interpolation (Chen et al. 2023,
//                                           arXiv:2306.15595): positions scaled by 1/s
//   ntk    θ'ᵢ = base'^(−2i/d),             NTK-aware scaling (bloc97, 2023):
//          base' = base·s^(d/(d−2))         pair 0 kept, the last pair exactly as PI
//   yarn   θ'ᵢ = (1−γᵢ)·θᵢ/s + γᵢ·θᵢ        YaRN (Peng et al. 2023, arXiv:2309.00071):
//          γᵢ = ramp of rᵢ = L·θᵢ/(2π)      (the turns pair i makes within L) between α
//                                           and β, plus the attention temperature
//                                           √(1/t) = 0.1·ln s + 1 (logits × 1/t)
//   base   θ'ᵢ = new_base^(−2i/d)           a larger base, as Llama 3's 500 000
//                                           (Xiong et al. 2023, arXiv:2309.16039)
//
// YaRN's edges α = 1, β = 32 were tuned for LLaMA (d = 128, L = 4096, where
// the fastest pair turns L/2π ≈ 652 times). At this lab's scale (L ≤ 65) no
// pair turns 32 times, so the β band would be empty and YaRN would be PI
// for every pair. The lab rescales the edges to the trained length: α = 1
// (a pair that never completed a turn in training is interpolated fully) and
// β = L/(2π), the turns of the fastest pair (θ₀ = 1), so pair 0 is always
// kept as in LLaMA and the pairs in between are blended. yarn_edges() gives
// these; both can be overridden.
#include <cstddef>
#include <string>
#include <vector>

namespace poslab {

enum class RopeScaling { none, pi, ntk, yarn, base };
RopeScaling parse_rope_scaling(const std::string& name);  // "none", "pi", "ntk", "yarn", "base"
std::string to_string(RopeScaling method);
constexpr double kLlama3Base = 500000.0;
constexpr double kYarnPaperAlpha = 1.0;
constexpr double kYarnPaperBeta = 32.0;

// θᵢ = base^(−2i/d).
double rope_theta(std::size_t d, double base, std::size_t pair);
// PI: a position m is used as m/s.
double pi_position(double m, double s);
// NTK-aware: base·s^(d/(d−2)); d ≥ 4.
double ntk_base(double base, double s, std::size_t d);
// YaRN's √(1/t) = 0.1·ln s + 1 (1 for s ≤ 1); the logits are multiplied by its square.
double yarn_sqrt_inv_temperature(double s);
// γ(r): 0 for r < α, 1 for r > β, (r−α)/(β−α) between (a step at α when β ≤ α).
double yarn_ramp(double r, double alpha, double beta);
struct YarnEdges {
    double alpha = 1.0;
    double beta = 1.0;
};
// The lab's rescaled edges for a trained length L: α = 1, β = L/(2π).
YarnEdges yarn_edges(double trained_length);

struct RopeScalingParams {
    double s = 1.0;                 // target length / trained length, 1 … 64
    double trained_length = 16;     // L, in positions, 1 … 4096
    double new_base = kLlama3Base;  // for method base, (1, 1e12]
    double yarn_alpha = -1;         // < 0: yarn_edges(L)
    double yarn_beta = -1;
};
// θ'ᵢ for every pair (d/2 of them) under the method, and the factor the
// attention logits are multiplied by (1/t for YaRN, 1 otherwise).
struct ScaledRope {
    std::vector<double> theta;     // θ'ᵢ
    std::vector<double> original;  // θᵢ
    std::vector<double> ramp;      // YaRN's γᵢ (empty for the other methods)
    double logit_scale = 1.0;
    double base_used = 0.0;        // base' for ntk / base, base otherwise
    double alpha = 0.0, beta = 0.0;  // YaRN's edges used (0 for other methods)
};
// d even, 2 … 1024; base in (1, 1e12]. Throws InvalidArgument naming the field.
ScaledRope scale_rope(std::size_t d, double base, RopeScaling method, const RopeScalingParams& params);

// The angle picture: m·θ'ᵢ mod 2π for every pair over positions m = 0 … N
// with N = round(s·L) (at most 4096 positions, d at most 256), and whether
// each angle was never seen in training: the model trained on 0 … L with θᵢ
// saw [0, L·θᵢ] (the whole circle when L·θᵢ ≥ 2π); an angle is unseen when
// m·θ'ᵢ > L·θᵢ (beyond a 1e-9 relative tolerance) and L·θᵢ < 2π.
struct RopeAngleMap {
    std::size_t pairs = 0, positions = 0;  // positions = N + 1
    std::size_t trained_length = 0;        // L
    std::vector<double> angles;            // [positions, pairs], in [0, 2π)
    std::vector<unsigned char> unseen;     // [positions, pairs]
    std::vector<bool> leaves;              // [pairs]: some angle unseen
    std::vector<double> trained_span;      // [pairs]: L·θᵢ (unwrapped)
    std::vector<double> max_angle;         // [pairs]: N·θ'ᵢ (unwrapped)
    ScaledRope rope;
};
RopeAngleMap rope_angle_map(std::size_t d, double base, std::size_t trained_length, double s,
                            RopeScaling method, double new_base = kLlama3Base);

}  // namespace poslab
