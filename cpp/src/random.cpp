#include "poslab/random.hpp"

#include <cmath>

namespace poslab {

std::uint64_t Rng::next_u64() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double Rng::uniform() {
    // 53 random bits, shifted by half a step so the result is never 0 or 1.
    return (static_cast<double>(next_u64() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double Rng::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    const double two_pi = 6.283185307179586476925286766559;
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    const double theta = two_pi * uniform();
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
}

std::uint64_t hash_string(std::string_view s) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
    Rng rng(a ^ (b * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull));
    return rng.next_u64();
}

}  // namespace poslab
