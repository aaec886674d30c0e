// Lab view "spectral": the selected head's weights A as a matrix (stationary distribution,
// singular values, effective and threshold rank, spectral entropy; MATH.md "Spectral") and the
// redundancy of every pair of heads of the state, keep-sink and drop-sink (spectral.hpp).
#include <cmath>

#include "attn/spectral.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

namespace {

/// Heads larger than this are refused (SVD O(n^3), power iteration O(n^2) per step).
constexpr int kSpectralMaxTokens = 1024;

json numbers(const std::vector<double>& xs) {
    json out = json::array();
    for (double x : xs) out.push_back(metric(x));
    return out;
}

}  // namespace

/// Output (docs/lab.md, "Spectral"):
/// {"head", "nQ", "nK", "epsilon", "emptyRows",
///  "stationary": {"defined", "reason", "pi", "steps", "squarings", "change", "residual",
///                 "converged", "tolerance", "plainSteps", "maxSteps"},
///  "sigma", "effectiveRank", "thresholdRank", "spectralEntropy",
///  "redundancy": {"heads": [{"head", "name"}],
///                 "keep"|"drop": {"cosine", "jsd", "rows", "empty", "sinkOnly"}  (heads x heads)}}
json spectral(const Input& in) {
    double eps = number(in.params, "epsilon", 0.01, 0.0, 1.0);
    if (!(eps > 0 && eps < 1))
        throw Error(ErrorCode::kInvalidValue, "lab.params.epsilon",
                    "lab.params.epsilon must be strictly between 0 and 1 (got " + json(eps).dump() + ")");
    const Result& r = in.result;
    if (r.n_q > kSpectralMaxTokens || r.n_k > kSpectralMaxTokens)
        throw Error(ErrorCode::kTooLarge, "lab.view",
                    "the spectral view analyses heads of at most " + std::to_string(kSpectralMaxTokens) +
                        " queries and keys (this head is " + std::to_string(r.n_q) + " x " + std::to_string(r.n_k) +
                        ")");

    const StochasticMatrix a = row_stochastic(r.weights);
    const Stationary st = stationary(a);
    const std::vector<double> sigma = singular_values(a);

    json stationary_json = {
        {"defined", st.defined},
        {"reason", st.defined ? json(nullptr) : json(st.undefined_reason)},
        {"pi", st.defined ? numbers(st.pi) : json(nullptr)},
        {"steps", st.steps},
        {"squarings", st.squarings},
        {"change", metric(st.change)},
        {"residual", metric(st.residual)},
        {"converged", st.converged},
        {"tolerance", kStationaryTolerance},
        {"plainSteps", std::ldexp(1.0, kStationaryPlainDoublings)},
        {"maxSteps", std::ldexp(1.0, kStationaryMaxDoublings)},
    };

    // Redundancy: every head of the state with the selected head's mask and temperature.
    std::vector<StochasticMatrix> heads;
    json head_list = json::array();
    for (int h = 0; h < in.heads; ++h) {
        heads.push_back(h == in.head ? a : row_stochastic(in.result_of(h).weights));
        head_list.push_back({{"head", h}, {"name", in.state.at("heads").at(h).value("name", "")}});
    }
    auto table = [&](SinkConvention c) {
        json cosine = json::array(), jsd = json::array(), rows = json::array(), empty = json::array(),
             sink_only = json::array();
        for (int x = 0; x < in.heads; ++x) {
            json cr = json::array(), jr = json::array(), rr = json::array(), er = json::array(), sr = json::array();
            for (int y = 0; y < in.heads; ++y) {
                const HeadSimilarity s =
                    compare_heads(heads[static_cast<std::size_t>(x)], heads[static_cast<std::size_t>(y)], c);
                cr.push_back(metric(s.cosine));
                jr.push_back(metric(s.jsd));
                rr.push_back(s.rows);
                er.push_back(s.empty);
                sr.push_back(s.sink_only);
            }
            cosine.push_back(cr);
            jsd.push_back(jr);
            rows.push_back(rr);
            empty.push_back(er);
            sink_only.push_back(sr);
        }
        return json{{"cosine", cosine}, {"jsd", jsd}, {"rows", rows}, {"empty", empty}, {"sinkOnly", sink_only}};
    };

    return {{"head", in.head},
            {"nQ", r.n_q},
            {"nK", r.n_k},
            {"epsilon", eps},
            {"emptyRows", a.empty_rows},
            {"stationary", stationary_json},
            {"sigma", numbers(sigma)},
            {"effectiveRank", metric(effective_rank(sigma))},
            {"thresholdRank", threshold_rank(sigma, eps)},
            {"spectralEntropy", metric(spectral_entropy(sigma))},
            {"redundancy",
             {{"heads", head_list}, {"keep", table(SinkConvention::keep)}, {"drop", table(SinkConvention::drop)}}}};
}

}  // namespace attn::lab
