// Order statistics of one row of weights in expected O(n), shared by every KernelSet: the top-k
// mass and the (1-delta) support size need the largest weights, not a sorted row (a full sort is
// O(n log n) per row, which dominated 32k-token rows).
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace attn::rowsel {

/// Sum of the k largest values of p (k clamped to p.size()). Reorders p.
template <class T>
double top_k_mass(std::vector<T>& p, int k) {
    const std::size_t kk = std::min(p.size(), static_cast<std::size_t>(std::max(k, 0)));
    if (kk == 0) return 0.0;
    if (kk < p.size())
        std::nth_element(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(kk - 1), p.end(), std::greater<T>());
    double s = 0.0;
    for (std::size_t i = 0; i < kk; ++i) s += p[i];
    return s;
}

/// Relative slack on `need`: sums taken in different orders differ in their last bits, and a
/// support must not jump to every key (zeros included) because of that.
inline constexpr double kSupportSlack = 1e-12;

/// Fewest values of p (all >= 0) whose sum reaches `need` (within kSupportSlack): the (1-delta)
/// support size with need = (1 - delta) * sum(p). Zeros are never counted. Quickselect with a
/// three-way partition; reorders p.
template <class T>
int support_size(std::vector<T>& p, double need) {
    need *= 1.0 - kSupportSlack;
    auto lo = p.begin(), hi = p.end();
    double acc = 0.0;
    int count = 0;
    while (lo != hi && acc < need) {
        // Median of three as the pivot.
        const T a = *lo, b = *(lo + (hi - lo) / 2), c = *(hi - 1);
        const T pivot = std::max(std::min(a, b), std::min(std::max(a, b), c));
        auto gt_end = std::partition(lo, hi, [&](T x) { return x > pivot; });
        auto eq_end = std::partition(gt_end, hi, [&](T x) { return x == pivot; });
        double s_gt = 0.0;
        for (auto it = lo; it != gt_end; ++it) s_gt += *it;
        if (acc + s_gt >= need && gt_end != lo) {
            hi = gt_end;  // the answer lies among the larger values
            continue;
        }
        acc += s_gt;
        count += static_cast<int>(gt_end - lo);
        const auto n_eq = static_cast<double>(eq_end - gt_end);
        const double s_eq = n_eq * static_cast<double>(pivot);
        if (pivot <= 0) break;  // only zeros left: they add no mass
        if (acc + s_eq >= need) {
            // Some of the equal values finish it: as many as the remaining mass needs.
            const double m = std::ceil((need - acc) / static_cast<double>(pivot));
            return count + static_cast<int>(std::min(n_eq, std::max(m, 1.0)));
        }
        acc += s_eq;
        count += static_cast<int>(n_eq);
        lo = eq_end;
    }
    return count;
}

}  // namespace attn::rowsel
