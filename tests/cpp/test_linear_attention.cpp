// Linear attention (linear_attention.hpp) and the lab view "linear".
//
// Golden values, obtained without the code under test:
//   * MATH.md example 1 with scale 1 (c = 1), elu+1 by hand: phi(q) = phi(k1) = (2, 1),
//     phi(k2) = (1, 2); sims 5 and 4, so a_lin = (5/9, 4/9) and O_lin = (10/9, 16/9); softmax from
//     MATH.md: (0.7310585786, 0.2689414214), O = (1.462117157, 1.075765685);
//   * Q = 0 and K = 0 with elu+1: phi = 1 for everything, so a_lin is uniform over Omega_t;
//     Q = 0 alone: phi(q) = 1, so a_lin[j] is proportional to sum_d phi(k_j)_d (written out here);
//   * relu features: W recomputed in the test from std::mt19937_64 and Box-Muller written here;
//   * properties: rows >= 0 summing to 1, O_lin = a_lin V on every path, causal = truncated input,
//     same seed -> same numbers, different seed -> different.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "approx.hpp"
#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/lab.hpp"
#include "attn/linear_attention.hpp"

using attn::Matrix;
using attn::Problem;
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

Matrix random_matrix(std::mt19937& g, int r, int c, double lo = -1.5, double hi = 1.5) {
    std::uniform_real_distribution<double> u(lo, hi);
    Matrix m(r, c);
    for (float& x : m.data) x = static_cast<float>(u(g));
    return m;
}

Problem random_problem(std::mt19937& g, int n, int d_k, int d_v) {
    Problem p;
    p.q = random_matrix(g, n, d_k);
    p.k = random_matrix(g, n, d_k);
    p.v = random_matrix(g, n, d_v);
    return p;
}

attn::LinearOptions relu(int m, std::uint64_t seed) {
    attn::LinearOptions o;
    o.feature = attn::FeatureMap::relu;
    o.features = m;
    o.seed = seed;
    return o;
}

/// Checks a_lin rows (>= 0, sum 1 over Omega_t, 0 elsewhere) and O_lin = a_lin V.
void check_consistent(const Problem& p, const attn::Result& r, const attn::LinearAttention& L) {
    for (int t = 0; t < L.n_q; ++t) {
        const auto& row = L.rows[static_cast<std::size_t>(t)];
        if (row.empty || row.degenerate) continue;
        double sum = 0;
        for (int j = 0; j < L.n_k; ++j) {
            const double a = L.weights[static_cast<std::size_t>(t) * L.n_k + j];
            CHECK(a >= 0);
            if (!r.visible[static_cast<std::size_t>(t) * L.n_k + j]) CHECK(a == 0);
            sum += a;
        }
        CHECK_THAT(sum, Near(1.0, 1e-12));
        for (int e = 0; e < L.d_v; ++e) {
            double want = 0;
            for (int j = 0; j < L.n_k; ++j) want += L.weights[static_cast<std::size_t>(t) * L.n_k + j] * p.v(j, e);
            CHECK_THAT(L.output[static_cast<std::size_t>(t) * L.d_v + e], Near(want, 1e-10, 1e-10));
        }
    }
}

json qkv_state(const json& q, const json& k, const json& v, bool causal, const json& params) {
    const int n_q = static_cast<int>(q.size()), n_k = static_cast<int>(k.size());
    json qt = json::array(), kt = json::array();
    for (int i = 0; i < n_q; ++i) qt.push_back("q" + std::to_string(i));
    for (int j = 0; j < n_k; ++j) kt.push_back("k" + std::to_string(j));
    return {{"version", 1},
            {"mode", "qkv"},
            {"heads", {{{"name", "h"}, {"Q", q}, {"K", k}, {"V", v}, {"logits", nullptr}, {"weights", nullptr}}}},
            {"head", 0},
            {"tokens", {{"queries", qt}, {"keys", kt}}},
            {"mask",
             {{"causal", causal},
              {"window", 0},
              {"padding", std::vector<bool>(static_cast<std::size_t>(n_k), false)},
              {"allow", nullptr}}},
            {"tau", 1},
            {"scale", 1},
            {"topK", 2},
            {"row", 0},
            {"view", {{"panel", "weights"}, {"preset", "custom"}, {"numbers", "auto"}}},
            {"source", ""},
            {"lab", {{"view", "linear"}, {"params", params}}}};
}

}  // namespace

