// Every kernel of every available KernelSet (scalar, sse4.1, avx2 natively; wasm-simd128 in the
// WASM kernel-test build) against the scalar reference and against double-precision values
// computed here, independently of the code under test.
//
// Rows are allocated with 16 extra elements: NaN scores and "visible" flags beyond the row, and a
// sentinel in the output, so a kernel that reads or writes past n (a SIMD tail done wrong) fails.
// Masked keys hold NaN or +Inf: they must never reach a max or a sum.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "approx.hpp"
#include "attn/kernels.hpp"
#include "kernels_simd.hpp"

namespace {

using attn::RowMetrics;
using attn::kernels::KernelSet;
using attn::kernels::RowBench;
using attn::kernels::RowParams;
using attn_test::Near;

constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();
constexpr float kInff = std::numeric_limits<float>::infinity();
constexpr float kSentinel = 12345.0f;
constexpr int kPad = 16;

const std::vector<int> kLengths{1, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 255, 256, 257, 4099};

std::vector<const KernelSet*> simd_sets() {
    std::vector<const KernelSet*> out;
    for (const KernelSet* s : attn::kernels::available())
        if (s != &attn::kernels::scalar()) out.push_back(s);
    return out;
}

/// Reference (double) softmax of the visible keys; returns H, fills p.
double softmax_ref(const float* s, const std::uint8_t* vis, int n, double tau, std::vector<double>& p) {
    p.assign(static_cast<std::size_t>(n), 0.0);
    double mx = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < n; ++j)
        if (vis[j] && s[j] != -kInff) mx = std::max(mx, double(s[j]));
    double z = 0.0;
    for (int j = 0; j < n; ++j)
        if (vis[j] && s[j] != -kInff) z += (p[j] = std::exp((double(s[j]) - mx) / tau));
    double h = 0.0;
    for (int j = 0; j < n; ++j) {
        p[j] /= z;
        if (p[j] > 0) h -= p[j] * std::log(p[j]);
    }
    return h;
}

/// `got` is a valid (1-delta) support size for weights p to within rounding (1e-6 of mass): the
/// `got` largest hold >= need and the `got - 1` largest hold < need.
bool support_ok(int got, int want, std::vector<double> p, int count, double need) {
    if (got == want) return true;
    if (got < 1 || got > count) return false;
    std::sort(p.begin(), p.end(), std::greater<double>());
    double below = 0.0;
    for (int i = 0; i < got - 1; ++i) below += p[static_cast<std::size_t>(i)];
    const double at = below + p[static_cast<std::size_t>(got - 1)];
    return at >= need - 1e-6 && below < need + 1e-6;
}

struct Row {
    std::vector<float> s;
    std::vector<std::uint8_t> vis;
};

enum class MaskKind { all, dense, sparse, first_only, with_neg_inf, none };

/// A row of n scores (normal, sd 2.5) with n + kPad entries: NaN past the end, flags 1 past the
/// end; masked keys hold NaN or +Inf.
Row make_row(int n, MaskKind kind, std::mt19937& rng) {
    std::normal_distribution<float> score(0.0f, 2.5f);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    Row r;
    r.s.assign(static_cast<std::size_t>(n + kPad), kNaNf);
    r.vis.assign(static_cast<std::size_t>(n + kPad), 1);
    for (int j = 0; j < n; ++j) {
        bool visible = true;
        switch (kind) {
            case MaskKind::all:
                break;
            case MaskKind::dense:
                visible = u(rng) < 0.7f;
                break;
            case MaskKind::sparse:
                visible = u(rng) < 0.1f;
                break;
            case MaskKind::first_only:
                visible = j == 0;
                break;
            case MaskKind::with_neg_inf:
                visible = u(rng) < 0.8f;
                break;
            case MaskKind::none:
                visible = false;
                break;
        }
        r.vis[j] = visible;
        r.s[j] = visible ? score(rng) : (j % 2 ? kNaNf : kInff);
        if (kind == MaskKind::with_neg_inf && visible && u(rng) < 0.3f) r.s[j] = -kInff;
    }
    return r;
}

