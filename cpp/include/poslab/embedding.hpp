#pragma once
// Token embeddings: one vector per token string, the same in any position or
// sentence, drawn N(0, 1) from a generator seeded by (token, seed).
#include <cstdint>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

namespace poslab {

// [S, D]. Throws std::invalid_argument if tokens is empty or d_model < 1.
xt::xtensor<float, 2> token_embeddings(const std::vector<std::string>& tokens,
                                       std::size_t d_model, std::uint32_t seed);

// Checks a matrix given by the caller (rows of equal, non-zero length, every
// value finite) and returns it as [S, D]. `what` names it in messages.
xt::xtensor<float, 2> matrix_from_rows(const std::vector<std::vector<double>>& rows,
                                       const std::string& what = "vectors");

}  // namespace poslab
