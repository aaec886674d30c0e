// The lesson's experiments (lesson.hpp) and their lab views "sweep" and "sensitivity".
//
// Golden values, all obtained independently of the code under test:
//  * by hand (seed lesson 003, example 1; docs/MATH.md "Golden values"): with k1 = (1,0),
//    k2 = (0,1), no scaling, tau 1: theta = 0 gives (e/(e+1), 1/(e+1)) = (0.7310585786,
//    0.2689414214), theta = pi/4 equal scores so (0.5, 0.5), theta = pi/2 the mirror image;
//    tau 0.5 at theta = 0: sigmoid(2) = 0.8807970780; tau 2: sigmoid(0.5) = 0.6224593312;
//    output (1.462117157, 1.075765685);
//  * seed example 2, row 2: logits (ln 2, 0, 0), V = (2, 6, 10): weights (1/2, 1/4, 1/4), output 5;
//    deleting a token and renormalising by hand: (6/4 + 10/4)/(1/2) = 8, (2/2 + 10/4)/(3/4) = 14/3,
//    (2/2 + 6/4)/(3/4) = 10/3;
//  * derivatives against central finite differences of an output computed by this file's own
//    double-precision softmax (ref_output below), and deletions against a brute-force
//    renormalisation written here.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "approx.hpp"
#include "attn/error.hpp"
#include "attn/lab.hpp"
#include "attn/lesson.hpp"

using attn_test::Near;
using json = nlohmann::json;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kA1 = 0.7310585786;  // e / (e + 1)
constexpr double kA2 = 0.2689414214;  // 1 / (e + 1)

double sigmoid_ref(double x) {
    return 1.0 / (1.0 + std::exp(-x));
}

attn::SweepKeys unit_keys(double scale = 1.0) {
    attn::SweepKeys k;
    k.n_k = 2;
    k.d_k = 2;
    k.keys = {1, 0, 0, 1};
    k.scale = scale;
    return k;
}

/// This file's own softmax over the visible keys and output sum_j a_j v_j (double).
std::vector<double> ref_weights(const std::vector<double>& s, const std::vector<std::uint8_t>& vis, double tau) {
    double m = -INFINITY;
    for (std::size_t j = 0; j < s.size(); ++j)
        if (vis[j]) m = std::max(m, s[j] / tau);
    std::vector<double> a(s.size(), 0.0);
    double z = 0;
    for (std::size_t j = 0; j < s.size(); ++j)
        if (vis[j]) z += (a[j] = std::exp(s[j] / tau - m));
    for (double& x : a) x /= z;
    return a;
}

std::vector<double> ref_output(const std::vector<double>& s, const std::vector<std::uint8_t>& vis,
                               const std::vector<double>& v, int d_v, double tau) {
    const std::vector<double> a = ref_weights(s, vis, tau);
    std::vector<double> o(static_cast<std::size_t>(d_v), 0.0);
    for (std::size_t j = 0; j < s.size(); ++j)
        for (int c = 0; c < d_v; ++c) o[c] += a[j] * v[j * d_v + c];
    return o;
}

/// A qkv row: n = 4 keys in d_k = 3, d_v = 2, key 2 masked; scores from q, K and the scale.
struct QkvRow {
    std::vector<double> q{0.9, -0.4, 1.3};
    std::vector<double> k{0.5, 1.0, -0.2, /**/ -1.1, 0.3, 0.8, /**/ 2.0, 2.0, 2.0, /**/ 0.1, -0.7, 0.4};
    std::vector<double> v{1.0, -2.0, /**/ 0.5, 3.0, /**/ 9.0, 9.0, /**/ -1.5, 0.25};
    std::vector<std::uint8_t> vis{1, 1, 0, 1};
    double scale = 0.6, tau = 0.8;
    int n = 4, d_k = 3, d_v = 2;

    std::vector<double> scores(const std::vector<double>& keys) const {
        std::vector<double> s(static_cast<std::size_t>(n), 0.0);
        for (int j = 0; j < n; ++j) {
            double d = 0;
            for (int c = 0; c < d_k; ++c) d += q[c] * keys[j * d_k + c];
            s[j] = d * scale;
        }
        return s;
    }
    attn::RowProblem problem() const {
        attn::RowProblem p;
        p.n_k = n;
        p.d_v = d_v;
        p.scores = scores(k);
        p.visible = vis;
        p.values = v;
        p.query = q;
        p.scale = scale;
        p.tau = tau;
        return p;
    }
};