void check_row_against_reference(const KernelSet& set, const Row& row, int n, const RowParams& rp) {
    std::vector<float> a(static_cast<std::size_t>(n + kPad), kSentinel);
    std::vector<float> want(static_cast<std::size_t>(n + kPad), kSentinel);
    RowMetrics m, w;
    set.softmax_row(row.s.data(), row.vis.data(), n, rp, a.data(), m);
    attn::kernels::scalar().softmax_row(row.s.data(), row.vis.data(), n, rp, want.data(), w);

    for (int j = n; j < n + kPad; ++j) REQUIRE(a[static_cast<std::size_t>(j)] == kSentinel);
    for (int j = 0; j < n; ++j) {
        const float got = a[static_cast<std::size_t>(j)];
        INFO("j = " << j);
        REQUIRE(std::isfinite(got));
        if (!row.vis[static_cast<std::size_t>(j)] || row.s[static_cast<std::size_t>(j)] == -kInff)
            REQUIRE(got == 0.0f);  // structural zero, exactly
        else
            REQUIRE_THAT(got, Near(want[static_cast<std::size_t>(j)], 1e-7, 1e-5));
    }
    CHECK(m.visible == w.visible);
    CHECK(m.empty == w.empty);
    // Every metric of the table (the support's ties are checked below).
    for (const attn::RowMetricInfo& info : attn::kRowMetrics) {
        if (std::string(info.key) == "support") continue;
        INFO(info.key);
        if (w.empty && info.undefined_when_empty)
            CHECK(std::isnan(info.get(m)) == std::isnan(info.get(w)));
        else
            CHECK_THAT(info.get(m), Near(info.get(w)));
    }
    if (w.empty) {
        CHECK(m.support == 0);
    } else {
        std::vector<double> p(want.begin(), want.begin() + n);
        INFO("support " << m.support << " vs reference " << w.support);
        CHECK(support_ok(m.support, w.support, p, w.visible, (1.0 - rp.delta) * w.row_sum));
    }
}

}  // namespace

TEST_CASE("kernel sets: scalar first, best last, names unique, select()", "[kernels][dispatch]") {
    const auto sets = attn::kernels::available();
    REQUIRE(!sets.empty());
    CHECK(sets.front() == &attn::kernels::scalar());
    CHECK(&attn::kernels::active() == sets.back());
    std::set<std::string> names;
    for (const KernelSet* s : sets) {
        CHECK(names.insert(s->name).second);
        CHECK(s->scores_qk != nullptr);
        CHECK(s->softmax_row != nullptr);
        CHECK(s->weighted_sum != nullptr);
        const RowBench* b = attn::kernels::bench_for(*s);
        REQUIRE(b != nullptr);
        CHECK(std::string(b->name) == s->name);
    }
    CHECK(attn::kernels::bench_available().size() == sets.size());
#if defined(__wasm_simd128__)
    CHECK(std::string(sets.back()->name) == "wasm-simd128");
#elif defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    std::vector<std::string> want{"scalar"};
    if (__builtin_cpu_supports("sse4.1")) want.push_back("sse4.1");
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) want.push_back("avx2");
    std::vector<std::string> got;
    for (const KernelSet* s : sets) got.push_back(s->name);
    CHECK(got == want);
#endif
    const std::string best = sets.back()->name;
    {
        // The active set is the process's: every later case of the one-binary run computes with
        // it, so it goes back to the best one however this block ends.
        struct Restore {
            std::string name;
            ~Restore() { attn::kernels::select(name); }
        } restore{attn::kernels::active().name};
        CHECK(attn::kernels::select("scalar"));
        CHECK(std::string(attn::kernels::active().name) == "scalar");
        CHECK_FALSE(attn::kernels::select("no-such-set"));
    }
    CHECK(std::string(attn::kernels::active().name) == best);
    CHECK(attn::kernels::select(best));
    CHECK(std::string(attn::kernels::active().name) == best);
}

