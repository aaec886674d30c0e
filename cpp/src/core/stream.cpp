// The one pipeline of a head, block of rows by block of rows:
//   scores -> selection (mask, -inf) -> weights + row metrics -> output, overview.
// compute() (dense, attention.cpp) runs it with a sink that keeps every block; compute_streaming()
// keeps only metrics, output and a pooled overview.
#include "attn/stream.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <string>

#include "stream_internal.hpp"

namespace attn {
namespace {

void check_finite(const float* x, std::size_t n, int cols, const char* name) {
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i]))
            throw Error(ErrorCode::kNonFinite, name,
                        std::string(name) + "[" + std::to_string(i / cols) + "][" + std::to_string(i % cols) +
                            "] is not a finite number");
}

/// True when x[0..n) holds only finite numbers (x - x is 0 for every finite x and NaN for +-inf
/// and NaN): a loop without branches, which the compiler vectorises. A function of its own, called
/// once per row and never inlined: V8 runs a WebAssembly function in its baseline tier until it
/// is hot and swaps in its optimised code only at a later call, so a per-row loop left inside
/// run_pipeline (called once per head) ran in the baseline tier for a whole head at a time.
__attribute__((noinline)) bool all_finite(const float* x, int n) {
    int bad = 0;
    for (int j = 0; j < n; ++j) bad |= (x[j] - x[j]) != 0.0f;
    return !bad;
}

}  // namespace

