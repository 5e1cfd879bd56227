#pragma once
// Small helpers that several test files share, defined once (the GoogleTest
// files are compiled as a unity build, several to a translation unit, where a
// helper defined in two files would clash).
#include <exception>
#include <functional>
#include <string>

#include <xtensor/xtensor.hpp>

#include "poslab/errors.hpp"
#include "reference.hpp"

namespace support {

// The error code f throws (poslab::error_code), or "(no error)".
inline std::string code_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return poslab::error_code(e);
    }
    return "(no error)";
}

// A core matrix as the reference implementation's.
inline ref::Mat as_mat(const xt::xtensor<float, 2>& t) {
    ref::Mat m = ref::zeros(t.shape(0), t.shape(1));
    for (std::size_t i = 0; i < t.shape(0); ++i)
        for (std::size_t j = 0; j < t.shape(1); ++j) m[i][j] = t(i, j);
    return m;
}

// A reference matrix as a batch of one for the core.
inline xt::xtensor<float, 3> batch_of(const ref::Mat& m) {
    xt::xtensor<float, 3> x({1, m.size(), m[0].size()});
    for (std::size_t i = 0; i < m.size(); ++i)
        for (std::size_t j = 0; j < m[0].size(); ++j) x(0, i, j) = static_cast<float>(m[i][j]);
    return x;
}

}  // namespace support
