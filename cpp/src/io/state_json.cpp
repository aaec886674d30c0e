// docs/state.md <-> attn::Problem / attn::Result. Parsing only: every numeric check is validate()'s.
#include "attn/state_json.hpp"

#include <cmath>
#include <vector>

#include "attn/multihead.hpp"
#include <limits>
#include <nlohmann/json.hpp>

namespace attn {
namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& field, const std::string& what) {
    throw Error(ErrorCode::kBadState, field, field + " " + what);
}

const json& need(const json& obj, const char* key, const std::string& where) {
    auto it = obj.find(key);
    if (it == obj.end()) bad(where.empty() ? key : where + "." + key, "is missing");
    return *it;
}

int get_int(const json& j, const std::string& field, int lo, int hi) {
    if (!j.is_number_integer() && !(j.is_number_float() && std::floor(j.get<double>()) == j.get<double>()))
        bad(field, "must be an integer");
    const double v = j.get<double>();
    if (v < lo || v > hi)
        bad(field, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
    return static_cast<int>(v);
}

/// A number matrix (array of equal-length arrays). `null` cells become -inf when allowed
/// (masked logits), otherwise they are an error.
Matrix get_matrix(const json& j, const std::string& field, bool null_is_masked) {
    Matrix m;
    if (j.is_null()) return m;
    if (!j.is_array()) bad(field, "must be an array of rows");
    m.rows = static_cast<int>(j.size());
    if (m.rows > kMaxTokens)
        throw Error(ErrorCode::kTooLarge, field,
                    field + " has " + std::to_string(m.rows) + " rows; the limit is " +
                        std::to_string(kMaxTokens));
    for (std::size_t i = 0; i < j.size(); ++i) {
        const json& row = j[i];
        const std::string rf = field + "[" + std::to_string(i) + "]";
        if (!row.is_array()) bad(rf, "must be an array of numbers");
        if (i == 0) {
            m.cols = static_cast<int>(row.size());
            if (m.cols > kMaxTokens)
                throw Error(ErrorCode::kTooLarge, field, field + " has too many columns");
            m.data.reserve(static_cast<std::size_t>(m.rows) * m.cols);
        } else if (static_cast<int>(row.size()) != m.cols) {
            throw Error(ErrorCode::kShapeMismatch, field,
                        rf + " has " + std::to_string(row.size()) + " values but row 0 has " +
                            std::to_string(m.cols) + "; a matrix needs equal rows");
        }
        for (std::size_t c = 0; c < row.size(); ++c) {
            const json& x = row[c];
            if (x.is_number()) {
                const double d = x.get<double>();
                if (std::fabs(d) > std::numeric_limits<float>::max())
                    throw Error(ErrorCode::kInvalidValue, field,
                                rf + "[" + std::to_string(c) + "] = " + x.dump() +
                                    " is outside the float32 range (magnitude <= 3.4e38) the "
                                    "core computes in");
                m.data.push_back(static_cast<float>(d));
            } else if (x.is_null() && null_is_masked) {
                m.data.push_back(-std::numeric_limits<float>::infinity());
            } else {
                bad(rf + "[" + std::to_string(c) + "]", "must be a number");
            }
        }
    }
    if (m.rows == 0) m.cols = 0;
    return m;
}

/// The schema is closed (docs/state.md): a misspelt key ("temperature", "v") is an error, not
/// silently ignored.
void only_keys(const json& obj, std::initializer_list<const char*> allowed, const std::string& where) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        bool ok = false;
        for (const char* a : allowed) ok = ok || it.key() == a;
        if (!ok)
            bad(where.empty() ? it.key() : where + "." + it.key(),
                "is not a field of the state (docs/state.md)");
    }
}

std::vector<std::uint8_t> get_flags(const json& j, const std::string& field) {
    if (!j.is_array()) bad(field, "must be an array of booleans");
    std::vector<std::uint8_t> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
        if (!j[i].is_boolean()) bad(field + "[" + std::to_string(i) + "]", "must be true or false");
        out.push_back(j[i].get<bool>() ? 1 : 0);
    }
    return out;
}

