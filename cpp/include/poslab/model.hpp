#pragma once
// One forward pass as the lab shows it: tokens → embeddings → + position
// information → self-attention. The CLI, the wasm module and the grader all
// call this.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "poslab/attention.hpp"
#include "poslab/positional.hpp"

namespace poslab {

// Positions may start past 0 (the 1024-wall exercise places a sentence at
// 1020…); the first position plus the length may not exceed this.
constexpr std::size_t kMaxPosition = 1u << 20;
constexpr std::size_t kMaxDModel = 4096;
constexpr std::size_t kMaxTablePositions = 1u << 16;

struct ForwardOptions {
    // The input: exactly one of these.
    std::optional<std::string> text;                          // tokenized
    std::optional<std::vector<std::string>> tokens;           // already split (e.g. reordered chips)
    std::optional<std::vector<std::vector<double>>> vectors;  // S rows of D values
    PositionScheme pe = PositionScheme::none;
    bool causal = false;
    std::size_t d_model = 8;          // ignored with vectors (D is their length)
    std::size_t heads = 1;
    WeightsKind weights = WeightsKind::random;
    std::uint32_t seed = 0;
    std::size_t max_positions = kDefaultMaxPositions;
    double base = kDefaultBase;
    Combine combine = Combine::add;
    std::size_t position_offset = 0;
    bool return_attention = true;
};

struct ForwardResult {
    std::vector<std::string> tokens;   // empty with vectors
    xt::xtensor<float, 2> input;       // [S, D] token embeddings (or the given vectors)
    xt::xtensor<float, 2> positional;  // [S, D] (zeros for none/rope/alibi)
    xt::xtensor<float, 2> hidden;      // [S, D'] what attention sees: input + positional, or [input | positional]
    xt::xtensor<float, 3> attention;   // [H, S, S] (empty when return_attention is false)
    xt::xtensor<float, 2> output;      // [S, D']
    xt::xtensor<float, 1> output_mean; // [D'] mean of the output rows: the sentence vector
};

// Throws std::invalid_argument / std::out_of_range with a message saying what
// was wrong and what is allowed.
void validate(const ForwardOptions& options);
ForwardResult forward(const ForwardOptions& options);

// forward in two halves, so that its heads can be computed apart (the page
// spreads them over Workers) and put together with the same bits as forward:
// forward_heads gives heads [head_begin, head_end)'s attention output before
// the output projection, [S, n·d_head] (n = head_end - head_begin);
// forward_combine takes all heads' outputs side by side ([S, width]) and
// finishes the pass: the output projection, outputMean, and the input,
// positional and hidden of forward. It never returns attention weights.
// Both check the options as forward does.
xt::xtensor<float, 2> forward_heads(const ForwardOptions& options, std::size_t head_begin, std::size_t head_end);
ForwardResult forward_combine(const ForwardOptions& options, const xt::xtensor<float, 2>& context);

// forward keeps the random projections of the last kWeightsCacheSize
// (weights kind, width, seed) it used, per thread (least recently used goes
// first). For tests and benchmarks: empty this thread's cache, and count how
// many times it generated weights since the last clear.
constexpr std::size_t kWeightsCacheSize = 4;
void clear_weights_cache();
std::size_t weights_cache_generated();

struct EncodingOptions {
    PositionScheme scheme = PositionScheme::sinusoidal;  // sinusoidal or learned
    std::size_t length = 8;
    std::size_t d_model = 8;
    double base = kDefaultBase;
    std::uint32_t seed = 0;
    std::size_t max_positions = kDefaultMaxPositions;
    std::size_t position_offset = 0;
};
// [length, d_model]: rows position_offset … position_offset+length-1.
xt::xtensor<float, 2> encoding(const EncodingOptions& options);

// [d_model / 2]: the wavelength 2π·base^{2i/D} of each (sin, cos) pair, in positions.
xt::xtensor<float, 1> sinusoidal_wavelengths(std::size_t d_model, double base = kDefaultBase);

}  // namespace poslab
