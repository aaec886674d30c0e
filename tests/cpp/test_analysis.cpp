// Import checks, verdicts and the analysis of one head (analysis.hpp, docs/analysis.md "Import
// checks"). Expected values are hand-computed, computed here in double from the real files, or the
// dense path's (compute(), the same pipeline) where the point is that both paths agree.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "attn/analysis.hpp"
#include "attn/stream.hpp"
#include "fixtures.hpp"

#ifndef ATTN_DATA_DIR
#error "ATTN_DATA_DIR must point at web/data (set by CMakeLists.txt)"
#endif

using attn::Verdict;
using attn_test::Near;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

/// Every head of a bundled real set as an n x n matrix, read with nlohmann::json.
std::vector<attn::Matrix> real_heads(const std::string& set) {
    const std::string path = std::string(ATTN_DATA_DIR) + "/real/" + set + "/attention.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::vector<attn::Matrix> out;
    for (const auto& layer : doc.at("attention"))
        for (const auto& rows : layer) {
            attn::Matrix m(static_cast<int>(rows.size()), static_cast<int>(rows.at(0).size()));
            for (int t = 0; t < m.rows; ++t)
                for (int j = 0; j < m.cols; ++j) m(t, j) = rows.at(t).at(j).get<float>();
            out.push_back(std::move(m));
        }
    return out;
}

const char* const kRealSets[] = {
    "gpt2-small_L0_nlp-sentence",
    "gpt2-small_L5H5_induction_random-repeated",
    "gpt2-small_induction-heads_repeated-sentence",
    "t5-small_encoder_L0_bidirectional",
};

attn::HeadAnalysis analyze(const attn::Matrix& m, attn::Reading reading = attn::Reading::weights, bool causal = false,
                           int thumbnail = 32) {
    attn::AnalyzeOptions o;
    o.reading = reading;
    o.causal = causal;
    o.thumbnail = thumbnail;
    return attn::analyze_head(m.data.data(), m.rows, m.cols, o);
}

attn::HeadCheck check(const attn::Matrix& m) {
    return attn::check_head(m.data.data(), m.rows, m.cols);
}

void require_same_rows(const std::vector<attn::RowMetrics>& got, const std::vector<attn::RowMetrics>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t t = 0; t < got.size(); ++t) {
        INFO("row " << t);
        REQUIRE(got[t].empty == want[t].empty);
        REQUIRE(got[t].visible == want[t].visible);
        REQUIRE(got[t].support == want[t].support);
        if (want[t].empty) continue;
        REQUIRE(got[t].entropy == want[t].entropy);
        REQUIRE(got[t].normalized_entropy == want[t].normalized_entropy);
        REQUIRE(got[t].n_eff == want[t].n_eff);
        REQUIRE(got[t].top_k_mass == want[t].top_k_mass);
        REQUIRE(got[t].sink_mass == want[t].sink_mass);
    }
}

