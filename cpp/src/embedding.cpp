#include "poslab/embedding.hpp"

#include <cmath>

#include "poslab/errors.hpp"
#include "poslab/random.hpp"

namespace poslab {

xt::xtensor<float, 2> token_embeddings(const std::vector<std::string>& tokens, std::size_t d_model,
                                       std::uint32_t seed) {
    if (tokens.empty()) throw InvalidArgument("empty_tokens", "no tokens to embed; give at least one");
    if (d_model < 1)
        throw InvalidArgument("bad_d_model", "dModel must be at least 1, got 0", {{"value", "0"}});
    xt::xtensor<float, 2> out({tokens.size(), d_model});
    for (std::size_t s = 0; s < tokens.size(); ++s) {
        // The token alone (with the seed) decides its vector: "the" at position
        // 0 and at position 3 get the same embedding, as in a real model.
        Rng rng(mix_seed(hash_string(tokens[s]), seed));
        for (std::size_t d = 0; d < d_model; ++d) out(s, d) = static_cast<float>(rng.normal());
    }
    return out;
}

xt::xtensor<float, 2> matrix_from_rows(const std::vector<std::vector<double>>& rows, const std::string& what) {
    if (rows.empty())
        throw InvalidArgument("empty_vectors", what + " is empty; give at least one row of numbers");
    const std::size_t width = rows[0].size();
    if (width == 0)
        throw InvalidArgument("empty_row", what + " row 0 is empty; every row needs at least one number");
    xt::xtensor<float, 2> out({rows.size(), width});
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (rows[r].size() != width)
            throw InvalidArgument("ragged_vectors",
                                  what + " rows must all have the same length: row 0 has " +
                                      std::to_string(width) + " numbers, row " + std::to_string(r) +
                                      " has " + std::to_string(rows[r].size()),
                                  {{"row", std::to_string(r)}});
        for (std::size_t c = 0; c < width; ++c) {
            const double v = rows[r][c];
            if (!std::isfinite(v) || std::fabs(v) > 3.0e38)
                throw InvalidArgument("non_finite_value",
                                      what + "[" + std::to_string(r) + "][" + std::to_string(c) +
                                          "] is " + (std::isnan(v) ? "NaN" : "not a finite float") +
                                          "; every value must be a finite number",
                                      {{"row", std::to_string(r)}, {"column", std::to_string(c)}});
            out(r, c) = static_cast<float>(v);
        }
    }
    return out;
}

}  // namespace poslab
