// Spectral quantities of a row-stochastic A and head redundancy (spectral.hpp), and the lab view
// "spectral" on states built here.
//
// Golden values, all obtained without the code under test:
//   * identity: sigma = 1 (n times), effective rank n, spectral entropy ln n; every token absorbing,
//     so the iteration from uniform stays uniform;
//   * rank one (all rows r): A = 1 r^T, so sigma_1 = ||1|| ||r|| = sqrt(n) ||r||, the rest 0, and
//     pi A = (pi . 1) r = r;
//   * 2 x 2 A = [[1/2, 1/2], [1/4, 3/4]] by hand: pi0 = pi0/2 + pi1/4 gives pi = (1/3, 2/3);
//     sigma1 sigma2 = |det A| = 1/4 and sigma1^2 + sigma2^2 = ||A||_F^2 = 9/8, so
//     sigma1 +- sigma2 = sqrt(9/8 +- 1/2), sigma = (sqrt(13/8) +- sqrt(5/8)) / 2;
//   * MATH.md example 2, A = [[1,0,0],[1/4,3/4,0],[1/2,1/4,1/4]]: pi = e_0 (token 0 absorbing);
//     by hand 16 A^T A = [[21,5,2],[5,10,1],[2,1,1]], whose characteristic polynomial is
//     l^3 - 32 l^2 + 211 l - 144 (trace 32, principal minors 185 + 17 + 9, det 144 = 16^3 det(A)^2);
//     its three real roots are taken in the test by the trigonometric (Viete) formula and
//     sigma_i = sqrt(l_i) / 4 (about 1.2030355, 0.7103259, 0.2194144);
//   * a periodic chain (the random walk on a path of 5 tokens) by hand: pi proportional to the
//     degrees, (1, 2, 2, 2, 1) / 8, which the plain iteration from uniform never reaches (it alternates);
//   * redundancy: a head with itself has cosine 1 and JSD 0; two 3-key rows by hand from the
//     definitions (keep and drop-sink).
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "approx.hpp"
#include "attn/error.hpp"
#include "attn/lab.hpp"
#include "attn/spectral.hpp"

using attn::Matrix;
using attn_test::Near;
using json = nlohmann::json;

namespace {

Matrix make(const std::vector<std::vector<double>>& rows) {
    Matrix m(static_cast<int>(rows.size()), rows.empty() ? 0 : static_cast<int>(rows[0].size()));
    for (int i = 0; i < m.rows; ++i)
        for (int j = 0; j < m.cols; ++j)
            m(i, j) = static_cast<float>(rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]);
    return m;
}

double entropy(const std::vector<double>& p) {
    double h = 0;
    for (double x : p)
        if (x > 0) h -= x * std::log(x);
    return h;
}

/// A weights-mode state (queries x keys tokens) with the given heads.
json weights_state(const std::vector<json>& heads, int n_q, int n_k, bool causal = false) {
    json hs = json::array();
    for (std::size_t h = 0; h < heads.size(); ++h)
        hs.push_back({{"name", "H" + std::to_string(h)},
                      {"Q", nullptr},
                      {"K", nullptr},
                      {"V", nullptr},
                      {"logits", nullptr},
                      {"weights", heads[h]}});
    json q = json::array(), k = json::array();
    for (int i = 0; i < n_q; ++i) q.push_back("q" + std::to_string(i));
    for (int j = 0; j < n_k; ++j) k.push_back("k" + std::to_string(j));
    return {{"version", 1},
            {"mode", "weights"},
            {"heads", hs},
            {"head", 0},
            {"tokens", {{"queries", q}, {"keys", k}}},
            {"mask",
             {{"causal", causal},
              {"window", 0},
              {"padding", std::vector<bool>(static_cast<std::size_t>(n_k), false)},
              {"allow", nullptr}}},
            {"tau", 1},
            {"scale", "auto"},
            {"topK", 2},
            {"row", 0},
            {"view", {{"panel", "weights"}, {"preset", "custom"}, {"numbers", "auto"}}},
            {"source", ""},
            {"lab", {{"view", "spectral"}, {"params", json::object()}}}};
}

json run(const json& state) {
    return json::parse(attn::lab_state_json(state.dump()));
}

}  // namespace

