// Sparsemax and alpha-entmax of one row (normalisers.hpp; docs/MATH.md "Normalisers").
#include "attn/normalisers.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "attn/error.hpp"

namespace attn {

namespace {

/// The visible keys of a row: their indices and z/tau - max(z/tau), in double.
struct Visible {
    std::vector<int> index;
    std::vector<double> x;  ///< z_j / tau - max, so max x = 0
};

void check_tau(double tau) {
    if (!std::isfinite(tau) || tau <= 0)
        throw Error(ErrorCode::kBadTemperature, "tau", "tau must be finite and > 0 (got " + std::to_string(tau) + ")");
}

template <typename T>
Visible gather(const T* z, int n, double tau, const std::uint8_t* visible) {
    check_tau(tau);
    if (n < 0) throw Error(ErrorCode::kShapeMismatch, "scores", "a row has a negative number of keys");
    Visible v;
    double m = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < n; ++j) {
        if (visible && !visible[j]) continue;
        const double zj = static_cast<double>(z[j]);
        if (zj == -std::numeric_limits<double>::infinity()) continue;  // -inf marks a masked key
        if (!std::isfinite(zj))
            throw Error(ErrorCode::kNonFinite, "scores",
                        "score of visible key " + std::to_string(j) + " is NaN or +inf");
        v.index.push_back(j);
        v.x.push_back(zj / tau);
        m = std::max(m, zj / tau);
    }
    for (double& x : v.x) x -= m;
    return v;
}

/// Scatters the visible weights into a row of n, renormalises them to sum 1 and counts zeros.
NormalisedRow finish(const Visible& v, std::vector<double> p, int n, double threshold) {
    NormalisedRow r;
    r.weights.assign(static_cast<std::size_t>(n), 0.0);
    r.visible = static_cast<int>(v.index.size());
    r.empty = r.visible == 0;
    if (r.empty) return r;
    double sum = 0;
    for (double x : p) sum += x;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double w = p[i] / sum;
        r.weights[static_cast<std::size_t>(v.index[i])] = w;
        if (w > 0) ++r.support;
    }
    r.zeros = r.visible - r.support;
    r.threshold = threshold;
    return r;
}

NormalisedRow softmax_of(const Visible& v, int n) {
    std::vector<double> p(v.x.size());
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = std::exp(v.x[i]);
    return finish(v, std::move(p), n, 0.0);
}

/// Sparsemax of x (max x = 0): sort descending, k* = max{k : 1 + k x_(k) > sum_{j<=k} x_(j)}
/// (strict), theta = (sum_{j<=k*} x_(j) - 1) / k*.
NormalisedRow sparsemax_of(const Visible& v, int n) {
    const std::size_t m = v.x.size();
    if (m == 0) return finish(v, {}, n, 0.0);
    std::vector<double> s = v.x;
    std::sort(s.begin(), s.end(), std::greater<double>());
    double cum = 0, cum_star = 0;
    std::size_t k_star = 1;
    for (std::size_t k = 1; k <= m; ++k) {
        cum += s[k - 1];
        if (1.0 + static_cast<double>(k) * s[k - 1] > cum) {
            k_star = k;
            cum_star = cum;
        }
    }
    const double theta = (cum_star - 1.0) / static_cast<double>(k_star);
    std::vector<double> p(m);
    for (std::size_t i = 0; i < m; ++i) p[i] = std::max(v.x[i] - theta, 0.0);
    return finish(v, std::move(p), n, theta);
}

/// Exact 1.5-entmax (Peters et al. 2019, Algorithm 2): X = x / 2 sorted descending; for a
/// support of the k largest, sum (X_i - theta)^2 = 1 gives theta_k = mean_k - sqrt((1 - ss_k)/k)
/// with ss_k = sum (X_i - mean_k)^2 (Welford, for stability); k* = max{k : theta_k <= X_(k)}.
NormalisedRow entmax15_of(const Visible& v, int n) {
    const std::size_t m = v.x.size();
    if (m == 0) return finish(v, {}, n, 0.0);
    std::vector<double> s(m);
    for (std::size_t i = 0; i < m; ++i) s[i] = 0.5 * v.x[i];
    std::sort(s.begin(), s.end(), std::greater<double>());
    double mean = 0, ss = 0, theta = s[0] - 1.0;
    for (std::size_t k = 1; k <= m; ++k) {
        const double x = s[k - 1];
        const double d = x - mean;
        mean += d / static_cast<double>(k);
        ss += d * (x - mean);
        const double delta = (1.0 - ss) / static_cast<double>(k);
        const double theta_k = mean - std::sqrt(std::max(delta, 0.0));
        if (theta_k <= x) theta = theta_k;
    }
    std::vector<double> p(m);
    for (std::size_t i = 0; i < m; ++i) {
        const double t = std::max(0.5 * v.x[i] - theta, 0.0);
        p[i] = t * t;
    }
    return finish(v, std::move(p), n, theta);
}

