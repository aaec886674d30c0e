// The streaming path (stream.hpp) against the dense one and against pooling done in the test:
// identical row metrics and output for every block size, overviews equal to max/mean pooling of
// the dense weights, tiles equal to slices of the dense weights (masks keep absolute positions),
// and working memory linear in n.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "approx.hpp"
#include "attn/attention.hpp"
#include "attn/stream.hpp"

using attn_test::Near;

namespace {

attn::Matrix random_matrix(std::mt19937& rng, int rows, int cols, float lo, float hi) {
    std::uniform_real_distribution<float> u(lo, hi);
    attn::Matrix m(rows, cols);
    for (float& x : m.data) x = u(rng);
    return m;
}

/// A random problem of any mode with a random mask; weights rows are random distributions with
/// some exact zeros.
attn::Problem random_problem(std::mt19937& rng, attn::Mode mode, int n_q, int n_k) {
    std::uniform_real_distribution<float> u(0, 1);
    attn::Problem p;
    p.mode = mode;
    const int d = 1 + static_cast<int>(rng() % 6);
    if (mode == attn::Mode::qkv) {
        p.q = random_matrix(rng, n_q, d, -2, 2);
        p.k = random_matrix(rng, n_k, d, -2, 2);
    } else if (mode == attn::Mode::logits) {
        p.logits = random_matrix(rng, n_q, n_k, -3, 3);
    } else {
        p.weights = random_matrix(rng, n_q, n_k, 0, 1);
        for (float& x : p.weights.data)
            if (u(rng) < 0.2f) x = 0.0f;
    }
    p.v = random_matrix(rng, n_k, 1 + static_cast<int>(rng() % 3), -3, 3);
    p.mask.causal = u(rng) < 0.5f;
    p.mask.window = u(rng) < 0.3f ? 1 + static_cast<int>(rng() % 5) : 0;
    if (u(rng) < 0.3f) {
        p.mask.key_padding.resize(static_cast<std::size_t>(n_k));
        for (auto& f : p.mask.key_padding) f = u(rng) < 0.2f;
    }
    if (u(rng) < 0.3f) {
        p.mask.allow.resize(static_cast<std::size_t>(n_q) * n_k);
        for (auto& f : p.mask.allow) f = u(rng) < 0.8f;
    }
    p.tau = std::vector<double>{0.3, 1.0, 2.5}[rng() % 3];
    p.top_k = 1 + static_cast<int>(rng() % 4);
    return p;
}

attn::HeadView view_of(const attn::Problem& p) {
    attn::HeadView h;
    h.mode = p.mode;
    const attn::Matrix& g = p.mode == attn::Mode::logits ? p.logits : p.weights;
    h.n_q = p.mode == attn::Mode::qkv ? p.q.rows : g.rows;
    h.n_k = p.mode == attn::Mode::qkv ? p.k.rows : g.cols;
    h.d_k = p.q.cols;
    h.d_v = p.v.cols;
    h.q = p.q.data.data();
    h.k = p.k.data.data();
    h.v = p.v.data.data();
    h.given = p.mode == attn::Mode::qkv ? nullptr : g.data.data();
    return h;
}

attn::StreamOptions options_of(const attn::Problem& p, int block) {
    attn::StreamOptions o;
    o.mask = p.mask;
    o.row = {p.tau, p.top_k, p.sink_keys, p.delta};
    o.scale = p.scale;
    o.block_rows = block;
    return o;
}

void check_same_row(const attn::RowMetrics& a, const attn::RowMetrics& b) {
    CHECK(a.empty == b.empty);
    CHECK(a.visible == b.visible);
    CHECK(a.support == b.support);
    CHECK_THAT(a.entropy, Near(b.entropy, 1e-12, 1e-12));
    CHECK_THAT(a.normalized_entropy, Near(b.normalized_entropy, 1e-12, 1e-12));
    CHECK_THAT(a.n_eff, Near(b.n_eff, 1e-12, 1e-12));
    CHECK_THAT(a.top_k_mass, Near(b.top_k_mass, 1e-12, 1e-12));
    CHECK_THAT(a.sink_mass, Near(b.sink_mass, 1e-12, 1e-12));
}

}  // namespace

