// An exercise's version and a learner's copy of it: the content hash, the
// seeded variants, and the $-names substituted into a core call's arguments.
#include "poslab/grading.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "poslab/api_json.hpp"
#include "poslab/code_questions.hpp"
#include "poslab/grading_internal.hpp"
#include "poslab/random.hpp"
#include "poslab/tokenizer.hpp"

namespace poslab::grading {
using namespace internal;
namespace internal {

json to_doubles(const json& v) {
    if (v.is_number()) return json(v.get<double>());
    if (v.is_array()) {
        json a = json::array();
        for (const auto& e : v) a.push_back(to_doubles(e));
        return a;
    }
    if (v.is_object()) {
        json o = json::object();
        for (const auto& [k, e] : v.items()) o[k] = to_doubles(e);
        return o;
    }
    return v;
}

// {ja, en}: a value per language (text, or e.g. a target token list).
bool is_text(const json& v) { return v.is_object() && v.size() == 2 && v.contains("ja") && v.contains("en"); }

}  // namespace internal

namespace {

std::string hex64(std::uint64_t h) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

}  // namespace

std::string canonical_json(const json& exercise) { return to_doubles(exercise).dump(); }

// The version of what is graded: the presenter's talking points and minutes
// (`presenter:`) are left out, so editing them does not split a class's
// submissions into two versions.
std::string content_hash(const json& exercise) {
    if (exercise.is_object() && exercise.contains("presenter")) {
        json graded = exercise;
        graded.erase("presenter");
        return hex64(hash_string(canonical_json(graded)));
    }
    return hex64(hash_string(canonical_json(exercise)));
}

std::uint32_t variant_seed(const std::string& learner, const std::string& exercise_id, const std::string& hash) {
    const std::uint64_t h = hash_string(learner + '\x1f' + exercise_id + '\x1f' + hash);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
}

namespace {
json make_variant_values(const json& exercise, std::uint32_t seed);
}

json make_variant(const json& exercise, std::uint32_t seed) {
    json out = make_variant_values(exercise, seed);
    if (exercise.is_object() && exercise.contains("blocks") && exercise["blocks"].is_array())
        for (const json& q : questions(exercise))
            if (q.value("type", "") == "code") out["code:" + q.value("id", "")] = code_cases(q, seed);
    return out;
}

namespace {
json make_variant_values(const json& exercise, std::uint32_t seed) {
    json out = json::object();
    if (!exercise.is_object() || !exercise.contains("variants") || exercise["variants"].is_null()) return out;
    // Hostile files: every field is checked before use, errors name the field
    // (variants.NAME.FIELD), and every range is computed without overflow.
    // Integers stay within ±(2^53 − 1) so the page (JS numbers) agrees;
    // lengths are capped so no exercise can ask for unbounded memory.
    constexpr double kSafe = 9007199254740991.0;  // 2^53 − 1
    constexpr std::size_t kMaxLength = 4096;
    if (!exercise["variants"].is_object()) throw exercise_error("variants: must be a mapping of name: {kind, …}");
    Rng rng(mix_seed(seed, 0x7a1a47ull));
    auto below = [&](std::uint64_t n) { return static_cast<std::uint64_t>(rng.uniform() * double(n)) % n; };
    for (const auto& item : exercise["variants"].items()) {  // sorted by name: reproducible
        const std::string& name = item.key();
        const json& spec = item.value();
        const std::string at = "variants." + name;
        if (!spec.is_object()) throw exercise_error(at + ": must be a mapping {kind, …}");
        auto field = [&](const char* key) -> const json& {
            if (!spec.contains(key)) throw exercise_error(at + ": needs '" + key + "'");
            return spec[key];
        };
        auto number = [&](const char* key) {
            const json& v = field(key);
            if (!v.is_number() || !std::isfinite(v.get<double>()))
                throw exercise_error(at + "." + key + ": must be a number, got " + v.dump());
            return v.get<double>();
        };
        auto whole = [&](const char* key, double lo, double hi) {
            const json& v = field(key);
            const double d = v.is_number() ? v.get<double>() : NAN;
            if (!(d >= lo && d <= hi) || d != std::floor(d))
                throw exercise_error(at + "." + key + ": must be a whole number from " +
                                     std::to_string(static_cast<long long>(lo)) + " to " +
                                     std::to_string(static_cast<long long>(hi)) + ", got " + v.dump());
            // Exact for integers beyond 2^53 too (the double was only a range check).
            return v.is_number_integer() ? v.get<long long>() : static_cast<long long>(d);
        };
        const json& kind_v = spec.contains("kind") ? spec["kind"] : json("");
        const std::string kind = kind_v.is_string() ? kind_v.get<std::string>() : kind_v.dump();
        if (kind == "integer") {
            const long long lo = whole("min", -kSafe, kSafe), hi = whole("max", -kSafe, kSafe);
            if (hi < lo) throw exercise_error(at + ": max (" + std::to_string(hi) + ") is below min (" + std::to_string(lo) + ")");
            // In unsigned arithmetic: hi − lo + 1 cannot overflow (at most 2^54 − 1).
            const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
            out[name] = lo + static_cast<long long>(below(span));
        } else if (kind == "choice") {
            const json& options = field("options");
            if (!options.is_array() || options.empty()) throw exercise_error(at + ".options: must be a non-empty list");
            out[name] = options[below(options.size())];
        } else if (kind == "vector") {
            const double lo = number("min"), hi = number("max");
            const double step = spec.contains("step") ? number("step") : 1.0;
            const std::size_t length = static_cast<std::size_t>(whole("length", 0, double(kMaxLength)));
            if (!(step > 0) || hi < lo) throw exercise_error(at + ": needs min <= max and step > 0");
            const double steps = std::floor((hi - lo) / step + 1e-9);
            if (!(steps < kSafe))
                throw exercise_error(at + ": (max − min) / step must be below 2^53, got " + json((hi - lo) / step).dump());
            const std::uint64_t count = static_cast<std::uint64_t>(steps) + 1;
            json v = json::array();
            for (std::size_t i = 0; i < length; ++i) v.push_back(lo + step * double(below(count)));
            out[name] = v;
        } else if (kind == "permutation") {
            const std::size_t n = static_cast<std::size_t>(whole("length", 0, double(kMaxLength)));
            std::vector<std::size_t> p(n);
            for (std::size_t i = 0; i < n; ++i) p[i] = i;
            for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[below(i)]);  // Fisher–Yates
            out[name] = p;
        } else {
            throw exercise_error(at + ".kind: unknown kind '" + kind +
                                 "'; allowed: integer, choice, vector, permutation");
        }
    }
    return out;
}
}  // namespace

