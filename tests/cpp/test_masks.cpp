// Masks as selections (MATH.md, Conventions): causal, key padding, window, allow-matrix and their
// intersection; masked entries are exact zeros; a NaN or Inf in a masked-out score never leaks;
// empty rows are flagged, never turned into a fake uniform row.
//
// Expected visible sets are written out by hand from the definitions in mask.hpp / docs/state.md
// (not computed with MaskSpec::visible, which is part of the code under test).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "approx.hpp"
#include "attn/attention.hpp"
#include "fixtures.hpp"

using attn_test::flags;
using attn_test::kInf;
using attn_test::kNaN;
using attn_test::mat;
using attn_test::Near;

namespace {

using Table = std::vector<std::vector<int>>;

/// n_q x n_k logits with S(t, j) = ln(j + 1): over a visible set Omega_t the softmax is
/// a_j = (j + 1) / sum_{i in Omega_t} (i + 1), a fraction that is easy to check by hand and
/// differs from key to key (so a wrong visible set gives wrong numbers, not just wrong zeros).
attn::Matrix ramp(int n_q, int n_k) {
    attn::Matrix m(n_q, n_k);
    for (int t = 0; t < n_q; ++t)
        for (int j = 0; j < n_k; ++j) m(t, j) = static_cast<float>(std::log(j + 1.0));
    return m;
}

/// Checks a result computed from ramp() logits against a hand-written visibility table.
void check_ramp(const attn::Result& r, const Table& vis) {
    const int n_q = static_cast<int>(vis.size());
    const int n_k = static_cast<int>(vis[0].size());
    REQUIRE(r.n_q == n_q);
    REQUIRE(r.n_k == n_k);
    REQUIRE(r.visible.size() == static_cast<std::size_t>(n_q * n_k));
    for (int t = 0; t < n_q; ++t) {
        INFO("row " << t);
        double denom = 0;
        int count = 0;
        for (int j = 0; j < n_k; ++j)
            if (vis[t][j]) {
                denom += j + 1;
                ++count;
            }
        REQUIRE(count > 0);  // the tables below have no empty row
        for (int j = 0; j < n_k; ++j) {
            INFO("key " << j);
            CHECK(r.visible[static_cast<std::size_t>(t * n_k + j)] == vis[t][j]);
            if (vis[t][j]) {
                CHECK_THAT(r.weights(t, j), Near((j + 1) / denom));
                CHECK_THAT(r.scores(t, j), Near(std::log(j + 1.0)));
            } else {
                CHECK(r.weights(t, j) == 0.0f);  // structural zero, exactly
                CHECK(std::isnan(r.scores(t, j)));
            }
        }
        CHECK(r.rows[static_cast<std::size_t>(t)].visible == count);
        CHECK_FALSE(r.rows[static_cast<std::size_t>(t)].empty);
        CHECK_THAT(r.rows[static_cast<std::size_t>(t)].row_sum, Near(1.0));
    }
}

/// An empty row: flagged, weights and output 0, every metric NaN.
void check_empty_row(const attn::Result& r, int t) {
    INFO("empty row " << t);
    const attn::RowMetrics& m = r.rows[static_cast<std::size_t>(t)];
    CHECK(m.empty);
    CHECK(m.visible == 0);
    for (int j = 0; j < r.weights.cols; ++j) {
        CHECK(r.weights(t, j) == 0.0f);
        CHECK(r.visible[static_cast<std::size_t>(t * r.n_k + j)] == 0);
    }
    for (int c = 0; c < r.output.cols; ++c) CHECK(r.output(t, c) == 0.0f);
    CHECK(std::isnan(m.entropy));
    CHECK(std::isnan(m.normalized_entropy));
    CHECK(std::isnan(m.n_eff));
    CHECK(std::isnan(m.top_k_mass));
    CHECK(std::isnan(m.sink_mass));
}

}  // namespace