namespace detail {

std::string num(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", x);
    return buf;
}

void validate_view(const HeadView& h, const StreamOptions& o, int max_tokens) {
    if (!std::isfinite(o.row.tau) || o.row.tau <= 0.0)
        throw Error(ErrorCode::kBadTemperature, "tau",
                    "temperature tau must be a finite number > 0 (got " + num(o.row.tau) +
                        "); the limit tau -> 0 is argmax, not tau = 0");
    if (o.row.top_k < 1) throw Error(ErrorCode::kInvalidValue, "topK", "top-k needs k >= 1");
    if (o.row.sink_keys < 0) throw Error(ErrorCode::kInvalidValue, "sinkKeys", "the number of sink keys must be >= 0");
    if (!(o.row.delta >= 0.0 && o.row.delta < 1.0))
        throw Error(ErrorCode::kInvalidValue, "delta", "delta must be in [0, 1)");
    if (std::isinf(o.scale)) throw Error(ErrorCode::kInvalidValue, "scale", "scale must be finite");
    if (o.block_rows < 1 || o.overview < 0 || o.overview > 1024)
        throw Error(ErrorCode::kInvalidValue, "options", "block_rows must be >= 1 and the overview between 0 and 1024");
    if (h.n_q < 1 || h.n_k < 1)
        throw Error(ErrorCode::kShapeMismatch, "shape", "a head needs at least one query and one key");
    if (h.n_q > max_tokens || h.n_k > max_tokens || h.d_k > kMaxDim || h.d_v > kMaxDim || h.d_k < 0 || h.d_v < 0)
        throw Error(ErrorCode::kTooLarge, "shape",
                    "the head is " + std::to_string(h.n_q) + " x " + std::to_string(h.n_k) + " with d_k = " +
                        std::to_string(h.d_k) + ", d_v = " + std::to_string(h.d_v) + "; the limits are " +
                        std::to_string(max_tokens) + " tokens and " + std::to_string(kMaxDim) + " dimensions");
    if (o.mask.window < 0 || o.mask.window > max_tokens)
        throw Error(ErrorCode::kInvalidValue, "mask.window", "window must be >= 0 (0 = off)");
    if (o.mask.stride < 0 || o.mask.stride > max_tokens)
        throw Error(ErrorCode::kInvalidValue, "mask.stride", "stride must be >= 0 (0 = off)");
    if (o.mask.sink_keys < 0 || o.mask.sink_keys > max_tokens)
        throw Error(ErrorCode::kInvalidValue, "mask.sinks", "the number of attention-sink keys must be >= 0");
    if (!o.mask.key_padding.empty() && o.mask.key_padding.size() != static_cast<std::size_t>(h.n_k))
        throw Error(ErrorCode::kShapeMismatch, "mask.padding",
                    "padding has " + std::to_string(o.mask.key_padding.size()) + " flags but there are " +
                        std::to_string(h.n_k) + " keys");
    if (!o.mask.allow.empty() &&
        o.mask.allow.size() != static_cast<std::size_t>(h.n_q) * static_cast<std::size_t>(h.n_k))
        throw Error(ErrorCode::kShapeMismatch, "mask.allow",
                    "the allow-matrix must be " + std::to_string(h.n_q) + " x " + std::to_string(h.n_k));
    if (h.d_v > 0 && !h.v) throw Error(ErrorCode::kShapeMismatch, "V", "V is missing");
    if (h.mode == Mode::qkv) {
        if (h.d_k < 1 || !h.q || !h.k) throw Error(ErrorCode::kShapeMismatch, "Q", "Q and K need at least one column");
        check_finite(h.q, static_cast<std::size_t>(h.n_q) * h.d_k, h.d_k, "Q");
        check_finite(h.k, static_cast<std::size_t>(h.n_k) * h.d_k, h.d_k, "K");
    } else if (!h.given) {
        throw Error(ErrorCode::kShapeMismatch, to_string(h.mode), "the matrix is missing");
    }
    if (h.d_v > 0) check_finite(h.v, static_cast<std::size_t>(h.n_k) * h.d_v, h.d_v, "V");
}

HeadSummary summarise(const std::vector<RowMetrics>& rows) {
    // Means over non-empty rows only (MATH.md, Empty row), of every MEAN metric of metrics.def.
    HeadSummary hs;
    hs.rows = static_cast<int>(rows.size());
    constexpr std::size_t kCount = std::size(kRowMetrics);
    double sum[kCount] = {};
    for (const RowMetrics& m : rows) {
        if (m.empty) {
            ++hs.empty_rows;
            continue;
        }
        for (std::size_t i = 0; i < kCount; ++i)
            if (kRowMetrics[i].mean) sum[i] += kRowMetrics[i].get(m);
    }
    const int used = hs.rows - hs.empty_rows;
    for (std::size_t i = 0; i < kCount; ++i)
        if (kRowMetrics[i].mean)
            hs.*(kRowMetrics[i].mean) = used ? sum[i] / used : std::numeric_limits<double>::quiet_NaN();
    return hs;
}

namespace {

/// The pooled overview (StreamOptions::overview, pool) of the weights of a head of all_q rows:
/// overview cell (cr, c) pools the queries t with t * ov_r / all_q = cr and the keys of column c.
class Overview {
public:
    Overview(const StreamOptions& o, int all_q, int n_k)
        : mean_(o.pool == Pool::mean),
          all_q_(all_q),
          ov_r_(o.overview ? std::min(o.overview, all_q) : 0),
          ov_c_(o.overview ? std::min(o.overview, n_k) : 0),
          col_start_(static_cast<std::size_t>(ov_c_ ? ov_c_ + 1 : 0), n_k) {
        if (ov_r_ && mean_) {
            count_.assign(static_cast<std::size_t>(ov_r_) * ov_c_, 0.0);
            sum_.assign(static_cast<std::size_t>(ov_r_) * ov_c_, 0.0);
        }
        if (ov_r_) seen_.assign(static_cast<std::size_t>(ov_r_) * ov_c_, 0);
        // Column c pools keys [col_start[c], col_start[c + 1]) (key j is in column j * ov_c / n_k).
        for (int j = n_k - 1; ov_c_ && j >= 0; --j)
            col_start_[static_cast<std::size_t>(static_cast<long long>(j) * ov_c_ / n_k)] = j;
    }
    int rows() const { return ov_r_; }
    int cols() const { return ov_c_; }
    std::size_t scratch_bytes() const { return col_start_.size() * sizeof(int); }

