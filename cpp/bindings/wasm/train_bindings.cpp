// "Train short, test long" for the page's Web Worker: a stateful run that is
// trained in chunks, so the worker can post progress and stop between them.
//
//   const run = new lab.ExtrapolationRun({ scheme: 'rope', seed: 1, steps: 400 });
//   while (!run.done()) { const p = run.step(10); postMessage(p); }
//   const ev = run.evaluate();  // { exactMatch: Float32Array, solvedUpTo, meanExtrapolated, … }
//   run.delete();
//
// A class cannot go through api.js's raw_* wrapper (it needs `new`), so its
// errors are thrown here as a JS Error shaped like api.js's (name
// PositionLabError, .code, .params). The Error is thrown only after every C++
// temporary is gone, so nothing is left half-destroyed but one JS handle.
#include <emscripten/bind.h>

#include <cmath>
#include <memory>
#include <string>

#include "convert.hpp"
#include "poslab/errors.hpp"
#include "poslab/extend.hpp"
#include "poslab/train.hpp"

namespace poslab::wasm {
namespace {

const std::set<std::string> kExtrapolationKeys = {"scheme", "seed",   "steps",  "trainMax", "testMax",
                                                  "batch",  "lr",     "warmup", "clip",     "dModel",
                                                  "heads",  "layers", "dMlp",   "base",     "task",
                                                  "k"};

val error_value(const std::exception& e) {
    val err = val::global("Error").new_(std::string(e.what()));
    err.set("name", std::string("PositionLabError"));
    const std::string code = error_code(e);
    err.set("code", code.empty() ? std::string("error") : code);
    val params = val::object();
    for (const auto& [k, v] : error_params(e)) params.set(k, v);
    err.set("params", params);
    return err;
}

// Runs f; a C++ exception becomes a thrown JS Error.
template <class F>
auto or_throw(F&& f) -> decltype(f()) {
    val error = val::undefined();
    try {
        return f();
    } catch (const std::exception& e) {
        error = error_value(e);
    } catch (...) {
        error = val::global("Error").new_(std::string("unexpected error in the Position Lab core"));
    }
    error.throw_();
    __builtin_unreachable();
}

// Whole numbers are read as int64 (size_t is 32 bits in wasm) so that a
// negative or huge value reaches the core's validate(), which names the range.
std::int64_t whole(const Options& in, const char* key, std::int64_t fallback) {
    if (!in.has(key)) return fallback;
    const val v = in.get(key);
    const bool is_number = v.typeOf().as<std::string>() == "number";
    const double d = is_number ? v.as<double>() : 0.0;
    if (!is_number || !std::isfinite(d) || d != std::floor(d) || std::abs(d) > 9007199254740991.0)
        throw in.type_error(key, v, "a whole number");
    return std::int64_t(d);
}

// The training options both runs take (all of kExtrapolationKeys but scheme);
// a key not given keeps o's default.
void read_training(const Options& in, ExtrapolationOptions& o) {
    o.seed = whole(in, "seed", o.seed);
    o.steps = whole(in, "steps", o.steps);
    o.train_max = whole(in, "trainMax", o.train_max);
    o.test_max = whole(in, "testMax", o.test_max);
    o.batch = whole(in, "batch", o.batch);
    o.lr = in.number("lr", o.lr);
    if (in.has("warmup")) o.warmup = whole(in, "warmup", 0);
    o.clip = in.number("clip", o.clip);
    o.d_model = whole(in, "dModel", o.d_model);
    o.heads = whole(in, "heads", o.heads);
    o.layers = whole(in, "layers", o.layers);
    o.d_mlp = whole(in, "dMlp", o.d_mlp);
    o.base = in.number("base", o.base);
    // task: "count" (count and stop) or "lookback" (look back k; k only with it).
    o.task = parse_training_task(in.string("task", to_string(o.task)));
    if (in.has("k")) {
        if (o.task != TrainingTask::lookback)
            throw InvalidArgument("k_without_lookback", "k applies only to task 'lookback'", {{"field", "k"}});
        o.k = whole(in, "k", o.k);
    }
}

ExtrapolationOptions extrapolation_options(const val& js) {
    const Options in(js, "ExtrapolationRun", kExtrapolationKeys);
    ExtrapolationOptions o;
    o.scheme = parse_position_scheme(in.string("scheme", to_string(o.scheme)));
    read_training(in, o);
    validate(o);
    return o;
}

val float_array(const std::vector<double>& values, std::size_t from = 0) {
    const std::vector<float> f(values.begin() + std::ptrdiff_t(from), values.end());
    return val::global("Float32Array").new_(emscripten::typed_memory_view(f.size(), f.data()));
}

// step(count) of either run: runs count more steps, then {step, steps, done},
// to which the caller adds what its run has to say.
template <class Run>
val run_steps(Run& run, const val& count, std::size_t total) {
    const std::size_t n = Options::whole_value(count, "step(count): count", 100000.0);
    run.step(n);
    val out = val::object();
    out.set("step", run.steps_done());
    out.set("steps", total);
    out.set("done", run.done());
    return out;
}

class ExtrapolationRunJs {
public:
    explicit ExtrapolationRunJs(const ExtrapolationOptions& o) : run_(o) {}

