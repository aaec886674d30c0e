// Derivatives of a softmax row (calculus.hpp; docs/MATH.md "Calculus").
#include "attn/calculus.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn {

namespace {

void check_tau(double tau) {
    if (!std::isfinite(tau) || tau <= 0)
        throw Error(ErrorCode::kBadTemperature, "tau", "tau must be finite and > 0 (got " + std::to_string(tau) + ")");
}

double entropy_of(const std::vector<double>& p) {
    double h = 0;
    for (double x : p)
        if (x > 0) h -= x * std::log(x);
    return h;
}

}  // namespace

std::vector<double> softmax_jacobian(const std::vector<double>& p, double tau) {
    check_tau(tau);
    const std::size_t m = p.size();
    std::vector<double> j(m * m);
    for (std::size_t a = 0; a < m; ++a)
        for (std::size_t b = 0; b < m; ++b) j[a * m + b] = ((a == b ? p[a] : 0.0) - p[a] * p[b]) / tau;
    return j;
}

std::vector<double> entropy_gradient(const std::vector<double>& p, double tau) {
    check_tau(tau);
    const double h = entropy_of(p);
    std::vector<double> g(p.size(), 0.0);
    for (std::size_t i = 0; i < p.size(); ++i)
        if (p[i] > 0) g[i] = -p[i] * (std::log(p[i]) + h) / tau;
    return g;
}

double entropy_tau_derivative(const std::vector<double>& p, const std::vector<double>& z, double tau) {
    check_tau(tau);
    if (p.size() != z.size())
        throw Error(ErrorCode::kShapeMismatch, "scores",
                    "entropy_tau_derivative: " + std::to_string(p.size()) + " weights but " + std::to_string(z.size()) +
                        " scores");
    double mean = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
        if (!std::isfinite(z[i]))
            throw Error(ErrorCode::kNonFinite, "scores", "score " + std::to_string(i) + " is not finite");
        mean += p[i] * z[i];
    }
    double var = 0;  // two passes: sum p (z - mean)^2 is >= 0, unlike E[z^2] - E[z]^2
    for (std::size_t i = 0; i < z.size(); ++i) var += p[i] * (z[i] - mean) * (z[i] - mean);
    return var / (tau * tau * tau);
}

double two_token_weight(double x) {
    if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
    const double e = std::exp(x);
    return e / (1.0 + e);
}

double two_token_entropy(double x) {
    const double ax = std::fabs(x);
    return std::log1p(std::exp(-ax)) + ax * two_token_weight(-ax);
}

}  // namespace attn