TEST_CASE("linear: MATH.md example 1 with elu+1 by hand", "[linear]") {
    Problem p;
    p.q = make({{1, 0}});
    p.k = make({{1, 0}, {0, 1}});
    p.v = make({{2, 0}, {0, 4}});
    p.scale = 1.0;
    const auto r = attn::compute(p);
    const auto L = attn::linear_attention(p, r, attn::LinearOptions{});
    CHECK(L.m == 2);
    CHECK(L.path == "prefix");
    CHECK_THAT(L.input_scale, Near(1.0, 1e-15));
    CHECK_THAT(L.weights[0], Near(5.0 / 9, 1e-12));
    CHECK_THAT(L.weights[1], Near(4.0 / 9, 1e-12));
    CHECK_THAT(L.output[0], Near(10.0 / 9, 1e-12));
    CHECK_THAT(L.output[1], Near(16.0 / 9, 1e-12));
    CHECK_THAT(L.rows[0].denominator, Near(9.0, 1e-12));
    const double dx = 10.0 / 9 - 1.462117157, dy = 16.0 / 9 - 1.075765685;
    CHECK_THAT(L.rows[0].output_error, Near(std::hypot(dx, dy), 1e-6));
    CHECK_THAT(L.rows[0].relative_error, Near(std::hypot(dx, dy) / std::hypot(1.462117157, 1.075765685), 1e-6));
    CHECK_THAT(L.rows[0].max_weight_error, Near(0.7310585786 - 5.0 / 9, 1e-7));
    CHECK(L.defined_rows == 1);
    CHECK_THAT(L.mean_max_weight_error, Near(0.7310585786 - 5.0 / 9, 1e-7));

    // Temperature 2 and scale 1: c = sqrt(1/2) scales q and k before phi.
    p.tau = 2.0;
    const auto L2 = attn::linear_attention(p, attn::compute(p), attn::LinearOptions{});
    const double c = std::sqrt(0.5);
    const double s1 = (c + 1) * (c + 1) + 1, s2 = 2 * (c + 1);  // phi(q) = phi(k1) = (c+1, 1), phi(k2) = (1, c+1)
    CHECK_THAT(L2.weights[0], Near(s1 / (s1 + s2), 1e-12));
}

TEST_CASE("linear: elu+1 with Q = 0 (and K = 0) by hand", "[linear]") {
    std::mt19937 g(7);
    Problem p = random_problem(g, 5, 3, 2);
    p.q = Matrix(5, 3, 0.0f);
    p.scale = 1.0;
    Problem zero = p;
    zero.k = Matrix(5, 3, 0.0f);
    for (bool causal : {false, true}) {
        zero.mask.causal = causal;
        p.mask.causal = causal;
        // Q = K = 0: phi = (1, 1, 1) everywhere, uniform over Omega_t.
        const auto L = attn::linear_attention(zero, attn::compute(zero), attn::LinearOptions{});
        for (int t = 0; t < 5; ++t) {
            const int visible = causal ? t + 1 : 5;
            for (int j = 0; j < 5; ++j)
                CHECK_THAT(L.weights[static_cast<std::size_t>(t) * 5 + j],
                           Near(j < visible ? 1.0 / visible : 0.0, 1e-12));
            CHECK_THAT(L.rows[static_cast<std::size_t>(t)].max_weight_error,
                       Near(0.0, 1e-6));  // softmax is uniform too
        }
        // Q = 0 alone: a_lin[t, j] proportional to sum_d (elu(k_jd) + 1).
        const auto L2 = attn::linear_attention(p, attn::compute(p), attn::LinearOptions{});
        for (int t = 0; t < 5; ++t) {
            const int visible = causal ? t + 1 : 5;
            std::vector<double> w(5, 0.0);
            double sum = 0;
            for (int j = 0; j < visible; ++j) {
                for (int d = 0; d < 3; ++d) {
                    const double x = p.k(j, d);
                    w[static_cast<std::size_t>(j)] += x > 0 ? x + 1 : std::exp(x);
                }
                sum += w[static_cast<std::size_t>(j)];
            }
            for (int j = 0; j < 5; ++j)
                CHECK_THAT(L2.weights[static_cast<std::size_t>(t) * 5 + j],
                           Near(w[static_cast<std::size_t>(j)] / sum, 1e-12));
        }
    }
}

