// Exercise 9's run question (answer_from: extend_run): the key is the core's
// own run for the learner's seeds, from the compiled-in cache
// (exercises/generated/rope-extend-runs.json) or computed and memoized.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "poslab/errors.hpp"
#include "poslab/extend_runs.hpp"
#include "poslab/grading.hpp"

using namespace poslab;
using namespace poslab::grading;

namespace {

// The page's run (web/js/widgets/rope-extend-run.js RUN, and the exercise's args).
const json kArgs = json::parse(R"({"methods": ["none", "pi", "ntk", "yarn"], "steps": 400, "trainMax": 8,
                                   "testMax": 16, "finetuneSteps": 50, "task": "lookback", "k": 4, "base": 100,
                                   "yarnEdges": "lab"})");

ExtensionOptions page_run(std::int64_t seed) {
    ExtensionOptions o = extension_options_from_json(kArgs);
    o.train.seed = seed;
    return o;
}

json question(bool finetuned = false, const json& args = kArgs) {
    json q = json::parse(R"({"type": "choice", "id": "run-q", "multiple": true, "prompt": {"ja": "p", "en": "p"},
      "options": [{"id": "method-none", "label": {"ja": "a", "en": "a"}}, {"id": "method-pi", "label": {"ja": "b", "en": "b"}},
                  {"id": "method-ntk", "label": {"ja": "c", "en": "c"}}, {"id": "method-yarn", "label": {"ja": "d", "en": "d"}},
                  {"id": "none", "fixed": true, "label": {"ja": "e", "en": "e"}}],
      "answer_from": {"extend_run": {"seeds": "$runSeeds"}}})");
    q["answer_from"]["extend_run"]["args"] = args;
    q["answer_from"]["extend_run"]["finetuned"] = finetuned;
    return q;
}

json strings(std::initializer_list<const char*> xs) {
    json a = json::array();
    for (const char* x : xs) a.push_back(x);
    return a;
}

json run_lab(const json& seeds) { return json{{"runSeeds", seeds}}; }

json exercise() {
    json ex = json::parse(R"({"id": "rope-extend-q", "order": 9, "title": {"ja": "t", "en": "t"},
      "lab": {"controls": [], "run_seeds": [[1], [1, 2], [1, 2, 3]]}, "blocks": []})");
    ex["blocks"].push_back(question());
    return ex;
}

}  // namespace

TEST(ExtendRuns, TheCacheHoldsThePageRunForEveryOfferedSeed) {
    for (std::int64_t seed : {1, 2, 3}) EXPECT_TRUE(extension_run_cached(page_run(seed))) << "seed " << seed;
    EXPECT_FALSE(extension_run_cached(page_run(4)));
    ExtensionOptions other = page_run(1);
    other.train.steps = 399;
    EXPECT_FALSE(extension_run_cached(other));  // any other option: not the cached run
}

// Fails when the trainer (or the options) changed and the checked-in file was
// not regenerated: node scripts/gen-extend-runs.mjs. Every entry re-run (~20 s).
TEST(ExtendRuns, EveryCachedRunEqualsAFreshNativeRun) {
    const json file = json::parse(extension_run_cache_text());
    ASSERT_GE(file.at("runs").size(), 3u);
    for (const json& r : file.at("runs")) {
        ExtensionOptions o = extension_options_from_json(file.at("options"));
        o.train.seed = r.at("seed").get<std::int64_t>();
        const std::vector<ExtensionRunCurve> fresh = compute_extension_run_curves(o);
        ASSERT_EQ(fresh.size(), r.at("curves").size()) << "seed " << o.train.seed;
        for (std::size_t i = 0; i < fresh.size(); ++i) {
            const json& c = r["curves"][i];
            const std::string at = "seed " + std::to_string(o.train.seed) + " curve " + std::to_string(i) +
                                   " (regenerate: node scripts/gen-extend-runs.mjs)";
            EXPECT_EQ(to_string(fresh[i].method), c.at("method").get<std::string>()) << at;
            EXPECT_EQ(fresh[i].finetuned, c.at("finetuned").get<bool>()) << at;
            EXPECT_EQ(fresh[i].exact_match, c.at("exactMatch").get<std::vector<double>>()) << at;
            EXPECT_EQ(fresh[i].solved_up_to, c.at("solvedUpTo").get<std::int64_t>()) << at;
            EXPECT_DOUBLE_EQ(fresh[i].mean_extrapolated, c.at("meanExtrapolated").get<double>()) << at;
        }
    }
}

