#pragma once
// The options of the core's functions, read once for every front end: the
// wasm bindings (JS objects), the JSON API (the grader) and the CLI (flags)
// each supply a Reader with the same small interface —
//   has(key), string(key, fallback), boolean(key, fallback),
//   number(key, fallback), whole(key, fallback[, max]), seed(key, fallback),
//   strings(key), rows(key)
// — that checks types strictly and names the option in its errors.
#include <set>
#include <string>

#include "poslab/model.hpp"

namespace poslab {

// camelCase names, as the JS API and the exercise files write them.
inline const std::set<std::string>& forward_option_names() {
    static const std::set<std::string> names = {"text", "tokens", "vectors", "pe", "causal", "dModel", "heads",
                                                "weights", "seed", "maxPositions", "base", "combine",
                                                "positionOffset", "returnAttention"};
    return names;
}

inline const std::set<std::string>& encoding_option_names() {
    static const std::set<std::string> names = {"scheme", "length", "dModel", "base", "seed", "maxPositions",
                                                "positionOffset"};
    return names;
}

template <class Reader>
ForwardOptions read_forward_options(const Reader& in) {
    ForwardOptions o;
    if (in.has("text")) o.text = in.string("text", "");
    if (in.has("tokens")) o.tokens = in.strings("tokens");
    if (in.has("vectors")) o.vectors = in.rows("vectors");
    o.pe = parse_position_scheme(in.string("pe", to_string(o.pe)));
    o.causal = in.boolean("causal", o.causal);
    o.d_model = in.whole("dModel", o.d_model);
    o.heads = in.whole("heads", o.heads);
    o.weights = parse_weights_kind(in.string("weights", to_string(o.weights)));
    o.seed = in.seed("seed", o.seed);
    o.max_positions = in.whole("maxPositions", o.max_positions);
    o.base = in.number("base", o.base);
    o.combine = parse_combine(in.string("combine", to_string(o.combine)));
    o.position_offset = in.whole("positionOffset", o.position_offset);
    o.return_attention = in.boolean("returnAttention", o.return_attention);
    return o;
}

template <class Reader>
EncodingOptions read_encoding_options(const Reader& in) {
    EncodingOptions o;
    o.scheme = parse_position_scheme(in.string("scheme", to_string(o.scheme)));
    o.length = in.whole("length", o.length);
    o.d_model = in.whole("dModel", o.d_model);
    o.base = in.number("base", o.base);
    o.seed = in.seed("seed", o.seed);
    o.max_positions = in.whole("maxPositions", o.max_positions);
    o.position_offset = in.whole("positionOffset", o.position_offset);
    return o;
}

}  // namespace poslab