void require_same_summary(const attn::HeadSummary& got, const attn::HeadSummary& want) {
    CHECK(got.rows == want.rows);
    CHECK(got.empty_rows == want.empty_rows);
    CHECK_THAT(got.mean_entropy, Near(want.mean_entropy, 0, 1e-12));
    CHECK_THAT(got.mean_normalized_entropy, Near(want.mean_normalized_entropy, 0, 1e-12));
    CHECK_THAT(got.mean_n_eff, Near(want.mean_n_eff, 0, 1e-12));
    CHECK_THAT(got.mean_top_k_mass, Near(want.mean_top_k_mass, 0, 1e-12));
    CHECK_THAT(got.mean_sink_mass, Near(want.mean_sink_mass, 0, 1e-12));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// check_head and verdict

TEST_CASE("analysis check: clean probabilities", "[analysis][check]") {
    const attn::Matrix a = attn_test::mat({{1, 0, 0}, {0.25f, 0.75f, 0}, {0.5f, 0.25f, 0.25f}});
    const attn::HeadCheck c = check(a);
    CHECK(c.n_q == 3);
    CHECK(c.n_k == 3);
    CHECK(c.nonfinite == 0);
    CHECK(c.first_nonfinite_row == -1);
    CHECK(c.negative == 0);
    CHECK(c.above_one == 0);
    CHECK(c.fill == 0);
    CHECK(c.min_value == 0);
    CHECK(c.max_value == 1);
    CHECK(c.zero_rows == 0);
    CHECK(c.max_row_sum_error == 0);
    CHECK(c.worst_row == 0);  // every row is exact: the first
    CHECK(c.rows_above_diagonal == 0);
    CHECK(c.first_row_above_diagonal == -1);
    CHECK(attn::verdict(c) == Verdict::probabilities);
}

TEST_CASE("analysis check: row sums decide between quiet, warning and not probabilities", "[analysis][check]") {
    // float16-like exports are off by ~3e-4; 5-decimal rounding by ~5e-5.
    const struct {
        float err;
        Verdict want;
    } cases[] = {
        {5e-5f, Verdict::probabilities},
        {3e-4f, Verdict::probabilities_warn},
        {-3e-4f, Verdict::probabilities_warn},
        {2e-2f, Verdict::not_probabilities},
    };
    for (const auto& k : cases) {
        INFO("error " << k.err);
        const attn::Matrix a = attn_test::mat({{1, 0}, {0.5f, 0.5f + k.err}, {0.5f, 0.5f}});
        const attn::HeadCheck c = check(a);
        CHECK_THAT(c.max_row_sum_error, Near(std::fabs(double(0.5f + k.err) - 0.5), 1e-12));
        CHECK(c.worst_row == 1);
        CHECK(attn::verdict(c) == k.want);
    }
}

TEST_CASE("analysis check: negative, above one, mask fills", "[analysis][check]") {
    SECTION("a negative value") {
        const attn::HeadCheck c = check(attn_test::mat({{1.5f, -0.5f}, {0.5f, 0.5f}}));
        CHECK(c.negative == 1);
        CHECK(c.above_one == 1);
        CHECK(c.min_value == -0.5);
        CHECK(c.max_value == 1.5);
        CHECK(c.max_row_sum_error == 0);  // the sums alone would pass
        CHECK(attn::verdict(c) == Verdict::not_probabilities);
    }
    SECTION("1 + 1e-3 is rounding, 1.01 is not") {
        CHECK(check(attn_test::mat({{1.0009f}})).above_one == 0);
        CHECK(check(attn_test::mat({{1.01f}})).above_one == 1);
    }
    SECTION("-FLT_MAX above the diagonal (T5 decoder scores as exported)") {
        const attn::HeadCheck c = check(attn_test::mat({{2, -FLT_MAX, -FLT_MAX}, {1, 3, -FLT_MAX}, {0, 1, 2}}));
        CHECK(c.fill == 3);
        CHECK(c.negative == 3);
        CHECK(c.nonfinite == 0);
        CHECK(c.min_value == -FLT_MAX);
        CHECK(attn::verdict(c) == Verdict::not_probabilities);
    }
    SECTION("-inf is a mask fill too, not an invalid value") {
        const attn::HeadCheck c = check(attn_test::mat({{2, -kInf}, {1, 3}}));
        CHECK(c.fill == 1);
        CHECK(c.nonfinite == 0);
        CHECK(c.negative == 0);
        CHECK(c.min_value == 1);  // over finite entries
        CHECK(c.worst_row == 1);  // row 0 holds -inf: no row sum
        CHECK(attn::verdict(c) == Verdict::not_probabilities);
    }
}

TEST_CASE("analysis check: NaN and +Inf make a head invalid, with the first location", "[analysis][check]") {
    const attn::Matrix a = attn_test::mat({{1, 0, 0}, {0.5f, 0.5f, 0}, {0.2f, kNaN, kInf}, {kNaN, 0.5f, 0.5f}});
    const attn::HeadCheck c = check(a);
    CHECK(c.nonfinite == 3);
    CHECK(c.first_nonfinite_row == 2);
    CHECK(c.first_nonfinite_col == 1);
    CHECK(c.max_row_sum_error == 0);  // rows 2 and 3 are left out of the row sums
    CHECK(c.max_value == 1);
    CHECK(attn::verdict(c) == Verdict::invalid);
    // Invalid wins over everything else.
    CHECK(attn::verdict(check(attn_test::mat({{-1, kNaN}}))) == Verdict::invalid);
    CHECK(std::string(attn::to_string(Verdict::invalid)) == "invalid");
    CHECK(std::string(attn::to_string(Verdict::probabilities_warn)) == "probabilities_warn");
}

TEST_CASE("analysis check: zero rows, weight above the diagonal", "[analysis][check]") {
    SECTION("square") {
        const attn::Matrix a = attn_test::mat({{1, 0, 0}, {0, 0, 0}, {0.4f, 0.3f, 0.3f}, {0.2f, 0.2f, 0.6f}});
        // 4 x 3: t' = t - 1; row 0 (t' = -1) has everything above, row 3 nothing.
        const attn::HeadCheck c = check(a);
        CHECK(c.zero_rows == 1);
        CHECK(c.rows_above_diagonal == 2);  // rows 0 (key 0 > -1) and 2 (key 2 > 1)
        CHECK(c.first_row_above_diagonal == 0);
        CHECK(c.max_above_diagonal == 1);
    }
    SECTION("cross-attention, 2 queries on 4 keys: t' = t + 2") {
        const attn::Matrix a = attn_test::mat({{0.5f, 0.5f, 0, 0}, {0.25f, 0.25f, 0.25f, 0.25f}});
        CHECK(check(a).rows_above_diagonal == 0);
        const attn::Matrix b = attn_test::mat({{0.5f, 0, 0, 0.5f}, {0.25f, 0.25f, 0.25f, 0.25f}});
        const attn::HeadCheck c = check(b);
        CHECK(c.rows_above_diagonal == 1);
        CHECK(c.max_above_diagonal == 0.5);
    }
}

TEST_CASE("analysis check: a head of all-zero rows is not probabilities, one zero row is an empty row",
          "[analysis][check]") {
    const attn::HeadCheck all = check(attn_test::mat({{0, 0, 0}, {0, 0, 0}}));
    CHECK(all.zero_rows == 2);
    CHECK(all.max_row_sum_error == 0);  // no row has a sum to check
    CHECK(attn::verdict(all) == Verdict::not_probabilities);
    CHECK(attn::verdict(check(attn_test::mat({{0}}))) == Verdict::not_probabilities);
    const attn::HeadCheck one = check(attn_test::mat({{0, 0, 0}, {0.5f, 0.5f, 0}}));
    CHECK(one.zero_rows == 1);
    CHECK(attn::verdict(one) == Verdict::probabilities);
}

TEST_CASE("analysis check never throws", "[analysis][check]") {
    CHECK_NOTHROW(attn::check_head(nullptr, 3, 3));
    const float x = 1;
    const attn::HeadCheck c = attn::check_head(&x, 0, -2);
    CHECK(std::isnan(c.min_value));
    CHECK(c.nonfinite == 0);
    const attn::HeadCheck d = attn::check_head(&kNaN, 1, 1);
    CHECK(std::isnan(d.min_value));
    CHECK(std::isnan(d.max_value));
    CHECK(attn::verdict(d) == Verdict::invalid);
}

// ---------------------------------------------------------------------------------------------
// analyze_head on the real heads

TEST_CASE("analysis: every real head equals compute() in weights mode and the file", "[analysis][real]") {
    int heads = 0;
    for (const char* set : kRealSets) {
        const std::vector<attn::Matrix> hs = real_heads(set);
        for (std::size_t h = 0; h < hs.size(); ++h, ++heads) {
            INFO(set << " head " << h);
            const attn::Matrix& a = hs[h];
            const attn::HeadAnalysis r = analyze(a, attn::Reading::weights, true);
            CHECK(r.verdict == Verdict::probabilities);
            REQUIRE(r.computed);
            const bool causal = std::string(set).rfind("t5", 0) != 0;
            CHECK(r.check.rows_above_diagonal == (causal ? 0 : r.check.rows_above_diagonal));
            if (!causal) CHECK(r.check.rows_above_diagonal > 0);

            const attn::Result dense = attn::compute(attn_test::weights_problem(a));
            require_same_summary(r.summary, dense.summary);
            require_same_rows(r.rows, dense.rows);

            // Independently, in double from the file: rows renormalised, H = -sum p ln p.
            double ent = 0, sink = 0;
            for (int t = 0; t < a.rows; ++t) {
                double z = 0;
                for (int j = 0; j < a.cols; ++j) z += a(t, j);
                for (int j = 0; j < a.cols; ++j)
                    if (a(t, j) > 0) ent -= a(t, j) / z * std::log(a(t, j) / z);
                sink += a(t, 0) / z;
            }
            CHECK_THAT(r.summary.mean_entropy, Near(ent / a.rows, 1e-5));
            CHECK_THAT(r.summary.mean_sink_mass, Near(sink / a.rows, 1e-5));

            // The pattern of the stream equals the dense one's of the same weights.
            const attn::Pattern p = attn::classify_pattern(dense.weights.data.data(), a.rows, a.cols);
            CHECK(r.pattern.kind == p.kind);
            CHECK(r.pattern.parameter == p.parameter);
            CHECK_THAT(r.pattern.confidence, Near(p.confidence, 1e-6));
            CHECK_THAT(r.pattern.scores.global, Near(p.scores.global, 1e-6));

            // The thumbnail is the pipeline's mean-pooled overview (n <= 43: cells of 1 or 2).
            attn::HeadView v;
            v.mode = attn::Mode::weights;
            v.n_q = a.rows;
            v.n_k = a.cols;
            v.given = a.data.data();
            attn::StreamOptions so;
            so.overview = 32;
            so.pool = attn::Pool::mean;
            const attn::StreamResult sr = attn::compute_streaming(v, so);
            REQUIRE(r.thumbnail.rows == sr.overview.rows);
            REQUIRE(r.thumbnail.cols == sr.overview.cols);
            for (std::size_t c = 0; c < sr.overview.data.size(); ++c)
                REQUIRE_THAT(r.thumbnail.data[c], Near(sr.overview.data[c], 1e-7));
        }
    }
    CHECK(heads == 23);
}

TEST_CASE("analysis: GPT-2 L0 mean sink mass per head is within the README's 0.001 .. 0.37", "[analysis][real]") {
    // README: "in GPT-2 layer 0 the mean mass on the first (BOS) token per head ranges from 0.001
    // to 0.37"; that range is over the rows after BOS (row 0 puts all its mass on BOS).
    const std::vector<attn::Matrix> hs = real_heads("gpt2-small_L0_nlp-sentence");
    double lo = 1, hi = 0;
    for (const attn::Matrix& a : hs) {
        const attn::HeadAnalysis r = analyze(a);
        double after = 0;
        for (int t = 1; t < a.rows; ++t) after += r.rows[static_cast<std::size_t>(t)].sink_mass;
        after /= a.rows - 1;
        lo = std::min(lo, after);
        hi = std::max(hi, after);
        CHECK(r.rows[0].sink_mass == 1.0);
        CHECK(r.rows[0].visible == 1);
    }
    CHECK(lo >= 0.0005);
    CHECK(lo < 0.0015);
    CHECK(hi > 0.36);
    CHECK(hi < 0.375);
}

// ---------------------------------------------------------------------------------------------
// analyze_head: readings, verdicts, masks

TEST_CASE("analysis: float16-like rows (sums off by 3e-4) warn and are renormalised", "[analysis]") {
    attn::Matrix a = real_heads("gpt2-small_L0_nlp-sentence")[3];
    attn::Matrix noisy = a;
    for (int t = 0; t < a.rows; ++t)
        for (int j = 0; j < a.cols; ++j) noisy(t, j) = a(t, j) * (t % 2 ? 1.0003f : 0.9997f);
    const attn::HeadAnalysis r = analyze(noisy);
    CHECK(r.verdict == Verdict::probabilities_warn);
    CHECK_THAT(r.check.max_row_sum_error, Near(3e-4, 2e-6));
    REQUIRE(r.computed);
    const attn::HeadAnalysis clean = analyze(a);
    CHECK_THAT(r.summary.mean_entropy, Near(clean.summary.mean_entropy, 1e-6));
    CHECK_THAT(r.summary.mean_sink_mass, Near(clean.summary.mean_sink_mass, 1e-6));
    CHECK(r.pattern.kind == clean.pattern.kind);
}

TEST_CASE("analysis: negative values are computed only when read as logits", "[analysis]") {
    const attn::Matrix s = attn_test::mat({{0.5f, -1, 2}, {-0.25f, 0, 1}, {3, -2, 0.5f}});
    const attn::HeadAnalysis w = analyze(s);
    CHECK(w.verdict == Verdict::not_probabilities);
    CHECK(w.check.negative == 3);
    CHECK_FALSE(w.computed);
    CHECK(w.rows.empty());
    CHECK(std::isnan(w.summary.mean_entropy));
    CHECK(w.summary.rows == 3);
    CHECK(w.thumbnail.empty());
    CHECK(w.pattern.confidence == 0);

    const attn::HeadAnalysis l = analyze(s, attn::Reading::logits);
    CHECK(l.verdict == Verdict::not_probabilities);
    REQUIRE(l.computed);
    const attn::Result dense = attn::compute(attn_test::logits_problem(s));
    require_same_summary(l.summary, dense.summary);
    require_same_rows(l.rows, dense.rows);
}

TEST_CASE("analysis: a -FLT_MAX fill read as logits is masked keys", "[analysis]") {
    // T5 decoder scores as exported: -FLT_MAX above the diagonal.
    const float f = -FLT_MAX;
    const attn::Matrix s = attn_test::mat({{1.5f, f, f, f}, {0.5f, 2, f, f}, {1, 0, -1, f}, {2, 1, 0, 3}});
    const attn::HeadAnalysis l = analyze(s, attn::Reading::logits);
    REQUIRE(l.computed);
    for (int t = 0; t < 4; ++t) CHECK(l.rows[static_cast<std::size_t>(t)].visible == t + 1);
    CHECK(l.rows[0].sink_mass == 1.0);
    CHECK(l.rows[0].normalized_entropy == 0.0);
    attn::Matrix masked = s;
    for (float& x : masked.data)
        if (x == f) x = -kInf;
    require_same_rows(l.rows, attn::compute(attn_test::logits_problem(masked)).rows);
    // -inf itself (TransformerLens attn_scores) reads the same.
    const attn::HeadAnalysis m = analyze(masked, attn::Reading::logits);
    CHECK(m.verdict == Verdict::not_probabilities);
    REQUIRE(m.computed);
    require_same_rows(m.rows, l.rows);
    // The masked cells are not visible in the thumbnail (NaN), the visible ones are weights.
    const attn::HeadAnalysis t = analyze(s, attn::Reading::logits, false, 4);
    CHECK(std::isnan(t.thumbnail(0, 1)));
    CHECK(t.thumbnail(0, 0) == 1.0f);
}

TEST_CASE("analysis: the causal flag masks logits at j <= t + (n_k - n_q)", "[analysis]") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-2, 2);
    attn::Matrix s(3, 5);
    for (float& x : s.data) x = u(rng);
    const attn::HeadAnalysis r = analyze(s, attn::Reading::logits, true);
    REQUIRE(r.computed);
    attn::Problem p = attn_test::logits_problem(s);
    p.mask.causal = true;
    p.mask.row_offset = 2;
    require_same_rows(r.rows, attn::compute(p).rows);
    CHECK(r.rows[0].visible == 3);
    // Without the flag every key is visible.
    CHECK(analyze(s, attn::Reading::logits, false).rows[0].visible == 5);
}

