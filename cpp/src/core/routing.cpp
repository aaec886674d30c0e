// Routing width (routing.hpp): support sets, the ignored-output bound, the dynamic graph, tunnel
// vision and entropy regularisers.
#include "attn/routing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "attn/error.hpp"
#include "attn/row_select.hpp"

namespace attn::routing {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

SupportSet support_set(const float* w, int n, double delta) {
    if (!(delta >= 0.0 && delta < 1.0)) throw Error(ErrorCode::kInvalidValue, "delta", "delta must be in [0, 1)");
    SupportSet s;
    double row_sum = 0;
    for (int j = 0; j < n; ++j) row_sum += w[j];
    if (!(row_sum > 0)) return s;
    // The count exactly as the row metrics take it (kernels_scalar.cpp): float copy, same need.
    std::vector<float> scratch(w, w + n);
    const int count = rowsel::support_size(scratch, (1.0 - delta) * row_sum);
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return w[a] > w[b]; });
    s.keys.assign(order.begin(), order.begin() + count);
    std::vector<char> in(static_cast<std::size_t>(n), 0);
    for (int k : s.keys) in[static_cast<std::size_t>(k)] = 1;
    for (int j = 0; j < n; ++j) (in[static_cast<std::size_t>(j)] ? s.mass : s.ignored_mass) += w[j];
    return s;
}

double max_value_norm(const Matrix& v) {
    double b = 0;
    for (int i = 0; i < v.rows; ++i) {
        double ss = 0;
        for (int d = 0; d < v.cols; ++d) ss += static_cast<double>(v(i, d)) * v(i, d);
        b = std::max(b, std::sqrt(ss));
    }
    return b;
}

double ignored_contribution(const float* w, const Matrix& v, const std::vector<int>& support) {
    std::vector<char> in(static_cast<std::size_t>(v.rows), 0);
    for (int k : support) {
        if (k < 0 || k >= v.rows) throw Error(ErrorCode::kShapeMismatch, "support", "a support key is not a row of V");
        in[static_cast<std::size_t>(k)] = 1;
    }
    std::vector<double> acc(static_cast<std::size_t>(v.cols), 0.0);
    for (int i = 0; i < v.rows; ++i) {
        if (in[static_cast<std::size_t>(i)] || w[i] == 0) continue;
        for (int d = 0; d < v.cols; ++d) acc[static_cast<std::size_t>(d)] += static_cast<double>(w[i]) * v(i, d);
    }
    double ss = 0;
    for (double x : acc) ss += x * x;
    return std::sqrt(ss);
}

std::vector<Edge> graph_edges(const Result& r, double threshold) {
    std::vector<Edge> out;
    for (int t = 0; t < r.n_q; ++t)
        for (int j = 0; j < r.n_k; ++j)
            if (r.visible[static_cast<std::size_t>(t) * r.n_k + j] && r.weights(t, j) > threshold)
                out.push_back({t, j, r.weights(t, j)});
    return out;
}

double evidence_normalized_entropy(const std::vector<double>& beta, const std::uint8_t* visible_row, int n) {
    double mass = 0;
    int m = 0;
    for (int j = 0; j < n; ++j)
        if (visible_row[j]) ++m, mass += beta[static_cast<std::size_t>(j)];
    if (m == 0 || !(mass > 0)) return kNaN;
    if (m == 1) return 0.0;
    double h = 0;
    for (int j = 0; j < n; ++j)
        if (visible_row[j] && beta[static_cast<std::size_t>(j)] > 0) {
            const double p = beta[static_cast<std::size_t>(j)] / mass;
            h -= p * std::log(p);
        }
    return h / std::log(static_cast<double>(m));
}

TunnelVision tunnel_vision(double attention_h_norm, double evidence_h_norm, double alpha, double gamma) {
    TunnelVision t;
    if (std::isnan(attention_h_norm) || std::isnan(evidence_h_norm)) return t;
    t.defined = true;
    t.narrow = attention_h_norm < alpha;
    t.broad = evidence_h_norm > gamma;
    t.tunnel = t.narrow && t.broad;
    return t;
}

Regularisers regularisers(const std::vector<double>& entropies, double target_entropy) {
    Regularisers r;
    double sum = 0, sq = 0;
    for (double h : entropies) {
        if (std::isnan(h)) continue;
        ++r.rows;
        sum += h;
        sq += (h - target_entropy) * (h - target_entropy);
    }
    if (r.rows == 0) {
        r.minimise = r.maximise = r.target = kNaN;
        return r;
    }
    r.minimise = sum / r.rows;
    r.maximise = -r.minimise;
    r.target = sq / r.rows;
    return r;
}

}  // namespace attn::routing
