// Golden values of one head: the worked examples and tables of docs/MATH.md ("Golden values"),
// temperature, cross-attention and weights mode. Every expected number is either quoted from
// MATH.md or was computed independently in double precision with python3's math module (the
// snippet is in the comment next to it); none comes from running the code under test.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <utility>
#include <string>

#include "approx.hpp"
#include "attn/attention.hpp"
#include "fixtures.hpp"

using attn_test::kInf;
using attn_test::mat;
using attn_test::Near;

namespace {

// Seed example 1: q = (1,0), k1 = (1,0), k2 = (0,1), v1 = (2,0), v2 = (0,4).
attn::Problem example1(double scale) {
    attn::Problem p;
    p.mode = attn::Mode::qkv;
    p.q = mat({{1, 0}});
    p.k = mat({{1, 0}, {0, 1}});
    p.v = mat({{2, 0}, {0, 4}});
    p.scale = scale;
    return p;
}

// Seed example 2 in logits mode: rows (0,-inf,-inf), (0,ln 3,-inf), (ln 2,0,0), V = (2,6,10)^T.
attn::Problem example2(bool causal) {
    attn::Problem p = attn_test::logits_problem(mat(
        {{0, -kInf, -kInf}, {0, static_cast<float>(std::log(3.0)), -kInf}, {static_cast<float>(std::log(2.0)), 0, 0}}));
    p.v = mat({{2}, {6}, {10}});
    p.mask.causal = causal;
    return p;
}

}  // namespace

TEST_CASE("seed example 1, scale 1: weights, output and metrics", "[golden][qkv]") {
    const attn::Result r = attn::compute(example1(1.0));

    REQUIRE(r.n_q == 1);
    REQUIRE(r.n_k == 2);
    REQUIRE(r.d_v == 2);
    REQUIRE(r.weights.rows == 1);
    REQUIRE(r.weights.cols == 2);
    REQUIRE(r.output.rows == 1);
    REQUIRE(r.output.cols == 2);
    REQUIRE(r.rows.size() == 1);
    CHECK_THAT(r.scale, Near(1.0));

    // S = q K^T = (1, 0), before temperature.
    CHECK_THAT(r.scores(0, 0), Near(1.0));
    CHECK_THAT(r.scores(0, 1), Near(0.0));

    // MATH.md golden values.
    CHECK_THAT(r.weights(0, 0), Near(0.7310585786));
    CHECK_THAT(r.weights(0, 1), Near(0.2689414214));
    CHECK_THAT(r.output(0, 0), Near(1.462117157));
    CHECK_THAT(r.output(0, 1), Near(1.075765685));

    const attn::RowMetrics& m = r.rows[0];
    CHECK_FALSE(m.empty);
    CHECK(m.visible == 2);
    CHECK_THAT(m.entropy, Near(0.5822031089));
    // python3: H / math.log(2) = 0.8399415379831692; math.exp(H) = 1.7899776055137309
    CHECK_THAT(m.normalized_entropy, Near(0.8399415380));
    CHECK_THAT(m.n_eff, Near(1.7899776055));
    CHECK_THAT(m.top_k_mass, Near(1.0));  // top_k = 2 = |Omega|
    CHECK_THAT(m.sink_mass, Near(0.7310585786));
    CHECK_THAT(m.row_sum, Near(1.0));

    CHECK(r.summary.rows == 1);
    CHECK(r.summary.empty_rows == 0);
    CHECK_THAT(r.summary.mean_entropy, Near(0.5822031089));
    CHECK_THAT(r.summary.mean_sink_mass, Near(0.7310585786));
}

TEST_CASE("seed example 1, default scale 1/sqrt(d_k)", "[golden][qkv]") {
    // scale <= 0 means the default 1/sqrt(d_k) = 1/sqrt(2).
    // python3: w = softmax([1/sqrt(2), 0]) = (0.6697615493266569, 0.3302384506733431)
    for (double scale : {0.0, -1.0, 1.0 / std::sqrt(2.0)}) {
        INFO("scale = " << scale);
        const attn::Result r = attn::compute(example1(scale));
        CHECK_THAT(r.scale, Near(0.7071067812));
        CHECK_THAT(r.scores(0, 0), Near(0.7071067812));
        CHECK_THAT(r.weights(0, 0), Near(0.6697615493));
        CHECK_THAT(r.weights(0, 1), Near(0.3302384507));
        CHECK_THAT(r.output(0, 0), Near(1.339523099));  // MATH.md
        CHECK_THAT(r.output(0, 1), Near(1.320953803));  // MATH.md
    }
}