    /// Pools the weights w (n_k a row) of the block's `rows` rows, the first being query t0 of the
    /// head. Row i's keys at or past row_hi[i] have weight 0 and are not visible; its flags `vis`
    /// are read only where row_all[i] is 0 (else its keys before row_hi[i] are all visible).
    void add_block(Matrix& out, int t0, int rows, int n_k, const float* weights, const std::uint8_t* visible,
                   const std::vector<int>& row_hi, const std::vector<std::uint8_t>& row_all) {
        for (int i = 0; i < rows; ++i) {
            const int cr = static_cast<int>(static_cast<long long>(t0 + i) * ov_r_ / all_q_);
            float* orow = out.row(cr);
            const float* w = weights + static_cast<std::size_t>(i) * n_k;
            const std::uint8_t* vis = visible + static_cast<std::size_t>(i) * n_k;
            std::uint8_t* seen = seen_.data() + static_cast<std::size_t>(cr) * ov_c_;
            const int len = row_hi[static_cast<std::size_t>(i)];  // keys past it: weight 0, not visible
            double* cnt = mean_ ? count_.data() + static_cast<std::size_t>(cr) * ov_c_ : nullptr;
            double* sum = mean_ ? sum_.data() + static_cast<std::size_t>(cr) * ov_c_ : nullptr;
            for (int c = 0; c < ov_c_; ++c) {
                const int j0 = col_start_[static_cast<std::size_t>(c)],
                          j1 = col_start_[static_cast<std::size_t>(c) + 1];
                if (cnt) cnt[c] += j1 - j0;
                const int e = std::min(j1, len);
                std::uint8_t any = row_all[static_cast<std::size_t>(i)] && e > j0;
                if (!row_all[static_cast<std::size_t>(i)])
                    for (int j = j0; j < e; ++j) any |= vis[j];
                seen[c] |= any;
                if (cnt) {
                    double acc = 0.0;
                    for (int j = j0; j < e; ++j) acc += w[j];
                    sum[c] += acc;
                } else {
                    float mx = orow[c];
                    for (int j = j0; j < e; ++j) mx = w[j] > mx ? w[j] : mx;
                    orow[c] = mx;
                }
            }
        }
    }