TEST_CASE("analysis: causal flag with weight above the diagonal is counted", "[analysis]") {
    const attn::Matrix a = attn_test::mat({{0.5f, 0.5f, 0}, {0.5f, 0.5f, 0}, {0.2f, 0.2f, 0.6f}});
    const attn::HeadAnalysis r = analyze(a, attn::Reading::weights, true);
    CHECK(r.check.rows_above_diagonal == 1);
    CHECK(r.check.first_row_above_diagonal == 0);
    CHECK(r.check.max_above_diagonal == 0.5);
    CHECK(r.verdict == Verdict::probabilities);  // a warning of the page, not a verdict
    REQUIRE(r.computed);
    CHECK(r.rows[0].visible == 2);  // weights: the zeros are the mask, not the flag
}

TEST_CASE("analysis: NaN is invalid with its first location, under either reading", "[analysis]") {
    const attn::Matrix a = attn_test::mat({{1, 0}, {0.5f, kNaN}});
    for (attn::Reading reading : {attn::Reading::weights, attn::Reading::logits}) {
        const attn::HeadAnalysis r = analyze(a, reading);
        CHECK(r.verdict == Verdict::invalid);
        CHECK_FALSE(r.computed);
        CHECK(r.check.first_nonfinite_row == 1);
        CHECK(r.check.first_nonfinite_col == 1);
        CHECK(r.rows.empty());
    }
}

