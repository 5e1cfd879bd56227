#include "poslab/api_json.hpp"

#include <cmath>
#include <set>

#include "poslab/code_questions.hpp"
#include "poslab/errors.hpp"
#include "poslab/experiments.hpp"
#include "poslab/model.hpp"
#include "poslab/options.hpp"
#include "poslab/rope_scaling.hpp"
#include "poslab/tokenizer.hpp"

namespace poslab {
namespace {

using json = nlohmann::json;

std::string describe(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_string()) return "the string \"" + v.get<std::string>() + "\"";
    if (v.is_array()) return "an array";
    if (v.is_object()) return "an object";
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    return "the number " + v.dump();
}

// Strict reading of one options object (the JSON twin of the wasm binding's).
class JsonOptions {
public:
    JsonOptions(const json& obj, std::string what, const std::set<std::string>& allowed)
        : obj_(obj), what_(std::move(what)) {
        if (!obj.is_object()) throw InvalidArgument("bad_options", what_ + " takes an options object, got " + describe(obj));
        for (const auto& [key, value] : obj.items()) {
            (void)value;
            if (!allowed.count(key)) {
                std::string list;
                for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
                throw InvalidArgument("unknown_option",
                                      "unknown option '" + key + "' for " + what_ + "; allowed: " + list,
                                      {{"option", key}});
            }
        }
    }
    bool has(const char* key) const { return obj_.contains(key); }
    const json& get(const char* key) const { return obj_.at(key); }

    InvalidArgument type_error(const std::string& key, const json& v, const std::string& expected) const {
        return InvalidArgument("bad_option_type", what_ + ": " + key + " must be " + expected + ", got " + describe(v),
                               {{"option", key}});
    }
    std::string string(const char* key, const std::string& fallback) const {
        if (!has(key)) return fallback;
        if (!get(key).is_string()) throw type_error(key, get(key), "a string");
        return get(key).get<std::string>();
    }
    bool boolean(const char* key, bool fallback) const {
        if (!has(key)) return fallback;
        if (!get(key).is_boolean()) throw type_error(key, get(key), "true or false");
        return get(key).get<bool>();
    }
    double number(const char* key, double fallback) const {
        if (!has(key)) return fallback;
        if (!get(key).is_number()) throw type_error(key, get(key), "a finite number");
        return get(key).get<double>();
    }
    static std::size_t whole_of(const json& v, const std::string& name, double max, const std::string& what) {
        const double d = v.is_number() ? v.get<double>() : -1.0;
        if (!v.is_number() || d < 0 || d != std::floor(d) || d > max)
            throw InvalidArgument("bad_option_type", what + ": " + name + " must be a whole number" +
                                                         (max < 9.0e15 ? " from 0 to " + json(std::uint64_t(max)).dump()
                                                                       : std::string(" (0 or more)")) +
                                                         ", got " + describe(v),
                                  {{"option", name}});
        return static_cast<std::size_t>(d);
    }
    std::size_t whole(const char* key, std::size_t fallback, double max = 9007199254740991.0) const {
        return has(key) ? whole_of(get(key), key, max, what_) : fallback;
    }
    std::uint32_t seed(const char* key, std::uint32_t fallback) const {
        return static_cast<std::uint32_t>(whole(key, fallback, 4294967295.0));
    }
    std::vector<double> numbers(const char* key) const {
        const json& v = get(key);
        if (!v.is_array()) throw type_error(key, v, "an array of numbers");
        std::vector<double> out;
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (!v[i].is_number()) throw type_error(std::string(key) + "[" + std::to_string(i) + "]", v[i], "a number");
            out.push_back(v[i].get<double>());
        }
        return out;
    }
    std::vector<std::size_t> wholes(const char* key) const {
        const json& v = get(key);
        if (!v.is_array()) throw type_error(key, v, "an array of whole numbers");
        std::vector<std::size_t> out;
        for (std::size_t i = 0; i < v.size(); ++i)
            out.push_back(whole_of(v[i], std::string(key) + "[" + std::to_string(i) + "]", 9007199254740991.0, what_));
        return out;
    }
    std::vector<std::string> strings(const char* key) const {
        const json& v = get(key);
        if (!v.is_array()) throw type_error(key, v, "an array of strings");
        std::vector<std::string> out;
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (!v[i].is_string()) throw type_error(std::string(key) + "[" + std::to_string(i) + "]", v[i], "a string");
            out.push_back(v[i].get<std::string>());
        }
        return out;
    }
    std::vector<std::vector<double>> rows(const char* key) const {
        const json& v = get(key);
        if (v.is_object() && v.contains("shape")) {
            JsonOptions m(v, key, {"shape", "data"});
            const auto shape = m.wholes("shape");
            const auto data = m.numbers("data");
            if (shape.size() != 2 || shape[0] * shape[1] != data.size())
                throw InvalidArgument("bad_matrix", std::string(key) + ": shape and data do not agree");
            std::vector<std::vector<double>> out(shape[0]);
            for (std::size_t r = 0; r < shape[0]; ++r)
                out[r].assign(data.begin() + r * shape[1], data.begin() + (r + 1) * shape[1]);
            return out;
        }
        if (!v.is_array()) throw type_error(key, v, "an array of rows (arrays of numbers) or a Matrix");
        std::vector<std::vector<double>> out;
        for (std::size_t i = 0; i < v.size(); ++i) {
            const std::string name = std::string(key) + "[" + std::to_string(i) + "]";
            if (!v[i].is_array()) throw type_error(name, v[i], "an array of numbers");
            std::vector<double> row;
            for (std::size_t j = 0; j < v[i].size(); ++j) {
                if (!v[i][j].is_number())
                    throw type_error(name + "[" + std::to_string(j) + "]", v[i][j], "a number");
                row.push_back(v[i][j].get<double>());
            }
            out.push_back(std::move(row));
        }
        return out;
    }

