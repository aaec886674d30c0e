// Routing width (routing.hpp): support sets, the bound on the ignored output, the dynamic graph,
// tunnel vision and the regulariser values. Golden values: MATH.md seed example 2 (A =
// [[1,0,0],[1/4,3/4,0],[1/2,1/4,1/4]], V = (2,6,10), row entropies 0, 0.5623351446,
// 1.039720771, H_norm 0.8112781245 for row 1) and hand computations written next to each check.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "approx.hpp"
#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/routing.hpp"
#include "fixtures.hpp"

using attn_test::kInf;
using attn_test::mat;
using attn_test::Near;

namespace {

/// Seed example 2: causal logits (0,-inf,-inf), (0, ln 3, -inf), (ln 2, 0, 0), V = (2, 6, 10).
attn::Result example2() {
    attn::Problem p = attn_test::logits_problem(mat(
        {{0, -kInf, -kInf}, {0, static_cast<float>(std::log(3.0)), -kInf}, {static_cast<float>(std::log(2.0)), 0, 0}}));
    p.v = mat({{2}, {6}, {10}});
    return attn::compute(p);
}

}  // namespace

TEST_CASE("routing: S_t of example 2's row 2 (1/2, 1/4, 1/4) for several delta", "[routing]") {
    const attn::Result r = example2();
    const float* w = r.weights.row(2);
    // delta 0.1: need 0.9; {0} has 0.5, {0,1} 0.75 < 0.9, all three 1.0 -> 3 keys.
    auto s = attn::routing::support_set(w, 3, 0.1);
    CHECK(s.keys == std::vector<int>{0, 1, 2});
    CHECK(static_cast<int>(s.keys.size()) == r.rows[2].support);  // the row metric's count (delta 0.1)
    CHECK_THAT(s.ignored_mass, Near(0.0, 1e-7));
    // delta 0.5: need 0.5 -> key 0 alone (weight 1/2).
    s = attn::routing::support_set(w, 3, 0.5);
    CHECK(s.keys == std::vector<int>{0});
    CHECK_THAT(s.mass, Near(0.5, 1e-7));
    CHECK_THAT(s.ignored_mass, Near(0.5, 1e-7));
    // delta 0.3: need 0.7 -> key 0 and one of the tied 1/4 keys: the lower index, key 1.
    s = attn::routing::support_set(w, 3, 0.3);
    CHECK(s.keys == std::vector<int>{0, 1});
    // Row 1 (1/4, 3/4): delta 0.3 needs 0.7 -> key 1 alone; delta 0.2 needs 0.8 -> both.
    CHECK(attn::routing::support_set(r.weights.row(1), 3, 0.3).keys == std::vector<int>{1});
    CHECK(attn::routing::support_set(r.weights.row(1), 3, 0.2).keys == std::vector<int>{1, 0});
    // Row 0 (1, 0, 0): one key for any delta; the masked zeros never count.
    CHECK(attn::routing::support_set(r.weights.row(0), 3, 0.0).keys == std::vector<int>{0});
    CHECK_THROWS_AS(attn::routing::support_set(w, 3, 1.0), attn::Error);
    CHECK_THROWS_AS(attn::routing::support_set(w, 3, -0.1), attn::Error);
    const float zeros[3] = {0, 0, 0};
    CHECK(attn::routing::support_set(zeros, 3, 0.1).keys.empty());
}

TEST_CASE("routing: the ignored output of example 2, row 2, delta 0.5", "[routing]") {
    const attn::Result r = example2();
    attn::Matrix v = mat({{2}, {6}, {10}});
    // B = max |v_i| = 10. S = {0}: ignored = 1/4 * 6 + 1/4 * 10 = 4 <= 0.5 * 10 = 5 = delta B.
    CHECK(attn::routing::max_value_norm(v) == 10.0);
    const auto s = attn::routing::support_set(r.weights.row(2), 3, 0.5);
    CHECK_THAT(attn::routing::ignored_contribution(r.weights.row(2), v, s.keys), Near(4.0, 1e-6));
    CHECK_THAT(attn::routing::ignored_contribution(r.weights.row(2), v, {0, 1, 2}), Near(0.0, 1e-15));
    CHECK_THROWS_AS(attn::routing::ignored_contribution(r.weights.row(2), v, {3}), attn::Error);
    // ||v|| over several columns: (3, 4) has norm 5.
    CHECK(attn::routing::max_value_norm(mat({{3, 4}, {1, 0}})) == 5.0);
    CHECK(attn::routing::max_value_norm(attn::Matrix()) == 0.0);
}

