// Head pattern scores and the winning class (analysis.hpp; formulas, thresholds and their reasons
// in docs/analysis.md "Head patterns"). The classes are seed 002's (local, strided, global,
// position, sink heads; local split into self / previous / next / offset); the scoring is ours.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "attn/error.hpp"
#include "patterns_internal.hpp"

namespace attn {
namespace {

/// An offset or a column must be seen by at least max(2, this x non-empty rows) rows to win:
/// a far diagonal that exists in one row is that row's weight, not a pattern of the head.
constexpr double kMinRowsFraction = 0.25;
/// Periods 2 .. min(kMaxPeriod, n_k / 2) are tried.
constexpr int kMaxPeriod = 64;
/// A comb of period p is also one of every divisor of p: among the multiples of the best period
/// that score within this of it, the largest is reported.
constexpr double kPeriodTolerance = 0.02;

/// A weight as the scores read it: NaN, Inf and negatives are 0.
inline float clean(float x) noexcept {
    return (x > 0.0f && x <= FLT_MAX) ? x : 0.0f;
}

inline double clamp01(double x) noexcept {
    return x > 1.0 ? 1.0 : (x > 0.0 ? x : 0.0);
}

}  // namespace

const char* to_string(PatternKind k) {
    switch (k) {
#define ATTN_PATTERN_KIND(name, parameter) \
    case PatternKind::name:                \
        return #name;
#include "attn/head_scores.def"
#undef ATTN_PATTERN_KIND
    }
    return "?";
}

namespace detail {

PatternAccumulator::PatternAccumulator(int n_q, int n_k) : n_q_(n_q), n_k_(n_k), off_(n_k - n_q) {
    if (n_q < 1 || n_k < 1)
        throw Error(ErrorCode::kShapeMismatch, "shape", "a head needs at least one query and one key");
    // d = t' - j ranges over [1 - n_q, n_k - 2] for keys j >= 1: index d + n_q - 1.
    const std::size_t diags = static_cast<std::size_t>(n_q) + static_cast<std::size_t>(n_k);
    diag_.assign(diags, 0.0);
    diag_rows_.assign(diags + 1, 0);
    col_.assign(static_cast<std::size_t>(n_k), 0.0);
    col_rows_.assign(static_cast<std::size_t>(n_k) + 1, 0);
}

void PatternAccumulator::add_row(int t, const float* w) {
    if (t < 0 || t >= n_q_ || !w) return;
    const int tp = t + off_;  // t': the query's position among the keys
    const float w0 = clean(w[0]);
    double total = w0;
    double above = 0;
    // Diagonal d = tp - j lives at index tp - j + n_q - 1; j = 1 .. n_k - 1.
    double* diag = diag_.data() + (static_cast<std::ptrdiff_t>(tp) + n_q_ - 1);
    double* col = col_.data();
    for (int j = 1; j < n_k_; ++j) {
        const float x = clean(w[j]);
        diag[-j] += x;
        col[j] += x;
        total += x;
    }
    if (!(total > 0.0)) return;  // empty row: nothing was added (every x was 0)
    for (int j = std::max(tp + 1, 1); j < n_k_; ++j) above += clean(w[j]);
    if (tp + 1 <= 0 && w0 > 0.0f) above += w0;  // t' < 0 (n_q > n_k): even key 0 is above
    if (above > 0.0) above_ = true;
    sink_ += w0;
    ++rows_;
    if (n_k_ >= 2) {
        // This row has diagonals d in [tp - (n_k - 1), tp - 1] (keys 1 .. n_k - 1) ...
        const std::ptrdiff_t lo = static_cast<std::ptrdiff_t>(tp) - (n_k_ - 1) + n_q_ - 1;
        const std::ptrdiff_t hi = static_cast<std::ptrdiff_t>(tp) - 1 + n_q_ - 1;
        diag_rows_[static_cast<std::size_t>(lo)] += 1;
        diag_rows_[static_cast<std::size_t>(hi) + 1] -= 1;
        // ... and, read as causal, sees the columns j in [1, min(tp, n_k - 1)].
        const int last = std::min(tp, n_k_ - 1);
        if (last >= 1) {
            col_rows_[1] += 1;
            col_rows_[static_cast<std::size_t>(last) + 1] -= 1;
        }
    }
}

Pattern PatternAccumulator::finish(double mean_breadth) const {
    Pattern p;
    PatternScores& s = p.scores;
    if (rows_ == 0) return p;  // no non-empty row: global with confidence 0
    const double n = rows_;
    const double need = std::max(2.0, kMinRowsFraction * n);
    const int d_min = 1 - n_q_;  // diagonal index 0
    const std::size_t diags = diag_.size();

    std::vector<std::int64_t> drows(diags, 0);  // rows having diagonal d (keys j >= 1)
    std::int64_t run = 0;
    for (std::size_t i = 0; i < diags; ++i) drows[i] = (run += diag_rows_[i]);
    auto diag_mean = [&](int d) -> double {
        const std::ptrdiff_t i = static_cast<std::ptrdiff_t>(d) - d_min;
        if (i < 0 || i >= static_cast<std::ptrdiff_t>(diags) || drows[static_cast<std::size_t>(i)] == 0) return 0.0;
        return diag_[static_cast<std::size_t>(i)] / static_cast<double>(drows[static_cast<std::size_t>(i)]);
    };

    s.sink = clamp01(sink_ / n);
    s.self = clamp01(diag_mean(0));
    s.previous = clamp01(diag_mean(1));
    s.next = clamp01(diag_mean(-1));

    // Offset: the best diagonal |d| >= 2 among those with enough rows (nearest d on ties).
    for (std::size_t i = 0; i < diags; ++i) {
        const int d = static_cast<int>(i) + d_min;
        if (std::abs(d) < 2 || static_cast<double>(drows[i]) < need) continue;
        const double m = clamp01(diag_[i] / static_cast<double>(drows[i]));
        if (m > s.offset || (m == s.offset && m > 0 && std::abs(d) < std::abs(s.offset_d))) {
            s.offset = m;
            s.offset_d = d;
        }
    }

    // Strided: per period p, the mass R_0 on the diagonals d = +-p, +-2p, ... minus the largest
    // of those diagonals (one stripe alone is an offset, not a period) minus the largest mass
    // R_r of another residue class r = d mod p (a flat or decaying row fills every class alike).
    const int p_max = std::min(kMaxPeriod, n_k_ / 2);
    std::vector<double> score_of(static_cast<std::size_t>(std::max(p_max, 1)) + 1, 0.0);
    std::vector<double> residue;
    int best_p = 0;
    double best = 0;
    for (int per = 2; per <= p_max; ++per) {
        residue.assign(static_cast<std::size_t>(per), 0.0);
        double comb_max = 0;
        for (std::size_t i = 0; i < diags; ++i) {
            const int d = static_cast<int>(i) + d_min;
            if (d == 0 || diag_[i] == 0.0) continue;
            const int r = ((d % per) + per) % per;
            residue[static_cast<std::size_t>(r)] += diag_[i];
            if (r == 0) comb_max = std::max(comb_max, diag_[i]);
        }
        double other = 0;
        for (int r = 1; r < per; ++r) other = std::max(other, residue[static_cast<std::size_t>(r)]);
        const double sc = clamp01((residue[0] - comb_max - other) / n);
        score_of[static_cast<std::size_t>(per)] = sc;
        if (sc > best) {
            best = sc;
            best_p = per;
        }
    }
    if (best_p > 0) {
        int chosen = best_p;
        for (int per = 2 * best_p; per <= p_max; per += best_p)
            if (score_of[static_cast<std::size_t>(per)] > 0 &&
                score_of[static_cast<std::size_t>(per)] >= best - kPeriodTolerance)
                chosen = per;
        s.strided = score_of[static_cast<std::size_t>(chosen)];
        s.period = chosen;
    }

    // Position: the best column j >= 1, its mean over the rows that can see it: every row of a
    // head with weight above the diagonal, else (causal-looking) the rows with t' >= j.
    std::int64_t seen = 0;
    for (int j = 1; j < n_k_; ++j) {
        seen += col_rows_[static_cast<std::size_t>(j)];
        const double denom = above_ ? n : static_cast<double>(seen);
        if (denom < need) continue;
        const double m = clamp01(col_[static_cast<std::size_t>(j)] / denom);
        if (m > s.position) {
            s.position = m;
            s.position_key = j;
        }
    }

    // Global: how broad the rows are (the fraction of their visible keys they effectively use),
    // times the mass no structure above explains (docs/analysis.md: why not the normalised
    // entropy, which is 0.69 for a row with half its mass on one key of 33).
    const double structured = std::max({s.sink, s.self, s.previous, s.next, s.offset, s.strided, s.position});
    const double b = std::isnan(mean_breadth) ? 0.0 : clamp01(mean_breadth);
    s.global = clamp01(b * (1.0 - structured));

    // Winner: the largest score; ties go to the class listed first in PatternKind.
    const struct {
        PatternKind k;
        double v;
        int param;
    } cand[] = {
    // Each class's score is the PatternScores member of its name; its parameter the member the
    // table names (none: 0).
#define ATTN_PATTERN_PARAMETER_none 0
#define ATTN_PATTERN_PARAMETER_offset_d s.offset_d
#define ATTN_PATTERN_PARAMETER_period s.period
#define ATTN_PATTERN_PARAMETER_position_key s.position_key
#define ATTN_PATTERN_KIND(name, parameter) {PatternKind::name, s.name, ATTN_PATTERN_PARAMETER_##parameter},
#include "attn/head_scores.def"
#undef ATTN_PATTERN_KIND
#undef ATTN_PATTERN_PARAMETER_none
#undef ATTN_PATTERN_PARAMETER_offset_d
#undef ATTN_PATTERN_PARAMETER_period
#undef ATTN_PATTERN_PARAMETER_position_key
    };
    double top = -1;
    for (const auto& c : cand)
        if (c.v > top) {
            top = c.v;
            p.kind = c.k;
            p.confidence = c.v;
            p.parameter = c.param;
        }
    return p;
}

double breadth(double n_eff, int visible) {
    if (visible < 2 || std::isnan(n_eff)) return 0.0;  // a point mass, or an empty row
    return clamp01((n_eff - 1.0) / (visible - 1.0));
}

double mean_breadth_of(const float* weights, int n_q, int n_k) {
    double total = 0;
    int used = 0;
    for (int t = 0; t < n_q; ++t) {
        const float* w = weights + static_cast<std::size_t>(t) * static_cast<std::size_t>(n_k);
        double z = 0;
        int count = 0;
        for (int j = 0; j < n_k; ++j) {
            const float x = clean(w[j]);
            if (x > 0.0f) {
                z += x;
                ++count;
            }
        }
        if (count == 0) continue;  // empty row
        ++used;
        double h = 0;
        for (int j = 0; j < n_k; ++j) {
            const double x = clean(w[j]);
            if (x > 0.0) h -= (x / z) * std::log(x / z);
        }
        total += breadth(std::exp(h), count);
    }
    return used ? total / used : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace detail

Pattern classify_pattern(const float* weights, int n_q, int n_k) {
    detail::PatternAccumulator acc(n_q, n_k);
    if (!weights) return acc.finish(std::numeric_limits<double>::quiet_NaN());
    for (int t = 0; t < n_q; ++t) acc.add_row(t, weights + static_cast<std::size_t>(t) * static_cast<std::size_t>(n_k));
    return acc.finish(detail::mean_breadth_of(weights, n_q, n_k));
}

}  // namespace attn