TEST_CASE("softmax_row of every set matches the scalar reference over vector-width lengths",
          "[kernels][softmax][sweep]") {
    const MaskKind kinds[] = {MaskKind::all,        MaskKind::dense,        MaskKind::sparse,
                              MaskKind::first_only, MaskKind::with_neg_inf, MaskKind::none};
    const double taus[] = {1.0, 0.5, 3.0};
    const int top_ks[] = {1, 2, 5, 20};
    const double deltas[] = {0.1, 0.5, 0.0, 0.9};
    for (const KernelSet* set : attn::kernels::available()) {
        std::mt19937 rng(20261130u);
        int variant = 0;
        for (int n : kLengths)
            for (MaskKind kind : kinds) {
                const Row row = make_row(n, kind, rng);
                RowParams rp;
                rp.tau = taus[variant % 3];
                rp.top_k = top_ks[variant % 4];
                rp.sink_keys = 1 + variant % 3;
                rp.delta = deltas[variant % 4];
                ++variant;
                INFO(set->name << ": n = " << n << ", mask kind " << static_cast<int>(kind) << ", tau " << rp.tau
                               << ", k " << rp.top_k << ", delta " << rp.delta);
                check_row_against_reference(*set, row, n, rp);
            }
    }
}

TEST_CASE("softmax_row without visible flags (nullptr) gives the bits of an array of ones", "[kernels][softmax]") {
    // The pipeline passes nullptr for a row whose keys are all visible with finite scores
    // (stream.cpp): the weights and every metric must be exactly those of the flagged call.
    const double taus[] = {1.0, 0.37, 4.0, 1e-3};
    for (const KernelSet* set : attn::kernels::available()) {
        std::mt19937 rng(20261204u);
        int variant = 0;
        for (int n : kLengths) {
            for (double tau : taus) {
                const Row row = make_row(n, MaskKind::all, rng);
                RowParams rp;
                rp.tau = tau;
                rp.top_k = 1 + variant % 9;
                rp.sink_keys = variant % 3;
                rp.delta = variant % 2 ? 0.1 : 0.5;
                ++variant;
                INFO(set->name << ": n = " << n << ", tau " << tau << ", k " << rp.top_k);
                std::vector<float> a(static_cast<std::size_t>(n + kPad), kSentinel);
                std::vector<float> b(static_cast<std::size_t>(n + kPad), kSentinel);
                RowMetrics ma, mb;
                attn::kernels::reset_row_hints();
                set->softmax_row(row.s.data(), row.vis.data(), n, rp, a.data(), ma);
                attn::kernels::reset_row_hints();
                set->softmax_row(row.s.data(), nullptr, n, rp, b.data(), mb);
                REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);  // sentinels too
                CHECK(mb.visible == n);
                CHECK(ma.visible == mb.visible);
                CHECK(ma.empty == mb.empty);
                // Every metric of the table, bit for bit.
                for (const attn::RowMetricInfo& info : attn::kRowMetrics) {
                    INFO(info.key);
                    const double ga = info.get(ma), gb = info.get(mb);
                    CHECK(std::memcmp(&ga, &gb, sizeof(double)) == 0);
                }
            }
        }
    }
}

TEST_CASE("top-k mass and support match the reference on ties, flat and heavy-tailed rows",
          "[kernels][softmax][support]") {
    // The SIMD sets find the largest weights through a histogram of their float bits and an exact
    // selection inside one boundary bucket: stress that with ties (quantised logits), flat rows
    // (one bucket), wide ranges, masks, delta 0 and k beyond |Omega_t|.
    std::mt19937 rng(424242u);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (const KernelSet* set : simd_sets())
        for (int trial = 0; trial < 400; ++trial) {
            const int n = 1 + static_cast<int>(u(rng) * (trial % 4 == 0 ? 2000.0f : 200.0f));
            Row row;
            row.s.assign(static_cast<std::size_t>(n + kPad), kNaNf);
            row.vis.assign(static_cast<std::size_t>(n + kPad), 1);
            const int kind = trial % 5;
            for (int j = 0; j < n; ++j) {
                float x = 0.0f;
                switch (kind) {
                    case 0:
                        x = std::round(u(rng) * 4.0f);
                        break;  // many ties
                    case 1:
                        x = 0.0f;
                        break;  // flat
                    case 2:
                        x = u(rng) * 1e-4f;
                        break;  // nearly flat
                    case 3:
                        x = (u(rng) - 0.5f) * 80.0f;
                        break;  // wide range
                    default:
                        x = std::log(u(rng) + 1e-6f) * 3.0f;
                        break;  // heavy tail
                }
                row.s[static_cast<std::size_t>(j)] = x;
                if (trial % 3 == 0 && u(rng) < 0.3f) row.vis[static_cast<std::size_t>(j)] = 0;
            }
            RowParams rp;
            rp.top_k = 1 + static_cast<int>(u(rng) * (trial % 2 ? 8.0f : n + 2.0f));
            rp.delta = trial % 7 == 0 ? 0.0 : static_cast<double>(u(rng)) * 0.999;
            rp.sink_keys = trial % 4;
            INFO(set->name << ": trial " << trial << ", n " << n << ", kind " << kind << ", k " << rp.top_k
                           << ", delta " << rp.delta);
            check_row_against_reference(*set, row, n, rp);
        }
}

