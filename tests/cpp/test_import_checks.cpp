// The checks that run by themselves (analysis.hpp, docs/import.md "Checks that run by
// themselves"): the causal structure of a head detected from its values, |Omega_t| = t + 1 for a
// causal head whatever underflowed to 0, the finite mask fills of logits, the file's structure and
// its flagged heads, TransformerLens's head-detector scores, two runs compared, layer numbers.
// Expected values are computed here in double from the same numbers, by hand or by the definition
// written out (never read back from the code under test).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "approx.hpp"
#include "attn/analysis.hpp"
#include "attn/error.hpp"

using attn_test::Near;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

/// A causal n x n head: row t holds positive weights on keys 0..t, some of them exactly 0 (as a
/// float16 export underflows them), renormalised in double then rounded to float32.
std::vector<float> causal_with_zeros(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<float> a(static_cast<std::size_t>(n) * n, 0.0f);
    for (int t = 0; t < n; ++t) {
        std::vector<double> w(static_cast<std::size_t>(t) + 1);
        double sum = 0;
        for (int j = 0; j <= t; ++j) {
            w[j] = (j > 0 && j % 3 == 1) ? 0.0 : std::exp(4 * u(rng));  // every third key underflowed
            sum += w[j];
        }
        for (int j = 0; j <= t; ++j) a[static_cast<std::size_t>(t) * n + j] = static_cast<float>(w[j] / sum);
    }
    return a;
}

/// H / ln(t + 1) of each row, computed in double from the float32 values (renormalised).
std::vector<double> causal_hn(const std::vector<float>& a, int n) {
    std::vector<double> out(static_cast<std::size_t>(n));
    for (int t = 0; t < n; ++t) {
        double sum = 0;
        for (int j = 0; j < n; ++j) sum += a[static_cast<std::size_t>(t) * n + j];
        double h = 0;
        for (int j = 0; j < n; ++j) {
            const double p = a[static_cast<std::size_t>(t) * n + j] / sum;
            if (p > 0) h -= p * std::log(p);
        }
        out[t] = t == 0 ? 0.0 : h / std::log(static_cast<double>(t) + 1);
    }
    return out;
}

}  // namespace

TEST_CASE("causal structure: zeros under the diagonal of a causal head stay visible keys", "[import][checks]") {
    const int n = 17;
    const std::vector<float> a = causal_with_zeros(n, 7);
    attn::AnalyzeOptions o;
    const attn::HeadAnalysis r = attn::analyze_head(a.data(), n, n, o);
    REQUIRE(r.computed);
    CHECK(r.causal_structure);
    CHECK(r.causal_visibility);
    CHECK(r.above_diagonal_mass == 0.0);
    const std::vector<double> want = causal_hn(a, n);
    double mean = 0;
    for (int t = 0; t < n; ++t) {
        CHECK(r.rows[t].visible == t + 1);
        CHECK_THAT(r.rows[t].normalized_entropy, Near(want[t]));
        mean += want[t];
    }
    CHECK_THAT(r.summary.mean_normalized_entropy, Near(mean / n));
    // The thumbnail shows a zero under the diagonal as 0 (visible), above it as not visible.
    attn::AnalyzeOptions full = o;
    full.thumbnail = n;
    const attn::HeadAnalysis th = attn::analyze_head(a.data(), n, n, full);
    CHECK(th.thumbnail(5, 4) == 0.0f);  // key 4 = 3 * 1 + 1: underflowed
    CHECK(std::isnan(th.thumbnail(5, 6)));

    // Turned off: the zeros are not visible (the core's weights mode), |Omega_t| shrinks.
    attn::AnalyzeOptions off = o;
    off.causal_from_structure = false;
    const attn::HeadAnalysis z = attn::analyze_head(a.data(), n, n, off);
    CHECK_FALSE(z.causal_visibility);
    CHECK(z.rows[4].visible == 3);  // keys 0, 2, 3 of 0..4: keys 1 and 4 underflowed
}