TEST_CASE("analysis: an all-zero row is an empty row", "[analysis]") {
    const attn::Matrix a = attn_test::mat({{1, 0, 0}, {0, 0, 0}, {0.25f, 0.25f, 0.5f}});
    const attn::HeadAnalysis r = analyze(a);
    CHECK(r.verdict == Verdict::probabilities);
    CHECK(r.check.zero_rows == 1);
    REQUIRE(r.computed);
    CHECK(r.rows[1].empty);
    CHECK(r.summary.empty_rows == 1);
    const double h2 = -(0.5 * std::log(0.25) + 0.5 * std::log(0.5));
    CHECK_THAT(r.summary.mean_entropy, Near(h2 / 2));  // row 0 has entropy 0
    CHECK_THAT(r.summary.mean_sink_mass, Near((1 + 0.25) / 2));
    CHECK_THAT(r.pattern.scores.sink, Near((1 + 0.25) / 2));
}

TEST_CASE("analysis: thumbnail of a tiny matrix by hand", "[analysis][thumbnail]") {
    // Uniform causal 4 x 4 (logits 0, causal), pooled 2 x 2: each cell holds 2 queries x 2 keys.
    //   rows 0-1, keys 0-1: (1 + 0 + 1/2 + 1/2) / 4 = 1/2
    //   rows 0-1, keys 2-3: nothing visible -> NaN
    //   rows 2-3, keys 0-1: (1/3 + 1/3 + 1/4 + 1/4) / 4 = 7/24
    //   rows 2-3, keys 2-3: (1/3 + 0 + 1/4 + 1/4) / 4 = 5/24
    const attn::Matrix s(4, 4, 0.0f);
    const attn::HeadAnalysis r = analyze(s, attn::Reading::logits, true, 2);
    REQUIRE(r.thumbnail.rows == 2);
    REQUIRE(r.thumbnail.cols == 2);
    CHECK_THAT(r.thumbnail(0, 0), Near(0.5));
    CHECK(std::isnan(r.thumbnail(0, 1)));
    CHECK_THAT(r.thumbnail(1, 0), Near(7.0 / 24));
    CHECK_THAT(r.thumbnail(1, 1), Near(5.0 / 24));

    // 3 x 5 weights into 2 x 2: rows {0, 1}, {2}; keys {0, 1, 2}, {3, 4} (cell = i * 2 / n).
    const attn::Matrix a = attn_test::mat({{1, 0, 0, 0, 0}, {0.5f, 0.5f, 0, 0, 0}, {0.1f, 0.2f, 0.3f, 0.15f, 0.25f}});
    const attn::HeadAnalysis w = analyze(a, attn::Reading::weights, false, 2);
    REQUIRE(w.thumbnail.rows == 2);
    CHECK_THAT(w.thumbnail(0, 0), Near(2.0 / 6));
    // The head is causal by its values (zero above j = t + 2): row 1 sees key 3, a visible weight
    // of 0 (docs/import.md "Checks that run by themselves"), not a masked key.
    CHECK(w.causal_visibility);
    CHECK(w.thumbnail(0, 1) == 0.0f);
    {
        attn::AnalyzeOptions o;
        o.thumbnail = 2;
        o.causal_from_structure = false;  // zeros read as not visible (the core's weights mode): NaN
        const attn::HeadAnalysis z = attn::analyze_head(a.data.data(), 3, 5, o);
        CHECK(z.thumbnail(0, 1) != z.thumbnail(0, 1));
    }
    CHECK_THAT(w.thumbnail(1, 0), Near(0.6 / 3));
    CHECK_THAT(w.thumbnail(1, 1), Near(0.4 / 2));

    // Larger than the head: clamped to n_q x n_k; 0: none.
    CHECK(analyze(a, attn::Reading::weights, false, 64).thumbnail.rows == 3);
    CHECK(analyze(a, attn::Reading::weights, false, 64).thumbnail.cols == 5);
    CHECK(analyze(a, attn::Reading::weights, false, 0).thumbnail.empty());
}

