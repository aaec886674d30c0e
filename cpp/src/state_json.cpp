// docs/state.md <-> attn::Problem / attn::Result. Parsing only: every numeric check is validate()'s.
#include "attn/state_json.hpp"

#include <cmath>
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

Problem parse_state(const std::string& state_json, int& head_out);

}  // namespace

Problem problem_from_state_json(const std::string& state_json) {
    int head = 0;
    return parse_state(state_json, head);
}

namespace {

Problem parse_state(const std::string& state_json, int& head_out) {
    json s = json::parse(state_json, nullptr, /*allow_exceptions=*/false);
    if (s.is_discarded()) throw Error(ErrorCode::kBadState, "", "the state is not valid JSON");
    if (!s.is_object()) bad("state", "must be a JSON object");
    only_keys(s, {"version", "mode", "heads", "head", "tokens", "mask", "tau", "scale", "topK", "row",
                  "view", "source", "lab"}, "");

    const json& version = need(s, "version", "");
    if (!version.is_number_integer() || version.get<long long>() != 1)
        bad("version", "must be 1 (this build reads state version 1)");

    Problem p;
    const json& mode = need(s, "mode", "");
    if (!mode.is_string()) bad("mode", "must be a string");
    try {
        p.mode = mode_from_string(mode.get<std::string>());
    } catch (const Error& e) {
        bad("mode", "must be \"qkv\", \"logits\" or \"weights\"");
    }

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
        only_keys(heads[i], {"name", "Q", "K", "V", "logits", "weights"}, "heads[" + std::to_string(i) + "]");
    }
    auto field = [&](const char* key) -> const json& {
        static const json null_json = nullptr;
        auto it = h.find(key);
        return it == h.end() ? null_json : *it;
    };
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
    const int n_q = p.mode == Mode::qkv ? p.q.rows : p.mode == Mode::logits ? p.logits.rows : p.weights.rows;
    const int n_k = p.mode == Mode::qkv ? p.k.rows : p.mode == Mode::logits ? p.logits.cols : p.weights.cols;

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
    head_out = head;
    return p;
}

}  // namespace

std::string result_to_json(const Result& r, Mode mode, int head) {
    json out;
    out["version"] = 1;
    out["mode"] = to_string(mode);
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
    return out.dump();
}

std::string compute_state_json(const std::string& state_json) {
    int head = 0;
    const Problem p = parse_state(state_json, head);
    return result_to_json(compute(p), p.mode, head);
}

std::string error_to_json(const Error& e) {
    json out;
    out["error"] = {{"code", to_string(e.code())}, {"field", e.field()}, {"message", e.what()}};
    return out.dump();
}

}  // namespace attn
