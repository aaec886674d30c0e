// Sparsemax and alpha-entmax of one row (normalisers.hpp).
//
// Golden values: docs/MATH.md "Golden values" (sparsemax and 1.5-entmax rows; they were
// re-derived for this test with an independent plain-Python bisection on the threshold,
// 200 halvings in double, which agrees to 1e-10). Random rows are checked against the
// reference below, written here: bisection on theta of sum [(alpha-1) z - theta]_+^(1/(alpha-1)) = 1
// over [min - 1, max] for 200 halvings (no sorting, no closed forms), and against properties
// (masking = truncation, sum 1, shift invariance, alpha -> 1 is softmax).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "approx.hpp"
#include "attn/error.hpp"
#include "attn/normalisers.hpp"

using attn::EntmaxMethod;
using attn::NormalisedRow;
using attn_test::Near;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

/// Independent reference: alpha-entmax of z/tau (alpha > 1) over the finite entries by plain
/// bisection on the threshold; masked (-inf) entries get 0.
std::vector<double> reference_entmax(const std::vector<double>& z, double alpha, double tau = 1.0) {
    double lo = kInf, hi = -kInf;
    std::vector<double> x(z.size());
    for (std::size_t i = 0; i < z.size(); ++i) {
        x[i] = (alpha - 1) * z[i] / tau;
        if (z[i] == -kInf) continue;
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
    }
    std::vector<double> p(z.size(), 0.0);
    if (lo == kInf) return p;
    lo -= 1.0;
    auto at = [&](double t) {
        double s = 0;
        for (std::size_t i = 0; i < z.size(); ++i)
            if (z[i] != -kInf && x[i] > t) s += std::pow(x[i] - t, 1 / (alpha - 1));
        return s;
    };
    for (int it = 0; it < 200; ++it) {
        const double mid = 0.5 * (lo + hi);
        (at(mid) > 1 ? lo : hi) = mid;
    }
    double s = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
        p[i] = z[i] != -kInf && x[i] > lo ? std::pow(x[i] - lo, 1 / (alpha - 1)) : 0.0;
        s += p[i];
    }
    for (double& v : p) v /= s;
    return p;
}

std::vector<double> reference_softmax(const std::vector<double>& z, double tau = 1.0) {
    double m = -kInf;
    for (double v : z) m = std::max(m, v / tau);
    std::vector<double> p(z.size());
    double s = 0;
    for (std::size_t i = 0; i < z.size(); ++i) s += p[i] = z[i] == -kInf ? 0.0 : std::exp(z[i] / tau - m);
    for (double& v : p) v /= s;
    return p;
}

void check_row(const NormalisedRow& got, const std::vector<double>& want, double tol = 1e-9) {
    REQUIRE(got.weights.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        INFO("key " << i);
        CHECK_THAT(got.weights[i], Near(want[i], tol, 0));
    }
}

NormalisedRow sparsemax(const std::vector<double>& z, double tau = 1.0) {
    return attn::sparsemax_row(z.data(), static_cast<int>(z.size()), tau);
}
NormalisedRow entmax(const std::vector<double>& z, double alpha, double tau = 1.0,
                     EntmaxMethod m = EntmaxMethod::automatic) {
    return attn::entmax_row(z.data(), static_cast<int>(z.size()), alpha, tau, nullptr, m);
}

double sum(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s;
}

}  // namespace

TEST_CASE("sparsemax: the golden rows of MATH.md", "[normalisers]") {
    NormalisedRow r = sparsemax({1, 0.8, 0.1});
    check_row(r, {0.6, 0.4, 0});
    CHECK(r.support == 2);
    CHECK(r.zeros == 1);
    CHECK(r.weights[2] == 0.0);                     // an exact zero, not a small number
    CHECK_THAT(r.threshold, Near(-0.6, 1e-12, 0));  // theta of z - max: (0 + -0.2 - 1) / 2

    r = sparsemax({0, 0, 0});
    check_row(r, {1.0 / 3, 1.0 / 3, 1.0 / 3});
    CHECK(r.zeros == 0);

    r = sparsemax({3, 1, 1, 1});
    check_row(r, {1, 0, 0, 0});
    CHECK(r.support == 1);
    CHECK(r.zeros == 3);

    r = sparsemax({0.5, -kInf, 1.0});
    check_row(r, {0.25, 0, 0.75});
    CHECK(r.visible == 2);
    CHECK(r.zeros == 0);  // the masked key is not an exact zero among the visible keys

    r = sparsemax({2, 2, 0});
    check_row(r, {0.5, 0.5, 0});
    CHECK(r.zeros == 1);
}

