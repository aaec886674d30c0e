// Multi-head attention from token vectors X, and the gated head output.
//
// A layer (Vaswani et al. 2017, "Attention Is All You Need", arXiv:1706.03762, section 3.2.2):
//   for each head h:  Q_h = X W_Q^h,  K_h = X W_K^h,  V_h = X W_V^h   (self-attention: n_q = n_k = n)
//                     Y_h = normalise(Q_h K_h^T * scale / tau, masked) V_h   (compute(), one head)
//                     Y_h <- Y_h (row t times) sigmoid(g_t)   when the head has gate logits g
//   concat = [Y_1 | Y_2 | ... | Y_H]                     n x (sum_h d_v^h)
//   output = concat W_O (or concat when W_O is absent)   n x d_out
//   output <- X + output                                 when residual (needs d_out = d_model)
//
// The gate is Qiu et al. 2025, "Gated Attention for Large Language Models", arXiv:2505.06708,
// variant G1 (docs/MATH.md "Normalisers", gated output): one gate logit per query row, applied
// after A V and before W_O; a gate near 0 lets a head output nothing without having to park its
// weights on the first token (an attention sink).
//
// Conventions are docs/MATH.md's: row-major, a row is a query (a token), the mask is a selection,
// an empty row's output is 0 (so its gated output is 0 too). Storage is float32 like every tensor
// of the core; the products X W, concat W_O, the gate and the residual sum accumulate in double and
// round once to float32.
#pragma once

#include <vector>

#include "attn/attention.hpp"