TEST_CASE("softmax_row golden row [.1 .2 .3 .4 .5] in every set", "[kernels][softmax][golden]") {
    // exp(z_i) / sum exp(z), computed in double independently of the code.
    const double want[] = {0.1621203, 0.1791707, 0.1980142, 0.2188396, 0.2418551};
    const float s[5 + kPad] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f};
    std::vector<std::uint8_t> vis(5 + kPad, 1);
    for (const KernelSet* set : attn::kernels::available()) {
        INFO(set->name);
        float a[5];
        RowMetrics m;
        set->softmax_row(s, vis.data(), 5, RowParams{}, a, m);
        for (int j = 0; j < 5; ++j) CHECK_THAT(a[j], Near(want[j], 1e-7, 1e-6));
        double h = 0.0;
        for (double p : want) h -= p * std::log(p);
        CHECK_THAT(m.entropy, Near(h, 1e-6, 1e-5));  // want[] has 7 digits
        CHECK_THAT(m.row_sum, Near(1.0));
        CHECK_THAT(m.max_weight, Near(want[4], 1e-7, 1e-6));  // the largest weight
        CHECK(m.visible == 5);
    }
}

TEST_CASE("max weight on every kernel path: golden rows and the largest weight of long rows", "[kernels][max_weight]") {
    // MATH.md's worked example 1: logits [1, 0] give e / (e + 1) = 0.7310585786 on key 0.
    std::vector<std::uint8_t> vis(64 + kPad, 1);
    std::mt19937 rng(7);
    std::normal_distribution<float> z(0.0f, 2.0f);
    for (const KernelSet* set : attn::kernels::available()) {
        INFO(set->name);
        const float two[2 + kPad] = {1.0f, 0.0f};
        float a2[2];
        RowMetrics m;
        set->softmax_row(two, vis.data(), 2, RowParams{}, a2, m);
        CHECK_THAT(m.max_weight, Near(0.7310585786, 1e-7, 1e-6));
        // A flat row of 37 keys: 1/37. The selection path (top_k <= 8, n >= 32) and the histogram
        // path (top_k 12) both give it.
        std::vector<float> flat(37 + kPad, 0.25f), a(64);
        for (int k : {2, 12}) {
            RowParams rp;
            rp.top_k = k;
            set->softmax_row(flat.data(), vis.data(), 37, rp, a.data(), m);
            CHECK_THAT(m.max_weight, Near(1.0 / 37, 1e-7, 1e-6));
            // A random row of 64 keys with the last 9 masked: the largest visible weight.
            std::vector<float> s(64 + kPad);
            for (float& x : s) x = z(rng);
            std::vector<std::uint8_t> v(64 + kPad, 1);
            for (int j = 55; j < 64; ++j) v[static_cast<std::size_t>(j)] = 0;
            set->softmax_row(s.data(), v.data(), 64, rp, a.data(), m);
            double zsum = 0, zmax = -1e300;
            for (int j = 0; j < 55; ++j) {
                zsum += std::exp(static_cast<double>(s[static_cast<std::size_t>(j)]));
                zmax = std::max(zmax, static_cast<double>(s[static_cast<std::size_t>(j)]));
            }
            CHECK_THAT(m.max_weight, Near(std::exp(zmax) / zsum, 1e-7, 1e-5));
        }
    }
}

