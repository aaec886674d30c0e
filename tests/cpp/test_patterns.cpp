// Head pattern classes (analysis.hpp, docs/analysis.md "Head patterns"): synthetic heads whose
// class is known by construction, then every bundled real head (web/data/real/*/attention.json),
// whose labels are checked two ways: against a naive double-precision recomputation of the
// documented scores written here from the JSON (no core code), and against what the rows' largest
// weights say (the argmax column of each row, read straight from the file).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "attn/analysis.hpp"
#include "patterns_internal.hpp"

#ifndef ATTN_DATA_DIR
#error "ATTN_DATA_DIR must point at web/data (set by CMakeLists.txt)"
#endif

using attn::PatternKind;
using attn_test::Near;

namespace {

/// An n_q x n_k head, row-major, as classify_pattern takes it.
struct Head {
    int n_q = 0, n_k = 0;
    std::vector<float> a;
    Head(int q, int k) : n_q(q), n_k(k), a(static_cast<std::size_t>(q) * k, 0.0f) {}
    float& operator()(int t, int j) { return a[static_cast<std::size_t>(t) * n_k + j]; }
    float operator()(int t, int j) const { return a[static_cast<std::size_t>(t) * n_k + j]; }
    attn::Pattern classify() const { return attn::classify_pattern(a.data(), n_q, n_k); }
};

// ---------------------------------------------------------------------------------------------
// Real heads, read with nlohmann::json (not with the importer).

std::vector<Head> real_heads(const std::string& set) {
    const std::string path = std::string(ATTN_DATA_DIR) + "/real/" + set + "/attention.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::vector<Head> out;
    for (const auto& layer : doc.at("attention"))
        for (const auto& rows : layer) {
            Head h(static_cast<int>(rows.size()), static_cast<int>(rows.at(0).size()));
            for (int t = 0; t < h.n_q; ++t)
                for (int j = 0; j < h.n_k; ++j) h(t, j) = rows.at(t).at(j).get<float>();
            out.push_back(std::move(h));
        }
    return out;
}

int argmax_row(const Head& h, int t) {
    int best = 0;
    for (int j = 1; j < h.n_k; ++j)
        if (h(t, j) > h(t, best)) best = j;
    return best;
}

/// Rows t in [t0, t1) whose largest weight is on key t + shift.
int rows_with_argmax_at(const Head& h, int t0, int t1, int shift) {
    int n = 0;
    for (int t = t0; t < t1; ++t) n += argmax_row(h, t) == t + shift;
    return n;
}

/// Mean of a[t][t' - d] over the non-empty rows where that key exists and is >= 1.
double naive_diag_mean(const Head& h, int d) {
    double sum = 0;
    int count = 0;
    for (int t = 0; t < h.n_q; ++t) {
        double z = 0;
        for (int j = 0; j < h.n_k; ++j) z += h(t, j);
        const int j = t + (h.n_k - h.n_q) - d;
        if (z > 0 && j >= 1 && j < h.n_k) {
            sum += h(t, j);
            ++count;
        }
    }
    return count ? sum / count : 0.0;
}

/// The documented scores (docs/analysis.md), recomputed naively in double from the file, row by
/// row and key by key, without the accumulator's diagonal and column sums.
struct Naive {
    double sink = 0, self = 0, previous = 0, next = 0, offset = 0, strided = 0, position = 0, global = 0;
    int offset_d = 0, period = 0, position_key = 0;
};

Naive naive_scores(const Head& h) {
    const int off = h.n_k - h.n_q;
    std::vector<int> rows;
    for (int t = 0; t < h.n_q; ++t) {
        double z = 0;
        for (int j = 0; j < h.n_k; ++j) z += h(t, j);
        if (z > 0) rows.push_back(t);
    }
    Naive s;
    const double n = static_cast<double>(rows.size());
    const double need = std::max(2.0, 0.25 * n);
    for (int t : rows) s.sink += h(t, 0) / n;
    auto diag = [&](int d, int* count) {
        double sum = 0;
        *count = 0;
        for (int t : rows) {
            const int j = t + off - d;
            if (j >= 1 && j < h.n_k) {
                sum += h(t, j);
                ++*count;
            }
        }
        return *count ? sum / *count : 0.0;
    };
    int c = 0;
    s.self = diag(0, &c);
    s.previous = diag(1, &c);
    s.next = diag(-1, &c);
    for (int d = -h.n_k; d <= h.n_k + h.n_q; ++d) {
        if (std::abs(d) < 2) continue;
        const double m = diag(d, &c);
        if (c >= need && m > s.offset) {
            s.offset = m;
            s.offset_d = d;
        }
    }
    // Strided, straight from its definition: per period, the mass of each residue class of
    // d = t' - j (keys j >= 1, d != 0) and of each diagonal of the comb, over all rows.
    for (int p = 2; p <= std::min(64, h.n_k / 2); ++p) {
        std::vector<double> cls(static_cast<std::size_t>(p), 0.0);
        double comb_max = 0;
        for (int d = -h.n_k - h.n_q; d <= h.n_k + h.n_q; ++d) {
            if (d == 0) continue;
            double sum = 0;
            for (int t : rows) {
                const int j = t + off - d;
                if (j >= 1 && j < h.n_k) sum += h(t, j);
            }
            const int r = ((d % p) + p) % p;
            cls[static_cast<std::size_t>(r)] += sum;
            if (r == 0) comb_max = std::max(comb_max, sum);
        }
        const double other = *std::max_element(cls.begin() + 1, cls.end());
        const double sc = std::max(0.0, (cls[0] - comb_max - other) / n);
        if (sc > s.strided) {
            s.strided = sc;
            s.period = p;
        }
    }
    bool above = false;
    for (int t : rows)
        for (int j = 0; j < h.n_k; ++j) above = above || (j > t + off && h(t, j) > 0);
    for (int j = 1; j < h.n_k; ++j) {
        double sum = 0;
        int count = 0;
        for (int t : rows)
            if (above || t + off >= j) {
                sum += h(t, j);
                ++count;
            }
        if (count >= need && sum / count > s.position) {
            s.position = sum / count;
            s.position_key = j;
        }
    }
    // Breadth (N_eff - 1) / (|Omega_t| - 1), |Omega_t| = the row's positive weights.
    double breadth = 0;
    for (int t : rows) {
        double z = 0;
        int k = 0;
        for (int j = 0; j < h.n_k; ++j)
            if (h(t, j) > 0) {
                z += h(t, j);
                ++k;
            }
        if (k < 2) continue;
        double ent = 0;
        for (int j = 0; j < h.n_k; ++j)
            if (h(t, j) > 0) ent -= h(t, j) / z * std::log(h(t, j) / z);
        breadth += (std::exp(ent) - 1) / (k - 1);
    }
    breadth /= n;
    const double m = std::max({s.sink, s.self, s.previous, s.next, s.offset, s.strided, s.position});
    s.global = breadth * (1 - m);
    return s;
}

void check_against_naive(const Head& h, const attn::Pattern& p) {
    const Naive w = naive_scores(h);
    const attn::PatternScores& s = p.scores;
    CHECK_THAT(s.sink, Near(w.sink, 1e-9));
    CHECK_THAT(s.self, Near(w.self, 1e-9));
    CHECK_THAT(s.previous, Near(w.previous, 1e-9));
    CHECK_THAT(s.next, Near(w.next, 1e-9));
    CHECK_THAT(s.offset, Near(w.offset, 1e-9));
    // Equal means (a flat head) may pick another diagonal: then it must be as good.
    if (s.offset_d != w.offset_d) CHECK_THAT(naive_diag_mean(h, s.offset_d), Near(w.offset, 1e-9));
    CHECK_THAT(s.strided, Near(w.strided, 1e-9));
    if (w.strided > 0) CHECK(s.period % w.period == 0);
    CHECK_THAT(s.position, Near(w.position, 1e-9));
    CHECK(s.position_key == w.position_key);  // equal columns: both take the first
    CHECK_THAT(s.global, Near(w.global, 1e-6));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Synthetic heads.

TEST_CASE("pattern: identity: every query on itself is self with score 1", "[patterns]") {
    Head h(8, 8);
    for (int t = 0; t < 8; ++t) h(t, t) = 1;
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::self);
    CHECK(p.confidence == 1.0);
    CHECK(p.parameter == 0);
    CHECK_THAT(p.scores.sink, Near(1.0 / 8));  // row 0's own key is key 0, the sink's
    CHECK(p.scores.previous == 0);
    CHECK(p.scores.global == 0);
    check_against_naive(h, p);
}

TEST_CASE("pattern: shifted identity is previous, the reverse shift is next", "[patterns]") {
    Head prev(10, 10), next(10, 10);
    prev(0, 0) = 1;
    for (int t = 1; t < 10; ++t) prev(t, t - 1) = 1;
    for (int t = 0; t < 9; ++t) next(t, t + 1) = 1;
    next(9, 0) = 1;
    const attn::Pattern p = prev.classify();
    CHECK(p.kind == PatternKind::previous);
    CHECK(p.confidence == 1.0);
    CHECK_THAT(p.scores.sink, Near(2.0 / 10));  // rows 0 and 1 put their mass on key 0
    check_against_naive(prev, p);
    const attn::Pattern q = next.classify();
    CHECK(q.kind == PatternKind::next);
    CHECK(q.confidence == 1.0);
    check_against_naive(next, q);
}

TEST_CASE("pattern: all mass on key 0 is a sink with score 1", "[patterns]") {
    Head h(12, 12);
    for (int t = 0; t < 12; ++t) h(t, 0) = 1;
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::sink);
    CHECK(p.confidence == 1.0);
    CHECK(p.scores.position == 0);  // key 0 never counts as a column
    CHECK(p.scores.global == 0);
}