namespace attn {

/// The projections of one head, and its optional gate.
struct HeadProjection {
    Matrix wq;  ///< d_model x d_k, finite; d_k >= 1
    Matrix wk;  ///< d_model x d_k, finite (same d_k as wq)
    Matrix wv;  ///< d_model x d_v, finite; d_v >= 1
    /// Gate logits g_t, one per query row (n entries, finite), or empty for no gate.
    std::vector<double> gate;
};

/// A multi-head layer's inputs. Mask, temperature, scale (per head: <= 0 means 1/sqrt(d_k of that
/// head)), top-k, sink keys and delta come from `settings` (a Problem whose matrices are ignored).
struct LayerProblem {
    Matrix x;                           ///< n x d_model, finite; 1 <= n <= kMaxTokens, 1 <= d_model <= kMaxDim
    std::vector<HeadProjection> heads;  ///< 1 to kMaxHeads heads
    Matrix wo;                          ///< (sum_h d_v^h) x d_out, finite, or empty (no projection)
    bool residual = false;              ///< output = X + concat W_O; needs d_out = d_model
    Problem settings;                   ///< mask, tau, scale, top_k, sink_keys, delta
};

/// What a layer computes.
struct LayerResult {
    std::vector<Problem> problems;  ///< per head: the derived qkv Problem (Q_h, K_h, V_h + settings)
    std::vector<Result> heads;      ///< per head: compute(problems[h]), with `output` gated if a gate
    std::vector<Matrix> ungated;    ///< per head: A V before the gate (empty Matrix when no gate)
    Matrix concat;                  ///< n x sum_h d_v^h: the heads' (gated) outputs side by side
    Matrix output;                  ///< n x d_out: concat W_O (+ X when residual)
};

/// Logistic sigmoid 1 / (1 + e^-g), in double, without overflow for any finite or infinite g.
double gate_sigmoid(double g) noexcept;

/// The G1 gate: returns Y with row t multiplied by sigmoid(gate[t]).
/// Shapes: y is n x d (d may be 0); gate has n entries.
/// Throws Error(kShapeMismatch, field) when gate.size() != y.rows, Error(kNonFinite, field) for a
/// NaN or infinite gate logit. `field` names the gate in messages ("heads[0].gate").
Matrix apply_gate(const Matrix& y, const std::vector<double>& gate, const char* field = "gate");

/// Row-major product A B (a: r x m, b: m x c), accumulated in double, rounded once to float32.
/// Throws Error(kShapeMismatch, field) when a.cols != b.rows.
Matrix matmul(const Matrix& a, const Matrix& b, const char* field = "W");

/// The derived single-head problem of head `h`: Q = X W_Q, K = X W_K, V = X W_V, with the
/// settings' mask, tau, scale, top_k, sink_keys and delta (mode qkv).
/// Throws Error(kShapeMismatch, "heads[h].WQ" / ".WK" / ".WV") when a projection does not have
/// d_model rows or WQ and WK differ in d_k; Error(kNonFinite, ...) for non-finite X or W entries;
/// Error(kTooLarge, ...) beyond kMaxTokens / kMaxDim; Error(kInvalidValue, "heads[h]") when h is
/// out of range.
Problem head_problem(const LayerProblem& layer, int h);

/// Validates the layer (shapes, finiteness, limits) without computing anything; throws exactly
/// what compute_layer() would throw for a shape or value error. Fields: "x.X", "x.WO",
/// "x.residual", "heads[h].WQ", "heads[h].WK", "heads[h].WV", "heads[h].gate", "heads".
void validate_layer(const LayerProblem& layer);

/// Computes every head and the layer output (see the top of this file).
/// Throws attn::Error: kShapeMismatch (W rows != d_model, WQ/WK d_k differ, WO rows != sum d_v,
/// residual with d_out != d_model ("x.residual"), gate length != n), kNonFinite (non-finite X, W,
/// WO or gate entry, or a derived Q/K/V entry that overflows float32), kTooLarge (n > kMaxTokens,
/// a dimension > kMaxDim, more than kMaxHeads heads, sum d_v > kMaxTokens), and whatever
/// compute() throws for the settings (kBadTemperature, kInvalidValue, ...).
LayerResult compute_layer(const LayerProblem& layer);

// --- Cost of a state (the page's cost line) ---------------------------------------------------
// Counted from the shapes alone, nothing computed: multiply-adds (one a*b + c each) and bytes of
// float32 storage. Doubles, so that a count beyond 2^31 (a 4096-key head) stays exact (< 2^53).

/// The shapes of a mode-"x" layer: n tokens of X (n x d_model), each head's d_k and d_v, and
/// W_O's rows x cols (0 x 0 when there is no W_O).
struct LayerShape {
    int n = 0;
    int d_model = 0;
    std::vector<int> d_k;  ///< one per head
    std::vector<int> d_v;  ///< one per head
    int wo_rows = 0;
    int wo_cols = 0;
};

struct LayerCost {
    double projection_macs = 0;  ///< X W_Q, X W_K, X W_V: sum_h n d_model (2 d_k + d_v)
    double attention_macs = 0;   ///< Q K^T and A V: sum_h n^2 (d_k + d_v)
    double output_macs = 0;      ///< concat W_O: n wo_rows wo_cols (0 without W_O)
};

/// Multiply-adds of a layer (see LayerCost). Throws Error(kShapeMismatch, "heads") when d_k and
/// d_v do not list the same number of heads, Error(kInvalidValue, "x.X") for a negative size.
LayerCost layer_cost(const LayerShape& shape);

/// The selected head of a qkv / logits / weights state: n_q x n_k cells.
struct HeadCost {
    double cells = 0;         ///< n_q n_k
    double matrix_bytes = 0;  ///< one float32 n_q x n_k matrix (scores or weights): 4 n_q n_k
    double score_macs = 0;    ///< Q K^T: n_q n_k d_k in mode qkv, else 0 (the scores are given)
    double output_macs = 0;   ///< A V: n_q n_k d_v
    double stream_bytes = 0;  ///< the streaming path's scores and weights of one block of rows:
                              ///< 2 * 4 min(block_rows, n_q) n_k
};

/// Bytes and multiply-adds of one head (see HeadCost). Throws Error(kInvalidValue, "head") for a
/// negative size or block_rows < 1.
HeadCost head_cost(Mode mode, int n_q, int n_k, int d_k, int d_v, int block_rows);

}  // namespace attn