TEST(ExtendRuns, TheKeyIsWhatTheLearnersRunShowed) {
    // Worked out from `poslab extend --seeds 1,2,3 --methods none,pi,ntk,yarn --task lookback --k 4
    // --base 100 --finetune-steps 50 --yarn-edges lab`, read by hand per seed as "solvedUpTo = 16":
    //   zero-shot:       seed 1: none 11, pi 2, ntk 14, yarn 13   seed 2: none 10, pi 2, ntk 11, yarn 16
    //                    seed 3: none 11, pi 2, ntk 11, yarn 16
    //   after 50 steps:  seed 1: none 13, pi 1, ntk 16, yarn 16   seed 2: none 14, pi 1, ntk 16, yarn 16
    //                    seed 3: none 15, pi 1, ntk 15, yarn 16
    // Zero-shot, every seed of {1}, {1, 2}, {1, 2, 3}: no method. After the fine-tune,
    // {1} and {1, 2}: NTK-aware and YaRN; {1, 2, 3}: YaRN only.
    const json q = question();
    EXPECT_EQ(check_attempt(q, strings({"none"}), json::object(), run_lab({1})).status, "correct");
    EXPECT_EQ(check_attempt(q, strings({"method-yarn"}), json::object(), run_lab({1})).status, "incorrect");
    EXPECT_EQ(check_attempt(q, strings({"none"}), json::object(), run_lab({1, 2})).status, "correct");
    EXPECT_EQ(check_attempt(q, strings({"none"}), json::object(), run_lab({1, 2, 3})).status, "correct");
    const json tuned = question(true);
    EXPECT_EQ(check_attempt(tuned, strings({"method-ntk", "method-yarn"}), json::object(), run_lab({1})).status, "correct");
    // One of the two right options: partial (each right option earns 1/2).
    EXPECT_EQ(check_attempt(tuned, strings({"method-yarn"}), json::object(), run_lab({1})).status, "partial");
    EXPECT_EQ(check_attempt(tuned, strings({"method-ntk", "method-yarn"}), json::object(), run_lab({1, 2})).status,
              "correct");
    EXPECT_EQ(check_attempt(tuned, strings({"method-yarn"}), json::object(), run_lab({1, 2, 3})).status, "correct");
    EXPECT_EQ(check_attempt(tuned, strings({"method-ntk", "method-yarn"}), json::object(), run_lab({1, 2, 3})).status,
              "incorrect");
    EXPECT_EQ(check_attempt(tuned, strings({"none"}), json::object(), run_lab({1})).status, "incorrect");
}

TEST(ExtendRuns, NoRunIsNoAnswer) {
    const AttemptResult r = check_attempt(question(), strings({"none"}), json::object(), json::object());
    EXPECT_EQ(r.status, "malformed");
    EXPECT_NE(r.message.find("no finished run"), std::string::npos) << r.message;
    // In a submission: not graded, listed as rejected, nothing earned.
    const json g = grade_exercise(exercise(), 7, json::array({{{"question", "run-q"}, {"answer", strings({"none"})}}}));
    EXPECT_EQ(g["points"], 0.0);
    ASSERT_EQ(g["rejected"].size(), 1u);
    EXPECT_EQ(g["rejected"][0]["status"], "lab_not_allowed");
    EXPECT_NE(g["rejected"][0]["message"].get<std::string>().find("no finished run"), std::string::npos);
}