    /// The means of mean pooling; a cell whose every (query, key) is masked is "not visible" (NaN),
    /// not a weight of 0.
    void finish(Matrix& out) const {
        if (!count_.empty())
            for (std::size_t c = 0; c < count_.size(); ++c)
                if (count_[c] > 0) out.data[c] = static_cast<float>(sum_[c] / count_[c]);
        for (std::size_t c = 0; c < seen_.size(); ++c)
            if (!seen_[c]) out.data[c] = std::numeric_limits<float>::quiet_NaN();
    }

private:
    bool mean_;
    int all_q_, ov_r_, ov_c_;
    std::vector<int> col_start_;
    // Mean pooling sums and counts in double: a float count stops at 2^24 cells per pooled cell
    // (a 131072^2 head pooled to 16 x 16 has 2^26), and a float sum loses the small weights.
    std::vector<double> count_;       // cells per pooled cell, for mean pooling
    std::vector<double> sum_;         // sum of the weights of those cells
    std::vector<std::uint8_t> seen_;  // 1 once a visible (query, key) falls in the cell
};

/// Stage 1: the scores S (before temperature) of the block's rows r0 .. r0 + rows (mode qkv); row
/// by row over the keys a row can see when the mask is a key range (`ranged`).
void block_scores(const kernels::KernelSet& kern, const HeadView& h, const StreamOptions& o, float scale, int r0,
                  int rows, bool ranged, float* scores) {
    const int n_k = h.n_k;
    if (ranged) {
        for (int i = 0; i < rows; ++i) {
            const int pos = r0 + i + o.mask.row_offset;
            const int hi = std::max(0, std::min(n_k, pos + 1));
            const int lo = o.mask.window > 0 ? std::min(hi, std::max(0, pos - o.mask.window + 1)) : 0;
            const int sink_end = std::min(o.mask.sink_keys, lo);
            const float* qi = h.q + static_cast<std::size_t>(r0 + i) * h.d_k;
            float* si = scores + static_cast<std::size_t>(i) * n_k;
            if (sink_end > 0) kern.scores_qk(qi, h.k, 1, sink_end, h.d_k, scale, si);
            if (hi > lo)
                kern.scores_qk(qi, h.k + static_cast<std::size_t>(lo) * h.d_k, 1, hi - lo, h.d_k, scale, si + lo);
        }
    } else {
        kern.scores_qk(h.q + static_cast<std::size_t>(r0) * h.d_k, h.k, rows, n_k, h.d_k, scale, scores);
    }
}

/// What stage 2 hands the softmax of a row: its scores (`in`), and whether all its keys before
/// `hi` are visible with finite scores (`all`: the kernel then reads no visible flags, and the
/// flags are not written).
struct RowSelection {
    const float* in;
    bool all;
    int hi;
};

/// Stage 2 for query t: selection. Causal and window masks are a contiguous range [lo, hi) of
/// keys; padding and the allow-matrix (when present) are looked up per key. Writes the row's
/// scores s (NaN where not visible) and flags vis as far as the softmax and the sink read them;
/// throws on a given value or a score that is not allowed. `block_sink`: a sink reads the block.
RowSelection select_row(const HeadView& h, const StreamOptions& o, int t, float* s, std::uint8_t* vis,
                        bool block_sink) {
    const int n_k = h.n_k;
    const float* g = h.given ? h.given + static_cast<std::size_t>(t) * n_k : nullptr;
    const float neg_inf = -std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const char* given_name = h.mode == Mode::logits ? "logits" : "weights";
    const int pos = t + o.mask.row_offset;
    int lo = 0, hi = n_k;
    if (o.mask.causal || o.mask.window > 0) hi = std::min(hi, pos + 1);
    if (o.mask.window > 0) lo = std::max(lo, pos - o.mask.window + 1);
    lo = std::min(lo, n_k);  // queries past the last key (n_q > n_k) see no window key
    hi = std::max(hi, lo);
    // Sink keys before the window stay candidates (StreamingLLM: first n_sink + last w).
    const int sink_end = std::min(std::min(o.mask.sink_keys, lo), hi);
    const bool per_key = !o.mask.key_padding.empty() || !o.mask.allow.empty() || o.mask.stride > 1;
    // Key j is a candidate: apply the per-key masks, then read its score.
    const auto admit = [&](int j, bool check) {
        if (check && !o.mask.visible(t, j, n_k)) {  // what a mask hides is never read
            vis[j] = 0;
            s[j] = nan;
            return;
        }
        float x = h.mode == Mode::qkv ? s[j] : g[j];
        if (h.mode == Mode::weights) {
            if (!(x >= 0.0f) || x == std::numeric_limits<float>::infinity())
                throw Error(
                    std::isnan(x) || std::isinf(x) ? ErrorCode::kNonFinite : ErrorCode::kInvalidValue, given_name,
                    std::string(given_name) + "[" + std::to_string(t) + "][" + std::to_string(j) + "] = " + num(x) +
                        (std::isnan(x) || std::isinf(x) ? " is not a finite number"
                                                        : " is negative; attention weights are probabilities"));
            x = std::log(x);  // S = ln a: softmax(S / tau) = a^(1/tau) renormalised
        } else if (std::isnan(x) || x == std::numeric_limits<float>::infinity() ||
                   (h.mode == Mode::qkv && x == neg_inf)) {
            if (h.mode == Mode::qkv)
                // Finite Q and K can still overflow float32 in Q K^T: refuse it rather
                // than read an overflow to -inf as a masked key.
                throw Error(ErrorCode::kNonFinite, "scores",
                            "the score of query " + std::to_string(t) + " and key " + std::to_string(j) +
                                " overflows float32 (|Q K^T x scale| > 3.4e38); use "
                                "smaller values or a smaller scale");
            throw Error(ErrorCode::kNonFinite, given_name,
                        std::string(given_name) + "[" + std::to_string(t) + "][" + std::to_string(j) +
                            "] is not a finite number");
        }
        // A -inf score (a masked logit, ln 0) is not visible either.
        vis[j] = x != neg_inf;
        s[j] = vis[j] ? x : nan;
    };
    // Without a window, per-key masks or a block sink, a row of finite scores needs no
    // flags and no copy: the kernel reads the scores (or the given logits) where they are.
    if (!per_key && lo == 0 && !block_sink && h.mode != Mode::weights) {
        const float* x = h.mode == Mode::qkv ? s : g;
        if (all_finite(x, hi)) return {x, true, hi};
    }
    for (int j = 0; j < sink_end; ++j) admit(j, true);
    std::fill(vis + sink_end, vis + lo, std::uint8_t{0});
    std::fill(s + sink_end, s + lo, nan);
    // Keys past hi are read only by the sink (the dense result keeps whole rows).
    if (block_sink) std::fill(vis + hi, vis + n_k, std::uint8_t{0});
    if (per_key) {
        for (int j = lo; j < hi; ++j) admit(j, per_key);
    } else if (h.mode == Mode::qkv) {
        int bad = 0;  // a score that overflowed: admit() finds it and throws
        for (int j = lo; j < hi; ++j) {
            bad |= !std::isfinite(s[j]);
            vis[j] = 1;
        }
        if (bad)
            for (int j = lo; j < hi; ++j) admit(j, false);
    } else if (h.mode == Mode::weights) {
        // The common case of an imported head, in a loop of its own: S = ln a for a > 0, a
        // zero weight is a key not visible (ln 0 = -inf, without calling log), anything
        // else goes to admit() for its error.
        for (int j = lo; j < hi; ++j) {
            const float x = g[j];
            if (x > 0.0f && x < std::numeric_limits<float>::infinity()) {
                s[j] = std::log(x);
                vis[j] = 1;
            } else if (x == 0.0f) {
                s[j] = nan;
                vis[j] = 0;
            } else {
                admit(j, false);  // throws
            }
        }
    } else if (all_finite(g + lo, hi - lo)) {
        // Logits: a row of finite scores (the common case; all_finite) is copied; any
        // other row is read key by key.
        std::copy(g + lo, g + hi, s + lo);
        std::fill(vis + lo, vis + hi, std::uint8_t{1});
    } else {
        for (int j = lo; j < hi; ++j) {
            const float x = g[j];
            if (std::isfinite(x)) {
                s[j] = x;
                vis[j] = 1;
            } else {
                admit(j, false);  // -inf: not visible; NaN, +inf: throws
            }
        }
    }
    return {s, false, hi};
}

}  // namespace

StreamResult run_pipeline(const HeadView& h, const StreamOptions& o, const BlockSink* sink, int head_rows,
                          int first_row) {
    const int n_q = h.n_q, n_k = h.n_k;
    const int all_q = head_rows > 0 ? head_rows : n_q;  // the overview's rows pool all_q queries
    const kernels::KernelSet& kern = kernels::active();
    kernels::reset_row_hints();
    StreamResult r;
    r.n_q = n_q;
    r.n_k = n_k;
    r.d_v = o.want_output ? h.d_v : 0;
    r.scale = h.mode != Mode::qkv                       ? 1.0
              : (std::isnan(o.scale) || o.scale <= 0.0) ? 1.0 / std::sqrt(static_cast<double>(h.d_k))
                                                        : o.scale;
    r.rows.resize(static_cast<std::size_t>(n_q));
    r.output = Matrix(n_q, r.d_v);
    Overview overview(o, all_q, n_k);
    r.overview = Matrix(overview.rows(), overview.cols());

    const int block = std::min(o.block_rows, n_q);
    const std::size_t cells = static_cast<std::size_t>(block) * static_cast<std::size_t>(n_k);
    std::vector<float> scores(cells), weights(cells);
    std::vector<std::uint8_t> visible(cells);
    r.scratch_bytes = cells * (2 * sizeof(float) + 1) + overview.scratch_bytes();
    // Keys at or past a row's `hi` (causal, window) are never visible: the row's scores, weights
    // and order statistics are computed over its prefix [0, hi) only (a causal head: half the
    // work), the rest of the row is a structural 0.
    const bool ranged = o.mask.causal || o.mask.window > 0;
    std::vector<int> row_hi(static_cast<std::size_t>(block), n_k);
    // 1 where the row's keys [0, hi) are all visible with finite scores: the kernel then gets no
    // visible flags (kernels.hpp) and the flags are not written; the overview reads this instead.
    std::vector<std::uint8_t> row_all(static_cast<std::size_t>(block), 0);
    const float nan = std::numeric_limits<float>::quiet_NaN();

    for (int r0 = 0; r0 < n_q; r0 += block) {
        const int rows = std::min(block, n_q - r0);
        if (h.mode == Mode::qkv) block_scores(kern, h, o, static_cast<float>(r.scale), r0, rows, ranged, scores.data());
        for (int i = 0; i < rows; ++i) {
            const int t = r0 + i;
            float* s = scores.data() + static_cast<std::size_t>(i) * n_k;
            std::uint8_t* vis = visible.data() + static_cast<std::size_t>(i) * n_k;
            const RowSelection sel = select_row(h, o, t, s, vis, sink != nullptr);
            row_all[static_cast<std::size_t>(i)] = sel.all;
            // Stage 3: weights and row metrics, over the prefix [0, hi) when keys past it are masked.
            float* w = weights.data() + static_cast<std::size_t>(i) * n_k;
            const int len = ranged ? sel.hi : n_k;
            kern.softmax_row(sel.in, sel.all ? nullptr : vis, len, o.row, w, r.rows[static_cast<std::size_t>(t)]);
            // The rest of the row is read only by the output (A V over every key) and the sink.
            if (r.d_v > 0 || sink) std::fill(w + len, w + n_k, 0.0f);
            if (sink) std::fill(s + len, s + n_k, nan);
            row_hi[static_cast<std::size_t>(i)] = len;
        }
        // Stage 4: output O = A V for this block.
        if (r.d_v > 0) kern.weighted_sum(weights.data(), h.v, rows, n_k, h.d_v, r.output.row(r0));
        if (overview.rows())
            overview.add_block(r.overview, first_row + r0, rows, n_k, weights.data(), visible.data(), row_hi, row_all);
        if (sink) (*sink)(r0, rows, scores.data(), visible.data(), weights.data());
    }
    overview.finish(r.overview);
    r.summary = summarise(r.rows);
    return r;
}

}  // namespace detail