private:
    const json& obj_;
    std::string what_;
};

ForwardOptions forward_options(const JsonOptions& in) { return read_forward_options(in); }
const std::set<std::string>& kForwardKeys = forward_option_names();

template <class Tensor>
json matrix(const Tensor& t) {
    json shape = json::array();
    for (std::size_t i = 0; i < t.dimension(); ++i) shape.push_back(t.shape(i));
    json data = json::array();
    for (float v : t) data.push_back(std::isfinite(v) ? json(static_cast<double>(v)) : json(nullptr));
    return {{"shape", shape}, {"data", data}};
}

json forward_result(const ForwardResult& r) {
    return {{"tokens", r.tokens},
            {"input", matrix(r.input)},
            {"positional", matrix(r.positional)},
            {"hidden", matrix(r.hidden)},
            {"attention", r.attention.size() > 0 ? matrix(r.attention) : json(nullptr)},
            {"output", matrix(r.output)},
            {"outputMean", matrix(r.output_mean)}};
}

std::vector<float> floats(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

json call_forward(const json& args) { return forward_result(forward(forward_options(JsonOptions(args, "forward", kForwardKeys)))); }

json call_encoding(const json& args) {
    const EncodingOptions o = read_encoding_options(JsonOptions(args, "encoding", encoding_option_names()));
    json out = {{"encoding", matrix(encoding(o))}};
    if (o.scheme == PositionScheme::sinusoidal) out["wavelengths"] = matrix(sinusoidal_wavelengths(o.d_model, o.base));
    return out;
}

// tokenize and alibiSlopes take a plain value, or {text} / {heads} as exercise files write them.
json call_tokenize(const json& args) {
    const json& text = args.is_object() ? JsonOptions(args, "tokenize", {"text"}).get("text") : args;
    if (!text.is_string()) throw InvalidArgument("bad_option_type", "tokenize takes a string, got " + describe(text));
    return tokenize(text.get<std::string>());
}

json call_permutation_check(const json& args) {
    std::set<std::string> keys = kForwardKeys;
    keys.insert("permutation");
    JsonOptions in(args, "permutationCheck", keys);
    if (!in.has("permutation"))
        throw InvalidArgument("bad_permutation", "permutationCheck needs permutation, e.g. [1, 0, 2]");
    const PermutationCheck c = permutation_check(forward_options(in), in.wholes("permutation"));
    return {{"permutation", c.permutation},
            {"original", forward_result(c.original)},
            {"permuted", forward_result(c.permuted)},
            {"maxAbsDiff", c.max_abs_diff}};
}

json call_attention_steps(const json& args) {
    std::set<std::string> keys = kForwardKeys;
    keys.insert("scale");
    JsonOptions in(args, "attentionSteps", keys);
    const AttentionSteps st = attention_steps(forward_options(in), parse_score_scale(in.string("scale", "sqrt_dk")));
    json out = forward_result(st.forward);
    out["dots"] = matrix(st.dots);
    out["scores"] = matrix(st.scores);
    out["weights"] = matrix(st.weights);
    out["stepOutput"] = matrix(st.output);
    return out;
}

json call_rope_check(const json& args) {
    JsonOptions in(args, "ropeCheck", {"dHead", "m", "n", "shift", "seed", "base", "q", "k"});
    for (const char* key : {"m", "n", "shift"})
        if (!in.has(key)) throw InvalidArgument("missing_option", std::string("ropeCheck needs ") + key);
    const RopeCheck r = rope_relative_check(in.whole("dHead", 8), in.whole("m", 0), in.whole("n", 0),
                                            in.whole("shift", 0), in.seed("seed", 0), in.number("base", kDefaultBase),
                                            in.has("q") ? floats(in.numbers("q")) : std::vector<float>{},
                                            in.has("k") ? floats(in.numbers("k")) : std::vector<float>{});
    return {{"score", r.score}, {"shiftedScore", r.shifted_score}, {"diff", r.diff}, {"q", r.q}, {"k", r.k}};
}

json call_shift_matrix(const json& args) {
    JsonOptions in(args, "shiftMatrix", {"shift", "dModel", "base"});
    if (!in.has("shift")) throw InvalidArgument("missing_option", "shiftMatrix needs shift");
    return {{"matrix", matrix(sinusoidal_shift_matrix(in.whole("shift", 0), in.whole("dModel", 8),
                                                     in.number("base", kDefaultBase)))}};
}

json call_similarity(const json& args) {
    JsonOptions in(args, "similarity", {"scheme", "length", "dModel", "base", "seed", "maxPositions", "heads"});
    if (!in.has("scheme") || !in.has("length"))
        throw InvalidArgument("missing_option", "similarity needs scheme and length");
    return {{"similarity", matrix(position_similarity(parse_position_scheme(in.string("scheme", "")),
                                                      in.whole("length", 0), in.whole("dModel", 8),
                                                      in.number("base", kDefaultBase), in.seed("seed", 0),
                                                      in.whole("maxPositions", kDefaultMaxPositions),
                                                      in.whole("heads", 1)))}};
}

json call_alibi_slopes(const json& args) {
    const json& heads = args.is_object() ? JsonOptions(args, "alibiSlopes", {"heads"}).get("heads") : args;
    return alibi_slopes(JsonOptions::whole_of(heads, "heads", double(kMaxDModel), "alibiSlopes"));
}

json call_alibi_bias(const json& args) {
    JsonOptions in(args, "alibiBias", {"length", "heads"});
    if (!in.has("length") || !in.has("heads")) throw InvalidArgument("missing_option", "alibiBias needs length and heads");
    const std::size_t heads = in.whole("heads", 0);
    return {{"bias", matrix(alibi_bias_table(in.whole("length", 0), heads))}, {"slopes", alibi_slopes(heads)}};
}

json call_rope_rotate(const json& args) {
    JsonOptions in(args, "ropeRotate", {"vector", "position", "base"});
    if (!in.has("vector") || !in.has("position"))
        throw InvalidArgument("missing_option", "ropeRotate needs vector and position");
    const std::vector<double> v = in.numbers("vector");
    xt::xtensor<float, 2> x({1, v.size()});
    std::copy(v.begin(), v.end(), x.begin());
    apply_rope(x, 1, in.number("base", kDefaultBase), {in.whole("position", 0, double(kMaxPosition - 1))});
    return std::vector<float>(x.begin(), x.end());
}

// ropeAngleMap's newBase, yarnEdges ("paper" or "lab"), yarnAlpha, yarnBeta.
RopeAngleOptions angle_options(const JsonOptions& in) {
    RopeAngleOptions o;
    o.new_base = in.number("newBase", kLlama3Base);
    o.yarn_edges = parse_yarn_edge_rule(in.string("yarnEdges", "paper"));
    if (in.has("yarnAlpha")) o.yarn_alpha = in.number("yarnAlpha", 0.0);
    if (in.has("yarnBeta")) o.yarn_beta = in.number("yarnBeta", 0.0);
    return o;
}

// RoPE context extension, Part 1 (rope_scaling.hpp).
json call_rope_angle_map(const json& args) {
    JsonOptions in(args, "ropeAngleMap", {"d", "base", "trainedLength", "s", "method", "newBase", "yarnEdges", "yarnAlpha", "yarnBeta"});
    if (!in.has("d") || !in.has("trainedLength") || !in.has("s"))
        throw InvalidArgument("missing_option", "ropeAngleMap needs d, trainedLength and s");
    const RopeAngleMap m = rope_angle_map(in.whole("d", 0, 1024), in.number("base", kDefaultBase),
                                          in.whole("trainedLength", 0, 1e6), in.number("s", 1.0),
                                          parse_rope_scaling(in.string("method", "none")),
                                          angle_options(in));
    std::vector<bool> leaves(m.leaves.begin(), m.leaves.end());
    return {{"pairs", m.pairs},
            {"positions", m.positions},
            {"trainedLength", m.trained_length},
            {"angles", std::vector<float>(m.angles.begin(), m.angles.end())},
            {"unseen", std::vector<float>(m.unseen.begin(), m.unseen.end())},
            {"leaves", leaves},
            {"trainedSpan", m.trained_span},
            {"maxAngle", m.max_angle},
            {"theta", m.rope.theta},
            {"original", m.rope.original},
            {"ramp", m.rope.ramp},
            {"logitScale", m.rope.logit_scale},
            {"baseUsed", m.rope.base_used},
            {"alpha", m.rope.alpha},
            {"beta", m.rope.beta}};
}

json call_superposition(const json& args) {
    JsonOptions in(args, "superposition", {"dims", "vocab", "positions", "trials", "pairs", "bins", "seed"});
    const std::vector<std::size_t> dims = in.has("dims") ? in.wholes("dims") : std::vector<std::size_t>{4, 16, 64, 256};
    json rows = json::array();
    for (const SuperpositionRow& r :
         superposition_experiment(dims, in.whole("vocab", 256), in.whole("positions", 64), in.whole("trials", 400),
                                  in.whole("pairs", 2000), in.whole("bins", 40), in.seed("seed", 0)))
        rows.push_back({{"dModel", r.d_model},
                        {"histogram", r.histogram},
                        {"cosineStd", r.cosine_std},
                        {"tokenRecovery", r.token_recovery},
                        {"positionRecovery", r.position_recovery}});
    return {{"rows", rows}};
}

// A code exercise's function as the core computes it (or a named mistake's version).
json call_code_reference(const json& args) {
    JsonOptions in(args, "codeReference", {"function", "args", "mistake"});
    if (!in.has("function") || !in.has("args")) throw InvalidArgument("missing_option", "codeReference needs function and args");
    return grading::code_reference(in.string("function", ""), in.get("args"), in.string("mistake", ""));
}

struct Entry {
    const char* name;
    json (*fn)(const json&);
};
const Entry kFunctions[] = {
    {"forward", call_forward},           {"encoding", call_encoding},
    {"tokenize", call_tokenize},         {"permutationCheck", call_permutation_check},
    {"attentionSteps", call_attention_steps}, {"ropeCheck", call_rope_check},
    {"shiftMatrix", call_shift_matrix},  {"similarity", call_similarity},
    {"alibiSlopes", call_alibi_slopes},  {"alibiBias", call_alibi_bias},
    {"ropeRotate", call_rope_rotate},    {"superposition", call_superposition},
    {"ropeAngleMap", call_rope_angle_map},
    {"codeReference", call_code_reference},
};

}  // namespace

