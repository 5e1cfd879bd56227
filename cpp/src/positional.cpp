#include "poslab/positional.hpp"

#include <cmath>

#include "poslab/errors.hpp"
#include "poslab/random.hpp"

namespace poslab {

PositionScheme parse_position_scheme(const std::string& name) {
    if (name == "none") return PositionScheme::none;
    if (name == "sinusoidal") return PositionScheme::sinusoidal;
    if (name == "learned") return PositionScheme::learned;
    if (name == "rope") return PositionScheme::rope;
    if (name == "alibi") return PositionScheme::alibi;
    throw InvalidArgument("unknown_scheme",
                          "unknown position scheme '" + name +
                              "'; allowed: none, sinusoidal, learned, rope, alibi",
                          {{"value", name}});
}

Combine parse_combine(const std::string& name) {
    if (name == "add") return Combine::add;
    if (name == "concat") return Combine::concat;
    throw InvalidArgument("unknown_combine", "unknown combine '" + name + "'; allowed: add, concat",
                          {{"value", name}});
}

std::string to_string(PositionScheme scheme) {
    switch (scheme) {
        case PositionScheme::none: return "none";
        case PositionScheme::sinusoidal: return "sinusoidal";
        case PositionScheme::learned: return "learned";
        case PositionScheme::rope: return "rope";
        case PositionScheme::alibi: return "alibi";
    }
    return "?";
}

std::string to_string(Combine combine) { return combine == Combine::add ? "add" : "concat"; }

namespace {

void check_base(double base) {
    if (!std::isfinite(base) || base <= 1.0)
        throw InvalidArgument("bad_base",
                              "base must be a finite number greater than 1 (10000 in the original "
                              "Transformer), got " + std::to_string(base),
                              {{"value", std::to_string(base)}});
}

void check_even_width(std::size_t width, const char* name, const char* scheme) {
    if (width < 2 || width % 2 != 0)
        throw InvalidArgument("odd_width",
                              std::string(name) + " must be even and at least 2 for " + scheme +
                                  " (its values come in sin/cos pairs), got " + std::to_string(width),
                              {{"field", name}, {"value", std::to_string(width)}, {"scheme", scheme}});
}

}  // namespace

xt::xtensor<float, 2> sinusoidal_encoding(std::size_t length, std::size_t d_model, double base,
                                          std::size_t first) {
    check_even_width(d_model, "dModel", "sinusoidal");
    check_base(base);
    xt::xtensor<float, 2> pe({length, d_model});
    for (std::size_t i = 0; i < d_model / 2; ++i) {
        // 1 / base^{2i/D}: the angular frequency of pair i.
        const double freq = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d_model));
        for (std::size_t pos = 0; pos < length; ++pos) {
            const double angle = static_cast<double>(first + pos) * freq;
            pe(pos, 2 * i) = static_cast<float>(std::sin(angle));
            pe(pos, 2 * i + 1) = static_cast<float>(std::cos(angle));
        }
    }
    return pe;
}

xt::xtensor<float, 2> learned_position_table(std::size_t max_positions, std::size_t d_model,
                                             std::uint32_t seed, std::size_t first, std::size_t count) {
    if (max_positions < 1)
        throw InvalidArgument("bad_max_positions", "maxPositions must be at least 1, got 0");
    if (d_model < 1) throw InvalidArgument("bad_d_model", "dModel must be at least 1, got 0");
    if (count == SIZE_MAX) count = max_positions > first ? max_positions - first : 0;
    const std::size_t last = first + count;  // one past
    if (count > 0 && last > max_positions) {
        const std::size_t bad = std::max(first, max_positions);
        throw OutOfRange(
            "position_past_table",
            "position " + std::to_string(bad) + " has no row in the learned position table: it has " +
                std::to_string(max_positions) + " rows (positions 0 to " + std::to_string(max_positions - 1) +
                "), and a learned table cannot be extended past the length it was trained for",
            {{"position", std::to_string(bad)},
             {"max_positions", std::to_string(max_positions)},
             {"last_position", std::to_string(max_positions - 1)}});
    }
    xt::xtensor<float, 2> table({count, d_model});
    for (std::size_t r = 0; r < count; ++r) {
        Rng rng(mix_seed(mix_seed(seed, 0x1ea2edull), first + r));
        for (std::size_t d = 0; d < d_model; ++d)
            table(r, d) = static_cast<float>(kLearnedStd * rng.normal());
    }
    return table;
}