StreamResult compute_streaming(const HeadView& h, const StreamOptions& o) {
    detail::validate_view(h, o, kMaxStreamTokens);
    return detail::run_pipeline(h, o, nullptr);
}

double compute_scores(const HeadView& h, const StreamOptions& o, float* out) {
    if (h.mode != Mode::qkv)
        throw Error(ErrorCode::kInvalidValue, "mode", "scores are computed from Q and K (mode qkv)");
    detail::validate_view(h, o, kMaxStreamTokens);
    const double scale =
        (std::isnan(o.scale) || o.scale <= 0.0) ? 1.0 / std::sqrt(static_cast<double>(h.d_k)) : o.scale;
    kernels::active().scores_qk(h.q, h.k, h.n_q, h.n_k, h.d_k, static_cast<float>(scale), out);
    // Same refusal as the pipeline: an overflowing Q K^T must not become a masked (-inf) logit.
    const std::size_t cells = static_cast<std::size_t>(h.n_q) * static_cast<std::size_t>(h.n_k);
    for (std::size_t c = 0; c < cells; ++c)
        if (!std::isfinite(out[c]))
            throw Error(ErrorCode::kNonFinite, "scores",
                        "the score of query " + std::to_string(c / h.n_k) + " and key " + std::to_string(c % h.n_k) +
                            " overflows float32 (|Q K^T x scale| > 3.4e38); use smaller values or "
                            "a smaller scale");
    return scale;
}