TEST_CASE("seed example 1, NaN scale means the default", "[golden][qkv]") {
    // attention.hpp: "<= 0 or NaN means the default 1 / sqrt(d_k)".
    const attn::Result r = attn::compute(example1(std::nan("")));
    CHECK_THAT(r.scale, Near(0.7071067812));
    CHECK_THAT(r.output(0, 0), Near(1.339523099));
    CHECK_THAT(r.output(0, 1), Near(1.320953803));
}

TEST_CASE("seed example 2 in logits mode", "[golden][logits]") {
    // MATH.md: A = [[1,0,0],[1/4,3/4,0],[1/2,1/4,1/4]], output (2,5,5).
    const double want_a[3][3] = {{1, 0, 0}, {0.25, 0.75, 0}, {0.5, 0.25, 0.25}};
    const double want_o[3] = {2, 5, 5};
    // MATH.md row metrics (H; H_norm; N_eff; top1; top2).
    const double want_h[3] = {0, 0.5623351446, 1.039720771};
    const double want_hn[3] = {0, 0.8112781245, 0.9463946304};
    const double want_neff[3] = {1, 1.754765351, 2.828427125};
    const double want_top1[3] = {1, 0.75, 0.5};
    const double want_top2[3] = {1, 1, 0.75};

    const bool causal = GENERATE(true, false);  // -inf alone already hides the upper triangle
    const int top_k = GENERATE(1, 2);
    INFO("causal = " << causal << ", top_k = " << top_k);

    attn::Problem p = example2(causal);
    p.top_k = top_k;
    const attn::Result r = attn::compute(p);

    REQUIRE(r.n_q == 3);
    REQUIRE(r.n_k == 3);
    REQUIRE(r.d_v == 1);
    REQUIRE(r.rows.size() == 3);
    REQUIRE(r.visible.size() == 9);
    CHECK_THAT(r.scale, Near(1.0));  // "1 otherwise"

    for (int t = 0; t < 3; ++t) {
        INFO("row " << t);
        for (int j = 0; j < 3; ++j) {
            INFO("key " << j);
            CHECK_THAT(r.weights(t, j), Near(want_a[t][j]));
            CHECK(r.visible[static_cast<std::size_t>(t * 3 + j)] == (j <= t ? 1 : 0));
            if (j > t) {
                CHECK(r.weights(t, j) == 0.0f);     // structural zero, exactly
                CHECK(std::isnan(r.scores(t, j)));  // "NaN where not visible"
            }
        }
        CHECK_THAT(r.output(t, 0), Near(want_o[t]));
        const attn::RowMetrics& m = r.rows[static_cast<std::size_t>(t)];
        CHECK_FALSE(m.empty);
        CHECK(m.visible == t + 1);
        CHECK_THAT(m.entropy, Near(want_h[t]));
        CHECK_THAT(m.normalized_entropy, Near(want_hn[t]));
        CHECK_THAT(m.n_eff, Near(want_neff[t]));
        CHECK_THAT(m.top_k_mass, Near(top_k == 1 ? want_top1[t] : want_top2[t]));
        CHECK_THAT(m.sink_mass, Near(want_a[t][0]));
        CHECK_THAT(m.row_sum, Near(1.0));
    }

    // Means over the three rows, python3: sum(col) / 3 of the MATH.md table.
    CHECK(r.summary.rows == 3);
    CHECK(r.summary.empty_rows == 0);
    CHECK_THAT(r.summary.mean_entropy, Near(0.5340186385));
    CHECK_THAT(r.summary.mean_normalized_entropy, Near(0.5858909183));
    CHECK_THAT(r.summary.mean_n_eff, Near(1.8610641587));
    CHECK_THAT(r.summary.mean_top_k_mass, Near(top_k == 1 ? 0.75 : 2.75 / 3.0));
    CHECK_THAT(r.summary.mean_sink_mass, Near(1.75 / 3.0));
}

