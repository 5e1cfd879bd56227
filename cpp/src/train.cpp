// "Train short, test long": the count-and-stop task, Adam, and the evaluation
// per n (see train.hpp).
#include "poslab/train.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "poslab/errors.hpp"

namespace poslab {
namespace {

std::string number(double v) {
    std::string s = std::to_string(v);
    // to_string gives 6 decimals; trim trailing zeros for readable messages.
    if (s.find('.') != std::string::npos) {
        s.erase(s.find_last_not_of('0') + 1);
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

// The codes and params follow the rest of the core (errors.hpp), so the page
// can say the same in Japanese.
void check_range(const char* name, std::int64_t value, std::int64_t lo, std::int64_t hi) {
    if (value < lo || value > hi)
        throw InvalidArgument("out_of_range_option",
                              std::string(name) + " must be an integer from " + std::to_string(lo) +
                                  " to " + std::to_string(hi) + ", got " + std::to_string(value),
                              {{"field", name},
                               {"value", std::to_string(value)},
                               {"min", std::to_string(lo)},
                               {"max", std::to_string(hi)}});
}

// lo < value <= hi
void check_real(const char* name, double value, double lo, double hi, const char* allowed) {
    if (!std::isfinite(value) || !(value > lo) || !(value <= hi))
        throw InvalidArgument("out_of_range_option",
                              std::string(name) + " must be " + allowed + ", got " + number(value),
                              {{"field", name},
                               {"value", number(value)},
                               {"above", number(lo)},
                               {"max", number(hi)}});
}

TinyTransformerConfig model_config(const ExtrapolationOptions& o) {
    TinyTransformerConfig c;
    c.vocab = task_vocab(o);
    c.d_model = std::size_t(o.d_model);
    c.heads = std::size_t(o.heads);
    c.layers = std::size_t(o.layers);
    c.d_mlp = std::size_t(o.d_mlp);
    c.max_positions = learned_table_rows(o);
    c.scheme = o.scheme;
    c.base = o.base;
    return c;
}

// solved_up_to and mean_extrapolated from exact_match.
void summarise(ExtrapolationEvaluation& ev, std::size_t train_max, std::size_t test_max) {
    while (ev.solved_up_to < test_max && ev.exact_match[ev.solved_up_to] == 1.0) ++ev.solved_up_to;
    double sum = 0.0;
    for (std::size_t n = train_max + 1; n <= test_max; ++n) sum += ev.exact_match[n - 1];
    ev.mean_extrapolated = test_max > train_max ? sum / double(test_max - train_max) : 0.0;
}

void append(TokenBatch& b, const TokenBatch& one) {
    b.lengths.insert(b.lengths.end(), one.lengths.begin(), one.lengths.end());
    b.tokens.insert(b.tokens.end(), one.tokens.begin(), one.tokens.end());
    b.targets.insert(b.targets.end(), one.targets.begin(), one.targets.end());
    b.weights.insert(b.weights.end(), one.weights.begin(), one.weights.end());
}

std::vector<int> random_symbols(std::size_t count, Rng& rng) {
    std::vector<int> x(count);
    for (int& v : x) v = int(rng.next_u64() % kLookbackVocab);
    return x;
}

}  // namespace

TrainingTask parse_training_task(const std::string& name) {
    if (name == "count") return TrainingTask::count;
    if (name == "lookback") return TrainingTask::lookback;
    throw InvalidArgument("unknown_task", "task must be count or lookback, got '" + name + "'",
                          {{"field", "task"}, {"value", name}});
}

std::string to_string(TrainingTask task) {
    return task == TrainingTask::lookback ? "lookback" : "count";
}

void validate(const ExtrapolationOptions& o) {
    switch (o.scheme) {
        case PositionScheme::none:
        case PositionScheme::sinusoidal:
        case PositionScheme::learned:
        case PositionScheme::rope:
        case PositionScheme::alibi:
            break;
        default:
            throw InvalidArgument("unknown_scheme",
                                  "scheme must be one of learned, sinusoidal, rope, alibi, none");
    }
    check_range("seed", o.seed, 0, 4294967295LL);
    check_range("steps", o.steps, 1, 20000);
    check_range("trainMax", o.train_max, 1, 32);
    check_range("testMax", o.test_max, o.train_max + 1, 96);
    check_range("batch", o.batch, 1, 128);
    check_real("lr", o.lr, 0.0, 1.0, "a number in (0, 1]");
    if (o.warmup) check_range("warmup", *o.warmup, 0, o.steps);
    check_real("clip", o.clip, 0.0, 1000.0, "a number in (0, 1000]");
    check_range("dModel", o.d_model, 2, 64);
    check_range("heads", o.heads, 1, 16);
    check_range("layers", o.layers, 1, 4);
    check_range("dMlp", o.d_mlp, 1, 256);
    check_real("base", o.base, 1.0, 1e9, "a number in (1, 1e9]");
    if (o.task != TrainingTask::count && o.task != TrainingTask::lookback)
        throw InvalidArgument("unknown_task", "task must be count or lookback", {{"field", "task"}});
    if (o.task == TrainingTask::lookback) check_range("k", o.k, 1, o.train_max);
    if (o.d_model % o.heads != 0)
        throw InvalidArgument("heads_not_dividing",
                              "heads must divide dModel: dModel " + std::to_string(o.d_model) +
                                  ", heads " + std::to_string(o.heads),
                              {{"dModel", std::to_string(o.d_model)},
                               {"heads", std::to_string(o.heads)}});
    if (o.scheme == PositionScheme::sinusoidal && o.d_model % 2 != 0)
        throw InvalidArgument("odd_width",
                              "sinusoidal needs an even dModel (sin, cos pairs), got " +
                                  std::to_string(o.d_model),
                              {{"field", "dModel"}, {"value", std::to_string(o.d_model)}});
    if (o.scheme == PositionScheme::rope && (o.d_model / o.heads) % 2 != 0)
        throw InvalidArgument("odd_width",
                              "rope needs an even head width dModel/heads, got " +
                                  std::to_string(o.d_model / o.heads),
                              {{"field", "dModel/heads"},
                               {"value", std::to_string(o.d_model / o.heads)}});
}

std::size_t learned_table_rows(const ExtrapolationOptions& options) {
    return 2 * std::size_t(options.test_max) + 2;
}

TokenBatch count_task_sequence(std::size_t n) {
    TokenBatch b;
    b.lengths = {2 * n + 1};
    std::vector<int> seq(2 * n + 2, kTokenA);
    seq[n] = kTokenEquals;
    for (std::size_t i = n + 1; i <= 2 * n; ++i) seq[i] = kTokenB;
    seq[2 * n + 1] = kTokenEos;
    b.tokens.assign(seq.begin(), seq.end() - 1);
    b.targets.assign(seq.begin() + 1, seq.end());
    b.weights.assign(2 * n + 1, 0.0f);
    for (std::size_t s = n; s <= 2 * n; ++s) b.weights[s] = 1.0f;
    return b;
}

TokenBatch count_task_batch(std::size_t batch, std::size_t train_max, Rng& rng) {
    TokenBatch b;
    for (std::size_t i = 0; i < batch; ++i) {
        const std::size_t n = 1 + std::size_t(rng.next_u64() % train_max);
        const TokenBatch one = count_task_sequence(n);
        b.lengths.push_back(one.lengths[0]);
        b.tokens.insert(b.tokens.end(), one.tokens.begin(), one.tokens.end());
        b.targets.insert(b.targets.end(), one.targets.begin(), one.targets.end());
        b.weights.insert(b.weights.end(), one.weights.begin(), one.weights.end());
    }
    return b;
}

TokenBatch lookback_sequence(const std::vector<int>& symbols, std::size_t k) {
    for (int x : symbols)
        if (x < 0 || x >= int(kLookbackVocab))
            throw std::invalid_argument("lookback_sequence: symbols must be from 0 to 7");
    TokenBatch b;
    b.lengths = {symbols.size()};
    b.tokens = symbols;
    b.targets.assign(symbols.size(), 0);
    b.weights.assign(symbols.size(), 0.0f);
    for (std::size_t i = k; i < symbols.size(); ++i) {
        b.targets[i] = symbols[i - k];
        b.weights[i] = 1.0f;
    }
    return b;
}

TokenBatch lookback_task_batch(std::size_t batch, std::size_t max_n, std::size_t k, Rng& rng) {
    const std::size_t min_n = (k + 1) / 2;  // 2n ≥ k: at least one row to predict
    if (k == 0 || min_n > max_n)
        throw std::invalid_argument("lookback_task_batch: k must be from 1 to 2·max_n");
    TokenBatch b;
    for (std::size_t i = 0; i < batch; ++i) {
        const std::size_t n = min_n + std::size_t(rng.next_u64() % (max_n - min_n + 1));
        append(b, lookback_sequence(random_symbols(2 * n + 1, rng), k));
    }
    return b;
}

std::vector<TokenBatch> lookback_eval_sequences(std::size_t n, std::size_t k) {
    Rng rng(mix_seed(kLookbackEvalStream, std::uint64_t(n)));
    std::vector<TokenBatch> out;
    for (std::size_t i = 0; i < kLookbackEvalSequences; ++i)
        out.push_back(lookback_sequence(random_symbols(2 * n + 1, rng), k));
    return out;
}

std::size_t task_vocab(const ExtrapolationOptions& o) {
    return o.task == TrainingTask::lookback ? kLookbackVocab : kCountTaskVocab;
}

TokenBatch task_batch(const ExtrapolationOptions& o, std::size_t max_n, Rng& rng) {
    if (o.task == TrainingTask::lookback)
        return lookback_task_batch(std::size_t(o.batch), max_n, std::size_t(o.k), rng);
    return count_task_batch(std::size_t(o.batch), max_n, rng);
}

std::size_t warmup_steps(const ExtrapolationOptions& o) {
    return std::size_t(o.warmup ? *o.warmup : o.steps / 10);
}

double learning_rate_at(const ExtrapolationOptions& o, std::size_t step) {
    const double s = double(step), steps = double(o.steps), warmup = double(warmup_steps(o));
    if (s < warmup) return o.lr * (s + 1.0) / warmup;
    return o.lr * std::max(0.0, steps - s) / (steps - warmup);
}

struct ExtrapolationRun::State {
    explicit State(const ExtrapolationOptions& o)
        : options(o), model(model_config(o)), data_rng(mix_seed(std::uint64_t(o.seed), kDataStream)) {
        model.initialize(mix_seed(std::uint64_t(o.seed), kWeightStream));
        const std::size_t n = model.parameters().size();
        adam_m.assign(n, 0.0f);
        adam_v.assign(n, 0.0f);
    }
    ExtrapolationOptions options;
    TinyTransformer<float> model;
    Rng data_rng;
    std::vector<float> gradient, adam_m, adam_v;
    std::vector<double> losses;
    std::size_t step = 0;
};

ExtrapolationRun::ExtrapolationRun(const ExtrapolationOptions& options) {
    validate(options);
    state_ = std::make_unique<State>(options);
}
ExtrapolationRun::~ExtrapolationRun() = default;

bool ExtrapolationRun::done() const { return state_->step >= std::size_t(state_->options.steps); }
std::size_t ExtrapolationRun::steps_done() const { return state_->step; }
const ExtrapolationOptions& ExtrapolationRun::options() const { return state_->options; }
const std::vector<double>& ExtrapolationRun::losses() const { return state_->losses; }
const TinyTransformer<float>& ExtrapolationRun::model() const { return state_->model; }

std::size_t ExtrapolationRun::step(std::size_t count) {
    State& st = *state_;
    const ExtrapolationOptions& o = st.options;
    std::size_t ran = 0;
    while (ran < count && !done()) {
        const TokenBatch batch = task_batch(o, std::size_t(o.train_max), st.data_rng);
        const float loss = st.model.loss_and_gradient(batch, st.gradient);
        st.losses.push_back(double(loss));

        adam_update(st.model.parameters(), st.gradient, st.adam_m, st.adam_v, st.step + 1,
                    learning_rate_at(o, st.step), o.clip);
        ++st.step;
        ++ran;
    }
    return ran;
}

ExtrapolationEvaluation ExtrapolationRun::evaluate() const {
    return evaluate_task(state_->model, state_->options);
}

void adam_update(std::vector<float>& w, const std::vector<float>& gradient, std::vector<float>& m,
                 std::vector<float>& v, std::size_t t, double learning_rate, double clip) {
    double norm2 = 0.0;
    for (float g : gradient) norm2 += double(g) * double(g);
    const double norm = std::sqrt(norm2);
    const float clip_scale = norm > clip ? float(clip / norm) : 1.0f;
    const float lr = float(learning_rate);
    const float b1 = float(kAdamBeta1), b2 = float(kAdamBeta2);
    const float correct1 = float(1.0 - std::pow(kAdamBeta1, double(t)));
    const float correct2 = float(1.0 - std::pow(kAdamBeta2, double(t)));
    for (std::size_t i = 0; i < w.size(); ++i) {
        const float g = gradient[i] * clip_scale;
        m[i] = b1 * m[i] + (1.0f - b1) * g;
        v[i] = b2 * v[i] + (1.0f - b2) * g * g;
        const float m_hat = m[i] / correct1;
        const float v_hat = v[i] / correct2;
        w[i] -= lr * m_hat / (std::sqrt(v_hat) + float(kAdamEps));
    }
}

ExtrapolationEvaluation evaluate_count_task(TinyTransformer<float>& model, std::size_t train_max,
                                            std::size_t test_max) {
    ExtrapolationEvaluation ev;
    ev.exact_match.assign(test_max, 0.0);
    for (std::size_t n = 1; n <= test_max; ++n) {
        const TokenBatch seq = count_task_sequence(n);
        const std::vector<float> logits = model.logits(seq);
        bool all_right = true;
        for (std::size_t s = n; s <= 2 * n && all_right; ++s) {
            const float* z = logits.data() + s * kCountTaskVocab;
            const int predicted = int(std::max_element(z, z + kCountTaskVocab) - z);
            all_right = predicted == seq.targets[s];
        }
        ev.exact_match[n - 1] = all_right ? 1.0 : 0.0;
    }
    summarise(ev, train_max, test_max);
    return ev;
}

ExtrapolationEvaluation evaluate_lookback_task(TinyTransformer<float>& model, std::size_t train_max,
                                               std::size_t test_max, std::size_t k) {
    ExtrapolationEvaluation ev;
    ev.exact_match.assign(test_max, 1.0);  // 2n < k: nothing to predict, solved
    for (std::size_t n = std::max<std::size_t>(1, (k + 1) / 2); n <= test_max; ++n) {
        const std::vector<TokenBatch> sequences = lookback_eval_sequences(n, k);
        TokenBatch packed;
        for (const TokenBatch& one : sequences) append(packed, one);
        const std::vector<float> logits = model.logits(packed);
        const std::size_t len = 2 * n + 1;
        std::size_t right = 0;
        for (std::size_t q = 0; q < sequences.size(); ++q) {
            bool all_right = true;
            for (std::size_t i = k; i < len && all_right; ++i) {
                const float* z = logits.data() + (q * len + i) * kLookbackVocab;
                const int predicted = int(std::max_element(z, z + kLookbackVocab) - z);
                all_right = predicted == sequences[q].targets[i];
            }
            right += all_right ? 1 : 0;
        }
        ev.exact_match[n - 1] = double(right) / double(sequences.size());
    }
    summarise(ev, train_max, test_max);
    return ev;
}

ExtrapolationEvaluation evaluate_task(TinyTransformer<float>& model, const ExtrapolationOptions& o) {
    if (o.task == TrainingTask::lookback)
        return evaluate_lookback_task(model, std::size_t(o.train_max), std::size_t(o.test_max),
                                      std::size_t(o.k));
    return evaluate_count_task(model, std::size_t(o.train_max), std::size_t(o.test_max));
}

}  // namespace poslab
