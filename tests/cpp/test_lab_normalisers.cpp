// Lab view "normalisers" (cpp/src/lab/lab_normalisers.cpp) on a logits state whose rows are the
// golden rows of docs/MATH.md (sparsemax and 1.5-entmax values from there; the softmax ones
// computed in this file), with a masked cell, an empty row (all cells null) and params errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "approx.hpp"
#include "attn/error.hpp"
#include "attn/lab.hpp"

using json = nlohmann::json;
using attn_test::Near;

namespace {

json logits_state(const json& logits, int n_q, int n_k) {
    json q = json::array(), k = json::array();
    for (int i = 0; i < n_q; ++i) q.push_back("q" + std::to_string(i));
    for (int j = 0; j < n_k; ++j) k.push_back("k" + std::to_string(j));
    return {
        {"version", 1},
        {"mode", "logits"},
        {"heads",
         {{{"name", "H0"}, {"Q", nullptr}, {"K", nullptr}, {"V", nullptr}, {"logits", logits}, {"weights", nullptr}}}},
        {"head", 0},
        {"tokens", {{"queries", q}, {"keys", k}}},
        {"mask", {{"causal", false}, {"window", 0}, {"padding", std::vector<bool>(n_k, false)}, {"allow", nullptr}}},
        {"tau", 1},
        {"scale", "auto"},
        {"topK", 2},
        {"row", 0},
        {"view", {{"panel", "weights"}, {"preset", "custom"}, {"numbers", "auto"}}},
        {"source", ""}};
}

json run(json s) {
    return json::parse(attn::lab_state_json(s.dump()));
}

void check_weights(const json& got, std::initializer_list<double> want, double tol = 1e-6) {
    REQUIRE(got.size() == want.size());
    std::size_t j = 0;
    for (double w : want) {
        INFO("key " << j);
        if (std::isnan(w))
            CHECK(got[j].is_null());
        else
            CHECK_THAT(got[j].get<double>(), Near(w, tol, 0));
        ++j;
    }
}

const double kMasked = std::nan("");

}  // namespace

TEST_CASE("lab normalisers: golden rows, a masked key, an empty row", "[lab][normalisers]") {
    const json logits = {{1, 0.8, 0.1}, {0.5, nullptr, 1.0}, {nullptr, nullptr, nullptr}, {3, 1, 1}};
    json s = logits_state(logits, 4, 3);
    s["lab"] = {{"view", "normalisers"}, {"params", json::object()}};
    json out = run(s);
    REQUIRE(out["view"] == "normalisers");
    CHECK(out["alpha"] == 1.5);
    CHECK(out["method"] == "exact-1.5");
    CHECK(out["emptyRows"] == 1);
    REQUIRE(out["rows"].size() == 4);

    // Row 0 in detail (state.row = 0).
    const json& sel = out["selected"];
    CHECK(sel["query"] == 0);
    check_weights(sel["sparsemax"]["weights"], {0.6, 0.4, 0});
    CHECK(sel["sparsemax"]["weights"][2] == 0.0);
    check_weights(sel["entmax"]["weights"], {0.5292478943, 0.3937490429, 0.0770030628});
    // softmax of (1, 0.8, 0.1): e^0 : e^-0.2 : e^-0.9 normalised, computed here.
    const double e1 = std::exp(-0.2), e2 = std::exp(-0.9), z = 1 + e1 + e2;
    check_weights(sel["softmax"]["weights"], {1 / z, e1 / z, e2 / z});
    CHECK(sel["sparsemax"]["support"] == 2);
    CHECK(sel["sparsemax"]["zeros"] == 1);
    CHECK(sel["entmax"]["zeros"] == 0);
    CHECK(sel["softmax"]["zeros"] == 0);
    // Entropy of (0.6, 0.4): -0.6 ln 0.6 - 0.4 ln 0.4.
    CHECK_THAT(sel["sparsemax"]["entropy"].get<double>(), Near(-0.6 * std::log(0.6) - 0.4 * std::log(0.4), 1e-6, 0));
    check_weights(sel["z"], {1, 0.8, 0.1});

    // Row 1: the masked key is null, not a zero.
    CHECK(out["rows"][1]["visible"] == 2);
    CHECK(out["rows"][1]["sparsemax"]["zeros"] == 0);
    // Row 2: empty, every metric null.
    const json& e = out["rows"][2];
    CHECK(e["empty"] == true);
    for (const char* k : {"softmax", "sparsemax", "entmax"}) {
        CHECK(e[k]["entropy"].is_null());
        CHECK(e[k]["support"].is_null());
        CHECK(e[k]["zeros"].is_null());
    }
    // Row 3: sparsemax (1, 0, 0): two exact zeros.
    CHECK(out["rows"][3]["sparsemax"]["zeros"] == 2);
    CHECK(out["rows"][3]["sparsemax"]["entropy"] == 0.0);
    // Totals over the three non-empty rows: sparsemax zeros 1 + 0 + 2.
    CHECK(out["summary"]["sparsemax"]["zeros"] == 3);
    CHECK(out["summary"]["softmax"]["zeros"] == 0);

    // The selected row may be the masked one or the empty one.
    s["row"] = 1;
    out = run(s);
    check_weights(out["selected"]["sparsemax"]["weights"], {0.25, kMasked, 0.75});
    CHECK(out["selected"]["z"][1].is_null());
    s["row"] = 2;
    out = run(s);
    CHECK(out["selected"]["empty"] == true);
    check_weights(out["selected"]["entmax"]["weights"], {kMasked, kMasked, kMasked});
    CHECK(out["selected"]["entmax"]["threshold"].is_null());
}

