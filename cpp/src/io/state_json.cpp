// docs/state.md <-> attn::Problem / attn::Result. Reading only: the schema is checked by
// validated_state (state_schema.cpp), the problem by the core's validate().
#include "attn/state_json.hpp"

#include <cmath>
#include <vector>

#include "attn/metrics_io.hpp"
#include "attn/multihead.hpp"
#include <limits>
#include <nlohmann/json.hpp>

#include "attn/state_schema.hpp"
#include "state_schema_internal.hpp"

namespace attn {
namespace {

using json = nlohmann::ordered_json;

/// A validated number matrix (array of equal-length arrays; null = absent) in float32. `null`
/// cells are masked logits (-inf) where `null_is_masked`. Throws kInvalidValue for a number float32
/// cannot hold (the schema allows any finite double; the core computes in float32).
Matrix get_matrix(const json& j, const std::string& field, bool null_is_masked) {
    Matrix m;
    if (j.is_null()) return m;
    if (j.is_object()) {  // a packed matrix (state_schema.hpp PackedMatrices), as validated
        const PackedMatrices* packs = packed_matrices();
        m.rows = j.at("rows").get<int>();
        m.cols = j.at("cols").get<int>();
        const double* x = packs->data + j.at("\x01js:matrix").get<std::size_t>();
        m.data.resize(static_cast<std::size_t>(m.rows) * m.cols);
        for (std::size_t i = 0; i < m.data.size(); ++i) {
            if (std::fabs(x[i]) > std::numeric_limits<float>::max())
                throw Error(ErrorCode::kInvalidValue, field,
                            field + "[" + std::to_string(i / m.cols) + "][" + std::to_string(i % m.cols) +
                                "] = " + json(x[i]).dump() +
                                " is outside the float32 range (magnitude <= 3.4e38) the core computes in");
            m.data[i] = static_cast<float>(x[i]);
        }
        return m;
    }
    m.rows = static_cast<int>(j.size());
    m.cols = m.rows ? static_cast<int>(j[0].size()) : 0;
    m.data.reserve(static_cast<std::size_t>(m.rows) * m.cols);
    for (int i = 0; i < m.rows; ++i) {
        for (int c = 0; c < m.cols; ++c) {
            const json& x = j[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)];
            if (x.is_null() && null_is_masked) {
                m.data.push_back(-std::numeric_limits<float>::infinity());
                continue;
            }
            const double d = x.get<double>();
            if (std::fabs(d) > std::numeric_limits<float>::max())
                throw Error(ErrorCode::kInvalidValue, field,
                            field + "[" + std::to_string(i) + "][" + std::to_string(c) + "] = " + x.dump() +
                                " is outside the float32 range (magnitude <= 3.4e38) the core computes in");
            m.data.push_back(static_cast<float>(d));
        }
    }
    return m;
}

json matrix_json(const Matrix& m) {
    json out = json::array();
    for (int i = 0; i < m.rows; ++i) {
        json row = json::array();
        for (int j = 0; j < m.cols; ++j) {
            const float x = m(i, j);
            row.push_back(std::isfinite(x) ? json(static_cast<double>(x)) : json(nullptr));
        }
        out.push_back(std::move(row));
    }
    return out;
}

/// A parsed state: the selected head's Problem (in mode "x" the derived qkv problem of that head),
/// and what mode "x" and the gate add.
struct Parsed {
    Problem problem;
    int head = 0;
    bool x_mode = false;             ///< state.mode == "x"
    LayerProblem layer;              ///< mode "x" only: X, every head's projections and gates, W_O
    std::vector<double> gate;        ///< the selected head's gate logits (empty = no gate)
    std::vector<std::string> names;  ///< every head's name
};

Parsed parse_validated(const json& s);
Parsed parse_state(const std::string& state_json) {
    return parse_validated(validated_state(state_json));
}

/// heads[i].gate as validated: absent (no gate) or n_q finite numbers.
std::vector<double> get_gate(const json& head, const std::string& /*hf*/, int /*n_q*/) {
    std::vector<double> out;
    if (auto it = head.find("gate"); it != head.end())
        for (const json& g : *it) out.push_back(g.get<double>());
    return out;
}

}  // namespace

Problem problem_from_state_json(const std::string& state_json) {
    return parse_state(state_json).problem;
}

