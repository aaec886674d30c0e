// Row normalisers beyond softmax: sparsemax and alpha-entmax, for one row of scores at a time
// (docs/MATH.md, "Normalisers").
//
//   softmax   p = exp((z - max z)/tau) / sum                        (every visible key > 0)
//   sparsemax p = [z/tau - theta]_+, sum p = 1                      (Martins & Astudillo 2016,
//             arXiv:1602.02068, sort-based, k* by the strict inequality 1 + k z_(k) > sum_{j<=k} z_(j))
//   entmax    p = [(alpha - 1) z/tau - theta]_+^(1/(alpha-1)), sum p = 1
//             (Peters, Niculae & Martins 2019, arXiv:1905.05702): alpha = 1 is softmax,
//             alpha = 2 is sparsemax, alpha = 1.5 has an exact sort-based algorithm, any other
//             alpha > 1 is solved by bisection on theta.
//
// Conventions (MATH.md): a key is visible unless its score is -inf or its entry of `visible` is 0;
// masked keys get weight exactly 0 and never enter a max, a sort or a sum, so a NaN stored at a
// masked key cannot leak. A row with no visible key is *empty*: all weights 0, `empty` set, no
// throw. All arithmetic is in double whatever the input type, so float32 scores far from 0
// (e.g. 1.36762051e8 and 1.59594639e8) are normalised exactly as their double values.
#pragma once

#include <cstdint>
#include <vector>

namespace attn {

/// One normalised row.
struct NormalisedRow {
    std::vector<double> weights;  ///< n entries in [0, 1]; sum 1 over visible keys; 0 when masked
    int visible = 0;              ///< |Omega|: keys whose score is not -inf and whose visible flag is set
    int support = 0;              ///< keys with weight > 0 (0 when empty)
    int zeros = 0;                ///< visible keys whose weight is exactly 0 (visible - support)
    bool empty = false;           ///< no visible key: weights all 0, support and zeros 0
    /// The threshold theta of sparsemax / entmax on the scale the formula uses (sparsemax: z/tau;
    /// entmax: (alpha - 1) z/tau, both after subtracting the row max of that quantity, so
    /// theta is in [-1, 0)); 0 for softmax and for empty rows.
    double threshold = 0;
};

/// How entmax_row() solves for the threshold.
enum class EntmaxMethod {
    automatic,  ///< alpha = 1: softmax; 1.5: exact sort; 2: sparsemax; otherwise bisection
    bisection,  ///< bisection for every alpha > 1 (for tests against the exact algorithms)
};

/// Default number of bisection steps: the interval [max - 1, max - n^(1-alpha)] shrinks by 2^60,
/// far below double resolution of theta (Peters et al. use >= 24 for float32; we use double).
inline constexpr int kEntmaxBisectionIterations = 60;

/// Softmax of z/tau over the visible keys, in double.
/// z: n scores (-inf = masked; a NaN or +inf at a visible key is kNonFinite, field "scores");
/// visible: nullptr (all keys visible unless -inf) or n flags (0 = masked, whatever z holds);
/// tau: temperature, finite and > 0 (kBadTemperature otherwise). Keys whose exp underflows to 0
/// count as exact zeros (possible only for gaps of more than ~745 tau).
NormalisedRow softmax_row(const double* z, int n, double tau, const std::uint8_t* visible = nullptr);
NormalisedRow softmax_row(const float* z, int n, double tau, const std::uint8_t* visible = nullptr);

/// Sparsemax of z/tau: the Euclidean projection of z/tau onto the probability simplex.
/// Same arguments and errors as softmax_row(). O(m log m) in the number m of visible keys.
NormalisedRow sparsemax_row(const double* z, int n, double tau, const std::uint8_t* visible = nullptr);
NormalisedRow sparsemax_row(const float* z, int n, double tau, const std::uint8_t* visible = nullptr);

/// alpha-entmax of z/tau. alpha finite and >= 1 (kInvalidValue, field "alpha", otherwise;
/// method bisection needs alpha > 1). Bisection runs `iterations` (>= 1) halvings of the
/// bracket and renormalises the result so it sums to 1. Other arguments and errors as
/// softmax_row().
NormalisedRow entmax_row(const double* z, int n, double alpha, double tau, const std::uint8_t* visible = nullptr,
                         EntmaxMethod method = EntmaxMethod::automatic, int iterations = kEntmaxBisectionIterations);
NormalisedRow entmax_row(const float* z, int n, double alpha, double tau, const std::uint8_t* visible = nullptr,
                         EntmaxMethod method = EntmaxMethod::automatic, int iterations = kEntmaxBisectionIterations);

/// Shannon entropy -sum p ln p in nats over p > 0 (0 ln 0 = 0, no epsilon); NaN for an empty row.
double row_entropy(const NormalisedRow& r);

}  // namespace attn