TEST_CASE("sparsemax of float32 scores 1.36762051e8 and 1.59594639e8 is (0, 1)", "[normalisers]") {
    const float z[2] = {1.36762051e8f, 1.59594639e8f};
    const NormalisedRow r = attn::sparsemax_row(z, 2, 1.0);
    CHECK(r.weights[0] == 0.0);
    CHECK(r.weights[1] == 1.0);
    CHECK(r.zeros == 1);
    const NormalisedRow e = attn::entmax_row(z, 2, 1.5, 1.0);
    CHECK(e.weights[0] == 0.0);
    CHECK(e.weights[1] == 1.0);
    const NormalisedRow b = attn::entmax_row(z, 2, 1.3, 1.0);
    CHECK(b.weights[0] == 0.0);
    CHECK_THAT(b.weights[1], Near(1.0, 1e-12, 0));
}

TEST_CASE("1.5-entmax: the golden rows of MATH.md, exact and by bisection", "[normalisers]") {
    const std::vector<std::vector<double>> z = {{1, 0.8, 0.1}, {0.5, 0.2, -0.1, -1}, {1, 2, 3}};
    const std::vector<std::vector<double>> want = {{0.5292478943, 0.3937490429, 0.0770030628},
                                                   {0.5100964421, 0.3183333333, 0.1715702245, 0},
                                                   {0, 0.169281, 0.830719}};
    const double tol[] = {1e-10, 1e-10, 1e-6};  // the last row has 6 digits in MATH.md
    for (std::size_t c = 0; c < z.size(); ++c) {
        INFO("row " << c);
        check_row(entmax(z[c], 1.5), want[c], tol[c]);
        check_row(entmax(z[c], 1.5, 1.0, EntmaxMethod::bisection), want[c], tol[c]);
    }
    const NormalisedRow r = entmax({0.5, 0.2, -0.1, -1}, 1.5);
    CHECK(r.weights[3] == 0.0);
    CHECK(r.support == 3);
    CHECK(r.zeros == 1);
    CHECK(entmax({1, 2, 3}, 1.5).zeros == 1);
}

TEST_CASE("entmax special cases: alpha 1 is softmax, alpha 2 is sparsemax", "[normalisers]") {
    const std::vector<double> z = {1, 0.8, 0.1, -2};
    check_row(entmax(z, 1.0), reference_softmax(z), 1e-12);
    check_row(entmax(z, 1.0, 0.5), reference_softmax(z, 0.5), 1e-12);
    check_row(entmax(z, 2.0), {0.6, 0.4, 0, 0}, 1e-12);
    check_row(entmax(z, 2.0, 1.0, EntmaxMethod::bisection), {0.6, 0.4, 0, 0}, 1e-9);
    // The softmax golden of MATH.md: z = (2, 1, 0.1) at tau 0.5, 1 and 2.
    check_row(attn::softmax_row(std::vector<double>{2, 1, 0.1}.data(), 3, 0.5),
              {0.8637771182, 0.1168995209, 0.01932336085}, 1e-10);
    check_row(attn::softmax_row(std::vector<double>{2, 1, 0.1}.data(), 3, 2.0),
              {0.5016877571, 0.3042890063, 0.1940232366}, 1e-10);
    CHECK_THAT(attn::row_entropy(attn::softmax_row(std::vector<double>{2, 1, 0.1}.data(), 3, 1.0)),
               Near(0.8467381788, 1e-10, 0));
}

TEST_CASE("temperature divides the scores before every normaliser", "[normalisers]") {
    // sparsemax of (1, 0.8, 0.1) at tau = 0.5 is sparsemax of (2, 1.6, 0.2): (0.7, 0.3, 0).
    check_row(sparsemax({1, 0.8, 0.1}, 0.5), {0.7, 0.3, 0}, 1e-12);
    check_row(entmax({1, 0.8, 0.1}, 1.5, 0.5), reference_entmax({2, 1.6, 0.2}, 1.5), 1e-9);
    check_row(entmax({1, 0.8, 0.1}, 1.7, 3.0), reference_entmax({1.0 / 3, 0.8 / 3, 0.1 / 3}, 1.7), 1e-9);
}