TEST_CASE("pattern: a head that is mostly BOS (sink mass 0.9) is a sink", "[patterns]") {
    Head h(32, 32);
    h(0, 0) = 1;
    for (int t = 1; t < 32; ++t) {
        h(t, 0) = 0.9f;
        for (int j = 1; j <= t; ++j) h(t, j) = 0.1f / t;
    }
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::sink);
    CHECK_THAT(p.confidence, Near((1 + 31 * 0.9) / 32, 1e-6));
    check_against_naive(h, p);
}

TEST_CASE("pattern: a uniform causal head is global", "[patterns]") {
    const int n = 16;
    Head h(n, n);
    for (int t = 0; t < n; ++t)
        for (int j = 0; j <= t; ++j) h(t, j) = 1.0f / (t + 1);
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::global);
    // Breadth 1 in rows 1..15, 0 in row 0 (one key); the largest other score is the sink,
    // mean 1/(t+1) = H_16 / 16.
    double harmonic = 0;
    for (int t = 1; t <= n; ++t) harmonic += 1.0 / t;
    const double sink = harmonic / n;
    CHECK_THAT(p.scores.sink, Near(sink, 1e-6));
    CHECK_THAT(p.confidence, Near((n - 1.0) / n * (1 - sink), 1e-6));
    CHECK(p.scores.strided == 0);  // a decaying diagonal profile fills every residue class
    CHECK(p.scores.period == 0);
    check_against_naive(h, p);
}