// lab.tokens, checked: strings that, joined, spell lab.sentence (see check_tokens_of_text).
static json recorded_tokens(const json& lab) {
    const json& t = lab["tokens"];
    const auto bad = [](const std::string& why) {
        return InvalidArgument("bad_lab_tokens", "the attempt's lab.tokens " + why);
    };
    if (!t.is_array()) throw bad("is not a list of strings");
    if (!lab.contains("sentence") || !lab["sentence"].is_string()) throw bad("come without the lab.sentence they split");
    std::vector<std::string> tokens;
    for (const json& e : t) {
        if (!e.is_string()) throw bad("is not a list of strings");
        tokens.push_back(e.get<std::string>());
        if (tokens.size() > kMaxTokens) break;  // check_tokens_of_text reports the limit
    }
    check_tokens_of_text(lab["sentence"].get<std::string>(), tokens);
    return tokens;
}

json substitute(const json& args, const json& variant, const json& lab, const std::string& lang) {
    if (args.is_string()) {
        const std::string s = args.get<std::string>();
        if (s.size() > 1 && s[0] == '$') {
            const std::string name = s.substr(1);
            const json* value = variant.contains(name) ? &variant[name] : lab.contains(name) ? &lab[name] : nullptr;
            if (!value) throw exercise_error("'" + s + "' names no variant and no lab value");
            return substitute(*value, json::object(), json::object(), lang);
        }
        return args;
    }
    if (is_text(args)) return substitute(args[lang == "en" ? "en" : "ja"], variant, lab, lang);
    if (args.is_array()) {
        json a = json::array();
        for (const auto& e : args) a.push_back(substitute(e, variant, lab, lang));
        return a;
    }
    if (args.is_object()) {
        // The page records the tokens it split the sentence into (lab.tokens, from
        // the browser's ICU); re-run exactly those, checked against the sentence.
        const bool recorded = args.contains("text") && args["text"] == "$sentence" && lab.contains("tokens");
        json o = json::object();
        for (const auto& [k, e] : args.items())
            if (!(recorded && k == "text")) o[k] = substitute(e, variant, lab, lang);
        if (recorded) o["tokens"] = recorded_tokens(lab);
        return o;
    }
    return args;
}

double expected_number(const json& expect, const json& variant, const json& lab, const std::string& lang) {
    const std::string call = expect.at("call").get<std::string>();
    const json result = call_json(call, substitute(expect.value("args", json::object()), variant, lab, lang));
    const json& v = expect.contains("pick") ? json_at_path(result, expect["pick"].get<std::string>()) : result;
    if (!v.is_number())
        throw exercise_error("expect: " + call + " gave no number at '" + expect.value("pick", "") + "'");
    return v.get<double>();
}

}  // namespace poslab::grading
