// Derivatives of a softmax row (calculus.hpp) against central finite differences computed here
// in double from a softmax and an entropy written in this file; the two-token curve against
// its closed values (ln 2 at 0; a_1 = 3/4 at Delta/tau = ln 3, since e^{ln 3}/(1 + e^{ln 3}) = 3/4)
// and against the formula softplus(x) - x sigmoid(x) evaluated naively where it is accurate.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "approx.hpp"
#include "attn/calculus.hpp"
#include "attn/error.hpp"

using attn_test::Near;

namespace {

std::vector<double> softmax(const std::vector<double>& z, double tau) {
    double m = z[0];
    for (double v : z) m = std::max(m, v);
    std::vector<double> p(z.size());
    double s = 0;
    for (std::size_t i = 0; i < z.size(); ++i) s += p[i] = std::exp((z[i] - m) / tau);
    for (double& v : p) v /= s;
    return p;
}

double entropy(const std::vector<double>& p) {
    double h = 0;
    for (double v : p)
        if (v > 0) h -= v * std::log(v);
    return h;
}

std::vector<std::vector<double>> random_rows() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-3, 3);
    std::vector<std::vector<double>> rows = {{1, 0}, {2, 1, 0.1}, {0, 0, 0, 0}, {5, -5, 0.3}};
    for (int t = 0; t < 20; ++t) {
        std::vector<double> z(1 + rng() % 9);
        for (double& v : z) v = u(rng);
        rows.push_back(z);
    }
    return rows;
}

}  // namespace

TEST_CASE("softmax Jacobian equals central differences, is symmetric, rows sum to 0", "[calculus]") {
    const double h = 1e-6;
    for (double tau : {0.5, 1.0, 2.5}) {
        for (const auto& z : random_rows()) {
            const std::size_t m = z.size();
            const auto p = softmax(z, tau);
            const auto J = attn::softmax_jacobian(p, tau);
            REQUIRE(J.size() == m * m);
            INFO("tau " << tau << " m " << m);
            for (std::size_t j = 0; j < m; ++j) {
                auto zp = z, zm = z;
                zp[j] += h;
                zm[j] -= h;
                const auto pp = softmax(zp, tau), pm = softmax(zm, tau);
                for (std::size_t i = 0; i < m; ++i) {
                    INFO("dp_" << i << "/dz_" << j);
                    CHECK_THAT(J[i * m + j], Near((pp[i] - pm[i]) / (2 * h), 1e-7, 0));
                    CHECK(J[i * m + j] == J[j * m + i]);
                }
            }
            for (std::size_t i = 0; i < m; ++i) {
                double s = 0;
                for (std::size_t j = 0; j < m; ++j) s += J[i * m + j];
                CHECK_THAT(s, Near(0.0, 1e-15, 0));
            }
        }
    }
}

TEST_CASE("Jacobian of worked example 1 (weights 0.7310585786, 0.2689414214)", "[calculus]") {
    const std::vector<double> p = {0.7310585786300049, 0.2689414213699951};  // sigmoid(1), sigmoid(-1)
    const auto J = attn::softmax_jacobian(p, 1.0);
    CHECK_THAT(J[0], Near(0.1966119332, 1e-10, 0));  // p1 p2
    CHECK_THAT(J[1], Near(-0.1966119332, 1e-10, 0));
    CHECK_THAT(J[3], Near(0.1966119332, 1e-10, 0));
    const auto J2 = attn::softmax_jacobian(p, 2.0);
    CHECK_THAT(J2[0], Near(0.0983059666, 1e-10, 0));  // divided by tau
}