TEST_CASE("pattern: a uniform bidirectional head is global with no period", "[patterns]") {
    Head h(20, 20);
    for (float& x : h.a) x = 1.0f / 20;
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::global);
    CHECK(p.scores.strided == 0);
    CHECK_THAT(p.confidence, Near(1.0 - 1.0 / 20, 1e-6));  // breadth 1, every other score 1/20
    check_against_naive(h, p);
}

TEST_CASE("pattern: one key column for every query is position j", "[patterns]") {
    Head h(12, 12);
    for (int t = 0; t < 12; ++t) h(t, t >= 3 ? 3 : 0) = 1;  // causal: rows before 3 cannot see it
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::position);
    CHECK(p.parameter == 3);
    CHECK(p.confidence == 1.0);
    check_against_naive(h, p);
}

TEST_CASE("pattern: a period-4 comb is strided with p = 4, not 2", "[patterns]") {
    const int n = 32;
    Head h(n, n);
    for (int t = 0; t < n; ++t) {
        std::vector<int> teeth;
        for (int j = t - 4; j >= 1; j -= 4) teeth.push_back(j);
        if (teeth.empty()) h(t, 0) = 1;
        for (int j : teeth) h(t, j) = 1.0f / teeth.size();
    }
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::strided);
    CHECK(p.parameter == 4);
    CHECK(p.scores.period == 4);
    // Rows 5..31 hold all their mass on the comb; minus the largest diagonal (d = 4).
    double d4 = 0;
    for (int t = 5; t < n; ++t) d4 += 1.0 / ((t - 1) / 4);
    CHECK_THAT(p.confidence, Near((27 - d4) / n, 1e-6));
    CHECK(p.scores.offset < p.scores.strided);
    check_against_naive(h, p);
}