TEST_CASE("analysis: want_rows = false keeps the summary only", "[analysis]") {
    const attn::Matrix a = real_heads("gpt2-small_L5H5_induction_random-repeated")[0];
    attn::AnalyzeOptions o;
    o.want_rows = false;
    const attn::HeadAnalysis r = attn::analyze_head(a.data.data(), a.rows, a.cols, o);
    CHECK(r.rows.empty());
    require_same_summary(r.summary, analyze(a).summary);
    CHECK(r.pattern.kind == attn::PatternKind::offset);
}

TEST_CASE("analysis: chunks of rows give the pipeline's rows, masks at absolute positions", "[analysis][stream]") {
    // 100 queries x 131072 keys, causal logits with a -1e38 fill on one key per row: copied in
    // chunks of 32 rows (2^22 cells), the last one of 4, run in blocks of 8 rows. The reference
    // is one run of compute_streaming on a copy with the fill as -inf and the causal offset
    // n_k - n_q.
    const int n_q = 100, n_k = attn::kMaxStreamTokens;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-4, 4);
    std::vector<float> s(static_cast<std::size_t>(n_q) * n_k);
    for (float& x : s) x = u(rng);
    for (int t = 0; t < n_q; ++t) s[static_cast<std::size_t>(t) * n_k + (t * 37) % n_k] = -1e38f;
    attn::AnalyzeOptions o;
    o.reading = attn::Reading::logits;
    o.causal = true;
    o.thumbnail = 8;
    const attn::HeadAnalysis r = attn::analyze_head(s.data(), n_q, n_k, o);
    REQUIRE(r.computed);
    CHECK(r.check.fill == n_q);

    std::vector<float> ref = s;
    for (float& x : ref)
        if (x <= -1e30f) x = -kInf;
    attn::HeadView v;
    v.mode = attn::Mode::logits;
    v.n_q = n_q;
    v.n_k = n_k;
    v.given = ref.data();
    attn::StreamOptions so;
    so.mask.causal = true;
    so.mask.row_offset = n_k - n_q;
    so.block_rows = 7;
    so.overview = 8;
    so.pool = attn::Pool::mean;
    const attn::StreamResult sr = attn::compute_streaming(v, so);
    require_same_rows(r.rows, sr.rows);
    require_same_summary(r.summary, sr.summary);
    CHECK(r.rows[0].visible == n_k - n_q + 1 - 1);  // row 0's filled key 0 is below its diagonal
    for (std::size_t c = 0; c < sr.overview.data.size(); ++c)
        CHECK_THAT(r.thumbnail.data[c], Near(sr.overview.data[c], 1e-6, 1e-4));
}