TEST_CASE("top-k is clamped to |Omega| and sink mass covers sink_keys keys", "[golden][logits]") {
    attn::Problem p = example2(true);
    p.top_k = 5;
    p.sink_keys = 2;
    const attn::Result r = attn::compute(p);
    // Every row's top-5 is the whole visible row; sink = a_0 + a_1 = (1, 1, 3/4).
    for (int t = 0; t < 3; ++t) CHECK_THAT(r.rows[static_cast<std::size_t>(t)].top_k_mass, Near(1.0));
    CHECK_THAT(r.rows[0].sink_mass, Near(1.0));
    CHECK_THAT(r.rows[1].sink_mass, Near(1.0));
    CHECK_THAT(r.rows[2].sink_mass, Near(0.75));
}

TEST_CASE("softmax temperature table for z = (2, 1, 0.1)", "[golden][temperature]") {
    struct Row {
        double tau;
        double a[3];
        double h;
    };
    // MATH.md, "Softmax of z = (2, 1, 0.1)".
    const Row table[] = {
        {0.5, {0.8637771182, 0.1168995209, 0.01932336085}, 0.4536683216},
        {1.0, {0.6590011389, 0.2424329707, 0.09856589041}, 0.8467381788},
        {2.0, {0.5016877571, 0.3042890063, 0.1940232366}, 1.026243929},
    };
    for (const Row& row : table) {
        INFO("tau = " << row.tau);
        attn::Problem p = attn_test::logits_problem(mat({{2.0f, 1.0f, 0.1f}}));
        p.tau = row.tau;
        const attn::Result r = attn::compute(p);
        for (int j = 0; j < 3; ++j) CHECK_THAT(r.weights(0, j), Near(row.a[j]));
        CHECK_THAT(r.rows[0].entropy, Near(row.h));
        // scores are S before the temperature
        CHECK_THAT(r.scores(0, 0), Near(2.0));
        CHECK_THAT(r.scores(0, 2), Near(0.1, 1e-7));
    }
}

TEST_CASE("temperature on scores (1, 2, 3)", "[golden][temperature]") {
    attn::Problem p = attn_test::logits_problem(mat({{1, 2, 3}}));

    SECTION("tau 1") {
        // python3: softmax([1,2,3]) = (0.09003057317, 0.2447284711, 0.6652409558)
        p.tau = 1;
        const attn::Result r = attn::compute(p);
        CHECK_THAT(r.weights(0, 0), Near(0.0900305732));
        CHECK_THAT(r.weights(0, 1), Near(0.2447284711));
        CHECK_THAT(r.weights(0, 2), Near(0.6652409558));
        CHECK_THAT(r.rows[0].entropy, Near(0.8323955818));  // python3, -sum p ln p
    }
    SECTION("tau 2") {
        // python3: softmax([1,2,3] / 2) = (0.1863237232, 0.3071958857, 0.5064803911)
        p.tau = 2;
        const attn::Result r = attn::compute(p);
        CHECK_THAT(r.weights(0, 0), Near(0.1863237232));
        CHECK_THAT(r.weights(0, 1), Near(0.3071958857));
        CHECK_THAT(r.weights(0, 2), Near(0.5064803911));
        CHECK_THAT(r.rows[0].entropy, Near(1.0201913367));
    }
    SECTION("tau 0.01 saturates without NaN") {
        // python3: softmax([1,2,3] / 0.01) = (1.38e-87, 3.720075976e-44, 1). In float32 the first
        // underflows to 0 and the second is a subnormal (3.78e-44) or 0 under flush-to-zero.
        p.tau = 0.01;
        const attn::Result r = attn::compute(p);
        for (int j = 0; j < 3; ++j) CHECK_FALSE(std::isnan(r.weights(0, j)));
        CHECK(r.weights(0, 0) == 0.0f);
        CHECK(r.weights(0, 1) >= 0.0f);
        CHECK(r.weights(0, 1) < 1e-40f);
        CHECK_THAT(r.weights(0, 2), Near(1.0));
        CHECK_THAT(r.rows[0].entropy, Near(0.0));  // 3.7e-42 in double
        CHECK_THAT(r.rows[0].n_eff, Near(1.0));
        CHECK_THAT(r.rows[0].row_sum, Near(1.0));
    }
}

