// Attention rows as compositional data (compositional.hpp): the entropy identity, keep/drop
// comparisons, the Aitchison split, the entropy attribution and the flip detector.
// Golden values: MATH.md ("Sink split of a = [0.6, 0.1, 0.1, 0.15, 0.05]"), hand computations
// written out next to each check, and entropies recomputed here by a separate loop.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "approx.hpp"
#include "attn/compositional.hpp"
#include "attn/error.hpp"

using attn_test::Near;
namespace cd = attn::compositional;
using Vec = std::vector<double>;

namespace {

// Independent helpers (not the code under test).
double ent(const Vec& p) {
    double h = 0;
    for (double x : p) h += x > 0 ? -x * std::log(x) : 0.0;
    return h;
}

Vec random_row(std::mt19937& rng, int n, bool with_zeros) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Vec a(static_cast<std::size_t>(n));
    double s = 0;
    for (auto& x : a) {
        x = u(rng);
        x = x * x * x;  // skewed, like attention
        if (with_zeros && u(rng) < 0.2) x = 0;
        s += x;
    }
    if (s == 0) a[0] = s = 1;
    for (auto& x : a) x /= s;
    return a;
}

}  // namespace

TEST_CASE("compositional: the MATH.md sink split of [0.6, 0.1, 0.1, 0.15, 0.05]", "[compositional]") {
    const Vec a = {0.6, 0.1, 0.1, 0.15, 0.05};
    const cd::SinkSplit s = cd::sink_split(a);
    CHECK_THAT(s.sink_mass, Near(0.6, 1e-15));
    const Vec c = cd::content(a);
    REQUIRE(c.size() == 4);
    CHECK_THAT(c[0], Near(0.25, 1e-15));
    CHECK_THAT(c[1], Near(0.25, 1e-15));
    CHECK_THAT(c[2], Near(0.375, 1e-15));
    CHECK_THAT(c[3], Near(0.125, 1e-15));
    // MATH.md: H = 1.201367004 = 0.673011667 + 0.4 x 1.320888343 (9 decimals given).
    CHECK_THAT(s.entropy, Near(1.201367004, 1e-9));
    CHECK_THAT(s.sink_entropy, Near(0.673011667, 1e-9));
    CHECK_THAT(s.content_entropy, Near(1.320888343, 1e-9));
    CHECK_THAT(s.content_term, Near(0.4 * 1.320888343, 1e-9));
    CHECK(std::fabs(s.residual) < 1e-15);
    CHECK_THAT(cd::binary_entropy(0.6), Near(0.673011667, 1e-9));
}

TEST_CASE("compositional: H = h(s) + s H(sigma) + (1-s) H(c) to 1e-12 on random rows, one and several sink keys",
          "[compositional]") {
    std::mt19937 rng(20260814);
    for (int trial = 0; trial < 500; ++trial) {
        const int n = 2 + trial % 60;
        const int k = 1 + trial % 3;
        const Vec a = random_row(rng, n, trial % 2 == 0);
        const cd::SinkSplit s = cd::sink_split(a, k);
        const double h_direct = ent(a);  // the left side, by this file's own loop
        double sm = 0;
        for (int i = 0; i < std::min(k, n); ++i) sm += a[static_cast<std::size_t>(i)];
        CHECK_THAT(s.sink_mass, Near(sm, 1e-15));
        // sigma = the sink keys' weights / s (its entropy is 0 for one sink key).
        Vec sigma;
        for (int i = 0; i < std::min(k, n); ++i) sigma.push_back(sm > 0 ? a[static_cast<std::size_t>(i)] / sm : 0.0);
        const double rhs =
            cd::binary_entropy(sm) + sm * ent(sigma) + (s.content_defined() ? (1 - sm) * ent(cd::content(a, k)) : 0.0);
        if (k == 1) CHECK(s.sink_spread_term == 0.0);
        CHECK(std::fabs(h_direct - rhs) <= 1e-12);
        CHECK(std::fabs(s.residual) <= 1e-12);
        CHECK_THAT(s.entropy, Near(h_direct, 1e-14));
    }
}