TEST_CASE("causal mask", "[mask]") {
    attn::Problem p = attn_test::logits_problem(ramp(4, 4));
    p.mask.causal = true;
    check_ramp(attn::compute(p), {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 1, 0}, {1, 1, 1, 1}});
}

TEST_CASE("key padding mask", "[mask]") {
    attn::Problem p = attn_test::logits_problem(ramp(3, 4));
    p.mask.key_padding = {0, 1, 0, 0};
    check_ramp(attn::compute(p), {{1, 0, 1, 1}, {1, 0, 1, 1}, {1, 0, 1, 1}});
}

TEST_CASE("sliding window mask", "[mask]") {
    // t - w < j <= t: the last w positions up to and including t.
    attn::Problem p = attn_test::logits_problem(ramp(4, 4));
    SECTION("window 2") {
        p.mask.window = 2;
        check_ramp(attn::compute(p), {{1, 0, 0, 0}, {1, 1, 0, 0}, {0, 1, 1, 0}, {0, 0, 1, 1}});
    }
    SECTION("window 1 is the diagonal") {
        p.mask.window = 1;
        check_ramp(attn::compute(p), {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}});
    }
    SECTION("window at least n equals causal") {
        p.mask.window = 4;
        check_ramp(attn::compute(p), {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 1, 0}, {1, 1, 1, 1}});
    }
}

TEST_CASE("allow-matrix mask", "[mask]") {
    const Table allow = {{1, 0, 1, 0}, {0, 1, 1, 1}, {1, 1, 0, 0}, {0, 0, 0, 1}};
    attn::Problem p = attn_test::logits_problem(ramp(4, 4));
    p.mask.allow = flags({{1, 0, 1, 0}, {0, 1, 1, 1}, {1, 1, 0, 0}, {0, 0, 0, 1}});
    check_ramp(attn::compute(p), allow);
}

TEST_CASE("allow-matrix on cross-attention (2 queries, 3 keys)", "[mask][cross]") {
    attn::Problem p = attn_test::logits_problem(ramp(2, 3));
    p.mask.allow = flags({{0, 1, 1}, {1, 0, 0}});
    check_ramp(attn::compute(p), {{0, 1, 1}, {1, 0, 0}});
}

TEST_CASE("causal + window + padding + allow combine by intersection", "[mask]") {
    // 5 positions, causal, window 3, key 2 padded, allow everything but (4, 3):
    //   row 0: {0}; row 1: {0,1}; row 2: {0,1} (2 padded); row 3: {1,3} (window 1..3, 2 padded);
    //   row 4: window 2..4, minus padded 2, minus disallowed 3 -> {4}.
    attn::Problem p = attn_test::logits_problem(ramp(5, 5));
    p.mask.causal = true;
    p.mask.window = 3;
    p.mask.key_padding = {0, 0, 1, 0, 0};
    p.mask.allow = flags({{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 0, 1}});
    check_ramp(attn::compute(p), {{1, 0, 0, 0, 0}, {1, 1, 0, 0, 0}, {1, 1, 0, 0, 0}, {0, 1, 0, 1, 0}, {0, 0, 0, 0, 1}});
}

TEST_CASE("qkv mode honours the mask", "[mask][qkv]") {
    // All-zero Q: every score is 0, so each row is uniform over its visible keys.
    attn::Problem p;
    p.q = attn::Matrix(3, 2);
    p.k = attn::Matrix(3, 2);
    p.v = mat({{3}, {6}, {9}});
    p.mask.causal = true;
    p.mask.key_padding = {0, 1, 0};
    const attn::Result r = attn::compute(p);
    // row 0 {0}; row 1 {0}; row 2 {0,2}
    CHECK_THAT(r.weights(1, 0), Near(1.0));
    CHECK(r.weights(1, 1) == 0.0f);
    CHECK_THAT(r.weights(2, 0), Near(0.5));
    CHECK(r.weights(2, 1) == 0.0f);
    CHECK_THAT(r.weights(2, 2), Near(0.5));
    CHECK_THAT(r.output(0, 0), Near(3.0));
    CHECK_THAT(r.output(1, 0), Near(3.0));
    CHECK_THAT(r.output(2, 0), Near(6.0));
}