TEST_CASE("pattern: periods: a comb of 2 is not one of 4, a comb of 6 is 6", "[patterns]") {
    for (int period : {2, 6}) {
        INFO("period " << period);
        const int n = 48;
        Head h(n, n);
        for (int t = 0; t < n; ++t) {
            std::vector<int> teeth;
            for (int j = t - period; j >= 1; j -= period) teeth.push_back(j);
            if (teeth.empty()) h(t, 0) = 1;
            for (int j : teeth) h(t, j) = 1.0f / teeth.size();
        }
        const attn::Pattern p = h.classify();
        CHECK(p.kind == PatternKind::strided);
        CHECK(p.parameter == period);
        check_against_naive(h, p);
    }
}

TEST_CASE("pattern: a stripe at offset 5 is offset d = 5", "[patterns]") {
    Head h(24, 24);
    for (int t = 0; t < 24; ++t) h(t, t >= 6 ? t - 5 : 0) = 1;
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::offset);
    CHECK(p.parameter == 5);
    CHECK(p.confidence == 1.0);
    CHECK(p.scores.strided == 0);  // one diagonal alone is no period
    check_against_naive(h, p);
}

TEST_CASE("pattern: a far diagonal seen by one row cannot win", "[patterns]") {
    Head h(20, 20);
    for (int t = 0; t < 19; ++t) h(t, 0) = 1;
    h(19, 1) = 1;  // d = 18 exists in row 19 only (key j >= 1); its mean would be 1
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::sink);
    CHECK(p.scores.offset == 0);
    CHECK(p.scores.offset_d == 0);
    check_against_naive(h, p);
}

TEST_CASE("pattern: cross-attention: t' = t + (n_k - n_q)", "[patterns]") {
    SECTION("4 queries on 10 keys, each on the key before its position") {
        Head h(4, 10);
        for (int t = 0; t < 4; ++t) h(t, t + 6 - 1) = 1;  // t' = t + 6
        const attn::Pattern p = h.classify();
        CHECK(p.kind == PatternKind::previous);
        CHECK(p.confidence == 1.0);
        CHECK(p.scores.sink == 0);
        check_against_naive(h, p);
    }
    SECTION("6 queries on 3 keys: rows before the first key are empty, the rest on themselves") {
        Head h(6, 3);
        h(3, 0) = 1;  // t' = 0
        h(4, 1) = 1;
        h(5, 2) = 1;
        const attn::Pattern p = h.classify();
        CHECK(p.kind == PatternKind::self);
        CHECK(p.confidence == 1.0);
        CHECK_THAT(p.scores.sink, Near(1.0 / 3));  // 3 non-empty rows
        check_against_naive(h, p);
    }
}

TEST_CASE("pattern: empty rows are skipped", "[patterns]") {
    Head h(6, 6);
    for (int t = 0; t < 6; ++t)
        if (t != 2 && t != 4) h(t, t) = 1;
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::self);
    CHECK(p.confidence == 1.0);
    CHECK_THAT(p.scores.sink, Near(1.0 / 4));

    Head none(3, 5);
    const attn::Pattern q = none.classify();
    CHECK(q.kind == PatternKind::global);
    CHECK(q.confidence == 0);
}

TEST_CASE("pattern: a 1 x 1 head is a sink, sizes below 1 throw", "[patterns]") {
    const float one = 1;
    const attn::Pattern p = attn::classify_pattern(&one, 1, 1);
    CHECK(p.kind == PatternKind::sink);
    CHECK(p.confidence == 1.0);
    CHECK(p.scores.global == 0);
    CHECK_THROWS_AS(attn::classify_pattern(&one, 0, 1), attn::Error);
    CHECK_THROWS_AS(attn::classify_pattern(&one, 1, 0), attn::Error);
}

