// The row metrics read from a row's final weights (row_metrics.hpp finish_row_metrics): computed
// once here for every kernel path, after its fused pass (entropy, top-k mass, sink mass, row sum
// and support are computed there, each path its own way).
#include "attn/row_metrics.hpp"

#include <algorithm>

namespace attn::kernels {

void finish_row_metrics(const float* a, int n, RowMetrics& m) {
    float largest = 0.0f;  // weights are >= 0; outside Omega_t exactly 0
    for (int j = 0; j < n; ++j) largest = std::max(largest, a[j]);
    m.max_weight = largest;
}

}  // namespace attn::kernels
