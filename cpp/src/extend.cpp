// RoPE context extension in miniature (see extend.hpp).
#include "poslab/extend.hpp"

#include <set>
#include <string>

#include "poslab/errors.hpp"

namespace poslab {
namespace {

TinyTransformerConfig rope_config(const ExtensionOptions& o, const ScaledRope* rope) {
    TinyTransformerConfig c;
    c.vocab = task_vocab(o.train);
    c.d_model = std::size_t(o.train.d_model);
    c.heads = std::size_t(o.train.heads);
    c.layers = std::size_t(o.train.layers);
    c.d_mlp = std::size_t(o.train.d_mlp);
    c.max_positions = learned_table_rows(o.train);
    c.scheme = PositionScheme::rope;
    c.base = o.train.base;
    if (rope) {
        c.rope_theta = rope->theta;
        c.logit_scale = rope->logit_scale;
    }
    return c;
}

ExtrapolationOptions finetune_schedule(const ExtensionOptions& o) {
    ExtrapolationOptions f = o.train;
    f.steps = o.finetune_steps;
    f.lr = o.finetune_lr;
    f.warmup.reset();
    return f;
}

}  // namespace

void validate(const ExtensionOptions& o) {
    ExtrapolationOptions t = o.train;
    t.scheme = PositionScheme::rope;
    validate(t);
    if (o.methods.empty() || o.methods.size() > 5)
        throw InvalidArgument("out_of_range_option", "methods must list 1 to 5 of none, pi, ntk, yarn, base",
                              {{"field", "methods"}, {"value", std::to_string(o.methods.size())}});
    std::set<RopeScaling> seen;
    for (RopeScaling m : o.methods)
        if (!seen.insert(m).second)
            throw InvalidArgument("duplicate_method", "methods lists " + to_string(m) + " twice",
                                  {{"field", "methods"}, {"value", to_string(m)}});
    if (o.finetune_steps < 0 || o.finetune_steps > 2000)
        throw InvalidArgument("out_of_range_option",
                              "finetuneSteps must be an integer from 0 to 2000, got " +
                                  std::to_string(o.finetune_steps),
                              {{"field", "finetuneSteps"},
                               {"value", std::to_string(o.finetune_steps)},
                               {"min", "0"},
                               {"max", "2000"}});
    if (!(o.finetune_lr > 0.0) || !(o.finetune_lr <= 1.0))
        throw InvalidArgument("out_of_range_option", "finetuneLr must be a number in (0, 1]",
                              {{"field", "finetuneLr"}, {"above", "0"}, {"max", "1"}});
    // d_head ≥ 4 for NTK, the new base and YaRN's edges: scale_rope checks
    // them; explicit edges are checked even when yarn is not among the methods.
    if (o.yarn_alpha || o.yarn_beta)
        resolve_yarn_edges(o.yarn_edges, extension_trained_length(o), o.yarn_alpha, o.yarn_beta);
    for (RopeScaling m : o.methods) extension_rope(o, m);
}

double extension_trained_length(const ExtensionOptions& o) { return 2.0 * double(o.train.train_max); }
double extension_scale(const ExtensionOptions& o) {
    return double(o.train.test_max) / double(o.train.train_max);
}

ScaledRope extension_rope(const ExtensionOptions& o, RopeScaling method) {
    RopeScalingParams p;
    p.s = extension_scale(o);
    p.trained_length = extension_trained_length(o);
    p.new_base = o.new_base;
    p.yarn_edges = o.yarn_edges;
    p.yarn_alpha = o.yarn_alpha;
    p.yarn_beta = o.yarn_beta;
    return scale_rope(std::size_t(o.train.d_model / o.train.heads), o.train.base, method, p);
}

struct ExtensionRun::State {
    explicit State(const ExtensionOptions& o) : options(o), base(o.train) {}
    ExtensionOptions options;
    ExtrapolationRun base;
    std::unique_ptr<TinyTransformer<float>> tuned;
    std::vector<float> gradient, adam_m, adam_v;
    Rng data_rng{0};
    std::size_t method = 0, finetune_step = 0;
    bool method_started = false;
    std::vector<ExtensionCurve> curves;
};

namespace {
ExtensionOptions with_rope(ExtensionOptions o) {
    o.train.scheme = PositionScheme::rope;
    return o;
}
}  // namespace

ExtensionRun::ExtensionRun(const ExtensionOptions& options) {
    validate(options);
    state_ = std::make_unique<State>(with_rope(options));
}
ExtensionRun::~ExtensionRun() = default;

std::size_t ExtensionRun::total_steps() const {
    const auto& o = state_->options;
    return std::size_t(o.train.steps) + o.methods.size() * std::size_t(o.finetune_steps);
}
std::size_t ExtensionRun::steps_done() const {
    const State& st = *state_;
    return st.base.steps_done() + st.method * std::size_t(st.options.finetune_steps) + st.finetune_step;
}
bool ExtensionRun::done() const { return state_->method >= state_->options.methods.size(); }
const ExtensionOptions& ExtensionRun::options() const { return state_->options; }
const std::vector<double>& ExtensionRun::losses() const { return state_->base.losses(); }
const std::vector<ExtensionCurve>& ExtensionRun::curves() const { return state_->curves; }

std::size_t ExtensionRun::step(std::size_t count) {
    State& st = *state_;
    const ExtensionOptions& o = st.options;
    const std::size_t test_max = std::size_t(o.train.test_max);
    const std::size_t ft_steps = std::size_t(o.finetune_steps);
    const ExtrapolationOptions schedule = finetune_schedule(o);
    std::size_t ran = 0;
    while (ran < count && !done()) {
        if (!st.base.done()) {
            ran += st.base.step(count - ran);
            continue;
        }
        if (!st.method_started) {
            // A fresh copy of the trained weights with this method's RoPE.
            const RopeScaling method = o.methods[st.method];
            const ScaledRope rope = extension_rope(o, method);
            st.tuned = std::make_unique<TinyTransformer<float>>(rope_config(o, &rope));
            st.tuned->parameters() = st.base.model().parameters();
            ExtensionCurve zero;
            zero.method = method;
            zero.evaluation = evaluate_task(*st.tuned, o.train);
            st.curves.push_back(zero);
            st.adam_m.assign(st.tuned->parameters().size(), 0.0f);
            st.adam_v.assign(st.tuned->parameters().size(), 0.0f);
            st.data_rng = Rng(mix_seed(std::uint64_t(o.train.seed), kFinetuneStream));
            st.finetune_step = 0;
            st.method_started = true;
            if (ft_steps > 0) st.curves.push_back({method, true, {}, {}});
        }
        if (st.finetune_step < ft_steps) {
            const TokenBatch batch = task_batch(o.train, test_max, st.data_rng);
            const float loss = st.tuned->loss_and_gradient(batch, st.gradient);
            st.curves.back().losses.push_back(double(loss));
            adam_update(st.tuned->parameters(), st.gradient, st.adam_m, st.adam_v, st.finetune_step + 1,
                        learning_rate_at(schedule, st.finetune_step), o.train.clip);
            ++st.finetune_step;
            ++ran;
        }
        if (st.finetune_step >= ft_steps) {
            if (ft_steps > 0)
                st.curves.back().evaluation = evaluate_task(*st.tuned, o.train);
            ++st.method;
            st.method_started = false;
            st.finetune_step = 0;
        }
    }
    return ran;
}

}  // namespace poslab