TEST_CASE("rows with no visible key are empty for every normaliser: zeros, flagged, no NaN", "[normalisers]") {
    const std::vector<double> all_masked = {-kInf, -kInf, -kInf};
    const double nan = std::nan("");
    const std::vector<double> nan_masked = {nan, nan};
    const std::uint8_t none[2] = {0, 0};
    std::vector<NormalisedRow> rows = {attn::softmax_row(all_masked.data(), 3, 1.0),
                                       sparsemax(all_masked),
                                       entmax(all_masked, 1.5),
                                       entmax(all_masked, 1.3),
                                       entmax(all_masked, 1.3, 1.0, EntmaxMethod::bisection),
                                       attn::sparsemax_row(nan_masked.data(), 2, 1.0, none),
                                       attn::entmax_row(nan_masked.data(), 2, 2.5, 1.0, none),
                                       attn::softmax_row(static_cast<const double*>(nullptr), 0, 1.0),
                                       attn::entmax_row(static_cast<const double*>(nullptr), 0, 1.5, 1.0)};
    for (std::size_t i = 0; i < rows.size(); ++i) {
        INFO("case " << i);
        CHECK(rows[i].empty);
        CHECK(rows[i].visible == 0);
        CHECK(rows[i].support == 0);
        CHECK(rows[i].zeros == 0);
        for (double w : rows[i].weights) CHECK(w == 0.0);
        CHECK(std::isnan(attn::row_entropy(rows[i])));
    }
}

TEST_CASE("a NaN at a masked key does not leak, at a visible key it is an error", "[normalisers]") {
    const double nan = std::nan("");
    const std::vector<double> z = {1, nan, 0.8, 0.1};
    const std::uint8_t vis[4] = {1, 0, 1, 1};
    check_row(attn::sparsemax_row(z.data(), 4, 1.0, vis), {0.6, 0, 0.4, 0});
    check_row(attn::entmax_row(z.data(), 4, 1.5, 1.0, vis), {0.5292478943, 0, 0.3937490429, 0.0770030628}, 1e-10);
    CHECK_THROWS_AS(attn::sparsemax_row(z.data(), 4, 1.0), attn::Error);
    const std::vector<double> inf = {1, kInf};
    CHECK_THROWS_AS(attn::entmax_row(inf.data(), 2, 1.5, 1.0), attn::Error);
}

TEST_CASE("bad temperature and bad alpha are typed errors", "[normalisers]") {
    const std::vector<double> z = {1, 2};
    for (double tau : {0.0, -1.0, std::nan(""), kInf}) {
        try {
            attn::sparsemax_row(z.data(), 2, tau);
            FAIL("no throw for tau " << tau);
        } catch (const attn::Error& e) {
            CHECK(e.code() == attn::ErrorCode::kBadTemperature);
        }
    }
    for (double alpha : {0.5, 0.999, std::nan(""), kInf}) {
        try {
            attn::entmax_row(z.data(), 2, alpha, 1.0);
            FAIL("no throw for alpha " << alpha);
        } catch (const attn::Error& e) {
            CHECK(e.code() == attn::ErrorCode::kInvalidValue);
            CHECK(e.field() == "alpha");
        }
    }
    CHECK_THROWS_AS(attn::entmax_row(z.data(), 2, 1.0, 1.0, nullptr, EntmaxMethod::bisection), attn::Error);
}