TEST_CASE("NaN or Inf in a masked-out logit does not leak", "[mask][nonfinite]") {
    // Seed example 2 (MATH.md): A = [[1,0,0],[1/4,3/4,0],[1/2,1/4,1/4]], output (2,5,5), with
    // garbage above the diagonal that the causal mask removes.
    const float garbage = GENERATE(kNaN, kInf, -kInf, 1e30f);
    INFO("masked cell value " << garbage);
    const float ln2 = static_cast<float>(std::log(2.0)), ln3 = static_cast<float>(std::log(3.0));
    attn::Problem p = attn_test::logits_problem(mat({{0, garbage, garbage}, {0, ln3, garbage}, {ln2, 0, 0}}));
    p.v = mat({{2}, {6}, {10}});
    p.mask.causal = true;
    const attn::Result r = attn::compute(p);
    const double want[3][3] = {{1, 0, 0}, {0.25, 0.75, 0}, {0.5, 0.25, 0.25}};
    for (int t = 0; t < 3; ++t) {
        for (int j = 0; j < 3; ++j) CHECK_THAT(r.weights(t, j), Near(want[t][j]));
        CHECK_FALSE(std::isnan(r.rows[static_cast<std::size_t>(t)].entropy));
    }
    CHECK_THAT(r.output(0, 0), Near(2.0));
    CHECK_THAT(r.output(1, 0), Near(5.0));
    CHECK_THAT(r.output(2, 0), Near(5.0));
    CHECK_THAT(r.rows[2].entropy, Near(1.039720771));  // MATH.md
}

TEST_CASE("NaN or +Inf under padding, window or allow does not leak", "[mask][nonfinite]") {
    const float garbage = GENERATE(kNaN, kInf);
    INFO("masked cell value " << garbage);
    attn::Matrix s = ramp(4, 4);

    SECTION("padded column") {
        for (int t = 0; t < 4; ++t) s(t, 1) = garbage;
        attn::Problem p = attn_test::logits_problem(s);
        p.mask.key_padding = {0, 1, 0, 0};
        const attn::Result r = attn::compute(p);
        for (int t = 0; t < 4; ++t) {
            CHECK_THAT(r.weights(t, 0), Near(1.0 / 8));
            CHECK(r.weights(t, 1) == 0.0f);
            CHECK_THAT(r.weights(t, 3), Near(4.0 / 8));
        }
    }
    SECTION("outside the window") {
        s(3, 0) = garbage;
        s(3, 1) = garbage;
        s(0, 3) = garbage;
        attn::Problem p = attn_test::logits_problem(s);
        p.mask.window = 2;
        const attn::Result r = attn::compute(p);
        CHECK_THAT(r.weights(0, 0), Near(1.0));
        CHECK_THAT(r.weights(3, 2), Near(3.0 / 7));
        CHECK_THAT(r.weights(3, 3), Near(4.0 / 7));
        CHECK(r.weights(3, 0) == 0.0f);
    }
    SECTION("disallowed cells") {
        s(1, 0) = garbage;
        s(1, 2) = garbage;
        attn::Problem p = attn_test::logits_problem(s);
        p.mask.allow = flags({{1, 1, 1, 1}, {0, 1, 0, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}});
        const attn::Result r = attn::compute(p);
        CHECK(r.weights(1, 0) == 0.0f);
        CHECK_THAT(r.weights(1, 1), Near(2.0 / 6));
        CHECK(r.weights(1, 2) == 0.0f);
        CHECK_THAT(r.weights(1, 3), Near(4.0 / 6));
    }
}