    static ExtrapolationRunJs* create(val options) {
        return or_throw([&] { return new ExtrapolationRunJs(extrapolation_options(options)); });
    }

    bool done() const { return run_.done(); }

    // {step, steps, done, loss: the losses of the steps just run}
    val step(val count) {
        return or_throw([&] {
            const std::size_t first = run_.steps_done();
            val out = run_steps(run_, count, std::size_t(run_.options().steps));
            out.set("loss", float_array(run_.losses(), first));
            return out;
        });
    }

    // Every loss so far, one per step.
    val losses() const {
        return or_throw([&] { return float_array(run_.losses()); });
    }

    // {exactMatch: Float32Array over n = 1…testMax, solvedUpTo, meanExtrapolated, trainMax, testMax, step}
    val evaluate() const {
        return or_throw([&] {
            const ExtrapolationEvaluation ev = run_.evaluate();
            val out = val::object();
            out.set("exactMatch", float_array(ev.exact_match));
            out.set("solvedUpTo", ev.solved_up_to);
            out.set("meanExtrapolated", ev.mean_extrapolated);
            out.set("trainMax", std::size_t(run_.options().train_max));
            out.set("testMax", std::size_t(run_.options().test_max));
            out.set("step", run_.steps_done());
            return out;
        });
    }

    // The learned position table as trained so far: {shape: [rows, dModel],
    // data: Float32Array} (scheme 'learned' only: the others have no table).
    val positionTable() const {
        return or_throw([&] {
            const auto& model = run_.model();
            for (const auto& g : model.groups())
                if (g.name == "position_table") {
                    const std::size_t d = std::size_t(run_.options().d_model);
                    val shape = val::array();
                    shape.call<void>("push", g.size / d);
                    shape.call<void>("push", d);
                    val out = val::object();
                    out.set("shape", shape);
                    std::vector<float> v(model.parameters().begin() + g.offset, model.parameters().begin() + g.offset + g.size);
                    out.set("data", val::global("Float32Array").new_(emscripten::typed_memory_view(v.size(), v.data())));
                    return out;
                }
            throw InvalidArgument("no_position_table", "scheme '" + to_string(run_.options().scheme) +
                                                           "' has no learned position table; only 'learned' does",
                                  {{"scheme", to_string(run_.options().scheme)}});
        });
    }

    // The options in force, defaults filled in.
    val options() const {
        return or_throw([&] {
            const ExtrapolationOptions& o = run_.options();
            val out = val::object();
            out.set("scheme", to_string(o.scheme));
            out.set("seed", double(o.seed));
            out.set("steps", double(o.steps));
            out.set("trainMax", double(o.train_max));
            out.set("testMax", double(o.test_max));
            out.set("batch", double(o.batch));
            out.set("lr", o.lr);
            out.set("warmup", double(warmup_steps(o)));
            out.set("clip", o.clip);
            out.set("dModel", double(o.d_model));
            out.set("heads", double(o.heads));
            out.set("layers", double(o.layers));
            out.set("dMlp", double(o.d_mlp));
            out.set("base", o.base);
            out.set("task", to_string(o.task));
            if (o.task == TrainingTask::lookback) out.set("k", double(o.k));
            out.set("learnedTableRows", double(learned_table_rows(o)));
            return out;
        });
    }

private:
    ExtrapolationRun run_;
};

// RoPE context extension (extend.hpp): the same options as ExtrapolationRun
// but scheme (always rope), plus methods, finetuneSteps, finetuneLr, newBase.
ExtensionOptions extension_options(const val& js) {
    std::set<std::string> keys = kExtrapolationKeys;
    keys.erase("scheme");
    for (const char* k : {"methods", "finetuneSteps", "finetuneLr", "newBase", "yarnEdges", "yarnAlpha", "yarnBeta"})
        keys.insert(k);
    const Options in(js, "ExtensionRun", keys);
    ExtensionOptions e;
    ExtrapolationOptions& o = e.train;
    read_training(in, o);
    if (in.has("methods")) {
        e.methods.clear();
        for (const std::string& m : in.strings("methods")) e.methods.push_back(parse_rope_scaling(m));
    }
    e.finetune_steps = whole(in, "finetuneSteps", e.finetune_steps);
    e.finetune_lr = in.number("finetuneLr", e.finetune_lr);
    e.new_base = in.number("newBase", e.new_base);
    e.yarn_edges = parse_yarn_edge_rule(in.string("yarnEdges", "paper"));
    if (in.has("yarnAlpha")) e.yarn_alpha = in.number("yarnAlpha", 0.0);
    if (in.has("yarnBeta")) e.yarn_beta = in.number("yarnBeta", 0.0);
    validate(e);
    return e;
}

val curve_value(const ExtensionCurve& c) {
    val out = val::object();
    out.set("method", to_string(c.method));
    out.set("finetuned", c.finetuned);
    out.set("exactMatch", float_array(c.evaluation.exact_match));
    out.set("solvedUpTo", c.evaluation.solved_up_to);
    out.set("meanExtrapolated", c.evaluation.mean_extrapolated);
    out.set("loss", float_array(c.losses));
    return out;
}

class ExtensionRunJs {
public:
    explicit ExtensionRunJs(const ExtensionOptions& o) : run_(o) {}

