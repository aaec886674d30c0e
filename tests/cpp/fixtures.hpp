// Small builders shared by the C++ tests: matrices from nested braces and the problems the tests
// start from. No numerics here; expected values live in the tests with their provenance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <vector>

#include "attn/attention.hpp"

namespace attn_test {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// Row-major matrix from nested braces: mat({{1, 0}, {0, 1}}). All rows must have one length.
inline attn::Matrix mat(std::initializer_list<std::initializer_list<float>> rows) {
    const int r = static_cast<int>(rows.size());
    const int c = r == 0 ? 0 : static_cast<int>(rows.begin()->size());
    attn::Matrix m(r, c);
    int i = 0;
    for (const auto& row : rows) {
        int j = 0;
        for (float x : row) m(i, j++) = x;
        ++i;
    }
    return m;
}

/// Logits-mode problem with the given scores; no mask, tau 1.
inline attn::Problem logits_problem(const attn::Matrix& s) {
    attn::Problem p;
    p.mode = attn::Mode::logits;
    p.logits = s;
    return p;
}

/// Weights-mode problem with the given attention rows; no mask, tau 1.
inline attn::Problem weights_problem(const attn::Matrix& a) {
    attn::Problem p;
    p.mode = attn::Mode::weights;
    p.weights = a;
    return p;
}

/// n_q x n_k allow-matrix flags from nested braces of 0/1.
inline std::vector<std::uint8_t> flags(std::initializer_list<std::initializer_list<int>> rows) {
    std::vector<std::uint8_t> f;
    for (const auto& row : rows)
        for (int x : row) f.push_back(static_cast<std::uint8_t>(x != 0));
    return f;
}

/// Sum of row t of m, in double.
inline double row_sum(const attn::Matrix& m, int t) {
    double s = 0;
    for (int j = 0; j < m.cols; ++j) s += m(t, j);
    return s;
}

}  // namespace attn_test
