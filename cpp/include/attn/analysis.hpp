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
    /// Also the finite fills of kFiniteMaskFills (-1e4, -65504, -1e9): fill counts every mask
    /// fill (is_mask_fill), neg_inf those that are -Inf, finite_fill the others.
    std::int64_t fill = 0;
    std::int64_t neg_inf = 0;
    std::int64_t finite_fill = 0;
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
    /// Entries above the diagonal that are neither 0 nor a mask fill (what breaks a causal
    /// structure: 0 for weights zero above the diagonal and for logits masked there).
    std::int64_t above_diagonal_open = 0;
    /// Entries above the diagonal that are exactly 0 (a logit of 0 there is a visible key).
    std::int64_t above_diagonal_zero = 0;
};

/// Row sums within this of 1 are exact enough to say nothing (float32 accumulation of 1e3 terms).
inline constexpr double kRowSumQuiet = 1e-4;
/// Row sums within this of 1 are accepted with a warning (float16 exports sum within ~3e-4, a
/// 5-decimal rounding of 40 keys within ~1e-4); beyond it the rows are not probabilities.
inline constexpr double kRowSumTolerance = 1e-2;
/// A weight may exceed 1 by this much (rounding) and still be a probability.
inline constexpr double kProbabilityTolerance = 1e-3;
/// Values at or below this are a "masked" fill (-FLT_MAX, -1e38, -Inf) when read as logits.
inline constexpr double kMaskFill = -1e30;
/// The finite fills exports write into masked logits besides those <= kMaskFill: -1e4 (GPT-2's
/// masked_bias in Hugging Face), float16's lowest -65504 (torch.finfo(float16).min) and -1e9
/// (a common masked_fill value). Compared exactly, as float32: a logit of -10000.0 exactly is a
/// mask, -9999.9 is a score.
inline constexpr float kFiniteMaskFills[] = {-1e4f, -65504.0f, -1e9f};
/// True for a mask fill: x <= kMaskFill (-Inf and -FLT_MAX included) or one of kFiniteMaskFills.
inline bool is_mask_fill(float x) noexcept {
    return x <= static_cast<float>(kMaskFill) || x == kFiniteMaskFills[0] || x == kFiniteMaskFills[1] ||
           x == kFiniteMaskFills[2];
}

/// Scans n_q x n_k values (row-major) once. Never throws for any input, NaN and Inf included (a
/// null pointer or a size < 1 gives an empty check: min/max NaN, nothing counted).
HeadCheck check_head(const float* a, int n_q, int n_k);

/// Verdict of a check (docs/import.md, docs/analysis.md "Import checks"), first rule that holds:
///   invalid            NaN or +Inf anywhere (nonfinite > 0), whatever else the head holds;
///   not_probabilities  negative entries, entries above 1 + kProbabilityTolerance, mask fills
///                      (is_mask_fill, -Inf included) or a row sum off by more than
///                      kRowSumTolerance, or every row all zero (zero_rows == n_q: one zero row
///                      is an empty row, a head of them is no distribution): offer them as logits;
///   probabilities_warn a row sum off by more than kRowSumQuiet;
///   probabilities      otherwise.
enum class Verdict { probabilities, probabilities_warn, not_probabilities, invalid };
Verdict verdict(const HeadCheck& c);
const char* to_string(Verdict v);

/// Head pattern classes (seed 002; the scoring is ours, docs/analysis.md "Head patterns").
enum class PatternKind {
#define ATTN_PATTERN_KIND(name, parameter) name,
#include "attn/head_scores.def"
#undef ATTN_PATTERN_KIND
};
/// Every pattern class in PatternKind's order (head_scores.def).
inline constexpr PatternKind kPatternKinds[] = {
#define ATTN_PATTERN_KIND(name, parameter) PatternKind::name,
#include "attn/head_scores.def"
#undef ATTN_PATTERN_KIND
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
    /// A head whose structure is causal (HeadAnalysis::causal_structure) has |Omega_t| = the keys
    /// up to its diagonal, t' + 1, whatever its weights: a weight that underflowed to exactly 0
    /// (float16) is a visible key of weight 0, not a masked one. False: zeros are not visible
    /// (the weights mode of the core).
    bool causal_from_structure = true;
    /// Token ids of the keys (n_k entries; equal ids = the same token), for the
    /// TransformerLens duplicate-token and induction scores; empty: those scores are NaN.
    std::vector<int> token_ids;
    /// When not null, receives the n_q x n_k normalised weights (row-major, 0 where not visible;
    /// compare_heads() reads them). Costs n_q x n_k floats.
    std::vector<float>* keep_weights = nullptr;
};

/// TransformerLens's head-detector scores (transformer_lens/head_detector.py, detect_head with
/// its defaults: error_measure "mul", exclude_bos and exclude_current_token false), computed on
/// the head's attention pattern A (the file's weights as they are; the softmax for logits):
///   score = sum(A * P) / sum(A) over every cell, for the detection pattern P (0/1, n x n):
///   previous_token  P[t][t-1] = 1 (t >= 1): key 0 counts, row 0 has no previous key;
///   duplicate_token P[t][j] = 1 for j < t with token j == token t;
///   induction       P[t][j] = 1 for 1 <= j <= t with token j-1 == token t (the duplicate
///                   pattern shifted one key right).
/// NaN when the head is not square (TransformerLens asserts n_q == n_k), and the last two when no
/// token ids are given. Tokens are compared as strings (TransformerLens compares ids).
struct FieldScores {
#define ATTN_HEAD_SCORE(field, key, csv) double field = 0;
#include "attn/head_scores.def"
#undef ATTN_HEAD_SCORE
};