/// alpha-entmax by bisection on theta: X = (alpha - 1) x (max 0); f(theta) = sum [X - theta]_+^(1/(alpha-1))
/// decreases in theta, f(-1) >= 1 (the max term alone is 1) and f(-(1/m)^(alpha-1)) <= 1.
NormalisedRow entmax_bisect_of(const Visible& v, int n, double alpha, int iterations) {
    const std::size_t m = v.x.size();
    if (m == 0) return finish(v, {}, n, 0.0);
    const double am1 = alpha - 1.0;
    const double power = 1.0 / am1;
    std::vector<double> X(m);
    for (std::size_t i = 0; i < m; ++i) X[i] = am1 * v.x[i];
    auto mass = [&](double theta) {
        double f = 0;
        for (double x : X)
            if (x > theta) f += std::pow(x - theta, power);
        return f;
    };
    double lo = -1.0;
    double hi = -std::pow(1.0 / static_cast<double>(m), am1);
    for (int it = 0; it < iterations; ++it) {
        const double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;  // the bracket is one ulp wide
        if (mass(mid) >= 1.0)
            lo = mid;
        else
            hi = mid;
    }
    const double theta = 0.5 * (lo + hi);
    std::vector<double> p(m);
    for (std::size_t i = 0; i < m; ++i) p[i] = X[i] > theta ? std::pow(X[i] - theta, power) : 0.0;
    // theta within the bracket keeps the max key positive, so the sum is > 0.
    return finish(v, std::move(p), n, theta);
}

void check_alpha(double alpha, EntmaxMethod method, int iterations) {
    if (!std::isfinite(alpha) || alpha < 1.0)
        throw Error(ErrorCode::kInvalidValue, "alpha",
                    "entmax alpha must be finite and >= 1 (got " + std::to_string(alpha) + ")");
    if (method == EntmaxMethod::bisection && alpha == 1.0)
        throw Error(ErrorCode::kInvalidValue, "alpha", "entmax bisection needs alpha > 1 (alpha = 1 is softmax)");
    if (iterations < 1)
        throw Error(ErrorCode::kInvalidValue, "iterations", "entmax bisection needs at least 1 iteration");
}

template <typename T>
NormalisedRow entmax_impl(const T* z, int n, double alpha, double tau, const std::uint8_t* visible, EntmaxMethod method,
                          int iterations) {
    check_alpha(alpha, method, iterations);
    const Visible v = gather(z, n, tau, visible);
    if (method == EntmaxMethod::bisection) return entmax_bisect_of(v, n, alpha, iterations);
    if (alpha == 1.0) return softmax_of(v, n);
    if (alpha == 1.5) return entmax15_of(v, n);
    if (alpha == 2.0) return sparsemax_of(v, n);
    return entmax_bisect_of(v, n, alpha, iterations);
}

}  // namespace

NormalisedRow softmax_row(const double* z, int n, double tau, const std::uint8_t* visible) {
    return softmax_of(gather(z, n, tau, visible), n);
}
NormalisedRow softmax_row(const float* z, int n, double tau, const std::uint8_t* visible) {
    return softmax_of(gather(z, n, tau, visible), n);
}

NormalisedRow sparsemax_row(const double* z, int n, double tau, const std::uint8_t* visible) {
    return sparsemax_of(gather(z, n, tau, visible), n);
}
NormalisedRow sparsemax_row(const float* z, int n, double tau, const std::uint8_t* visible) {
    return sparsemax_of(gather(z, n, tau, visible), n);
}

NormalisedRow entmax_row(const double* z, int n, double alpha, double tau, const std::uint8_t* visible,
                         EntmaxMethod method, int iterations) {
    return entmax_impl(z, n, alpha, tau, visible, method, iterations);
}
NormalisedRow entmax_row(const float* z, int n, double alpha, double tau, const std::uint8_t* visible,
                         EntmaxMethod method, int iterations) {
    return entmax_impl(z, n, alpha, tau, visible, method, iterations);
}

double row_entropy(const NormalisedRow& r) {
    if (r.empty) return std::numeric_limits<double>::quiet_NaN();
    double h = 0;
    for (double p : r.weights)
        if (p > 0) h -= p * std::log(p);
    return h;
}

}  // namespace attn
