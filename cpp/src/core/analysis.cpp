// Checks, verdict and analysis of one imported head (analysis.hpp, docs/analysis.md).
//
// analyze_head() runs the core's own pipeline (stream.cpp) and reads each block of normalised
// weights once, for the pattern scores and the mean-pooled thumbnail: memory O(block x n_k + n_q +
// n_k + thumbnail^2), never the n_q x n_k weights.
#include "attn/analysis.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <unordered_map>

#include "attn/stream.hpp"
#include "patterns_internal.hpp"
#include "stream_internal.hpp"

namespace attn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Cells of one block of the pipeline at most (it holds 9 bytes per cell): 64 rows up to 16384
/// keys, fewer beyond (8 rows of 131072 keys, 9 MiB).
constexpr std::size_t kBlockCells = std::size_t{1} << 20;
/// Cells of the float32 copy of logits whose mask fill is rewritten as -inf (16 MiB).
constexpr std::size_t kChunkCells = std::size_t{1} << 22;

/// Mean pooling of the weights into a rows x cols grid, the cell of (t, j) being
/// (t * rows / n_q, j * cols / n_k) as in the pipeline's overview. Sums in double and divides by
/// the cell's size, so a 4096 x 4096 cell of a 131072-key head loses nothing to float32.
class Thumbnail {
public:
    Thumbnail(int side, int n_q, int n_k)
        : n_q_(n_q), n_k_(n_k), rows_(side ? std::min(side, n_q) : 0), cols_(side ? std::min(side, n_k) : 0) {
        if (!rows_) return;
        sum_.assign(static_cast<std::size_t>(rows_) * cols_, 0.0);
        seen_.assign(sum_.size(), 0);
        col_start_.assign(static_cast<std::size_t>(cols_) + 1, n_k);
        for (int j = n_k - 1; j >= 0; --j) col_start_[static_cast<std::size_t>(cell(j, cols_, n_k))] = j;
        row_count_.assign(static_cast<std::size_t>(rows_), 0);
        for (int t = 0; t < n_q; ++t) ++row_count_[static_cast<std::size_t>(cell(t, rows_, n_q))];
    }

    void add_row(int t, const float* w, const std::uint8_t* vis) {
        if (!rows_) return;
        const std::size_t at = static_cast<std::size_t>(cell(t, rows_, n_q_)) * cols_;
        for (int c = 0; c < cols_; ++c) {
            double s = 0;
            std::uint8_t v = 0;
            for (int j = col_start_[static_cast<std::size_t>(c)]; j < col_start_[static_cast<std::size_t>(c) + 1];
                 ++j) {
                s += w[j];
                v |= vis[j];
            }
            sum_[at + static_cast<std::size_t>(c)] += s;
            seen_[at + static_cast<std::size_t>(c)] |= v;
        }
    }

    Matrix finish() const {
        Matrix m(rows_, cols_);
        for (int r = 0; r < rows_; ++r)
            for (int c = 0; c < cols_; ++c) {
                const std::size_t i = static_cast<std::size_t>(r) * cols_ + static_cast<std::size_t>(c);
                const double cells =
                    static_cast<double>(row_count_[static_cast<std::size_t>(r)]) *
                    (col_start_[static_cast<std::size_t>(c) + 1] - col_start_[static_cast<std::size_t>(c)]);
                m(r, c) = seen_[i] ? static_cast<float>(sum_[i] / cells) : std::numeric_limits<float>::quiet_NaN();
            }
        return m;
    }

private:
    static int cell(int i, int cells, int n) { return static_cast<int>(static_cast<long long>(i) * cells / n); }
    int n_q_, n_k_, rows_, cols_;
    std::vector<double> sum_;
    std::vector<std::uint8_t> seen_;
    std::vector<int> col_start_;  // keys [col_start_[c], col_start_[c + 1]) pool into column c
    std::vector<int> row_count_;  // queries pooled into each row of cells
};

}  // namespace