TEST_CASE("analysis: the longest heads (131072 keys or queries) are accepted", "[analysis][stream]") {
    const int n = attn::kMaxStreamTokens;
    std::vector<float> wide(static_cast<std::size_t>(2) * n, 1.0f / n);
    const attn::HeadAnalysis a = attn::analyze_head(wide.data(), 2, n, attn::AnalyzeOptions{});
    CHECK(a.verdict == Verdict::probabilities);
    REQUIRE(a.computed);
    CHECK_THAT(a.summary.mean_normalized_entropy, Near(1.0, 1e-6));
    CHECK(a.pattern.kind == attn::PatternKind::global);

    std::vector<float> tall(static_cast<std::size_t>(n) * 2, 0.0f);
    for (int t = 0; t < n; ++t) tall[static_cast<std::size_t>(t) * 2] = 1;
    const attn::HeadAnalysis b = attn::analyze_head(tall.data(), n, 2, attn::AnalyzeOptions{});
    REQUIRE(b.computed);
    CHECK(b.pattern.kind == attn::PatternKind::sink);
    CHECK(b.rows.size() == static_cast<std::size_t>(n));
    CHECK(b.thumbnail.rows == 32);
    CHECK(b.thumbnail.cols == 2);
    CHECK(b.thumbnail(5, 0) == 1.0f);
}

