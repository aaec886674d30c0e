// The head-pattern scores (analysis.hpp, docs/analysis.md "Head patterns") as accumulators fed one
// row at a time, so that analyze_head() can classify a head from the blocks of the streaming
// pipeline without ever holding its n_q x n_k weights, and classify_pattern() from a dense matrix
// with the same code.
//
// Everything a score needs is a sum over rows: the mass of each diagonal d = t' - j and of each
// column j (keys j >= 1), the mass on key 0, and how many non-empty rows have each diagonal / each
// column. Memory O(n_q + n_k), one pass over each row.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/analysis.hpp"

namespace attn::detail {

class PatternAccumulator {
public:
    /// Throws Error(kShapeMismatch) if n_q or n_k < 1.
    PatternAccumulator(int n_q, int n_k);

    /// Row t (0 <= t < n_q) of normalised weights, n_k values. A row without a positive finite
    /// value is empty and skipped; NaN, Inf and negative values count as 0 (never throws).
    /// Rows may come in any order, each at most once.
    void add_row(int t, const float* w);

    /// Non-empty rows seen so far.
    int rows() const noexcept { return rows_; }

    /// The scores and the winner. `mean_breadth` is the mean over the non-empty rows of
    /// breadth(N_eff, |Omega_t|); NaN (no non-empty row) counts as 0.
    Pattern finish(double mean_breadth) const;

private:
    int n_q_, n_k_, off_;                  // off_ = n_k - n_q: t' = t + off_
    int rows_ = 0;                         // non-empty rows
    bool above_ = false;                   // some row has weight above its diagonal (j > t')
    double sink_ = 0;                      // sum of a[t][0]
    std::vector<double> diag_;             // [d + n_q - 1]: sum of a[t][t' - d] over keys j >= 1
    std::vector<std::int64_t> diag_rows_;  // difference array of the rows having diagonal d
    std::vector<double> col_;              // [j]: sum of a[t][j]
    std::vector<std::int64_t> col_rows_;   // difference array of the rows with t' >= j
};

/// The breadth of a row: (N_eff - 1) / (|Omega_t| - 1), the fraction of its visible keys beyond
/// the first that the row effectively uses; 1 for a uniform row, 0 for a point mass and for
/// |Omega_t| < 2 (and for NaN, an empty row).
double breadth(double n_eff, int visible);

/// Mean breadth over the rows that have a positive finite value, with N_eff = exp(H) of the row
/// renormalised over those values and |Omega_t| their number (a zero weight is taken as not
/// visible: classify_pattern() has weights only); NaN when no row has one.
double mean_breadth_of(const float* weights, int n_q, int n_k);

}  // namespace attn::detail