namespace {

/// What check_head needs of a row whose values are all finite (the common case), in loops the
/// compiler can vectorise; `finite` is false when the row holds a NaN or an infinity, and then
/// nothing else of the scan is used.
struct RowScan {
    bool finite = true;
    int nonzero = 0, negative = 0, above_one = 0, fill = 0;
    float lo = 0, hi = 0;
    double sum = 0;
};

/// The bits of a float as an int32 that orders like the float (-0 just below +0).
inline std::int32_t order_key(float x) noexcept {
    std::int32_t i;
    std::memcpy(&i, &x, sizeof i);
    return i ^ ((i >> 31) & 0x7fffffff);
}
inline float from_order_key(std::int32_t k) noexcept {
    const std::int32_t i = k ^ ((k >> 31) & 0x7fffffff);
    float x;
    std::memcpy(&x, &i, sizeof x);
    return x;
}

RowScan scan_row(const float* row, int n) {
    RowScan r;
    const float one = static_cast<float>(1.0 + kProbabilityTolerance);
    const float fill = static_cast<float>(kMaskFill);
    const float f0 = kFiniteMaskFills[0], f1 = kFiniteMaskFills[1], f2 = kFiniteMaskFills[2];
    int bad = 0, nonzero = 0, negative = 0, above_one = 0, fills = 0;
    // Min and max of the float bits mapped to integers of the same order (finite values): GCC
    // vectorises an integer min/max reduction, not a float one without -ffast-math.
    std::int32_t lo_key = std::numeric_limits<std::int32_t>::max();
    std::int32_t hi_key = std::numeric_limits<std::int32_t>::min();
    for (int j = 0; j < n; ++j) {
        const float x = row[j];
        bad |= !(std::fabs(x) <= FLT_MAX);
        nonzero += x != 0.0f;
        negative += x < 0.0f;
        above_one += x > one;
        fills += (x <= fill) | (x == f0) | (x == f1) | (x == f2);  // is_mask_fill, branch-free
        const std::int32_t key = order_key(x);
        lo_key = key < lo_key ? key : lo_key;
        hi_key = key > hi_key ? key : hi_key;
    }
    const float lo = from_order_key(lo_key), hi = from_order_key(hi_key);
    r.finite = !bad;
    r.nonzero = nonzero;
    if (!r.finite) return r;
    r.negative = negative;
    r.above_one = above_one;
    r.fill = fills;
    r.lo = lo;
    r.hi = hi;
    double s[4] = {0, 0, 0, 0};  // four chains: the sum is a quarter of the scan's latency
    int j = 0;
    for (; j + 4 <= n; j += 4)
        for (int k = 0; k < 4; ++k) s[k] += row[j + k];
    for (; j < n; ++j) s[0] += row[j];
    r.sum = (s[0] + s[1]) + (s[2] + s[3]);
    return r;
}

}  // namespace

HeadCheck check_head(const float* a, int n_q, int n_k) {
    HeadCheck c;
    c.n_q = n_q;
    c.n_k = n_k;
    c.min_value = c.max_value = kNaN;
    if (!a || n_q < 1 || n_k < 1) return c;
    const int off = n_k - n_q;  // key j is above the diagonal of row t when j > t + off
    const float pos_inf = std::numeric_limits<float>::infinity();
    double lo = pos_inf, hi = -pos_inf;
    for (int t = 0; t < n_q; ++t) {
        const float* row = a + static_cast<std::size_t>(t) * static_cast<std::size_t>(n_k);
        const RowScan r = scan_row(row, n_k);
        bool all_zero = r.nonzero == 0;
        if (r.finite) {
            c.negative += r.negative;
            c.above_one += r.above_one;
            c.fill += r.fill;
            c.finite_fill += r.fill;
            lo = std::min(lo, static_cast<double>(r.lo));
            hi = std::max(hi, static_cast<double>(r.hi));
        } else {  // rare: one value at a time
            all_zero = false;
            for (int j = 0; j < n_k; ++j) {
                const float x = row[j];
                if (std::isnan(x) || x == pos_inf) {
                    if (c.nonfinite++ == 0) {
                        c.first_nonfinite_row = t;
                        c.first_nonfinite_col = j;
                    }
                    continue;
                }
                if (x == -pos_inf) {  // a masked logit: a fill, not an invalid value
                    ++c.fill;
                    ++c.neg_inf;
                    continue;
                }
                lo = std::min(lo, static_cast<double>(x));
                hi = std::max(hi, static_cast<double>(x));
                c.negative += x < 0.0f;
                c.fill += is_mask_fill(x);
                c.finite_fill += is_mask_fill(x);
                c.above_one += x > 1.0 + kProbabilityTolerance;
            }
        }
        if (all_zero) ++c.zero_rows;
        // Positive values above the diagonal: keys j > t + off (all of them when t + off < 0).
        bool row_above = false;
        for (int j = std::max(t + off + 1, 0); j < n_k; ++j) {
            const float x = row[j];
            if (x > 0.0f && x < pos_inf) {
                row_above = true;
                c.max_above_diagonal = std::max(c.max_above_diagonal, static_cast<double>(x));
            }
            if (x == 0.0f)
                ++c.above_diagonal_zero;
            else if (!is_mask_fill(x))
                ++c.above_diagonal_open;
        }
        if (row_above && c.rows_above_diagonal++ == 0) c.first_row_above_diagonal = t;
        // Row sums over the rows that are not all zero and hold no NaN or infinity.
        if (!all_zero && r.finite) {
            const double err = std::fabs(r.sum - 1.0);
            if (c.worst_row < 0 || err > c.max_row_sum_error) {
                c.worst_row = t;
                c.max_row_sum_error = err;
            }
        }
    }
    if (lo <= hi) {
        c.min_value = lo;
        c.max_value = hi;
    }
    return c;
}