TEST_CASE("analysis: bad sizes and options throw, values never do", "[analysis][errors]") {
    const attn::Matrix a = attn_test::mat({{1, 0}, {0.5f, 0.5f}});
    auto code = [&](int n_q, int n_k, attn::AnalyzeOptions o) -> std::string {
        try {
            attn::analyze_head(a.data.data(), n_q, n_k, o);
        } catch (const attn::Error& e) {
            return attn::to_string(e.code());
        }
        return "no error";
    };
    attn::AnalyzeOptions o;
    CHECK(code(0, 2, o) == "shape_mismatch");
    CHECK(code(2, attn::kMaxStreamTokens + 1, o) == "too_large");
    o.thumbnail = 1025;
    CHECK(code(2, 2, o) == "invalid_value");
    o.thumbnail = 32;
    o.top_k = 0;
    CHECK(code(2, 2, o) == "invalid_value");
    o.top_k = 2;
    o.delta = 1;
    CHECK(code(2, 2, o) == "invalid_value");
    CHECK_THROWS_AS(attn::analyze_head(nullptr, 2, 2, attn::AnalyzeOptions{}), attn::Error);
    const float inf_head[4] = {kInf, -kInf, kNaN, 0};
    for (attn::Reading reading : {attn::Reading::weights, attn::Reading::logits}) {
        attn::AnalyzeOptions r;
        r.reading = reading;
        CHECK_NOTHROW(attn::analyze_head(inf_head, 2, 2, r));
    }
}