/// One head-detector score of head_scores.def, for code that handles every score alike.
struct HeadScoreInfo {
    const char* key;  ///< JSON key
    const char* csv;  ///< CSV column
    double FieldScores::*member;
};
inline constexpr HeadScoreInfo kHeadScores[] = {
#define ATTN_HEAD_SCORE(field, key, csv) HeadScoreInfo{key, csv, &FieldScores::field},
#include "attn/head_scores.def"
#undef ATTN_HEAD_SCORE
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
    /// The head is causal by its values: weights zero above the diagonal (check.above_diagonal_
    /// open == 0 and no positive value there), logits masked above it (fills, or opts.causal).
    bool causal_structure = false;
    /// |Omega_t| came from the causal structure (opts.causal_from_structure and causal_structure).
    bool causal_visibility = false;
    /// Mean over the non-empty rows of the normalised weight above the diagonal,
    /// sum_{j > t'} a_tj, in [0, 1] (0 for a causal head); NaN when not computed.
    double above_diagonal_mass = 0;
    FieldScores field;  ///< NaN when not computed
};

/// One analysed head as the structure check of a file reads it.
struct StructureHead {
    int layer = 0, head = 0;
    bool computed = false;          ///< HeadAnalysis::computed: only such heads are counted
    bool causal_structure = false;  ///< HeadAnalysis::causal_structure
    double above_diagonal_mass = 0;
    int rows_above_diagonal = 0, first_row_above_diagonal = -1;
    double max_above_diagonal = 0;
};

/// What a file's heads say of its structure (docs/import.md "Checks that run by themselves"):
///   causal         stated (the user says so), or every computed head is causal by its values;
///   mixed          more than half of the computed heads are causal, the others not;
///   bidirectional  half or fewer are causal;
///   unknown        no head computed.
/// `flagged`: when causal or mixed, the computed heads that are not causal, largest
/// above_diagonal_mass first (ties: file order); none when stated for logits (the causal mask
/// is then applied, nothing is above the diagonal).
struct StructureSummary {
    std::string structure = "unknown";
    bool stated = false;
    int causal_heads = 0, analysed = 0;
    std::vector<StructureHead> flagged;
};
StructureSummary summarize_structure(const std::vector<StructureHead>& heads, bool stated, Reading reading);

/// Two runs of the same head (same n_q x n_k): each analysed (rows dropped) and the
/// Jensen-Shannon divergence of their rows, JSD(p, q) = (KL(p||m) + KL(q||m)) / 2 with
/// m = (p + q) / 2, in nats, in [0, ln 2]; mean and max over the rows non-empty in both.
struct HeadComparison {
    HeadAnalysis a, b;
    double mean_jsd = 0;  ///< NaN when no row is non-empty in both (or either is not computed)
    double max_jsd = 0;
    int max_jsd_row = -1;
    /// B - A of every head mean (delta.mean_<field>, one per MEAN metric of metrics.def; NaN
    /// unless both are computed). rows and empty_rows are 0.
    HeadSummary delta;
    /// Each head's label as head_label() writes it, and whether they differ.
    std::string label_a, label_b;
    bool label_changed = false;
};

/// A head's label in words that do not depend on a language: the pattern class and its
/// parameter ("offset 19", "position 7", "sink"), or the verdict when not computed
/// ("not_probabilities"). What `attn compare` and the page's comparison write.
std::string head_label(const HeadAnalysis& a);

/// Analyses both heads with the same options (analyze_head) and compares their rows. Throws as
/// analyze_head does.
HeadComparison compare_heads(const float* a, const float* b, int n_q, int n_k, const AnalyzeOptions& opts);

/// Ids of tokens for AnalyzeOptions::token_ids: equal strings get equal ids (first appearance
/// order, from 0).
std::vector<int> token_ids_of(const std::vector<std::string>& tokens);

/// Layer numbers written as "0,2,4,5" or "0-3,8" (whole numbers >= 0, in the file's order, no
/// repeats), exactly `count` of them. Throws Error(kInvalidValue, "layerNumbers") otherwise.
std::vector<int> parse_layer_numbers(const std::string& text, int count);

/// The layer numbers a file's layer labels give ("layers": [0, 2, 4, 5], or "4", "L4", "layer_4",
/// "blocks.4.attn.hook_pattern": the last whole number in each); empty when a label holds none or
/// two labels give the same number.
std::vector<int> layer_numbers_from_labels(const std::vector<std::string>& labels);

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
    /// Means over the computed heads of the layer of each of their means (means.mean_<field>, one
    /// per MEAN metric of metrics.def; each skips the heads where that value is NaN or infinite);
    /// NaN when no head has a finite value. rows and empty_rows are 0.
    HeadSummary means;
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