Verdict verdict(const HeadCheck& c) {
    if (c.nonfinite > 0) return Verdict::invalid;
    if (c.negative > 0 || c.above_one > 0 || c.fill > 0 || c.max_row_sum_error > kRowSumTolerance)
        return Verdict::not_probabilities;
    // One all-zero row is an empty row (a fully masked query); a head of nothing but such rows is
    // no distribution at all: an unfilled buffer, or all-zero scores (which read as logits give
    // uniform rows).
    if (c.n_q > 0 && c.zero_rows == c.n_q) return Verdict::not_probabilities;
    if (c.max_row_sum_error > kRowSumQuiet) return Verdict::probabilities_warn;
    return Verdict::probabilities;
}

const char* to_string(Verdict v) {
    switch (v) {
        case Verdict::probabilities:
            return "probabilities";
        case Verdict::probabilities_warn:
            return "probabilities_warn";
        case Verdict::not_probabilities:
            return "not_probabilities";
        case Verdict::invalid:
            return "invalid";
    }
    return "?";
}

namespace {

/// TransformerLens's detection sums (FieldScores), added row by row over A (a square head): all
/// the weight, the previous token's, the earlier copies of the query's token's (duplicate) and the
/// keys after them (induction); the last two only with token ids.
struct FieldSums {
    const std::vector<int>* tok = nullptr;  // token ids, or nullptr
    double all = 0, prev = 0, dup = 0, ind = 0;

    void add_row(int t, const float* a, int n_k) {
        double row = 0;
        for (int j = 0; j < n_k; ++j) row += a[j];
        all += row;
        if (t >= 1) prev += a[t - 1];
        if (tok) {
            const int me = (*tok)[static_cast<std::size_t>(t)];
            for (int j = 0; j < t; ++j)
                if ((*tok)[static_cast<std::size_t>(j)] == me) dup += a[j];
            for (int j = 1; j <= t; ++j)
                if ((*tok)[static_cast<std::size_t>(j) - 1] == me) ind += a[j];
        }
    }
    FieldScores scores(bool square) const {
        const bool ids = tok != nullptr;
        FieldScores f;
        f.previous_token = square && all > 0 ? prev / all : kNaN;
        f.duplicate_token = ids && all > 0 ? dup / all : kNaN;
        f.induction = ids && all > 0 ? ind / all : kNaN;
        return f;
    }
};

/// A causal head's |Omega_t| is t' + 1 (its structure), not its positive weights: a float16
/// weight that underflowed to 0 is a visible key of weight 0. Only the visible count and
/// H / ln |Omega_t| depend on it (H, N_eff, top-k and sink mass are sums over the weights).
void causal_visible_counts(std::vector<RowMetrics>& rows, int n_k, int off) {
    for (std::size_t t = 0; t < rows.size(); ++t) {
        RowMetrics& m = rows[t];
        if (m.empty) continue;
        m.visible = std::clamp(static_cast<int>(t) + off + 1, 0, n_k);
        m.normalized_entropy = m.visible > 1 ? m.entropy / std::log(static_cast<double>(m.visible)) : 0.0;
    }
}

/// The mean over the non-empty rows of each row's weight above the diagonal.
double mean_above_diagonal(const std::vector<RowMetrics>& rows, const std::vector<double>& above_row) {
    double sum = 0;
    int n = 0;
    for (std::size_t t = 0; t < rows.size(); ++t)
        if (!rows[t].empty) {
            sum += above_row[t];
            ++n;
        }
    return n ? sum / n : kNaN;
}

}  // namespace