/// A version-1 state document in mode qkv.
json qkv_state(const json& Q, const json& K, const json& V, const json& scale, int row = 0) {
    const int n_q = static_cast<int>(Q.size()), n_k = static_cast<int>(K.size());
    json qt = json::array(), kt = json::array();
    for (int i = 0; i < n_q; ++i) qt.push_back("q" + std::to_string(i));
    for (int j = 0; j < n_k; ++j) kt.push_back("k" + std::to_string(j));
    return {
        {"version", 1},
        {"mode", "qkv"},
        {"heads", {{{"name", "h"}, {"Q", Q}, {"K", K}, {"V", V}, {"logits", nullptr}, {"weights", nullptr}}}},
        {"head", 0},
        {"tokens", {{"queries", qt}, {"keys", kt}}},
        {"mask", {{"causal", false}, {"window", 0}, {"padding", std::vector<bool>(n_k, false)}, {"allow", nullptr}}},
        {"tau", 1},
        {"scale", scale},
        {"topK", 2},
        {"row", row},
        {"view", {{"panel", "weights"}, {"preset", "custom"}, {"numbers", "auto"}}},
        {"source", ""}};
}

json example1(const json& scale = 1) {
    return qkv_state({{1, 0}}, {{1, 0}, {0, 1}}, {{2, 0}, {0, 4}}, scale);
}

json run_lab(json s, const char* view, const json& params = json::object()) {
    s["lab"] = {{"view", view}, {"params", params}};
    return json::parse(attn::lab_state_json(s.dump()));
}

}  // namespace

// ------------------------------------------------------------------------------------------
// Angle sweep
// ------------------------------------------------------------------------------------------

TEST_CASE("angle_weights: the lesson's two keys at theta = 0, pi/4, pi/2 and tau 0.5, 1, 2", "[lesson]") {
    const attn::SweepKeys k = unit_keys();
    auto w = attn::angle_weights(k, 0.0, 1.0).weights;
    CHECK_THAT(w[0], Near(kA1, 1e-10));
    CHECK_THAT(w[1], Near(kA2, 1e-10));
    w = attn::angle_weights(k, kPi / 4, 1.0).weights;
    CHECK(w[0] == 0.5);  // exactly equal scores at pi/4
    CHECK(w[1] == 0.5);
    w = attn::angle_weights(k, kPi / 2, 1.0).weights;
    CHECK_THAT(w[0], Near(kA2, 1e-10));
    CHECK_THAT(w[1], Near(kA1, 1e-10));
    CHECK_THAT(attn::angle_weights(k, 0.0, 0.5).weights[0], Near(0.8807970780, 1e-10));
    CHECK_THAT(attn::angle_weights(k, 0.0, 2.0).weights[0], Near(0.6224593312, 1e-10));
    // pi/6 with scale 1/sqrt(2): gap (cos - sin)/sqrt(2), weight sigmoid(gap / tau).
    const double gap = (std::cos(kPi / 6) - std::sin(kPi / 6)) / std::sqrt(2.0);
    CHECK_THAT(attn::angle_weights(unit_keys(1 / std::sqrt(2.0)), kPi / 6, 0.7).weights[0],
               Near(sigmoid_ref(gap / 0.7), 1e-12));
}

TEST_CASE("angle_weights: d_k > 2 uses the first two axes, masked keys get 0 and never enter the sum", "[lesson]") {
    attn::SweepKeys k;
    k.n_k = 3;
    k.d_k = 3;
    k.keys = {1, 0, 5, /**/ 0, 1, -5, /**/ 7, 7, 7};
    k.visible = {1, 1, 0};
    const auto r = attn::angle_weights(k, 0.0, 1.0);
    CHECK_THAT(r.weights[0], Near(kA1, 1e-10));
    CHECK_THAT(r.weights[1], Near(kA2, 1e-10));
    CHECK(r.weights[2] == 0.0);
    k.visible = {0, 0, 0};
    CHECK(attn::angle_weights(k, 0.3, 1.0).empty);
}