TEST_CASE("compositional: s = 1 leaves c undefined, bad rows throw", "[compositional]") {
    const cd::SinkSplit s = cd::sink_split({1.0, 0.0, 0.0});
    CHECK(s.sink_mass == 1.0);
    CHECK_FALSE(s.content_defined());
    CHECK(std::isnan(s.content_entropy));
    CHECK(s.content_term == 0.0);
    CHECK(s.entropy == 0.0);
    CHECK(cd::content({1.0, 0.0}).empty());
    CHECK(cd::content({1.0}).empty());  // one key: the causal row 0
    CHECK_THROWS_AS(cd::sink_split({0.5, 0.6}), attn::Error);
    CHECK_THROWS_AS(cd::sink_split({1.5, -0.5}), attn::Error);
    CHECK_THROWS_AS(cd::sink_split({1.0, 0.0}, 0), attn::Error);
    CHECK_THROWS_AS(cd::normalized({0.0, 0.0}), attn::Error);
    CHECK(std::isnan(cd::binary_entropy(1.5)));
    CHECK(cd::binary_entropy(0.0) == 0.0);
    CHECK(cd::binary_entropy(1.0) == 0.0);
}

TEST_CASE("compositional: JSD and cosine on hand-computed rows", "[compositional]") {
    // Disjoint supports: JSD = ln 2, cosine 0.
    CHECK_THAT(cd::jensen_shannon({1, 0}, {0, 1}), Near(std::log(2.0), 1e-15));
    CHECK_THAT(cd::cosine_similarity({1, 0}, {0, 1}), Near(0.0, 1e-15));
    // (1/2, 1/2) vs (1, 0): m = (3/4, 1/4); KL(p||m) = 1/2 ln(4/3), KL(q||m) = ln(4/3);
    // JSD = 3/4 ln(4/3) = 0.2157615543. Cosine = (1/2) / (1/sqrt 2) = 1/sqrt 2.
    CHECK_THAT(cd::jensen_shannon({0.5, 0.5}, {1, 0}), Near(0.75 * std::log(4.0 / 3.0), 1e-15));
    CHECK_THAT(cd::jensen_shannon({0.5, 0.5}, {1, 0}), Near(0.2157615543, 1e-10));
    CHECK_THAT(cd::cosine_similarity({0.5, 0.5}, {1, 0}), Near(1 / std::sqrt(2.0), 1e-15));
    CHECK(cd::jensen_shannon({0.2, 0.3, 0.5}, {0.2, 0.3, 0.5}) == 0.0);
    CHECK(std::isnan(cd::cosine_similarity({0, 0}, {1, 0})));
    CHECK_THROWS_AS(cd::jensen_shannon({1}, {0.5, 0.5}), attn::Error);
}

TEST_CASE("compositional: keep vs drop on rows with the same content and different sinks", "[compositional]") {
    // a = (0.8, 0.1, 0.1), b = (0.2, 0.4, 0.4): contents are both (1/2, 1/2).
    const cd::RowComparison r = cd::compare_rows({0.8, 0.1, 0.1}, {0.2, 0.4, 0.4});
    CHECK(r.jsd.keep > 0.1);
    CHECK_THAT(r.jsd.drop, Near(0.0, 1e-15));
    CHECK_THAT(r.cosine.drop, Near(1.0, 1e-15));
    // entropy gap drop: H(c) = ln 2 both -> 0; keep: |H(a) - H(b)| by hand.
    const double ha = -(0.8 * std::log(0.8) + 0.2 * std::log(0.1)), hb = -(0.2 * std::log(0.2) + 0.8 * std::log(0.4));
    CHECK_THAT(r.entropy_gap.keep, Near(std::fabs(ha - hb), 1e-14));
    CHECK_THAT(r.entropy_gap.drop, Near(0.0, 1e-15));
    // A row with s = 1: drop undefined.
    const cd::RowComparison u = cd::compare_rows({1, 0, 0}, {0.2, 0.4, 0.4});
    CHECK(std::isnan(u.jsd.drop));
    CHECK(std::isnan(u.cosine.drop));
    CHECK(std::isfinite(u.jsd.keep));
}