TEST_CASE("large logits do not overflow (max subtraction)", "[golden][logits]") {
    // exp(1000) overflows a double; softmax(1000, 999) = softmax(1, 0) = (0.7310585786, ...).
    // Same for very negative logits, where exp underflows to 0 without the shift.
    for (float base : {1000.0f, -1000.0f, 3.0e5f}) {
        INFO("base = " << base);
        attn::Problem p = attn_test::logits_problem(mat({{base, base - 1}}));
        const attn::Result r = attn::compute(p);
        CHECK_THAT(r.weights(0, 0), Near(0.7310585786));
        CHECK_THAT(r.weights(0, 1), Near(0.2689414214));
        CHECK_THAT(r.rows[0].entropy, Near(0.5822031089));  // MATH.md, seed example 1
    }
}

TEST_CASE("cross-attention with 2 queries and 3 keys", "[golden][qkv][cross]") {
    attn::Problem p;
    p.mode = attn::Mode::qkv;
    p.q = mat({{1, 0}, {0, 1}});
    p.k = mat({{1, 0}, {0, 1}, {1, 1}});
    p.v = mat({{1, 0}, {2, 0}, {3, 1}});
    p.scale = 1;
    const attn::Result r = attn::compute(p);

    REQUIRE(r.n_q == 2);
    REQUIRE(r.n_k == 3);
    REQUIRE(r.d_v == 2);
    REQUIRE(r.scores.rows == 2);
    REQUIRE(r.scores.cols == 3);
    REQUIRE(r.weights.rows == 2);
    REQUIRE(r.weights.cols == 3);
    REQUIRE(r.output.rows == 2);
    REQUIRE(r.output.cols == 2);
    REQUIRE(r.rows.size() == 2);
    REQUIRE(r.visible.size() == 6);

    // By hand: S = Q K^T = [[1,0,1],[0,1,1]]; row 0 weights (e,1,e)/(2e+1), row 1 (1,e,e)/(2e+1).
    // python3: e/(2e+1) = 0.4223187982515182, 1/(2e+1) = 0.15536240349696362
    const double big = 0.4223187983, small = 0.1553624035;
    CHECK_THAT(r.scores(0, 2), Near(1.0));
    CHECK_THAT(r.scores(1, 0), Near(0.0));
    CHECK_THAT(r.weights(0, 0), Near(big));
    CHECK_THAT(r.weights(0, 1), Near(small));
    CHECK_THAT(r.weights(0, 2), Near(big));
    CHECK_THAT(r.weights(1, 0), Near(small));
    CHECK_THAT(r.weights(1, 1), Near(big));
    CHECK_THAT(r.weights(1, 2), Near(big));
    // Output row 0: (e*1 + 2 + 3e)/(2e+1) = 2 exactly, second column e/(2e+1).
    // Output row 1: (1 + 2e + 3e)/(2e+1) = 2.2669563947545543 (python3).
    CHECK_THAT(r.output(0, 0), Near(2.0));
    CHECK_THAT(r.output(0, 1), Near(big));
    CHECK_THAT(r.output(1, 0), Near(2.2669563948));
    CHECK_THAT(r.output(1, 1), Near(big));
}

TEST_CASE("no V gives an output with zero columns", "[qkv]") {
    attn::Problem p = example1(1.0);
    p.v = attn::Matrix();
    const attn::Result r = attn::compute(p);
    CHECK(r.d_v == 0);
    CHECK(r.output.cols == 0);
    CHECK_THAT(r.weights(0, 0), Near(0.7310585786));
}

TEST_CASE("weights mode: entropy with zeros and reproduction at tau 1", "[golden][weights]") {
    attn::Problem p = attn_test::weights_problem(mat({{0, 0.5f, 0.5f}, {0, 0, 1}}));
    const attn::Result r = attn::compute(p);

    // Rows reproduced at tau 1; zeros are not visible keys (ln 0 = -inf).
    CHECK(r.weights(0, 0) == 0.0f);
    CHECK_THAT(r.weights(0, 1), Near(0.5));
    CHECK_THAT(r.weights(0, 2), Near(0.5));
    CHECK(r.weights(1, 0) == 0.0f);
    CHECK(r.weights(1, 1) == 0.0f);
    CHECK_THAT(r.weights(1, 2), Near(1.0));
    CHECK(r.visible[0] == 0);
    CHECK(r.visible[1] == 1);

    // MATH.md: [0, .5, .5] -> ln 2; [0, 0, 1] -> 0.
    CHECK(r.rows[0].visible == 2);
    CHECK_THAT(r.rows[0].entropy, Near(std::log(2.0)));
    CHECK_THAT(r.rows[0].normalized_entropy, Near(1.0));
    CHECK_THAT(r.rows[0].n_eff, Near(2.0));
    CHECK(r.rows[1].visible == 1);
    CHECK_THAT(r.rows[1].entropy, Near(0.0));
    CHECK_THAT(r.rows[1].normalized_entropy, Near(0.0));  // 0 when |Omega| = 1 (MATH.md)
    CHECK_THAT(r.rows[1].n_eff, Near(1.0));
    CHECK_THAT(r.rows[1].sink_mass, Near(0.0));
}