TEST(ExtendRuns, OnlyTheOfferedSeedSetsAreGraded) {
    const json ex = exercise();
    auto attempt = [](const json& seeds, const json& answer) {
        return json{{"question", "run-q"}, {"answer", answer}, {"lab", run_lab(seeds)}};
    };
    // The right answer for seeds {1, 2} is "none"; a forged seed set earns nothing, whatever it claims.
    json g = grade_exercise(ex, 7, json::array({attempt({1, 2}, strings({"none"}))}));
    EXPECT_EQ(g["points"], 1.0);
    EXPECT_TRUE(g["rejected"].empty());
    for (const json& forged : {json{4}, json{2, 1}, json{1, 2, 3, 4}, json("1,2"), json::array()}) {
        g = grade_exercise(ex, 7, json::array({attempt(forged, strings({"none"}))}));
        EXPECT_EQ(g["points"], 0.0) << forged.dump();
        ASSERT_EQ(g["rejected"].size(), 1u) << forged.dump();
        EXPECT_EQ(g["rejected"][0]["status"], "lab_not_allowed");
        EXPECT_NE(g["rejected"][0]["message"].get<std::string>().find("is not one of this exercise's seed sets"),
                  std::string::npos)
            << g["rejected"][0]["message"];
    }
    EXPECT_NE(lab_problem(ex, run_lab({9})).find("[[1],[1,2],[1,2,3]]"), std::string::npos) << lab_problem(ex, run_lab({9}));
    // An exercise without run_seeds has no runSeeds setting at all.
    EXPECT_NE(lab_problem(json::parse(R"({"id": "x"})"), run_lab({1})).find("has no run"), std::string::npos);
    // A wrong answer, then the right one: the second attempt's credit.
    g = grade_exercise(ex, 7, json::array({attempt({1}, strings({"method-yarn"})), attempt({1}, strings({"none"}))}));
    EXPECT_EQ(g["questions"][0]["attempts"], 2);
    EXPECT_TRUE(g["questions"][0]["solved"].get<bool>());
}

TEST(ExtendRuns, OtherOptionsAreComputedAndMemoized) {
    // A tiny run the cache does not hold: computed here, then the same curves again from the memo.
    const json args = json::parse(R"({"methods": ["none", "pi"], "steps": 30, "trainMax": 2, "testMax": 4,
        "finetuneSteps": 0, "batch": 4, "dModel": 8, "heads": 2, "layers": 1, "dMlp": 16})");
    ExtensionOptions o = extension_options_from_json(args);
    o.train.seed = 5;
    ASSERT_FALSE(extension_run_cached(o));
    const std::vector<ExtensionRunCurve>& first = extension_run_curves(o);
    const std::vector<ExtensionRunCurve> fresh = compute_extension_run_curves(o);
    ASSERT_EQ(first.size(), 2u);  // zero-shot only (no fine-tune)
    for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].exact_match, fresh[i].exact_match);
    EXPECT_EQ(&extension_run_curves(o), &first);  // memoized: the same entry
    // The key from those curves, worked out here: the methods with solvedUpTo = testMax.
    json want = json::array();
    for (const ExtensionRunCurve& c : fresh)
        if (c.solved_up_to == 4) want.push_back("method-" + to_string(c.method));
    if (want.empty()) want.push_back("none");
    json q = question(false, args);
    q["options"] = json::parse(R"([{"id": "method-none", "label": {"ja": "a", "en": "a"}},
        {"id": "method-pi", "label": {"ja": "b", "en": "b"}}, {"id": "none", "label": {"ja": "e", "en": "e"}}])");
    EXPECT_EQ(check_attempt(q, want, json::object(), run_lab({5})).status, "correct");
    // An option naming a method the run does not have is an error in the file.
    q["options"][1]["id"] = "method-yarn";
    EXPECT_THROW(check_attempt(q, want, json::object(), run_lab({5})), InvalidArgument);
}

