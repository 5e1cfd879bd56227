// Choice and prediction questions: the right options (listed in the file, or
// worked out by the core: swaps_changing, pairs_leaving, extend_run), partial
// credit, and the order each learner sees the options in.
#include "poslab/grading.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "poslab/api_json.hpp"
#include "poslab/errors.hpp"
#include "poslab/extend_runs.hpp"
#include "poslab/grading_internal.hpp"
#include "poslab/random.hpp"

namespace poslab::grading {
using namespace internal;
namespace {

// The options "sA-B" (swap tokens A and B, 1-based) that change token T's
// output: each swap re-run by the core, the row compared within 1e-6.
std::set<std::string> swaps_changing(const json& q, const json& spec, const json& variant, const json& lab,
                                     const std::string& lang) {
    const std::size_t token = spec.at("token").get<std::size_t>();
    json args = substitute(spec.at("args"), variant, lab, lang);
    const json tokens = args.contains("text") ? call_json("tokenize", args["text"]) : args.at("tokens");
    const std::size_t n = tokens.size();
    std::set<std::string> changed;
    for (const json& o : q.at("options")) {
        const std::string id = o.at("id").get<std::string>();
        std::size_t a = 0, b = 0;
        if (std::sscanf(id.c_str(), "s%zu-%zu", &a, &b) != 2 || a < 1 || b < 1 || a > n || b > n || token > n)
            throw InvalidArgument("page_too_few_tokens",
                                  "option '" + id + "' swaps tokens the sentence does not have (it has " +
                                      std::to_string(n) + ")",
                                  {{"need", std::to_string(std::max({a, b, token}))}, {"have", std::to_string(n)}});
        std::vector<std::size_t> perm(n);
        for (std::size_t i = 0; i < n; ++i) perm[i] = i;
        std::swap(perm[a - 1], perm[b - 1]);
        json check_args = args;
        check_args["permutation"] = perm;
        const json r = call_json("permutationCheck", check_args);
        // Token T's output before, against the same token's output where it now stands.
        const std::size_t t0 = token - 1;
        const std::size_t moved = static_cast<std::size_t>(std::find(perm.begin(), perm.end(), t0) - perm.begin());
        const std::size_t width = r["original"]["output"]["shape"][1].get<std::size_t>();
        for (std::size_t d = 0; d < width; ++d) {
            const double before = r["original"]["output"]["data"][t0 * width + d].get<double>();
            const double after = r["permuted"]["output"]["data"][moved * width + d].get<double>();
            if (!is_close(after, before, 0.0, 1e-6)) {
                changed.insert(id);
                break;
            }
        }
    }
    return changed;
}

// The options "pI" (RoPE pair I, 0-based) whose angles leave the trained
// range under `args` (ropeAngleMap options; $-names substituted), or the
// option "none" when no pair leaves.
std::set<std::string> pairs_leaving(const json& q, const json& spec, const json& variant, const json& lab,
                                    const std::string& lang) {
    const json r = call_json("ropeAngleMap", substitute(spec.at("args"), variant, lab, lang));
    const json& leaves = r.at("leaves");
    std::set<std::string> out;
    bool any = false;
    for (const json& l : leaves) any = any || l.get<bool>();
    for (const json& o : q.at("options")) {
        const std::string id = o.at("id").get<std::string>();
        if (id == "none") {  // "no pair leaves": right exactly when none does
            if (!any) out.insert(id);
            continue;
        }
        std::size_t i = 0;
        char extra = 0;
        if (std::sscanf(id.c_str(), "p%zu%c", &i, &extra) != 1 || i >= leaves.size())
            throw InvalidArgument("bad_option_id",
                                  "option '" + id + "' names no pair: with pairs_leaving, ids are p0 … p" +
                                      std::to_string(leaves.size() - 1),
                                  {{"option", id}, {"pairs", std::to_string(leaves.size())}});
        if (leaves[i].get<bool>()) out.insert(id);
    }
    return out;
}

// The options "method-M" whose curve (zero-shot, or fine-tuned with
// `finetuned: true`) solved every n = 1 … testMax for every seed of the
// learner's run, or "none" when no method did. The run is recomputed by the
// core for (args, seeds) — extension_run_curves, from the compiled-in cache
// when it holds them — never read from the submission.
std::set<std::string> extend_run_methods(const json& q, const json& spec, const json& variant, const json& lab,
                                         const std::string& lang) {
    const json seeds = substitute(spec.at("seeds"), variant, lab, lang);
    if (!seeds.is_array() || seeds.empty() || seeds.size() > 8)
        throw InvalidArgument("bad_run_seeds", "the run's seeds must list 1 to 8 seeds, got " + seeds.dump().substr(0, 80));
    const bool finetuned = spec.value("finetuned", false);
    const json args = substitute(spec.value("args", json::object()), variant, lab, lang);
    ExtensionOptions o = extension_options_from_json(args);
    std::map<std::string, bool> solved_all;
    for (RopeScaling m : o.methods) solved_all[to_string(m)] = true;
    for (const json& seed : seeds) {
        if (!seed.is_number() || seed.get<double>() != std::floor(seed.get<double>()) || seed.get<double>() < 0 ||
            seed.get<double>() > 4294967295.0)
            throw InvalidArgument("bad_run_seeds", "a seed of the run must be a whole number from 0 to 4294967295, got " +
                                                       seed.dump().substr(0, 40));
        o.train.seed = std::int64_t(seed.get<double>());
        validate(o);
        std::map<std::string, bool> seen;
        for (const ExtensionRunCurve& c : extension_run_curves(o)) {
            if (c.finetuned != finetuned) continue;
            seen[to_string(c.method)] = true;
            if (c.solved_up_to < o.train.test_max) solved_all[to_string(c.method)] = false;
        }
        for (auto& [m, all] : solved_all)
            if (!seen.count(m)) all = false;  // no such curve (finetuned with 0 fine-tune steps)
    }
    std::set<std::string> out;
    bool any = false;
    for (const auto& [m, all] : solved_all) any = any || all;
    for (const json& opt : q.at("options")) {
        const std::string id = opt.at("id").get<std::string>();
        if (id == "none") {  // "no method did": right exactly when none did
            if (!any) out.insert(id);
            continue;
        }
        const auto it = id.rfind("method-", 0) == 0 ? solved_all.find(id.substr(7)) : solved_all.end();
        if (it == solved_all.end())
            throw InvalidArgument("bad_method_option",
                                  "option '" + id + "' names no method of the run: with extend_run, ids are method-M for M in args.methods, or none",
                                  {{"option", id}});
        if (it->second) out.insert(id);
    }
    return out;
}

}  // namespace

namespace internal {

// A question answered from the learner's Part 2 run needs that run's seeds (lab.runSeeds).
bool reads_run(const json& q) { return q.contains("answer_from") && q["answer_from"].contains("extend_run"); }
const char* const kNoRun =
    "this question reads your run of Part 2, and the answer came with no finished run (lab.runSeeds): run the experiment, then answer";

AttemptResult check_choice(const json& q, const json& answer, const json& variant, const json& lab,
                           const std::string& lang) {
    const json& options = q.at("options");
    std::set<std::string> ids, want, got;
    for (const json& o : options) ids.insert(o.at("id").get<std::string>());
    if (reads_run(q)) {
        if (!lab.is_object() || !lab.contains("runSeeds")) return malformed(kNoRun);
        want = extend_run_methods(q, q["answer_from"].at("extend_run"), variant, lab, lang);
    } else if (q.contains("answer_from") && q["answer_from"].contains("pairs_leaving")) {
        want = pairs_leaving(q, q["answer_from"].at("pairs_leaving"), variant, lab, lang);
    } else if (q.contains("answer_from")) {
        want = swaps_changing(q, q["answer_from"].at("swaps_changing"), variant, lab, lang);
    } else {
        for (const json& a : q.at("answer")) want.insert(a.get<std::string>());
    }
    const bool multiple = q.value("multiple", false);
    if (!answer.is_array()) return malformed("choose " + std::string(multiple ? "one or more options" : "one option"));
    for (const json& a : answer) {
        if (!a.is_string() || !ids.count(a.get<std::string>()))
            return malformed("'" + (a.is_string() ? a.get<std::string>() : a.dump()) + "' is not one of the options");
        got.insert(a.get<std::string>());
    }
    if (got.empty()) return malformed("choose an option");
    if (!multiple && got.size() > 1) return malformed("choose only one option");
    AttemptResult r;
    std::size_t right_chosen = 0, wrong_chosen = 0, parts_right = 0;
    for (const json& o : options) {
        const std::string id = o["id"].get<std::string>();
        const bool chosen = got.count(id) != 0, should = want.count(id) != 0;
        r.parts.push_back(chosen == should);
        parts_right += chosen == should;
        right_chosen += chosen && should;
        wrong_chosen += chosen && !should;
        if (chosen && !should && !r.feedback && o.contains("why")) {
            r.feedback = o["why"];
            // A wrong option the file explains is a named mistake too.
            r.mistake = json{{"id", "option-" + id}, {"option", id}, {"feedback", o["why"]}};
        }
    }
    // Partial credit for multiple choice: each right choice earns 1/|answer|,
    // each wrong one takes 1/|answer| away, never below 0.
    if (multiple) r.score = want.empty() ? (got.empty() ? 1.0 : 0.0)
                                         : std::max(0.0, (double(right_chosen) - double(wrong_chosen)) / double(want.size()));
    else r.score = wrong_chosen == 0 && right_chosen == 1 ? 1.0 : 0.0;
    const bool exact = parts_right == options.size();
    r.status = exact ? "correct" : r.score > 0 ? "partial" : "incorrect";
    if (exact) r.score = 1.0;
    return r;
}

// A prediction is recorded, never right or wrong: one option id.
AttemptResult check_prediction(const json& q, const json& answer) {
    std::set<std::string> ids;
    for (const json& o : q.at("options")) ids.insert(o.at("id").get<std::string>());
    if (!answer.is_array() || answer.size() != 1) return malformed("choose one option");
    if (!answer[0].is_string() || !ids.count(answer[0].get<std::string>()))
        return malformed("'" + (answer[0].is_string() ? answer[0].get<std::string>() : answer[0].dump()) +
                         "' is not one of the options");
    AttemptResult r;
    r.status = "recorded";
    r.score = 1.0;
    for (const json& o : q["options"]) r.parts.push_back(o["id"] == answer[0]);
    return r;
}

}  // namespace internal

std::vector<std::string> option_order(const json& q, std::uint32_t seed) {
    std::vector<std::string> ids;
    if (!q.contains("options") || !q["options"].is_array()) return ids;
    std::vector<std::size_t> movable;  // positions of the options that may move
    for (std::size_t i = 0; i < q["options"].size(); ++i) {
        const json& o = q["options"][i];
        ids.push_back(o.at("id").get<std::string>());
        if (!o.value("fixed", false)) movable.push_back(i);
    }
    if (q.value("type", "") != "choice" || !q.value("shuffle", true)) return ids;
    // Fisher–Yates over the movable positions, from (seed, question id).
    Rng rng(mix_seed(seed, hash_string("options\x1f" + q.value("id", ""))));
    std::vector<std::string> out = ids;
    std::vector<std::string> pool;
    for (std::size_t i : movable) pool.push_back(ids[i]);
    for (std::size_t i = pool.size(); i > 1; --i) {
        const std::size_t j = static_cast<std::size_t>(rng.next_u64() % i);
        std::swap(pool[i - 1], pool[j]);
    }
    for (std::size_t k = 0; k < movable.size(); ++k) out[movable[k]] = pool[k];
    return out;
}

json option_orders(const json& exercise, std::uint32_t seed) {
    json out = json::object();
    for (const json& q : questions(exercise))
        if (q.contains("options")) out[q.value("id", "")] = option_order(q, seed);
    return out;
}

}  // namespace poslab::grading