// summarize_layers: the import view's layer table. Golden values by hand: the means of the listed
// finite values of the computed heads, e.g. layer 1 mean H_n = (0.5 + 0.1) / 2 = 0.3, mean sink
// mass = (0.25 + 0.5) / 2 = 0.375, mean N_eff = 2 (the other head's +inf is skipped), mean top-k
// mass = (0.75 + 0.6) / 2 = 0.675; layer 0: (0.2 + 0.4) / 2 = 0.3, 0.1 (NaN skipped),
// (1.5 + 3) / 2 = 2.25, (0.9 + 0.8) / 2 = 0.85.
TEST_CASE("summarize_layers: means over computed heads with a finite value, layers in first-seen order", "[analysis]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    auto head = [](int layer, bool computed, double hn, double sink, double neff, double topk) {
        attn::LayerHead h;
        h.layer = layer;
        h.computed = computed;
        h.summary.mean_normalized_entropy = hn;
        h.summary.mean_sink_mass = sink;
        h.summary.mean_n_eff = neff;
        h.summary.mean_top_k_mass = topk;
        return h;
    };
    const std::vector<attn::LayerHead> heads = {
        head(1, true, 0.5, 0.25, 2.0, 0.75), head(0, true, 0.2, nan, 3.0, 0.9),
        head(1, false, 0.9, 0.9, 9.0, 0.9),  // not computed: counted, never averaged
        head(1, true, 0.1, 0.5, inf, 0.6),   head(0, true, 0.4, 0.1, 1.5, 0.8),
        head(2, false, 0.7, 0.7, 7.0, 0.7),
    };
    const std::vector<attn::LayerSummary> s = attn::summarize_layers(heads);
    REQUIRE(s.size() == 3);
    CHECK(s[0].layer == 1);
    CHECK(s[0].heads == 3);
    CHECK(s[0].analysed == 2);
    CHECK_THAT(s[0].means.mean_normalized_entropy, Near(0.3, 1e-15));
    CHECK_THAT(s[0].means.mean_sink_mass, Near(0.375, 1e-15));
    CHECK_THAT(s[0].means.mean_n_eff, Near(2.0, 1e-15));
    CHECK_THAT(s[0].means.mean_top_k_mass, Near(0.675, 1e-15));
    CHECK(s[1].layer == 0);
    CHECK(s[1].heads == 2);
    CHECK(s[1].analysed == 2);
    CHECK_THAT(s[1].means.mean_normalized_entropy, Near(0.3, 1e-15));
    CHECK_THAT(s[1].means.mean_sink_mass, Near(0.1, 1e-15));
    CHECK_THAT(s[1].means.mean_n_eff, Near(2.25, 1e-15));
    CHECK_THAT(s[1].means.mean_top_k_mass, Near(0.85, 1e-15));
    CHECK(s[2].layer == 2);
    CHECK(s[2].heads == 1);
    CHECK(s[2].analysed == 0);
    CHECK(std::isnan(s[2].means.mean_normalized_entropy));
    CHECK(std::isnan(s[2].means.mean_sink_mass));
    CHECK(std::isnan(s[2].means.mean_n_eff));
    CHECK(std::isnan(s[2].means.mean_top_k_mass));
    CHECK(attn::summarize_layers({}).empty());
}
