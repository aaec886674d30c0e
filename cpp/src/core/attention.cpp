// One head: validate, build scores, select, normalise, mix values, measure rows.
// Pipeline stage names follow the field: scores -> masked -> weights -> output.
#include "attn/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "attn/kernels.hpp"
#include "attn/stream.hpp"
#include "stream_internal.hpp"

namespace attn {
namespace {

using detail::num;

std::string dims(const Matrix& m) {
    return std::to_string(m.rows) + " x " + std::to_string(m.cols);
}

void check_size(const Matrix& m, const char* name, int max_cols) {
    if (m.rows < 0 || m.cols < 0)
        throw Error(ErrorCode::kInvalidValue, name, std::string(name) + " has a negative size");
    if (m.rows > kMaxTokens || m.cols > max_cols)
        throw Error(ErrorCode::kTooLarge, name,
                    std::string(name) + " is " + dims(m) + "; the limit is " + std::to_string(kMaxTokens) + " x " +
                        std::to_string(max_cols));
    if (m.data.size() != static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols))
        throw Error(
            ErrorCode::kShapeMismatch, name,
            std::string(name) + " holds " + std::to_string(m.data.size()) + " values but is declared " + dims(m));
}

void check_finite(const Matrix& m, const char* name) {
    for (int i = 0; i < m.rows; ++i)
        for (int j = 0; j < m.cols; ++j)
            if (!std::isfinite(m(i, j)))
                throw Error(ErrorCode::kNonFinite, name,
                            std::string(name) + "[" + std::to_string(i) + "][" + std::to_string(j) +
                                "] is not a finite number");
}

/// n_q, n_k of the score matrix implied by the mode.
void score_shape(const Problem& p, int& n_q, int& n_k) {
    switch (p.mode) {
        case Mode::qkv:
            n_q = p.q.rows;
            n_k = p.k.rows;
            return;
        case Mode::logits:
            n_q = p.logits.rows;
            n_k = p.logits.cols;
            return;
        case Mode::weights:
            n_q = p.weights.rows;
            n_k = p.weights.cols;
            return;
    }
}

}  // namespace

const char* to_string(Mode m) {
    switch (m) {
        case Mode::qkv:
            return "qkv";
        case Mode::logits:
            return "logits";
        case Mode::weights:
            return "weights";
    }
    return "?";
}

Mode mode_from_string(const std::string& s) {
    if (s == "qkv") return Mode::qkv;
    if (s == "logits") return Mode::logits;
    if (s == "weights") return Mode::weights;
    throw Error(ErrorCode::kInvalidValue, "mode",
                "mode must be \"qkv\", \"logits\" or \"weights\" (got \"" + s + "\")");
}

