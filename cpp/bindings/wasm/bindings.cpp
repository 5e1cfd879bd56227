// The only code that knows Embind: converts JS options to the core's types,
// calls the core, converts results back. api.js wraps each raw_* function so
// that an error arrives as a thrown JS Error with the core's message.
#include <emscripten/bind.h>

#include "convert.hpp"
#include "poslab/grading.hpp"
#include "poslab/embedding.hpp"
#include "poslab/experiments.hpp"
#include "poslab/model.hpp"
#include "poslab/options.hpp"
#include "poslab/rope_scaling.hpp"
#include "poslab/tables.hpp"
#include "poslab/tokenizer.hpp"

namespace poslab::wasm {
namespace {

ForwardOptions forward_options(const Options& in) { return read_forward_options(in); }
const std::set<std::string>& kForwardKeys = forward_option_names();

val forward_result(const ForwardResult& r) {
    val out = val::object();
    out.set("tokens", string_array(r.tokens));
    out.set("input", matrix(r.input));
    out.set("positional", matrix(r.positional));
    out.set("hidden", matrix(r.hidden));
    out.set("attention", r.attention.size() > 0 ? matrix(r.attention) : val::null());
    out.set("output", matrix(r.output));
    out.set("outputMean", matrix(r.output_mean));
    return out;
}

val forward_js(val options) {
    return guarded([&] { return forward_result(forward(forward_options(Options(options, "forward", kForwardKeys)))); });
}

// forward's heads computed apart (a Worker's share) and put together again.
val forward_heads_js(val options) {
    return guarded([&] {
        std::set<std::string> keys = kForwardKeys;
        keys.insert({"headFrom", "headTo"});
        Options in(options, "forwardHeads", keys);
        if (!in.has("headFrom") || !in.has("headTo"))
            throw InvalidArgument("bad_head_range", "forwardHeads needs headFrom and headTo (heads headFrom to "
                                                    "headTo - 1 are computed), e.g. headFrom: 0, headTo: 6");
        const ForwardOptions o = forward_options(in);
        val out = val::object();
        out.set("context", matrix(forward_heads(o, in.whole("headFrom", 0), in.whole("headTo", 0))));
        return out;
    });
}

val forward_combine_js(val options) {
    return guarded([&] {
        std::set<std::string> keys = kForwardKeys;
        keys.insert("context");
        Options in(options, "forwardCombine", keys);
        if (!in.has("context"))
            throw InvalidArgument("bad_context", "forwardCombine needs context: every head's output side by side "
                                                 "({shape: [S, width], data})");
        const std::vector<std::vector<double>> rows = in.rows("context");
        const std::size_t cols = rows.empty() ? 0 : rows[0].size();
        xt::xtensor<float, 2> context({rows.size(), cols});
        for (std::size_t r = 0; r < rows.size(); ++r) {
            if (rows[r].size() != cols)
                throw InvalidArgument("bad_context", "every row of context must have " + std::to_string(cols) +
                                                         " values; row " + std::to_string(r) + " has " +
                                                         std::to_string(rows[r].size()));
            for (std::size_t c = 0; c < cols; ++c) context(r, c) = static_cast<float>(rows[r][c]);
        }
        return forward_result(forward_combine(forward_options(in), context));
    });
}

val tokenize_js(val text) {
    return guarded([&] {
        if (!text.isString())
            throw InvalidArgument("bad_option_type", "tokenize takes a string, got " + js_type(text));
        return string_array(tokenize(text.as<std::string>()));
    });
}

val encoding_js(val options) {
    return guarded([&] {
        const EncodingOptions o = read_encoding_options(Options(options, "encoding", encoding_option_names()));
        val out = val::object();
        out.set("encoding", matrix(encoding(o)));
        if (o.scheme == PositionScheme::sinusoidal) out.set("wavelengths", matrix(sinusoidal_wavelengths(o.d_model, o.base)));
        return out;
    });
}

val permutation_check_js(val options) {
    return guarded([&] {
        std::set<std::string> keys = kForwardKeys;
        keys.insert("permutation");
        Options in(options, "permutationCheck", keys);
        if (!in.has("permutation"))
            throw InvalidArgument("bad_permutation", "permutationCheck needs permutation, e.g. [1, 0, 2]");
        PermutationCheck c = permutation_check(forward_options(in), in.wholes("permutation"));
        val out = val::object();
        val perm = val::array();
        for (std::size_t p : c.permutation) perm.call<void>("push", p);
        out.set("permutation", perm);
        out.set("original", forward_result(c.original));
        out.set("permuted", forward_result(c.permuted));
        out.set("maxAbsDiff", c.max_abs_diff);
        return out;
    });
}

val attention_steps_js(val options) {
    return guarded([&] {
        std::set<std::string> keys = kForwardKeys;
        keys.insert("scale");
        Options in(options, "attentionSteps", keys);
        AttentionSteps st = attention_steps(forward_options(in), parse_score_scale(in.string("scale", "sqrt_dk")));
        val out = forward_result(st.forward);
        out.set("dots", matrix(st.dots));
        out.set("scores", matrix(st.scores));
        out.set("weights", matrix(st.weights));
        out.set("stepOutput", matrix(st.output));
        return out;
    });
}

std::vector<float> floats(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

val rope_check_js(val options) {
    return guarded([&] {
        Options in(options, "ropeCheck", {"dHead", "m", "n", "shift", "seed", "base", "q", "k"});
        for (const char* key : {"m", "n", "shift"})
            if (!in.has(key)) throw InvalidArgument("missing_option", std::string("ropeCheck needs ") + key);
        RopeCheck r = rope_relative_check(in.whole("dHead", 8), in.whole("m", 0), in.whole("n", 0),
                                          in.whole("shift", 0), in.seed("seed", 0), in.number("base", kDefaultBase),
                                          in.has("q") ? floats(in.numbers("q")) : std::vector<float>{},
                                          in.has("k") ? floats(in.numbers("k")) : std::vector<float>{});
        val out = val::object();
        out.set("score", r.score);
        out.set("shiftedScore", r.shifted_score);
        out.set("diff", r.diff);
        out.set("q", float_array(r.q));
        out.set("k", float_array(r.k));
        return out;
    });
}

val shift_matrix_js(val options) {
    return guarded([&] {
        Options in(options, "shiftMatrix", {"shift", "dModel", "base"});
        if (!in.has("shift")) throw InvalidArgument("missing_option", "shiftMatrix needs shift");
        val out = val::object();
        out.set("matrix", matrix(sinusoidal_shift_matrix(in.whole("shift", 0), in.whole("dModel", 8),
                                                         in.number("base", kDefaultBase))));
        return out;
    });
}

val similarity_js(val options) {
    return guarded([&] {
        Options in(options, "similarity", {"scheme", "length", "dModel", "base", "seed", "maxPositions", "heads"});
        if (!in.has("scheme") || !in.has("length"))
            throw InvalidArgument("missing_option", "similarity needs scheme and length");
        val out = val::object();
        out.set("similarity",
                matrix(position_similarity(parse_position_scheme(in.string("scheme", "")), in.whole("length", 0),
                                           in.whole("dModel", 8), in.number("base", kDefaultBase),
                                           in.seed("seed", 0), in.whole("maxPositions", kDefaultMaxPositions),
                                           in.whole("heads", 1))));
        return out;
    });
}

val alibi_slopes_js(val heads) {
    return guarded([&] {
        const std::size_t h = Options::whole_value(heads, "heads", static_cast<double>(kMaxDModel));
        val out = val::array();
        for (double s : alibi_slopes(h)) out.call<void>("push", s);
        return out;
    });
}

val alibi_bias_js(val options) {
    return guarded([&] {
        Options in(options, "alibiBias", {"length", "heads"});
        if (!in.has("length") || !in.has("heads")) throw InvalidArgument("missing_option", "alibiBias needs length and heads");
        val out = val::object();
        const std::size_t heads = in.whole("heads", 0);
        out.set("bias", matrix(alibi_bias_table(in.whole("length", 0), heads)));
        val slopes = val::array();
        for (double m : alibi_slopes(heads)) slopes.call<void>("push", m);
        out.set("slopes", slopes);
        return out;
    });
}


// ropeAngleMap's newBase, yarnEdges ("paper" or "lab"), yarnAlpha, yarnBeta.
RopeAngleOptions angle_options(const Options& in) {
    RopeAngleOptions o;
    o.new_base = in.number("newBase", kLlama3Base);
    o.yarn_edges = parse_yarn_edge_rule(in.string("yarnEdges", "paper"));
    if (in.has("yarnAlpha")) o.yarn_alpha = in.number("yarnAlpha", 0.0);
    if (in.has("yarnBeta")) o.yarn_beta = in.number("yarnBeta", 0.0);
    return o;
}

// RoPE context extension, Part 1: m·θ'ᵢ mod 2π per pair over positions 0 … s·L.
val rope_angle_map_js(val options) {
    return guarded([&] {
        Options in(options, "ropeAngleMap", {"d", "base", "trainedLength", "s", "method", "newBase", "yarnEdges", "yarnAlpha", "yarnBeta"});
        if (!in.has("d") || !in.has("trainedLength") || !in.has("s"))
            throw InvalidArgument("missing_option", "ropeAngleMap needs d, trainedLength and s");
        const RopeAngleMap m =
            rope_angle_map(in.whole("d", 0, 1024), in.number("base", kDefaultBase), in.whole("trainedLength", 0, 1e6),
                           in.number("s", 1.0), parse_rope_scaling(in.string("method", "none")),
                           angle_options(in));
        val out = val::object();
        out.set("pairs", m.pairs);
        out.set("positions", m.positions);
        out.set("trainedLength", m.trained_length);
        out.set("angles", float_array(floats(m.angles)));
        std::vector<float> unseen(m.unseen.begin(), m.unseen.end());
        out.set("unseen", float_array(unseen));
        val leaves = val::array();
        for (bool b : m.leaves) leaves.call<void>("push", b);
        out.set("leaves", leaves);
        out.set("trainedSpan", float_array(floats(m.trained_span)));
        out.set("maxAngle", float_array(floats(m.max_angle)));
        out.set("theta", float_array(floats(m.rope.theta)));
        out.set("original", float_array(floats(m.rope.original)));
        out.set("ramp", float_array(floats(m.rope.ramp)));
        out.set("logitScale", m.rope.logit_scale);
        out.set("baseUsed", m.rope.base_used);
        out.set("alpha", m.rope.alpha);
        out.set("beta", m.rope.beta);
        return out;
    });
}

val rope_rotate_js(val options) {
    return guarded([&] {
        Options in(options, "ropeRotate", {"vector", "position", "base"});
        if (!in.has("vector") || !in.has("position"))
            throw InvalidArgument("missing_option", "ropeRotate needs vector and position");
        const std::vector<double> v = in.numbers("vector");
        xt::xtensor<float, 2> x = matrix_from_rows({v}, "vector");
        apply_rope(x, 1, in.number("base", kDefaultBase), {in.whole("position", 0, double(kMaxPosition - 1))});
        return float_array(std::vector<float>(x.begin(), x.end()));
    });
}

val limits_js() {
    val out = val::object();
    out.set("maxTokens", kMaxTokens);
    out.set("maxPosition", kMaxPosition - 1);
    out.set("maxDModel", kMaxDModel);
    out.set("maxTablePositions", kMaxTablePositions);
    out.set("npyPrefixBytes", double(kNpyPrefixBytes));
    out.set("maxTableValues", double(kMaxTableValues));
    out.set("maxCodeChars", double(poslab::grading::kMaxCodeChars));
    out.set("maxSubmissionBytes", double(poslab::grading::kMaxSubmissionBytes));
    return out;
}

}  // namespace
}  // namespace poslab::wasm

EMSCRIPTEN_BINDINGS(poslab) {
    using namespace poslab::wasm;
    emscripten::function("raw_forward", &forward_js);
    emscripten::function("raw_forwardHeads", &forward_heads_js);
    emscripten::function("raw_forwardCombine", &forward_combine_js);
    emscripten::function("raw_tokenize", &tokenize_js);
    emscripten::function("raw_encoding", &encoding_js);
    emscripten::function("raw_permutationCheck", &permutation_check_js);
    emscripten::function("raw_attentionSteps", &attention_steps_js);
    emscripten::function("raw_ropeCheck", &rope_check_js);
    emscripten::function("raw_shiftMatrix", &shift_matrix_js);
    emscripten::function("raw_similarity", &similarity_js);
    emscripten::function("raw_alibiSlopes", &alibi_slopes_js);
    emscripten::function("raw_alibiBias", &alibi_bias_js);
    emscripten::function("raw_ropeRotate", &rope_rotate_js);
    emscripten::function("raw_ropeAngleMap", &rope_angle_map_js);
    emscripten::function("raw_limits", &limits_js);
    emscripten::constant("version", std::string(POSLAB_VERSION));
}
