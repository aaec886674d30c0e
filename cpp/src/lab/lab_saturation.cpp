// Lab view "saturation": how far the selected row's softmax is into its flat (saturated) region.
// The two-token curves a_1 = sigmoid(Delta/tau) and H(Delta/tau) with the row's own gap marked,
// its Jacobian, dH/dz per key and dH/dtau (calculus.hpp; docs/MATH.md "Calculus"; docs/lab.md).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "attn/calculus.hpp"
#include "attn/normalisers.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

namespace {

constexpr int kCurvePoints = 101;

json null_array() {
    return json::array();
}

}  // namespace

/// Params: gapRange in [0.5, 100] (default 10): the curves span x = Delta/tau in [-gapRange,
/// gapRange]; jacobianKeys integer in [1, 64] (default 16): the Jacobian block is given for at
/// most this many visible keys (those of largest weight). Output: docs/lab.md, "Saturation".
json saturation(const Input& in) {
    const double range = number(in.params, "gapRange", 10.0, 0.5, 100.0);
    const int max_keys = integer(in.params, "jacobianKeys", 16, 1, 64);
    const Result& res = in.result;
    const double tau = in.problem.tau;
    const int n = res.n_k;
    const int row = in.state.at("row").get<int>();

    json curve_x = json::array(), curve_a = json::array(), curve_h = json::array();
    for (int i = 0; i < kCurvePoints; ++i) {
        const double x = -range + 2.0 * range * i / (kCurvePoints - 1);
        curve_x.push_back(x);
        curve_a.push_back(two_token_weight(x));
        curve_h.push_back(two_token_entropy(x));
    }
    json out = {{"row", row},
                {"tau", tau},
                {"gapRange", range},
                {"jacobianKeys", max_keys},
                {"curve", {{"x", curve_x}, {"a1", curve_a}, {"entropy", curve_h}}}};

    // The row's visible keys, their scores before tau and their softmax in double.
    const std::uint8_t* vis = res.visible.data() + static_cast<std::size_t>(row) * n;
    const float* s = res.scores.row(row);
    const NormalisedRow soft = softmax_row(s, n, tau, vis);
    std::vector<int> keys;
    std::vector<double> p, z;
    for (int j = 0; j < n; ++j)
        if (vis[j]) {
            keys.push_back(j);
            p.push_back(soft.weights[static_cast<std::size_t>(j)]);
            z.push_back(static_cast<double>(s[j]));
        }
    const int m = static_cast<int>(keys.size());
    out["empty"] = m == 0;
    out["visible"] = m;
    out["keys"] = keys;
    out["weights"] = p;
    if (m == 0) {
        for (const char* f : {"gap", "x", "a1", "twoTokenEntropy", "topKeys", "topWeight", "entropy", "dHdtau"})
            out[f] = nullptr;
        out["inRange"] = false;
        out["dHdz"] = null_array();
        out["jacobian"] = {{"keys", null_array()},
                           {"matrix", null_array()},
                           {"complete", true},
                           {"maxAbs", nullptr},
                           {"frobenius", nullptr}};
        return out;
    }

    // Largest and second-largest visible score (ties: the lower key index first).
    std::vector<int> order(static_cast<std::size_t>(m));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return z[a] > z[b]; });
    out["topWeight"] = p[static_cast<std::size_t>(order[0])];
    out["entropy"] = row_entropy(soft);
    if (m >= 2) {
        const double gap = z[order[0]] - z[order[1]];
        const double x = gap / tau;
        out["gap"] = gap;
        out["x"] = x;
        out["a1"] = two_token_weight(x);
        out["twoTokenEntropy"] = two_token_entropy(x);
        out["topKeys"] = {keys[order[0]], keys[order[1]]};
        out["inRange"] = std::fabs(x) <= range;
    } else {  // one visible key: no gap, a point mass
        for (const char* f : {"gap", "x", "a1", "twoTokenEntropy"}) out[f] = nullptr;
        out["topKeys"] = {keys[order[0]]};
        out["inRange"] = false;
    }
    out["dHdz"] = entropy_gradient(p, tau);
    out["dHdtau"] = metric(entropy_tau_derivative(p, z, tau));

    // Norms of the whole Jacobian, without storing it: J_ab = (p_a [a=b] - p_a p_b) / tau.
    double max_abs = 0, frob = 0;
    for (int a = 0; a < m; ++a)
        for (int b = 0; b < m; ++b) {
            const double j = ((a == b ? p[a] : 0.0) - p[a] * p[b]) / tau;
            max_abs = std::max(max_abs, std::fabs(j));
            frob += j * j;
        }
    // The block shown: every visible key, or the max_keys of largest weight, in key order.
    std::vector<int> pick(static_cast<std::size_t>(m));
    std::iota(pick.begin(), pick.end(), 0);
    const bool complete = m <= max_keys;
    if (!complete) {
        std::stable_sort(pick.begin(), pick.end(), [&](int a, int b) { return p[a] > p[b]; });
        pick.resize(static_cast<std::size_t>(max_keys));
        std::sort(pick.begin(), pick.end());
    }
    std::vector<double> sub_p;
    json sub_keys = json::array();
    for (int i : pick) {
        sub_p.push_back(p[static_cast<std::size_t>(i)]);
        sub_keys.push_back(keys[static_cast<std::size_t>(i)]);
    }
    const std::vector<double> jac = softmax_jacobian(sub_p, tau);
    json matrix = json::array();
    const std::size_t k = sub_p.size();
    for (std::size_t a = 0; a < k; ++a)
        matrix.push_back(std::vector<double>(jac.begin() + a * k, jac.begin() + (a + 1) * k));
    out["jacobian"] = {{"keys", sub_keys},
                       {"matrix", matrix},
                       {"complete", complete},
                       {"maxAbs", max_abs},
                       {"frobenius", std::sqrt(frob)}};
    return out;
}

}  // namespace attn::lab
