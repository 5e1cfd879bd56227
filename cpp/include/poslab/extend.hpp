#pragma once
// RoPE context extension, measured in miniature: train the tiny Transformer
// with RoPE on the count task (train.hpp) with n ≤ train_max, then evaluate
// every n ≤ test_max with each scaling method (rope_scaling.hpp) applied to
// the trained weights, once as they are ("zero-shot") and once after a
// short fine-tune at the longer lengths (n drawn from 1 … test_max).
//
// Lengths: a sequence of n is 2n+1 input positions (0 … 2n), so the trained
// length is L = 2·train_max and the scale s = test_max / train_max.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "poslab/rope_scaling.hpp"
#include "poslab/train.hpp"

namespace poslab {

// The lab's default lengths for this experiment: train n ≤ 8, test n ≤ 16 (s = 2).
inline ExtrapolationOptions extension_train_defaults() {
    ExtrapolationOptions o;
    o.scheme = PositionScheme::rope;
    o.train_max = 8;
    o.test_max = 16;
    return o;
}

struct ExtensionOptions {
    ExtrapolationOptions train = extension_train_defaults();  // scheme is always rope
    std::vector<RopeScaling> methods = {RopeScaling::none, RopeScaling::pi, RopeScaling::ntk,
                                        RopeScaling::yarn};
    std::int64_t finetune_steps = 100;  // 0 … 2000 per method (0: no fine-tune)
    double finetune_lr = 1e-3;          // peak, (0, 1]; warm-up steps/10, then linear decay
    double new_base = kLlama3Base;      // for method base
    // For method yarn: the edges' rule (paper: α = 1, β = 32; lab: α = 1,
    // β = L/2π) and explicit α, β replacing the rule's (rope_scaling.hpp).
    YarnEdgeRule yarn_edges = YarnEdgeRule::paper;
    std::optional<double> yarn_alpha, yarn_beta;
};
// Throws InvalidArgument naming the field (the train part as validate()).
void validate(const ExtensionOptions& options);
// The fine-tune's batches: Rng(mix_seed(seed, kFinetuneStream)), the same for every method.
constexpr std::uint64_t kFinetuneStream = 3;

// The trained length L = 2·train_max and s = test_max/train_max.
double extension_trained_length(const ExtensionOptions& options);
double extension_scale(const ExtensionOptions& options);
// The model's RoPE settings for a method at this run's L and s.
ScaledRope extension_rope(const ExtensionOptions& options, RopeScaling method);

struct ExtensionCurve {
    RopeScaling method = RopeScaling::none;
    bool finetuned = false;
    ExtrapolationEvaluation evaluation;
    std::vector<double> losses;  // the fine-tune's loss per step (empty for zero-shot)
};

// Runs a step at a time: first train.steps training steps, then per method
// finetune_steps fine-tune steps; each zero-shot curve is measured when its
// method's fine-tune starts, each fine-tuned curve when it ends.
class ExtensionRun {
public:
    explicit ExtensionRun(const ExtensionOptions& options);  // validates
    ~ExtensionRun();
    ExtensionRun(const ExtensionRun&) = delete;
    ExtensionRun& operator=(const ExtensionRun&) = delete;

    std::size_t step(std::size_t count);  // returns how many steps ran
    bool done() const;
    std::size_t steps_done() const;
    std::size_t total_steps() const;  // train.steps + methods·finetune_steps
    const ExtensionOptions& options() const;
    const std::vector<double>& losses() const;  // the base training's
    // The curves measured so far: per method zero-shot, then (if fine-tuned) fine-tuned.
    const std::vector<ExtensionCurve>& curves() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace poslab