TEST_CASE("streaming gives the dense path's metrics and output for every block size", "[stream]") {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 60; ++trial) {
        const auto mode = static_cast<attn::Mode>(trial % 3);
        const int n_q = 1 + static_cast<int>(rng() % 40);
        const int n_k = mode == attn::Mode::qkv ? 1 + static_cast<int>(rng() % 40) : n_q;
        const attn::Problem p = random_problem(rng, mode, n_q, n_k);
        const attn::Result dense = attn::compute(p);
        for (int block : {1, 3, 7, 64}) {
            INFO("trial " << trial << " block " << block);
            const attn::StreamResult s = attn::compute_streaming(view_of(p), options_of(p, block));
            REQUIRE(s.rows.size() == dense.rows.size());
            for (std::size_t t = 0; t < s.rows.size(); ++t) check_same_row(s.rows[t], dense.rows[t]);
            REQUIRE(s.output.data.size() == dense.output.data.size());
            for (std::size_t c = 0; c < s.output.data.size(); ++c) CHECK(s.output.data[c] == dense.output.data[c]);
            CHECK(s.summary.empty_rows == dense.summary.empty_rows);
            CHECK_THAT(s.summary.mean_entropy, Near(dense.summary.mean_entropy, 1e-12, 1e-12));
        }
    }
}

TEST_CASE("the overview is max or mean pooling of the dense weights", "[stream][overview]") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 20; ++trial) {
        const int n = 5 + static_cast<int>(rng() % 60);
        const attn::Problem p = random_problem(rng, attn::Mode::qkv, n, n);
        const attn::Result dense = attn::compute(p);
        for (attn::Pool pool : {attn::Pool::max, attn::Pool::mean}) {
            attn::StreamOptions o = options_of(p, 8);
            o.overview = 1 + static_cast<int>(rng() % 12);
            o.pool = pool;
            const attn::StreamResult s = attn::compute_streaming(view_of(p), o);
            const int side = std::min(o.overview, n);
            REQUIRE(s.overview.rows == side);
            REQUIRE(s.overview.cols == side);
            // Pool by hand: cell (R, C) holds rows t with floor(t * side / n) == R, same for keys.
            for (int R = 0; R < side; ++R)
                for (int C = 0; C < side; ++C) {
                    double mx = 0, sum = 0;
                    int count = 0;
                    bool any_visible = false;
                    for (int t = 0; t < n; ++t)
                        for (int j = 0; j < n; ++j) {
                            if (t * side / n != R || j * side / n != C) continue;
                            mx = std::max(mx, static_cast<double>(dense.weights(t, j)));
                            sum += dense.weights(t, j);
                            ++count;
                            any_visible = any_visible || dense.visible[static_cast<std::size_t>(t) * n + j];
                        }
                    INFO("trial " << trial << " cell " << R << "," << C);
                    if (!any_visible) {
                        CHECK(std::isnan(s.overview(R, C)));
                        continue;
                    }
                    const double want = pool == attn::Pool::max ? mx : sum / count;
                    CHECK_THAT(s.overview(R, C), Near(want, 1e-6, 1e-5));
                }
        }
    }
}

TEST_CASE("a tile equals the same cells of the dense weights, masks at absolute positions", "[stream][tile]") {
    std::mt19937 rng(13);
    for (int trial = 0; trial < 40; ++trial) {
        const auto mode = static_cast<attn::Mode>(trial % 3);
        const int n = 4 + static_cast<int>(rng() % 30);
        attn::Problem p = random_problem(rng, mode, n, n);
        p.mask.causal = true;  // positions matter: a tile at rows r0.. must keep j <= r0 + i
        const attn::Result dense = attn::compute(p);
        const int r0 = static_cast<int>(rng() % n), c0 = static_cast<int>(rng() % n);
        const int r1 = r0 + 1 + static_cast<int>(rng() % (n - r0));
        const int c1 = c0 + 1 + static_cast<int>(rng() % (n - c0));
        const attn::Matrix tile = attn::compute_tile(view_of(p), options_of(p, 4), r0, r1, c0, c1);
        REQUIRE(tile.rows == r1 - r0);
        REQUIRE(tile.cols == c1 - c0);
        for (int i = r0; i < r1; ++i)
            for (int j = c0; j < c1; ++j) {
                INFO("trial " << trial << " cell " << i << "," << j);
                if (dense.visible[static_cast<std::size_t>(i) * n + j])
                    CHECK(tile(i - r0, j - c0) == dense.weights(i, j));
                else
                    CHECK(std::isnan(tile(i - r0, j - c0)));
            }
    }
    attn::Problem p = random_problem(rng, attn::Mode::qkv, 8, 8);
    CHECK_THROWS_AS(attn::compute_tile(view_of(p), options_of(p, 4), 3, 3, 0, 8), attn::Error);
    CHECK_THROWS_AS(attn::compute_tile(view_of(p), options_of(p, 4), 0, 9, 0, 8), attn::Error);
}

