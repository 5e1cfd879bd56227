// The curves of an ExtensionRun for the grader (see extend_runs.hpp).
#include "poslab/extend_runs.hpp"

#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "poslab/errors.hpp"

namespace poslab {
namespace {

using json = nlohmann::json;

// exercises/generated/rope-extend-runs.json, as the build found it (CMake's configure_file).
const char* const kCacheText =
#include "poslab/extend_runs_cache.inc"
    ;

const std::set<std::string>& option_keys() {
    static const std::set<std::string> keys = {"seed",  "steps",  "trainMax", "testMax", "batch",         "lr",
                                               "warmup", "clip",  "dModel",   "heads",   "layers",        "dMlp",
                                               "base",  "methods", "finetuneSteps", "finetuneLr", "newBase",
                                               "task",  "k", "yarnEdges", "yarnAlpha", "yarnBeta"};
    return keys;
}

std::int64_t whole(const json& args, const char* key, std::int64_t fallback) {
    if (!args.contains(key)) return fallback;
    const json& v = args[key];
    if (!v.is_number() || v.get<double>() != double(v.get<std::int64_t>()))
        throw InvalidArgument("bad_run_option", std::string(key) + " must be a whole number, got " + v.dump(),
                              {{"field", key}});
    return v.get<std::int64_t>();
}

double number(const json& args, const char* key, double fallback) {
    if (!args.contains(key)) return fallback;
    if (!args[key].is_number())
        throw InvalidArgument("bad_run_option", std::string(key) + " must be a number, got " + args[key].dump(),
                              {{"field", key}});
    return args[key].get<double>();
}

std::vector<ExtensionRunCurve> curves_of(const ExtensionRun& run) {
    std::vector<ExtensionRunCurve> out;
    for (const ExtensionCurve& c : run.curves())
        out.push_back({c.method, c.finetuned, c.evaluation.exact_match, std::int64_t(c.evaluation.solved_up_to),
                       c.evaluation.mean_extrapolated});
    return out;
}

struct Cache {
    json options;  // extension_options_json of the cached runs' options
    std::map<std::int64_t, std::vector<ExtensionRunCurve>> runs;
};

// The compiled-in cache, read once. A file that does not parse is a build
// error in spirit; here it just leaves the cache empty (every run computed),
// and the cache test fails.
const Cache& cache() {
    static const Cache c = [] {
        Cache out;
        try {
            const json file = json::parse(kCacheText);
            out.options = extension_options_json(extension_options_from_json(file.at("options")));
            for (const json& r : file.at("runs")) {
                std::vector<ExtensionRunCurve> curves;
                for (const json& x : r.at("curves"))
                    curves.push_back({parse_rope_scaling(x.at("method").get<std::string>()),
                                      x.at("finetuned").get<bool>(), x.at("exactMatch").get<std::vector<double>>(),
                                      x.at("solvedUpTo").get<std::int64_t>(), x.at("meanExtrapolated").get<double>()});
                out.runs[r.at("seed").get<std::int64_t>()] = std::move(curves);
            }
        } catch (const std::exception&) {
            out = Cache{};
        }
        return out;
    }();
    return c;
}

}  // namespace

ExtensionOptions extension_options_from_json(const json& args) {
    if (!args.is_object())
        throw InvalidArgument("bad_run_option", "run options must be an object, got " + args.dump().substr(0, 60),
                              {{"field", "args"}});
    for (const auto& [key, value] : args.items())
        if (!option_keys().count(key))
            throw InvalidArgument("unknown_option", "unknown run option '" + key + "'", {{"option", key}});
    ExtensionOptions e;
    ExtrapolationOptions& o = e.train;
    o.seed = whole(args, "seed", o.seed);
    o.steps = whole(args, "steps", o.steps);
    o.train_max = whole(args, "trainMax", o.train_max);
    o.test_max = whole(args, "testMax", o.test_max);
    o.batch = whole(args, "batch", o.batch);
    o.lr = number(args, "lr", o.lr);
    if (args.contains("warmup")) o.warmup = whole(args, "warmup", 0);
    o.clip = number(args, "clip", o.clip);
    o.d_model = whole(args, "dModel", o.d_model);
    o.heads = whole(args, "heads", o.heads);
    o.layers = whole(args, "layers", o.layers);
    o.d_mlp = whole(args, "dMlp", o.d_mlp);
    o.base = number(args, "base", o.base);
    if (args.contains("task")) {
        if (!args["task"].is_string())
            throw InvalidArgument("bad_run_option", "task must be count or lookback", {{"field", "task"}});
        o.task = parse_training_task(args["task"].get<std::string>());
    }
    if (args.contains("k")) {
        if (o.task != TrainingTask::lookback)
            throw InvalidArgument("bad_run_option", "k applies only to task lookback", {{"field", "k"}});
        o.k = whole(args, "k", o.k);
    }
    if (args.contains("methods")) {
        if (!args["methods"].is_array())
            throw InvalidArgument("bad_run_option", "methods must be a list of method names", {{"field", "methods"}});
        e.methods.clear();
        for (const json& m : args["methods"]) {
            if (!m.is_string())
                throw InvalidArgument("bad_run_option", "methods must be a list of method names", {{"field", "methods"}});
            e.methods.push_back(parse_rope_scaling(m.get<std::string>()));
        }
    }
    e.finetune_steps = whole(args, "finetuneSteps", e.finetune_steps);
    e.finetune_lr = number(args, "finetuneLr", e.finetune_lr);
    e.new_base = number(args, "newBase", e.new_base);
    if (args.contains("yarnEdges")) {
        if (!args["yarnEdges"].is_string())
            throw InvalidArgument("bad_run_option", "yarnEdges must be paper or lab", {{"field", "yarnEdges"}});
        e.yarn_edges = parse_yarn_edge_rule(args["yarnEdges"].get<std::string>());
    }
    if (args.contains("yarnAlpha")) e.yarn_alpha = number(args, "yarnAlpha", 0.0);
    if (args.contains("yarnBeta")) e.yarn_beta = number(args, "yarnBeta", 0.0);
    validate(e);
    return e;
}

json extension_options_json(const ExtensionOptions& e) {
    const ExtrapolationOptions& o = e.train;
    json methods = json::array();
    for (RopeScaling m : e.methods) methods.push_back(to_string(m));
    json out = {{"steps", o.steps},     {"trainMax", o.train_max},           {"testMax", o.test_max},
                {"batch", o.batch},     {"lr", o.lr},                        {"warmup", std::int64_t(warmup_steps(o))},
                {"clip", o.clip},       {"dModel", o.d_model},               {"heads", o.heads},
                {"layers", o.layers},   {"dMlp", o.d_mlp},                   {"base", o.base},
                {"methods", methods},   {"finetuneSteps", e.finetune_steps}, {"finetuneLr", e.finetune_lr},
                {"newBase", e.new_base}, {"task", to_string(o.task)}};
    if (o.task == TrainingTask::lookback) out["k"] = o.k;
    out["yarnEdges"] = to_string(e.yarn_edges);
    if (e.yarn_alpha) out["yarnAlpha"] = *e.yarn_alpha;
    if (e.yarn_beta) out["yarnBeta"] = *e.yarn_beta;
    return out;
}

std::vector<ExtensionRunCurve>
compute_extension_run_curves(const ExtensionOptions &options) {
  ExtensionRun run(options);
  // Until done, as the page's loop steps it: one call of total_steps() steps
  // stops after the base training when finetune_steps is 0, before the
  // zero-shot curves are measured (step() counts only training steps).
  while (!run.done())
    run.step(run.total_steps());
  return curves_of(run);
}

bool extension_run_cached(const ExtensionOptions& options) {
    const Cache& c = cache();
    return !c.runs.empty() && c.options == extension_options_json(options) && c.runs.count(options.train.seed) != 0;
}

const std::vector<ExtensionRunCurve>& extension_run_curves(const ExtensionOptions& options) {
    if (extension_run_cached(options)) return cache().runs.at(options.train.seed);
    // Memoized per (options, seed); entries are never removed, so references stay valid.
    static std::mutex mutex;
    static std::map<std::string, std::vector<ExtensionRunCurve>> memo;
    const std::string key = extension_options_json(options).dump() + "#" + std::to_string(options.train.seed);
    {
        std::lock_guard<std::mutex> lock(mutex);
        const auto it = memo.find(key);
        if (it != memo.end()) return it->second;
    }
    std::vector<ExtensionRunCurve> curves = compute_extension_run_curves(options);
    std::lock_guard<std::mutex> lock(mutex);
    return memo.emplace(key, std::move(curves)).first->second;
}

const std::string& extension_run_cache_text() {
    static const std::string text = kCacheText;
    return text;
}

}  // namespace poslab
