// Lab view "linear": linear attention with elu+1 or ReLU random features beside the head's softmax
// attention on the same Q, K, V, mask, scale and temperature (linear_attention.hpp).
#include "attn/linear_attention.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

/// Output (docs/lab.md, "Linear attention"). A head not in mode qkv:
///   {"available": false, "mode", "reason"}.
/// Otherwise {"available": true, "head", "nQ", "nK", "dK", "dV", "feature", "features", "m", "seed",
///   "inputScale", "path", "softmax": {"weights", "output"}, "linear": {"weights", "output"},
///   "rows": [{"row", "empty", "degenerate", "denominator", "outputError", "relativeError",
///             "maxWeightError"}], "definedRows", "meanOutputError", "meanRelativeError",
///   "meanMaxWeightError"}; weights are null outside Omega_t and on undefined rows.
json linear(const Input& in) {
    const std::string feature = choice(in.params, "feature", "elu", {"elu", "relu"});
    const int features = integer(in.params, "features", 64, 1, kMaxRandomFeatures);
    const int seed = integer(in.params, "seed", 1, 0, 2147483647);
    const Problem& p = in.problem;
    const Result& r = in.result;
    if (p.mode != Mode::qkv)
        return {{"available", false},
                {"mode", to_string(p.mode)},
                {"reason",
                 std::string("linear attention maps each query and key through a feature map, so it needs Q, K and V; "
                             "this head is given as ") +
                     (p.mode == Mode::logits ? "logits" : "weights") + " (mode " + to_string(p.mode) + ")"}};

    LinearOptions o;
    o.feature = feature == "relu" ? FeatureMap::relu : FeatureMap::elu;
    o.features = features;
    o.seed = static_cast<std::uint64_t>(seed);
    const LinearAttention L = linear_attention(p, r, o);

    const int n_q = r.n_q, n_k = r.n_k, d_v = r.d_v;
    json soft_w = json::array(), soft_o = json::array(), lin_w = json::array(), lin_o = json::array(),
         rows = json::array();
    for (int t = 0; t < n_q; ++t) {
        const LinearRow& row = L.rows[static_cast<std::size_t>(t)];
        const bool defined = !row.empty && !row.degenerate;
        json sw = json::array(), lw = json::array(), so = json::array(), lo = json::array();
        for (int j = 0; j < n_k; ++j) {
            const bool vis = r.visible[static_cast<std::size_t>(t) * n_k + j] != 0;
            sw.push_back(vis ? json(static_cast<double>(r.weights(t, j))) : json(nullptr));
            lw.push_back(vis && defined ? json(L.weights[static_cast<std::size_t>(t) * n_k + j]) : json(nullptr));
        }
        for (int e = 0; e < d_v; ++e) {
            so.push_back(row.empty ? json(nullptr) : json(static_cast<double>(r.output(t, e))));
            lo.push_back(defined ? json(L.output[static_cast<std::size_t>(t) * d_v + e]) : json(nullptr));
        }
        soft_w.push_back(sw);
        lin_w.push_back(lw);
        soft_o.push_back(so);
        lin_o.push_back(lo);
        rows.push_back({{"row", t},
                        {"empty", row.empty},
                        {"degenerate", row.degenerate},
                        {"denominator", metric(row.denominator)},
                        {"outputError", metric(row.output_error)},
                        {"relativeError", metric(row.relative_error)},
                        {"maxWeightError", metric(row.max_weight_error)}});
    }
    return {{"available", true},
            {"head", in.head},
            {"nQ", n_q},
            {"nK", n_k},
            {"dK", p.q.cols},
            {"dV", d_v},
            {"feature", feature},
            {"features", features},
            {"m", L.m},
            {"seed", seed},
            {"inputScale", L.input_scale},
            {"path", L.path},
            {"softmax", {{"weights", soft_w}, {"output", soft_o}}},
            {"linear", {{"weights", lin_w}, {"output", lin_o}}},
            {"rows", rows},
            {"definedRows", L.defined_rows},
            {"meanOutputError", metric(L.mean_output_error)},
            {"meanRelativeError", metric(L.mean_relative_error)},
            {"meanMaxWeightError", metric(L.mean_max_weight_error)}};
}

}  // namespace attn::lab