TEST_CASE("rows shorter than any vector give the double reference exactly", "[kernels][softmax]") {
    // MATH.md's seed example 1 (logits 1, 0): its golden H = 0.5822031089 is checked to 1e-9 by
    // the node tests, finer than float32 arithmetic gives.
    const float s[2 + kPad] = {1.0f, 0.0f};
    std::vector<std::uint8_t> vis(2 + kPad, 1);
    for (const KernelSet* set : attn::kernels::available()) {
        INFO(set->name);
        float a[2];
        RowMetrics m;
        set->softmax_row(s, vis.data(), 2, RowParams{}, a, m);
        CHECK_THAT(m.entropy, Near(0.5822031089, 1e-10, 0.0));
        CHECK_THAT(a[0], Near(0.7310585786, 1e-7, 0.0));
    }
}

TEST_CASE("entropy of 4096-wide rows within 1e-6 relative of a double reference", "[kernels][softmax][accuracy]") {
    const int n = 4096;
    std::vector<std::uint8_t> vis(static_cast<std::size_t>(n), 1);
    for (const KernelSet* set : attn::kernels::available()) {
        const RowBench* bench = attn::kernels::bench_for(*set);
        std::mt19937 rng(7u);
        for (int trial = 0; trial < 6; ++trial) {
            std::vector<float> s(static_cast<std::size_t>(n));
            if (trial < 2) {
                std::uniform_real_distribution<float> d(-5.0f, 5.0f);
                for (float& x : s) x = d(rng);
            } else {
                std::normal_distribution<float> d(0.0f, trial < 4 ? 1.0f : 4.0f);
                for (float& x : s) x = d(rng);
            }
            const double tau = trial % 2 ? 0.7 : 1.0;
            std::vector<double> p;
            const double h = softmax_ref(s.data(), vis.data(), n, tau, p);
            INFO(set->name << ", trial " << trial << ", H = " << h);
            std::vector<float> a(static_cast<std::size_t>(n));
            RowMetrics m;
            RowParams rp;
            rp.tau = tau;
            set->softmax_row(s.data(), vis.data(), n, rp, a.data(), m);
            CHECK(std::fabs(m.entropy - h) <= 1e-6 * h);
            // The bench kernel (all visible) of the same set: same bound.
            float hb = 0.0f;
            bench->softmax_entropy(s.data(), a.data(), &hb, 1, n, static_cast<float>(tau));
            CHECK(std::fabs(double(hb) - h) <= 1e-6 * h + 0.5 * 1.2e-7 * h);  // + float rounding
        }
    }
}

TEST_CASE("a peaked row keeps its small entropy", "[kernels][softmax][accuracy]") {
    // One key far above the rest: H is small, so absolute errors show up as large relative ones.
    for (int n : {5, 257, 4099}) {
        std::vector<float> s(static_cast<std::size_t>(n + kPad), kNaNf);
        std::vector<std::uint8_t> vis(static_cast<std::size_t>(n + kPad), 1);
        std::mt19937 rng(11u);
        std::normal_distribution<float> d(0.0f, 1.0f);
        for (int j = 0; j < n; ++j) s[j] = d(rng);
        s[static_cast<std::size_t>(n / 2)] = 14.0f;
        std::vector<double> p;
        const double h = softmax_ref(s.data(), vis.data(), n, 1.0, p);
        for (const KernelSet* set : attn::kernels::available()) {
            INFO(set->name << ", n = " << n << ", H = " << h);
            std::vector<float> a(static_cast<std::size_t>(n));
            RowMetrics m;
            set->softmax_row(s.data(), vis.data(), n, RowParams{}, a.data(), m);
            CHECK_THAT(m.entropy, Near(h, 2e-7, 1e-4));
            std::vector<double> sorted(p);
            std::sort(sorted.begin(), sorted.end(), std::greater<double>());
            CHECK_THAT(m.top_k_mass, Near(sorted[0] + (n > 1 ? sorted[1] : 0.0)));
            CHECK_THAT(m.sink_mass, Near(p[0]));
        }
    }
}