TEST_CASE("NaN in a masked-out weight does not leak (weights mode)", "[mask][nonfinite][weights]") {
    attn::Problem p = attn_test::weights_problem(mat({{1, kNaN, kNaN}, {0.25f, 0.75f, kNaN}, {0.5f, 0.25f, 0.25f}}));
    p.mask.causal = true;
    const attn::Result r = attn::compute(p);
    CHECK_THAT(r.weights(1, 1), Near(0.75));
    CHECK(r.weights(1, 2) == 0.0f);
    CHECK_THAT(r.rows[2].entropy, Near(1.039720771));  // MATH.md, example 2 row 2
}

TEST_CASE("NaN or +Inf in a visible logit or weight is rejected", "[mask][nonfinite][errors]") {
    const float bad = GENERATE(kNaN, kInf);
    INFO("visible cell value " << bad);
    SECTION("logits, no mask") {
        attn::Problem p = attn_test::logits_problem(mat({{0, bad, 1}}));
        try {
            (void)attn::compute(p);
            FAIL("expected attn::Error");
        } catch (const attn::Error& e) {
            CHECK(e.code() == attn::ErrorCode::kNonFinite);
        }
    }
    SECTION("logits, causal, below the diagonal") {
        attn::Problem p = attn_test::logits_problem(mat({{0, 0}, {bad, 0}}));
        p.mask.causal = true;
        try {
            (void)attn::compute(p);
            FAIL("expected attn::Error");
        } catch (const attn::Error& e) {
            CHECK(e.code() == attn::ErrorCode::kNonFinite);
        }
    }
    SECTION("weights") {
        attn::Problem p = attn_test::weights_problem(mat({{0.5f, bad}}));
        try {
            (void)attn::compute(p);
            FAIL("expected attn::Error");
        } catch (const attn::Error& e) {
            CHECK(e.code() == attn::ErrorCode::kNonFinite);
        }
    }
}

TEST_CASE("masked NaN and +Inf do not leak across vector-width lengths", "[mask][nonfinite][sweep]") {
    // Highway-style length sweep: a SIMD kernel's tail handling or a max taken over all lanes
    // would let the masked garbage in. Visible key j has score sin(j) (varied, finite); every
    // third key and the last key are padded and hold NaN or +Inf. Expected weights from a double
    // softmax over the visible keys, computed here.
    for (int n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 130}) {
        for (float garbage : {kNaN, kInf}) {
            INFO("n = " << n << ", garbage = " << garbage);
            attn::Matrix s(2, n + 1);
            std::vector<std::uint8_t> pad(static_cast<std::size_t>(n + 1), 0);
            for (int j = 0; j <= n; ++j) {
                const bool masked = (j % 3 == 2) || j == n;
                pad[static_cast<std::size_t>(j)] = masked;
                for (int t = 0; t < 2; ++t) s(t, j) = masked ? garbage : static_cast<float>(std::sin(j + t));
            }
            attn::Problem p = attn_test::logits_problem(s);
            p.mask.key_padding = pad;
            const attn::Result r = attn::compute(p);
            for (int t = 0; t < 2; ++t) {
                double mx = -1e300, z = 0;
                for (int j = 0; j <= n; ++j)
                    if (!pad[static_cast<std::size_t>(j)]) mx = std::max(mx, double(s(t, j)));
                for (int j = 0; j <= n; ++j)
                    if (!pad[static_cast<std::size_t>(j)]) z += std::exp(double(s(t, j)) - mx);
                for (int j = 0; j <= n; ++j) {
                    const double want = pad[static_cast<std::size_t>(j)] ? 0.0 : std::exp(double(s(t, j)) - mx) / z;
                    CHECK_THAT(r.weights(t, j), Near(want));
                }
                CHECK_THAT(r.rows[static_cast<std::size_t>(t)].row_sum, Near(1.0));
            }
        }
    }
}