TEST_CASE("linear: rows are distributions and O_lin = a_lin V on every mask path", "[linear]") {
    std::mt19937 g(11);
    for (int trial = 0; trial < 4; ++trial) {
        Problem p = random_problem(g, 7, 4, 3);
        for (int mask = 0; mask < 4; ++mask) {
            p.mask = attn::MaskSpec{};
            if (mask == 1) p.mask.causal = true;
            if (mask == 2) p.mask.window = 3;                           // not a prefix: per-row path
            if (mask == 3) p.mask.key_padding = {0, 0, 0, 0, 0, 1, 1};  // padding at the end: prefix
            const auto r = attn::compute(p);
            for (const auto& o : {attn::LinearOptions{}, relu(16, 3), relu(200, 4)}) {
                const auto L = attn::linear_attention(p, r, o);
                CHECK(L.path == (mask == 2 ? "per-row" : "prefix"));
                check_consistent(p, r, L);
            }
        }
    }
}

TEST_CASE("linear: causal mask equals the input truncated to the first t+1 tokens", "[linear]") {
    std::mt19937 g(5);
    Problem p = random_problem(g, 6, 3, 2);
    p.mask.causal = true;
    for (const auto& o : {attn::LinearOptions{}, relu(32, 9)}) {
        const auto L = attn::linear_attention(p, attn::compute(p), o);
        for (int t = 0; t < 6; ++t) {
            Problem cut;
            cut.q = Matrix(t + 1, 3);
            cut.k = Matrix(t + 1, 3);
            cut.v = Matrix(t + 1, 2);
            for (int i = 0; i <= t; ++i) {
                for (int d = 0; d < 3; ++d) {
                    cut.q(i, d) = p.q(i, d);
                    cut.k(i, d) = p.k(i, d);
                }
                for (int e = 0; e < 2; ++e) cut.v(i, e) = p.v(i, e);
            }
            const auto C = attn::linear_attention(cut, attn::compute(cut), o);  // no mask
            for (int j = 0; j <= t; ++j)
                CHECK_THAT(L.weights[static_cast<std::size_t>(t) * 6 + j],
                           Near(C.weights[static_cast<std::size_t>(t) * (t + 1) + j], 1e-12));
            for (int e = 0; e < 2; ++e)
                CHECK_THAT(L.output[static_cast<std::size_t>(t) * 2 + e],
                           Near(C.output[static_cast<std::size_t>(t) * 2 + e], 1e-12, 1e-12));
        }
    }
}

