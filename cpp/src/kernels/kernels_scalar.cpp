// Scalar reference kernels (see kernels.hpp). Accumulate in double: these are the oracle.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attn/kernels.hpp"
#include "attn/row_select.hpp"

namespace attn::kernels {
namespace {

void scores_qk(const float* q, const float* k, int n_q, int n_k, int d, float scale, float* scores) {
    for (int i = 0; i < n_q; ++i) {
        const float* qi = q + static_cast<std::size_t>(i) * d;
        for (int j = 0; j < n_k; ++j) {
            const float* kj = k + static_cast<std::size_t>(j) * d;
            double acc = 0.0;
            for (int c = 0; c < d; ++c) acc += static_cast<double>(qi[c]) * kj[c];
            scores[static_cast<std::size_t>(i) * n_k + j] = static_cast<float>(acc * scale);
        }
    }
}

void softmax_row(const float* s, const std::uint8_t* visible, int n, const RowParams& rp, float* a, RowMetrics& m) {
    const double tau = rp.tau;
    const int top_k = rp.top_k;
    const int sink_keys = rp.sink_keys;
    const double neg_inf = -std::numeric_limits<double>::infinity();

    // Omega_t: allowed by the mask and not a -inf score. Max over Omega_t only, so a masked NaN or
    // a padding lane can never reach it.
    double max_s = neg_inf;
    int count = 0;
    for (int j = 0; j < n; ++j) {
        if ((visible && !visible[j]) || s[j] == -std::numeric_limits<float>::infinity()) continue;
        max_s = std::max(max_s, static_cast<double>(s[j]));
        ++count;
    }
    m = RowMetrics{};
    m.visible = count;
    if (count == 0) {
        std::fill(a, a + n, 0.0f);
        m.set_empty();
        return;
    }

    // e_j = exp(x_j), x_j = (s_j - max) / tau <= 0, so e_j is in (0, 1] and Z >= 1.
    std::vector<double> e(static_cast<std::size_t>(n), 0.0);
    double z = 0.0, ex = 0.0;
    for (int j = 0; j < n; ++j) {
        if ((visible && !visible[j]) || s[j] == -std::numeric_limits<float>::infinity()) continue;
        const double x = (static_cast<double>(s[j]) - max_s) / tau;
        const double ej = std::exp(x);
        e[static_cast<std::size_t>(j)] = ej;
        z += ej;
        if (ej > 0.0) ex += ej * x;  // 0 * (-inf) terms are 0 ln 0 = 0
    }
    double row_sum = 0.0, sink = 0.0;
    std::vector<double> p;
    p.reserve(static_cast<std::size_t>(count));
    for (int j = 0; j < n; ++j) {
        const double pj = e[static_cast<std::size_t>(j)] / z;
        a[j] = static_cast<float>(pj);
        if ((!visible || visible[j]) && s[j] != -std::numeric_limits<float>::infinity()) p.push_back(pj);
        row_sum += pj;
        if (j < sink_keys) sink += pj;
    }
    // H = -sum p ln p = -sum (e/Z)(x - ln Z) = ln Z - sum(e x)/Z. Clamp the rounding below 0.
    const double h = std::max(0.0, std::log(z) - ex / z);
    // Order statistics in expected O(n): the top-k mass and the (1-delta) support size, the latter
    // relative to the row's own sum so rounding cannot push it to every key.
    const double topk = rowsel::top_k_mass(p, top_k);
    m.support = rowsel::support_size(p, (1.0 - rp.delta) * row_sum);

    m.entropy = h;
    m.normalized_entropy = count > 1 ? h / std::log(static_cast<double>(count)) : 0.0;
    m.n_eff = std::exp(h);
    m.top_k_mass = topk;
    m.sink_mass = sink;
    m.row_sum = row_sum;
    finish_row_metrics(a, n, m);
}

void weighted_sum(const float* a, const float* v, int n_q, int n_k, int d_v, float* out) {
    std::vector<double> acc(static_cast<std::size_t>(d_v));
    for (int i = 0; i < n_q; ++i) {
        std::fill(acc.begin(), acc.end(), 0.0);
        const float* ai = a + static_cast<std::size_t>(i) * n_k;
        for (int j = 0; j < n_k; ++j) {
            if (ai[j] == 0.0f) continue;  // structural zeros: masked keys add nothing
            const float* vj = v + static_cast<std::size_t>(j) * d_v;
            for (int c = 0; c < d_v; ++c) acc[static_cast<std::size_t>(c)] += ai[j] * static_cast<double>(vj[c]);
        }
        float* oi = out + static_cast<std::size_t>(i) * d_v;
        for (int c = 0; c < d_v; ++c) oi[c] = static_cast<float>(acc[static_cast<std::size_t>(c)]);
    }
}

}  // namespace

const KernelSet& scalar() {
    static const KernelSet set{"scalar", &scores_qk, &softmax_row, &weighted_sum};
    return set;
}

}  // namespace attn::kernels