TEST_CASE("streaming memory is linear in n: 8192 tokens with 64-row blocks", "[stream][memory]") {
    // 8192^2 float weights would be 256 MiB; the streaming scratch must stay at block * n.
    std::mt19937 rng(17);
    const int n = 8192, d = 4;
    attn::Problem p;
    p.mode = attn::Mode::qkv;
    p.q = random_matrix(rng, n, d, -1, 1);
    p.k = random_matrix(rng, n, d, -1, 1);
    attn::StreamOptions o;
    o.mask.causal = true;
    o.block_rows = 64;
    o.overview = 256;
    const attn::StreamResult s = attn::compute_streaming(view_of(p), o);
    CHECK(s.scratch_bytes <= static_cast<std::size_t>(64) * n * 9 + n * sizeof(int));
    CHECK(s.rows.size() == static_cast<std::size_t>(n));
    // Row 0 sees one key; the last row sees all: N_eff of near-equal scores approaches n.
    CHECK(s.rows.front().visible == 1);
    CHECK(s.rows.back().visible == n);
    for (const attn::RowMetrics& m : s.rows) {
        REQUIRE(!m.empty);
        REQUIRE(std::fabs(m.row_sum - 1.0) < 1e-6);
        REQUIRE(m.entropy <= std::log(static_cast<double>(m.visible)) + 1e-9);
    }
}

TEST_CASE("streaming validates like compute()", "[stream][errors]") {
    std::mt19937 rng(19);
    attn::Problem p = random_problem(rng, attn::Mode::weights, 6, 6);
    p.mask = {};
    attn::StreamOptions o = options_of(p, 2);
    p.weights(3, 2) = -0.5f;
    try {
        attn::compute_streaming(view_of(p), o);
        FAIL("negative weight accepted");
    } catch (const attn::Error& e) {
        CHECK(e.code() == attn::ErrorCode::kInvalidValue);
        CHECK(std::string(e.what()).find("[3][2]") != std::string::npos);
    }
    o.row.tau = 0;
    CHECK_THROWS_AS(attn::compute_streaming(view_of(p), o), attn::Error);
    attn::HeadView h = view_of(p);
    h.n_q = attn::kMaxStreamTokens + 1;
    CHECK_THROWS_AS(attn::compute_streaming(h, options_of(p, 2)), attn::Error);
}

TEST_CASE("cached scores run as logits give the qkv head's metrics", "[stream][scores]") {
    std::mt19937 rng(29);
    const attn::Problem p = random_problem(rng, attn::Mode::qkv, 23, 17);
    const attn::HeadView h = view_of(p);
    const attn::StreamOptions o = options_of(p, 5);
    std::vector<float> s(static_cast<std::size_t>(23) * 17);
    const double scale = attn::compute_scores(h, o, s.data());
    CHECK_THAT(scale, Near(1.0 / std::sqrt(static_cast<double>(p.q.cols)), 1e-15, 1e-15));
    attn::HeadView as_logits = h;
    as_logits.mode = attn::Mode::logits;
    as_logits.given = s.data();
    const attn::StreamResult a = attn::compute_streaming(h, o);
    const attn::StreamResult b = attn::compute_streaming(as_logits, o);
    for (std::size_t t = 0; t < a.rows.size(); ++t) check_same_row(b.rows[t], a.rows[t]);
    CHECK_THROWS_AS(attn::compute_scores(as_logits, o, s.data()), attn::Error);
}