TEST_CASE("angle_sweep: grid from 0 to pi/2, rows sum to 1, values at the grid's 0 and pi/4", "[lesson]") {
    const attn::AngleSweep sw = attn::angle_sweep(unit_keys(), {0.5, 1, 2}, 91);
    REQUIRE(sw.thetas.size() == 91);
    CHECK(sw.thetas.front() == 0.0);
    CHECK(sw.thetas.back() == kPi / 2);
    CHECK_THAT(sw.thetas[45], Near(kPi / 4, 1e-15));
    CHECK_THAT(sw.thetas[1], Near(kPi / 180, 1e-15));  // one degree per step
    REQUIRE(sw.keys == std::vector<int>{0, 1});
    REQUIRE(sw.weights.size() == 3);
    for (const auto& per_tau : sw.weights)
        for (int i = 0; i < 91; ++i) CHECK_THAT(per_tau[0][i] + per_tau[1][i], Near(1.0, 1e-14));
    CHECK_THAT(sw.weights[0][0][0], Near(0.8807970780, 1e-10));  // tau 0.5, theta 0
    CHECK_THAT(sw.weights[1][0][0], Near(kA1, 1e-10));           // tau 1, theta 0
    CHECK_THAT(sw.weights[1][1][0], Near(kA2, 1e-10));
    CHECK_THAT(sw.weights[2][0][0], Near(0.6224593312, 1e-10));  // tau 2, theta 0
    for (int t = 0; t < 3; ++t) CHECK_THAT(sw.weights[t][0][45], Near(0.5, 1e-12));
    // Key 1's weight rises monotonically with theta (its score sin(theta) rises, key 0's falls).
    for (int i = 1; i < 91; ++i) CHECK(sw.weights[1][1][i] > sw.weights[1][1][i - 1]);
}

TEST_CASE("angle_sweep: refuses d_k = 1, bad temperatures, bad step counts", "[lesson]") {
    attn::SweepKeys k;
    k.n_k = 2;
    k.d_k = 1;
    k.keys = {1, 2};
    CHECK_THROWS_AS(attn::angle_sweep(k, {1}, 10), attn::Error);
    CHECK_THROWS_AS(attn::angle_sweep(unit_keys(), {}, 10), attn::Error);
    CHECK_THROWS_AS(attn::angle_sweep(unit_keys(), {0.0}, 10), attn::Error);
    CHECK_THROWS_AS(attn::angle_sweep(unit_keys(), {1}, 1), attn::Error);
    CHECK_THROWS_AS(attn::angle_weights(unit_keys(0.0), 0, 1), attn::Error);
}

TEST_CASE("lab sweep: lesson example 1 table at 0, pi/4, pi/2 and the query marker", "[lesson][lab]") {
    const json out = run_lab(example1(), "sweep");
    REQUIRE(out["supported"] == true);
    CHECK(out["view"] == "sweep");
    CHECK(out["taus"] == json({0.5, 1, 2}));
    CHECK(out["steps"] == 91);
    CHECK(out["thetas"].size() == 91);
    CHECK(out["keys"] == json({0, 1}));
    REQUIRE(out["table"].size() == 3);
    const json& t0 = out["table"][0]["weights"];  // [tau][key]
    CHECK_THAT(t0[0][0].get<double>(), Near(0.8807970780, 1e-9));
    CHECK_THAT(t0[1][0].get<double>(), Near(kA1, 1e-9));
    CHECK_THAT(t0[1][1].get<double>(), Near(kA2, 1e-9));
    CHECK_THAT(t0[2][0].get<double>(), Near(0.6224593312, 1e-9));
    for (int t = 0; t < 3; ++t) CHECK_THAT(out["table"][1]["weights"][t][1].get<double>(), Near(0.5, 1e-12));
    CHECK_THAT(out["table"][2]["weights"][1][1].get<double>(), Near(kA1, 1e-9));
    CHECK_THAT(out["curves"][1]["weights"][0][0].get<double>(), Near(kA1, 1e-9));
    CHECK(out["curves"][1]["weights"][0].size() == 91);
    // q = (1, 0): angle 0, norm 1, so its own weights are the curves'.
    const json& q = out["query"];
    CHECK(q["theta"].get<double>() == 0.0);
    CHECK(q["norm"].get<double>() == 1.0);
    CHECK(q["inRange"] == true);
    CHECK_THAT(q["own"][1][0].get<double>(), Near(kA1, 1e-9));
}