TEST_CASE("spectral: identity matrix has sigma all 1, effective rank n, uniform pi", "[spectral]") {
    const int n = 4;
    Matrix id(n, n);
    for (int i = 0; i < n; ++i) id(i, i) = 1.0f;
    const auto a = attn::row_stochastic(id);
    const auto sigma = attn::singular_values(a);
    REQUIRE(sigma.size() == 4);
    for (double s : sigma) CHECK_THAT(s, Near(1.0, 1e-12));
    CHECK_THAT(attn::effective_rank(sigma), Near(4.0, 1e-12));
    CHECK_THAT(attn::spectral_entropy(sigma), Near(std::log(4.0), 1e-12));
    CHECK(attn::threshold_rank(sigma, 0.01) == 4);
    const auto st = attn::stationary(a);
    REQUIRE(st.defined);
    CHECK(st.converged);
    for (double p : st.pi) CHECK_THAT(p, Near(0.25, 1e-12));
}

TEST_CASE("spectral: rank-1 matrix (equal rows r) has effective rank 1, threshold rank 1, pi = r", "[spectral]") {
    const std::vector<double> r = {0.2, 0.3, 0.5};
    const Matrix m = make({r, r, r});
    const auto a = attn::row_stochastic(m);
    const auto sigma = attn::singular_values(a);
    REQUIRE(sigma.size() == 3);
    CHECK_THAT(sigma[0], Near(std::sqrt(3.0 * (0.04 + 0.09 + 0.25)), 1e-6));
    CHECK(sigma[1] < 1e-6);
    CHECK(sigma[2] < 1e-6);
    CHECK_THAT(attn::effective_rank(sigma), Near(1.0, 1e-5));
    CHECK(attn::threshold_rank(sigma, 0.01) == 1);
    CHECK(attn::threshold_rank(sigma, 0.999) == 1);
    const auto st = attn::stationary(a);
    REQUIRE(st.defined);
    CHECK(st.converged);
    for (int j = 0; j < 3; ++j)
        CHECK_THAT(st.pi[static_cast<std::size_t>(j)], Near(r[static_cast<std::size_t>(j)], 1e-7));
}

TEST_CASE("spectral: 2x2 example by hand", "[spectral]") {
    const auto a = attn::row_stochastic(make({{0.5, 0.5}, {0.25, 0.75}}));
    const auto st = attn::stationary(a);
    REQUIRE(st.defined);
    CHECK(st.converged);
    CHECK(st.residual <= attn::kStationaryTolerance);
    CHECK_THAT(st.pi[0], Near(1.0 / 3, 1e-11));
    CHECK_THAT(st.pi[1], Near(2.0 / 3, 1e-11));
    const auto sigma = attn::singular_values(a);
    const double s1 = (std::sqrt(13.0 / 8) + std::sqrt(5.0 / 8)) / 2,
                 s2 = (std::sqrt(13.0 / 8) - std::sqrt(5.0 / 8)) / 2;
    REQUIRE(sigma.size() == 2);
    CHECK_THAT(sigma[0], Near(s1, 1e-12));
    CHECK_THAT(sigma[1], Near(s2, 1e-12));
    const double h = entropy({s1 / (s1 + s2), s2 / (s1 + s2)});
    CHECK_THAT(attn::spectral_entropy(sigma), Near(h, 1e-12));
    CHECK_THAT(attn::effective_rank(sigma), Near(std::exp(h), 1e-12));
    // s2 / s1 is about 0.2344: the threshold decides whether it counts.
    CHECK(attn::threshold_rank(sigma, 0.2) == 2);
    CHECK(attn::threshold_rank(sigma, 0.3) == 1);
}

TEST_CASE("spectral: MATH.md example 2 (causal): pi = e_0, sigma from the hand-derived cubic", "[spectral]") {
    const auto a = attn::row_stochastic(make({{1, 0, 0}, {0.25, 0.75, 0}, {0.5, 0.25, 0.25}}));
    const auto st = attn::stationary(a);
    REQUIRE(st.defined);
    CHECK(st.converged);
    CHECK_THAT(st.pi[0], Near(1.0, 1e-11));
    CHECK_THAT(st.pi[1], Near(0.0, 1e-11));
    CHECK_THAT(st.pi[2], Near(0.0, 1e-11));
    // Roots of l^3 + b l^2 + c l + d with b = -32, c = 211, d = -144 (Viete's trigonometric form).
    const double b = -32, c = 211, d = -144;
    const double p = c - b * b / 3, q = 2 * b * b * b / 27 - b * c / 3 + d;
    const double pi = std::acos(-1.0);
    std::vector<double> want;
    for (int k = 0; k < 3; ++k)
        want.push_back(std::sqrt(2 * std::sqrt(-p / 3) *
                                     std::cos((std::acos(3 * q / (2 * p) * std::sqrt(-3 / p)) - 2 * pi * k) / 3) -
                                 b / 3) /
                       4);
    // Invariants of the hand derivation: sum sigma^2 = ||A||_F^2 = 2, prod sigma = |det A| = 3/16.
    CHECK_THAT(want[0] * want[0] + want[1] * want[1] + want[2] * want[2], Near(2.0, 1e-12));
    CHECK_THAT(want[0] * want[1] * want[2], Near(3.0 / 16, 1e-12));
    const auto sigma = attn::singular_values(a);
    REQUIRE(sigma.size() == 3);
    for (int i = 0; i < 3; ++i)
        CHECK_THAT(sigma[static_cast<std::size_t>(i)], Near(want[static_cast<std::size_t>(i)], 1e-10));
    CHECK_THAT(sigma[0], Near(1.2030354871, 1e-9));
    CHECK_THAT(sigma[2], Near(0.2194144189, 1e-9));
    const double total = want[0] + want[1] + want[2];
    CHECK_THAT(attn::effective_rank(sigma),
               Near(std::exp(entropy({want[0] / total, want[1] / total, want[2] / total})), 1e-10));
}