StreamResult compute_streaming_rows(const HeadView& h, const StreamOptions& o, int r0, int r1) {
    detail::validate_view(h, o, kMaxStreamTokens);
    if (r0 < 0 || r1 > h.n_q || r0 >= r1)
        throw Error(ErrorCode::kInvalidValue, "rows", "a row range needs 0 <= r0 < r1 <= n_q");
    HeadView rows = h;
    rows.n_q = r1 - r0;
    if (h.mode == Mode::qkv)
        rows.q = h.q + static_cast<std::size_t>(r0) * h.d_k;
    else
        rows.given = h.given + static_cast<std::size_t>(r0) * h.n_k;
    StreamOptions ro = o;
    ro.mask.row_offset = o.mask.row_offset + r0;  // masks stay at absolute positions
    if (!o.mask.allow.empty())
        ro.mask.allow.assign(o.mask.allow.begin() + static_cast<std::ptrdiff_t>(r0) * h.n_k,
                             o.mask.allow.begin() + static_cast<std::ptrdiff_t>(r1) * h.n_k);
    StreamResult r = detail::run_pipeline(rows, ro, nullptr, h.n_q, r0);
    r.first_row = r0;
    return r;
}

StreamResult merge_streaming_rows(const std::vector<StreamResult>& parts, const StreamOptions& o) {
    if (parts.empty()) throw Error(ErrorCode::kInvalidValue, "parts", "nothing to merge");
    StreamResult m;
    const StreamResult& p0 = parts.front();
    m.n_k = p0.n_k;
    m.d_v = p0.d_v;
    m.scale = p0.scale;
    int next = 0;
    for (const StreamResult& p : parts) {
        if (p.first_row != next || p.n_k != m.n_k || p.d_v != m.d_v || p.overview.rows != p0.overview.rows ||
            p.overview.cols != p0.overview.cols)
            throw Error(ErrorCode::kInvalidValue, "parts",
                        "the parts must be consecutive row ranges of one head, in order, from row 0");
        next += p.n_q;
    }
    m.n_q = next;
    m.rows.reserve(static_cast<std::size_t>(next));
    m.output = Matrix(next, m.d_v);
    for (const StreamResult& p : parts) {
        m.rows.insert(m.rows.end(), p.rows.begin(), p.rows.end());
        std::copy(p.output.data.begin(), p.output.data.end(), m.output.row(p.first_row));
        m.scratch_bytes = std::max(m.scratch_bytes, p.scratch_bytes);
    }
    // Overview cells: max pooling keeps the largest of the parts' cells, mean pooling weighs each
    // part's mean by the queries it pooled into the cell's row; NaN (nothing visible) only where
    // every part has NaN.
    const int ov_r = p0.overview.rows, ov_c = p0.overview.cols;
    m.overview = Matrix(ov_r, ov_c);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int cr = 0; cr < ov_r; ++cr) {
        std::vector<double> acc(static_cast<std::size_t>(ov_c), 0.0), weight(static_cast<std::size_t>(ov_c), 0.0);
        std::vector<std::uint8_t> seen(static_cast<std::size_t>(ov_c), 0);
        for (const StreamResult& p : parts) {
            int in_cell = 0;  // queries of p pooled into overview row cr
            for (int t = p.first_row; t < p.first_row + p.n_q; ++t)
                in_cell += static_cast<int>(static_cast<long long>(t) * ov_r / next) == cr;
            if (!in_cell) continue;
            for (int c = 0; c < ov_c; ++c) {
                const float v = p.overview(cr, c);
                const std::size_t k = static_cast<std::size_t>(c);
                if (o.pool == Pool::mean) {
                    weight[k] += in_cell;
                    if (!std::isnan(v)) acc[k] += static_cast<double>(v) * in_cell;
                } else if (!std::isnan(v)) {
                    acc[k] = seen[k] ? std::max(acc[k], static_cast<double>(v)) : v;
                }
                seen[k] |= !std::isnan(v);
            }
        }
        for (int c = 0; c < ov_c; ++c) {
            const std::size_t k = static_cast<std::size_t>(c);
            m.overview(cr, c) = !seen[k] ? nan : static_cast<float>(o.pool == Pool::mean ? acc[k] / weight[k] : acc[k]);
        }
    }
    m.summary = detail::summarise(m.rows);
    return m;
}

