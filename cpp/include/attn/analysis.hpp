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
#include "attn/row_metrics.hpp"

namespace attn {

/// What a raw n_q x n_k block of numbers looks like, before anything is computed from it.
struct HeadCheck {
    int n_q = 0, n_k = 0;
    std::int64_t nonfinite = 0;    ///< NaN or +Inf entries (-Inf is a mask fill, below)
    int first_nonfinite_row = -1;  ///< row and column of the first one (row-major order)
    int first_nonfinite_col = -1;
    std::int64_t negative = 0;   ///< entries < 0 (finite)
    std::int64_t above_one = 0;  ///< entries > 1 + kProbabilityTolerance
    /// Entries <= kMaskFill: the -FLT_MAX or -1e38 fill of masked logits, and -Inf (what
    /// TransformerLens' attn_scores and many exports hold above the diagonal). Not
    /// probabilities; read as logits they are masked keys.
    std::int64_t fill = 0;
    double min_value = 0, max_value = 0;  ///< over finite entries (NaN if none)
    int zero_rows = 0;                    ///< rows whose entries are all exactly 0
    /// max |sum_j a_tj - 1| over the rows that are not all zero and hold no NaN or +-Inf.
    double max_row_sum_error = 0;
    int worst_row = -1;  ///< the first row where it occurs (-1: no such row)
    /// Rows with a positive value above the causal diagonal (key j > t + (n_k - n_q)), the
    /// largest such value and the first such row. Meaningful for probabilities of a head said to
    /// be causal; check_head counts them whatever the head is said to be.
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
/// Values at or below this are a "masked" fill (-FLT_MAX, -1e38, -Inf) when read as logits.
/// Smaller fills (-1e9, -1e5, float16's -65504) stay visible logits: their weight underflows to 0
/// but they count in |Omega_t|.
inline constexpr double kMaskFill = -1e30;

/// Scans n_q x n_k values (row-major) once. Never throws for any input, NaN and Inf included (a
/// null pointer or a size < 1 gives an empty check: min/max NaN, nothing counted).
HeadCheck check_head(const float* a, int n_q, int n_k);

/// Verdict of a check (docs/import.md, docs/analysis.md "Import checks"), first rule that holds:
///   invalid            NaN or +Inf anywhere (nonfinite > 0), whatever else the head holds;
///   not_probabilities  negative entries, entries above 1 + kProbabilityTolerance, mask fills
///                      (<= kMaskFill, -Inf included) or a row sum off by more than
///                      kRowSumTolerance: offer them as logits;
///   probabilities_warn a row sum off by more than kRowSumQuiet;
///   probabilities      otherwise.
enum class Verdict { probabilities, probabilities_warn, not_probabilities, invalid };
Verdict verdict(const HeadCheck& c);
const char* to_string(Verdict v);

/// Head pattern classes (seed 002; the scoring is ours, docs/analysis.md "Head patterns").
enum class PatternKind {
    sink,      ///< most mass on the first key(s) (BOS): score = mean sink mass
    self,      ///< on the query's own position (offset 0)
    previous,  ///< on the previous position (offset 1)
    next,      ///< on the next position (offset -1; bidirectional heads)
    offset,    ///< on one diagonal at offset d >= 2 (an induction stripe on repeated text)
    strided,   ///< spread over diagonals at multiples of a period p >= 2
    position,  ///< on one fixed key column j >= 1 for every query
    global,    ///< broad: score = mean breadth x (1 - the best score above)
};
const char* to_string(PatternKind k);

/// Every class's score in [0, 1] and its parameter (0 when the score is 0), means over the
/// non-empty rows. Diagonal offsets are d = t' - j with t' = t + (n_k - n_q) (the query's position
/// among the keys); mass on key 0 never counts for a diagonal, a period or a column (it is the
/// sink's). Offsets and columns need max(2, rows / 4) rows that have them. Formulas:
/// docs/analysis.md "Head patterns".
struct PatternScores {
    double sink = 0;
    double self = 0;
    double previous = 0;
    double next = 0;
    double offset = 0;
    int offset_d = 0;  ///< best diagonal with |d| >= 2
    /// Mass on the diagonals +-p, +-2p, ... beyond the best single one of them and beyond the
    /// mass of any other residue class d mod p (so flat or decaying rows score 0).
    double strided = 0;
    int period = 0;
    double position = 0;
    int position_key = 0;  ///< best fixed column j >= 1
    /// mean breadth (N_eff - 1) / (|Omega_t| - 1) times (1 - the largest score above).
    double global = 0;
};

/// The class with the largest score (ties: the first in PatternKind's order). A head without a
/// non-empty row is `global` with confidence 0.
struct Pattern {
    PatternKind kind = PatternKind::global;
    double confidence = 0;  ///< the winning score, in [0, 1]
    int parameter = 0;      ///< offset d, period p or key j for those classes, else 0
    PatternScores scores;
};

/// Classifies a head from its normalised weights (row-major n_q x n_k, 0 where not visible, empty
/// rows all 0 and skipped; NaN, Inf and negative values count as 0). A zero weight is taken as not
/// visible (|Omega_t| = the row's positive weights); a head is read as causal unless some row has
/// weight above its diagonal. Throws Error(kShapeMismatch) if n_q or n_k < 1, nothing else.
Pattern classify_pattern(const float* weights, int n_q, int n_k);

/// How to read the values of an imported head.
enum class Reading { weights, logits };

struct AnalyzeOptions {
    Reading reading = Reading::weights;
    /// The user says the head is causal: the check reports weight above the diagonal, and for
    /// logits the causal mask is applied.
    bool causal = false;
    int top_k = kRowDefaults.top_k;
    int sink_keys = kRowDefaults.sink_keys;
    double delta = kRowDefaults.delta;
    int thumbnail = 32;     ///< side of the pooled (mean) thumbnail, 0 = none, at most 1024
    bool want_rows = true;  ///< keep the per-row metrics (the summary is always computed)
};

struct HeadAnalysis {
    HeadCheck check;
    Verdict verdict = Verdict::probabilities;
    /// False when the verdict forbids the reading (see analyze_head): then summary.rows = n_q,
    /// its means NaN, no rows, pattern global with confidence 0 and a 0 x 0 thumbnail.
    bool computed = false;
    HeadSummary summary;           ///< means over non-empty rows
    std::vector<RowMetrics> rows;  ///< n_q entries when want_rows and computed
    Pattern pattern;
    Matrix thumbnail;  ///< min(thumbnail, n_q) x min(thumbnail, n_k), mean-pooled
                       ///< normalised weights; NaN where no cell is visible
};

/// Checks and analyses one head of raw values (row-major n_q x n_k float32, as read from a file).
/// reading = weights: computed only for verdicts probabilities / probabilities_warn; each row is
///   renormalised over its non-zero entries (weights mode of the core: softmax(ln a)), an all-zero
///   row is an empty row.
/// reading = logits: computed unless invalid; values <= kMaskFill (and -Inf) are masked keys, the
///   causal mask (key j <= t + (n_k - n_q)) applies when opts.causal.
/// The thumbnail cell of (t, j) is (t * rows / n_q, j * cols / n_k), as in the pipeline's
/// overview; its value is the mean over all its (query, key) pairs, 0 for a pair not visible.
/// The weights are never stored: memory is the pipeline's blocks (64 rows, fewer beyond 16384
/// keys: at most 2^20 cells), a copy of at most 2^22 cells for logits with a mask fill, and
/// O(n_q + n_k + thumbnail^2).
/// Never throws for the values themselves (they are judged in `check`/`verdict`); throws
/// Error(kShapeMismatch / kTooLarge / kInvalidValue) for bad sizes or options.
HeadAnalysis analyze_head(const float* values, int n_q, int n_k, const AnalyzeOptions& opts);

/// One analysed head as the per-layer summary of an import reads it.
struct LayerHead {
    int layer = 0;
    bool computed = false;  ///< HeadAnalysis::computed: only such heads enter the means
    HeadSummary summary;
};

/// The heads of one layer of an import (the import view's layer table).
struct LayerSummary {
    int layer = 0;
    int heads = 0;     ///< heads of this layer given
    int analysed = 0;  ///< of which computed
    /// Means over the computed heads of the layer of their finite mean_normalized_entropy,
    /// mean_sink_mass, mean_n_eff and mean_top_k_mass (each mean skips the heads where that value
    /// is NaN or infinite); NaN when no head has a finite value.
    double mean_normalized_entropy = 0;
    double mean_sink_mass = 0;
    double mean_n_eff = 0;
    double mean_top_k_mass = 0;
};

/// One LayerSummary per layer, in the order the layers first appear in `heads` (any order, any
/// layer numbers). Sums run in the order of `heads`. Never throws.
std::vector<LayerSummary> summarize_layers(const std::vector<LayerHead>& heads);

/// The mean over heads of a layer's attention weights, for the token views (docs/import.md
/// "Token views"): out[t][j] = (sum over the heads h where heads[h][t * n_k + j] is finite of that
/// value) / (their count), NaN where no head has a finite value (a key no head sees). Each head is
/// row-major n_q x n_k float32 (NaN = not visible), as analyze_head's full-resolution thumbnail.
/// Sums run in head order in double. O(heads * n_q * n_k).
/// Throws Error(kShapeMismatch, "heads") when there is no head, n_q or n_k < 1, or a head's size
/// is not n_q * n_k.
Matrix mean_heads(const std::vector<std::vector<float>>& heads, int n_q, int n_k);

}  // namespace attn
