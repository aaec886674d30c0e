// The row metrics read from a row's final weights (row_metrics.hpp finish_row_metrics): computed
// once here for every kernel path, after its fused pass (entropy, top-k mass, sink mass, row sum
// and support are computed there, each path its own way).
#include "attn/row_metrics.hpp"

#include <algorithm>

namespace attn::kernels {

void finish_row_metrics(const float* a, int n, RowMetrics& m) {
    // Weights are >= 0 (exactly 0 outside Omega_t) and never NaN. Four running maxima written as
    // `x > m ? x : m`, which compilers turn into vector max instructions (std::max's order of
    // operands keeps them scalar): this pass runs on every row.
    float m0 = 0.0f, m1 = 0.0f, m2 = 0.0f, m3 = 0.0f;
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        m0 = a[j] > m0 ? a[j] : m0;
        m1 = a[j + 1] > m1 ? a[j + 1] : m1;
        m2 = a[j + 2] > m2 ? a[j + 2] : m2;
        m3 = a[j + 3] > m3 ? a[j + 3] : m3;
    }
    for (; j < n; ++j) m0 = a[j] > m0 ? a[j] : m0;
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    m.max_weight = m2 > m0 ? m2 : m0;
}

}  // namespace attn::kernels