TEST_CASE("linear: relu random features from the documented generator, seeds", "[linear]") {
    // W recomputed here: mt19937_64(seed), u = (x >> 11) / 2^53, Box-Muller pairs (cos, sin).
    std::mt19937_64 e(42);
    std::vector<double> want;
    for (int i = 0; i < 3; ++i) {
        const double u1 = static_cast<double>(e() >> 11) / 9007199254740992.0;
        const double u2 = static_cast<double>(e() >> 11) / 9007199254740992.0;
        const double rr = std::sqrt(-2 * std::log(1 - u1));
        want.push_back(rr * std::cos(2 * std::acos(-1.0) * u2));
        want.push_back(rr * std::sin(2 * std::acos(-1.0) * u2));
    }
    const auto w = attn::random_feature_matrix(2, 3, 42);
    REQUIRE(w.size() == 6);
    for (int i = 0; i < 6; ++i) CHECK(w[static_cast<std::size_t>(i)] == want[static_cast<std::size_t>(i)]);
    CHECK(attn::gaussian_draws(42, 5).size() == 5);
    CHECK(attn::gaussian_draws(42, 5)[4] == want[4]);

    // Standard normal: mean 0, variance 1 (200000 draws: standard errors 0.0022 and 0.0032).
    const auto z = attn::gaussian_draws(7, 200000);
    double mean = 0, var = 0;
    for (double x : z) mean += x;
    mean /= z.size();
    for (double x : z) var += (x - mean) * (x - mean);
    var /= z.size();
    CHECK(std::fabs(mean) < 0.012);
    CHECK(std::fabs(var - 1) < 0.016);

    // A hand example with m = 1: phi(x) = relu(w . x) / 1, so a_lin[j] is proportional to relu(w.k_j)
    // when w . q > 0 (and the row is degenerate when w . q <= 0).
    std::mt19937 g(3);
    Problem p = random_problem(g, 4, 3, 2);
    p.scale = 1.0;
    const auto w1 = attn::random_feature_matrix(1, 3, 8);
    const auto L1 = attn::linear_attention(p, attn::compute(p), relu(1, 8));
    for (int t = 0; t < 4; ++t) {
        const double wq = w1[0] * p.q(t, 0) + w1[1] * p.q(t, 1) + w1[2] * p.q(t, 2);
        std::vector<double> wk(4);
        double sum = 0;
        for (int j = 0; j < 4; ++j) {
            wk[static_cast<std::size_t>(j)] = std::max(0.0, w1[0] * p.k(j, 0) + w1[1] * p.k(j, 1) + w1[2] * p.k(j, 2));
            sum += wk[static_cast<std::size_t>(j)];
        }
        const bool degenerate = !(wq > 0) || !(sum > 0);
        CHECK(L1.rows[static_cast<std::size_t>(t)].degenerate == degenerate);
        if (!degenerate)
            for (int j = 0; j < 4; ++j)
                CHECK_THAT(L1.weights[static_cast<std::size_t>(t) * 4 + j],
                           Near(wk[static_cast<std::size_t>(j)] / sum, 1e-12));
    }

    // Same seed, same numbers; another seed, other numbers.
    Problem q = random_problem(g, 6, 4, 3);
    const auto r = attn::compute(q);
    const auto a = attn::linear_attention(q, r, relu(64, 1));
    const auto b = attn::linear_attention(q, r, relu(64, 1));
    const auto c = attn::linear_attention(q, r, relu(64, 2));
    CHECK(a.weights == b.weights);
    CHECK(a.output == b.output);
    CHECK(a.weights != c.weights);
}

TEST_CASE("linear: relu with Q = 0 is degenerate (undefined), elu is not", "[linear]") {
    std::mt19937 g(13);
    Problem p = random_problem(g, 3, 2, 2);
    p.q = Matrix(3, 2, 0.0f);
    const auto L = attn::linear_attention(p, attn::compute(p), relu(8, 1));
    for (const auto& row : L.rows) {
        CHECK(row.degenerate);
        CHECK(std::isnan(row.output_error));
        CHECK(std::isnan(row.max_weight_error));
    }
    CHECK(L.defined_rows == 0);
    CHECK(std::isnan(L.mean_output_error));
    CHECK(attn::linear_attention(p, attn::compute(p), attn::LinearOptions{}).defined_rows == 3);
}