TEST_CASE("masked NaN and Inf never leak, in any set", "[kernels][softmax][nonfinite]") {
    for (const KernelSet* set : attn::kernels::available())
        for (int n : kLengths)
            for (float garbage : {kNaNf, kInff, -kInff}) {
                INFO(set->name << ": n = " << n << ", garbage " << garbage);
                // One visible key in the middle; every other key masked and holding garbage.
                std::vector<float> s(static_cast<std::size_t>(n + kPad), garbage);
                std::vector<std::uint8_t> vis(static_cast<std::size_t>(n + kPad), 0);
                const int k = n / 2;
                s[static_cast<std::size_t>(k)] = -3.0f;
                vis[static_cast<std::size_t>(k)] = 1;
                std::vector<float> a(static_cast<std::size_t>(n));
                RowMetrics m;
                set->softmax_row(s.data(), vis.data(), n, RowParams{}, a.data(), m);
                for (int j = 0; j < n; ++j) CHECK(a[static_cast<std::size_t>(j)] == (j == k ? 1.0f : 0.0f));
                CHECK(m.visible == 1);
                CHECK(m.entropy == 0.0);
                CHECK(m.normalized_entropy == 0.0);
                CHECK_THAT(m.n_eff, Near(1.0));
                CHECK_THAT(m.top_k_mass, Near(1.0));
                CHECK(m.support == 1);
                CHECK_THAT(m.sink_mass, Near(k == 0 ? 1.0 : 0.0));
            }
}

TEST_CASE("empty rows: all masked or all -inf", "[kernels][softmax][empty]") {
    for (const KernelSet* set : attn::kernels::available())
        for (int n : {0, 1, 4, 5, 17, 257}) {
            for (int variant = 0; variant < 2; ++variant) {
                INFO(set->name << ": n = " << n << (variant ? ", all -inf" : ", all masked"));
                std::vector<float> s(static_cast<std::size_t>(n + kPad), variant ? -kInff : kNaNf);
                std::vector<std::uint8_t> vis(static_cast<std::size_t>(n + kPad), variant ? 1 : 0);
                std::vector<float> a(static_cast<std::size_t>(n + kPad), kSentinel);
                RowMetrics m;
                set->softmax_row(s.data(), vis.data(), n, RowParams{}, a.data(), m);
                CHECK(m.empty);
                CHECK(m.visible == 0);
                CHECK(m.support == 0);
                // Every metric as the table's empty column says: NaN for an undefined double.
                for (const attn::RowMetricInfo& info : attn::kRowMetrics) {
                    INFO(info.key);
                    if (info.undefined_when_empty && !info.integer)
                        CHECK(std::isnan(info.get(m)));
                    else
                        CHECK(info.get(m) == 0.0);
                }
                for (int j = 0; j < n; ++j) CHECK(a[static_cast<std::size_t>(j)] == 0.0f);
                CHECK(a[static_cast<std::size_t>(n)] == kSentinel);
            }
        }
}

TEST_CASE("scores_qk of every set matches the scalar reference", "[kernels][scores]") {
    std::mt19937 rng(99u);
    std::normal_distribution<float> d(0.0f, 1.0f);
    for (const KernelSet* set : simd_sets())
        for (int d_k : {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33, 64, 65})
            for (int n_k : {1, 3, 4, 5, 7, 8, 15, 16, 17, 33, 257}) {
                const int n_q = 1 + (n_k + d_k) % 5;
                INFO(set->name << ": n_q " << n_q << ", n_k " << n_k << ", d " << d_k);
                std::vector<float> q(static_cast<std::size_t>(n_q * d_k + kPad), kNaNf);
                std::vector<float> k(static_cast<std::size_t>(n_k * d_k + kPad), kNaNf);
                for (int i = 0; i < n_q * d_k; ++i) q[static_cast<std::size_t>(i)] = d(rng);
                for (int i = 0; i < n_k * d_k; ++i) k[static_cast<std::size_t>(i)] = d(rng);
                const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
                std::vector<float> got(static_cast<std::size_t>(n_q * n_k + kPad), kSentinel);
                std::vector<float> want(static_cast<std::size_t>(n_q * n_k));
                set->scores_qk(q.data(), k.data(), n_q, n_k, d_k, scale, got.data());
                attn::kernels::scalar().scores_qk(q.data(), k.data(), n_q, n_k, d_k, scale, want.data());
                for (int i = 0; i < n_q; ++i)
                    for (int j = 0; j < n_k; ++j) {
                        double mag = 0.0;  // sum |q_c k_c|: the scale of float rounding
                        for (int c = 0; c < d_k; ++c) mag += std::fabs(double(q[i * d_k + c]) * k[j * d_k + c]);
                        const std::size_t idx = static_cast<std::size_t>(i) * n_k + j;
                        INFO("i " << i << " j " << j);
                        CHECK(std::fabs(double(got[idx]) - want[idx]) <= 1e-6 * mag * scale + 1e-7);
                    }
                CHECK(got[static_cast<std::size_t>(n_q * n_k)] == kSentinel);
            }
}

