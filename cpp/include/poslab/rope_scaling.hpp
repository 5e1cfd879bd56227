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
// YaRN's edges, two rules (YarnEdgeRule), both settable:
//   paper  α = 1, β = 32 (Peng et al. 2023, §3.2 "NTK-by-parts", the values
//          given for LLaMA): the default, YaRN as the paper defines it.
//   lab    α = 1, β = L/(2π), the turns of the fastest pair (θ₀ = 1) within
//          L: the lab's rescaling to its tiny trained lengths (L ≤ 65),
//          where no pair turns 32 times and the paper's band holds every
//          pair with r > 1 only partly (at L = 16, pair 0 turns 2.55 times:
//          γ₀ = 1.55/31 = 0.05, so pair 0 is 95 % interpolated and 5 % kept).
//          When L/(2π) ≤ 1 the band is empty and the ramp is a step at α.
// Explicit α, β (yarn_alpha / yarn_beta) replace the rule's: finite,
// 0 ≤ α < β ≤ 10 000.
#include <cstddef>
#include <optional>
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
enum class YarnEdgeRule { paper, lab };
YarnEdgeRule parse_yarn_edge_rule(const std::string& name);  // "paper", "lab"
std::string to_string(YarnEdgeRule rule);
constexpr double kYarnEdgeMax = 10000.0;
// The rule's edges for a trained length L: paper α = 1, β = 32; lab α = 1, β = L/(2π).
YarnEdges yarn_edges(YarnEdgeRule rule, double trained_length);
// Explicit edges: finite, 0 ≤ α < β ≤ kYarnEdgeMax; throws InvalidArgument
// (field yarnAlpha or yarnBeta) otherwise.
void check_yarn_edges(double alpha, double beta);
// The edges in force: the rule's, with α and/or β replaced when given (then checked).
YarnEdges resolve_yarn_edges(YarnEdgeRule rule, double trained_length, std::optional<double> alpha,
                             std::optional<double> beta);

struct RopeScalingParams {
    double s = 1.0;                 // target length / trained length, 1 … 64
    double trained_length = 16;     // L, in positions, 1 … 4096
    double new_base = kLlama3Base;  // for method base, (1, 1e12]
    YarnEdgeRule yarn_edges = YarnEdgeRule::paper;
    std::optional<double> yarn_alpha;  // replaces the rule's α
    std::optional<double> yarn_beta;   // replaces the rule's β
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
// each angle was never seen in training.
//
// Seen: the model trained on positions 0 … L (a sequence of n has 2n+1
// positions 0 … 2n, and L = 2·train_max) with θᵢ produced the angles
// m·θᵢ mod 2π, m = 0 … L. An angle counts as seen when it lies on the circle
// between the angles of two neighbouring trained positions m and m+1 (the
// arc of length θᵢ the pair swept from one to the next), so the seen set is
// the arc [0, L·θᵢ] taken mod 2π: the whole circle when L·θᵢ ≥ 2π. An
// angle a (mod 2π) is unseen when L·θᵢ < 2π and a lies strictly inside the
// arc (L·θᵢ, 2π), by more than 1e-9·max(1, L·θᵢ) on either side. Every
// angle is compared after wrapping: an angle reached by turning past 2π
// that lands back inside [0, L·θᵢ] was seen.
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
// Whether the angle a (any real; taken mod 2π) lies outside the arc
// [0, span] mod 2π, beyond the tolerance above. span ≥ 2π: never.
bool angle_unseen(double angle, double span);
struct RopeAngleOptions {
    double new_base = kLlama3Base;
    YarnEdgeRule yarn_edges = YarnEdgeRule::paper;
    std::optional<double> yarn_alpha, yarn_beta;
};
RopeAngleMap rope_angle_map(std::size_t d, double base, std::size_t trained_length, double s,
                            RopeScaling method, const RopeAngleOptions& options = {});

}  // namespace poslab