HeadAnalysis analyze_head(const float* values, int n_q, int n_k, const AnalyzeOptions& opts) {
    const Mode mode = opts.reading == Reading::logits ? Mode::logits : Mode::weights;
    StreamOptions so;
    so.row = kernels::RowParams{1.0, opts.top_k, opts.sink_keys, opts.delta};
    so.overview = 0;  // the thumbnail is pooled here, in double
    so.want_output = false;
    if (mode == Mode::logits && opts.causal) so.mask.causal = true;
    {
        HeadView whole;
        whole.mode = mode;
        whole.n_q = n_q;
        whole.n_k = n_k;
        whole.given = values;
        detail::validate_view(whole, so, kMaxStreamTokens);  // sizes and options: throws
    }
    if (opts.thumbnail < 0 || opts.thumbnail > 1024)
        throw Error(ErrorCode::kInvalidValue, "thumbnail", "the thumbnail side must be 0 to 1024");

    HeadAnalysis out;
    out.check = check_head(values, n_q, n_k);
    out.verdict = verdict(out.check);
    out.computed = mode == Mode::weights
                       ? (out.verdict == Verdict::probabilities || out.verdict == Verdict::probabilities_warn)
                       : out.verdict != Verdict::invalid;
    out.summary.rows = n_q;
    out.causal_structure =
        mode == Mode::logits ? opts.causal || (out.check.above_diagonal_open == 0 && out.check.above_diagonal_zero == 0)
                             : out.check.above_diagonal_open == 0 && out.check.rows_above_diagonal == 0;
    if (!opts.token_ids.empty() && opts.token_ids.size() != static_cast<std::size_t>(n_k))
        throw Error(
            ErrorCode::kShapeMismatch, "tokens",
            std::to_string(opts.token_ids.size()) + " token ids for a head with " + std::to_string(n_k) + " keys");
    if (!out.computed) {
        out.summary.set_undefined();
        out.above_diagonal_mass = kNaN;
        for (const HeadScoreInfo& info : kHeadScores) out.field.*(info.member) = kNaN;
        return out;
    }
    out.causal_visibility = mode == Mode::weights && opts.causal_from_structure && out.causal_structure;

    // The pipeline, in blocks of at most 64 rows or kBlockCells cells. Read as they lie, the rows
    // go through it in one run; logits with a mask fill (is_mask_fill: -FLT_MAX, -1e38, -1e9,
    // -65504, -1e4) are copied a chunk of rows at a time with the fill as -inf, the pipeline's
    // "not visible".
    const std::size_t nk = static_cast<std::size_t>(n_k);
    so.block_rows = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(64, kBlockCells / nk)));
    const bool rewrite = mode == Mode::logits && out.check.fill > 0;
    const int off = n_k - n_q;  // key j is above the diagonal of row t when j > t + off
    // TransformerLens's detection sums: over A = the file's weights as they are (weights) or the
    // softmax (logits), every cell.
    const bool square = n_q == n_k;
    FieldSums field;
    if (square && !opts.token_ids.empty()) field.tok = &opts.token_ids;
    std::vector<double> above_row(static_cast<std::size_t>(n_q), 0.0);
    std::vector<std::uint8_t> causal_vis(out.causal_visibility ? nk : 0);
    if (opts.keep_weights) opts.keep_weights->assign(static_cast<std::size_t>(n_q) * nk, 0.0f);
    const int chunk = rewrite ? static_cast<int>(std::max<std::size_t>(
                                    1, std::min<std::size_t>(static_cast<std::size_t>(n_q), kChunkCells / nk)))
                              : n_q;
    std::vector<float> buf(rewrite ? static_cast<std::size_t>(chunk) * nk : 0);
    std::vector<RowMetrics> rows;
    rows.reserve(static_cast<std::size_t>(n_q));
    detail::PatternAccumulator pattern(n_q, n_k);
    Thumbnail thumb(opts.thumbnail, n_q, n_k);

    for (int c0 = 0; c0 < n_q; c0 += chunk) {
        const int c_rows = std::min(chunk, n_q - c0);
        const float* src = values + static_cast<std::size_t>(c0) * nk;
        if (rewrite) {
            const std::size_t cells = static_cast<std::size_t>(c_rows) * nk;
            for (std::size_t i = 0; i < cells; ++i)
                buf[i] = is_mask_fill(src[i]) ? -std::numeric_limits<float>::infinity() : src[i];
            src = buf.data();
        }
        HeadView h;
        h.mode = mode;
        h.n_q = c_rows;
        h.n_k = n_k;
        h.given = src;
        // The causal test of row t is j <= t + (n_k - n_q), the diagonal check_head uses.
        so.mask.row_offset = c0 + (n_k - n_q);
        const detail::BlockSink sink = [&](int r0, int n, const float*, const std::uint8_t* vis, const float* w) {
            for (int i = 0; i < n; ++i) {
                const std::size_t at = static_cast<std::size_t>(i) * nk;
                const int t = c0 + r0 + i;
                pattern.add_row(t, w + at);
                if (out.causal_visibility) {
                    // Visible = up to the diagonal (a weight of 0 there is a visible key, shown as 0).
                    const int upto = std::clamp(t + off + 1, 0, n_k);
                    std::fill(causal_vis.begin(), causal_vis.begin() + upto, std::uint8_t{1});
                    std::fill(causal_vis.begin() + upto, causal_vis.end(), std::uint8_t{0});
                    thumb.add_row(t, w + at, causal_vis.data());
                } else {
                    thumb.add_row(t, w + at, vis + at);
                }
                const float* wt = w + at;
                double above = 0;
                for (int j = std::max(t + off + 1, 0); j < n_k; ++j) above += wt[j];
                above_row[static_cast<std::size_t>(t)] = above;
                if (opts.keep_weights)
                    std::copy(wt, wt + n_k, opts.keep_weights->data() + static_cast<std::size_t>(t) * nk);
                if (square)
                    field.add_row(t, mode == Mode::weights ? values + static_cast<std::size_t>(t) * nk : wt, n_k);
            }
        };
        StreamResult sr = detail::run_pipeline(h, so, &sink);
        rows.insert(rows.end(), sr.rows.begin(), sr.rows.end());
    }

    if (out.causal_visibility) causal_visible_counts(rows, n_k, off);
    // Head summary: the pipeline's definition (stream.cpp), over the rows of every chunk in
    // order, so it equals compute()'s bit for bit (without causal_visibility).
    out.summary = detail::summarise(rows);
    out.above_diagonal_mass = mean_above_diagonal(rows, above_row);
    out.field = field.scores(square);
    const int used = out.summary.rows - out.summary.empty_rows;

    double breadth_sum = 0;
    for (const RowMetrics& m : rows)
        if (!m.empty) breadth_sum += detail::breadth(m.n_eff, m.visible);
    out.pattern = pattern.finish(used ? breadth_sum / used : kNaN);
    out.thumbnail = thumb.finish();
    if (opts.want_rows) out.rows = std::move(rows);
    return out;
}

