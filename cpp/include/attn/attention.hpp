// Attention Playground core: one attention head, from Q/K/V, logits or given weights, to
// weights, output and per-row metrics.
//
// Conventions (docs/MATH.md, "Conventions"):
//   * row-major matrices; a row is a query, a column a key; every per-row quantity runs over keys;
//   * masks are selections: a key outside the visible set Omega_t is a structural zero, it never
//     enters a max or a sum, and a NaN stored there cannot leak;
//   * a row with no visible key is `empty`: weights and output 0, metrics NaN (undefined);
//   * natural logarithms, entropy in nats, 0 ln 0 = 0.
//
// No I/O, no DOM: callers (Embind bindings, the CLI, tests) hand in a Problem and get a Result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/mask.hpp"
#include "attn/matrix.hpp"
#include "attn/row_metrics.hpp"

namespace attn {

/// How the score matrix is obtained.
///  * qkv:     S = Q K^T * scale                       (Q: n_q x d_k, K: n_k x d_k)
///  * logits:  S given directly (n_q x n_k); -inf marks a key as not visible
///  * weights: attention probabilities given (n_q x n_k, >= 0); S = ln a, so temperature
///             re-tempers each row as a^(1/tau) renormalised = softmax(ln a / tau); zeros are
///             not visible (ln 0 = -inf).
enum class Mode { qkv, logits, weights };

/// Row normaliser. Only softmax exists today; sparsemax / entmax extend this enum.
enum class Normaliser { softmax };

/// One head's inputs. Matrices not used by `mode` may be empty.
struct Problem {
    Mode mode = Mode::qkv;
    Matrix q;        ///< n_q x d_k (qkv)
    Matrix k;        ///< n_k x d_k (qkv)
    Matrix v;        ///< n_k x d_v; d_v may be 0 (no output), any mode
    Matrix logits;   ///< n_q x n_k (logits)
    Matrix weights;  ///< n_q x n_k (weights)
    MaskSpec mask;
    /// Temperature tau, finite and > 0: A = normalise(S / tau). (MATH.md, Conventions)
    double tau = 1.0;
    /// Scale applied to Q K^T in qkv mode; <= 0 or NaN means the default 1 / sqrt(d_k);
    /// +-Inf is kInvalidValue. Ignored in logits and weights modes.
    double scale = 0.0;
    /// k of the top-k mass, >= 1 (clamped to |Omega_t| per row).
    int top_k = kRowDefaults.top_k;
    /// Number of leading keys whose weight is the sink mass (MATH.md, sink mass s).
    int sink_keys = kRowDefaults.sink_keys;
    /// delta of the (1-delta) support S_t (MATH.md): the smallest set of keys with mass >= 1-delta.
    /// In [0, 1).
    double delta = kRowDefaults.delta;
    Normaliser normaliser = Normaliser::softmax;
};

// HeadSummary (the means of the row metrics over a head): row_metrics.hpp.

struct Result {
    int n_q = 0, n_k = 0, d_v = 0;
    double scale = 1.0;                 ///< the scale actually used (qkv), 1 otherwise
    Matrix scores;                      ///< n_q x n_k, S before temperature; NaN where not visible
    Matrix weights;                     ///< n_q x n_k, rows sum to 1 over Omega_t, 0 elsewhere
    Matrix output;                      ///< n_q x d_v, O = A V (0 rows for empty queries)
    std::vector<std::uint8_t> visible;  ///< n_q x n_k, 1 where the key is in Omega_t
    std::vector<RowMetrics> rows;       ///< n_q entries
    HeadSummary summary;
};

/// Largest accepted sizes (kTooLarge beyond). The dense path holds n_q x n_k floats several times.
inline constexpr int kMaxTokens = 4096;
inline constexpr int kMaxDim = 1024;
/// State documents only (docs/state.md): at most this many heads, tau at most this.
inline constexpr int kMaxHeads = 64;
inline constexpr double kMaxTau = 1000.0;

/// Validates `p` and computes one head.
/// Throws attn::Error: kShapeMismatch (inconsistent shapes), kNonFinite (NaN/Inf in Q, K, V, in a
/// visible logit other than -inf, or in a visible weight), kBadTemperature (tau <= 0, NaN, Inf),
/// kInvalidValue (negative weight, top_k < 1, non-finite scale, bad window), kTooLarge.
Result compute(const Problem& p);

/// Throws exactly what compute() would throw for `p`, computes nothing.
void validate(const Problem& p);

const char* to_string(Mode m);
/// Parses "qkv" | "logits" | "weights"; throws kInvalidValue otherwise.
Mode mode_from_string(const std::string& s);

}  // namespace attn