Matrix compute_tile(const HeadView& h, const StreamOptions& o, int r0, int r1, int c0, int c1) {
    detail::validate_view(h, o, kMaxStreamTokens);
    if (r0 < 0 || r1 > h.n_q || r0 >= r1 || c0 < 0 || c1 > h.n_k || c0 >= c1 || r1 - r0 > 512 || c1 - c0 > 512)
        throw Error(ErrorCode::kInvalidValue, "tile",
                    "a tile needs 0 <= r0 < r1 <= n_q, 0 <= c0 < c1 <= n_k and at most 512 x 512");
    // Only the tile's rows go through the pipeline: a view of them, queries offset by r0. The
    // mask's row index must stay the absolute t, so the rows are computed with a shifted mask.
    HeadView rows = h;
    rows.n_q = r1 - r0;
    if (h.mode == Mode::qkv)
        rows.q = h.q + static_cast<std::size_t>(r0) * h.d_k;
    else
        rows.given = h.given + static_cast<std::size_t>(r0) * h.n_k;
    rows.d_v = 0;
    StreamOptions ro = o;
    ro.overview = 0;
    ro.want_output = false;
    ro.mask.row_offset = o.mask.row_offset + r0;
    if (!o.mask.allow.empty())
        ro.mask.allow.assign(o.mask.allow.begin() + static_cast<std::ptrdiff_t>(r0) * h.n_k,
                             o.mask.allow.begin() + static_cast<std::ptrdiff_t>(r1) * h.n_k);
    Matrix tile(r1 - r0, c1 - c0);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const detail::BlockSink sink = [&](int b0, int n, const float*, const std::uint8_t* vis, const float* w) {
        for (int i = 0; i < n; ++i) {
            const std::size_t at = static_cast<std::size_t>(i) * h.n_k;
            float* out = tile.row(b0 + i);
            for (int j = c0; j < c1; ++j) out[j - c0] = vis[at + j] ? w[at + j] : nan;
        }
    };
    detail::run_pipeline(rows, ro, &sink);
    return tile;
}

}  // namespace attn
