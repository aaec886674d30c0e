// Lab view "routing": routing width of the selected head (routing.hpp; docs/lab.md "Routing
// width"; the seed article on attention entropy and dynamic topology).
//
// Per row the (1-delta) support S_t with the bound on the output it ignores, the tunnel-vision
// indicator against an evidence distribution beta; the head as a graph (edges above a threshold,
// N_eff per query); the entropy-regulariser values.
#include <cmath>
#include <limits>

#include "attn/routing.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

[[noreturn]] void bad(const char* name, const std::string& what) {
    const std::string field = std::string("lab.params.") + name;
    throw Error(ErrorCode::kInvalidValue, field, field + " " + what);
}

/// params.beta: absent/null = uniform (empty vector), else n_k finite numbers >= 0, sum > 0.
std::vector<double> beta_param(const json& params, int n_k) {
    auto it = params.find("beta");
    if (it == params.end() || it->is_null()) return {};
    if (!it->is_array()) bad("beta", "must be a list of " + std::to_string(n_k) + " numbers >= 0 (one per key)");
    if (static_cast<int>(it->size()) != n_k)
        bad("beta",
            "must have one number per key: " + std::to_string(n_k) + " (got " + std::to_string(it->size()) + ")");
    std::vector<double> beta;
    double sum = 0;
    for (const auto& x : *it) {
        if (!x.is_number()) bad("beta", "must hold numbers only");
        const double v = x.get<double>();
        if (!std::isfinite(v) || v < 0) bad("beta", "must hold finite numbers >= 0 (got " + x.dump() + ")");
        beta.push_back(v);
        sum += v;
    }
    if (!(sum > 0)) bad("beta", "must have a positive sum (evidence somewhere)");
    return beta;
}

}  // namespace

/// Output fields: docs/lab.md, "Routing width".
json routing(const Input& in) {
    const double delta = number(in.params, "delta", 0.1, 0, 1);
    if (!(delta < 1)) bad("delta", "must be < 1 (delta = 1 would ignore every key)");
    const double threshold = number(in.params, "threshold", 0.1, 0, 1);
    const double alpha = number(in.params, "tunnelAlpha", 0.3, 0, 1);
    const double gamma = number(in.params, "tunnelGamma", 0.8, 0, 1);
    const double target = number(in.params, "target", std::log(2.0), 0, 100);
    const Result& r = in.result;
    std::vector<double> beta = beta_param(in.params, r.n_k);
    const bool uniform = beta.empty();
    if (uniform) beta.assign(static_cast<std::size_t>(r.n_k), 1.0);

    const bool has_v = r.d_v > 0 && !in.problem.v.empty();
    const double B = has_v ? routing::max_value_norm(in.problem.v) : kNaN;

    json rows = json::array();
    std::vector<double> entropies;
    int tunnels = 0, defined_tunnel = 0;
    for (int t = 0; t < r.n_q; ++t) {
        const RowMetrics& m = r.rows[static_cast<std::size_t>(t)];
        const std::uint8_t* vis = r.visible.data() + static_cast<std::size_t>(t) * r.n_k;
        entropies.push_back(m.empty ? kNaN : m.entropy);
        const double hb = routing::evidence_normalized_entropy(beta, vis, r.n_k);
        const routing::TunnelVision tv =
            routing::tunnel_vision(m.empty ? kNaN : m.normalized_entropy, hb, alpha, gamma);
        json tj = tv.defined
                      ? json{{"defined", true}, {"narrow", tv.narrow}, {"broad", tv.broad}, {"verdict", tv.tunnel}}
                      : json{{"defined", false}, {"narrow", nullptr}, {"broad", nullptr}, {"verdict", nullptr}};
        if (tv.defined) ++defined_tunnel, tunnels += tv.tunnel ? 1 : 0;
        if (m.empty) {
            rows.push_back({{"row", t},
                            {"empty", true},
                            {"visible", 0},
                            {"support", json::array()},
                            {"supportSize", nullptr},
                            {"supportMass", nullptr},
                            {"ignoredMass", nullptr},
                            {"boundDelta", nullptr},
                            {"boundMass", nullptr},
                            {"ignoredNorm", nullptr},
                            {"entropy", nullptr},
                            {"normalizedEntropy", nullptr},
                            {"nEff", nullptr},
                            {"evidenceEntropy", metric(hb)},
                            {"tunnel", tj}});
            continue;
        }
        const routing::SupportSet s = routing::support_set(r.weights.row(t), r.n_k, delta);
        const double ignored = has_v ? routing::ignored_contribution(r.weights.row(t), in.problem.v, s.keys) : kNaN;
        rows.push_back({{"row", t},
                        {"empty", false},
                        {"visible", m.visible},
                        {"support", s.keys},
                        {"supportSize", s.keys.size()},
                        {"supportMass", s.mass},
                        {"ignoredMass", s.ignored_mass},
                        {"boundDelta", metric(delta * B)},
                        {"boundMass", metric(s.ignored_mass * B)},
                        {"ignoredNorm", metric(ignored)},
                        {"entropy", metric(m.entropy)},
                        {"normalizedEntropy", metric(m.normalized_entropy)},
                        {"nEff", metric(m.n_eff)},
                        {"evidenceEntropy", metric(hb)},
                        {"tunnel", tj}});
    }

    // The graph: query nodes with N_eff, key nodes with the weight they receive, edges > threshold.
    json qnodes = json::array(), knodes = json::array(), edges = json::array();
    for (int t = 0; t < r.n_q; ++t) {
        const RowMetrics& m = r.rows[static_cast<std::size_t>(t)];
        qnodes.push_back({{"index", t}, {"nEff", metric(m.empty ? kNaN : m.n_eff)}, {"empty", m.empty}});
    }
    for (int j = 0; j < r.n_k; ++j) {
        double in_w = 0;
        for (int t = 0; t < r.n_q; ++t) in_w += r.weights(t, j);
        knodes.push_back({{"index", j}, {"inWeight", in_w}});
    }
    for (const routing::Edge& e : routing::graph_edges(r, threshold))
        edges.push_back({{"query", e.query}, {"key", e.key}, {"weight", e.weight}});

    const json& tokens = in.state.at("tokens");
    const bool self_attention = r.n_q == r.n_k && tokens.at("queries") == tokens.at("keys");
    const routing::Regularisers reg = routing::regularisers(entropies, target);
    return {{"head", in.head},
            {"delta", delta},
            {"threshold", threshold},
            {"tunnelAlpha", alpha},
            {"tunnelGamma", gamma},
            {"target", target},
            {"betaUniform", uniform},
            {"beta", beta},
            {"valueBound", metric(B)},
            {"rows", rows},
            {"tunnelRows", tunnels},
            {"tunnelDefinedRows", defined_tunnel},
            {"graph",
             {{"selfAttention", self_attention},
              {"queries", qnodes},
              {"keys", knodes},
              {"edges", edges},
              {"edgeCount", edges.size()}}},
            {"regularisers",
             {{"rows", reg.rows},
              {"minimise", metric(reg.minimise)},
              {"maximise", metric(reg.maximise)},
              {"target", metric(reg.target)},
              {"targetEntropy", target}}}};
}

}  // namespace attn::lab
