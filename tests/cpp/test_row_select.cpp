// rowsel:: quickselect order statistics against the obvious sort-based definitions, with ties,
// zeros and tiny rows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include "attn/row_select.hpp"

namespace {

/// The definition: walk the sorted row until the mass reaches need (same relative slack as the
/// implementation, since sums in different orders differ in their last bits); zeros never count.
int support_by_sort(std::vector<double> p, double need) {
    std::sort(p.begin(), p.end(), std::greater<double>());
    need *= 1.0 - attn::rowsel::kSupportSlack;
    double acc = 0;
    int n = 0;
    while (n < static_cast<int>(p.size()) && acc < need && p[static_cast<std::size_t>(n)] > 0)
        acc += p[static_cast<std::size_t>(n++)];
    return n;
}

}  // namespace

TEST_CASE("support_size and top_k_mass equal their sort-based definitions", "[rowsel]") {
    std::mt19937 rng(23);
    std::uniform_real_distribution<double> u(0, 1);
    for (int trial = 0; trial < 3000; ++trial) {
        const int n = 1 + static_cast<int>(rng() % 70);
        std::vector<double> p(static_cast<std::size_t>(n));
        const int levels = 1 + static_cast<int>(rng() % 5);  // few levels = many ties
        for (double& x : p) x = trial % 2 ? std::floor(u(rng) * levels) / levels : u(rng);
        double sum = 0;
        for (double x : p) sum += x;
        const double delta = std::vector<double>{0.0, 0.05, 0.1, 0.5, 0.9}[rng() % 5];
        const double need = (1 - delta) * sum;
        const int k = 1 + static_cast<int>(rng() % (n + 2));
        std::vector<double> sorted = p;
        std::sort(sorted.begin(), sorted.end(), std::greater<double>());
        double want_topk = 0;
        for (int i = 0; i < std::min(k, n); ++i) want_topk += sorted[static_cast<std::size_t>(i)];
        std::vector<double> a = p, b = p;
        INFO("trial " << trial << " n " << n << " delta " << delta);
        CHECK(attn::rowsel::support_size(a, need) == support_by_sort(p, need));
        CHECK(attn::rowsel::top_k_mass(b, k) == Approx(want_topk).margin(1e-12));
    }
}

TEST_CASE("support_size of hand-made rows", "[rowsel]") {
    std::vector<double> row{0.5, 0.25, 0.25};
    CHECK(attn::rowsel::support_size(row, 0.9) == 3);
    row = {0.25, 0.5, 0.25};
    CHECK(attn::rowsel::support_size(row, 0.7) == 2);
    row = {1.0};
    CHECK(attn::rowsel::support_size(row, 0.9) == 1);
    row = {0.2, 0.2, 0.2, 0.2, 0.2};  // all tied: 0.9 needs 5 (4 give 0.8)
    CHECK(attn::rowsel::support_size(row, 0.9) == 5);
    row = {0.2, 0.2, 0.2, 0.2, 0.2};
    CHECK(attn::rowsel::support_size(row, 0.8) == 4);
}