TEST_CASE("pattern: NaN, Inf and negative values count as 0, never throw", "[patterns]") {
    Head h(8, 8);
    for (int t = 0; t < 8; ++t) h(t, t) = 1;
    h(3, 1) = std::numeric_limits<float>::quiet_NaN();
    h(4, 2) = -5;
    h(5, 6) = std::numeric_limits<float>::infinity();
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::self);
    CHECK(p.confidence == 1.0);
    CHECK(std::isfinite(p.scores.global));
}

TEST_CASE("pattern: the accumulator gives the same scores whatever the order of the rows", "[patterns][stream]") {
    const Head h = real_heads("gpt2-small_L0_nlp-sentence")[7];
    attn::detail::PatternAccumulator fwd(h.n_q, h.n_k), rev(h.n_q, h.n_k);
    for (int t = 0; t < h.n_q; ++t) fwd.add_row(t, h.a.data() + static_cast<std::size_t>(t) * h.n_k);
    for (int t = h.n_q - 1; t >= 0; --t) rev.add_row(t, h.a.data() + static_cast<std::size_t>(t) * h.n_k);
    const attn::Pattern a = fwd.finish(0.5), b = rev.finish(0.5);
    CHECK(a.kind == b.kind);
    CHECK_THAT(a.scores.previous, Near(b.scores.previous, 1e-12));
    CHECK_THAT(a.scores.position, Near(b.scores.position, 1e-12));
    CHECK(fwd.rows() == h.n_q);
    CHECK(attn::detail::breadth(1.0, 5) == 0.0);
    CHECK(attn::detail::breadth(5.0, 5) == 1.0);
    CHECK(attn::detail::breadth(3.0, 1) == 0.0);
}

TEST_CASE("pattern: to_string names every class", "[patterns]") {
    CHECK(std::string(attn::to_string(PatternKind::sink)) == "sink");
    CHECK(std::string(attn::to_string(PatternKind::previous)) == "previous");
    CHECK(std::string(attn::to_string(PatternKind::strided)) == "strided");
    CHECK(std::string(attn::to_string(PatternKind::global)) == "global");
}

// ---------------------------------------------------------------------------------------------
// Real heads. Labels as classify_pattern gives them, each confirmed by the naive recomputation
// above and by the argmax columns of the rows (counts below read from the JSON with python3 and
// recomputed here by rows_with_argmax_at).

TEST_CASE("pattern: GPT-2 L0: self heads 1, 3, 4, 5, previous head 7, sink head 2, the rest global",
          "[patterns][real]") {
    const std::vector<Head> heads = real_heads("gpt2-small_L0_nlp-sentence");
    REQUIRE(heads.size() == 12);
    struct Want {
        PatternKind kind;
        double score;
    };
    const Want want[12] = {
        {PatternKind::global, 0.420}, {PatternKind::self, 0.892},     {PatternKind::sink, 0.385},
        {PatternKind::self, 0.821},   {PatternKind::self, 0.569},     {PatternKind::self, 0.790},
        {PatternKind::global, 0.542}, {PatternKind::previous, 0.338}, {PatternKind::global, 0.460},
        {PatternKind::global, 0.467}, {PatternKind::global, 0.552},   {PatternKind::global, 0.593},
    };
    for (int h = 0; h < 12; ++h) {
        INFO("head " << h);
        const attn::Pattern p = heads[h].classify();
        CHECK(p.kind == want[h].kind);
        CHECK_THAT(p.confidence, Near(want[h].score, 5e-4));
        check_against_naive(heads[h], p);
    }
    // The rows say the same: of the 32 rows after BOS, the largest weight is on the query itself
    // in 32 (H1), 29 (H3), 28 (H4), 27 (H5) rows; on the previous token in 20 rows of H7; on BOS
    // in 27 rows of H2.
    CHECK(rows_with_argmax_at(heads[1], 1, 33, 0) == 32);
    CHECK(rows_with_argmax_at(heads[3], 1, 33, 0) == 29);
    CHECK(rows_with_argmax_at(heads[4], 1, 33, 0) == 28);
    CHECK(rows_with_argmax_at(heads[5], 1, 33, 0) == 27);
    CHECK(rows_with_argmax_at(heads[7], 1, 33, -1) == 20);
    int bos = 0;
    for (int t = 1; t < 33; ++t) bos += argmax_row(heads[2], t) == 0;
    CHECK(bos == 27);
}

