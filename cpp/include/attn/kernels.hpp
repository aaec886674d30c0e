// Hot loops of one head, behind plain function signatures. The scalar versions here are the
// reference implementation (accumulating in double) and the oracle for any SIMD kernel with the same
// signature; attention.cpp calls them through this header only, so a vectorised build swaps the
// implementation without touching the pipeline.
#pragma once

#include <cstdint>

#include "attn/attention.hpp"

namespace attn::kernels {

/// scores[i][j] = scale * dot(q_i, k_j).  q: n_q x d, k: n_k x d, scores: n_q x n_k, row-major.
void scores_qk(const float* q, const float* k, int n_q, int n_k, int d, float scale,
               float* scores);

/// Softmax of one row over its visible keys, with temperature, and the row's metrics.
///   in:  s[0..n)      scores (any value where visible[j] == 0; never read there)
///        visible[0..n) 1 = key in Omega_t; keys whose score is -inf are treated as not visible
///        tau > 0, top_k >= 1, sink_keys >= 0
///   out: a[0..n)      weights, exact 0 outside Omega_t; all 0 if Omega_t is empty
///        m            metrics (MATH.md "Per-row quantities"); NaN and empty = true if Omega_t = {}
/// Stable: subtracts max over Omega_t before exp. Entropy uses H = ln Z - sum(e_j x_j)/Z with
/// x_j = (s_j - max)/tau, which needs no log per element and is exact for exact probabilities.
void softmax_row(const float* s, const std::uint8_t* visible, int n, double tau, int top_k,
                 int sink_keys, float* a, RowMetrics& m);

/// out (n_q x d_v) = a (n_q x n_k) * v (n_k x d_v).
void weighted_sum(const float* a, const float* v, int n_q, int n_k, int d_v, float* out);

}  // namespace attn::kernels
