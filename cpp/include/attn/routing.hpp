// Routing width of one head: which keys a query actually reads, how much the rest can change its
// output, the head as a dynamic graph, the tunnel-vision indicator and entropy-regulariser values.
//
// Source: the seed article on attention entropy and dynamic topology (sections 4, 5 and 8),
// written down in docs/MATH.md ("Per-row quantities": the (1-delta) support S_t and its bound; the
// tunnel-vision indicator 1[H_norm(a_t) < alpha] * 1[H_norm(beta) > gamma]). Double precision for
// every sum; weights are the core's float32 rows (Result::weights: zeros outside Omega_t).
#pragma once

#include <cstdint>
#include <vector>

#include "attn/attention.hpp"
#include "attn/matrix.hpp"

namespace attn::routing {

/// The (1-delta) support set S_t of one row: the fewest keys holding mass >= (1 - delta) * (row
/// sum). Its size is rowsel::support_size() (attn/row_select.hpp), the same count as the row
/// metric RowMetrics::support; its keys are that many largest weights (ties: lower key first, so
/// S_t is one of the smallest sets when several exist).
struct SupportSet {
    std::vector<int> keys;    ///< |S_t| key indices, by weight descending (ties by index)
    double mass = 0;          ///< sum of their weights (in [1 - delta, 1] up to float rounding)
    double ignored_mass = 0;  ///< sum of every other weight (summed directly, not 1 - mass)
};

/// S_t of the row w (n weights >= 0; keys outside Omega_t are 0; an all-zero row gives an empty
/// set). delta in [0, 1), else throws attn::Error(kInvalidValue, "delta").
SupportSet support_set(const float* w, int n, double delta);

/// B = max_i ||v_i||_2 over the rows of V (n_k x d_v); 0 when V is empty.
double max_value_norm(const Matrix& v);

/// ||sum_{i not in S} a_i v_i||_2: the output the support set leaves out. By the triangle
/// inequality it is <= ignored_mass * B <= delta * B (the last up to float rounding of the row
/// sum). w: the row (v.rows weights); `support`: key indices in [0, v.rows). Throws kShapeMismatch
/// for an index out of range.
double ignored_contribution(const float* w, const Matrix& v, const std::vector<int>& support);

/// An edge of the dynamic graph: query t reads key i with weight a_ti.
struct Edge {
    int query = 0;
    int key = 0;
    double weight = 0;
};

/// Every visible (t, i) with a_ti > threshold, by query then key. threshold in [0, 1].
std::vector<Edge> graph_edges(const Result& r, double threshold);

/// H_norm of the evidence beta on the row's visible keys: beta restricted to Omega_t and
/// renormalised, H / ln |Omega_t|, in [0, 1]; 0 when |Omega_t| = 1 (MATH.md's convention for a
/// point mass); NaN when Omega_t is empty or beta has no mass on it. beta: n >= 0 values.
double evidence_normalized_entropy(const std::vector<double>& beta, const std::uint8_t* visible_row, int n);

/// Tunnel vision of one row: narrow = H_norm(a_t) < alpha, broad = H_norm(beta_t) > gamma,
/// tunnel = narrow and broad. Not `defined` when either entropy is NaN (an empty row, or evidence
/// with no mass on the visible keys).
struct TunnelVision {
    bool defined = false;
    bool narrow = false;
    bool broad = false;
    bool tunnel = false;
};

TunnelVision tunnel_vision(double attention_h_norm, double evidence_h_norm, double alpha, double gamma);

/// Entropy-regulariser values of a head (the seed's three losses, per head, without lambda and
/// the task loss), over the rows with a defined entropy (empty rows skipped):
///   minimise = mean_t H_t          (added to the loss: favours narrow routing)
///   maximise = -mean_t H_t         (added to the loss: favours broad routing)
///   target   = mean_t (H_t - H*)^2 (pulls every row's entropy towards H*)
/// The seed sums over layers, heads and rows: sum = rows * mean.
struct Regularisers {
    int rows = 0;         ///< rows counted
    double minimise = 0;  ///< nats; NaN when rows = 0
    double maximise = 0;  ///< nats
    double target = 0;    ///< nats^2
};

/// From per-row entropies (NaN = empty row, skipped) and H* >= 0.
Regularisers regularisers(const std::vector<double>& entropies, double target_entropy);

}  // namespace attn::routing
