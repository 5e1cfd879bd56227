#pragma once
// The curves of an ExtensionRun (extend.hpp) as the grader reads them: a
// question on "your run" of exercise 9's Part 2 has its key computed from the
// very run the page made, which is a deterministic function of (run options,
// seed). Running it costs seconds (about 6 s per seed natively), so:
//   - a checked-in cache (exercises/generated/rope-extend-runs.json, made by
//     scripts/gen-extend-runs.mjs from native `poslab extend`) is compiled
//     into the library and used when its options equal the asked ones;
//   - anything else is computed here and memoized per (options, seed) for the
//     life of the process.
// A run stored in a learner's submission is never read.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "poslab/extend.hpp"

namespace poslab {

// One curve of one seed's run, without its fine-tune losses.
struct ExtensionRunCurve {
    RopeScaling method = RopeScaling::none;
    bool finetuned = false;
    std::vector<double> exact_match;  // per n = 1 … test_max, each 0 or 1
    std::int64_t solved_up_to = 0;
    double mean_extrapolated = 0.0;
};

// Run options from the JS API's names (steps, trainMax, testMax, batch, lr,
// warmup, clip, dModel, heads, layers, dMlp, base, methods, finetuneSteps,
// finetuneLr, newBase, task, k, yarnEdges, yarnAlpha, yarnBeta; seed too); defaults as ExtensionRun's. Unknown keys and
// wrong types throw InvalidArgument; the result is validated.
ExtensionOptions extension_options_from_json(const nlohmann::json& args);
// Every option in force (warm-up resolved; seed left out), keys as above: two
// option sets give the same run for a seed exactly when these are equal.
nlohmann::json extension_options_json(const ExtensionOptions& options);

// The curves of the run with these options (seed: options.train.seed): the
// cache's when it has this (options, seed), else computed and memoized.
const std::vector<ExtensionRunCurve>& extension_run_curves(const ExtensionOptions& options);
// The same, always computed afresh (no cache, no memo): what the cache must equal.
std::vector<ExtensionRunCurve> compute_extension_run_curves(const ExtensionOptions& options);
// Whether the compiled-in cache holds this (options, seed).
bool extension_run_cached(const ExtensionOptions& options);
// The compiled-in cache's text (the JSON file as built).
const std::string& extension_run_cache_text();

}  // namespace poslab