std::vector<LayerSummary> summarize_layers(const std::vector<LayerHead>& heads) {
    constexpr std::size_t kCount = std::size(kRowMetrics);
    struct Acc {
        LayerSummary s;
        double sum[kCount] = {};
        int n[kCount] = {};
    };
    std::vector<Acc> layers;
    for (const LayerHead& h : heads) {
        auto it = std::find_if(layers.begin(), layers.end(), [&](const Acc& a) { return a.s.layer == h.layer; });
        if (it == layers.end()) {
            layers.push_back(Acc{});
            layers.back().s.layer = h.layer;
            it = layers.end() - 1;
        }
        it->s.heads += 1;
        if (!h.computed) continue;
        it->s.analysed += 1;
        for (std::size_t k = 0; k < kCount; ++k) {
            if (!kRowMetrics[k].mean) continue;
            const double x = h.summary.*(kRowMetrics[k].mean);
            if (std::isfinite(x)) {
                it->sum[k] += x;
                it->n[k] += 1;
            }
        }
    }
    std::vector<LayerSummary> out;
    out.reserve(layers.size());
    for (Acc& a : layers) {
        for (std::size_t k = 0; k < kCount; ++k)
            if (kRowMetrics[k].mean) a.s.means.*(kRowMetrics[k].mean) = a.n[k] ? a.sum[k] / a.n[k] : kNaN;
        out.push_back(a.s);
    }
    return out;
}