namespace {

/// Reads a document validated_state (state_schema.cpp) has checked and normalised into the
/// core's types; every rule of the schema is checked there, once.
Parsed parse_validated(const json& s) {
    Parsed out;
    Problem p;
    const std::string mode = s.at("mode").get<std::string>();
    // Mode "x" (multi-head from X, multihead.hpp): the selected head becomes the qkv problem of
    // its derived Q = X W_Q, K = X W_K, V = X W_V.
    out.x_mode = mode == "x";
    p.mode = out.x_mode ? Mode::qkv : mode_from_string(mode);
    const json& heads = s.at("heads");
    const int head = s.at("head").get<int>();
    for (const json& hd : heads) out.names.push_back(hd.at("name").get<std::string>());
    const json& h = heads[static_cast<std::size_t>(head)];
    const std::string hf = "heads[" + std::to_string(head) + "]";
    int n_q = 0;
    if (out.x_mode) {
        const json& xj = s.at("x");
        LayerProblem& layer = out.layer;
        layer.x = get_matrix(xj.at("X"), "x.X", false);
        if (!xj.at("WO").is_null()) layer.wo = get_matrix(xj.at("WO"), "x.WO", false);
        layer.residual = xj.at("residual").get<bool>();
        n_q = layer.x.rows;
        for (std::size_t i = 0; i < heads.size(); ++i) {
            const std::string hi = "heads[" + std::to_string(i) + "]";
            HeadProjection hp;
            hp.wq = get_matrix(heads[i].at("WQ"), hi + ".WQ", false);
            hp.wk = get_matrix(heads[i].at("WK"), hi + ".WK", false);
            hp.wv = get_matrix(heads[i].at("WV"), hi + ".WV", false);
            hp.gate = get_gate(heads[i], hi, n_q);
            layer.heads.push_back(std::move(hp));
        }
        out.gate = layer.heads[static_cast<std::size_t>(head)].gate;
    } else {
        p.q = get_matrix(h.at("Q"), hf + ".Q", false);
        p.k = get_matrix(h.at("K"), hf + ".K", false);
        p.v = get_matrix(h.at("V"), hf + ".V", false);
        p.logits = get_matrix(h.at("logits"), hf + ".logits", true);
        p.weights = get_matrix(h.at("weights"), hf + ".weights", false);
        n_q = p.mode == Mode::qkv ? p.q.rows : p.mode == Mode::logits ? p.logits.rows : p.weights.rows;
        out.gate = get_gate(h, hf, n_q);
    }

    const json& mask = s.at("mask");
    p.mask.causal = mask.at("causal").get<bool>();
    p.mask.window = mask.at("window").get<int>();
    p.mask.stride = mask.value("stride", 0);
    p.mask.sink_keys = mask.value("sinks", 0);
    for (const json& f : mask.at("padding")) p.mask.key_padding.push_back(f.get<bool>() ? 1 : 0);
    for (const json& row : mask.at("allow"))
        for (const json& f : row) p.mask.allow.push_back(f.get<bool>() ? 1 : 0);
    p.tau = s.at("tau").get<double>();
    p.scale = s.at("scale").is_string() ? 0.0 : s.at("scale").get<double>();  // 0 = 1/sqrt(d_k)
    p.top_k = s.at("topK").get<int>();

    if (out.x_mode) {
        // The layer's shapes first (X, every W, WO, residual), then the selected head's problem.
        out.layer.settings = p;
        validate_layer(out.layer);
        p = head_problem(out.layer, head);
    }
    validate(p);  // the core's own checks (problem shapes, tau, finite scores)
    out.head = head;
    if (out.x_mode) out.layer.settings = p;  // settings as validated (matrices ignored)
    out.problem = std::move(p);
    return out;
}

}  // namespace

namespace {

json result_json(const Result& r, const char* mode, int head) {
    json out;
    out["version"] = 1;
    out["mode"] = mode;
    out["head"] = head;
    out["nQ"] = r.n_q;
    out["nK"] = r.n_k;
    out["dV"] = r.d_v;
    out["scale"] = r.scale;
    out["scores"] = matrix_json(r.scores);
    out["weights"] = matrix_json(r.weights);
    out["output"] = matrix_json(r.output);
    json vis = json::array();
    for (int i = 0; i < r.n_q; ++i) {
        json row = json::array();
        for (int j = 0; j < r.n_k; ++j) row.push_back(r.visible[static_cast<std::size_t>(i) * r.n_k + j] != 0);
        vis.push_back(std::move(row));
    }
    out["visible"] = std::move(vis);
    json rows = json::array();
    for (const RowMetrics& m : r.rows) rows.push_back(row_metrics_json<json>(m));
    out["rows"] = std::move(rows);
    out["summary"] = head_summary_json<json>(r.summary);
    return out;
}

double row_norm(const Matrix& m, int t) {
    double sum = 0;
    for (int j = 0; j < m.cols; ++j) sum += static_cast<double>(m(t, j)) * m(t, j);
    return std::sqrt(sum);
}

/// The `gate` field of the results: per row the logit, sigmoid and the output norms.
json gate_json(const std::vector<double>& gate, const Matrix& ungated, const Matrix& gated) {
    json logits = json::array(), open = json::array(), before = json::array(), after = json::array();
    for (int t = 0; t < gated.rows; ++t) {
        logits.push_back(gate[static_cast<std::size_t>(t)]);
        open.push_back(gate_sigmoid(gate[static_cast<std::size_t>(t)]));
        before.push_back(row_norm(ungated, t));
        after.push_back(row_norm(gated, t));
    }
    return {{"logits", logits}, {"open", open}, {"normUngated", before}, {"normGated", after}};
}

/// The selected head's weights with null where a key is not visible (the page's compact heatmaps).
json visible_weights_json(const Result& r) {
    json out = json::array();
    for (int i = 0; i < r.n_q; ++i) {
        json row = json::array();
        for (int j = 0; j < r.n_k; ++j) {
            const bool vis = r.visible[static_cast<std::size_t>(i) * r.n_k + j] != 0;
            row.push_back(vis ? json(static_cast<double>(r.weights(i, j))) : json(nullptr));
        }
        out.push_back(std::move(row));
    }
    return out;
}

/// Heads of at most this many cells carry their weights in `layer.heads[h].weights`.
constexpr long long kLayerWeightsMaxCells = 48 * 48;

}  // namespace