TEST_CASE("rows without masked keys (no visible flags) equal the same rows through the per-key path",
          "[stream][scores]") {
    // A key-padding mask that pads nothing sends every row through the flagged, per-key path;
    // without it, rows of finite scores reach the kernel with no flags (stream.cpp). Same bits.
    std::mt19937 rng(41);
    for (attn::Mode mode : {attn::Mode::qkv, attn::Mode::logits})
        for (bool causal : {false, true})
            for (attn::Pool pool : {attn::Pool::max, attn::Pool::mean}) {
                attn::Problem p = random_problem(rng, mode, 70, 67);
                p.mask = attn::MaskSpec{};
                p.mask.causal = causal;
                const attn::HeadView h = view_of(p);
                attn::StreamOptions fast = options_of(p, 16);
                fast.overview = 8;
                fast.pool = pool;
                attn::StreamOptions flagged = fast;
                flagged.mask.key_padding.assign(67, 0);
                const attn::StreamResult a = attn::compute_streaming(h, fast);
                const attn::StreamResult b = attn::compute_streaming(h, flagged);
                INFO("mode " << static_cast<int>(mode) << ", causal " << causal);
                REQUIRE(a.rows.size() == b.rows.size());
                for (std::size_t t = 0; t < a.rows.size(); ++t) {
                    CHECK(a.rows[t].support == b.rows[t].support);
                    CHECK(a.rows[t].visible == b.rows[t].visible);
                    CHECK(std::memcmp(&a.rows[t].entropy, &b.rows[t].entropy, sizeof(double)) == 0);
                    CHECK(std::memcmp(&a.rows[t].top_k_mass, &b.rows[t].top_k_mass, sizeof(double)) == 0);
                    CHECK(std::memcmp(&a.rows[t].row_sum, &b.rows[t].row_sum, sizeof(double)) == 0);
                }
                REQUIRE(a.overview.data.size() == b.overview.data.size());
                CHECK(std::memcmp(a.overview.data.data(), b.overview.data.data(),
                                  a.overview.data.size() * sizeof(float)) == 0);
                CHECK(a.output.data == b.output.data);
            }
}

TEST_CASE("logits rows: finite rows, rows with masked (-inf) logits, empty rows, refused NaN and +inf",
          "[stream][scores][errors]") {
    // Rows long enough for the SIMD kernels (40 keys). Golden values by hand: a row of equal
    // logits over m visible keys has weights 1/m, entropy ln m, N_eff m.
    const int n = 40;
    const float ninf = -std::numeric_limits<float>::infinity();
    std::vector<float> g(static_cast<std::size_t>(4) * n, 0.5f);                // row 0: 40 equal finite logits
    for (int j = 0; j < n; j += 2) g[static_cast<std::size_t>(n) + j] = ninf;   // row 1: 20 visible
    for (int j = 0; j < n; ++j) g[static_cast<std::size_t>(2) * n + j] = ninf;  // row 2: empty
    for (int j = 0; j < n; ++j) g[static_cast<std::size_t>(3) * n + j] = j < 10 ? 1.0f : ninf;  // row 3: 10
    attn::HeadView h;
    h.mode = attn::Mode::logits;
    h.n_q = 4;
    h.n_k = n;
    h.given = g.data();
    for (bool causal : {false, true}) {
        INFO("causal " << causal);
        attn::StreamOptions o;
        o.mask.causal = causal;
        o.block_rows = 3;
        const attn::StreamResult r = attn::compute_streaming(h, o);
        const int want[4] = {causal ? 1 : 40, causal ? 1 : 20, 0, causal ? 4 : 10};
        for (int t = 0; t < 4; ++t) {
            INFO("row " << t);
            const attn::RowMetrics& m = r.rows[static_cast<std::size_t>(t)];
            CHECK(m.visible == want[t]);
            CHECK(m.empty == (want[t] == 0));
            if (want[t] > 0) {
                CHECK_THAT(m.entropy, Near(std::log(static_cast<double>(want[t])), 1e-6, 1e-6));
                CHECK_THAT(m.n_eff, Near(static_cast<double>(want[t]), 1e-5, 1e-6));
            }
        }
    }
    for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        std::vector<float> b = g;
        b[static_cast<std::size_t>(n) + 7] = bad;  // row 1, a visible key
        h.given = b.data();
        try {
            attn::compute_streaming(h, attn::StreamOptions{});
            FAIL("a non-finite logit accepted");
        } catch (const attn::Error& e) {
            CHECK(e.code() == attn::ErrorCode::kNonFinite);
            CHECK(e.field() == "logits");
        }
    }
}

TEST_CASE("cached scores refuse a Q K^T that overflows float32", "[stream][scores][errors]") {
    attn::Problem p;
    p.mode = attn::Mode::qkv;
    p.q = attn::Matrix(2, 1, 1e20f);
    p.k = attn::Matrix(2, 1, -1e20f);
    attn::StreamOptions o;
    o.scale = 1;
    std::vector<float> s(4);
    try {
        attn::compute_scores(view_of(p), o, s.data());
        FAIL("overflow accepted");
    } catch (const attn::Error& e) {
        CHECK(e.code() == attn::ErrorCode::kNonFinite);
        CHECK(e.field() == "scores");
    }
}