const std::vector<std::string>& json_api_functions() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const Entry& e : kFunctions) n.push_back(e.name);
        return n;
    }();
    return names;
}

nlohmann::json call_json(const std::string& function, const nlohmann::json& args) {
    for (const Entry& e : kFunctions)
        if (function == e.name) return e.fn(args);
    std::string list;
    for (const auto& n : json_api_functions()) list += (list.empty() ? "" : ", ") + n;
    throw InvalidArgument("unknown_function", "unknown core function '" + function + "'; allowed: " + list,
                          {{"value", function}});
}

const nlohmann::json& json_at_path(const nlohmann::json& value, const std::string& path) {
    const json* node = &value;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t dot = std::min(path.find('.', start), path.size());
        const std::string part = path.substr(start, dot - start);
        const json* next = nullptr;
        if (node->is_object() && node->contains(part)) {
            next = &(*node)[part];
        } else if (node->is_array() && !part.empty() && part.find_first_not_of("0123456789") == std::string::npos &&
                   std::stoull(part) < node->size()) {
            next = &(*node)[std::stoull(part)];
        }
        if (!next)
            throw InvalidArgument("bad_path", "path '" + path + "': there is no '" + part + "' in the result",
                                  {{"path", path}});
        node = next;
        start = dot + 1;
    }
    return *node;
}

}  // namespace poslab