TEST(ExtendRuns, RunOptionsAreCheckedLikeAnyInput) {
    EXPECT_THROW(extension_options_from_json(json::parse(R"({"scheme": "rope"})")), InvalidArgument);
    EXPECT_THROW(extension_options_from_json(json::parse(R"({"steps": 1.5})")), InvalidArgument);
    EXPECT_THROW(extension_options_from_json(json::parse(R"({"methods": "pi"})")), InvalidArgument);
    EXPECT_THROW(extension_options_from_json(json::parse(R"({"finetuneSteps": 5000})")), std::exception);
    EXPECT_THROW(extension_options_from_json(json::array()), InvalidArgument);
    // task: count or lookback; k only with lookback, 1 … trainMax.
    EXPECT_THROW(extension_options_from_json(json::parse(R"({"task": "copy"})")), InvalidArgument);
    EXPECT_THROW(extension_options_from_json(json::parse(R"({"task": 1})")), InvalidArgument);
    EXPECT_THROW(extension_options_from_json(json::parse(R"({"k": 2})")), InvalidArgument);
    EXPECT_THROW(extension_options_from_json(json::parse(R"({"task": "lookback", "k": 0})")), std::exception);
    EXPECT_THROW(extension_options_from_json(json::parse(R"({"task": "lookback", "k": 9, "trainMax": 8})")),
                 std::exception);
    EXPECT_EQ(extension_options_from_json(json::parse(R"({"task": "lookback", "k": 3})")).train.k, 3);
    EXPECT_EQ(extension_options_json(extension_options_from_json(json::parse(R"({"task": "lookback", "k": 3})")))["k"], 3);
    EXPECT_FALSE(extension_options_json(extension_options_from_json(json::object())).contains("k"));
    // The run's seeds: a list of 1 to 8 whole numbers.
    EXPECT_THROW(check_attempt(question(), strings({"none"}), json::object(), run_lab(json::array())), InvalidArgument);
    EXPECT_THROW(check_attempt(question(), strings({"none"}), json::object(), run_lab({-1})), InvalidArgument);
    EXPECT_THROW(check_attempt(question(), strings({"none"}), json::object(), run_lab("1")), InvalidArgument);
}

// #23: the memo is keyed by everything that changes a run. Each option
// changed alone gives another key and a run of its own; the same options,
// however written (key order, defaults spelled out), hit the same entry.
TEST(ExtendRuns, TheMemoKeyHoldsEveryOptionThatChangesARun) {
    const json base = json::parse(R"({"methods": ["none", "yarn"], "steps": 6, "trainMax": 4, "testMax": 8,
        "finetuneSteps": 2, "batch": 2, "dModel": 4, "heads": 1, "layers": 1, "dMlp": 4})");
    auto options = [](const json& args, std::int64_t seed) {
        ExtensionOptions o = extension_options_from_json(args);
        o.train.seed = seed;
        return o;
    };
    const ExtensionOptions first = options(base, 11);
    ASSERT_FALSE(extension_run_cached(first));
    const std::vector<ExtensionRunCurve>* entry = &extension_run_curves(first);
    // The same options, written otherwise: the same entry.
    json same = json::parse(R"({"dMlp": 4, "layers": 1, "heads": 1, "dModel": 4, "batch": 2, "finetuneSteps": 2,
        "testMax": 8, "trainMax": 4, "steps": 6, "methods": ["none", "yarn"], "lr": 0.003, "clip": 1, "base": 10000,
        "finetuneLr": 0.001, "newBase": 500000, "task": "count", "yarnEdges": "paper"})");
    EXPECT_EQ(extension_options_json(options(same, 11)), extension_options_json(first));
    EXPECT_EQ(&extension_run_curves(options(same, 11)), entry);
    // Each change alone: another key, another entry.
    const std::vector<std::pair<const char*, json>> changes = {
        {"methods", json::array({"none", "pi"})}, {"testMax", 10},          {"base", 100},
        {"task", "lookback"},                     {"steps", 7},            {"lr", 0.002},
        {"yarnAlpha", 0.5},                       {"yarnBeta", 16},        {"yarnEdges", "lab"},
        {"trainMax", 5},                          {"batch", 3},            {"warmup", 1},
        {"clip", 0.5},                            {"dModel", 8},           {"heads", 2},
        {"layers", 2},                            {"dMlp", 8},             {"finetuneSteps", 3},
        {"finetuneLr", 0.002},                    {"newBase", 1000}};
    std::set<std::string> keys = {extension_options_json(first).dump()};
    for (const auto& [key, value] : changes) {
        json args = base;
        args[key] = value;
        const ExtensionOptions o = options(args, 11);
        EXPECT_TRUE(keys.insert(extension_options_json(o).dump()).second) << key;
        EXPECT_NE(&extension_run_curves(o), entry) << key;
    }
    // k with task lookback (the default k = 4 above): k = 1 and k = 2 differ.
    json look = base;
    look["task"] = "lookback";
    look["k"] = 1;
    const ExtensionOptions k1 = options(look, 11);
    look["k"] = 2;
    const ExtensionOptions k2 = options(look, 11);
    EXPECT_NE(extension_options_json(k1), extension_options_json(k2));
    EXPECT_NE(&extension_run_curves(k1), &extension_run_curves(k2));
    // Another seed: another entry (the seed is the key's other half).
    EXPECT_NE(&extension_run_curves(options(base, 12)), entry);
    EXPECT_EQ(&extension_run_curves(options(base, 11)), entry);
}

