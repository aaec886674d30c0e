// Lab view "saturation" (cpp/src/lab/lab_saturation.cpp) on worked example 1 of the lesson
// (q = (1,0), k1 = (1,0), k2 = (0,1), no scaling: scores 1 and 0, weights 0.7310585786,
// 0.2689414214, MATH.md). With two keys everything has a closed form in x = Delta/tau,
// derived by hand for this test: p1 = sigmoid(x), J_11 = p1 p2 / tau, H'(x) = -x p1 p2 so
// dH/dz_1 = -x p1 p2 / tau = -dH/dz_2, dH/dtau = p1 p2 Delta^2 / tau^3.
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

json example1(double tau) {
    return {{"version", 1},
            {"mode", "qkv"},
            {"heads",
             {{{"name", "example 1"},
               {"Q", {{1, 0}}},
               {"K", {{1, 0}, {0, 1}}},
               {"V", {{2, 0}, {0, 4}}},
               {"logits", nullptr},
               {"weights", nullptr}}}},
            {"head", 0},
            {"tokens", {{"queries", {"q"}}, {"keys", {"k1", "k2"}}}},
            {"mask", {{"causal", false}, {"window", 0}, {"padding", {false, false}}, {"allow", nullptr}}},
            {"tau", tau},
            {"scale", 1},
            {"topK", 2},
            {"row", 0},
            {"view", {{"panel", "weights"}, {"preset", "example1"}, {"numbers", "auto"}}},
            {"source", ""},
            {"lab", {{"view", "saturation"}, {"params", json::object()}}}};
}

json run(const json& s) {
    return json::parse(attn::lab_state_json(s.dump()));
}

double sigmoid(double x) {
    return 1 / (1 + std::exp(-x));
}

}  // namespace

TEST_CASE("lab saturation: worked example 1 at tau 1 and 2", "[lab][saturation]") {
    json out = run(example1(1));
    REQUIRE(out["view"] == "saturation");
    CHECK(out["gap"] == 1.0);
    CHECK(out["x"] == 1.0);
    CHECK_THAT(out["a1"].get<double>(), Near(0.7310585786, 1e-10, 0));
    CHECK_THAT(out["twoTokenEntropy"].get<double>(), Near(0.5822031089, 1e-10, 0));  // MATH.md H
    CHECK_THAT(out["entropy"].get<double>(), Near(0.5822031089, 1e-7, 0));
    CHECK_THAT(out["topWeight"].get<double>(), Near(0.7310585786, 1e-7, 0));
    CHECK(out["topKeys"] == json({0, 1}));
    CHECK(out["keys"] == json({0, 1}));
    const json& J = out["jacobian"]["matrix"];
    CHECK(out["jacobian"]["complete"] == true);
    CHECK_THAT(J[0][0].get<double>(), Near(0.196611933, 1e-9, 0));
    CHECK_THAT(J[0][1].get<double>(), Near(-0.196611933, 1e-9, 0));
    CHECK_THAT(J[1][1].get<double>(), Near(0.196611933, 1e-9, 0));
    CHECK_THAT(out["jacobian"]["frobenius"].get<double>(), Near(2 * 0.196611933, 1e-9, 0));
    CHECK_THAT(out["dHdz"][0].get<double>(), Near(-0.196611933, 1e-9, 0));
    CHECK_THAT(out["dHdz"][1].get<double>(), Near(0.196611933, 1e-9, 0));
    CHECK_THAT(out["dHdtau"].get<double>(), Near(0.196611933, 1e-9, 0));

    out = run(example1(2));
    const double x = 0.5, p1 = sigmoid(x), pp = p1 * (1 - p1);
    CHECK(out["x"] == 0.5);
    CHECK(out["gap"] == 1.0);
    CHECK_THAT(out["a1"].get<double>(), Near(p1, 1e-12, 0));
    CHECK_THAT(out["jacobian"]["matrix"][0][0].get<double>(), Near(pp / 2, 1e-9, 0));
    CHECK_THAT(out["dHdz"][0].get<double>(), Near(-x * pp / 2, 1e-9, 0));
    CHECK_THAT(out["dHdtau"].get<double>(), Near(pp * 1.0 / 8, 1e-9, 0));
}

