// poslab extrapolate: "train short, test long" natively. Trains the tiny
// Transformer once per scheme and seed, tests every n up to --test-max and
// prints everything as one JSON document.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "poslab/errors.hpp"
#include "poslab/extend.hpp"
#include "poslab/parallel.hpp"
#include "poslab/train.hpp"

namespace poslab::cli {
namespace {

const char* kExtrapolateUsage = R"(poslab extrapolate — train short, test long (JSON out)

  poslab extrapolate [--schemes learned,sinusoidal,rope,alibi,none] [--seeds 1,2,3]
                     [--steps 400] [--train-max 16] [--test-max 48] [--batch 32]
                     [--lr 0.003] [--warmup steps/10] [--clip 1] [--d-model 32]
                     [--heads 4] [--layers 2] [--d-mlp 128] [--base 10000]
                     [--task count|lookback] [--k 4] [--threads N]

Task "count and stop": a…a = b…b <eos> with n a's and n b's. Trains on
n = 1…train-max, tests every n = 1…test-max (exact match of all n+1
predictions from '=' on). Per scheme and seed: the loss curve, exact match
per n, the largest n solved with no gap before it, the mean exact match over
n = train-max+1…test-max, and the seconds taken.
--task lookback: "look back k" instead (as in poslab extend --help).
--threads N: train up to N runs at once (default: the machine's hardware
threads; 1 to 256). The output is the same for any N (seconds aside).
Bad input: a one-line message on stderr, exit status 2.
)";

std::int64_t get_int(const Args& a, const std::string& flag, std::int64_t fallback) {
    if (!a.has(flag)) return fallback;
    const std::size_t v = a.get_size(flag, 0);
    if (v > std::size_t(std::numeric_limits<std::int64_t>::max()))
        throw InvalidArgument("cli", flag + " is too large, got " + a.get(flag, ""));
    return std::int64_t(v);
}

std::vector<PositionScheme> parse_schemes(const Args& a) {
    std::vector<PositionScheme> schemes;
    std::set<std::string> seen;
    for (const std::string& name : split_commas(a.get("--schemes", "learned,sinusoidal,rope,alibi,none"))) {
        const PositionScheme s = parse_position_scheme(name);
        if (!seen.insert(name).second)
            throw InvalidArgument("cli", "--schemes lists " + name + " twice");
        schemes.push_back(s);
    }
    return schemes;
}

std::vector<std::int64_t> parse_seeds(const Args& a) {
    std::vector<std::int64_t> seeds;
    std::set<std::size_t> seen;
    const std::vector<std::size_t> list =
        a.has("--seeds") ? a.get_size_list("--seeds") : std::vector<std::size_t>{1, 2, 3};
    // Each seed is a full training run per scheme: a long list is hours of work.
    constexpr std::size_t kMaxSeeds = 16;
    if (list.size() > kMaxSeeds)
        throw InvalidArgument("cli", "--seeds lists " + std::to_string(list.size()) + " seeds; at most " +
                                         std::to_string(kMaxSeeds) + " are allowed");
    for (std::size_t s : list) {
        if (s > 4294967295u)
            throw InvalidArgument("cli", "--seeds entries must be from 0 to 4294967295, got " +
                                             std::to_string(s));
        if (!seen.insert(s).second)
            throw InvalidArgument("cli", "--seeds lists " + std::to_string(s) + " twice");
        seeds.push_back(std::int64_t(s));
    }
    return seeds;
}

// --threads N: how many runs train at once. A whole number from 1 to
// kMaxThreads; absent, the machine's hardware threads.
std::size_t parse_threads(const Args& a) {
    if (!a.has("--threads")) return default_thread_count();
    const std::string text = a.get("--threads", "");
    std::size_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || p != end || v < 1 || v > kMaxThreads)
        throw InvalidArgument("cli", "--threads must be a whole number from 1 to " + std::to_string(kMaxThreads) +
                                         ", got '" + text + "'");
    return v;
}

ExtrapolationOptions common_options(const Args& a) {
    ExtrapolationOptions o;
    o.steps = get_int(a, "--steps", o.steps);
    o.train_max = get_int(a, "--train-max", o.train_max);
    o.test_max = get_int(a, "--test-max", o.test_max);
    o.batch = get_int(a, "--batch", o.batch);
    o.lr = a.get_double("--lr", o.lr);
    if (a.has("--warmup")) o.warmup = get_int(a, "--warmup", 0);
    o.clip = a.get_double("--clip", o.clip);
    o.d_model = get_int(a, "--d-model", o.d_model);
    o.heads = get_int(a, "--heads", o.heads);
    o.layers = get_int(a, "--layers", o.layers);
    o.d_mlp = get_int(a, "--d-mlp", o.d_mlp);
    o.base = a.get_double("--base", o.base);
    return o;
}