double rope_angle(std::size_t pos, std::size_t pair, std::size_t d_head, double base) {
    return static_cast<double>(pos) *
           std::pow(base, -2.0 * static_cast<double>(pair) / static_cast<double>(d_head));
}

void apply_rope(xt::xtensor<float, 2>& x, std::size_t heads, double base,
                const std::vector<std::size_t>& positions) {
    check_base(base);
    const std::size_t rows = x.shape(0), width = x.shape(1);
    if (heads < 1 || width % heads != 0)
        throw InvalidArgument("heads_not_dividing",
                              "heads (" + std::to_string(heads) + ") must divide the width " +
                                  std::to_string(width));
    const std::size_t d_head = width / heads;
    check_even_width(d_head, "d_head (width / heads)", "RoPE");
    if (!positions.empty() && positions.size() != rows)
        throw InvalidArgument("bad_positions", "positions must give one position per row");
    std::vector<double> freq(d_head / 2);
    for (std::size_t i = 0; i < freq.size(); ++i)
        freq[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d_head));
    for (std::size_t s = 0; s < rows; ++s) {
        const double pos = static_cast<double>(positions.empty() ? s : positions[s]);
        for (std::size_t i = 0; i < d_head / 2; ++i) {
            const double c = std::cos(pos * freq[i]), sn = std::sin(pos * freq[i]);
            for (std::size_t h = 0; h < heads; ++h) {
                float* p = &x(s, h * d_head + 2 * i);
                const double a = p[0], b = p[1];
                p[0] = static_cast<float>(a * c - b * sn);
                p[1] = static_cast<float>(a * sn + b * c);
            }
        }
    }
}

std::vector<double> alibi_slopes(std::size_t heads) {
    if (heads < 1) throw InvalidArgument("bad_heads", "heads must be at least 1, got 0");
    // 2^{-8h/n}, h = 1..n, for n a power of two.
    auto power_of_two_slopes = [](std::size_t n) {
        std::vector<double> s(n);
        for (std::size_t h = 1; h <= n; ++h) s[h - 1] = std::exp2(-8.0 * static_cast<double>(h) / static_cast<double>(n));
        return s;
    };
    std::size_t n = 1;
    while (n * 2 <= heads) n *= 2;
    std::vector<double> slopes = power_of_two_slopes(n);
    if (n < heads) {
        // The ALiBi paper's rule: then every other slope of 2n heads.
        const std::vector<double> extra = power_of_two_slopes(2 * n);
        for (std::size_t i = 0; slopes.size() < heads; i += 2) slopes.push_back(extra[i]);
    }
    return slopes;
}

xt::xtensor<float, 2> alibi_bias(std::size_t length, double slope) {
    xt::xtensor<float, 2> bias({length, length});
    for (std::size_t i = 0; i < length; ++i)
        for (std::size_t j = 0; j < length; ++j)
            bias(i, j) = static_cast<float>(-slope * std::fabs(static_cast<double>(i) - static_cast<double>(j)));
    return bias;
}

xt::xtensor<float, 3> alibi_biases(std::size_t length, std::size_t heads) {
    const std::vector<double> slopes = alibi_slopes(heads);
    xt::xtensor<float, 3> out({heads, length, length});
    for (std::size_t h = 0; h < heads; ++h) {
        const auto b = alibi_bias(length, slopes[h]);
        std::copy(b.begin(), b.end(), out.data() + h * length * length);
    }
    return out;
}

}  // namespace poslab