TEST_CASE("lab normalisers: alpha param, temperature, ranges", "[lab][normalisers]") {
    json s = logits_state({{0.5, 0.2, -0.1, -1}}, 1, 4);
    s["lab"] = {{"view", "normalisers"}, {"params", {{"alpha", 2}}}};
    json out = run(s);
    CHECK(out["method"] == "sparsemax");
    // alpha 2 is sparsemax: the two columns agree.
    CHECK(out["selected"]["entmax"]["weights"] == out["selected"]["sparsemax"]["weights"]);
    s["lab"]["params"]["alpha"] = 1;
    out = run(s);
    CHECK(out["method"] == "softmax");
    for (int j = 0; j < 4; ++j)
        CHECK_THAT(out["selected"]["entmax"]["weights"][j].get<double>(),
                   Near(out["selected"]["softmax"]["weights"][j].get<double>(), 1e-6, 0));
    s["lab"]["params"]["alpha"] = 1.5;
    out = run(s);
    check_weights(out["selected"]["entmax"]["weights"], {0.5100964421, 0.3183333333, 0.1715702245, 0});
    s["lab"]["params"]["alpha"] = 1.7;
    out = run(s);
    CHECK(out["method"] == "bisection");
    CHECK(out["iterations"].get<int>() >= 24);
    // tau = 2: sparsemax of (0.25, 0.1, -0.05, -0.5): k* = 3, theta = (0.3 - 1)/3, so
    // (0.25 + 0.7/3, 0.1 + 0.7/3, -0.05 + 0.7/3, 0).
    s["tau"] = 2;
    out = run(s);
    CHECK(out["tau"] == 2.0);
    check_weights(out["selected"]["sparsemax"]["weights"], {0.25 + 0.7 / 3, 0.1 + 0.7 / 3, -0.05 + 0.7 / 3, 0});
    for (double bad : {0.99, 4.01, -1.0}) {
        s["lab"]["params"]["alpha"] = bad;
        try {
            run(s);
            FAIL("no throw for alpha " << bad);
        } catch (const attn::Error& e) {
            CHECK(e.code() == attn::ErrorCode::kInvalidValue);
            CHECK(e.field() == "lab.params.alpha");
        }
    }
}

TEST_CASE("lab normalisers: a one-token state", "[lab][normalisers]") {
    json s = logits_state({{0.3}}, 1, 1);
    s["lab"] = {{"view", "normalisers"}, {"params", {{"alpha", 1.3}}}};
    const json out = run(s);
    for (const char* k : {"softmax", "sparsemax", "entmax"}) {
        INFO(k);
        check_weights(out["selected"][k]["weights"], {1.0}, 1e-12);
        CHECK(out["selected"][k]["entropy"] == 0.0);
        CHECK(out["selected"][k]["support"] == 1);
    }
}