void validate(const Problem& p) {
    if (!std::isfinite(p.tau) || p.tau <= 0.0)
        throw Error(ErrorCode::kBadTemperature, "tau",
                    "temperature tau must be a finite number > 0 (got " + num(p.tau) +
                        "); the limit tau -> 0 is argmax, not tau = 0");
    if (p.top_k < 1)
        throw Error(ErrorCode::kInvalidValue, "topK", "top-k needs k >= 1 (got " + std::to_string(p.top_k) + ")");
    if (!(p.delta >= 0.0 && p.delta < 1.0)) throw Error(ErrorCode::kInvalidValue, "delta", "delta must be in [0, 1)");
    if (p.sink_keys < 0) throw Error(ErrorCode::kInvalidValue, "sinkKeys", "the number of sink keys must be >= 0");
    if (std::isinf(p.scale)) throw Error(ErrorCode::kInvalidValue, "scale", "scale must be finite");
    if (p.mask.window < 0 || p.mask.window > kMaxTokens)
        throw Error(ErrorCode::kInvalidValue, "mask.window",
                    "window must be between 0 (off) and " + std::to_string(kMaxTokens));
    if (p.mask.stride < 0 || p.mask.stride > kMaxTokens)
        throw Error(ErrorCode::kInvalidValue, "mask.stride",
                    "stride must be between 0 (off) and " + std::to_string(kMaxTokens));
    if (p.mask.sink_keys < 0 || p.mask.sink_keys > kMaxTokens)
        throw Error(ErrorCode::kInvalidValue, "mask.sinks",
                    "the number of attention-sink keys must be between 0 and " + std::to_string(kMaxTokens));

    check_size(p.v, "V", kMaxDim);
    switch (p.mode) {
        case Mode::qkv:
            check_size(p.q, "Q", kMaxDim);
            check_size(p.k, "K", kMaxDim);
            if (p.q.cols != p.k.cols)
                throw Error(ErrorCode::kShapeMismatch, "K",
                            "Q has d_k = " + std::to_string(p.q.cols) + " columns but K has " +
                                std::to_string(p.k.cols) + "; queries and keys must share d_k");
            if (p.q.cols == 0) throw Error(ErrorCode::kShapeMismatch, "Q", "Q and K need at least one column");
            check_finite(p.q, "Q");
            check_finite(p.k, "K");
            break;
        case Mode::logits:
            check_size(p.logits, "logits", kMaxTokens);
            break;
        case Mode::weights:
            check_size(p.weights, "weights", kMaxTokens);
            break;
    }
    int n_q = 0, n_k = 0;
    score_shape(p, n_q, n_k);
    if (!p.v.empty() && p.v.rows != n_k)
        throw Error(ErrorCode::kShapeMismatch, "V",
                    "V has " + std::to_string(p.v.rows) + " rows but there are " + std::to_string(n_k) +
                        " keys; V needs one row per key");
    check_finite(p.v, "V");
    if (!p.mask.key_padding.empty() && p.mask.key_padding.size() != static_cast<std::size_t>(n_k))
        throw Error(ErrorCode::kShapeMismatch, "mask.padding",
                    "padding has " + std::to_string(p.mask.key_padding.size()) + " flags but there are " +
                        std::to_string(n_k) + " keys");
    if (!p.mask.allow.empty() && p.mask.allow.size() != static_cast<std::size_t>(n_q) * static_cast<std::size_t>(n_k))
        throw Error(ErrorCode::kShapeMismatch, "mask.allow",
                    "the allow-matrix must be " + std::to_string(n_q) + " x " + std::to_string(n_k));

    // Logits and weights are checked on visible cells only: what a mask hides cannot leak.
    const Matrix* given = p.mode == Mode::logits ? &p.logits : p.mode == Mode::weights ? &p.weights : nullptr;
    if (given) {
        const char* name = p.mode == Mode::logits ? "logits" : "weights";
        for (int i = 0; i < n_q; ++i)
            for (int j = 0; j < n_k; ++j) {
                if (!p.mask.visible(i, j, n_k)) continue;
                const float x = (*given)(i, j);
                const std::string where = std::string(name) + "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
                if (std::isnan(x) || x == std::numeric_limits<float>::infinity() ||
                    (p.mode == Mode::weights && std::isinf(x)))
                    throw Error(ErrorCode::kNonFinite, name, where + " is not a finite number");
                if (p.mode == Mode::weights && x < 0.0f)
                    throw Error(ErrorCode::kInvalidValue, name,
                                where + " = " + num(x) + " is negative; attention weights are probabilities (>= 0)");
            }
    }
}

Result compute(const Problem& p) {
    validate(p);
    HeadView h;
    h.mode = p.mode;
    score_shape(p, h.n_q, h.n_k);
    h.d_k = p.mode == Mode::qkv ? p.q.cols : 0;
    h.d_v = p.v.empty() ? 0 : p.v.cols;
    h.q = p.q.data.data();
    h.k = p.k.data.data();
    h.v = h.d_v ? p.v.data.data() : nullptr;
    h.given = p.mode == Mode::logits ? p.logits.data.data() : p.mode == Mode::weights ? p.weights.data.data() : nullptr;
    StreamOptions o;
    o.mask = p.mask;
    o.row = kernels::RowParams{p.tau, p.top_k, p.sink_keys, p.delta};
    o.scale = p.scale;

    // The dense result is the streaming pipeline with every block kept.
    Result r;
    r.scores = Matrix(h.n_q, h.n_k);
    r.weights = Matrix(h.n_q, h.n_k);
    r.visible.assign(static_cast<std::size_t>(h.n_q) * static_cast<std::size_t>(h.n_k), 0);
    const detail::BlockSink keep = [&](int r0, int rows, const float* s, const std::uint8_t* vis, const float* w) {
        const std::size_t at = static_cast<std::size_t>(r0) * h.n_k;
        const std::size_t n = static_cast<std::size_t>(rows) * h.n_k;
        std::copy(s, s + n, r.scores.data.begin() + static_cast<std::ptrdiff_t>(at));
        std::copy(w, w + n, r.weights.data.begin() + static_cast<std::ptrdiff_t>(at));
        std::copy(vis, vis + n, r.visible.begin() + static_cast<std::ptrdiff_t>(at));
    };
    StreamResult sr = detail::run_pipeline(h, o, &keep);
    r.n_q = sr.n_q;
    r.n_k = sr.n_k;
    r.d_v = sr.d_v;
    r.scale = sr.scale;
    r.output = std::move(sr.output);
    r.rows = std::move(sr.rows);
    r.summary = sr.summary;
    return r;
}

}  // namespace attn
