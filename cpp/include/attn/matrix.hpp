// A dense row-major float32 matrix: the storage type of every tensor the core touches.
#pragma once

#include <cstddef>
#include <vector>

namespace attn {

struct Matrix {
    int rows = 0;
    int cols = 0;
    std::vector<float> data;  ///< rows * cols values, row-major

    Matrix() = default;
    Matrix(int r, int c, float fill = 0.0f)
        : rows(r), cols(c), data(static_cast<std::size_t>(r) * static_cast<std::size_t>(c), fill) {}

    bool empty() const noexcept { return rows == 0 || cols == 0; }
    float* row(int i) noexcept { return data.data() + static_cast<std::size_t>(i) * cols; }
    const float* row(int i) const noexcept { return data.data() + static_cast<std::size_t>(i) * cols; }
    float& operator()(int i, int j) noexcept { return row(i)[j]; }
    float operator()(int i, int j) const noexcept { return row(i)[j]; }
};

}  // namespace attn