std::string head_label(const HeadAnalysis& a) {
    if (!a.computed) return to_string(a.verdict);
    std::string s = to_string(a.pattern.kind);
    if (a.pattern.kind == PatternKind::offset || a.pattern.kind == PatternKind::strided ||
        a.pattern.kind == PatternKind::position)
        s += " " + std::to_string(a.pattern.parameter);
    return s;
}

HeadComparison compare_heads(const float* a, const float* b, int n_q, int n_k, const AnalyzeOptions& opts) {
    HeadComparison c;
    std::vector<float> wa, wb;
    AnalyzeOptions o = opts;
    o.want_rows = true;  // emptiness of each row
    o.keep_weights = &wa;
    c.a = analyze_head(a, n_q, n_k, o);
    o.keep_weights = &wb;
    c.b = analyze_head(b, n_q, n_k, o);
    c.mean_jsd = c.max_jsd = kNaN;
    if (c.a.computed && c.b.computed) {
        const std::size_t nk = static_cast<std::size_t>(n_k);
        double sum = 0;
        int n = 0;
        for (int t = 0; t < n_q; ++t) {
            if (c.a.rows[static_cast<std::size_t>(t)].empty || c.b.rows[static_cast<std::size_t>(t)].empty) continue;
            const float* p = wa.data() + static_cast<std::size_t>(t) * nk;
            const float* q = wb.data() + static_cast<std::size_t>(t) * nk;
            double js = 0;
            for (int j = 0; j < n_k; ++j) {
                const double pj = p[j], qj = q[j], m = 0.5 * (pj + qj);
                if (pj > 0) js += 0.5 * pj * std::log(pj / m);
                if (qj > 0) js += 0.5 * qj * std::log(qj / m);
            }
            js = std::max(0.0, js);
            sum += js;
            ++n;
            if (c.max_jsd_row < 0 || js > c.max_jsd) {
                c.max_jsd = js;
                c.max_jsd_row = t;
            }
        }
        if (n) c.mean_jsd = sum / n;
    }
    const bool both = c.a.computed && c.b.computed;
    for (const RowMetricInfo& info : kRowMetrics)
        if (info.mean) c.delta.*(info.mean) = both ? c.b.summary.*(info.mean) - c.a.summary.*(info.mean) : kNaN;
    c.label_a = head_label(c.a);
    c.label_b = head_label(c.b);
    c.label_changed = c.label_a != c.label_b;
    if (!opts.want_rows) {
        c.a.rows.clear();
        c.b.rows.clear();
    }
    return c;
}

StructureSummary summarize_structure(const std::vector<StructureHead>& heads, bool stated, Reading reading) {
    StructureSummary s;
    s.stated = stated;
    std::vector<StructureHead> open;
    for (const StructureHead& h : heads) {
        if (!h.computed) continue;
        ++s.analysed;
        if (h.causal_structure)
            ++s.causal_heads;
        else
            open.push_back(h);
    }
    if (stated)
        s.structure = "causal";
    else if (s.analysed == 0)
        s.structure = "unknown";
    else if (s.causal_heads == s.analysed)
        s.structure = "causal";
    else if (2 * s.causal_heads > s.analysed)
        s.structure = "mixed";
    else
        s.structure = "bidirectional";
    if ((s.structure == "causal" || s.structure == "mixed") && !(stated && reading == Reading::logits)) {
        std::stable_sort(open.begin(), open.end(), [](const StructureHead& x, const StructureHead& y) {
            const double a = std::isnan(x.above_diagonal_mass) ? -1 : x.above_diagonal_mass;
            const double b = std::isnan(y.above_diagonal_mass) ? -1 : y.above_diagonal_mass;
            return a > b;
        });
        s.flagged = std::move(open);
    }
    return s;
}

