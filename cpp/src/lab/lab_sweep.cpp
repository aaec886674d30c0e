// Lab view "sweep": the lesson's parameter experiment (seed lesson 003, "参数实验"): the unit
// query q(theta) = (cos theta, sin theta), theta from 0 to pi/2, against the selected head's keys,
// with the selected row's mask and the state's scale, at several temperatures; every visible key's
// weight versus theta (lesson.hpp angle_sweep; docs/lab.md "Angle sweep").
#include <cmath>
#include <string>
#include <vector>

#include "attn/lesson.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr std::size_t kMaxTaus = 4;

/// Params "taus": absent or null = {0.5, 1, 2}; else 1 to 4 numbers, each finite, > 0, <= kMaxTau.
std::vector<double> read_taus(const json& params) {
    const auto it = params.find("taus");
    if (it == params.end() || it->is_null()) return {0.5, 1.0, 2.0};
    auto bad = [&](const std::string& what) {
        throw Error(ErrorCode::kInvalidValue, "lab.params.taus",
                    "lab.params.taus " + what + " (got " + it->dump() + ")");
    };
    if (!it->is_array() || it->empty() || it->size() > kMaxTaus) bad("must be a list of 1 to 4 temperatures");
    std::vector<double> taus;
    for (const json& t : *it) {
        if (!t.is_number()) bad("must hold numbers");
        const double x = t.get<double>();
        if (!std::isfinite(x) || x <= 0 || x > kMaxTau) bad("must hold temperatures with 0 < tau <= 1000");
        taus.push_back(x);
    }
    return taus;
}

json nested(const std::vector<std::vector<double>>& m) {
    json out = json::array();
    for (const auto& r : m) out.push_back(r);
    return out;
}

/// Weights of the visible keys at one angle, one list per tau.
json weights_per_tau(const SweepKeys& keys, const std::vector<int>& vis, const std::vector<double>& taus, double theta,
                     double norm = 1.0) {
    json out = json::array();
    for (double tau : taus) {
        const NormalisedRow r = angle_weights(keys, theta, tau / norm);
        json w = json::array();
        for (int j : vis) w.push_back(r.weights[static_cast<std::size_t>(j)]);
        out.push_back(w);
    }
    return out;
}

}  // namespace

/// Params: taus (1 to 4 temperatures, default [0.5, 1, 2]); steps (integer in [2, 721], default
/// 91: every degree). Output: docs/lab.md, "Angle sweep".
json sweep(const Input& in) {
    const std::vector<double> taus = read_taus(in.params);
    const int steps = integer(in.params, "steps", 91, 2, 721);
    const Problem& p = in.problem;
    const Result& res = in.result;
    const int row = in.state.at("row").get<int>();
    const int n = res.n_k;

    json out = {{"row", row},
                {"mode", to_string(p.mode)},
                {"taus", taus},
                {"steps", steps},
                {"stateTau", p.tau},
                {"supported", false},
                {"reason", nullptr},
                {"dK", nullptr},
                {"scale", nullptr},
                {"empty", false},
                {"visible", 0},
                {"keys", json::array()},
                {"masked", json::array()},
                {"thetas", json::array()},
                {"curves", json::array()},
                {"table", json::array()},
                {"query", nullptr}};
    std::vector<int> vis, masked;
    for (int j = 0; j < n; ++j) (res.visible[static_cast<std::size_t>(row) * n + j] ? vis : masked).push_back(j);
    out["masked"] = masked;
    out["visible"] = static_cast<int>(vis.size());
    out["empty"] = vis.empty();
    if (p.mode != Mode::qkv) {
        out["reason"] =
            std::string(
                "the sweep rotates a query against the keys, so it needs Q and K (mode qkv); this state gives ") +
            to_string(p.mode);
        return out;
    }
    const int d_k = p.k.cols;
    out["dK"] = d_k;
    out["scale"] = res.scale;
    if (d_k < 2) {
        out["reason"] = "q(theta) = (cos theta, sin theta) needs keys of dimension 2 or more; these have d_k = 1";
        return out;
    }
    out["supported"] = true;

    SweepKeys keys;
    keys.n_k = n;
    keys.d_k = d_k;
    keys.keys.assign(p.k.data.begin(), p.k.data.end());
    keys.visible.assign(res.visible.begin() + static_cast<std::ptrdiff_t>(row) * n,
                        res.visible.begin() + static_cast<std::ptrdiff_t>(row + 1) * n);
    keys.scale = res.scale;
    const AngleSweep sw = angle_sweep(keys, taus, steps);
    out["thetas"] = sw.thetas;
    out["keys"] = sw.keys;
    if (sw.empty) return out;

    json curves = json::array();
    for (std::size_t t = 0; t < taus.size(); ++t)
        curves.push_back({{"tau", taus[t]}, {"weights", nested(sw.weights[t])}});
    out["curves"] = curves;

    json table = json::array();
    const std::pair<double, const char*> at[] = {{0.0, "0"}, {kPi / 4, "π/4"}, {kPi / 2, "π/2"}};
    for (const auto& [theta, label] : at)
        table.push_back({{"theta", theta}, {"label", label}, {"weights", weights_per_tau(keys, sw.keys, taus, theta)}});
    out["table"] = table;

    // The selected row's own query, when it lives in the same plane (d_k = 2).
    if (d_k == 2) {
        const double q0 = p.q(row, 0), q1 = p.q(row, 1);
        const double norm = std::hypot(q0, q1);
        if (norm > 0) {
            const double theta = std::atan2(q1, q0);
            const bool in_range = theta >= -1e-12 && theta <= kPi / 2 + 1e-12;
            out["query"] = {{"q", {q0, q1}},
                            {"theta", theta},
                            {"degrees", theta * 180 / kPi},
                            {"norm", norm},
                            {"inRange", in_range},
                            {"weights", weights_per_tau(keys, sw.keys, taus, theta)},
                            {"own", weights_per_tau(keys, sw.keys, taus, theta, norm)}};
        } else {
            out["query"] = {{"q", {q0, q1}},    {"theta", nullptr},   {"degrees", nullptr}, {"norm", 0.0},
                            {"inRange", false}, {"weights", nullptr}, {"own", nullptr}};
        }
    }
    return out;
}

}  // namespace attn::lab