TEST_CASE("lab saturation: the curves", "[lab][saturation]") {
    json s = example1(1);
    s["lab"]["params"] = {{"gapRange", 5}};
    const json out = run(s);
    const json& c = out["curve"];
    REQUIRE(c["x"].size() == 101);
    CHECK(c["x"][0] == -5.0);
    CHECK(c["x"][100] == 5.0);
    CHECK(c["x"][50] == 0.0);
    CHECK(c["a1"][50] == 0.5);
    CHECK_THAT(c["entropy"][50].get<double>(), Near(std::log(2.0), 1e-15, 0));
    CHECK_THAT(c["a1"][100].get<double>(), Near(sigmoid(5), 1e-15, 0));
    CHECK(out["inRange"] == true);
    for (double bad : {0.1, 1000.0}) {
        s["lab"]["params"] = {{"gapRange", bad}};
        CHECK_THROWS_AS(run(s), attn::Error);
    }
    s["lab"]["params"] = {{"jacobianKeys", 2.5}};
    CHECK_THROWS_AS(run(s), attn::Error);
}

TEST_CASE("lab saturation: one visible key, an empty row, a capped Jacobian", "[lab][saturation]") {
    json s = example1(1);
    s["mask"]["padding"] = {false, true};
    json out = run(s);
    CHECK(out["visible"] == 1);
    CHECK(out["gap"].is_null());
    CHECK(out["a1"].is_null());
    CHECK(out["inRange"] == false);
    CHECK(out["dHdz"] == json({0.0}));
    CHECK(out["dHdtau"] == 0.0);
    CHECK(out["jacobian"]["matrix"] == json({{0.0}}));

    s["mask"]["padding"] = {true, true};
    out = run(s);
    CHECK(out["empty"] == true);
    for (const char* f : {"gap", "x", "a1", "twoTokenEntropy", "topWeight", "entropy", "dHdtau"})
        CHECK(out[f].is_null());
    CHECK(out["dHdz"].empty());
    CHECK(out["jacobian"]["matrix"].empty());
    CHECK(out["curve"]["x"].size() == 101);  // the curves do not depend on the row

    // Five keys, scores 4, 3, 2, 1, 0, block of the 3 largest weights: keys 0, 1, 2.
    json five = example1(1);
    five["mode"] = "logits";
    five["heads"][0]["logits"] = {{4, 3, 2, 1, 0}};
    five["heads"][0]["V"] = nullptr;
    // Q and K of example 1 do not fit five keys; a matrix the mode does not use must still fit
    // (docs/state.md), so they go.
    five["heads"][0]["Q"] = nullptr;
    five["heads"][0]["K"] = nullptr;
    five["tokens"]["keys"] = {"a", "b", "c", "d", "e"};
    five["mask"]["padding"] = {false, false, false, false, false};
    five["lab"]["params"] = {{"jacobianKeys", 3}};
    out = run(five);
    CHECK(out["jacobian"]["complete"] == false);
    CHECK(out["jacobian"]["keys"] == json({0, 1, 2}));
    CHECK(out["gap"] == 1.0);
    CHECK(out["dHdz"].size() == 5);
    // Jacobian entries from the softmax of (4, 3, 2, 1, 0) computed here.
    double z = 0;
    for (int j = 0; j < 5; ++j) z += std::exp(-j);
    const double p0 = 1 / z, p1 = std::exp(-1) / z;
    CHECK_THAT(out["jacobian"]["matrix"][0][1].get<double>(), Near(-p0 * p1, 1e-7, 0));
    CHECK_THAT(out["jacobian"]["matrix"][0][0].get<double>(), Near(p0 * (1 - p0), 1e-7, 0));
}