std::vector<int> token_ids_of(const std::vector<std::string>& tokens) {
    std::unordered_map<std::string, int> id;
    std::vector<int> out;
    out.reserve(tokens.size());
    for (const std::string& t : tokens) out.push_back(id.emplace(t, static_cast<int>(id.size())).first->second);
    return out;
}

std::vector<int> parse_layer_numbers(const std::string& text, int count) {
    auto bad = [&](const std::string& why) {
        return Error(ErrorCode::kInvalidValue, "layerNumbers",
                     "layer numbers \"" + text + "\": " + why + " (write them like 0,2,4,5 or 0-3,8)");
    };
    std::vector<int> out;
    std::size_t pos = 0;
    auto number = [&](const std::string& s) {
        std::size_t i = 0;
        while (i < s.size() && s[i] == ' ') ++i;
        std::size_t e = s.size();
        while (e > i && s[e - 1] == ' ') --e;
        if (i == e) throw bad("an empty item");
        long long v = 0;
        for (std::size_t k = i; k < e; ++k) {
            if (s[k] < '0' || s[k] > '9') throw bad("\"" + s.substr(i, e - i) + "\" is not a whole number >= 0");
            v = v * 10 + (s[k] - '0');
            if (v > 1000000) throw bad(s.substr(i, e - i) + " is too large");
        }
        return static_cast<int>(v);
    };
    while (pos <= text.size()) {
        std::size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(pos, comma - pos);
        const std::size_t dash = item.find('-');
        if (dash == std::string::npos) {
            out.push_back(number(item));
        } else {
            const int lo = number(item.substr(0, dash)), hi = number(item.substr(dash + 1));
            if (hi < lo) throw bad(item + " runs backwards");
            if (hi - lo > 100000) throw bad(item + " is too long a range");
            for (int v = lo; v <= hi; ++v) out.push_back(v);
        }
        if (out.size() > static_cast<std::size_t>(count) + 1) break;
        pos = comma + 1;
    }
    std::vector<int> sorted = out;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) throw bad("a layer is named twice");
    if (out.size() != static_cast<std::size_t>(count))
        throw bad(std::string(out.size() > static_cast<std::size_t>(count) ? "more" : "fewer") + " numbers than the " +
                  std::to_string(count) + " layer" + (count == 1 ? "" : "s") + " of the file");
    return out;
}

std::vector<int> layer_numbers_from_labels(const std::vector<std::string>& labels) {
    std::vector<int> out;
    for (const std::string& l : labels) {
        // The last run of digits in the label.
        std::size_t e = l.size();
        while (e > 0 && !(l[e - 1] >= '0' && l[e - 1] <= '9')) --e;
        if (e == 0) return {};
        std::size_t b = e;
        while (b > 0 && l[b - 1] >= '0' && l[b - 1] <= '9') --b;
        if (e - b > 6) return {};
        out.push_back(std::stoi(l.substr(b, e - b)));
    }
    std::vector<int> sorted = out;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return {};
    return out;
}

Matrix mean_heads(const std::vector<std::vector<float>>& heads, int n_q, int n_k) {
    if (heads.empty() || n_q < 1 || n_k < 1)
        throw Error(ErrorCode::kShapeMismatch, "heads",
                    "the mean over heads needs at least one head of at least 1 x 1");
    const std::size_t cells = static_cast<std::size_t>(n_q) * static_cast<std::size_t>(n_k);
    for (const std::vector<float>& h : heads)
        if (h.size() != cells)
            throw Error(ErrorCode::kShapeMismatch, "heads", "every head of the mean must have n_q * n_k values");
    Matrix out(n_q, n_k);
    for (std::size_t c = 0; c < cells; ++c) {
        double sum = 0;
        int n = 0;
        for (const std::vector<float>& h : heads)
            if (std::isfinite(h[c])) {
                sum += h[c];
                n += 1;
            }
        out.data[c] = n ? static_cast<float>(sum / n) : std::numeric_limits<float>::quiet_NaN();
    }
    return out;
}

}  // namespace attn
