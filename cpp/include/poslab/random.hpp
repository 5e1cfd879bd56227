#pragma once
// Deterministic random numbers that are the same on every platform (native,
// wasm): std::mt19937 is portable but std::normal_distribution is not, so the
// generator and the normal transform are written out here.
#include <cstdint>
#include <string_view>

namespace poslab {

// SplitMix64: tiny, fast, passes BigCrush; enough for initialising weights.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next_u64();
    // Uniform in (0, 1): never exactly 0, so log() in the normal transform is safe.
    double uniform();
    // Standard normal by Box–Muller (both values used).
    double normal();

private:
    std::uint64_t state_;
    bool has_spare_ = false;
    double spare_ = 0.0;
};

// FNV-1a of a string, 64-bit: a token's identity for its embedding.
std::uint64_t hash_string(std::string_view s);
// Mixes values into one seed (order matters).
std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b);

}  // namespace poslab