std::size_t string_count(const json& tokens, const char* key) {
    const json& list = need(tokens, key, "tokens");
    if (!list.is_array()) bad(std::string("tokens.") + key, "must be an array of strings");
    for (const json& t : list)
        if (!t.is_string()) bad(std::string("tokens.") + key, "must contain only strings");
    return list.size();
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

json metric(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

/// A parsed state: the selected head's Problem (in mode "x" the derived qkv problem of that head),
/// and what mode "x" and the gate add.
struct Parsed {
    Problem problem;
    int head = 0;
    bool x_mode = false;         ///< state.mode == "x"
    LayerProblem layer;          ///< mode "x" only: X, every head's projections and gates, W_O
    std::vector<double> gate;    ///< the selected head's gate logits (empty = no gate)
};

Parsed parse_state(const std::string& state_json);

/// heads[i].gate: absent/null (no gate) or an array of n_q finite numbers.
std::vector<double> get_gate(const json& head, const std::string& hf, int n_q) {
    std::vector<double> out;
    auto it = head.find("gate");
    if (it == head.end() || it->is_null()) return out;
    const std::string field = hf + ".gate";
    if (!it->is_array()) bad(field, "must be null or an array of gate logits (one number per query row)");
    if (it->size() != static_cast<std::size_t>(n_q))
        throw Error(ErrorCode::kShapeMismatch, field,
                    field + " has " + std::to_string(it->size()) + " gate logits but there are n_q = " +
                        std::to_string(n_q) + " query rows; a gate has one logit per query row");
    for (std::size_t t = 0; t < it->size(); ++t) {
        const json& g = (*it)[t];
        if (!g.is_number() || !std::isfinite(g.get<double>()))
            bad(field + "[" + std::to_string(t) + "]", "must be a finite number");
        out.push_back(g.get<double>());
    }
    return out;
}

}  // namespace

Problem problem_from_state_json(const std::string& state_json) {
    return parse_state(state_json).problem;
}

namespace {

Parsed parse_state(const std::string& state_json) {
    Parsed out;
    json s = json::parse(state_json, nullptr, /*allow_exceptions=*/false);
    if (s.is_discarded()) throw Error(ErrorCode::kBadState, "", "the state is not valid JSON");
    if (!s.is_object()) bad("state", "must be a JSON object");
    // "view", "source" and "lesson" (the page's guided lesson, docs/lesson.md) change no number:
    // the core lets them through unread; web/state.js validates them.
    only_keys(s, {"version", "mode", "heads", "head", "tokens", "mask", "tau", "scale", "topK", "row",
                  "view", "source", "lab", "lesson", "x"}, "");

    const json& version = need(s, "version", "");
    if (!version.is_number_integer() || version.get<long long>() != 1)
        bad("version", "must be 1 (this build reads state version 1)");

    Problem p;
    const json& mode = need(s, "mode", "");
    if (!mode.is_string()) bad("mode", "must be a string");
    // Mode "x" (multi-head from X, multihead.hpp): the selected head becomes the qkv problem of
    // its derived Q = X W_Q, K = X W_K, V = X W_V.
    out.x_mode = mode.get<std::string>() == "x";
    try {
        p.mode = out.x_mode ? Mode::qkv : mode_from_string(mode.get<std::string>());
    } catch (const Error& e) {
        bad("mode", "must be \"qkv\", \"logits\", \"weights\" or \"x\"");
    }
    const auto x_it = s.find("x");
    const bool has_x = x_it != s.end() && !x_it->is_null();
    if (has_x && !out.x_mode) bad("x", "is only read in mode \"x\" (multi-head from X); remove it or set mode to \"x\"");

    const json& heads = need(s, "heads", "");
    if (!heads.is_array() || heads.empty()) bad("heads", "must be a non-empty array");
    if (heads.size() > static_cast<std::size_t>(kMaxHeads))
        bad("heads", "has " + std::to_string(heads.size()) + " heads; the limit is " +
                         std::to_string(kMaxHeads));
    const int head = get_int(need(s, "head", ""), "head", 0, static_cast<int>(heads.size()) - 1);
    const json& h = heads[static_cast<std::size_t>(head)];
    if (!h.is_object()) bad("heads[" + std::to_string(head) + "]", "must be an object");
    const std::string hf = "heads[" + std::to_string(head) + "]";
    for (std::size_t i = 0; i < heads.size(); ++i) {
        if (!heads[i].is_object()) bad("heads[" + std::to_string(i) + "]", "must be an object");
        only_keys(heads[i], {"name", "Q", "K", "V", "logits", "weights", "WQ", "WK", "WV", "gate"},
                  "heads[" + std::to_string(i) + "]");
        // The projections belong to mode "x"; the per-head matrices of the other modes do not.
        const std::string hi = "heads[" + std::to_string(i) + "]";
        // The name is echoed in mode "x"'s results: a number or null there used to escape as an
        // nlohmann type_error (an abort of `attn compute`; found writing cpp/fuzz/fuzz_state.cpp).
        if (auto it = heads[i].find("name"); it != heads[i].end() && !it->is_string())
            bad(hi + ".name", "must be a string");
        for (const char* key : {"WQ", "WK", "WV"}) {
            auto it = heads[i].find(key);
            if (!out.x_mode && it != heads[i].end() && !it->is_null())
                bad(hi + "." + key, "is only read in mode \"x\" (Q = X WQ, K = X WK, V = X WV)");
        }
        for (const char* key : {"Q", "K", "V", "logits", "weights"}) {
            auto it = heads[i].find(key);
            if (out.x_mode && it != heads[i].end() && !it->is_null())
                bad(hi + "." + key, std::string("must be null in mode \"x\": the head's Q, K and V are derived from X "
                                                "and its WQ, WK, WV (") + key + " is not used)");
        }
    }
    auto field = [&](const char* key) -> const json& {
        static const json null_json = nullptr;
        auto it = h.find(key);
        return it == h.end() ? null_json : *it;
    };
    int n_q = 0, n_k = 0;
    if (out.x_mode) {
        if (!has_x) bad("x", "is missing; mode \"x\" needs {X, WO, residual}");
        const json& xj = *x_it;
        if (!xj.is_object()) bad("x", "must be an object {X, WO, residual}");
        only_keys(xj, {"X", "WO", "residual"}, "x");
        LayerProblem& layer = out.layer;
        const json& xx = need(xj, "X", "x");
        if (xx.is_null()) bad("x.X", "is missing; mode \"x\" needs the token vectors X (n x d_model)");
        layer.x = get_matrix(xx, "x.X", false);
        if (layer.x.rows < 1 || layer.x.cols < 1)
            throw Error(ErrorCode::kShapeMismatch, "x.X", "x.X needs at least one row (token) and one column (d_model >= 1)");
        if (auto it = xj.find("WO"); it != xj.end() && !it->is_null()) {
            layer.wo = get_matrix(*it, "x.WO", false);
            if (layer.wo.rows < 1 || layer.wo.cols < 1)
                throw Error(ErrorCode::kShapeMismatch, "x.WO", "x.WO must be null or a matrix with at least one row and one column");
        }
        const json& residual = need(xj, "residual", "x");
        if (!residual.is_boolean()) bad("x.residual", "must be true or false");
        layer.residual = residual.get<bool>();
        n_q = n_k = layer.x.rows;
        for (std::size_t i = 0; i < heads.size(); ++i) {
            const std::string hi = "heads[" + std::to_string(i) + "]";
            HeadProjection hp;
            for (const char* key : {"WQ", "WK", "WV"}) {
                auto it = heads[i].find(key);
                if (it == heads[i].end() || it->is_null())
                    bad(hi + "." + key, "is missing; mode \"x\" needs every head's WQ, WK and WV (d_model x d_k, d_k, d_v)");
            }
            hp.wq = get_matrix(heads[i].at("WQ"), hi + ".WQ", false);
            hp.wk = get_matrix(heads[i].at("WK"), hi + ".WK", false);
            hp.wv = get_matrix(heads[i].at("WV"), hi + ".WV", false);
            hp.gate = get_gate(heads[i], hi, n_q);
            layer.heads.push_back(std::move(hp));
        }
        out.gate = layer.heads[static_cast<std::size_t>(head)].gate;
    } else {
        p.q = get_matrix(field("Q"), hf + ".Q", false);
        p.k = get_matrix(field("K"), hf + ".K", false);
        p.v = get_matrix(field("V"), hf + ".V", false);
        p.logits = get_matrix(field("logits"), hf + ".logits", true);
        p.weights = get_matrix(field("weights"), hf + ".weights", false);
        // The matrices the mode needs must be there (an absent one is a malformed document, not a
        // 0 x 0 shape).
        const char* required[2] = {nullptr, nullptr};
        switch (p.mode) {
            case Mode::qkv: required[0] = "Q"; required[1] = "K"; break;
            case Mode::logits: required[0] = "logits"; break;
            case Mode::weights: required[0] = "weights"; break;
        }
        for (const char* name : required)
            if (name && field(name).is_null())
                bad(hf + "." + name, std::string("is missing; mode \"") + to_string(p.mode) +
                                         "\" needs it");
        n_q = p.mode == Mode::qkv ? p.q.rows : p.mode == Mode::logits ? p.logits.rows : p.weights.rows;
        n_k = p.mode == Mode::qkv ? p.k.rows : p.mode == Mode::logits ? p.logits.cols : p.weights.cols;
        out.gate = get_gate(h, hf, n_q);
    }

    const json& mask = need(s, "mask", "");
    if (!mask.is_object()) bad("mask", "must be an object");
    only_keys(mask, {"causal", "window", "padding", "allow", "stride", "sinks"}, "mask");
    const json& causal = need(mask, "causal", "mask");
    if (!causal.is_boolean()) bad("mask.causal", "must be true or false");
    p.mask.causal = causal.get<bool>();
    p.mask.window = get_int(need(mask, "window", "mask"), "mask.window", 0, kMaxTokens);
    // Optional (absent = 0): the strided mask and StreamingLLM's attention-sink keys.
    if (auto it = mask.find("stride"); it != mask.end()) p.mask.stride = get_int(*it, "mask.stride", 0, kMaxTokens);
    if (auto it = mask.find("sinks"); it != mask.end()) p.mask.sink_keys = get_int(*it, "mask.sinks", 0, kMaxTokens);
    p.mask.key_padding = get_flags(need(mask, "padding", "mask"), "mask.padding");
    if (auto it = mask.find("allow"); it != mask.end() && !it->is_null()) {
        if (!it->is_array()) bad("mask.allow", "must be null or a matrix of booleans");
        const auto shape_error = [&] {
            throw Error(ErrorCode::kShapeMismatch, "mask.allow",
                        "the allow-matrix must be " + std::to_string(n_q) + " x " +
                            std::to_string(n_k) + " (queries x keys)");
        };
        if (it->size() != static_cast<std::size_t>(n_q)) shape_error();
        for (std::size_t i = 0; i < it->size(); ++i) {
            auto row = get_flags((*it)[i], "mask.allow[" + std::to_string(i) + "]");
            if (row.size() != static_cast<std::size_t>(n_k)) shape_error();
            p.mask.allow.insert(p.mask.allow.end(), row.begin(), row.end());
        }
    }

    const json& tau = need(s, "tau", "");
    if (!tau.is_number()) bad("tau", "must be a number");
    p.tau = tau.get<double>();
    if (p.tau > kMaxTau)
        throw Error(ErrorCode::kBadTemperature, "tau",
                    "temperature tau must be at most " + std::to_string(static_cast<int>(kMaxTau)) +
                        " in a state document");
    const json& scale = need(s, "scale", "");
    if (scale.is_string() && scale.get<std::string>() == "auto") {
        p.scale = 0.0;
    } else if (scale.is_number() && scale.get<double>() > 0.0) {
        p.scale = scale.get<double>();
    } else {
        bad("scale", "must be \"auto\" or a number > 0");
    }
    p.top_k = get_int(need(s, "topK", ""), "topK", 1, kMaxTokens);

    if (out.x_mode) {
        // The layer's shapes first (X, every W, WO, residual), then the selected head's problem.
        out.layer.settings = p;
        validate_layer(out.layer);
        p = head_problem(out.layer, head);
    }
    validate(p);  // shapes of the matrices first, so the messages below can name n_q and n_k

    const json& tokens = need(s, "tokens", "");
    if (!tokens.is_object()) bad("tokens", "must be an object");
    only_keys(tokens, {"queries", "keys"}, "tokens");
    const std::size_t tq = string_count(tokens, "queries"), tk = string_count(tokens, "keys");
    if (tq != static_cast<std::size_t>(n_q) || tk != static_cast<std::size_t>(n_k))
        throw Error(ErrorCode::kShapeMismatch, "tokens",
                    "there are " + std::to_string(tq) + " query and " + std::to_string(tk) +
                        " key tokens for a " + std::to_string(n_q) + " x " + std::to_string(n_k) +
                        " score matrix");
    get_int(need(s, "row", ""), "row", 0, n_q > 0 ? n_q - 1 : 0);
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
        for (int j = 0; j < r.n_k; ++j)
            row.push_back(r.visible[static_cast<std::size_t>(i) * r.n_k + j] != 0);
        vis.push_back(std::move(row));
    }
    out["visible"] = std::move(vis);
    json rows = json::array();
    for (const RowMetrics& m : r.rows) {
        rows.push_back({{"empty", m.empty},
                        {"visible", m.visible},
                        {"entropy", metric(m.entropy)},
                        {"normalizedEntropy", metric(m.normalized_entropy)},
                        {"nEff", metric(m.n_eff)},
                        {"topKMass", metric(m.top_k_mass)},
                        {"sinkMass", metric(m.sink_mass)},
                        {"rowSum", metric(m.row_sum)},
                        {"support", m.empty ? json(nullptr) : json(m.support)}});
    }
    out["rows"] = std::move(rows);
    const HeadSummary& h = r.summary;
    out["summary"] = {{"rows", h.rows},
                      {"emptyRows", h.empty_rows},
                      {"meanEntropy", metric(h.mean_entropy)},
                      {"meanNormalizedEntropy", metric(h.mean_normalized_entropy)},
                      {"meanNEff", metric(h.mean_n_eff)},
                      {"meanTopKMass", metric(h.mean_top_k_mass)},
                      {"meanSinkMass", metric(h.mean_sink_mass)}};
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

std::string compute_state_json(const std::string& state_json) {
    const Parsed ps = parse_state(state_json);
    const int head = ps.head;
    if (!ps.x_mode) {
        Result r = compute(ps.problem);
        if (ps.gate.empty()) return result_json(r, to_string(ps.problem.mode), head).dump();
        Matrix ungated = std::move(r.output);
        r.output = apply_gate(ungated, ps.gate, ("heads[" + std::to_string(head) + "].gate").c_str());
        json out = result_json(r, to_string(ps.problem.mode), head);
        out["ungatedOutput"] = matrix_json(ungated);
        out["gate"] = gate_json(ps.gate, ungated, r.output);
        return out.dump();
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
    const json state = json::parse(state_json);
    json heads = json::array();
    for (std::size_t h = 0; h < lr.heads.size(); ++h) {
        const Result& hr = lr.heads[h];
        const HeadSummary& sm = hr.summary;
        json e = {{"head", static_cast<int>(h)},
                  {"name", state.at("heads").at(h).value("name", "")},
                  {"dK", lr.problems[h].q.cols},
                  {"dV", hr.output.cols},
                  {"scale", hr.scale},
                  {"weights", static_cast<long long>(hr.n_q) * hr.n_k <= kLayerWeightsMaxCells
                                  ? visible_weights_json(hr) : json(nullptr)},
                  {"output", matrix_json(hr.output)},
                  {"summary", {{"emptyRows", sm.empty_rows},
                               {"meanEntropy", metric(sm.mean_entropy)},
                               {"meanNEff", metric(sm.mean_n_eff)},
                               {"meanSinkMass", metric(sm.mean_sink_mass)}}}};
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
    return out.dump();
}

std::string error_to_json(const Error& e) {
    json out;
    out["error"] = {{"code", to_string(e.code())}, {"field", e.field()}, {"message", e.what()}};
    return out.dump();
}

}  // namespace attn