TEST_CASE("spectral: a periodic chain converges through the lazy iteration", "[spectral]") {
    // Random walk on the path 0 - 1 - 2 - 3 - 4: pi is proportional to the degrees (1, 2, 2, 2, 1).
    const std::vector<std::vector<double>> walk = {
        {0, 1, 0, 0, 0}, {0.5, 0, 0.5, 0, 0}, {0, 0.5, 0, 0.5, 0}, {0, 0, 0.5, 0, 0.5}, {0, 0, 0, 1, 0}};
    const auto a = attn::row_stochastic(make(walk));
    const auto st = attn::stationary(a);
    REQUIRE(st.defined);
    CHECK(st.converged);
    CHECK(st.steps > 3);
    CHECK(st.squarings == 0);
    const double want[5] = {1.0 / 8, 2.0 / 8, 2.0 / 8, 2.0 / 8, 1.0 / 8};
    for (int j = 0; j < 5; ++j) CHECK_THAT(st.pi[static_cast<std::size_t>(j)], Near(want[j], 1e-11));
    // The plain iteration u A^t (written here) alternates between the two sides of the path and
    // never gets there: the reason for the lazy chain.
    std::vector<double> u(5, 0.2);
    for (int it = 0; it < 1000; ++it) {
        std::vector<double> next(5, 0.0);
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 5; ++j)
                next[static_cast<std::size_t>(j)] +=
                    u[static_cast<std::size_t>(i)] * walk[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
        u = next;
    }
    CHECK(std::fabs(u[0] - want[0]) > 0.01);
    // An iteration budget too small to converge says so.
    const auto few = attn::stationary(a, 2, 2);
    CHECK_FALSE(few.converged);
    CHECK(few.steps == 4);
    CHECK(few.residual > attn::kStationaryTolerance);
}

TEST_CASE("spectral: a slowly mixing causal head converges by squaring", "[spectral]") {
    // Token 1 keeps 1 - 1e-6 of its weight on itself: pi = e_0 by hand (token 0 absorbing), but the
    // lazy chain needs ~3e7 plain steps to get within 1e-12.
    const auto a = attn::row_stochastic(make({{1, 0}, {1e-6, 1 - 1e-6}}));
    const auto st = attn::stationary(a);
    REQUIRE(st.defined);
    CHECK(st.converged);
    CHECK(st.squarings > 0);
    CHECK(st.steps > 1024);
    CHECK(st.residual <= attn::kStationaryTolerance);
    CHECK_THAT(st.pi[0], Near(1.0, 1e-12));
    CHECK_THAT(st.pi[1], Near(0.0, 1e-12));
    // Without squarings it stops after the plain steps, not converged.
    // The residual alone would have stopped far too early: a pi with pi_1 = 1e-6 already has
    // ||pi A - pi||_1 = 2e-12 (by hand: pi A - pi = (+1e-12, -1e-12)).
    // Without squarings it stops after the plain steps, not converged.
    const auto plain = attn::stationary(a, 10, 10);
    CHECK_FALSE(plain.converged);
    CHECK(plain.steps == 1024);
    CHECK(plain.squarings == 0);
}