TEST_CASE("pattern: GPT-2 L5H5 on 20 random tokens repeated is offset d = 19", "[patterns][real]") {
    const std::vector<Head> heads = real_heads("gpt2-small_L5H5_induction_random-repeated");
    REQUIRE(heads.size() == 1);
    const Head& h = heads[0];
    REQUIRE(h.n_q == 40);
    const attn::Pattern p = h.classify();
    CHECK(p.kind == PatternKind::offset);
    CHECK(p.parameter == 19);
    CHECK_THAT(p.confidence, Near(0.882, 5e-4));
    check_against_naive(h, p);
    // Independently: token t >= 20 repeats token t - 20 (tokens.json); in every one of the 20
    // rows of the second half the largest weight is on key t - 19, the token after the previous
    // occurrence (d = t' - j = 19).
    CHECK(rows_with_argmax_at(h, 20, 40, -19) == 20);
}

TEST_CASE("pattern: GPT-2 heads on a repeated sentence: L5H5 offset 20, L6H9 sink with offset 20 second",
          "[patterns][real]") {
    const std::vector<Head> heads = real_heads("gpt2-small_induction-heads_repeated-sentence");
    REQUIRE(heads.size() == 2);  // the JSON's "heads": ["L6H9", "L5H5"]
    const attn::Pattern l6h9 = heads[0].classify(), l5h5 = heads[1].classify();
    // BOS + 21 tokens, repeated from position 22: the token after the previous occurrence of
    // token t is t - 20.
    CHECK(l5h5.kind == PatternKind::offset);
    CHECK(l5h5.parameter == 20);
    CHECK_THAT(l5h5.confidence, Near(0.706, 5e-4));
    CHECK(rows_with_argmax_at(heads[1], 22, 43, -20) == 21);
    // L6H9 puts all its mass on BOS in the first copy (nothing to copy from yet): sink 0.637 over
    // all 43 rows narrowly beats its induction stripe (0.621 over the 22 rows that have it).
    CHECK(l6h9.kind == PatternKind::sink);
    CHECK_THAT(l6h9.confidence, Near(0.637, 5e-4));
    CHECK(l6h9.scores.offset_d == 20);
    CHECK_THAT(l6h9.scores.offset, Near(0.621, 5e-4));
    CHECK(rows_with_argmax_at(heads[0], 22, 43, -20) == 18);
    check_against_naive(heads[0], l6h9);
    check_against_naive(heads[1], l5h5);
}

TEST_CASE("pattern: T5-small encoder L0 (bidirectional): previous, sink x4, self, position, next", "[patterns][real]") {
    const std::vector<Head> heads = real_heads("t5-small_encoder_L0_bidirectional");
    REQUIRE(heads.size() == 8);
    struct Want {
        PatternKind kind;
        double score;
        int param;
    };
    const Want want[8] = {
        {PatternKind::previous, 0.465, 0},  {PatternKind::sink, 0.349, 0}, {PatternKind::sink, 0.386, 0},
        {PatternKind::sink, 0.418, 0},      {PatternKind::sink, 0.312, 0}, {PatternKind::self, 0.376, 0},
        {PatternKind::position, 0.350, 11}, {PatternKind::next, 0.687, 0},
    };
    for (int h = 0; h < 8; ++h) {
        INFO("head " << h);
        const attn::Pattern p = heads[h].classify();
        CHECK(p.kind == want[h].kind);
        CHECK(p.parameter == want[h].param);
        CHECK_THAT(p.confidence, Near(want[h].score, 5e-4));
        check_against_naive(heads[h], p);
    }
    // Rows: H7's largest weight is on the next token in the 9 rows 2..10; H0's on the previous
    // token in rows 1 and 5..10; H6's position key 11 is "</s>".
    CHECK(rows_with_argmax_at(heads[7], 2, 11, 1) == 9);
    CHECK(rows_with_argmax_at(heads[0], 5, 11, -1) == 6);
    CHECK(rows_with_argmax_at(heads[0], 1, 2, -1) == 1);
}