TEST_CASE("causal structure: a head with weight above the diagonal is not causal, its mass is said",
          "[import][checks]") {
    const int n = 4;
    // Row t: 0.5 on the diagonal key, the rest spread; row 1 puts 0.2 on key 2 (above).
    const std::vector<float> a = {1.0f, 0, 0, 0, 0.3f, 0.5f, 0.2f, 0, 0.2f, 0.3f, 0.5f, 0, 0.25f, 0.25f, 0.25f, 0.25f};
    const attn::HeadAnalysis r = attn::analyze_head(a.data(), n, n, attn::AnalyzeOptions{});
    CHECK_FALSE(r.causal_structure);
    CHECK_FALSE(r.causal_visibility);
    CHECK(r.check.above_diagonal_open == 1);
    CHECK_THAT(r.above_diagonal_mass, Near(0.2 / 4));
}

TEST_CASE("finite mask fills of logits count as masked keys, like -inf", "[import][checks]") {
    const int n = 9;
    std::mt19937 rng(3);
    std::normal_distribution<float> g(0, 2);
    std::vector<float> base(static_cast<std::size_t>(n) * n);
    for (auto& x : base) x = g(rng);
    auto filled = [&](float fill) {
        std::vector<float> v = base;
        for (int t = 0; t < n; ++t)
            for (int j = t + 1; j < n; ++j) v[static_cast<std::size_t>(t) * n + j] = fill;
        return v;
    };
    attn::AnalyzeOptions o;
    o.reading = attn::Reading::logits;
    const std::vector<float> inf = filled(-kInf);
    const attn::HeadAnalysis ref = attn::analyze_head(inf.data(), n, n, o);
    CHECK(ref.check.neg_inf == n * (n - 1) / 2);
    CHECK(ref.causal_structure);
    for (float fill : {-1e4f, -1e9f, -65504.0f, -3.4e38f}) {
        INFO("fill " << fill);
        const std::vector<float> v = filled(fill);
        CHECK(attn::is_mask_fill(fill));
        const attn::HeadAnalysis r = attn::analyze_head(v.data(), n, n, o);
        CHECK(r.check.fill == n * (n - 1) / 2);
        CHECK(r.check.finite_fill == n * (n - 1) / 2);
        CHECK(r.check.neg_inf == 0);
        CHECK(r.causal_structure);
        for (int t = 0; t < n; ++t) CHECK(r.rows[t].visible == t + 1);
        CHECK(r.summary.mean_normalized_entropy == ref.summary.mean_normalized_entropy);
        CHECK(r.summary.mean_entropy == ref.summary.mean_entropy);
    }
    CHECK_FALSE(attn::is_mask_fill(-9999.0f));
    CHECK_FALSE(attn::is_mask_fill(-1e5f));
}

TEST_CASE("a file's structure: causal, mixed with flagged heads sorted by mass, bidirectional", "[import][checks]") {
    auto head = [](int layer, int h, bool causal, double mass) {
        attn::StructureHead s;
        s.layer = layer;
        s.head = h;
        s.computed = true;
        s.causal_structure = causal;
        s.above_diagonal_mass = mass;
        return s;
    };
    std::vector<attn::StructureHead> heads = {head(0, 0, true, 0), head(0, 1, false, 0.0007),
                                              head(0, 2, true, 0), head(1, 0, false, 0.57),
                                              head(1, 1, true, 0), head(1, 2, false, 0.02)};
    const attn::StructureSummary mixed = attn::summarize_structure(heads, false, attn::Reading::weights);
    CHECK(mixed.structure == "bidirectional");  // 3 of 6 causal: not more than half
    heads.push_back(head(2, 0, true, 0));
    const attn::StructureSummary m2 = attn::summarize_structure(heads, false, attn::Reading::weights);
    CHECK(m2.structure == "mixed");
    REQUIRE(m2.flagged.size() == 3);
    CHECK(m2.flagged[0].layer == 1);
    CHECK(m2.flagged[0].head == 0);
    CHECK(m2.flagged[1].head == 2);
    CHECK(m2.flagged[2].head == 1);
    const attn::StructureSummary stated = attn::summarize_structure(heads, true, attn::Reading::weights);
    CHECK(stated.structure == "causal");
    CHECK(stated.flagged.size() == 3);
    CHECK(attn::summarize_structure(heads, true, attn::Reading::logits).flagged.empty());
    std::vector<attn::StructureHead> all = {head(0, 0, true, 0), head(0, 1, true, 0)};
    const attn::StructureSummary c = attn::summarize_structure(all, false, attn::Reading::weights);
    CHECK(c.structure == "causal");
    CHECK(c.flagged.empty());
}