TEST_CASE("spectral: undefined cases (non-square, empty rows, all empty)", "[spectral]") {
    const auto rect = attn::row_stochastic(make({{0.5, 0.5, 0}, {0, 0.5, 0.5}}));
    const auto st = attn::stationary(rect);
    CHECK_FALSE(st.defined);
    CHECK(st.pi.empty());
    CHECK(std::isnan(st.residual));
    CHECK_THAT(st.undefined_reason, Catch::Contains("square"));
    const auto sigma = attn::singular_values(rect);
    REQUIRE(sigma.size() == 2);
    CHECK(sigma[0] > 0);

    const auto holes = attn::row_stochastic(make({{1, 0}, {0, 0}}));
    CHECK(holes.empty_rows == 1);
    const auto st2 = attn::stationary(holes);
    CHECK_FALSE(st2.defined);
    CHECK_THAT(st2.undefined_reason, Catch::Contains("empty"));
    const auto s2 = attn::singular_values(holes);  // [[1,0],[0,0]]: sigma (1, 0)
    CHECK_THAT(s2[0], Near(1.0, 1e-12));
    CHECK_THAT(s2[1], Near(0.0, 1e-12));
    CHECK_THAT(attn::effective_rank(s2), Near(1.0, 1e-12));

    const auto zero = attn::row_stochastic(make({{0, 0}, {0, 0}}));
    const auto s3 = attn::singular_values(zero);
    CHECK(std::isnan(attn::effective_rank(s3)));
    CHECK(std::isnan(attn::spectral_entropy(s3)));
    CHECK(attn::threshold_rank(s3, 0.01) == 0);
}

TEST_CASE("spectral: Jensen-Shannon and head comparison by hand, keep and drop", "[spectral]") {
    // Rows x = (0.5, 0.25, 0.25), y = (0.2, 0.6, 0.2) and a second row where both put all mass on key 0.
    const auto x = attn::row_stochastic(make({{0.5, 0.25, 0.25}, {1, 0, 0}}));
    const auto y = attn::row_stochastic(make({{0.2, 0.6, 0.2}, {1, 0, 0}}));
    // keep: row 0 by the definitions, row 1 identical rows (cosine 1, JSD 0).
    const double cos0 = 0.3 / (std::sqrt(0.375) * std::sqrt(0.44));
    const double m[3] = {0.35, 0.425, 0.225};
    const double jsd0 =
        0.5 * (0.5 * std::log(0.5 / m[0]) + 0.25 * std::log(0.25 / m[1]) + 0.25 * std::log(0.25 / m[2]) +
               0.2 * std::log(0.2 / m[0]) + 0.6 * std::log(0.6 / m[1]) + 0.2 * std::log(0.2 / m[2]));
    const auto keep = attn::compare_heads(x, y, attn::SinkConvention::keep);
    CHECK(keep.rows == 2);
    CHECK(keep.sink_only == 0);
    CHECK_THAT(keep.cosine, Near((cos0 + 1) / 2, 1e-7));
    CHECK_THAT(keep.jsd, Near(jsd0 / 2, 1e-7));
    // drop: content rows cx = (0.5, 0.5), cy = (0.75, 0.25); row 1 has no content (skipped).
    const double dcos = 0.5 / (std::sqrt(0.5) * std::sqrt(0.625));
    const double djsd = 0.5 * (0.5 * std::log(0.5 / 0.625) + 0.5 * std::log(0.5 / 0.375) +
                               0.75 * std::log(0.75 / 0.625) + 0.25 * std::log(0.25 / 0.375));
    const auto drop = attn::compare_heads(x, y, attn::SinkConvention::drop);
    CHECK(drop.rows == 1);
    CHECK(drop.sink_only == 1);
    CHECK_THAT(drop.cosine, Near(dcos, 1e-7));
    CHECK_THAT(drop.jsd, Near(djsd, 1e-7));
    // A head with itself.
    for (auto c : {attn::SinkConvention::keep, attn::SinkConvention::drop}) {
        const auto self = attn::compare_heads(x, x, c);
        CHECK_THAT(self.cosine, Near(1.0, 1e-12));
        CHECK_THAT(self.jsd, Near(0.0, 1e-12));
    }
    // Disjoint supports: JSD = ln 2, cosine 0.
    const double p[2] = {1, 0}, q[2] = {0, 1};
    CHECK_THAT(attn::jensen_shannon(p, q, 2), Near(std::log(2.0), 1e-15));
}