    static ExtensionRunJs* create(val options) {
        return or_throw([&] { return new ExtensionRunJs(extension_options(options)); });
    }

    bool done() const { return run_.done(); }

    // {step, steps, done, curves: how many curves are measured so far}
    val step(val count) {
        return or_throw([&] {
            val out = run_steps(run_, count, run_.total_steps());
            out.set("curves", run_.curves().size());
            return out;
        });
    }

    val losses() const {
        return or_throw([&] { return float_array(run_.losses()); });
    }

    // Every curve measured so far, in order (per method: zero-shot, then fine-tuned).
    val curves() const {
        return or_throw([&] {
            val out = val::array();
            for (const ExtensionCurve& c : run_.curves()) out.call<void>("push", curve_value(c));
            return out;
        });
    }

    // {trainMax, testMax, trainedLength, scale, methods, finetuneSteps, seed, steps, rope: [{method, theta, logitScale, base, ramp}]}
    val options() const {
        return or_throw([&] {
            const ExtensionOptions& e = run_.options();
            val out = val::object();
            out.set("seed", double(e.train.seed));
            out.set("steps", double(e.train.steps));
            out.set("trainMax", double(e.train.train_max));
            out.set("testMax", double(e.train.test_max));
            out.set("finetuneSteps", double(e.finetune_steps));
            out.set("finetuneLr", e.finetune_lr);
            out.set("newBase", e.new_base);
            out.set("yarnEdges", to_string(e.yarn_edges));
            out.set("base", e.train.base);
            out.set("task", to_string(e.train.task));
            if (e.train.task == TrainingTask::lookback) out.set("k", double(e.train.k));
            out.set("trainedLength", extension_trained_length(e));
            out.set("scale", extension_scale(e));
            val methods = val::array(), rope = val::array();
            for (RopeScaling m : e.methods) {
                methods.call<void>("push", to_string(m));
                const ScaledRope r = extension_rope(e, m);
                val one = val::object();
                one.set("method", to_string(m));
                one.set("theta", float_array(r.theta));
                one.set("logitScale", r.logit_scale);
                one.set("base", r.base_used);
                one.set("ramp", float_array(r.ramp));
                if (m == RopeScaling::yarn) {
                    one.set("alpha", r.alpha);
                    one.set("beta", r.beta);
                }
                rope.call<void>("push", one);
            }
            out.set("methods", methods);
            out.set("rope", rope);
            return out;
        });
    }

private:
    ExtensionRun run_;
};

}  // namespace
}  // namespace poslab::wasm

EMSCRIPTEN_BINDINGS(poslab_extend) {
    using poslab::wasm::ExtensionRunJs;
    emscripten::class_<ExtensionRunJs>("ExtensionRun")
        .constructor(&ExtensionRunJs::create, emscripten::allow_raw_pointers())
        .function("done", &ExtensionRunJs::done)
        .function("step", &ExtensionRunJs::step)
        .function("losses", &ExtensionRunJs::losses)
        .function("curves", &ExtensionRunJs::curves)
        .function("options", &ExtensionRunJs::options);
}

EMSCRIPTEN_BINDINGS(poslab_train) {
    using poslab::wasm::ExtrapolationRunJs;
    emscripten::class_<ExtrapolationRunJs>("ExtrapolationRun")
        .constructor(&ExtrapolationRunJs::create, emscripten::allow_raw_pointers())
        .function("done", &ExtrapolationRunJs::done)
        .function("step", &ExtrapolationRunJs::step)
        .function("losses", &ExtrapolationRunJs::losses)
        .function("evaluate", &ExtrapolationRunJs::evaluate)
        .function("positionTable", &ExtrapolationRunJs::positionTable)
        .function("options", &ExtrapolationRunJs::options);
}