TEST_CASE("weighted_sum of every set matches the scalar reference, zero weights skipped", "[kernels][weighted_sum]") {
    std::mt19937 rng(5u);
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (const KernelSet* set : simd_sets())
        for (int d_v : {1, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 64, 65})
            for (int n_k : {1, 3, 5, 16, 17, 257, 1030}) {
                const int n_q = 1 + (n_k + d_v) % 4;
                INFO(set->name << ": n_q " << n_q << ", n_k " << n_k << ", d_v " << d_v);
                std::vector<float> a(static_cast<std::size_t>(n_q * n_k + kPad), kNaNf);
                std::vector<float> v(static_cast<std::size_t>(n_k * d_v + kPad), kNaNf);
                // Key j is masked for every query when j % 3 == 1: zero weight and a NaN value row.
                for (int i = 0; i < n_q; ++i)
                    for (int j = 0; j < n_k; ++j)
                        a[static_cast<std::size_t>(i * n_k + j)] = j % 3 == 1 ? 0.0f : u(rng) / n_k;
                for (int j = 0; j < n_k; ++j)
                    for (int c = 0; c < d_v; ++c)
                        v[static_cast<std::size_t>(j * d_v + c)] = j % 3 == 1 ? kNaNf : d(rng);
                std::vector<float> got(static_cast<std::size_t>(n_q * d_v + kPad), kSentinel);
                std::vector<float> want(static_cast<std::size_t>(n_q * d_v));
                set->weighted_sum(a.data(), v.data(), n_q, n_k, d_v, got.data());
                attn::kernels::scalar().weighted_sum(a.data(), v.data(), n_q, n_k, d_v, want.data());
                for (int i = 0; i < n_q; ++i)
                    for (int c = 0; c < d_v; ++c) {
                        double mag = 0.0;
                        for (int j = 0; j < n_k; ++j)
                            if (j % 3 != 1) mag += std::fabs(double(a[i * n_k + j]) * v[j * d_v + c]);
                        const std::size_t idx = static_cast<std::size_t>(i) * d_v + c;
                        INFO("i " << i << " c " << c);
                        REQUIRE(std::isfinite(got[idx]));
                        CHECK(std::fabs(double(got[idx]) - want[idx]) <= 1e-6 * mag + 1e-7);
                    }
                CHECK(got[static_cast<std::size_t>(n_q * d_v)] == kSentinel);
            }
}

TEST_CASE("weighted_sum: per-query zero patterns, NaN value rows only where the weight is 0",
          "[kernels][weighted_sum]") {
    // Queries of one block see different keys (the blocked AVX2 path must add a key to some
    // queries and not to others). Value rows of keys that no query sees are NaN; value rows that
    // only some queries see are NaN too: those queries' outputs are NaN, the others' stay finite.
    std::mt19937 rng(17u);
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (const KernelSet* set : simd_sets())
        for (int n_q : {4, 5, 8, 9})
            for (int d_v : {8, 16, 17, 24, 40})
                for (int n_k : {7, 64, 300}) {
                    INFO(set->name << ": n_q " << n_q << ", n_k " << n_k << ", d_v " << d_v);
                    std::vector<float> a(static_cast<std::size_t>(n_q * n_k));
                    std::vector<float> v(static_cast<std::size_t>(n_k * d_v));
                    for (float& x : a) x = u(rng) < 0.4f ? 0.0f : u(rng);
                    for (int j = 0; j < n_k; ++j) {
                        bool seen = false;
                        for (int i = 0; i < n_q; ++i) seen = seen || a[static_cast<std::size_t>(i * n_k + j)] != 0.0f;
                        const bool nan_row = !seen || (j % 23 == 5);
                        for (int c = 0; c < d_v; ++c)
                            v[static_cast<std::size_t>(j * d_v + c)] = nan_row ? kNaNf : d(rng);
                    }
                    std::vector<float> got(static_cast<std::size_t>(n_q * d_v)), want(got.size());
                    set->weighted_sum(a.data(), v.data(), n_q, n_k, d_v, got.data());
                    attn::kernels::scalar().weighted_sum(a.data(), v.data(), n_q, n_k, d_v, want.data());
                    for (std::size_t i = 0; i < got.size(); ++i) {
                        INFO("index " << i);
                        CHECK(std::isnan(got[i]) == std::isnan(want[i]));
                        if (!std::isnan(want[i])) CHECK_THAT(got[i], Near(want[i], 1e-5, 1e-5));
                    }
                }
}