TEST_CASE("compositional: Aitchison distance and its orthogonal split, by hand", "[compositional]") {
    // x = (1/2, 1/4, 1/4), y = (1/4, 1/4, 1/2). ln x - ln y = (ln 2, 0, -ln 2), mean 0, so
    // d_A = sqrt(2) ln 2 = 0.9802581435. b(x) = sqrt(2/3) ln(0.5 / 0.25) = sqrt(2/3) ln 2,
    // b(y) = sqrt(2/3) ln(0.25 / sqrt(0.125)) = -sqrt(2/3) ln(2)/2, so (b(x)-b(y))^2 = 1.5 ln^2 2;
    // contents (1/2, 1/2) and (1/3, 2/3): diff (0, -ln 2) centred (ln2/2, -ln2/2): 0.5 ln^2 2.
    const double l2 = std::log(2.0);
    const cd::AitchisonSplit s = cd::aitchison({0.5, 0.25, 0.25}, {0.25, 0.25, 0.5});
    REQUIRE(s.defined);
    CHECK_THAT(s.distance, Near(std::sqrt(2.0) * l2, 1e-14));
    CHECK_THAT(s.balance_x, Near(std::sqrt(2.0 / 3.0) * l2, 1e-14));
    CHECK_THAT(s.balance_y, Near(-std::sqrt(2.0 / 3.0) * l2 / 2, 1e-14));
    CHECK_THAT(s.sink_term * s.sink_term, Near(1.5 * l2 * l2, 1e-14));
    CHECK_THAT(s.content_term * s.content_term, Near(0.5 * l2 * l2, 1e-14));
    CHECK(s.within_sink == 0.0);
}

TEST_CASE("compositional: the two Aitchison terms square-sum to the distance on random rows", "[compositional]") {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 300; ++trial) {
        const int n = 2 + trial % 40;
        const int k = 1 + trial % std::min(3, n - 1);
        Vec x = random_row(rng, n, false), y = random_row(rng, n, false);
        for (auto* v : {&x, &y})
            for (auto& e : *v) e = std::max(e, 1e-12);
        const cd::AitchisonSplit s = cd::aitchison(x, y, k);
        REQUIRE(s.defined);
        const double d2 = s.distance * s.distance;
        const double parts =
            s.sink_term * s.sink_term + s.within_sink * s.within_sink + s.content_term * s.content_term;
        CHECK(std::fabs(d2 - parts) <= 1e-10 * std::max(1.0, d2));
        if (k == 1) CHECK(s.within_sink == 0.0);
        // The distance itself, by this file's own clr: ||(ln x - mean) - (ln y - mean)||.
        double mx = 0, my = 0;
        for (int i = 0; i < n; ++i) mx += std::log(x[i]) / n, my += std::log(y[i]) / n;
        double ss = 0;
        for (int i = 0; i < n; ++i) {
            const double d = (std::log(x[i]) - mx) - (std::log(y[i]) - my);
            ss += d * d;
        }
        CHECK_THAT(s.distance, Near(std::sqrt(ss), 1e-12, 1e-12));
    }
}

TEST_CASE("compositional: Aitchison from logits equals the positive rows, zero parts are undefined",
          "[compositional]") {
    // Softmax rows of z at tau: clr = centred z / tau.
    const Vec z1 = {2, 1, 0.1, -3}, z2 = {0.5, 0.4, 1.5, 0};
    const double tau = 0.7;
    auto softmax = [&](const Vec& z) {
        Vec p(z.size());
        double s = 0;
        for (std::size_t i = 0; i < z.size(); ++i) s += p[i] = std::exp(z[i] / tau);
        for (auto& x : p) x /= s;
        return p;
    };
    Vec l1, l2;
    for (double v : z1) l1.push_back(v / tau);
    for (double v : z2) l2.push_back(v / tau);
    const cd::AitchisonSplit a = cd::aitchison_from_logs(l1, l2), b = cd::aitchison(softmax(z1), softmax(z2));
    REQUIRE(a.defined);
    CHECK_THAT(a.distance, Near(b.distance, 1e-12));
    CHECK_THAT(a.sink_term, Near(b.sink_term, 1e-12));
    CHECK_THAT(a.content_term, Near(b.content_term, 1e-12));
    const Vec clr = cd::clr_from_logs(l1);
    double sum = 0;
    for (double v : clr) sum += v;
    CHECK(std::fabs(sum) < 1e-12);

    const cd::AitchisonSplit zero = cd::aitchison({0.5, 0.5, 0.0}, {0.2, 0.3, 0.5});
    CHECK_FALSE(zero.defined);
    CHECK_THAT(zero.reason, Catch::Contains("zero part") && Catch::Contains("no logits"));
    CHECK(std::isnan(zero.distance));
    CHECK_FALSE(cd::aitchison({1.0}, {1.0}).defined);               // one part
    CHECK_FALSE(cd::aitchison({0.5, 0.5}, {0.5, 0.5}, 2).defined);  // no content part
    // By rows: the same key outside both rows is dropped; a key in one row only is a zero part.
    CHECK(cd::aitchison_of_rows({0.5, 0.5, 0}, {0.4, 0.6, 0}, {}, {}).defined);
    const cd::AitchisonSplit one = cd::aitchison_of_rows({0.5, 0.5, 0}, {0.4, 0.3, 0.3}, {}, {});
    CHECK_FALSE(one.defined);
    CHECK_THAT(one.reason, Catch::Contains("key 2"));
    // With log-values (NaN = not visible) a weight that underflowed to 0 is still a part.
    const double nan = std::nan("");
    CHECK(cd::aitchison_of_rows({1, 0}, {0.5, 0.5}, {0, -800}, {0, 0}).defined);
    CHECK_FALSE(cd::aitchison_of_rows({1, 0}, {0.5, 0.5}, {0, nan}, {0, 0}).defined);
    // The sink masked out (key 0 not visible in either row): no sink part.
    const cd::AitchisonSplit nosink = cd::aitchison_of_rows({0, 0.5, 0.5}, {0, 0.3, 0.7}, {}, {});
    CHECK_FALSE(nosink.defined);
    CHECK_THAT(nosink.reason, Catch::Contains("sink"));
}