TEST_CASE("TransformerLens head-detector scores, by hand", "[import][checks]") {
    // A = [[1,0,0],[0.3,0.7,0],[0.2,0.5,0.3]], tokens a b a; sum(A) = 3.
    const std::vector<float> a = {1, 0, 0, 0.3f, 0.7f, 0, 0.2f, 0.5f, 0.3f};
    attn::AnalyzeOptions o;
    o.token_ids = attn::token_ids_of({"a", "b", "a"});
    const attn::HeadAnalysis r = attn::analyze_head(a.data(), 3, 3, o);
    // previous: A[1][0] + A[2][1] (key 0 counts); duplicate: A[2][0] (token 0 == token 2);
    // induction: A[2][1] (token 1-1 = 0 == token 2).
    CHECK_THAT(r.field.previous_token, Near((0.3 + 0.5) / 3));
    CHECK_THAT(r.field.duplicate_token, Near(0.2 / 3));
    CHECK_THAT(r.field.induction, Near(0.5 / 3));
    // Without tokens only the previous-token score; a non-square head has none.
    const attn::HeadAnalysis no = attn::analyze_head(a.data(), 3, 3, attn::AnalyzeOptions{});
    CHECK(std::isnan(no.field.duplicate_token));
    const std::vector<float> cross = {0.5f, 0.5f, 0, 1, 0, 0};
    CHECK(std::isnan(attn::analyze_head(cross.data(), 2, 3, attn::AnalyzeOptions{}).field.previous_token));
}

TEST_CASE("two runs compared: Jensen-Shannon divergence of the rows and the differences", "[import][checks]") {
    // Row 0 identical (JSD 0); row 1 [1, 0] vs [0, 1]: disjoint, JSD = ln 2.
    const std::vector<float> a = {1, 0, 1, 0};
    const std::vector<float> b = {1, 0, 0, 1};
    attn::AnalyzeOptions o;
    o.causal_from_structure = false;
    const attn::HeadComparison c = attn::compare_heads(a.data(), b.data(), 2, 2, o);
    CHECK_THAT(c.max_jsd, Near(std::log(2.0)));
    CHECK(c.max_jsd_row == 1);
    CHECK_THAT(c.mean_jsd, Near(std::log(2.0) / 2));
    CHECK_THAT(c.delta.mean_sink_mass, Near(-0.5));  // sink mass 1 -> 0.5
    // Partial overlap: p = [0.5, 0.5], q = [0.9, 0.1], by the definition.
    const std::vector<float> p = {0.5f, 0.5f}, q = {0.9f, 0.1f};
    const attn::HeadComparison d = attn::compare_heads(p.data(), q.data(), 1, 2, o);
    const double m0 = 0.7, m1 = 0.3;
    const double want = 0.5 * (0.5 * std::log(0.5 / m0) + 0.5 * std::log(0.5 / m1)) +
                        0.5 * (0.9 * std::log(0.9 / m0) + 0.1 * std::log(0.1 / m1));
    CHECK_THAT(d.mean_jsd, Near(want));
    CHECK(c.label_a == attn::head_label(c.a));
}

TEST_CASE("layer numbers: typed lists and the file's labels", "[import][checks]") {
    CHECK(attn::parse_layer_numbers("0,2,4,5", 4) == std::vector<int>{0, 2, 4, 5});
    CHECK(attn::parse_layer_numbers(" 3-5, 9", 4) == std::vector<int>{3, 4, 5, 9});
    CHECK_THROWS_AS(attn::parse_layer_numbers("0,2,4", 4), attn::Error);
    CHECK_THROWS_AS(attn::parse_layer_numbers("0,2,2,5", 4), attn::Error);
    CHECK_THROWS_AS(attn::parse_layer_numbers("0,x,4,5", 4), attn::Error);
    CHECK(attn::layer_numbers_from_labels({"0", "2", "4", "5"}) == std::vector<int>{0, 2, 4, 5});
    CHECK(attn::layer_numbers_from_labels({"blocks.4.attn.hook_pattern", "layer_7"}) == std::vector<int>{4, 7});
    CHECK(attn::layer_numbers_from_labels({"enc", "dec"}).empty());
    CHECK(attn::layer_numbers_from_labels({"L1", "x1"}).empty());  // the same number twice
}