TEST_CASE("bench kernels of every set: softmax + entropy against double", "[kernels][bench]") {
    std::mt19937 rng(3u);
    std::normal_distribution<float> d(0.0f, 3.0f);
    for (const RowBench* b : attn::kernels::bench_available())
        for (int n : kLengths) {
            const int rows = 3;
            INFO(b->name << ": n = " << n);
            std::vector<float> in(static_cast<std::size_t>(rows * n + kPad), kNaNf);
            for (int i = 0; i < rows * n; ++i) in[static_cast<std::size_t>(i)] = d(rng);
            std::vector<float> out(static_cast<std::size_t>(rows * n + kPad), kSentinel);
            std::vector<float> out2(static_cast<std::size_t>(rows * n + kPad), kSentinel);
            std::vector<float> ent(static_cast<std::size_t>(rows + 1), kSentinel);
            const float tau = n % 2 ? 1.0f : 0.6f;
            b->softmax_entropy(in.data(), out.data(), ent.data(), rows, n, tau);
            b->softmax(in.data(), out2.data(), rows, n, tau);
            std::vector<std::uint8_t> vis(static_cast<std::size_t>(n), 1);
            for (int r = 0; r < rows; ++r) {
                std::vector<double> p;
                const double h = softmax_ref(in.data() + r * n, vis.data(), n, tau, p);
                CHECK_THAT(ent[static_cast<std::size_t>(r)], Near(h, 1e-6, 1e-6));
                for (int j = 0; j < n; ++j) {
                    const std::size_t idx = static_cast<std::size_t>(r) * n + j;
                    REQUIRE_THAT(out[idx], Near(p[static_cast<std::size_t>(j)], 1e-7, 1e-5));
                    REQUIRE(out2[idx] == out[idx]);
                }
            }
            CHECK(out[static_cast<std::size_t>(rows * n)] == kSentinel);
            CHECK(out2[static_cast<std::size_t>(rows * n)] == kSentinel);
            CHECK(ent[static_cast<std::size_t>(rows)] == kSentinel);
        }
}

TEST_CASE("vector exp of every set: relative error on [-87, 0]", "[kernels][exp]") {
    // Every 97th float in [-87, 0] plus the whole of [-1, 0] at a coarser step: ~10^7 points.
    std::vector<float> x;
    for (float v = -87.0f; v < 0.0f;) {
        x.push_back(v);
        std::uint32_t bits;
        std::memcpy(&bits, &v, 4);
        bits = bits > 97u ? bits - 97u : 0u;  // toward zero
        std::memcpy(&v, &bits, 4);
        if (bits == 0u) break;
        if (x.size() > 12000000) break;
    }
    x.push_back(0.0f);
    x.push_back(-0.0f);
    x.push_back(-87.0f);
    x.push_back(-88.0f);
    x.push_back(-1000.0f);
    std::vector<float> y(x.size());
    for (const RowBench* b : attn::kernels::bench_available()) {
        b->exp_nonpositive(x.data(), y.data(), static_cast<int>(x.size()));
        double worst = 0.0;
        float worst_x = 0.0f;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (x[i] < -87.0f) {
                CHECK(y[i] == 0.0f);
                continue;
            }
            const double want = std::exp(double(x[i]));
            const double rel = std::fabs(y[i] - want) / want;
            if (want >= 1.2e-38 && rel > worst) {  // relative error of normal results only
                worst = rel;
                worst_x = x[i];
            }
        }
        INFO(b->name << ": max relative error " << worst << " at x = " << worst_x << " (" << x.size() << " points)");
        CHECK(worst < 2.5e-7);
        CHECK(y[x.size() - 5] == 1.0f);  // exp(0) exactly
        WARN(b->name << " exp: max relative error " << worst << " at x = " << worst_x);
    }
}
