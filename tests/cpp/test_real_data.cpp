// Weights mode on real attention: GPT-2 small, layer 0, all 12 heads, on a 33-token sentence
// (web/data/real/gpt2-small_L0_nlp-sentence, parsed from TransformerLens notebook outputs).
// Expected values are computed here from the file, in double precision, independently of the core.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "attn/attention.hpp"
#include "fixtures.hpp"

#ifndef ATTN_DATA_DIR
#error "ATTN_DATA_DIR must point at web/data (set by CMakeLists.txt)"
#endif

using attn_test::Near;

namespace {

const nlohmann::json& gpt2_layer0() {
    static const nlohmann::json doc = [] {
        const std::string path = std::string(ATTN_DATA_DIR) + "/real/gpt2-small_L0_nlp-sentence/attention.json";
        std::ifstream in(path);
        if (!in) throw std::runtime_error("cannot open " + path);
        return nlohmann::json::parse(in);
    }();
    return doc;
}

/// Head h of layer 0 as a float32 matrix (the file's values are float32 already).
attn::Matrix head_matrix(int h) {
    const auto& rows = gpt2_layer0().at("attention").at(0).at(h);
    const int n = static_cast<int>(rows.size());
    attn::Matrix m(n, n);
    for (int t = 0; t < n; ++t) {
        REQUIRE(static_cast<int>(rows[t].size()) == n);
        for (int j = 0; j < n; ++j) m(t, j) = rows[t][j].get<float>();
    }
    return m;
}

/// Mean over rows of -sum p ln p of a^(1/tau) renormalised per row, in double, from the file.
double file_mean_entropy(const attn::Matrix& a, double tau) {
    double total = 0;
    for (int t = 0; t < a.rows; ++t) {
        std::vector<double> p(static_cast<std::size_t>(a.cols));
        double z = 0;
        for (int j = 0; j < a.cols; ++j) {
            p[j] = a(t, j) > 0 ? std::pow(double(a(t, j)), 1.0 / tau) : 0.0;
            z += p[j];
        }
        double h = 0;
        for (double x : p)
            if (x > 0) h -= (x / z) * std::log(x / z);
        total += h;
    }
    return total / a.rows;
}

}  // namespace

TEST_CASE("GPT-2 L0H0 in weights mode at tau 1 reproduces the file", "[real][weights]") {
    const attn::Matrix a = head_matrix(0);
    REQUIRE(a.rows == 33);
    REQUIRE(gpt2_layer0().at("tokens").size() == 33);

    const attn::Result r = attn::compute(attn_test::weights_problem(a));
    REQUIRE(r.n_q == 33);
    REQUIRE(r.n_k == 33);

    for (int t = 0; t < 33; ++t) {
        INFO("row " << t);
        double sum = 0;
        for (int j = 0; j < 33; ++j) {
            CHECK_THAT(r.weights(t, j), Near(a(t, j)));
            sum += r.weights(t, j);
        }
        CHECK_THAT(sum, Near(1.0));
        const attn::RowMetrics& m = r.rows[static_cast<std::size_t>(t)];
        CHECK_THAT(m.row_sum, Near(1.0));
        // The file is causal with no zero on or below the diagonal (checked in python3), so the
        // zeros above it alone give |Omega_t| = t + 1 without a causal flag.
        CHECK(m.visible == t + 1);
        CHECK_THAT(m.sink_mass, Near(a(t, 0)));
    }
}

TEST_CASE("GPT-2 L0H0: column 0 sums to about 9.74, the rows (not columns) are normalised", "[real][weights]") {
    const attn::Matrix a = head_matrix(0);
    const attn::Result r = attn::compute(attn_test::weights_problem(a));

    // Column sums of the file, in double. python3 gives 9.743940398097038 for column 0.
    double file_col0 = 0;
    for (int t = 0; t < a.rows; ++t) file_col0 += a(t, 0);
    CHECK_THAT(file_col0, Near(9.7439403981, 1e-6));
    // Far from 1: a core that normalised over queries (the wrong axis) would give ~1 here.
    CHECK(file_col0 > 5.0);

    for (int j = 0; j < a.cols; ++j) {
        INFO("column " << j);
        double file_col = 0, core_col = 0;
        for (int t = 0; t < a.rows; ++t) {
            file_col += a(t, j);
            core_col += r.weights(t, j);
        }
        CHECK_THAT(core_col, Near(file_col, 1e-5));
    }
}

TEST_CASE("GPT-2 L0H0: raising tau raises the mean entropy", "[real][weights][temperature]") {
    const attn::Matrix a = head_matrix(0);
    attn::Problem p = attn_test::weights_problem(a);

    const attn::Result r1 = attn::compute(p);
    p.tau = 2;
    const attn::Result r2 = attn::compute(p);

    // From the file in double: python3 gives 2.1467162844745054 (tau 1) and 2.4580773834330474
    // (tau 2) for the mean over the 33 rows of H(a^(1/tau) / sum).
    const double want1 = file_mean_entropy(a, 1.0);
    const double want2 = file_mean_entropy(a, 2.0);
    CHECK_THAT(want1, Near(2.1467162845, 1e-8));
    CHECK_THAT(want2, Near(2.4580773834, 1e-8));

    CHECK_THAT(r1.summary.mean_entropy, Near(want1, 1e-5));
    CHECK_THAT(r2.summary.mean_entropy, Near(want2, 1e-5));
    CHECK(r2.summary.mean_entropy > r1.summary.mean_entropy + 0.1);
    CHECK(r1.summary.empty_rows == 0);

    // Row 1 by hand from the file: a = (0.9639418125, 0.0360582098); at tau 2 the weights are
    // sqrt(a) renormalised.
    const double s0 = std::sqrt(double(a(1, 0))), s1 = std::sqrt(double(a(1, 1)));
    CHECK_THAT(r2.weights(1, 0), Near(s0 / (s0 + s1)));
    CHECK_THAT(r2.weights(1, 1), Near(s1 / (s0 + s1)));
}

TEST_CASE("GPT-2 layer 0: every head is reproduced at tau 1", "[real][weights]") {
    for (int h = 0; h < 12; ++h) {
        INFO("head " << h);
        const attn::Matrix a = head_matrix(h);
        const attn::Result r = attn::compute(attn_test::weights_problem(a));
        for (int t = 0; t < a.rows; ++t) {
            double z = 0;
            for (int j = 0; j < a.cols; ++j) z += a(t, j);
            for (int j = 0; j < a.cols; ++j) REQUIRE_THAT(r.weights(t, j), Near(a(t, j) / z));
            REQUIRE_THAT(r.rows[static_cast<std::size_t>(t)].row_sum, Near(1.0));
        }
    }
}
