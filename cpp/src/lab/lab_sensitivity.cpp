// Lab view "sensitivity": the lesson's question "does the largest weight mark the value whose
// change moves the output most?" for the selected row: per visible key its weight, the size of
// d o/d v_j, d o/d s_j, d o/d k_j and of the exact shift when the token is deleted, and which key
// leads under each (lesson.hpp row_sensitivity; docs/lab.md "Sensitivity").
#include <cmath>
#include <string>
#include <vector>

#include "attn/lab.hpp"
#include "attn/lesson.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

namespace {

json numbers(const std::vector<double>& x) {
    json out = json::array();
    for (double v : x) out.push_back(metric(v));
    return out;
}

/// True when the two leader sets share a key; null when either is undefined (empty).
json agrees(const std::vector<int>& a, const std::vector<int>& b) {
    if (a.empty() || b.empty()) return nullptr;
    for (int x : a)
        for (int y : b)
            if (x == y) return true;
    return false;
}

}  // namespace

/// No params. Output: docs/lab.md, "Sensitivity".
json sensitivity(const Input& in) {
    const Problem& p = in.problem;
    const Result& res = in.result;
    const int row = in.state.at("row").get<int>();
    const int n = res.n_k;
    const bool qkv = p.mode == Mode::qkv;

    json out = {{"row", row},
                {"mode", to_string(p.mode)},
                {"tau", p.tau},
                {"scale", qkv ? json(res.scale) : json(nullptr)},
                {"dV", p.v.cols},
                {"dK", qkv ? json(p.k.cols) : json(nullptr)},
                {"supported", false},
                {"reason", nullptr},
                {"empty", false},
                {"visible", 0},
                {"queryNorm", nullptr},
                {"output", json::array()},
                {"keys", json::array()},
                {"masked", json::array()},
                {"leaders",
                 {{"weight", json::array()},
                  {"value", json::array()},
                  {"score", json::array()},
                  {"key", json::array()},
                  {"deletion", json::array()}}},
                {"agrees", {{"value", nullptr}, {"score", nullptr}, {"key", nullptr}, {"deletion", nullptr}}}};
    std::vector<int> masked;
    int visible = 0;
    for (int j = 0; j < n; ++j) {
        if (res.visible[static_cast<std::size_t>(row) * n + j])
            ++visible;
        else
            masked.push_back(j);
    }
    out["masked"] = masked;
    out["visible"] = visible;
    out["empty"] = visible == 0;
    if (p.v.empty() || p.v.cols == 0) {
        out["reason"] = "the output o = sum_j a_j v_j needs values V; this head has none";
        return out;
    }
    out["supported"] = true;

    RowProblem rp;
    rp.n_k = n;
    rp.d_v = p.v.cols;
    rp.tau = p.tau;
    rp.visible.assign(res.visible.begin() + static_cast<std::ptrdiff_t>(row) * n,
                      res.visible.begin() + static_cast<std::ptrdiff_t>(row + 1) * n);
    rp.values.assign(p.v.data.begin(), p.v.data.end());
    rp.scores.assign(static_cast<std::size_t>(n), 0.0);
    if (qkv) {
        // Scores recomputed in double from Q and K, so the derivatives are those of the formula.
        const int d = p.q.cols;
        rp.query.assign(p.q.row(row), p.q.row(row) + d);
        rp.scale = res.scale;
        for (int j = 0; j < n; ++j) {
            if (!rp.visible[static_cast<std::size_t>(j)]) continue;
            double s = 0;
            for (int c = 0; c < d; ++c) s += rp.query[static_cast<std::size_t>(c)] * static_cast<double>(p.k(j, c));
            rp.scores[static_cast<std::size_t>(j)] = s * res.scale;
        }
        double qn = 0;
        for (double x : rp.query) qn += x * x;
        out["queryNorm"] = std::sqrt(qn);
    } else {
        for (int j = 0; j < n; ++j)
            if (rp.visible[static_cast<std::size_t>(j)]) rp.scores[static_cast<std::size_t>(j)] = res.scores(row, j);
    }
    const RowSensitivity s = row_sensitivity(rp);
    if (s.empty) return out;
    out["output"] = s.output;
    json keys = json::array();
    for (const KeySensitivity& k : s.keys)
        keys.push_back({{"key", k.key},
                        {"weight", k.weight},
                        {"distance", k.distance},
                        {"valueEffect", k.value_effect},
                        {"scoreEffect", k.score_effect},
                        {"keyEffect", metric(k.key_effect)},
                        {"deletion", metric(k.deletion)},
                        {"deletionShift", k.deletion_shift.empty() ? json(nullptr) : numbers(k.deletion_shift)}});
    out["keys"] = keys;
    const Leaders& L = s.leaders;
    out["leaders"] = {
        {"weight", L.weight}, {"value", L.value}, {"score", L.score}, {"key", L.key}, {"deletion", L.deletion}};
    out["agrees"] = {{"value", agrees(L.weight, L.value)},
                     {"score", agrees(L.weight, L.score)},
                     {"key", agrees(L.weight, L.key)},
                     {"deletion", agrees(L.weight, L.deletion)}};
    return out;
}

}  // namespace attn::lab

namespace attn {

std::vector<std::string> lab_core_views() {
    return {"sensitivity"};
}

std::string lab_core_state_json(const std::string& state_json) {
    return lab::run_view(state_json, [](const std::string& view, const lab::Input& in) -> lab::json {
        if (view == "sensitivity") return lab::sensitivity(in);
        throw Error(ErrorCode::kBadState, "lab.view",
                    "lab.view \"" + view + "\" is not in this module: load the lab module (docs/architecture.md)");
    });
}

}  // namespace attn