TEST_CASE("lab sweep: the state's scale and a query of norm 2 at 60 degrees", "[lesson][lab]") {
    // scale auto = 1/sqrt(2); q = 2 (cos 60, sin 60).
    json s = qkv_state({{1.0, std::sqrt(3.0)}}, {{1, 0}, {0, 1}}, {{1}, {2}}, "auto");
    const json out = run_lab(s, "sweep", {{"taus", {1.5}}, {"steps", 7}});
    CHECK(out["taus"] == json({1.5}));
    CHECK(out["thetas"].size() == 7);
    CHECK_THAT(out["scale"].get<double>(), Near(1 / std::sqrt(2.0), 1e-7));
    // theta = 0: gap 1/sqrt(2) (the float32 scale), tau 1.5.
    const double scale = out["scale"].get<double>();
    CHECK_THAT(out["table"][0]["weights"][0][0].get<double>(), Near(sigmoid_ref(scale / 1.5), 1e-9));
    const json& q = out["query"];
    CHECK_THAT(q["degrees"].get<double>(), Near(60, 1e-5));
    CHECK_THAT(q["norm"].get<double>(), Near(2, 1e-6));
    // On the unit curve at 60 degrees the gap is scale (cos - sin); the query's own gap is twice that.
    const double g = scale * (0.5 - std::sqrt(3.0) / 2);
    CHECK_THAT(q["weights"][0][0].get<double>(), Near(sigmoid_ref(g / 1.5), 1e-6));
    CHECK_THAT(q["own"][0][0].get<double>(), Near(sigmoid_ref(2 * g / 1.5), 1e-6));
}