TEST_CASE("compositional: entropy attribution, both orders and Shapley, by hand", "[compositional]") {
    // From a1 = (0.6, 0.1, 0.1, 0.15, 0.05) to a2 = uniform over 5: s 0.6 -> 0.2,
    // H(c1) = 1.320888343 (MATH.md), H(c2) = ln 4, H1 = 1.201367004, H2 = ln 5.
    // Hand (Python float, the formulas of compositional.hpp written out):
    //   total        = ln 5 - 1.2013670043 = 0.4080709082
    //   termwise     = h(0.2) - h(0.6) = -0.1726092435,   0.8 ln 4 - 0.4 H(c1) = 0.5806801516
    //   sink first   = -0.1726092435 + 0.4 H(c1) = 0.3557460938,  0.8 (ln 4 - H(c1)) = 0.0523248144
    //   content first= -0.1726092435 + 0.4 ln 4 = 0.3819085010,   0.4 (ln 4 - H(c1)) = 0.0261624072
    const cd::SinkSplit s1 = cd::sink_split({0.6, 0.1, 0.1, 0.15, 0.05});
    const cd::SinkSplit s2 = cd::sink_split({0.2, 0.2, 0.2, 0.2, 0.2});
    const cd::Attribution a = cd::attribute(s1, s2);
    CHECK_THAT(a.total, Near(0.4080709082, 1e-9));
    CHECK_THAT(a.termwise.sink, Near(-0.1726092435, 1e-9));
    CHECK_THAT(a.termwise.content, Near(0.5806801516, 1e-9));
    CHECK_THAT(a.sink_first.sink, Near(0.3557460938, 1e-9));
    CHECK_THAT(a.sink_first.content, Near(0.0523248144, 1e-9));
    CHECK_THAT(a.content_first.sink, Near(0.3819085010, 1e-9));
    CHECK_THAT(a.content_first.content, Near(0.0261624072, 1e-9));
    CHECK_THAT(a.shapley.sink, Near((0.3557460938 + 0.3819085010) / 2, 1e-9));
    CHECK_THAT(a.shapley.content, Near((0.0523248144 + 0.0261624072) / 2, 1e-9));
    for (const auto& p : {a.termwise, a.sink_first, a.content_first, a.shapley})
        CHECK_THAT(p.sink + p.content, Near(a.total, 1e-14));
    // Reversed direction: every part changes sign, Shapley included.
    const cd::Attribution r = cd::attribute(s2, s1);
    CHECK_THAT(r.shapley.sink, Near(-a.shapley.sink, 1e-14));
    CHECK_THAT(r.shapley.content, Near(-a.shapley.content, 1e-14));
    // Several sink keys: the sink part carries s H(sigma) too; every split still sums to the total.
    std::mt19937 rng(3);
    for (int trial = 0; trial < 100; ++trial) {
        const Vec x = random_row(rng, 6, false), y = random_row(rng, 6, false);
        const cd::SinkSplit p1 = cd::sink_split(x, 2), p2 = cd::sink_split(y, 2);
        const cd::Attribution b = cd::attribute(p1, p2);
        CHECK_THAT(b.total, Near(ent(y) - ent(x), 1e-13));
        for (const auto& p : {b.termwise, b.sink_first, b.content_first, b.shapley})
            CHECK_THAT(p.sink + p.content, Near(b.total, 1e-12));
        CHECK_THAT(b.shapley.content,
                   Near((1 - (p1.sink_mass + p2.sink_mass) / 2) * (p2.content_entropy - p1.content_entropy), 1e-12));
    }
    // Undefined when a content distribution is.
    const cd::Attribution u = cd::attribute(cd::sink_split({1, 0}), s1);
    CHECK(std::isnan(u.total));
    CHECK(std::isnan(u.shapley.sink));
}

