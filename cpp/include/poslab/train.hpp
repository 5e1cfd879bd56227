#pragma once
// "Train short, test long" (Press et al. 2022; Kazemnejad et al. 2023): train a
// tiny Transformer on the task "count and stop" with n ≤ train_max and test
// it on every n up to test_max, once per position scheme.
//
//   sequence   a a … a = b b … b <eos>   (n a's, n b's; vocabulary pad a b = eos)
//   loss       next-token cross entropy on the predictions from '=' on
//              (the n b's and <eos>), nothing else
//   metric     exact match of all n+1 of those predictions (teacher-forced
//              argmax, one forward pass per n)
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "poslab/positional.hpp"
#include "poslab/random.hpp"
#include "poslab/tiny_transformer.hpp"

namespace poslab {

enum CountTaskToken : int { kTokenPad = 0, kTokenA = 1, kTokenB = 2, kTokenEquals = 3, kTokenEos = 4 };
constexpr std::size_t kCountTaskVocab = 5;

// A second task, "look back k" (poslab extend --task lookback):
//
//   sequence   x₀ x₁ … x₂ₙ   (2n+1 symbols drawn uniformly from 0 … 7)
//   targets    row i (i ≥ k) must output x_{i−k}: the symbol k positions back
//   loss       cross entropy on rows k … 2n, nothing else
//   metric     per n, the fraction of kLookbackEvalSequences fixed test
//              sequences whose every prediction is right
//
// The symbols are random, so nothing but the relative distance k tells the
// model where to look. A sequence of n has the same 2n+1 positions as count
// and stop's, so the trained length L = 2·train_max is the same. Sequences
// with 2n < k have nothing to predict: training never draws them (n starts
// at ⌈k/2⌉) and the evaluation counts them as solved.
enum class TrainingTask { count, lookback };
constexpr std::size_t kLookbackVocab = 8;
constexpr std::size_t kLookbackEvalSequences = 16;
// The test sequences of n: Rng(mix_seed(kLookbackEvalStream, n)), the same
// for every seed and method.
constexpr std::uint64_t kLookbackEvalStream = 0x6c6f6f6b6261636bULL;  // "lookback"
TrainingTask parse_training_task(const std::string& name);  // "count", "lookback"
std::string to_string(TrainingTask task);

// Integer fields are signed so that a negative value from JS or the command
// line reaches validate() and gets a message instead of wrapping around.
struct ExtrapolationOptions {
    PositionScheme scheme = PositionScheme::learned;
    std::int64_t seed = 1;         // 0 … 2^32-1
    std::int64_t steps = 400;      // Adam steps, 1 … 20000
    std::int64_t train_max = 16;   // train on n = 1 … train_max (1 … 32)
    std::int64_t test_max = 48;    // test n = 1 … test_max (train_max+1 … 96)
    std::int64_t batch = 32;       // sequences per step (1 … 128)
    double lr = 3e-3;              // peak learning rate, (0, 1]
    // Linear warm-up steps, 0 … steps; unset means steps/10 (40 of 400, as in the issue).
    std::optional<std::int64_t> warmup;
    double clip = 1.0;             // global gradient-norm clip, (0, 1000]
    std::int64_t d_model = 32;     // 2 … 64
    std::int64_t heads = 4;        // 1 … 16, divides d_model
    std::int64_t layers = 2;       // 1 … 4
    std::int64_t d_mlp = 128;      // 1 … 256
    double base = 1e4;             // sinusoidal and RoPE, (1, 1e9]
    TrainingTask task = TrainingTask::count;
    std::int64_t k = 4;            // look-back distance, lookback only: 1 … train_max
};

// Throws std::invalid_argument / std::out_of_range naming the field, the
// value and what is allowed.
void validate(const ExtrapolationOptions& options);

// Rows of the learned table: every position of the longest test sequence
// (2·test_max + 2 tokens), so no test ever indexes past the table; the rows
// past 2·train_max never receive a gradient.
std::size_t learned_table_rows(const ExtrapolationOptions& options);

// One sequence of the task: tokens[0 … 2n+1], its inputs are tokens[0 … 2n]
// and targets tokens[1 … 2n+1]; weight 1 from the '=' (position n) on.
TokenBatch count_task_sequence(std::size_t n);
// B sequences with n drawn uniformly from 1 … train_max by rng, packed back to
// back (no padding: each costs only its own 2n+1 rows).
TokenBatch count_task_batch(std::size_t batch, std::size_t train_max, Rng& rng);

// Look back k: the sequence of these symbols (2n+1 of them, each 0 … 7),
// targets x_{i−k} with weight 1 on rows i ≥ k (0 and weight 0 before).
TokenBatch lookback_sequence(const std::vector<int>& symbols, std::size_t k);
// B sequences with n drawn uniformly from ⌈k/2⌉ … max_n and random symbols, packed.
TokenBatch lookback_task_batch(std::size_t batch, std::size_t max_n, std::size_t k, Rng& rng);
// The kLookbackEvalSequences test sequences of n (fixed, see kLookbackEvalStream).
std::vector<TokenBatch> lookback_eval_sequences(std::size_t n, std::size_t k);

// The options' task: its vocabulary, a training batch with n ≤ max_n, and
// the evaluation per n = 1 … test_max.
std::size_t task_vocab(const ExtrapolationOptions& options);
TokenBatch task_batch(const ExtrapolationOptions& options, std::size_t max_n, Rng& rng);

// The warm-up actually used: options.warmup, or steps/10 when unset.
std::size_t warmup_steps(const ExtrapolationOptions& options);

// Learning rate at step s (0-based): lr·(s+1)/warmup during warm-up, then
// linear decay lr·(steps-s)/(steps-warmup), reaching 0 just after the last step.
double learning_rate_at(const ExtrapolationOptions& options, std::size_t step);

struct ExtrapolationEvaluation {
    // [test_max]: index n-1 is 1 if every prediction from '=' on is right
    // (look back k: the fraction of the test sequences of n with every prediction right)
    std::vector<double> exact_match;
    std::size_t solved_up_to = 0;     // largest N with exact match at every n ≤ N (0 if n = 1 fails)
    double mean_extrapolated = 0.0;   // mean exact match over n = train_max+1 … test_max
};

// A run's random streams: the weights are initialised from
// mix_seed(seed, kWeightStream), the training batches drawn by
// Rng(mix_seed(seed, kDataStream)).
constexpr std::uint64_t kWeightStream = 1;
constexpr std::uint64_t kDataStream = 2;
constexpr double kAdamBeta1 = 0.9;
constexpr double kAdamBeta2 = 0.98;  // as in the issue (and Vaswani et al. 2017)
constexpr double kAdamEps = 1e-8;

// One Adam step (β₁, β₂, ε above) on w after clipping the gradient's global
// norm to `clip`; t is the 1-based step count for the bias corrections.
void adam_update(std::vector<float>& w, const std::vector<float>& gradient, std::vector<float>& m,
                 std::vector<float>& v, std::size_t t, double learning_rate, double clip);

// Exact match per n = 1 … test_max of the count task with these weights
// (mean_extrapolated over n = train_max+1 … test_max).
ExtrapolationEvaluation evaluate_count_task(TinyTransformer<float>& model, std::size_t train_max,
                                            std::size_t test_max);
// The same for look back k.
ExtrapolationEvaluation evaluate_lookback_task(TinyTransformer<float>& model, std::size_t train_max,
                                               std::size_t test_max, std::size_t k);
// The options' task (train_max, test_max and k from the options).
ExtrapolationEvaluation evaluate_task(TinyTransformer<float>& model, const ExtrapolationOptions& options);

// A training run that can be advanced a few steps at a time (a Web Worker
// posts progress and checks for cancel between chunks).
class ExtrapolationRun {
public:
    explicit ExtrapolationRun(const ExtrapolationOptions& options);  // validates
    ~ExtrapolationRun();
    ExtrapolationRun(const ExtrapolationRun&) = delete;
    ExtrapolationRun& operator=(const ExtrapolationRun&) = delete;

    // Runs up to `count` more steps (fewer at the end); returns how many ran.
    std::size_t step(std::size_t count);
    bool done() const;
    std::size_t steps_done() const;
    const ExtrapolationOptions& options() const;
    // Training loss of each step done so far (the batch's loss before its update).
    const std::vector<double>& losses() const;
    // The model being trained (its parameters change with every step).
    const TinyTransformer<float>& model() const;
    // Exact match per n with the current weights; may be called at any time.
    ExtrapolationEvaluation evaluate() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace poslab