TEST_CASE("lab spectral: MATH.md example 2 as a causal weights state, three heads", "[spectral][lab]") {
    const json ex2 = {{1, 0, 0}, {0.25, 0.75, 0}, {0.5, 0.25, 0.25}};
    const json diag = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const json sink = {{1, 0, 0}, {0.9, 0.1, 0}, {0.8, 0.1, 0.1}};
    json s = weights_state({ex2, diag, sink}, 3, 3, true);
    const json out = run(s);
    CHECK(out["view"] == "spectral");
    CHECK(out["nQ"] == 3);
    CHECK(out["emptyRows"] == 0);
    CHECK(out["epsilon"].get<double>() == 0.01);
    REQUIRE(out["stationary"]["defined"] == true);
    CHECK(out["stationary"]["reason"].is_null());
    CHECK(out["stationary"]["converged"] == true);
    CHECK_THAT(out["stationary"]["pi"][0].get<double>(), Near(1.0, 1e-9));
    CHECK_THAT(out["stationary"]["pi"][2].get<double>(), Near(0.0, 1e-9));
    REQUIRE(out["sigma"].size() == 3);
    CHECK_THAT(out["sigma"][0].get<double>(), Near(1.2030354871, 1e-7));
    CHECK(out["thresholdRank"] == 3);
    CHECK(out["effectiveRank"].get<double>() > 2.0);
    const json& red = out["redundancy"];
    REQUIRE(red["heads"].size() == 3);
    CHECK(red["heads"][1]["name"] == "H1");
    for (const char* conv : {"keep", "drop"})
        for (int h = 0; h < 3; ++h) {
            CHECK_THAT(red[conv]["cosine"][h][h].get<double>(), Near(1.0, 1e-12));
            CHECK_THAT(red[conv]["jsd"][h][h].get<double>(), Near(0.0, 1e-12));
        }
    // Symmetric; row 0 of a causal head has no content: 1 row skipped in drop for every pair.
    CHECK(red["keep"]["cosine"][0][2] == red["keep"]["cosine"][2][0]);
    CHECK(red["keep"]["rows"][0][1] == 3);
    CHECK(red["drop"]["rows"][0][1] == 2);
    CHECK(red["drop"]["sinkOnly"][0][1] == 1);
    // ex2 vs diag, keep: row 0 identical (cos 1, JSD 0); row 1 (1/4,3/4,0) vs (0,1,0):
    // cos = 3/4 / sqrt(10/16) = 3/sqrt(10); row 2 (1/2,1/4,1/4) vs (0,0,1): cos = (1/4)/sqrt(6/16) = 1/sqrt(6).
    CHECK_THAT(red["keep"]["cosine"][0][1].get<double>(),
               Near((1 + 3 / std::sqrt(10.0) + 1 / std::sqrt(6.0)) / 3, 1e-7));

    // epsilon out of (0, 1) is refused with its field.
    s["lab"]["params"]["epsilon"] = 0;
    CHECK_THROWS_WITH(attn::lab_state_json(s.dump()), Catch::Contains("lab.params.epsilon"));
    s["lab"]["params"]["epsilon"] = 1;
    CHECK_THROWS_WITH(attn::lab_state_json(s.dump()), Catch::Contains("lab.params.epsilon"));
    s["lab"]["params"]["epsilon"] = 0.5;  // sigma ~ (1.203, 0.710, 0.219): two above 0.6015
    CHECK(run(s)["thresholdRank"] == 2);
}

TEST_CASE("lab spectral: empty rows, non-square and one-token states", "[spectral][lab]") {
    // An empty row (all weights 0: no visible key).
    json s = weights_state({json{{0.5, 0.5}, {0, 0}}}, 2, 2);
    json out = run(s);
    CHECK(out["emptyRows"] == 1);
    CHECK(out["stationary"]["defined"] == false);
    CHECK(out["stationary"]["pi"].is_null());
    CHECK(out["stationary"]["residual"].is_null());
    CHECK_THAT(out["stationary"]["reason"].get<std::string>(), Catch::Contains("empty"));
    CHECK(out["redundancy"]["keep"]["empty"][0][0] == 1);
    CHECK(out["redundancy"]["keep"]["rows"][0][0] == 1);

    // Cross-attention 2 queries x 3 keys.
    out = run(weights_state({json{{0.5, 0.5, 0}, {0.2, 0.3, 0.5}}}, 2, 3));
    CHECK(out["stationary"]["defined"] == false);
    CHECK_THAT(out["stationary"]["reason"].get<std::string>(), Catch::Contains("square"));
    CHECK(out["sigma"].size() == 2);

    // One token: A = [1].
    out = run(weights_state({json{{1}}}, 1, 1));
    CHECK(out["stationary"]["pi"] == json{1.0});
    CHECK(out["sigma"] == json{1.0});
    CHECK(out["effectiveRank"].get<double>() == 1.0);
    CHECK(out["thresholdRank"] == 1);
    CHECK(out["spectralEntropy"].get<double>() == 0.0);
    CHECK(out["redundancy"]["drop"]["rows"][0][0] == 0);
    CHECK(out["redundancy"]["drop"]["sinkOnly"][0][0] == 1);
    CHECK(out["redundancy"]["drop"]["cosine"][0][0].is_null());
}
