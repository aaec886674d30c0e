// Lab view "normalisers": softmax, sparsemax and alpha-entmax of the same scores S / tau, row by
// row, for the selected head (normalisers.hpp; docs/MATH.md "Normalisers"; docs/lab.md).
#include <cmath>
#include <vector>

#include "attn/normalisers.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

namespace {

/// The normalisers' summary of a row: entropy (nats), support and exact zeros; null when empty.
json summary_of(const NormalisedRow& r) {
    if (r.empty) return {{"entropy", nullptr}, {"support", nullptr}, {"zeros", nullptr}};
    return {{"entropy", metric(row_entropy(r))}, {"support", r.support}, {"zeros", r.zeros}};
}

/// The summary plus the weights (null where a key is masked) and the threshold.
json detail_of(const NormalisedRow& r, const std::uint8_t* visible, bool with_threshold) {
    json out = summary_of(r);
    json w = json::array();
    for (std::size_t j = 0; j < r.weights.size(); ++j) w.push_back(visible[j] ? json(r.weights[j]) : json(nullptr));
    out["weights"] = w;
    if (with_threshold) out["threshold"] = r.empty ? json(nullptr) : metric(r.threshold);
    return out;
}

/// The result's softmax weights of row i as a NormalisedRow (so the three are counted alike).
NormalisedRow softmax_of_result(const Result& res, int i) {
    NormalisedRow r;
    const std::uint8_t* vis = res.visible.data() + static_cast<std::size_t>(i) * res.n_k;
    r.weights.assign(static_cast<std::size_t>(res.n_k), 0.0);
    for (int j = 0; j < res.n_k; ++j) {
        if (!vis[j]) continue;
        ++r.visible;
        r.weights[static_cast<std::size_t>(j)] = res.weights(i, j);
        if (res.weights(i, j) > 0) ++r.support;
    }
    r.empty = r.visible == 0;
    r.zeros = r.visible - r.support;
    return r;
}

struct Totals {
    double entropy = 0;
    long support = 0, zeros = 0;
    void add(const NormalisedRow& r) {
        if (r.empty) return;
        entropy += row_entropy(r);
        support += r.support;
        zeros += r.zeros;
    }
    json to_json(int rows) const {
        const double nan = std::nan("");
        return {{"meanEntropy", metric(rows > 0 ? entropy / rows : nan)},
                {"meanSupport", metric(rows > 0 ? static_cast<double>(support) / rows : nan)},
                {"zeros", zeros}};
    }
};

}  // namespace

/// Params: alpha in [1, 4] (default 1.5). Output (docs/lab.md, "Normalisers"):
/// {"alpha", "tau", "method", "iterations", "row", "emptyRows",
///  "rows": [{"query", "empty", "visible", "softmax"|"sparsemax"|"entmax": {"entropy", "support", "zeros"}}],
///  "summary": {"softmax"|"sparsemax"|"entmax": {"meanEntropy", "meanSupport", "zeros"}},
///  "selected": {"query", "empty", "visible", "z": [S/tau | null],
///               "softmax"|"sparsemax"|"entmax": {"weights": [.. | null], "entropy", "support", "zeros"[,
///               "threshold"]}}}
json normalisers(const Input& in) {
    const double alpha = number(in.params, "alpha", 1.5, 1.0, 4.0);
    const Result& res = in.result;
    const double tau = in.problem.tau;
    const int n = res.n_k;
    const int selected = in.state.at("row").get<int>();

    const char* method = alpha == 1.0   ? "softmax"
                         : alpha == 1.5 ? "exact-1.5"
                         : alpha == 2.0 ? "sparsemax"
                                        : "bisection";
    json rows = json::array();
    json sel;
    Totals t_soft, t_sparse, t_ent;
    int empty_rows = 0;
    for (int i = 0; i < res.n_q; ++i) {
        const std::uint8_t* vis = res.visible.data() + static_cast<std::size_t>(i) * n;
        const float* z = res.scores.row(i);  // NaN where not visible: `vis` keeps it out
        const NormalisedRow soft = softmax_of_result(res, i);
        const NormalisedRow sparse = sparsemax_row(z, n, tau, vis);
        const NormalisedRow ent = entmax_row(z, n, alpha, tau, vis);
        if (soft.empty) ++empty_rows;
        t_soft.add(soft);
        t_sparse.add(sparse);
        t_ent.add(ent);
        rows.push_back({{"query", i},
                        {"empty", soft.empty},
                        {"visible", soft.visible},
                        {"softmax", summary_of(soft)},
                        {"sparsemax", summary_of(sparse)},
                        {"entmax", summary_of(ent)}});
        if (i == selected) {
            json zs = json::array();
            for (int j = 0; j < n; ++j) zs.push_back(vis[j] ? metric(static_cast<double>(z[j]) / tau) : json(nullptr));
            sel = {{"query", i},
                   {"empty", soft.empty},
                   {"visible", soft.visible},
                   {"z", zs},
                   {"softmax", detail_of(soft, vis, false)},
                   {"sparsemax", detail_of(sparse, vis, true)},
                   {"entmax", detail_of(ent, vis, true)}};
        }
    }
    const int live = res.n_q - empty_rows;
    return {
        {"alpha", alpha},
        {"tau", tau},
        {"method", method},
        {"iterations", std::string(method) == "bisection" ? kEntmaxBisectionIterations : 0},
        {"row", selected},
        {"emptyRows", empty_rows},
        {"rows", rows},
        {"summary",
         {{"softmax", t_soft.to_json(live)}, {"sparsemax", t_sparse.to_json(live)}, {"entmax", t_ent.to_json(live)}}},
        {"selected", sel}};
}

}  // namespace attn::lab