TEST_CASE("window 2 + key padding leaves row 3 empty", "[empty][mask]") {
    // 4 positions, all-zero scores, window 2, keys 2 and 3 padded:
    //   row 0 {0} -> [1,0,0,0]; row 1 {0,1} -> [.5,.5,0,0]; row 2 {1} -> [0,1,0,0]; row 3 {} empty.
    attn::Problem p = attn_test::logits_problem(attn::Matrix(4, 4, 0.0f));
    p.v = mat({{1}, {2}, {3}, {4}});
    p.mask.window = 2;
    p.mask.key_padding = {0, 0, 1, 1};
    const attn::Result r = attn::compute(p);

    const double want[3][4] = {{1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {0, 1, 0, 0}};
    for (int t = 0; t < 3; ++t) {
        INFO("row " << t);
        CHECK_FALSE(r.rows[static_cast<std::size_t>(t)].empty);
        for (int j = 0; j < 4; ++j) CHECK_THAT(r.weights(t, j), Near(want[t][j]));
    }
    CHECK_THAT(r.output(0, 0), Near(1.0));
    CHECK_THAT(r.output(1, 0), Near(1.5));
    CHECK_THAT(r.output(2, 0), Near(2.0));
    check_empty_row(r, 3);

    // Row metrics by hand: H = (0, ln 2, 0), H_norm = (0, 1, 0), N_eff = (1, 2, 1),
    // top-2 = (1, 1, 1), sink = (1, .5, 0). Means skip the empty row (divide by 3, not 4).
    CHECK_THAT(r.rows[1].entropy, Near(std::log(2.0)));
    CHECK(r.summary.rows == 4);
    CHECK(r.summary.empty_rows == 1);
    CHECK_THAT(r.summary.mean_entropy, Near(std::log(2.0) / 3));  // 0.2310490602
    CHECK_THAT(r.summary.mean_normalized_entropy, Near(1.0 / 3));
    CHECK_THAT(r.summary.mean_n_eff, Near(4.0 / 3));
    CHECK_THAT(r.summary.mean_top_k_mass, Near(1.0));
    CHECK_THAT(r.summary.mean_sink_mass, Near(0.5));
}

TEST_CASE("a row with every key masked is empty, not uniform and not NaN", "[empty]") {
    attn::Problem p = attn_test::logits_problem(mat({{0.5f, -0.2f, 1.0f}}));
    p.v = mat({{1, 2}, {3, 4}, {5, 6}});

    SECTION("every key padded") {
        p.mask.key_padding = {1, 1, 1};
    }
    SECTION("allow all false") {
        p.mask.allow = flags({{0, 0, 0}});
    }
    SECTION("every logit -inf") {
        p.logits = mat({{-kInf, -kInf, -kInf}});
    }
    SECTION("qkv with every key padded") {
        p = attn::Problem();
        p.q = mat({{1, 2}});
        p.k = mat({{1, 0}, {0, 1}, {1, 1}});
        p.v = mat({{1, 2}, {3, 4}, {5, 6}});
        p.mask.key_padding = {1, 1, 1};
    }
    SECTION("weights mode with an all-zero row") {
        p.mode = attn::Mode::weights;
        p.weights = mat({{0, 0, 0}});
    }

    const attn::Result r = attn::compute(p);
    REQUIRE(r.rows.size() == 1);
    check_empty_row(r, 0);
    // Every row empty: the means are NaN (HeadSummary doc), not 0 and not a division by zero.
    CHECK(r.summary.rows == 1);
    CHECK(r.summary.empty_rows == 1);
    CHECK(std::isnan(r.summary.mean_entropy));
    CHECK(std::isnan(r.summary.mean_normalized_entropy));
    CHECK(std::isnan(r.summary.mean_n_eff));
    CHECK(std::isnan(r.summary.mean_top_k_mass));
    CHECK(std::isnan(r.summary.mean_sink_mass));
}

TEST_CASE("an empty row does not disturb its neighbours", "[empty]") {
    // Row 1 sees nothing; rows 0 and 2 keep their softmax. By hand: softmax(0, ln 3) = (1/4, 3/4).
    const float ln3 = static_cast<float>(std::log(3.0));
    attn::Problem p = attn_test::logits_problem(mat({{0, ln3}, {7, 9}, {ln3, 0}}));
    p.v = mat({{4}, {8}});
    p.mask.allow = flags({{1, 1}, {0, 0}, {1, 1}});
    const attn::Result r = attn::compute(p);
    CHECK_THAT(r.weights(0, 1), Near(0.75));
    CHECK_THAT(r.output(0, 0), Near(7.0));
    check_empty_row(r, 1);
    CHECK_THAT(r.weights(2, 0), Near(0.75));
    CHECK_THAT(r.output(2, 0), Near(5.0));
    CHECK(r.summary.empty_rows == 1);
    // python3: H(1/4, 3/4) = 0.5623351446188083, same for both rows.
    CHECK_THAT(r.summary.mean_entropy, Near(0.5623351446));
}

TEST_CASE("strided mask: every s-th key counting back from the query", "[mask]") {
    // Causal, stride 2: query t sees j <= t with t - j even.
    attn::Problem p = attn_test::logits_problem(ramp(5, 5));
    p.mask.causal = true;
    p.mask.stride = 2;
    check_ramp(attn::compute(p), {{1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {1, 0, 1, 0, 0}, {0, 1, 0, 1, 0}, {1, 0, 1, 0, 1}});
    SECTION("not causal: both directions") {
        p.mask.causal = false;
        p.mask.stride = 3;
        check_ramp(attn::compute(p),
                   {{1, 0, 0, 1, 0}, {0, 1, 0, 0, 1}, {0, 0, 1, 0, 0}, {1, 0, 0, 1, 0}, {0, 1, 0, 0, 1}});
    }
    SECTION("stride 1 is off") {
        p.mask.stride = 1;
        check_ramp(attn::compute(p),
                   {{1, 0, 0, 0, 0}, {1, 1, 0, 0, 0}, {1, 1, 1, 0, 0}, {1, 1, 1, 1, 0}, {1, 1, 1, 1, 1}});
    }
}

TEST_CASE("StreamingLLM: attention-sink keys plus a sliding window", "[mask]") {
    // MATH.md: key j visible to query t iff j < n_sink or t - w < j <= t (and j <= t).
    attn::Problem p = attn_test::logits_problem(ramp(6, 6));
    p.mask.window = 2;
    p.mask.sink_keys = 2;
    check_ramp(attn::compute(p), {{1, 0, 0, 0, 0, 0},
                                  {1, 1, 0, 0, 0, 0},
                                  {1, 1, 1, 0, 0, 0},
                                  {1, 1, 1, 1, 0, 0},
                                  {1, 1, 0, 1, 1, 0},
                                  {1, 1, 0, 0, 1, 1}});
    SECTION("sinks are exempt from the stride too, not from padding") {
        p.mask.window = 0;
        p.mask.causal = true;
        p.mask.stride = 3;
        p.mask.sink_keys = 1;
        p.mask.key_padding = {0, 0, 0, 0, 1, 0};
        check_ramp(attn::compute(p), {{1, 0, 0, 0, 0, 0},
                                      {1, 1, 0, 0, 0, 0},
                                      {1, 0, 1, 0, 0, 0},
                                      {1, 0, 0, 1, 0, 0},
                                      {1, 1, 0, 0, 0, 0},
                                      {1, 0, 1, 0, 0, 1}});
    }
    SECTION("a NaN in a key hidden by the window does not leak") {
        p.logits(5, 2) = attn_test::kNaN;
        check_ramp(attn::compute(p), {{1, 0, 0, 0, 0, 0},
                                      {1, 1, 0, 0, 0, 0},
                                      {1, 1, 1, 0, 0, 0},
                                      {1, 1, 1, 1, 0, 0},
                                      {1, 1, 0, 1, 1, 0},
                                      {1, 1, 0, 0, 1, 1}});
    }
    SECTION("out of range") {
        p.mask.sink_keys = -1;
        CHECK_THROWS_AS(attn::compute(p), attn::Error);
        p.mask.sink_keys = 0;
        p.mask.stride = -2;
        CHECK_THROWS_AS(attn::compute(p), attn::Error);
    }
}
