#include "poslab/model.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "poslab/embedding.hpp"
#include "poslab/errors.hpp"
#include "poslab/tokenizer.hpp"

namespace poslab {
namespace {

std::string str(std::size_t v) { return std::to_string(v); }

void check_range(const char* name, std::size_t value, std::size_t lo, std::size_t hi) {
    if (value < lo || value > hi)
        throw InvalidArgument("out_of_range_option",
                              std::string(name) + " must be from " + str(lo) + " to " + str(hi) + ", got " +
                                  str(value),
                              {{"field", name}, {"value", str(value)}, {"min", str(lo)}, {"max", str(hi)}});
}

void check_positions(std::size_t offset, std::size_t length) {
    check_range("positionOffset", offset, 0, kMaxPosition);
    if (offset + length > kMaxPosition)
        throw InvalidArgument("position_limit",
                              "the last position would be " + str(offset + length - 1) +
                                  "; positions go up to " + str(kMaxPosition - 1) + " in the lab",
                              {{"limit", str(kMaxPosition - 1)}});
}

// The [S, D] input of a forward pass and its tokens (if it came from text).
xt::xtensor<float, 2> make_input(const ForwardOptions& o, std::vector<std::string>& tokens) {
    if (o.vectors) {
        xt::xtensor<float, 2> input = matrix_from_rows(*o.vectors);
        if (input.shape(0) > kMaxTokens)
            throw InvalidArgument("too_many_tokens",
                                  "vectors has " + str(input.shape(0)) + " rows; the lab takes at most " +
                                      str(kMaxTokens),
                                  {{"limit", str(kMaxTokens)}});
        check_range("vector length", input.shape(1), 1, kMaxDModel);
        return input;
    }
    if (o.tokens) {
        if (o.tokens->empty())
            throw InvalidArgument("empty_tokens", "tokens is empty; give at least one token");
        if (o.tokens->size() > kMaxTokens)
            throw InvalidArgument("too_many_tokens",
                                  "tokens has " + str(o.tokens->size()) + " entries; the lab takes at most " +
                                      str(kMaxTokens),
                                  {{"limit", str(kMaxTokens)}});
        for (std::size_t i = 0; i < o.tokens->size(); ++i)
            if ((*o.tokens)[i].empty())
                throw InvalidArgument("empty_token", "tokens[" + str(i) + "] is an empty string; every token "
                                                     "needs at least one character",
                                      {{"index", str(i)}});
        tokens = *o.tokens;
    } else {
        tokens = tokenize(*o.text);
    }
    return token_embeddings(tokens, o.d_model, o.seed);
}

// The random projections of the last few (kind, width, seed): regenerating D²
// normals four times per call would cost more than attention itself at
// D = 768 (a slider drag, or pages that alternate seeds or widths). A small
// LRU per thread: safe natively without a lock, and wasm has one thread.
struct WeightsCache {
    struct Entry {
        std::uint32_t seed;
        std::shared_ptr<const AttentionWeights> weights;
    };
    std::vector<Entry> entries;  // most recently used first
    std::size_t generated = 0;
};
WeightsCache& weights_cache() {
    thread_local WeightsCache cache;
    return cache;
}

std::shared_ptr<const AttentionWeights> cached_weights(WeightsKind kind, std::size_t width, std::uint32_t seed) {
    WeightsCache& c = weights_cache();
    for (std::size_t i = 0; i < c.entries.size(); ++i) {
        const WeightsCache::Entry& e = c.entries[i];
        if (e.seed == seed && e.weights->kind == kind && e.weights->d_model == width) {
            std::rotate(c.entries.begin(), c.entries.begin() + static_cast<std::ptrdiff_t>(i),
                        c.entries.begin() + static_cast<std::ptrdiff_t>(i) + 1);
            return c.entries.front().weights;
        }
    }
    auto made = std::make_shared<const AttentionWeights>(make_attention_weights(kind, width, seed));
    ++c.generated;
    c.entries.insert(c.entries.begin(), {seed, made});
    if (c.entries.size() > kWeightsCacheSize) c.entries.pop_back();
    return made;
}

}  // namespace

void clear_weights_cache() {
    weights_cache().entries.clear();
    weights_cache().generated = 0;
}

std::size_t weights_cache_generated() { return weights_cache().generated; }

void validate(const ForwardOptions& o) {
    const int inputs = int(o.text.has_value()) + int(o.tokens.has_value()) + int(o.vectors.has_value());
    if (inputs == 0)
        throw InvalidArgument("no_input", "give the input as text, tokens or vectors");
    if (inputs > 1)
        throw InvalidArgument("several_inputs", "give only one of text, tokens and vectors");
    if (!o.vectors) check_range("dModel", o.d_model, 1, kMaxDModel);
    check_range("heads", o.heads, 1, kMaxDModel);
    check_range("maxPositions", o.max_positions, 1, kMaxTablePositions);
    if (!std::isfinite(o.base) || o.base <= 1.0)
        throw InvalidArgument("bad_base", "base must be a finite number greater than 1 (10000 in the "
                                          "original Transformer), got " + std::to_string(o.base));
    if (o.combine == Combine::concat && o.pe != PositionScheme::sinusoidal && o.pe != PositionScheme::learned)
        throw InvalidArgument("concat_needs_vector_pe",
                              "combine 'concat' appends a position vector, so it needs pe 'sinusoidal' or "
                              "'learned', not '" + to_string(o.pe) + "'",
                              {{"pe", to_string(o.pe)}});
    check_range("positionOffset", o.position_offset, 0, kMaxPosition);
}

namespace {

// Everything of a forward pass before attention: the checked options, the
// input, the position information, what attention sees, and its options.
struct Prepared {
    ForwardResult r;
    AttentionOptions ao;
    std::shared_ptr<const AttentionWeights> weights;
};

Prepared prepare(const ForwardOptions& o) {
    validate(o);
    Prepared p;
    ForwardResult& r = p.r;
    r.input = make_input(o, r.tokens);
    const std::size_t seq = r.input.shape(0), d = r.input.shape(1);
    check_positions(o.position_offset, seq);

    switch (o.pe) {
        case PositionScheme::sinusoidal: {
            if (d < 2 || d % 2 != 0)
                throw InvalidArgument("odd_width",
                                      "dModel must be even and at least 2 for sinusoidal (its values come in "
                                      "sin/cos pairs), got " + str(d),
                                      {{"field", "dModel"}, {"value", str(d)}, {"scheme", "sinusoidal"}});
            r.positional = sinusoidal_encoding(seq, d, o.base, o.position_offset);
            break;
        }
        case PositionScheme::learned:
            r.positional = learned_position_table(o.max_positions, d, o.seed, o.position_offset, seq);
            break;
        default:
            r.positional = xt::zeros<float>({seq, d});
    }

    if (o.combine == Combine::concat) {
        r.hidden = xt::xtensor<float, 2>({seq, 2 * d});
        for (std::size_t s = 0; s < seq; ++s)
            for (std::size_t j = 0; j < d; ++j) {
                r.hidden(s, j) = r.input(s, j);
                r.hidden(s, d + j) = r.positional(s, j);
            }
    } else {
        r.hidden = r.input + r.positional;
    }

    const std::size_t width = r.hidden.shape(1);
    if (width % o.heads != 0)
        throw InvalidArgument("heads_not_dividing",
                              "heads (" + str(o.heads) + ") must divide the model width " + str(width) +
                                  " (each head takes width / heads values)",
                              {{"heads", str(o.heads)}, {"width", str(width)}});
    if (o.pe == PositionScheme::rope && (width / o.heads) % 2 != 0)
        throw InvalidArgument("odd_width",
                              "RoPE rotates pairs of values, so width / heads must be even; " + str(width) +
                                  " / " + str(o.heads) + " = " + str(width / o.heads),
                              {{"field", "d_head"}, {"value", str(width / o.heads)}, {"scheme", "rope"}});

    p.ao.heads = o.heads;
    p.ao.causal = o.causal;
    p.ao.rope = o.pe == PositionScheme::rope;
    p.ao.rope_base = o.base;
    p.ao.alibi = o.pe == PositionScheme::alibi;
    p.ao.position_offset = o.position_offset;
    p.ao.return_weights = o.return_attention;
    p.weights = cached_weights(o.weights, width, o.seed);
    return p;
}

void set_output(ForwardResult& r, const xt::xtensor<float, 2>& output) {
    const std::size_t seq = output.shape(0), width = output.shape(1);
    r.output = output;
    r.output_mean = xt::zeros<float>({width});
    for (std::size_t s = 0; s < seq; ++s)
        for (std::size_t d = 0; d < width; ++d) r.output_mean(d) += r.output(s, d);
    for (std::size_t d = 0; d < width; ++d) r.output_mean(d) /= static_cast<float>(seq);
}

}  // namespace

ForwardResult forward(const ForwardOptions& o) {
    Prepared p = prepare(o);
    ForwardResult& r = p.r;
    const std::size_t seq = r.hidden.shape(0), width = r.hidden.shape(1);
    xt::xtensor<float, 3> x({1, seq, width});
    std::copy(r.hidden.begin(), r.hidden.end(), x.begin());
    AttentionResult a = self_attention(x, *p.weights, p.ao);
    xt::xtensor<float, 2> output({seq, width});
    std::copy(a.output.begin(), a.output.end(), output.begin());
    set_output(r, output);
    if (o.return_attention) {
        r.attention = xt::xtensor<float, 3>({o.heads, seq, seq});
        std::copy(a.weights.begin(), a.weights.end(), r.attention.begin());
    } else {
        r.attention = xt::xtensor<float, 3>({0, 0, 0});
    }
    return r;
}

xt::xtensor<float, 2> forward_heads(const ForwardOptions& o, std::size_t head_begin, std::size_t head_end) {
    Prepared p = prepare(o);
    const std::size_t seq = p.r.hidden.shape(0), width = p.r.hidden.shape(1);
    return attention_context(p.r.hidden.data(), seq, width, *p.weights, p.ao, head_begin, head_end);
}

ForwardResult forward_combine(const ForwardOptions& o, const xt::xtensor<float, 2>& context) {
    Prepared p = prepare(o);
    ForwardResult& r = p.r;
    const std::size_t seq = r.hidden.shape(0), width = r.hidden.shape(1);
    if (context.shape(0) != seq || context.shape(1) != width)
        throw InvalidArgument("bad_context",
                              "the heads' output must be " + str(seq) + " × " + str(width) +
                                  " (one row per token, the model width), got " + str(context.shape(0)) + " × " +
                                  str(context.shape(1)),
                              {{"rows", str(seq)}, {"cols", str(width)}});
    for (float v : context)
        if (!std::isfinite(v))
            throw InvalidArgument("non_finite_value", "the heads' output has a NaN or infinite value; "
                                                      "every value must be a finite number");
    set_output(r, attention_output(context, *p.weights));
    r.attention = xt::xtensor<float, 3>({0, 0, 0});
    return r;
}

xt::xtensor<float, 2> encoding(const EncodingOptions& o) {
    check_range("length", o.length, 1, kMaxTokens);
    check_range("dModel", o.d_model, 1, kMaxDModel);
    check_positions(o.position_offset, o.length);
    switch (o.scheme) {
        case PositionScheme::sinusoidal:
            return sinusoidal_encoding(o.length, o.d_model, o.base, o.position_offset);
        case PositionScheme::learned:
            check_range("maxPositions", o.max_positions, 1, kMaxTablePositions);
            return learned_position_table(o.max_positions, o.d_model, o.seed, o.position_offset, o.length);
        default:
            throw InvalidArgument("encoding_scheme",
                                  "an encoding table exists only for 'sinusoidal' and 'learned'; '" +
                                      to_string(o.scheme) + "' acts inside attention instead",
                                  {{"scheme", to_string(o.scheme)}});
    }
}

xt::xtensor<float, 1> sinusoidal_wavelengths(std::size_t d_model, double base) {
    check_range("dModel", d_model, 2, kMaxDModel);
    if (d_model % 2 != 0)
        throw InvalidArgument("odd_width", "dModel must be even for sinusoidal, got " + str(d_model),
                              {{"field", "dModel"}, {"value", str(d_model)}, {"scheme", "sinusoidal"}});
    auto w = xt::xtensor<float, 1>::from_shape({d_model / 2});
    for (std::size_t i = 0; i < d_model / 2; ++i)
        w(i) = static_cast<float>(6.283185307179586 * std::pow(base, 2.0 * static_cast<double>(i) / static_cast<double>(d_model)));
    return w;
}

}  // namespace poslab