TEST(ExtendRuns, YarnEdgeOptionsAreCheckedLikeAnyInput) {
    auto message = [](const char* text) {
        try {
            extension_options_from_json(json::parse(text));
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message(R"({"yarnEdges": "llama"})").find("paper"), std::string::npos);
    EXPECT_NE(message(R"({"yarnEdges": 1})").find("yarnEdges"), std::string::npos);
    EXPECT_NE(message(R"({"yarnAlpha": 40})").find("less than yarnBeta"), std::string::npos);  // β = 32
    EXPECT_NE(message(R"({"yarnAlpha": 2, "yarnBeta": 2})").find("less than yarnBeta"), std::string::npos);
    EXPECT_NE(message(R"({"yarnBeta": 20000})").find("yarnBeta must be a number from 0 to 10000"), std::string::npos);
    EXPECT_NE(message(R"({"yarnBeta": "5"})").find("yarnBeta must be a number"), std::string::npos);
    // Checked even when yarn is not among the methods.
    EXPECT_NE(message(R"({"methods": ["pi"], "yarnAlpha": -1})").find("yarnAlpha"), std::string::npos);
    EXPECT_EQ(message(R"({"yarnEdges": "lab", "yarnAlpha": 0.5})"), "accepted");
    const ExtensionOptions o = extension_options_from_json(json::parse(R"({"yarnEdges": "lab", "yarnBeta": 3})"));
    EXPECT_EQ(o.yarn_edges, YarnEdgeRule::lab);
    EXPECT_EQ(*o.yarn_beta, 3.0);
    EXPECT_FALSE(o.yarn_alpha.has_value());
    // The run's YaRN uses them: L = 16, α = 1 (the rule's), β = 3: pair 0 turns 16/2π = 2.546 → γ = 0.773.
    const ScaledRope r = extension_rope(o, RopeScaling::yarn);
    EXPECT_NEAR(r.ramp[0], (16 / (2 * M_PI) - 1) / 2, 1e-12);
    // The rule alone: paper β = 32 → γ₀ = (2.546 − 1)/31; lab β = 16/2π = r₀ → γ₀ = 1.
    const ExtensionOptions paper = extension_options_from_json(json::object());
    EXPECT_NEAR(extension_rope(paper, RopeScaling::yarn).ramp[0], (16 / (2 * M_PI) - 1) / 31, 1e-12);
    EXPECT_EQ(extension_rope(paper, RopeScaling::yarn).beta, 32.0);
    const ExtensionOptions lab = extension_options_from_json(json::parse(R"({"yarnEdges": "lab"})"));
    EXPECT_NEAR(extension_rope(lab, RopeScaling::yarn).ramp[0], 1.0, 1e-12);
    EXPECT_NEAR(extension_rope(lab, RopeScaling::yarn).beta, 16 / (2 * M_PI), 1e-12);
    // An explicit α with the lab rule: α = 0.2, β = 2.546; pair 1 (θ = 0.1, r = 1.6/2π = 0.2546) on the ramp.
    const ExtensionOptions alpha = extension_options_from_json(json::parse(R"({"yarnEdges": "lab", "yarnAlpha": 0.2})"));
    EXPECT_NEAR(extension_rope(alpha, RopeScaling::yarn).ramp[1], (1.6 / (2 * M_PI) - 0.2) / (16 / (2 * M_PI) - 0.2), 1e-12);
}