TEST_CASE("lab sweep: causal mask, empty row, other modes, d_k = 1 and bad params", "[lesson][lab]") {
    json s = qkv_state({{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}, {{2, 0}, {0, 4}}, 1);
    s["mask"]["causal"] = true;
    json out = run_lab(s, "sweep");  // row 0 sees key 0 only
    CHECK(out["keys"] == json({0}));
    CHECK(out["masked"] == json({1}));
    CHECK(out["table"][1]["weights"][0][0].get<double>() == 1.0);
    s["mask"]["causal"] = false;
    s["mask"]["padding"] = {true, true};
    out = run_lab(s, "sweep");
    CHECK(out["empty"] == true);
    CHECK(out["supported"] == true);
    CHECK(out["curves"].empty());
    CHECK(out["table"].empty());

    json logits = example1();
    logits["mode"] = "logits";
    logits["heads"][0]["logits"] = {{1, 0}};
    out = run_lab(logits, "sweep");
    CHECK(out["supported"] == false);
    CHECK_THAT(out["reason"].get<std::string>(), Catch::Contains("needs Q and K"));

    out = run_lab(qkv_state({{1}}, {{1}, {2}}, {{1}, {2}}, 1), "sweep");
    CHECK(out["supported"] == false);
    CHECK_THAT(out["reason"].get<std::string>(), Catch::Contains("d_k = 1"));

    for (const json& bad : {json{{"taus", {0}}}, json{{"taus", {1, 2, 3, 4, 5}}}, json{{"taus", json::array()}},
                            json{{"taus", 2}}, json{{"steps", 1}}, json{{"steps", 722}}, json{{"steps", 9.5}}}) {
        try {
            run_lab(example1(), "sweep", bad);
            FAIL("accepted " << bad.dump());
        } catch (const attn::Error& e) {
            CHECK(e.code() == attn::ErrorCode::kInvalidValue);
            CHECK_THAT(e.field(), Catch::StartsWith("lab.params."));
        }
    }
}

TEST_CASE("lab sweep: 3-D keys use the first two axes and give no query marker", "[lesson][lab]") {
    const json out = run_lab(qkv_state({{1, 0, 3}}, {{1, 0, 9}, {0, 1, -9}}, {{1}, {2}}, 1), "sweep");
    CHECK(out["dK"] == 3);
    CHECK(out["query"].is_null());
    CHECK_THAT(out["table"][0]["weights"][1][0].get<double>(), Near(kA1, 1e-9));
}

// ------------------------------------------------------------------------------------------
// Sensitivity
// ------------------------------------------------------------------------------------------

TEST_CASE("row_sensitivity: d o/d k_j matches central finite differences, masked keys have none", "[lesson]") {
    const QkvRow r;
    const attn::RowProblem p = r.problem();
    const attn::RowSensitivity s = attn::row_sensitivity(p);
    REQUIRE(s.keys.size() == 3);
    const double h = 1e-6;
    for (const attn::KeySensitivity& ks : s.keys) {
        const int j = ks.key;
        const std::vector<double> jac = attn::output_key_jacobian(p, j);
        double frob = 0;
        for (int c = 0; c < r.d_k; ++c) {
            std::vector<double> kp = r.k, km = r.k;
            kp[j * r.d_k + c] += h;
            km[j * r.d_k + c] -= h;
            const auto op = ref_output(r.scores(kp), r.vis, r.v, r.d_v, r.tau);
            const auto om = ref_output(r.scores(km), r.vis, r.v, r.d_v, r.tau);
            for (int row = 0; row < r.d_v; ++row) {
                const double fd = (op[row] - om[row]) / (2 * h);
                CHECK_THAT(jac[row * r.d_k + c], Near(fd, 1e-8, 1e-6));
                frob += fd * fd;
            }
        }
        CHECK_THAT(ks.key_effect, Near(std::sqrt(frob), 1e-7, 1e-6));
    }
    for (double x : attn::output_key_jacobian(p, 2)) CHECK(x == 0.0);  // masked key
}

TEST_CASE("row_sensitivity: d o/d v_j = a_j I and d o/d s_j by finite differences", "[lesson]") {
    const QkvRow r;
    const attn::RowProblem p = r.problem();
    const attn::RowSensitivity s = attn::row_sensitivity(p);
    const std::vector<double> a = ref_weights(p.scores, r.vis, r.tau);
    const double h = 1e-6;
    for (const attn::KeySensitivity& ks : s.keys) {
        const int j = ks.key;
        CHECK_THAT(ks.weight, Near(a[j], 1e-14));
        // Value: column c of d o / d v_j is a_j e_c.
        for (int c = 0; c < r.d_v; ++c) {
            std::vector<double> vp = r.v, vm = r.v;
            vp[j * r.d_v + c] += h;
            vm[j * r.d_v + c] -= h;
            const auto op = ref_output(p.scores, r.vis, vp, r.d_v, r.tau);
            const auto om = ref_output(p.scores, r.vis, vm, r.d_v, r.tau);
            for (int row = 0; row < r.d_v; ++row)
                CHECK_THAT((op[row] - om[row]) / (2 * h), Near(row == c ? ks.value_effect : 0.0, 1e-8));
        }
        // Score: d o / d s_j is a vector; compare its length.
        std::vector<double> sp = p.scores, sm = p.scores;
        sp[j] += h;
        sm[j] -= h;
        const auto op = ref_output(sp, r.vis, r.v, r.d_v, r.tau);
        const auto om = ref_output(sm, r.vis, r.v, r.d_v, r.tau);
        double n2 = 0;
        for (int row = 0; row < r.d_v; ++row) n2 += std::pow((op[row] - om[row]) / (2 * h), 2);
        CHECK_THAT(ks.score_effect, Near(std::sqrt(n2), 1e-7, 1e-6));
    }
}

TEST_CASE("row_sensitivity: lesson example 1 by hand: weights lead the values, not the deletions", "[lesson]") {
    attn::RowProblem p;
    p.n_k = 2;
    p.d_v = 2;
    p.scores = {1, 0};
    p.values = {2, 0, 0, 4};
    p.query = {1, 0};
    const attn::RowSensitivity s = attn::row_sensitivity(p);
    REQUIRE(s.keys.size() == 2);
    CHECK_THAT(s.output[0], Near(1.462117157, 1e-9));
    CHECK_THAT(s.output[1], Near(1.075765685, 1e-9));
    // Deleting key 0 leaves v_1 = (0, 4); deleting key 1 leaves v_0 = (2, 0).
    CHECK_THAT(s.keys[0].deletion_shift[0], Near(0 - 1.462117157, 1e-9));
    CHECK_THAT(s.keys[0].deletion_shift[1], Near(4 - 1.075765685, 1e-9));
    CHECK_THAT(s.keys[1].deletion_shift[0], Near(2 - 1.462117157, 1e-9));
    CHECK_THAT(s.keys[1].deletion_shift[1], Near(0 - 1.075765685, 1e-9));
    CHECK_THAT(s.keys[0].deletion, Near(std::hypot(1.462117157, 2.924234315), 1e-9));
    CHECK(s.leaders.weight == std::vector<int>{0});
    CHECK(s.leaders.value == std::vector<int>{0});
    // Two keys: a_0 (v_0 - o) = -a_1 (v_1 - o), so the key derivatives tie.
    CHECK(s.leaders.key == std::vector<int>{0, 1});
    // Deleting shifts o by a_j ||v_j - o|| / (1 - a_j): with equal numerators the larger weight wins.
    CHECK(s.leaders.deletion == std::vector<int>{0});
}

TEST_CASE("row_sensitivity: a low weight with a far value leads the score and key derivatives", "[lesson]") {
    attn::RowProblem p;
    p.n_k = 3;
    p.d_v = 1;
    p.scores = {2, 1, 0};
    p.values = {0, 0, 10};
    p.query = {1};
    const attn::RowSensitivity s = attn::row_sensitivity(p);
    const std::vector<double> a = ref_weights(p.scores, {1, 1, 1}, 1.0);  // (0.665, 0.245, 0.090)
    const double o = 10 * a[2];
    CHECK_THAT(s.keys[2].score_effect, Near(a[2] * (10 - o), 1e-12));  // 0.819 > 0.599 (key 0)
    CHECK_THAT(s.keys[0].score_effect, Near(a[0] * o, 1e-12));
    CHECK_THAT(s.keys[2].distance, Near(10 - o, 1e-12));
    CHECK(s.leaders.weight == std::vector<int>{0});
    CHECK(s.leaders.score == std::vector<int>{2});
    CHECK(s.leaders.key == std::vector<int>{2});
    CHECK(s.leaders.deletion == std::vector<int>{0});  // 0.599 / 0.335 = 1.79 > 0.819 / 0.910
}

TEST_CASE("row_sensitivity: seed example 2 row 2 by hand, logits without a query", "[lesson]") {
    attn::RowProblem p;
    p.n_k = 3;
    p.d_v = 1;
    p.scores = {std::log(2.0), 0, 0};
    p.values = {2, 6, 10};
    const attn::RowSensitivity s = attn::row_sensitivity(p);
    CHECK_THAT(s.output[0], Near(5, 1e-12));
    const double want_w[] = {0.5, 0.25, 0.25}, want_del[] = {3, 14.0 / 3 - 5, 10.0 / 3 - 5},
                 want_s[] = {1.5, 0.25, 1.25};
    for (int j = 0; j < 3; ++j) {
        CHECK_THAT(s.keys[j].weight, Near(want_w[j], 1e-12));
        CHECK_THAT(s.keys[j].deletion_shift[0], Near(want_del[j], 1e-12));
        CHECK_THAT(s.keys[j].score_effect, Near(want_s[j], 1e-12));
        CHECK(std::isnan(s.keys[j].key_effect));
    }
    CHECK(s.leaders.key.empty());
    CHECK(s.leaders.deletion == std::vector<int>{0});
    CHECK_THROWS_AS(attn::output_key_jacobian(p, 0), attn::Error);
}

TEST_CASE("row_sensitivity: deletion renormalises exactly, even when the other weights underflow", "[lesson]") {
    attn::RowProblem p;
    p.n_k = 3;
    p.d_v = 1;
    p.tau = 0.05;
    p.scores = {60, 0, 0};  // gap 1200 tau: exp(-1200) = 0 in double, a = (1, 0, 0)
    p.values = {0, 1, 3};
    const attn::RowSensitivity s = attn::row_sensitivity(p);
    CHECK(s.keys[0].weight == 1.0);
    CHECK_THAT(s.keys[0].deletion_shift[0], Near(2.0, 1e-12));  // uniform over keys 1, 2
    CHECK(s.keys[1].deletion == 0.0);
}

TEST_CASE("row_sensitivity: deletions of 40 keys against brute-force renormalisation", "[lesson]") {
    attn::RowProblem p;
    p.n_k = 40;
    p.d_v = 3;
    p.tau = 0.9;
    for (int j = 0; j < 40; ++j) {
        p.scores.push_back(std::sin(1.7 * j) * 3 + (j == 11 ? 6 : 0));  // key 11 dominates (a > 1/2)
        p.visible.push_back(j % 7 == 3 ? 0 : 1);
        for (int c = 0; c < 3; ++c) p.values.push_back(std::cos(0.3 * j + c) * (c + 1));
    }
    const attn::RowSensitivity s = attn::row_sensitivity(p);
    const std::vector<double> o = ref_output(p.scores, p.visible, p.values, 3, p.tau);
    bool saw_dominant = false;
    for (const attn::KeySensitivity& k : s.keys) {
        saw_dominant |= k.weight > 0.5;
        std::vector<std::uint8_t> vis = p.visible;
        vis[k.key] = 0;
        const std::vector<double> o2 = ref_output(p.scores, vis, p.values, 3, p.tau);
        for (int c = 0; c < 3; ++c) CHECK_THAT(k.deletion_shift[c], Near(o2[c] - o[c], 1e-12));
    }
    CHECK(saw_dominant);
    CHECK(s.keys.size() == 34);  // 6 of 40 masked
}

TEST_CASE("row_sensitivity: one visible key and an empty row", "[lesson]") {
    attn::RowProblem p;
    p.n_k = 2;
    p.d_v = 1;
    p.scores = {0.3, 0.1};
    p.values = {5, 7};
    p.visible = {0, 1};
    attn::RowSensitivity s = attn::row_sensitivity(p);
    REQUIRE(s.keys.size() == 1);
    CHECK(s.keys[0].weight == 1.0);
    CHECK(s.keys[0].score_effect == 0.0);  // v_1 = o
    CHECK(std::isnan(s.keys[0].deletion));
    CHECK(s.keys[0].deletion_shift.empty());
    CHECK(s.leaders.deletion.empty());
    p.visible = {0, 0};
    s = attn::row_sensitivity(p);
    CHECK(s.empty);
    CHECK(s.keys.empty());
    p.d_v = 0;
    p.values.clear();
    CHECK_THROWS_AS(attn::row_sensitivity(p), attn::Error);
}

TEST_CASE("lab sensitivity: example 1 through the state, and heads without values", "[lesson][lab]") {
    const json out = run_lab(example1(), "sensitivity");
    REQUIRE(out["supported"] == true);
    CHECK(out["view"] == "sensitivity");
    REQUIRE(out["keys"].size() == 2);
    CHECK_THAT(out["keys"][0]["weight"].get<double>(), Near(kA1, 1e-9));
    CHECK_THAT(out["keys"][0]["valueEffect"].get<double>(), Near(kA1, 1e-9));
    // ||v_0 - o|| = a_1 ||v_0 - v_1||, so a_0 ||v_0 - o|| = a_0 a_1 sqrt(20); q = (1, 0), scale 1.
    CHECK_THAT(out["keys"][0]["keyEffect"].get<double>(), Near(kA1 * kA2 * std::sqrt(20.0), 1e-9));
    CHECK_THAT(out["keys"][1]["deletion"].get<double>(), Near(std::hypot(2 - 1.462117157, 1.075765685), 1e-9));
    CHECK(out["leaders"]["deletion"] == json({0}));
    CHECK(out["leaders"]["key"] == json({0, 1}));
    CHECK(out["agrees"]["value"] == true);
    CHECK(out["agrees"]["key"] == true);
    CHECK(out["agrees"]["deletion"] == true);
    CHECK_THAT(out["output"][0].get<double>(), Near(1.462117157, 1e-7));

    json nov = example1();
    nov["heads"][0]["V"] = nullptr;
    const json o2 = run_lab(nov, "sensitivity");
    CHECK(o2["supported"] == false);
    CHECK_THAT(o2["reason"].get<std::string>(), Catch::Contains("needs values"));

    json empty = example1();
    empty["mask"]["padding"] = {true, true};
    const json o3 = run_lab(empty, "sensitivity");
    CHECK(o3["empty"] == true);
    CHECK(o3["keys"].empty());
    CHECK(o3["agrees"]["value"].is_null());
}

// ---------------------------------------------------------------------------------------------
// The guided lesson's answers (weight_sum, renormalisation, value_edit). Golden values by hand:
//  * renormalisation of (0.1, 0.2, 0.3, 0.4) over the first two keys: kept = 0.3, expected
//    (0.1/0.3, 0.2/0.3, 0, 0) = (1/3, 2/3, 0, 0); against (0.3, 0.7, 0, 0) the largest difference
//    is |0.7 - 2/3| = |0.3 - 1/3| = 1/30;
//  * value_edit on seed example 2, row 2: weights (1/2, 1/4, 1/4), V = (2, 6, 10) in the first
//    axis, so o = (5, 0); adding (1, 1) to v_2 gives o' = o + (1/4)(1, 1) = (5.25, 0.25): shift
//    (0.25, 0.25), |shift| = 0.25 sqrt 2 = 0.3535533906, |dv| = sqrt 2, ratio 0.25 = a_2;
//  * a second problem: shift (0.5, 1) of size sqrt(1.25) = 1.1180339887, dv = (1, 2) of size
//    sqrt 5 = 2.2360679775, ratio sqrt(1.25 / 5) = 0.5; score change |2 - 2.5| = 0.5.

TEST_CASE("weight_sum: the sum in order, 0 for no weights", "[lesson]") {
    CHECK(attn::weight_sum({0.25, 0.5, 0.125}) == 0.875);
    CHECK(attn::weight_sum({}) == 0.0);
}

TEST_CASE("renormalisation: kept mass, renormalised row, largest difference", "[lesson]") {
    const attn::Renormalisation r = attn::renormalisation({0.1, 0.2, 0.3, 0.4}, {1, 1, 0, 0}, {0.3, 0.7, 0, 0});
    CHECK_THAT(r.kept, Near(0.3, 1e-15));
    REQUIRE(r.expected.size() == 4);
    CHECK_THAT(r.expected[0], Near(1.0 / 3, 1e-15));
    CHECK_THAT(r.expected[1], Near(2.0 / 3, 1e-15));
    CHECK(r.expected[2] == 0.0);
    CHECK(r.expected[3] == 0.0);
    CHECK_THAT(r.max_diff, Near(1.0 / 30, 1e-15));
    CHECK_THAT(r.after_sum, Near(1.0, 1e-15));

    const attn::Renormalisation exact =
        attn::renormalisation({0.1, 0.2, 0.3, 0.4}, {1, 1, 0, 0}, {1.0 / 3, 2.0 / 3, 0, 0});
    CHECK_THAT(exact.max_diff, Near(0.0, 1e-15));

    // Nothing visible had weight: 0 / 0 at the visible keys.
    const attn::Renormalisation none = attn::renormalisation({0, 0, 1}, {1, 1, 0}, {0.5, 0.5, 0});
    CHECK(none.kept == 0.0);
    CHECK(std::isnan(none.expected[0]));
    CHECK(none.expected[2] == 0.0);
    CHECK(std::isnan(none.max_diff));

    CHECK_THROWS_AS(attn::renormalisation({0.5, 0.5}, {1}, {0.5, 0.5}), attn::Error);
    CHECK_THROWS_AS(attn::renormalisation({0.5, 0.5}, {1, 1}, {1}), attn::Error);
}

TEST_CASE("value_edit: seed example 2, one value moved: |shift| / |dv| = a_tj", "[lesson]") {
    attn::ValueEditProblem p;
    p.n_q = 1;
    p.n_k = 3;
    p.d_v = 2;
    const double ln2 = std::log(2.0);
    p.scores = {ln2, 0, 0};
    p.ref_scores = {ln2, 0, 0};
    p.ref_values = {2, 0, 6, 0, 10, 0};
    p.values = {2, 0, 7, 1, 10, 0};
    p.ref_output = {5, 0};
    p.output = {5.25, 0.25};
    p.changed = {1};
    const attn::ValueEdit e = attn::value_edit(p);
    CHECK(e.scores_diff == 0.0);
    REQUIRE(e.shift.size() == 2);
    CHECK_THAT(e.shift[0], Near(0.25, 1e-15));
    CHECK_THAT(e.shift[1], Near(0.25, 1e-15));
    CHECK_THAT(e.shift_size, Near(0.3535533906, 1e-10));
    REQUIRE(e.value_shifts.size() == 1);
    CHECK_THAT(e.value_shifts[0], Near(1.4142135624, 1e-10));
    CHECK_THAT(e.ratio, Near(0.25, 1e-15));
}

TEST_CASE("value_edit: score differences, visibility changes, no ratio without one changed value", "[lesson]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    attn::ValueEditProblem p;
    p.n_q = 2;
    p.n_k = 2;
    p.d_v = 2;
    p.scores = {1, 2, 3, nan};
    p.ref_scores = {1, 2.5, 3, nan};
    p.ref_values = {1, 0, 0, 0};
    p.values = {1, 0, 1, 2};
    p.ref_output = {1, 1};
    p.output = {1.5, 2};
    p.changed = {1};
    const attn::ValueEdit e = attn::value_edit(p);
    CHECK_THAT(e.scores_diff, Near(0.5, 1e-15));
    CHECK_THAT(e.shift_size, Near(1.1180339887, 1e-10));
    CHECK_THAT(e.value_shifts[0], Near(2.2360679775, 1e-10));
    CHECK_THAT(e.ratio, Near(0.5, 1e-15));

    p.ref_scores = {1, 2, 3, 4};  // a cell visible in one matrix only
    CHECK(attn::value_edit(p).scores_diff == std::numeric_limits<double>::infinity());

    p.changed = {};
    const attn::ValueEdit none = attn::value_edit(p);
    CHECK(none.value_shifts.empty());
    CHECK(std::isnan(none.ratio));
    p.changed = {0, 1};
    CHECK(std::isnan(attn::value_edit(p).ratio));
    p.values = p.ref_values;  // "changed" by nothing: no ratio
    p.changed = {1};
    CHECK(std::isnan(attn::value_edit(p).ratio));

    p.changed = {2};
    CHECK_THROWS_AS(attn::value_edit(p), attn::Error);
    p.changed = {1};
    p.output = {1};
    CHECK_THROWS_AS(attn::value_edit(p), attn::Error);
}