TEST_CASE("compositional: flips of R = (0.8,.1,.1) between P = (0.8,.18,.02) and Q = (0.2,.4,.4)", "[compositional]") {
    // Head-level values (Python, by hand, of the formulas):
    //   JSD keep: d(R,P) = 0.02034984502, d(R,Q) = 0.19274475702, d(P,Q) = 0.22312358755
    //   JSD drop: c_R = c_Q = (1/2, 1/2), c_P = (0.9, 0.1): d(R,P) = d(P,Q) = 0.10174922508, d(R,Q) = 0
    // R=0: keep says P, drop says Q: a flip. R=1 (P): keep says R, drop a tie. R=2 (Q): both say R.
    const double nan = std::nan("");
    const std::vector<Vec> keep = {
        {nan, 0.02034984502, 0.19274475702}, {0.02034984502, nan, 0.22312358755}, {0.19274475702, 0.22312358755, nan}};
    const std::vector<Vec> drop = {
        {nan, 0.10174922508, 0.0}, {0.10174922508, nan, 0.10174922508}, {0.0, 0.10174922508, nan}};
    const cd::FlipReport f = cd::find_flips(keep, drop, false);
    CHECK(f.triples == 3);
    REQUIRE(f.flips == 1);
    REQUIRE(f.list.size() == 1);
    CHECK(f.list[0].reference == 0);
    CHECK(f.list[0].p == 1);
    CHECK(f.list[0].q == 2);
    CHECK(f.list[0].keep == cd::Closer::p);
    CHECK(f.list[0].drop == cd::Closer::q);
    // Similarities: the same verdicts read with "higher is closer".
    std::vector<Vec> sk = keep, sd = drop;
    for (auto* m : {&sk, &sd})
        for (auto& row : *m)
            for (auto& v : row) v = -v;
    CHECK(cd::find_flips(sk, sd, true).flips == 1);
    CHECK(cd::find_flips(sk, sd, false).flips == 1);  // every verdict reversed: still one flip
    // An undefined value removes the triples that need it.
    std::vector<Vec> d2 = drop;
    d2[0][1] = d2[1][0] = nan;
    CHECK(cd::find_flips(keep, d2, false).triples == 1);
    CHECK_THROWS_AS(cd::find_flips(keep, {{0}}, false), attn::Error);
}

TEST_CASE("compositional: compare_heads averages keep and drop over the same rows", "[compositional]") {
    // Two heads of 3 rows over 3 keys; row 0 is the causal row 0 (s = 1 in both): skipped
    // by both conventions; row 2 is empty in y: skipped.
    cd::HeadRows x, y;
    x.weights = {{1, 0, 0}, {0.8, 0.1, 0.1}, {0.5, 0.25, 0.25}};
    y.weights = {{1, 0, 0}, {0.2, 0.4, 0.4}, {}};
    const cd::HeadComparison c = cd::compare_heads(x, y);
    CHECK(c.rows == 1);
    const cd::RowComparison r = cd::compare_rows(x.weights[1], y.weights[1]);
    CHECK(c.jsd.keep == r.jsd.keep);
    CHECK(c.jsd.drop == r.jsd.drop);
    CHECK(c.cosine.keep == r.cosine.keep);
    // Aitchison from the weights: row 0 has one part (undefined), row 1 defined.
    CHECK(c.aitchison_rows == 1);
    CHECK_THAT(c.aitchison_reason, Catch::Contains("row 0"));
    CHECK_THAT(c.aitchison_sq, Near(c.sink_sq + c.within_sink_sq + c.content_sq, 1e-14));
    // The row-1 Aitchison numbers by hand: ln x - ln y = (ln 4, -ln 4, -ln 4), centred
    // (4/3 ln 4, -2/3 ln 4, -2/3 ln 4): d_A^2 = (16/9 + 8/9) ln^2 4 = 8/3 ln^2 4; content equal: 0.
    const double l4 = std::log(4.0);
    CHECK_THAT(c.aitchison_sq, Near(8.0 / 3.0 * l4 * l4, 1e-13));
    CHECK_THAT(c.content_sq, Near(0.0, 1e-13));
}
