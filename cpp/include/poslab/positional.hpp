#pragma once
// Position information: the schemes of the guide's variants table.
//   sinusoidal  PE(pos,2i)=sin(pos/base^{2i/D}), PE(pos,2i+1)=cos(...)  (original Transformer)
//   learned     a [max_positions, D] table, N(0, 0.02²)                 (BERT, GPT-2: 1024×768)
//   rope        rotate Q and K pairwise by pos·base^{-2i/d_head}        (Llama, Qwen)
//   alibi       bias -m_h·|i-j| added to head h's scores                (BLOOM)
#include <cstdint>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace poslab {

enum class PositionScheme { none, sinusoidal, learned, rope, alibi };
enum class Combine { add, concat };

// Throw std::invalid_argument naming the allowed values.
PositionScheme parse_position_scheme(const std::string& name);
Combine parse_combine(const std::string& name);
std::string to_string(PositionScheme scheme);
std::string to_string(Combine combine);

constexpr double kDefaultBase = 10000.0;
constexpr std::size_t kDefaultMaxPositions = 1024;  // GPT-2's W_p has 1024 rows
constexpr double kLearnedStd = 0.02;                // GPT-2's initialiser

// [length, d_model]: rows for positions first … first+length-1. d_model must
// be even, base > 1 and finite. Any position: nothing is learned, nothing runs out.
xt::xtensor<float, 2> sinusoidal_encoding(std::size_t length, std::size_t d_model,
                                          double base = kDefaultBase, std::size_t first = 0);

// Rows [first, first+count) of the learned table [max_positions, d_model]. Each
// row is drawn from (seed, row) alone, so a row is the same whatever slice is
// asked for. A row >= max_positions throws std::out_of_range naming it.
xt::xtensor<float, 2> learned_position_table(std::size_t max_positions, std::size_t d_model,
                                             std::uint32_t seed, std::size_t first = 0,
                                             std::size_t count = SIZE_MAX);

// The angle by which pair i of a d_head-wide vector turns at position pos.
double rope_angle(std::size_t pos, std::size_t pair, std::size_t d_head, double base = kDefaultBase);

// Rotates, in place, each interleaved pair (2i, 2i+1) of every head of x
// ([S, H*d_head], row s at position positions[s], or s when positions is empty).
void apply_rope(xt::xtensor<float, 2>& x, std::size_t heads, double base = kDefaultBase,
                const std::vector<std::size_t>& positions = {});

// m_h for h = 1..H: 2^{-8h/H} when H is a power of two, otherwise the ALiBi
// paper's rule (the slopes of the nearest lower power of two, then every other
// slope of the next one).
std::vector<double> alibi_slopes(std::size_t heads);

// [length, length]: -slope·|i-j|.
xt::xtensor<float, 2> alibi_bias(std::size_t length, double slope);
// [heads, length, length]: every head's bias, with alibi_slopes(heads).
xt::xtensor<float, 3> alibi_biases(std::size_t length, std::size_t heads);

}  // namespace poslab
