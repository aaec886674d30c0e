// Derivatives of a softmax row, for the saturation views (docs/MATH.md, "Calculus"; the seed
// article on attention entropy, section 6, "softmax gradient saturation").
//
// p = softmax(z / tau) over the m visible keys of a row (masked keys are left out by the caller:
// every function here takes the visible keys only, in any order, as parallel arrays).
//
//   Jacobian      J_ij = dp_i/dz_j = (p_i [i = j] - p_i p_j) / tau       (m x m, symmetric, rows sum to 0)
//   entropy grad  dH/dz_j = -(1/tau) p_j (ln p_j + H)                    (0 where p_j = 0)
//   temperature   dH/dtau = Var_p(z) / tau^3                             (z the scores before tau)
//   two tokens    a_1 = sigmoid(x), H(x) = softplus(x) - x sigmoid(x),  x = Delta / tau
//
// H in nats. A softmax whose largest weight is near 1 has J ~ 0 (saturation): a suppressed key
// gets |dp_i/dz_j| = O(p_i / tau).
#pragma once

#include <vector>

namespace attn {

/// Softmax Jacobian (diag p - p p^T) / tau, row-major m x m, m = p.size().
/// p: probabilities (>= 0, summing to 1; not checked); tau finite > 0 (kBadTemperature otherwise).
std::vector<double> softmax_jacobian(const std::vector<double>& p, double tau);

/// dH/dz_j = -(1/tau) p_j (ln p_j + H) for each of the m keys, H = -sum p ln p (0 ln 0 = 0);
/// entries with p_j = 0 are 0. tau as softmax_jacobian().
std::vector<double> entropy_gradient(const std::vector<double>& p, double tau);

/// dH/dtau = Var_p(z) / tau^3 = (sum p_j (z_j - E_p z)^2) / tau^3, >= 0, nats per unit of tau.
/// z: the scores before temperature (same length as p; kShapeMismatch otherwise; non-finite z
/// is kNonFinite); tau as softmax_jacobian().
double entropy_tau_derivative(const std::vector<double>& p, const std::vector<double>& z, double tau);

/// The weight a_1 = sigmoid(x) = 1 / (1 + e^-x) of the first of two keys whose score gap over tau
/// is x (the larger weight when x >= 0), computed without overflow. In (0, 1) for finite x
/// (rounds to 1 for x > ~37; ~e^x for very negative x); 0.75 at x = ln 3.
double two_token_weight(double x);

/// Entropy (nats) of two keys whose score gap over tau is x: softplus(x) - x sigmoid(x), computed
/// as log1p(e^-|x|) + |x| sigmoid(-|x|) (same value, no cancellation). Even in x; ln 2 at 0,
/// decreasing to 0 as |x| grows.
double two_token_entropy(double x);

}  // namespace attn