TEST_CASE("linear: errors for other modes and bad feature counts", "[linear]") {
    Problem p;
    p.mode = attn::Mode::logits;
    p.logits = make({{0, 1}});
    const auto r = attn::compute(p);
    try {
        attn::linear_attention(p, r, attn::LinearOptions{});
        FAIL("no error");
    } catch (const attn::Error& e) {
        CHECK(e.code() == attn::ErrorCode::kInvalidValue);
        CHECK(e.field() == "mode");
    }
    Problem q;
    q.q = make({{1, 0}});
    q.k = make({{1, 0}});
    q.v = make({{1}});
    CHECK_THROWS_AS(attn::linear_attention(q, attn::compute(q), relu(0, 1)), attn::Error);
    CHECK_THROWS_AS(attn::linear_attention(q, attn::compute(q), relu(attn::kMaxRandomFeatures + 1, 1)), attn::Error);
}

TEST_CASE("lab linear: example 1, an empty row, params, and a weights-mode state", "[linear][lab]") {
    const json q = {{1, 0}, {0, 1}}, k = {{1, 0}, {0, 1}}, v = {{2, 0}, {0, 4}};
    json s = qkv_state(q, k, v, false, json::object());
    s["mask"]["padding"] = {false, false};
    json out = json::parse(attn::lab_state_json(s.dump()));
    REQUIRE(out["available"] == true);
    CHECK(out["feature"] == "elu");
    CHECK(out["features"] == 64);
    CHECK(out["m"] == 2);
    CHECK(out["seed"] == 1);
    CHECK(out["path"] == "prefix");
    CHECK_THAT(out["linear"]["weights"][0][0].get<double>(), Near(5.0 / 9, 1e-12));
    CHECK_THAT(out["linear"]["output"][0][1].get<double>(), Near(16.0 / 9, 1e-12));
    CHECK_THAT(out["softmax"]["weights"][0][0].get<double>(), Near(0.7310585786, 1e-7));
    CHECK_THAT(out["softmax"]["output"][0][0].get<double>(), Near(1.462117157, 1e-6));
    CHECK(out["rows"].size() == 2);
    CHECK(out["definedRows"] == 2);

    // Key 0 padded and causal: row 0 sees nothing (empty, undefined everywhere).
    s["mask"]["padding"] = {true, false};
    s["mask"]["causal"] = true;
    out = json::parse(attn::lab_state_json(s.dump()));
    CHECK(out["rows"][0]["empty"] == true);
    CHECK(out["rows"][0]["outputError"].is_null());
    CHECK(out["linear"]["weights"][0][0].is_null());
    CHECK(out["linear"]["output"][0][0].is_null());
    CHECK(out["softmax"]["output"][0][0].is_null());
    CHECK(out["path"] == "per-row");  // row 1 sees key 1 only: not a prefix
    CHECK_THAT(out["linear"]["weights"][1][1].get<double>(), Near(1.0, 1e-12));
    CHECK(out["definedRows"] == 1);

    // Params.
    s["lab"]["params"] = {{"feature", "relu"}, {"features", 8}, {"seed", 3}};
    out = json::parse(attn::lab_state_json(s.dump()));
    CHECK(out["feature"] == "relu");
    CHECK(out["m"] == 8);
    for (const json& bad : {json{{"feature", "gelu"}}, json{{"features", 0}}, json{{"features", 1025}},
                            json{{"seed", -1}}, json{{"seed", 1.5}}})
        CHECK_THROWS_AS(attn::lab_state_json(qkv_state(q, k, v, false, bad).dump()), attn::Error);

    // Weights mode: not available, with the reason.
    json w = s;
    w["mode"] = "weights";
    w["heads"][0]["Q"] = nullptr;
    w["heads"][0]["K"] = nullptr;
    w["heads"][0]["weights"] = {{1, 0}, {0.5, 0.5}};
    w["mask"] = {{"causal", false}, {"window", 0}, {"padding", {false, false}}, {"allow", nullptr}};
    out = json::parse(attn::lab_state_json(w.dump()));
    CHECK(out["available"] == false);
    CHECK(out["mode"] == "weights");
    CHECK_THAT(out["reason"].get<std::string>(), Catch::Contains("needs Q, K and V"));
}