TEST_CASE("dH/dz equals central differences of the entropy and sums to 0", "[calculus]") {
    const double h = 1e-6;
    for (double tau : {0.5, 1.0, 2.5}) {
        for (const auto& z : random_rows()) {
            const auto p = softmax(z, tau);
            const auto g = attn::entropy_gradient(p, tau);
            REQUIRE(g.size() == z.size());
            double s = 0;
            for (std::size_t j = 0; j < z.size(); ++j) {
                auto zp = z, zm = z;
                zp[j] += h;
                zm[j] -= h;
                INFO("tau " << tau << " dH/dz_" << j);
                CHECK_THAT(g[j], Near((entropy(softmax(zp, tau)) - entropy(softmax(zm, tau))) / (2 * h), 1e-7, 0));
                s += g[j];
            }
            CHECK_THAT(s, Near(0.0, 1e-14, 0));
        }
    }
    // A zero weight (underflow) contributes 0, not NaN.
    const auto g = attn::entropy_gradient({1.0, 0.0}, 1.0);
    CHECK(g[0] == 0.0);
    CHECK(g[1] == 0.0);
}

TEST_CASE("dH/dtau = Var_p(z) / tau^3 equals central differences in tau", "[calculus]") {
    const double h = 1e-6;
    for (double tau : {0.3, 1.0, 2.5}) {
        for (const auto& z : random_rows()) {
            const double got = attn::entropy_tau_derivative(softmax(z, tau), z, tau);
            const double fd = (entropy(softmax(z, tau + h)) - entropy(softmax(z, tau - h))) / (2 * h);
            INFO("tau " << tau << " m " << z.size());
            CHECK_THAT(got, Near(fd, 1e-7, 1e-6));
            CHECK(got >= 0);
        }
    }
    // Uniform scores: no variance, entropy flat in tau.
    CHECK(attn::entropy_tau_derivative({0.5, 0.5}, {3, 3}, 1.0) == 0.0);
    CHECK_THROWS_AS(attn::entropy_tau_derivative({0.5, 0.5}, {3}, 1.0), attn::Error);
}

TEST_CASE("two tokens: a_1 = sigmoid(Delta/tau), H = softplus(x) - x sigmoid(x)", "[calculus]") {
    CHECK_THAT(attn::two_token_weight(std::log(3.0)), Near(0.75, 1e-15, 0));
    CHECK_THAT(attn::two_token_weight(1.0), Near(0.7310585786, 1e-10, 0));  // worked example 1
    CHECK(attn::two_token_weight(0.0) == 0.5);
    CHECK_THAT(attn::two_token_weight(-800.0), Near(0.0, 1e-300, 0));
    CHECK(attn::two_token_weight(800.0) == 1.0);
    CHECK_THAT(attn::two_token_entropy(0.0), Near(std::log(2.0), 1e-15, 0));
    // Worked example 1 (gap 1, tau 1): H = 0.5822031089 (MATH.md).
    CHECK_THAT(attn::two_token_entropy(1.0), Near(0.5822031089, 1e-10, 0));
    for (double x : {-8.0, -3.0, -0.7, 0.2, 1.5, 4.0, 10.0}) {
        const double sig = 1 / (1 + std::exp(-x));
        const double naive = std::log1p(std::exp(x)) - x * sig;
        const double a = sig, b = 1 - sig;  // binary entropy of (a, b) from its definition
        INFO("x " << x);
        CHECK_THAT(attn::two_token_entropy(x), Near(naive, 1e-12, 0));
        CHECK_THAT(attn::two_token_entropy(x), Near(-a * std::log(a) - b * std::log(b), 1e-12, 0));
        CHECK(attn::two_token_entropy(x) == attn::two_token_entropy(-x));
    }
    // Large x: tends to 0 from above, ~ (1 + x) e^-x, never negative.
    CHECK(attn::two_token_entropy(50.0) > 0);
    CHECK_THAT(attn::two_token_entropy(50.0), Near(51.0 * std::exp(-50.0), 0, 1e-10));
    CHECK(attn::two_token_entropy(1000.0) == 0.0);
    CHECK(attn::two_token_entropy(40.0) < attn::two_token_entropy(20.0));
}

TEST_CASE("calculus: bad tau is kBadTemperature", "[calculus]") {
    for (double tau : {0.0, -1.0, std::nan("")}) {
        CHECK_THROWS_AS(attn::softmax_jacobian({1.0}, tau), attn::Error);
        CHECK_THROWS_AS(attn::entropy_gradient({1.0}, tau), attn::Error);
        CHECK_THROWS_AS(attn::entropy_tau_derivative({1.0}, {0.0}, tau), attn::Error);
    }
}