std::string result_to_json(const Result& r, Mode mode, int head) {
    return result_json(r, to_string(mode), head).dump();
}

namespace {

json compute_parsed(const Parsed& ps) {
    const int head = ps.head;
    if (!ps.x_mode) {
        Result r = compute(ps.problem);
        if (ps.gate.empty()) return result_json(r, to_string(ps.problem.mode), head);
        Matrix ungated = std::move(r.output);
        r.output = apply_gate(ungated, ps.gate, ("heads[" + std::to_string(head) + "].gate").c_str());
        json out = result_json(r, to_string(ps.problem.mode), head);
        out["ungatedOutput"] = matrix_json(ungated);
        out["gate"] = gate_json(ps.gate, ungated, r.output);
        return out;
    }
    const LayerResult lr = compute_layer(ps.layer);
    const Result& r = lr.heads[static_cast<std::size_t>(head)];
    json out = result_json(r, "x", head);
    if (!ps.gate.empty()) {
        out["ungatedOutput"] = matrix_json(lr.ungated[static_cast<std::size_t>(head)]);
        out["gate"] = gate_json(ps.gate, lr.ungated[static_cast<std::size_t>(head)], r.output);
    }
    const Problem& sel = lr.problems[static_cast<std::size_t>(head)];
    out["derived"] = {{"Q", matrix_json(sel.q)}, {"K", matrix_json(sel.k)}, {"V", matrix_json(sel.v)}};
    json heads = json::array();
    for (std::size_t h = 0; h < lr.heads.size(); ++h) {
        const Result& hr = lr.heads[h];
        const HeadSummary& sm = hr.summary;
        json e = {
            {"head", static_cast<int>(h)},
            {"name", ps.names[h]},
            {"dK", lr.problems[h].q.cols},
            {"dV", hr.output.cols},
            {"scale", hr.scale},
            {"weights", static_cast<long long>(hr.n_q) * hr.n_k <= kLayerWeightsMaxCells ? visible_weights_json(hr)
                                                                                         : json(nullptr)},
            {"output", matrix_json(hr.output)},
            {"summary", head_summary_json<json>(sm)}};
        if (!ps.layer.heads[h].gate.empty()) {
            e["ungatedOutput"] = matrix_json(lr.ungated[h]);
            e["gate"] = ps.layer.heads[h].gate;
        }
        heads.push_back(std::move(e));
    }
    out["layer"] = {{"dModel", ps.layer.x.cols},
                    {"dOut", lr.output.cols},
                    {"projected", !(ps.layer.wo.rows == 0 && ps.layer.wo.cols == 0)},
                    {"residual", ps.layer.residual},
                    {"heads", std::move(heads)},
                    {"concat", matrix_json(lr.concat)},
                    {"output", matrix_json(lr.output)}};
    return out;
}

}  // namespace

std::string compute_state_json(const std::string& state_json) {
    return compute_parsed(parse_state(state_json)).dump();
}

std::string validate_and_compute_state_json(const std::string& state_json) {
    json state = validated_state(state_json);
    json results = compute_parsed(parse_validated(state));
    json out = json::object();
    out["state"] = std::move(state);
    out["results"] = std::move(results);
    return out.dump();
}

std::string error_to_json(const Error& e) {
    json out;
    out["error"] = {{"code", to_string(e.code())}, {"field", e.field()}, {"message", e.what()}};
    return out.dump();
}

}  // namespace attn
