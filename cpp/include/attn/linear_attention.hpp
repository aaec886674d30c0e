// Linear (kernelised) attention beside softmax attention on the same Q, K, V (the seed article on
// the linear-algebra view of attention, section 7).
//
// With a feature map phi: R^{d_k} -> R^m_{>=0}, sim(q, k) = phi(q) . phi(k) replaces exp(q.k s),
// and for query t with visible keys Omega_t (the state's mask, MATH.md "Conventions"):
//
//   O_lin[t]   = phi(q_t)^T (sum_{j in Omega_t} phi(k_j) v_j^T) / (phi(q_t)^T sum_{j in Omega_t} phi(k_j))
//   a_lin[t,j] = phi(q_t) . phi(k_j) / sum_{i in Omega_t} phi(q_t) . phi(k_i)   (j in Omega_t; 0 elsewhere)
//
// so O_lin = a_lin V: the implied weights are a row-stochastic matrix like softmax's.
// Feature maps:
//   * elu:  phi(x) = elu(x) + 1 elementwise (x + 1 for x > 0, e^x otherwise), m = d_k
//           (Katharopoulos et al. 2020, "Transformers are RNNs", arXiv:2006.16236);
//   * relu: phi(x) = relu(W x) / sqrt(m), W an m x d_k matrix of independent N(0, 1) draws
//           (Performer-style random features, Choromanski et al. 2020, arXiv:2009.14794, with the
//           ReLU kernel). W comes from std::mt19937_64(seed) (fully specified by the C++ standard)
//           and a Box-Muller transform written here (std::normal_distribution is
//           implementation-defined), so a seed gives the same W natively and in WebAssembly (up to
//           the last bit of the C library's log, cos and sin).
// Input scaling (ours): phi is applied to c q_t and c k_j with c = sqrt(scale / tau), scale the
// softmax's Q K^T scale and tau the temperature, so that (c q) . (c k) is exactly the softmax logit
// (Performer's d^{-1/4} normaliser does the same for scale 1/sqrt(d_k)). With relu features c
// cancels (relu(W c x) = c relu(W x), and the ratio removes it); with elu + 1 it does not.
//
// Cost: phi(Q), phi(K): O((n_q + n_k) m d_k). Output on a mask where every Omega_t is a prefix
// {0, ..., L_t - 1} of the keys (no mask, causal, key padding at the end): running sums
// sum phi(k_j) v_j^T (m x d_v) and sum phi(k_j), O(n_k m d_v + n_q m d_v): linear in the length
// (path "prefix"). Any other mask (window, stride, sinks, padding in the middle, allow-matrix):
// per row over Omega_t, O(sum_t |Omega_t| (m + d_v)), quadratic like softmax (path "per-row").
// The implied weights (for display and comparison) are always O(n_q n_k m).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/attention.hpp"

namespace attn {

enum class FeatureMap { elu, relu };

/// "elu" | "relu".
const char* to_string(FeatureMap f);

inline constexpr int kMaxRandomFeatures = 1024;

struct LinearOptions {
    FeatureMap feature = FeatureMap::elu;
    /// m, the number of random features (relu only; elu uses m = d_k). 1 <= m <= kMaxRandomFeatures.
    int features = 64;
    /// Seed of the random matrix W (relu only).
    std::uint64_t seed = 1;
};

/// The first `count` standard normal draws of the generator: std::mt19937_64(seed), each 64-bit
/// output x turned into u = (x >> 11) * 2^-53 in [0, 1); pairs (u1, u2) give, by Box-Muller,
/// r = sqrt(-2 ln(1 - u1)), z = r cos(2 pi u2) then r sin(2 pi u2). An odd count drops the last sine.
std::vector<double> gaussian_draws(std::uint64_t seed, std::size_t count);

/// The m x d random matrix W of the relu features: gaussian_draws(seed, m * d), row-major.
std::vector<double> random_feature_matrix(int m, int d, std::uint64_t seed);

/// One query's comparison.
struct LinearRow {
    bool empty = false;           ///< Omega_t is empty (softmax's empty row too): everything undefined
    bool degenerate = false;      ///< phi(q_t) . sum phi(k_j) = 0 (relu: every feature of q_t or of the
                                  ///< visible keys is 0): a_lin and O_lin undefined
    double denominator = 0;       ///< phi(q_t)^T sum_{j in Omega_t} phi(k_j) (NaN when empty)
    double output_error = 0;      ///< ||O_lin[t] - O_soft[t]||_2 (NaN when undefined or d_v = 0)
    double relative_error = 0;    ///< output_error / ||O_soft[t]||_2 (NaN also when ||O_soft[t]|| = 0)
    double max_weight_error = 0;  ///< max_j |a_lin[t,j] - a_soft[t,j]| (NaN when undefined)
};

struct LinearAttention {
    int n_q = 0, n_k = 0, d_v = 0;
    int m = 0;                         ///< feature dimension used (d_k for elu)
    double input_scale = 1;            ///< c = sqrt(scale / tau)
    std::string path;                  ///< "prefix" or "per-row" (see Cost above)
    std::vector<double> weights;       ///< n_q x n_k implied weights a_lin (0 outside Omega_t, 0 rows when undefined)
    std::vector<double> output;        ///< n_q x d_v, O_lin (0 rows when undefined)
    std::vector<LinearRow> rows;       ///< n_q entries
    int defined_rows = 0;              ///< rows neither empty nor degenerate
    double mean_output_error = 0;      ///< over defined rows (NaN if none or d_v = 0)
    double mean_relative_error = 0;    ///< over defined rows with ||O_soft[t]|| > 0 (NaN if none)
    double mean_max_weight_error = 0;  ///< over defined rows (NaN if none)
};

/// Linear attention of the qkv problem `p` beside its softmax result `soft` = compute(p) (same
/// mask, scale, temperature). Throws attn::Error kInvalidValue: field "mode" when p.mode is not
/// qkv (linear attention needs Q, K and V; logits or weights have no q_t, k_j to map), field
/// "features" when options.features is outside 1..kMaxRandomFeatures; kShapeMismatch when `soft`
/// is not the result of `p`.
LinearAttention linear_attention(const Problem& p, const Result& soft, const LinearOptions& options);

}  // namespace attn