TEST_CASE("mean pooling counts beyond 2^24 cells per pooled cell", "[stream][overview]") {
    // Q = K = 0: every weight of a row is 1/n, so any pooled mean over whole rows is exactly 1/n.
    // 4200^2 = 17.64M cells in one pooled cell: a float count would stop at 2^24 = 16.78M and
    // report a mean about 5% too large.
    const int n = 4200;
    attn::Problem p;
    p.mode = attn::Mode::qkv;
    p.q = attn::Matrix(n, 1);
    p.k = attn::Matrix(n, 1);
    attn::StreamOptions o;
    o.overview = 1;
    o.pool = attn::Pool::mean;
    const attn::StreamResult s = attn::compute_streaming(view_of(p), o);
    REQUIRE(s.overview.rows == 1);
    CHECK_THAT(static_cast<double>(s.overview.data[0]), Near(1.0 / n, 1e-6, 0));
}

TEST_CASE("rows computed in ranges and merged equal the whole head", "[stream][rows]") {
    // The split a page makes over workers: consecutive row ranges, each with its own call (its
    // own row hints), merged in order. Rows, summary and output as the whole head's; the overview
    // cells of both poolings too, including cells whose rows two parts share.
    std::mt19937 rng(19);
    for (int trial = 0; trial < 24; ++trial) {
        const auto mode = static_cast<attn::Mode>(trial % 3);
        const int n_q = 20 + static_cast<int>(rng() % 60);
        const int n_k = mode == attn::Mode::qkv ? 20 + static_cast<int>(rng() % 60) : n_q;
        const attn::Problem p = random_problem(rng, mode, n_q, n_k);
        attn::StreamOptions o = options_of(p, 8);
        o.overview = 7;
        o.pool = trial % 2 ? attn::Pool::mean : attn::Pool::max;
        const attn::HeadView h = view_of(p);
        const attn::StreamResult whole = attn::compute_streaming(h, o);
        const int a = 1 + static_cast<int>(rng() % (n_q - 2)), b = a + 1 + static_cast<int>(rng() % (n_q - a - 1));
        std::vector<attn::StreamResult> parts{attn::compute_streaming_rows(h, o, 0, a),
                                              attn::compute_streaming_rows(h, o, a, b),
                                              attn::compute_streaming_rows(h, o, b, n_q)};
        CHECK(parts[1].first_row == a);
        CHECK(parts[1].rows.size() == static_cast<std::size_t>(b - a));
        const attn::StreamResult m = attn::merge_streaming_rows(parts, o);
        INFO("trial " << trial << " split " << a << ", " << b);
        REQUIRE(m.rows.size() == whole.rows.size());
        for (std::size_t t = 0; t < m.rows.size(); ++t) check_same_row(m.rows[t], whole.rows[t]);
        CHECK(m.summary.empty_rows == whole.summary.empty_rows);
        CHECK_THAT(m.summary.mean_entropy, Near(whole.summary.mean_entropy, 1e-12, 1e-12));
        REQUIRE(m.output.data.size() == whole.output.data.size());
        for (std::size_t c = 0; c < m.output.data.size(); ++c)
            CHECK_THAT(m.output.data[c], Near(whole.output.data[c], 1e-6, 1e-6));
        REQUIRE(m.overview.data.size() == whole.overview.data.size());
        for (std::size_t c = 0; c < m.overview.data.size(); ++c) {
            const float x = m.overview.data[c], y = whole.overview.data[c];
            CHECK(std::isnan(x) == std::isnan(y));
            if (!std::isnan(y)) CHECK_THAT(x, Near(y, 1e-6, 1e-5));
        }
    }
    attn::Problem p = random_problem(rng, attn::Mode::logits, 10, 10);
    const attn::StreamOptions o = options_of(p, 4);
    CHECK_THROWS_AS(attn::compute_streaming_rows(view_of(p), o, 4, 4), attn::Error);
    std::vector<attn::StreamResult> gap{attn::compute_streaming_rows(view_of(p), o, 0, 3),
                                        attn::compute_streaming_rows(view_of(p), o, 4, 10)};
    CHECK_THROWS_AS(attn::merge_streaming_rows(gap, o), attn::Error);
}