TEST_CASE("weights mode: temperature re-tempers a row as a^(1/tau)", "[golden][weights][temperature]") {
    // By hand: (0.2, 0.8) at tau 2 -> (sqrt .2, sqrt .8) / (sqrt .2 + sqrt .8) = (1/3, 2/3).
    attn::Problem p = attn_test::weights_problem(mat({{0.2f, 0.8f}}));
    p.v = mat({{3}, {6}});
    p.tau = 2;
    const attn::Result r = attn::compute(p);
    CHECK_THAT(r.weights(0, 0), Near(1.0 / 3.0));
    CHECK_THAT(r.weights(0, 1), Near(2.0 / 3.0));
    CHECK_THAT(r.output(0, 0), Near(5.0));  // 3/3 + 6*2/3
    // Scores are S = ln a (before temperature).
    CHECK_THAT(r.scores(0, 0), Near(std::log(0.2)));
    CHECK_THAT(r.scores(0, 1), Near(std::log(0.8)));
}

TEST_CASE("weights mode: rows not summing to 1 are renormalised", "[weights]") {
    // softmax(ln a) = a / sum(a): (1, 3) -> (1/4, 3/4).
    const attn::Result r = attn::compute(attn_test::weights_problem(mat({{1, 3}})));
    CHECK_THAT(r.weights(0, 0), Near(0.25));
    CHECK_THAT(r.weights(0, 1), Near(0.75));
}

TEST_CASE("mode names round-trip", "[api]") {
    using attn::Mode;
    for (Mode m : {Mode::qkv, Mode::logits, Mode::weights}) CHECK(attn::mode_from_string(attn::to_string(m)) == m);
    CHECK(std::string(attn::to_string(Mode::qkv)) == "qkv");
    CHECK(std::string(attn::to_string(Mode::logits)) == "logits");
    CHECK(std::string(attn::to_string(Mode::weights)) == "weights");
}

TEST_CASE("(1-delta) support: fewest keys holding mass >= 1 - delta", "[golden][support]") {
    // Seed example 2's rows, sorted descending: (1), (3/4, 1/4), (1/2, 1/4, 1/4). By hand:
    // delta 0.1 needs mass 0.9: 1 key, 2 keys (0.75 < 0.9), 3 keys (0.75 < 0.9);
    // delta 0.3 needs 0.7: 1, 1 (0.75 >= 0.7), 2 (0.5 < 0.7 <= 0.75);
    // delta 0 needs everything: 1, 2, 3.
    const float ln2 = std::log(2.0f), ln3 = std::log(3.0f);
    attn::Problem p = attn_test::logits_problem(mat({{0, -kInf, -kInf}, {0, ln3, -kInf}, {ln2, 0, 0}}));
    const std::pair<double, std::array<int, 3>> cases[] = {{0.1, {1, 2, 3}}, {0.3, {1, 1, 2}}, {0.0, {1, 2, 3}}};
    for (const auto& [delta, want] : cases) {
        p.delta = delta;
        const attn::Result r = attn::compute(p);
        for (int t = 0; t < 3; ++t) {
            INFO("delta " << delta << " row " << t);
            CHECK(r.rows[static_cast<std::size_t>(t)].support == want[static_cast<std::size_t>(t)]);
        }
    }
    p.delta = 1.0;
    CHECK_THROWS_AS(attn::compute(p), attn::Error);
    p.delta = -0.1;
    CHECK_THROWS_AS(attn::compute(p), attn::Error);
}