TEST_CASE("random rows (seeded): reference agreement and properties of every normaliser", "[normalisers]") {
    std::mt19937 rng(20240605);
    std::uniform_real_distribution<double> score(-3, 3), coin(0, 1);
    const double taus[] = {0.5, 1.0, 2.0};
    const double alphas[] = {1.25, 1.5, 1.7, 2.0, 3.0};
    for (int trial = 0; trial < 300; ++trial) {
        const int n = 1 + static_cast<int>(rng() % 12);
        const double tau = taus[rng() % 3];
        std::vector<double> z(n);
        std::vector<std::uint8_t> vis(n);
        std::vector<double> truncated;  // the visible scores only
        std::vector<double> with_inf(n);
        for (int j = 0; j < n; ++j) {
            z[j] = score(rng);
            vis[j] = coin(rng) < 0.7;
            with_inf[j] = vis[j] ? z[j] : -kInf;
            if (vis[j]) truncated.push_back(z[j]);
        }
        INFO("trial " << trial << " n " << n << " tau " << tau << " visible " << truncated.size());
        const int m = static_cast<int>(truncated.size());

        auto check_masked = [&](const NormalisedRow& masked, const NormalisedRow& trunc, const char* what) {
            INFO(what);
            CHECK(masked.empty == (m == 0));
            CHECK(masked.visible == m);
            CHECK(masked.support == trunc.support);
            int k = 0;
            for (int j = 0; j < n; ++j) {
                if (!vis[j]) {
                    CHECK(masked.weights[j] == 0.0);
                    continue;
                }
                CHECK_THAT(masked.weights[j], Near(trunc.weights[k++], 1e-12, 0));
            }
            if (m > 0) CHECK_THAT(sum(masked.weights), Near(1.0, 1e-12, 0));
        };
        // Masking by flags, masking by -inf and truncating the row agree, for every normaliser.
        check_masked(attn::softmax_row(z.data(), n, tau, vis.data()), attn::softmax_row(truncated.data(), m, tau),
                     "softmax");
        check_masked(attn::softmax_row(with_inf.data(), n, tau), attn::softmax_row(truncated.data(), m, tau),
                     "softmax -inf");
        check_masked(attn::sparsemax_row(z.data(), n, tau, vis.data()), attn::sparsemax_row(truncated.data(), m, tau),
                     "sparsemax");
        check_masked(attn::sparsemax_row(with_inf.data(), n, tau), attn::sparsemax_row(truncated.data(), m, tau),
                     "sparsemax -inf");
        for (double alpha : alphas) {
            INFO("alpha " << alpha);
            check_masked(attn::entmax_row(z.data(), n, alpha, tau, vis.data()),
                         attn::entmax_row(truncated.data(), m, alpha, tau), "entmax");
            check_masked(attn::entmax_row(with_inf.data(), n, alpha, tau),
                         attn::entmax_row(truncated.data(), m, alpha, tau), "entmax -inf");
        }
        if (m == 0) continue;

        // Against the independent reference.
        check_row(attn::sparsemax_row(with_inf.data(), n, tau), reference_entmax(with_inf, 2.0, tau), 1e-9);
        for (double alpha : alphas) {
            INFO("alpha " << alpha);
            check_row(attn::entmax_row(with_inf.data(), n, alpha, tau), reference_entmax(with_inf, alpha, tau), 1e-8);
        }
        // Exact 1.5 versus bisection at 1.5; bisection at 2 versus sparsemax.
        check_row(attn::entmax_row(with_inf.data(), n, 1.5, tau, nullptr, EntmaxMethod::bisection),
                  attn::entmax_row(with_inf.data(), n, 1.5, tau).weights, 1e-6);
        check_row(attn::entmax_row(with_inf.data(), n, 2.0, tau, nullptr, EntmaxMethod::bisection),
                  attn::sparsemax_row(with_inf.data(), n, tau).weights, 1e-6);
        // Shift invariance: z + c gives the same weights.
        std::vector<double> shifted = with_inf;
        for (double& v : shifted) v += 7.25;
        check_row(attn::sparsemax_row(shifted.data(), n, tau), attn::sparsemax_row(with_inf.data(), n, tau).weights,
                  1e-9);
        check_row(attn::entmax_row(shifted.data(), n, 1.5, tau), attn::entmax_row(with_inf.data(), n, 1.5, tau).weights,
                  1e-9);
        check_row(attn::entmax_row(shifted.data(), n, 1.7, tau), attn::entmax_row(with_inf.data(), n, 1.7, tau).weights,
                  1e-9);
        // alpha -> 1 approaches softmax (the gap is O(alpha - 1): 1.1e-4 at most here, measured
        // with the Python reference).
        check_row(attn::entmax_row(with_inf.data(), n, 1.0001, tau), reference_softmax(with_inf, tau), 5e-4);
        // Counts: zeros + support = visible; supports ordered sparsemax <= 1.5-entmax <= softmax = m
        // (sparsity grows with alpha; also held on 3000 random rows of the Python reference).
        const NormalisedRow sp = attn::sparsemax_row(with_inf.data(), n, tau);
        const NormalisedRow e15 = attn::entmax_row(with_inf.data(), n, 1.5, tau);
        CHECK(sp.support + sp.zeros == m);
        CHECK(e15.support + e15.zeros == m);
        CHECK(sp.support <= e15.support);
        CHECK(attn::softmax_row(with_inf.data(), n, tau).support == m);
    }
}

TEST_CASE("entmax bisection survives extreme alpha and gaps", "[normalisers]") {
    const std::vector<double> z = {0, -1000, 5, 5};
    for (double alpha : {1.0001, 1.01, 1.5, 2.0, 4.0, 50.0}) {
        INFO("alpha " << alpha);
        const NormalisedRow r = entmax(z, alpha, 1.0, EntmaxMethod::bisection);
        CHECK_THAT(sum(r.weights), Near(1.0, 1e-12, 0));
        CHECK_THAT(r.weights[2], Near(r.weights[3], 1e-12, 0));  // ties stay tied
        CHECK(r.weights[1] == 0.0);
        for (double w : r.weights) CHECK(std::isfinite(w));
    }
}