TEST_CASE("routing: ||sum_{i not in S} a_i v_i|| <= (1 - mass(S)) B <= delta B on random heads", "[routing]") {
    std::mt19937 rng(42);
    std::normal_distribution<float> g(0.0f, 2.0f);
    std::uniform_real_distribution<double> u(0.0, 0.95);
    for (int trial = 0; trial < 200; ++trial) {
        const int n = 1 + trial % 40, dv = 1 + trial % 7;
        attn::Problem p;
        p.mode = attn::Mode::logits;
        p.logits = attn::Matrix(n, n);
        p.v = attn::Matrix(n, dv);
        for (auto& x : p.logits.data) x = g(rng);
        for (auto& x : p.v.data) x = g(rng);
        p.mask.causal = trial % 2 == 0;
        p.tau = 0.25 + trial % 4;
        const double delta = u(rng);
        p.delta = delta;
        const attn::Result r = attn::compute(p);
        const double B = attn::routing::max_value_norm(p.v);
        for (int t = 0; t < n; ++t) {
            const auto s = attn::routing::support_set(r.weights.row(t), n, delta);
            CHECK(static_cast<int>(s.keys.size()) == r.rows[t].support);  // reuses the row metric's count
            // Ignored mass computed here: 1 minus the chosen keys' weights, in double.
            double kept = 0;
            for (int k : s.keys) kept += r.weights(t, k);
            double row = 0;
            for (int j = 0; j < n; ++j) row += r.weights(t, j);
            CHECK_THAT(s.ignored_mass, Near(row - kept, 1e-12));
            CHECK(s.ignored_mass <= delta + 1e-6);  // float32 weights: the row sums to 1 within ~1e-7
            const double ignored = attn::routing::ignored_contribution(r.weights.row(t), p.v, s.keys);
            CHECK(ignored <= s.ignored_mass * B * (1 + 1e-12) + 1e-15);
            CHECK(ignored <= delta * B + 1e-5 * B);
            // Minimality: dropping the smallest chosen key falls below 1 - delta.
            if (s.keys.size() > 1) {
                double mass_less = kept - r.weights(t, s.keys.back());
                CHECK(mass_less < (1 - delta) * row);
            }
        }
    }
}

TEST_CASE("routing: graph edges of example 2 at two thresholds", "[routing]") {
    const attn::Result r = example2();
    // Weights: row 0 (1), row 1 (1/4, 3/4), row 2 (1/2, 1/4, 1/4).
    // threshold 0.3: (0,0) 1, (1,1) 0.75, (2,0) 0.5 -> 3 edges.
    auto e = attn::routing::graph_edges(r, 0.3);
    REQUIRE(e.size() == 3);
    CHECK((e[0].query == 0 && e[0].key == 0));
    CHECK((e[1].query == 1 && e[1].key == 1));
    CHECK_THAT(e[1].weight, Near(0.75, 1e-7));
    CHECK((e[2].query == 2 && e[2].key == 0));
    // threshold 0.2 adds (1,0), (2,1), (2,2): 6 (strictly above, 1/4 > 0.2).
    CHECK(attn::routing::graph_edges(r, 0.2).size() == 6);
    // threshold 0.25: strictly above, so the 1/4 edges drop (float 0.25 may round either way:
    // this checks only that the 3 large edges stay).
    CHECK(attn::routing::graph_edges(r, 0.25).size() >= 3);
    CHECK(attn::routing::graph_edges(r, 1.0).empty());
    // threshold 0: every visible positive weight, 6 (the masked keys never appear).
    CHECK(attn::routing::graph_edges(r, 0.0).size() == 6);
}

TEST_CASE("routing: tunnel vision and evidence entropy on example 2", "[routing]") {
    const attn::Result r = example2();
    const std::vector<double> uniform(3, 1.0);
    // Row 0: one visible key: H_norm(beta) = 0 by convention (not broad).
    CHECK(attn::routing::evidence_normalized_entropy(uniform, r.visible.data(), 3) == 0.0);
    // Row 1: two visible keys, uniform beta -> H_norm = 1.
    CHECK_THAT(attn::routing::evidence_normalized_entropy(uniform, r.visible.data() + 3, 3), Near(1.0, 1e-15));
    // Row 2 with beta = (1, 1, 2): p = (1/4, 1/4, 1/2), H = 1.5 ln 2, / ln 3 = 0.9463946304.
    CHECK_THAT(attn::routing::evidence_normalized_entropy({1, 1, 2}, r.visible.data() + 6, 3),
               Near(0.9463946304, 1e-10));
    // beta with no mass on row 1's keys {0, 1}: undefined.
    CHECK(std::isnan(attn::routing::evidence_normalized_entropy({0, 0, 5}, r.visible.data() + 3, 3)));
    // Row 1: H_norm(a) = 0.8112781245. alpha 0.9 -> narrow; gamma 0.8 and H_norm(beta) = 1 -> broad.
    auto tv = attn::routing::tunnel_vision(r.rows[1].normalized_entropy, 1.0, 0.9, 0.8);
    CHECK((tv.defined && tv.narrow && tv.broad && tv.tunnel));
    tv = attn::routing::tunnel_vision(r.rows[1].normalized_entropy, 1.0, 0.3, 0.8);  // default alpha
    CHECK((tv.defined && !tv.narrow && tv.broad && !tv.tunnel));
    tv = attn::routing::tunnel_vision(0.0, 0.0, 0.3, 0.8);  // row 0: narrow but evidence not broad
    CHECK((tv.narrow && !tv.broad && !tv.tunnel));
    CHECK_FALSE(attn::routing::tunnel_vision(std::nan(""), 1.0, 0.3, 0.8).defined);
}

TEST_CASE("routing: regulariser values of example 2", "[routing]") {
    const std::vector<double> h = {0, 0.5623351446, 1.039720771, std::nan("")};  // last: an empty row
    // mean H = 1.6020559156 / 3 = 0.5340186385; target ln 2: mean (H - ln 2)^2 = 0.2058926854
    // (Python: sum((x - log(2))**2 for x in h) / 3).
    const auto reg = attn::routing::regularisers(h, std::log(2.0));
    CHECK(reg.rows == 3);
    CHECK_THAT(reg.minimise, Near(0.5340186385, 1e-9));
    CHECK_THAT(reg.maximise, Near(-0.5340186385, 1e-9));
    CHECK_THAT(reg.target, Near(0.2058926854, 1e-9));
    const auto none = attn::routing::regularisers({std::nan("")}, 1.0);
    CHECK(none.rows == 0);
    CHECK(std::isnan(none.minimise));
}
