// The lesson's experiments on one query row (seed lesson 003, "注意力机制：从加权平均到自注意力"):
//
//  * the parameter experiment ("参数实验"): rotate a unit query q(theta) = (cos theta, sin theta)
//    from theta = 0 to pi/2 against fixed keys and watch every key's weight, at several
//    temperatures tau (angle_weights, angle_sweep);
//  * the question of the interactive experiment: "does the largest weight mark the value whose
//    change moves the output most?" (row_sensitivity): the output's derivatives with respect to
//    each value, score and key, and the exact effect of deleting each token.
//
// Conventions of docs/MATH.md: scores s_j before temperature, a = softmax(s / tau) over the row's
// visible keys Omega_t only (masked keys never enter a max or a sum; the core's softmax_row of
// normalisers.hpp, in double), natural logarithms, a row with no visible key is empty and its
// numbers are NaN ("undefined"). Vectors and matrices are row-major std::vector<double>.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/normalisers.hpp"

namespace attn {

// ---------------------------------------------------------------------------------------------
// Parameter experiment: q(theta) in the plane of the first two axes
// ---------------------------------------------------------------------------------------------

/// Keys of one query row for the angle sweep.
struct SweepKeys {
    int n_k = 0;                        ///< number of keys (>= 0)
    int d_k = 0;                        ///< key dimension, >= 2 (q(theta) needs two axes)
    std::vector<double> keys;           ///< n_k x d_k, row-major, finite
    std::vector<std::uint8_t> visible;  ///< n_k flags (1 = key in Omega_t) or empty = all visible
    double scale = 1.0;                 ///< multiplies q . k_j; finite and > 0
};

/// Weights of the unit query q(theta) = cos(theta) e_1 + sin(theta) e_2 (the plane of the first
/// two axes of the key space; components 3.. of q are 0, so for d_k = 2 it is the lesson's
/// (cos theta, sin theta)) against the keys:
///   s_j(theta) = scale * (cos(theta) K_j1 + sin(theta) K_j2),  a(theta) = softmax(s / tau) over Omega_t.
/// Returns the core's NormalisedRow (n_k weights, 0 at masked keys; `empty` when no key is
/// visible). theta in radians, any finite value.
/// Throws attn::Error: kShapeMismatch (d_k < 2, keys.size() != n_k d_k, visible of another size;
/// field "K"), kNonFinite (a non-finite key of a visible row or theta; field "K" / "theta"),
/// kInvalidValue (scale <= 0 or non-finite; field "scale"), kBadTemperature (tau).
NormalisedRow angle_weights(const SweepKeys& keys, double theta, double tau);

/// The whole experiment: for every tau in `taus` and `steps` angles theta_i = (pi/2) i/(steps-1),
/// i = 0 .. steps-1 (so theta_0 = 0 and theta_last = pi/2 exactly), the weight of every visible key.
struct AngleSweep {
    std::vector<double> thetas;  ///< `steps` angles in radians, 0 .. pi/2
    std::vector<double> taus;    ///< the temperatures, as given
    std::vector<int> keys;       ///< the visible keys (Omega_t), ascending; empty when `empty`
    /// weights[t][k][i] = a_{keys[k]}(thetas[i]) at temperature taus[t]; each [t][.][i] sums to 1.
    std::vector<std::vector<std::vector<double>>> weights;
    bool empty = false;  ///< no visible key: keys and every weights[t] are empty
};

/// Runs angle_weights() over the grid. taus: 1 to 16 temperatures, each finite and > 0
/// (kBadTemperature, field "taus"; kInvalidValue when there are none or more than 16);
/// steps in [2, 10001] (kInvalidValue, field "steps"). Other errors as angle_weights().
/// Cost: O(|taus| * steps * n_k) (only the first two components of each key are read).
AngleSweep angle_sweep(const SweepKeys& keys, const std::vector<double>& taus, int steps);

// ---------------------------------------------------------------------------------------------
// Sensitivity of one row's output o = sum_j a_j v_j
// ---------------------------------------------------------------------------------------------

/// One query row in double.
struct RowProblem {
    int n_k = 0;                        ///< number of keys
    int d_v = 0;                        ///< value dimension, >= 1 for row_sensitivity()
    std::vector<double> scores;         ///< n_k scores s_j before temperature (scale applied); not read where masked
    std::vector<std::uint8_t> visible;  ///< n_k flags, 1 = key in Omega_t (empty = all visible)
    std::vector<double> values;         ///< n_k x d_v, row-major, finite at visible keys
    /// The query q_t (d_k numbers) when the scores are s_j = scale * q_t . k_j (mode qkv); empty
    /// otherwise (then the key derivatives are undefined: there are no keys to move).
    std::vector<double> query;
    double scale = 1.0;  ///< the scale of s_j = scale q.k_j (finite > 0 when `query` is given)
    double tau = 1.0;    ///< temperature, finite and > 0
};

/// What moving one visible key j does to the row's output. Norms are Euclidean (vectors) and
/// operator 2-norms (matrices); the rank-one d o/d k_j has equal operator and Frobenius norms.
struct KeySensitivity {
    int key = 0;          ///< j
    double weight = 0;    ///< a_j
    double distance = 0;  ///< ||v_j - o||: how far value j lies from the output
    /// ||d o / d v_j|| = ||a_j I|| = a_j: a change dv of value j moves o by exactly a_j dv.
    double value_effect = 0;
    /// ||d o / d s_j|| = a_j ||v_j - o|| / tau  (d o/d s_j = a_j (v_j - o) / tau).
    double score_effect = 0;
    /// ||d o / d k_j||_F = a_j ||v_j - o|| ||q|| scale / tau  (d o/d k_j = a_j (v_j - o) q^T scale / tau);
    /// NaN when the problem has no query.
    double key_effect = 0;
    /// o_{-j} - o: the output renormalised over Omega_t \ {j} minus the output (d_v numbers,
    /// computed by a second softmax over the remaining keys, not by a formula); empty when j is the
    /// only visible key (deleting it leaves an empty row).
    std::vector<double> deletion_shift;
    /// ||o_{-j} - o|| (= a_j ||v_j - o|| / (1 - a_j) exactly); NaN when j is the only visible key.
    double deletion = 0;
};

/// The keys tied for first place under one measure (several when equal within 1e-9 relative);
/// empty when the measure is undefined for every key.
struct Leaders {
    std::vector<int> weight, value, score, key, deletion;
};

struct RowSensitivity {
    bool empty = false;                ///< no visible key: everything below is empty
    std::vector<double> weights;       ///< n_k weights a_j (0 where masked)
    std::vector<double> output;        ///< o, d_v numbers (empty when `empty`)
    std::vector<KeySensitivity> keys;  ///< one per visible key, ascending j
    Leaders leaders;
};

/// Derivatives and deletion effects of every visible key of one row (see KeySensitivity).
/// Throws attn::Error: kShapeMismatch (sizes disagree, d_v < 1; fields "scores", "V", "query"),
/// kNonFinite (a non-finite visible score or value), kBadTemperature (tau), kInvalidValue (scale
/// with a query).
RowSensitivity row_sensitivity(const RowProblem& p);

/// The full Jacobian d o / d k_j = a_j (v_j - o) q^T * scale / tau (d_v x d_k, row-major) of
/// visible key j; all zeros for a masked key. Needs p.query (kInvalidValue, field "query",
/// otherwise); other errors as row_sensitivity().
std::vector<double> output_key_jacobian(const RowProblem& p, int j);

/// The keys whose x is within 1e-9 relative (and 1e-300 absolute) of the largest finite x;
/// keys[i] labels x[i]. NaN entries are skipped; empty when every x is NaN.
std::vector<int> leaders_of(const std::vector<int>& keys, const std::vector<double>& x);

// ---------------------------------------------------------------------------------------------
// The guided lesson's answers (web/lesson/steps.js): the numbers a step's answer shows, computed
// from the live results and the reference results (the live state with one thing put back as
// the step started it); the page only compares them with the student's prediction.
// ---------------------------------------------------------------------------------------------

/// sum_j w_j, added in order (0 for no weights): a row's total weight as the page shows it.
double weight_sum(const std::vector<double>& weights);

/// Step 3, "the causal mask renormalises the row": the reference row `before` (no mask), the
/// flags of the keys the mask leaves visible and the masked row `after`.
struct Renormalisation {
    double kept = 0;  ///< sum of before_j over the visible keys (in order)
    /// before_j / kept at visible keys, 0 elsewhere (NaN at visible keys when kept = 0)
    std::vector<double> expected;
    double max_diff = 0;   ///< max_j |after_j - expected_j| (NaN if any term is NaN)
    double after_sum = 0;  ///< sum_j after_j, in order
};

/// Throws attn::Error(kShapeMismatch, field "weights") unless before, visible and after have one
/// length. No other check: the numbers are the core's own results.
Renormalisation renormalisation(const std::vector<double>& before, const std::vector<std::uint8_t>& visible,
                                const std::vector<double>& after);

/// Step 4, "edit a value": the live and reference results of a state whose values changed.
struct ValueEditProblem {
    int n_q = 0, n_k = 0, d_v = 0;
    std::vector<double> scores, ref_scores;  ///< n_q x n_k score matrices, NaN = not visible
    std::vector<double> output, ref_output;  ///< d_v numbers: the selected row's o_t, live and reference
    std::vector<double> values, ref_values;  ///< n_k x d_v: V now and as the step started it
    std::vector<int> changed;                ///< the value rows j that differ (ascending)
};

struct ValueEdit {
    /// max over cells of |S_ij - S_ref,ij|; +inf when a cell is visible in one matrix only; 0 when
    /// no cell is visible in either.
    double scores_diff = 0;
    std::vector<double> shift;         ///< o_t - o_t,ref (d_v numbers)
    double shift_size = 0;             ///< ||o_t - o_t,ref||
    std::vector<double> value_shifts;  ///< ||v_j - v_j,ref|| for each j of `changed`
    /// shift_size / value_shifts[0] when exactly one value changed by a nonzero amount (then it
    /// equals a_tj: d o_t / d v_j = a_tj I); NaN otherwise.
    double ratio = 0;
};

/// Throws attn::Error(kShapeMismatch) for sizes that disagree (fields "scores", "output", "V") or
/// kInvalidValue (field "changed") for an index outside 0 .. n_k - 1.
ValueEdit value_edit(const ValueEditProblem& p);

}  // namespace attn
