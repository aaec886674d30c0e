// The analysis lab's entry point (lab.hpp): dispatch on state.lab.view, errors for unknown views
// and malformed lab objects, and the "patterns" view on a state whose heads are built to be one
// class each (golden labels by construction, not from the code under test).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "attn/error.hpp"
#include "attn/lab.hpp"

using json = nlohmann::json;

namespace {

/// A weights-mode state of n tokens with the given heads (each n x n rows).
json state_with(const std::vector<json>& weights, int n) {
    json heads = json::array();
    for (std::size_t h = 0; h < weights.size(); ++h)
        heads.push_back({{"name", "H" + std::to_string(h)},
                         {"Q", nullptr},
                         {"K", nullptr},
                         {"V", nullptr},
                         {"logits", nullptr},
                         {"weights", weights[h]}});
    json tokens = json::array();
    for (int i = 0; i < n; ++i) tokens.push_back("t" + std::to_string(i));
    return {{"version", 1},
            {"mode", "weights"},
            {"heads", heads},
            {"head", 0},
            {"tokens", {{"queries", tokens}, {"keys", tokens}}},
            {"mask", {{"causal", false}, {"window", 0}, {"padding", std::vector<bool>(n, false)}, {"allow", nullptr}}},
            {"tau", 1},
            {"scale", "auto"},
            {"topK", 2},
            {"row", 0},
            {"view", {{"panel", "weights"}, {"preset", "custom"}, {"numbers", "auto"}}},
            {"source", ""}};
}

json matrix(int n, double (*f)(int, int)) {
    json m = json::array();
    for (int i = 0; i < n; ++i) {
        json row = json::array();
        for (int j = 0; j < n; ++j) row.push_back(f(i, j));
        m.push_back(row);
    }
    return m;
}

}  // namespace

TEST_CASE("lab: no lab or view none gives {view: none}, unknown views and fields are errors", "[lab]") {
    const int n = 4;
    json s = state_with({matrix(n, [](int i, int j) { return i == j ? 1.0 : 0.0; })}, n);
    CHECK(json::parse(attn::lab_state_json(s.dump())) == json{{"view", "none"}});
    s["lab"] = {{"view", "none"}};
    CHECK(json::parse(attn::lab_state_json(s.dump()))["view"] == "none");
    s["lab"] = {{"view", "astrology"}};
    CHECK_THROWS_WITH(attn::lab_state_json(s.dump()),
                      Catch::Contains("lab.view must be one of") && Catch::Contains("(got \"astrology\")"));
    s["lab"] = {{"view", "patterns"}, {"extra", 1}};
    CHECK_THROWS_WITH(attn::lab_state_json(s.dump()), Catch::Contains("lab has an unknown field \"extra\""));
    s["lab"] = {{"view", "patterns"}, {"params", 3}};
    CHECK_THROWS_AS(attn::lab_state_json(s.dump()), attn::Error);
    CHECK(attn::lab_views().front() == "patterns");
}

TEST_CASE("lab patterns: a self head, a previous-token head and a sink head are labelled so", "[lab]") {
    const int n = 8;
    const json self = matrix(n, [](int i, int j) { return i == j ? 1.0 : 0.0; });
    const json prev = matrix(n, [](int i, int j) { return i == 0 ? (j == 0 ? 1.0 : 0.0) : (j == i - 1 ? 1.0 : 0.0); });
    const json sink =
        matrix(n, [](int i, int j) { return j == 0 ? 0.9 + (i == 0 ? 0.1 : 0.0) : (j == i ? 0.1 : 0.0); });
    json s = state_with({self, prev, sink}, n);
    s["head"] = 1;
    s["lab"] = {{"view", "patterns"}, {"params", json::object()}};
    const json out = json::parse(attn::lab_state_json(s.dump()));
    REQUIRE(out["view"] == "patterns");
    REQUIRE(out["heads"].size() == 3);
    CHECK(out["heads"][0]["kind"] == "self");
    CHECK(out["heads"][1]["kind"] == "previous");
    CHECK(out["heads"][2]["kind"] == "sink");
    CHECK(out["heads"][0]["confidence"].get<double>() == Approx(1.0));
    CHECK(out["heads"][2]["scores"]["sink"].get<double>() == Approx((7 * 0.9 + 1.0) / 8));
    CHECK(out["heads"][1]["name"] == "H1");
}