// --task count|lookback and --k (lookback only).
void parse_task(const Args& a, ExtrapolationOptions& o) {
    if (a.has("--task")) o.task = parse_training_task(a.get("--task", ""));
    if (a.has("--k")) {
        if (o.task != TrainingTask::lookback)
            throw InvalidArgument("cli", "--k applies only to --task lookback");
        o.k = get_int(a, "--k", o.k);
    }
}

const char* task_name(const ExtrapolationOptions& o) {
    return o.task == TrainingTask::lookback ? "lookback" : "count-and-stop";
}

nlohmann::json options_json(const ExtrapolationOptions& o) {
    return {{"steps", o.steps},     {"trainMax", o.train_max},
            {"testMax", o.test_max}, {"batch", o.batch},
            {"lr", o.lr},           {"warmup", warmup_steps(o)},
            {"clip", o.clip},       {"dModel", o.d_model},
            {"heads", o.heads},     {"layers", o.layers},
            {"dMlp", o.d_mlp},      {"base", o.base},
            {"learnedTableRows", learned_table_rows(o)}, {"task", to_string(o.task)}};
}

int extrapolate(int argc, char** argv) {
    const Args a(argc, argv,
                 {"--schemes", "--seeds", "--steps", "--train-max", "--test-max", "--batch", "--lr",
                  "--warmup", "--clip", "--d-model", "--heads", "--layers", "--d-mlp", "--base",
                  "--task", "--k", "--threads"},
                 {"--help"});
    if (a.has("--help")) {
        std::cout << kExtrapolateUsage;
        return 0;
    }
    if (!a.positional().empty())
        throw InvalidArgument("cli", "extrapolate takes only --flags, got '" + a.positional()[0] + "'");
    const std::vector<PositionScheme> schemes = parse_schemes(a);
    const std::vector<std::int64_t> seeds = parse_seeds(a);
    ExtrapolationOptions common = common_options(a);
    parse_task(a, common);
    // Check every run's options before spending minutes on the first one.
    for (PositionScheme scheme : schemes) {
        ExtrapolationOptions o = common;
        o.scheme = scheme;
        validate(o);
    }

    const std::size_t threads = parse_threads(a);

    // One run per scheme and seed, trained side by side on up to `threads`
    // threads; each keeps its numbers at its own index, so the JSON below is
    // assembled in the order asked whatever the thread count.
    struct Done {
        std::vector<double> losses;
        ExtrapolationEvaluation ev;
        double seconds = 0;
    };
    const std::size_t n_seeds = seeds.size();
    std::vector<Done> done(schemes.size() * n_seeds);
    for_each_index(done.size(), threads, [&](std::size_t i) {
        ExtrapolationOptions o = common;
        o.scheme = schemes[i / n_seeds];
        o.seed = seeds[i % n_seeds];
        const auto start = std::chrono::steady_clock::now();
        ExtrapolationRun run(o);
        run.step(std::size_t(o.steps));
        done[i].ev = run.evaluate();
        done[i].losses = run.losses();
        done[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });

    nlohmann::json runs = nlohmann::json::array(), summary = nlohmann::json::array();
    for (std::size_t si = 0; si < schemes.size(); ++si) {
        const PositionScheme scheme = schemes[si];
        nlohmann::json solved = nlohmann::json::array();
        double sum_solved = 0, sum_mean = 0, sum_seconds = 0;
        for (std::size_t k = 0; k < n_seeds; ++k) {
            const Done& d = done[si * n_seeds + k];
            const ExtrapolationEvaluation& ev = d.ev;
            nlohmann::json loss = nlohmann::json::array();
            for (double v : d.losses) loss.push_back(float_json(float(v)));
            runs.push_back({{"scheme", to_string(scheme)},
                            {"seed", seeds[k]},
                            {"loss", loss},
                            {"exactMatch", ev.exact_match},
                            {"solvedUpTo", ev.solved_up_to},
                            {"meanExtrapolated", ev.mean_extrapolated},
                            {"seconds", d.seconds}});
            solved.push_back(ev.solved_up_to);
            sum_solved += double(ev.solved_up_to);
            sum_mean += ev.mean_extrapolated;
            sum_seconds += d.seconds;
        }
        const double n = double(n_seeds);
        summary.push_back({{"scheme", to_string(scheme)},
                           {"solvedUpTo", solved},
                           {"meanSolvedUpTo", sum_solved / n},
                           {"meanExtrapolated", sum_mean / n},
                           {"meanSeconds", sum_seconds / n}});
    }
    nlohmann::json options = options_json(common);
    if (common.task == TrainingTask::lookback) options["k"] = common.k;
    return print_json({{"task", task_name(common)},
                       {"options", options},
                       {"seeds", seeds},
                       {"runs", runs},
                       {"summary", summary}});
}

const char* kExtendUsage = R"(poslab extend — RoPE context extension in miniature (JSON out)

  poslab extend [--methods none,pi,ntk,yarn] [--seeds 1,2,3] [--finetune-steps 100]
                [--finetune-lr 0.001] [--new-base 500000] [--steps 400] [--train-max 8]
                [--test-max 16] [--batch 32] [--lr 0.003] [--warmup steps/10] [--clip 1]
                [--d-model 32] [--heads 4] [--layers 2] [--d-mlp 128] [--base 10000]
                [--task count|lookback] [--k 4]
                [--yarn-edges paper|lab] [--yarn-alpha A] [--yarn-beta B] [--threads N]

Trains the tiny Transformer with RoPE on "count and stop" (n = 1…train-max),
then for each method (none, pi = Position Interpolation, ntk = NTK-aware,
yarn = YaRN, base = a larger base) evaluates
every n = 1…test-max with the trained weights as they are, and again after
finetune-steps Adam steps on n = 1…test-max. L = 2·train-max positions,
s = test-max/train-max. Per seed: every curve; summary: medians over seeds.
--task lookback trains "look back k" instead: 2n+1 random symbols (8 kinds),
the output at position i must be the symbol at i−k (k = 1…train-max); its
exact match per n is the fraction of 16 fixed test sequences solved whole.
YaRN's ramp edges: --yarn-edges paper (default; Peng et al. 2023: α = 1,
β = 32) or lab (α = 1, β = L/2π, rescaled to the lab's short L);
--yarn-alpha / --yarn-beta replace the rule's α / β (0 ≤ α < β ≤ 10000).
--threads N: train up to N seeds at once (default: the machine's hardware
threads; 1 to 256). The output is the same for any N (seconds aside).
Bad input: a one-line message on stderr, exit status 2.
)";

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int extend(int argc, char** argv) {
    const Args a(argc, argv,
                 {"--methods", "--seeds", "--finetune-steps", "--finetune-lr", "--new-base", "--steps",
                  "--train-max", "--test-max", "--batch", "--lr", "--warmup", "--clip", "--d-model",
                  "--heads", "--layers", "--d-mlp", "--base", "--task", "--k", "--yarn-edges", "--yarn-alpha",
                  "--yarn-beta", "--threads"},
                 {"--help"});
    if (a.has("--help")) {
        std::cout << kExtendUsage;
        return 0;
    }
    if (!a.positional().empty())
        throw InvalidArgument("cli", "extend takes only --flags, got '" + a.positional()[0] + "'");
    ExtensionOptions common;
    common.train = common_options(a);
    if (!a.has("--train-max")) common.train.train_max = extension_train_defaults().train_max;
    if (!a.has("--test-max")) common.train.test_max = extension_train_defaults().test_max;
    common.train.scheme = PositionScheme::rope;
    parse_task(a, common.train);
    if (a.has("--methods")) {
        common.methods.clear();
        for (const std::string& name : split_commas(a.get("--methods", "")))
            common.methods.push_back(parse_rope_scaling(name));
    }
    common.finetune_steps = get_int(a, "--finetune-steps", common.finetune_steps);
    common.finetune_lr = a.get_double("--finetune-lr", common.finetune_lr);
    common.new_base = a.get_double("--new-base", common.new_base);
    if (a.has("--yarn-edges")) common.yarn_edges = parse_yarn_edge_rule(a.get("--yarn-edges", ""));
    if (a.has("--yarn-alpha")) common.yarn_alpha = a.get_double("--yarn-alpha", 0.0);
    if (a.has("--yarn-beta")) common.yarn_beta = a.get_double("--yarn-beta", 0.0);
    const std::vector<std::int64_t> seeds = parse_seeds(a);
    validate(common);

    nlohmann::json runs = nlohmann::json::array(), rope = nlohmann::json::array();
    for (RopeScaling m : common.methods) {
        const ScaledRope r = extension_rope(common, m);
        nlohmann::json one = {{"method", to_string(m)}, {"theta", r.theta}, {"logitScale", r.logit_scale},
                               {"base", r.base_used}, {"ramp", r.ramp}};
        if (m == RopeScaling::yarn) {
            one["alpha"] = r.alpha;
            one["beta"] = r.beta;
        }
        rope.push_back(one);
    }
    // [method][finetuned] → per-seed values
    std::map<std::pair<std::string, bool>, std::vector<double>> means, solved;
    // One run per seed, side by side on up to --threads threads; assembled in seed order below.
    struct Done {
        std::vector<double> losses;
        std::vector<ExtensionCurve> curves;
        double seconds = 0;
    };
    std::vector<Done> done(seeds.size());
    for_each_index(done.size(), parse_threads(a), [&](std::size_t i) {
        ExtensionOptions o = common;
        o.train.seed = seeds[i];
        const auto start = std::chrono::steady_clock::now();
        ExtensionRun run(o);
        // A step call ends when its count has run, so with --finetune-steps 0
        // the zero-shot curves come from a call after the training's last step.
        while (!run.done()) run.step(run.total_steps());
        done[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        done[i].losses = run.losses();
        done[i].curves = run.curves();
    });
    for (std::size_t i = 0; i < seeds.size(); ++i) {
        const Done& d = done[i];
        nlohmann::json loss = nlohmann::json::array(), curves = nlohmann::json::array();
        for (double v : d.losses) loss.push_back(float_json(float(v)));
        for (const ExtensionCurve& c : d.curves) {
            nlohmann::json ft = nlohmann::json::array();
            for (double v : c.losses) ft.push_back(float_json(float(v)));
            curves.push_back({{"method", to_string(c.method)},
                              {"finetuned", c.finetuned},
                              {"exactMatch", c.evaluation.exact_match},
                              {"solvedUpTo", c.evaluation.solved_up_to},
                              {"meanExtrapolated", c.evaluation.mean_extrapolated},
                              {"loss", ft}});
            means[{to_string(c.method), c.finetuned}].push_back(c.evaluation.mean_extrapolated);
            solved[{to_string(c.method), c.finetuned}].push_back(double(c.evaluation.solved_up_to));
        }
        runs.push_back({{"seed", seeds[i]}, {"loss", loss}, {"curves", curves}, {"seconds", d.seconds}});
    }
    nlohmann::json summary = nlohmann::json::array();
    for (bool finetuned : {false, true})
        for (RopeScaling m : common.methods) {
            const auto key = std::make_pair(to_string(m), finetuned);
            if (!means.count(key)) continue;
            summary.push_back({{"method", key.first},
                               {"finetuned", finetuned},
                               {"meanExtrapolated", means[key]},
                               {"solvedUpTo", solved[key]},
                               {"medianMeanExtrapolated", median(means[key])},
                               {"medianSolvedUpTo", median(solved[key])}});
        }
    nlohmann::json options = options_json(common.train);
    options["finetuneSteps"] = common.finetune_steps;
    options["finetuneLr"] = common.finetune_lr;
    options["newBase"] = common.new_base;
    if (common.train.task == TrainingTask::lookback) options["k"] = common.train.k;
    options["yarnEdges"] = to_string(common.yarn_edges);
    if (common.yarn_alpha) options["yarnAlpha"] = *common.yarn_alpha;
    if (common.yarn_beta) options["yarnBeta"] = *common.yarn_beta;
    return print_json({{"task", task_name(common.train)},
                       {"options", options},
                       {"trainedLength", extension_trained_length(common)},
                       {"scale", extension_scale(common)},
                       {"rope", rope},
                       {"seeds", seeds},
                       {"runs", runs},
                       {"summary", summary}});
}

// The core names options as the JS API does (testMax); on the command line
// say --test-max instead.
std::string with_flag_names(const std::exception& e) {
    std::string message = e.what();
    const ErrorParams params = error_params(e);
    const auto field = params.find("field");
    if (field == params.end() || message.rfind(field->second, 0) != 0) return message;
    std::string flag = "--";
    for (char c : field->second) {
        if (c >= 'A' && c <= 'Z') {
            flag += '-';
            flag += char(c - 'A' + 'a');
        } else {
            flag += c;
        }
    }
    if (flag == "--seed") flag = "--seeds entry";
    return flag + message.substr(field->second.size());
}

}  // namespace
}  // namespace poslab::cli

int poslab_cli_extrapolate(int argc, char** argv) {
    try {
        return poslab::cli::extrapolate(argc, argv);
    } catch (const std::exception& e) {
        return poslab::cli::fail(poslab::cli::with_flag_names(e));
    }
}

int poslab_cli_extend(int argc, char** argv) {
    try {
        return poslab::cli::extend(argc, argv);
    } catch (const std::exception& e) {
        return poslab::cli::fail(poslab::cli::with_flag_names(e));
    }
}
