// Spectral view of a row-stochastic attention matrix A (one head; docs/MATH.md "Spectral") and
// the redundancy between heads (the seed article on the linear-algebra view of attention, 6.3;
// keep-sink vs drop-sink conventions of MATH.md).
//
// A is n_q x n_k, row-major, a row a query. Rows of a computed head sum to 1 over the visible keys
// (float32 rounding); every function here first converts a row to double and divides it by its
// sum, so the matrix analysed is exactly row-stochastic in double. A row that sums to 0 (an
// `empty` row: its mask leaves no key) stays all zero and is counted, never renormalised.
//
// What is defined where:
//   * singular values, effective rank, threshold rank, spectral entropy: any shape, any rows
//     (they describe the matrix as it is; an empty row is a zero row); undefined (NaN) only when
//     every singular value is 0 (all rows empty);
//   * stationary distribution pi A = pi: only for a square matrix (n_q = n_k, so a query and a key
//     are the same token) with no empty row (else A is not a Markov chain); otherwise undefined
//     and the reason says which.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/matrix.hpp"

namespace attn {

/// A as doubles with each nonzero row divided by its sum (see above). `rows` x `cols`, row-major.
struct StochasticMatrix {
    int rows = 0;
    int cols = 0;
    std::vector<double> a;            ///< rows * cols values
    std::vector<std::uint8_t> empty;  ///< rows flags: 1 where the row summed to 0 (or was non-finite)
    int empty_rows = 0;
};

/// Converts float weights (rows x cols, >= 0) to a StochasticMatrix. A row whose sum is 0 or not
/// finite is an empty row (all zeros).
StochasticMatrix row_stochastic(const Matrix& weights);

/// The stationary distribution found by power iteration.
struct Stationary {
    bool defined = false;          ///< false for a non-square A or one with empty rows
    std::string undefined_reason;  ///< why not, when !defined ("" otherwise)
    std::vector<double> pi;        ///< n entries, >= 0, sum 1 (empty when !defined)
    double steps = 0;              ///< steps of the lazy chain taken, a power of two (a double: up
                                   ///< to 2^60 once squaring takes over)
    int squarings = 0;             ///< matrix squarings done (0 when plain steps sufficed)
    double change = 0;             ///< ||pi_t - pi_{t/2}||_1: what the last half of the run changed
    double residual = 0;           ///< ||pi A - pi||_1 of the returned pi (NaN when !defined)
    bool converged = false;        ///< change <= tolerance and residual <= tolerance
};

/// log2 of the plain power-iteration steps stationary() takes before it squares (2^10 = 1024).
inline constexpr int kStationaryPlainDoublings = 10;
/// log2 of the most steps stationary() takes in all (2^60).
inline constexpr int kStationaryMaxDoublings = 60;
/// Tolerance on the change and on the residual (L1).
inline constexpr double kStationaryTolerance = 1e-12;

/// pi with pi A = pi, sum pi = 1, by power iteration from the uniform distribution (MATH.md
/// "Spectral"), on the lazy chain P = (I + A) / 2: it has exactly the same stationary
/// distributions as A but no periodicity, so it converges also when A is periodic (e.g. a random
/// walk on a path, where u A^t alternates forever).
///
/// Convergence is tested when the step count t is a power of two: pi_t is accepted when the last
/// half of the run changed it by ||pi_t - pi_{t/2}||_1 <= `tolerance` and its residual
/// ||pi_t A - pi_t||_1 <= `tolerance`. (The residual alone is not enough: when a token keeps a
/// weight 1 - d on itself, pi moves by about d per step, so a small residual can sit far from pi.)
///  1. Steps t = 1 ... 2^`plain_doublings`: pi <- pi P, O(n^2) each.
///  2. Then the same iteration by squaring: M = P^t (repeated squaring, rows renormalised), and
///     pi <- pi M doubles t at once, O(n^3) per doubling, until t = 2^`max_doublings`.
/// converged = false when the test still fails at the end. pi is renormalised to sum 1 after
/// every step (double precision).
///
/// The result is the limit of u P^t for the uniform u (the Cesaro limit of u A^t): when A has
/// several closed classes (e.g. the identity: every token absorbing) pi is not unique and the
/// iteration returns the mixture reached from uniform. In a causal A where every query t > 0 puts
/// some weight on an earlier key, token 0 is the only absorbing state and pi = e_0.
/// Never throws.
Stationary stationary(const StochasticMatrix& a, int plain_doublings = kStationaryPlainDoublings,
                      int max_doublings = kStationaryMaxDoublings, double tolerance = kStationaryTolerance);

/// All min(rows, cols) singular values of A, descending, >= 0 (Eigen's BDCSVD, which uses
/// one-sided Jacobi for small matrices; no U or V is computed). Cost O(n^3).
std::vector<double> singular_values(const StochasticMatrix& a);

/// Spectral entropy H(p) with p = sigma / sum sigma, in nats, 0 ln 0 = 0; in [0, ln r] for r
/// singular values. NaN when sum sigma = 0 or sigma is empty.
double spectral_entropy(const std::vector<double>& sigma);

/// Effective rank exp(H(sigma / sum sigma)) (Roy & Vetterli 2007, "The effective rank: a measure
/// of effective dimensionality", EUSIPCO): in [1, r]; 1 for rank one, n for the identity.
/// NaN when sum sigma = 0.
double effective_rank(const std::vector<double>& sigma);

/// Threshold rank #{i : sigma_i > eps * sigma_1}, eps in (0, 1); 0 when sigma_1 = 0.
int threshold_rank(const std::vector<double>& sigma, double eps);

/// Similarity of two heads of the same shape, averaged over rows.
struct HeadSimilarity {
    double cosine = 0;  ///< mean over rows of a.b / (|a| |b|), in [0, 1] for weights (NaN: no row)
    double jsd = 0;     ///< mean over rows of the Jensen-Shannon divergence, nats, in [0, ln 2]
    int rows = 0;       ///< rows averaged
    int empty = 0;      ///< rows skipped because the row is empty in either head
    int sink_only = 0;  ///< (drop-sink only) rows skipped because either head puts all its mass on key 0
};

/// Row comparison convention (MATH.md, keep-sink vs drop-sink).
///  * keep: the rows as they are;
///  * drop: each row without the first key (key 0), renormalised: c = a_{1:} / (1 - a_0). A row
///    with no mass off key 0 (a_{1:} all exactly 0, e.g. row 0 of a causal head, or a head with
///    one key) has no content distribution: it is skipped and counted in `sink_only`.
enum class SinkConvention { keep, drop };

/// Jensen-Shannon divergence of two distributions of the same length (each sums to 1):
/// JSD(p, q) = (KL(p || m) + KL(q || m)) / 2, m = (p + q) / 2, nats, 0 ln 0 = 0; in [0, ln 2].
double jensen_shannon(const double* p, const double* q, int n);

/// Compares heads `x` and `y` row by row (same rows and cols; throws nothing, returns NaN means
/// and rows = 0 when shapes differ or no row is comparable). Cost O(rows * cols).
HeadSimilarity compare_heads(const StochasticMatrix& x, const StochasticMatrix& y, SinkConvention c);

}  // namespace attn
