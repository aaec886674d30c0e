// Analysis of one head of an imported tensor: what the numbers are (probabilities or not), where
// they are broken, every per-row metric, a pooled thumbnail and the head's pattern label.
//
// Shared by the page (Embind, one head at a time as slices of a file arrive) and `attn analyze`,
// so both report identical numbers. Conventions as in attention.hpp and docs/MATH.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/matrix.hpp"

namespace attn {

/// What a raw n_q x n_k block of numbers looks like, before anything is computed from it.
struct HeadCheck {
    int n_q = 0, n_k = 0;
    std::int64_t nonfinite = 0;          ///< NaN or +-Inf entries
    int first_nonfinite_row = -1;        ///< row and column of the first one (row-major order)
    int first_nonfinite_col = -1;
    std::int64_t negative = 0;           ///< entries < 0 (finite)
    std::int64_t above_one = 0;          ///< entries > 1 + kProbabilityTolerance
    std::int64_t fill = 0;               ///< entries <= kMaskFill (e.g. -FLT_MAX fill of masked logits)
    double min_value = 0, max_value = 0; ///< over finite entries (NaN if none)
    int zero_rows = 0;                   ///< rows whose entries are all exactly 0
    double max_row_sum_error = 0;        ///< max |sum_j a_tj - 1| over rows that are not all zero
    int worst_row = -1;                  ///< the row where it occurs
    /// Rows with weight above the causal diagonal (key j > t + (n_k - n_q)), their largest such
    /// weight and the first such row. Meaningful for probabilities of a head said to be causal.
    int rows_above_diagonal = 0;
    double max_above_diagonal = 0;
    int first_row_above_diagonal = -1;
};

/// Row sums within this of 1 are exact enough to say nothing (float32 accumulation of 1e3 terms).
inline constexpr double kRowSumQuiet = 1e-4;
/// Row sums within this of 1 are accepted with a warning (float16 exports sum within ~3e-4, a
/// 5-decimal rounding of 40 keys within ~1e-4); beyond it the rows are not probabilities.
inline constexpr double kRowSumTolerance = 1e-2;
/// A weight may exceed 1 by this much (rounding) and still be a probability.
inline constexpr double kProbabilityTolerance = 1e-3;
/// Values at or below this are a "masked" fill (-FLT_MAX, -1e9 ...) when read as logits.
inline constexpr double kMaskFill = -1e30;

/// Scans n_q x n_k values (row-major). Never throws for any input, NaN and Inf included.
HeadCheck check_head(const float* a, int n_q, int n_k);

/// Verdict of a check (docs/import.md): the numbers are probabilities, probabilities with a
/// warning (row sums off by more than kRowSumQuiet), or not probabilities at all (negative
/// entries, entries above 1, row sums off by more than kRowSumTolerance: offer them as logits).
/// A non-finite entry makes a head `invalid` whatever else it holds.
enum class Verdict { probabilities, probabilities_warn, not_probabilities, invalid };
Verdict verdict(const HeadCheck& c);
const char* to_string(Verdict v);

/// Head pattern classes (seed 002; the scoring is ours, docs/import.md "Head patterns").
enum class PatternKind {
    sink,       ///< most mass on the first key(s) (BOS): score = mean sink mass
    self,       ///< on the query's own position (offset 0)
    previous,   ///< on the previous position (offset 1)
    next,       ///< on the next position (offset -1; bidirectional heads)
    offset,     ///< on one diagonal at offset d >= 2 (an induction stripe on repeated text)
    strided,    ///< spread over diagonals at multiples of a period p >= 2
    position,   ///< on one fixed key column j >= 1 for every query
    global,     ///< broad: score = mean normalised entropy
};
const char* to_string(PatternKind k);

/// Every class's score in [0, 1] and its parameter. Diagonal offsets are d = t' - j with
/// t' = t + (n_k - n_q) (the query's position among the keys); mass on key 0 never counts for a
/// diagonal, a period or a column (it is the sink's).
struct PatternScores {
    double sink = 0;
    double self = 0;
    double previous = 0;
    double next = 0;
    double offset = 0;    int offset_d = 0;     ///< best diagonal with |d| >= 2
    double strided = 0;   int period = 0;       ///< mass on multiples of p beyond the best single one
    double position = 0;  int position_key = 0; ///< best fixed column j >= 1
    double global = 0;
};

struct Pattern {
    PatternKind kind = PatternKind::global;
    double confidence = 0;  ///< the winning score, in [0, 1]
    int parameter = 0;      ///< offset d, period p or key j for those classes, else 0
    PatternScores scores;
};

/// Classifies a head from its normalised weights (row-major n_q x n_k, 0 where not visible, empty
/// rows all 0 and skipped). Throws Error(kShapeMismatch) if n_q or n_k < 1.
Pattern classify_pattern(const float* weights, int n_q, int n_k);

/// How to read the values of an imported head.
enum class Reading { weights, logits };

struct AnalyzeOptions {
    Reading reading = Reading::weights;
    /// The user says the head is causal: the check reports weight above the diagonal, and for
    /// logits the causal mask is applied.
    bool causal = false;
    int top_k = 2;
    int sink_keys = 1;
    double delta = 0.1;
    int thumbnail = 32;      ///< side of the pooled (mean) thumbnail, 0 = none, at most 1024
    bool want_rows = true;   ///< keep the per-row metrics (the summary is always computed)
};

struct HeadAnalysis {
    HeadCheck check;
    Verdict verdict = Verdict::probabilities;
    bool computed = false;          ///< false when the verdict forbids the reading (see analyze_head)
    HeadSummary summary;            ///< means over non-empty rows
    std::vector<RowMetrics> rows;   ///< n_q entries when want_rows and computed
    Pattern pattern;
    Matrix thumbnail;               ///< min(thumbnail, n_q) x min(thumbnail, n_k), mean-pooled
                                    ///< normalised weights; NaN where no cell is visible
};

/// Checks and analyses one head of raw values (row-major n_q x n_k float32, as read from a file).
/// reading = weights: computed only for verdicts probabilities / probabilities_warn; each row is
///   renormalised over its non-zero entries (weights mode of the core: softmax(ln a)), an all-zero
///   row is an empty row.
/// reading = logits: computed unless invalid; values <= kMaskFill are masked keys (-inf), the
///   causal mask applies when opts.causal.
/// Never throws for the values themselves (they are judged in `check`/`verdict`); throws
/// Error(kShapeMismatch / kTooLarge / kInvalidValue) for bad sizes or options.
HeadAnalysis analyze_head(const float* values, int n_q, int n_k, const AnalyzeOptions& opts);

}  // namespace attn
