// The state-document adapter (state_json.hpp, docs/state.md): the example state of docs/state.md
// gives seed example 1's numbers, bad documents are refused with typed errors, null logits are
// masked cells, and the results JSON follows the documented schema.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "approx.hpp"
#include "attn/attention.hpp"
#include "attn/state_json.hpp"
#include "fixtures.hpp"

using attn::ErrorCode;
using attn_test::Near;
using nlohmann::json;

namespace {

// Verbatim from docs/state.md, "State schema (version 1)".
const char* const kExample1State = R"({
  "version": 1,
  "mode": "qkv",
  "heads": [
    {
      "name": "example 1",
      "Q": [[1, 0]],
      "K": [[1, 0], [0, 1]],
      "V": [[2, 0], [0, 4]],
      "logits": null,
      "weights": null
    }
  ],
  "head": 0,
  "tokens": { "queries": ["q"], "keys": ["k1", "k2"] },
  "mask": { "causal": false, "window": 0, "padding": [false, false], "allow": null },
  "tau": 1,
  "scale": 1,
  "topK": 2,
  "row": 0,
  "view": { "panel": "weights", "preset": "example1", "numbers": "auto" },
  "source": "Worked example 1 of the lesson"
})";

json example1() {
    return json::parse(kExample1State);
}

/// A logits-mode state with n_q x n_k cells; `logits` may hold nulls.
json logits_state(const json& logits, int n_q, int n_k) {
    json s = example1();
    s["mode"] = "logits";
    s["heads"][0]["Q"] = nullptr;
    s["heads"][0]["K"] = nullptr;
    s["heads"][0]["V"] = nullptr;
    s["heads"][0]["logits"] = logits;
    s["tokens"]["queries"] = json::array();
    s["tokens"]["keys"] = json::array();
    for (int t = 0; t < n_q; ++t) s["tokens"]["queries"].push_back("q" + std::to_string(t));
    for (int j = 0; j < n_k; ++j) s["tokens"]["keys"].push_back("k" + std::to_string(j));
    s["mask"]["padding"] = json::array();
    for (int j = 0; j < n_k; ++j) s["mask"]["padding"].push_back(false);
    s["row"] = 0;
    return s;
}

/// Code of the attn::Error thrown by f(); fails the test when nothing or something else is thrown.
ErrorCode code_thrown(const std::function<void()>& f) {
    try {
        f();
    } catch (const attn::Error& e) {
        INFO("message: " << e.what() << ", field: " << e.field());
        return e.code();
    } catch (const std::exception& e) {
        FAIL("threw a non-attn exception: " << e.what());
    }
    FAIL("no exception thrown");
    return ErrorCode::kTooLarge;  // unreachable
}

/// Both entry points refuse `doc` with `want`.
void check_refused(const std::string& doc, ErrorCode want) {
    INFO("document: " << doc.substr(0, 300));
    INFO("expected " << attn::to_string(want));
    const ErrorCode a = code_thrown([&] { (void)attn::problem_from_state_json(doc); });
    INFO("problem_from_state_json threw " << attn::to_string(a));
    CHECK(a == want);
    const ErrorCode b = code_thrown([&] { (void)attn::compute_state_json(doc); });
    INFO("compute_state_json threw " << attn::to_string(b));
    CHECK(b == want);
}

}  // namespace

TEST_CASE("problem_from_state_json reads the example state", "[state]") {
    const attn::Problem p = attn::problem_from_state_json(kExample1State);
    CHECK(p.mode == attn::Mode::qkv);
    REQUIRE(p.q.rows == 1);
    REQUIRE(p.q.cols == 2);
    REQUIRE(p.k.rows == 2);
    REQUIRE(p.v.rows == 2);
    REQUIRE(p.v.cols == 2);
    CHECK(p.q(0, 0) == 1.0f);
    CHECK(p.k(1, 1) == 1.0f);
    CHECK(p.v(1, 1) == 4.0f);
    CHECK(p.tau == 1.0);
    CHECK(p.scale == 1.0);
    CHECK(p.top_k == 2);
    CHECK_FALSE(p.mask.causal);
    CHECK(p.mask.window == 0);
}

TEST_CASE("compute_state_json on the example state gives seed example 1", "[state][golden]") {
    const json r = json::parse(attn::compute_state_json(kExample1State));
    INFO(r.dump());

    CHECK(r.at("version") == 1);
    CHECK(r.at("mode") == "qkv");
    CHECK(r.at("head") == 0);
    CHECK(r.at("nQ") == 1);
    CHECK(r.at("nK") == 2);
    CHECK(r.at("dV") == 2);
    CHECK_THAT(r.at("scale").get<double>(), Near(1.0));

    CHECK_THAT(r.at("scores")[0][0].get<double>(), Near(1.0));
    CHECK_THAT(r.at("scores")[0][1].get<double>(), Near(0.0));
    // MATH.md seed example 1.
    CHECK_THAT(r.at("weights")[0][0].get<double>(), Near(0.7310585786));
    CHECK_THAT(r.at("weights")[0][1].get<double>(), Near(0.2689414214));
    CHECK_THAT(r.at("output")[0][0].get<double>(), Near(1.462117157));
    CHECK_THAT(r.at("output")[0][1].get<double>(), Near(1.075765685));
    CHECK(r.at("visible") == json::parse("[[true, true]]"));

    const json& row = r.at("rows").at(0);
    CHECK(row.at("empty") == false);
    CHECK(row.at("visible") == 2);
    CHECK_THAT(row.at("entropy").get<double>(), Near(0.5822031089));
    CHECK_THAT(row.at("normalizedEntropy").get<double>(), Near(0.8399415380));  // python3
    CHECK_THAT(row.at("nEff").get<double>(), Near(1.7899776055));               // python3
    CHECK_THAT(row.at("topKMass").get<double>(), Near(1.0));
    CHECK_THAT(row.at("sinkMass").get<double>(), Near(0.7310585786));
    CHECK_THAT(row.at("rowSum").get<double>(), Near(1.0));

    const json& s = r.at("summary");
    CHECK(s.at("rows") == 1);
    CHECK(s.at("emptyRows") == 0);
    CHECK_THAT(s.at("meanEntropy").get<double>(), Near(0.5822031089));
    CHECK_THAT(s.at("meanNormalizedEntropy").get<double>(), Near(0.8399415380));
    CHECK_THAT(s.at("meanNEff").get<double>(), Near(1.7899776055));
    CHECK_THAT(s.at("meanTopKMass").get<double>(), Near(1.0));
    CHECK_THAT(s.at("meanSinkMass").get<double>(), Near(0.7310585786));
}

TEST_CASE("state scale \"auto\" is 1/sqrt(d_k)", "[state][golden]") {
    json s = example1();
    s["scale"] = "auto";
    const json r = json::parse(attn::compute_state_json(s.dump()));
    CHECK_THAT(r.at("scale").get<double>(), Near(0.7071067812));
    CHECK_THAT(r.at("output")[0][0].get<double>(), Near(1.339523099));  // MATH.md
    CHECK_THAT(r.at("output")[0][1].get<double>(), Near(1.320953803));
}

TEST_CASE("state tau and topK reach the core", "[state]") {
    json s = example1();
    s["tau"] = 0.5;
    s["topK"] = 1;
    const json r = json::parse(attn::compute_state_json(s.dump()));
    // python3: softmax([1, 0] / 0.5) = (0.8807970779778823, 0.11920292202211755)
    CHECK_THAT(r.at("weights")[0][0].get<double>(), Near(0.8807970780));
    CHECK_THAT(r.at("rows")[0].at("topKMass").get<double>(), Near(0.8807970780));
}

TEST_CASE("state with the causal flag and a selected head", "[state][mask]") {
    // Two heads; head 1 is selected. Seed example 2 as a qkv-free logits head would need -inf,
    // which JSON cannot carry, so use null cells plus the causal flag.
    json s = logits_state(json::parse("[[0, 5, 5], [0, 1.0986122886681098, 5], "
                                      "[0.6931471805599453, 0, 0]]"),
                          3, 3);
    json other = s["heads"][0];
    other["logits"] = json::parse("[[0, 0, 0], [0, 0, 0], [0, 0, 0]]");
    s["heads"] = json::array({other, s["heads"][0]});
    s["head"] = 1;
    s["mask"]["causal"] = true;
    s["heads"][1]["V"] = json::parse("[[2], [6], [10]]");
    const json r = json::parse(attn::compute_state_json(s.dump()));
    INFO(r.dump());
    CHECK(r.at("head") == 1);
    CHECK(r.at("mode") == "logits");
    // MATH.md seed example 2: A = [[1,0,0],[1/4,3/4,0],[1/2,1/4,1/4]], output (2,5,5).
    const double want[3][3] = {{1, 0, 0}, {0.25, 0.75, 0}, {0.5, 0.25, 0.25}};
    for (int t = 0; t < 3; ++t)
        for (int j = 0; j < 3; ++j) CHECK_THAT(r.at("weights")[t][j].get<double>(), Near(want[t][j]));
    CHECK_THAT(r.at("output")[1][0].get<double>(), Near(5.0));
    CHECK_THAT(r.at("output")[2][0].get<double>(), Near(5.0));
    CHECK(r.at("scores")[0][1].is_null());  // not visible
    CHECK(r.at("visible")[0][1] == false);
}

TEST_CASE("null logits are masked cells", "[state][mask]") {
    // By hand: row 0 sees keys {0, 2} with scores (0, 0) -> (1/2, 0, 1/2);
    // row 1 sees keys {1, 2} with scores (0, ln 3) -> (0, 1/4, 3/4).
    const json s = logits_state(json::parse("[[0, null, 0], [null, 0, 1.0986122886681098]]"), 2, 3);
    const json r = json::parse(attn::compute_state_json(s.dump()));
    INFO(r.dump());
    CHECK(r.at("nQ") == 2);
    CHECK(r.at("nK") == 3);
    CHECK_THAT(r.at("weights")[0][0].get<double>(), Near(0.5));
    CHECK(r.at("weights")[0][1].get<double>() == 0.0);
    CHECK_THAT(r.at("weights")[0][2].get<double>(), Near(0.5));
    CHECK(r.at("weights")[1][0].get<double>() == 0.0);
    CHECK_THAT(r.at("weights")[1][1].get<double>(), Near(0.25));
    CHECK_THAT(r.at("weights")[1][2].get<double>(), Near(0.75));
    CHECK(r.at("visible") == json::parse("[[true, false, true], [false, true, true]]"));
    CHECK(r.at("scores")[0][1].is_null());
    CHECK(r.at("scores")[1][0].is_null());
    CHECK_THAT(r.at("scores")[1][2].get<double>(), Near(1.0986122887));
    CHECK(r.at("rows")[0].at("visible") == 2);
    CHECK_THAT(r.at("rows")[1].at("entropy").get<double>(), Near(0.5623351446));  // MATH.md
}

TEST_CASE("weights-mode state re-tempers the given rows", "[state][weights]") {
    json s = logits_state(nullptr, 1, 2);
    s["mode"] = "weights";
    s["heads"][0]["logits"] = nullptr;
    s["heads"][0]["weights"] = json::parse("[[0.2, 0.8]]");
    s["tau"] = 2;
    const json r = json::parse(attn::compute_state_json(s.dump()));
    // By hand: sqrt(.2), sqrt(.8) renormalised = (1/3, 2/3).
    CHECK_THAT(r.at("weights")[0][0].get<double>(), Near(1.0 / 3));
    CHECK_THAT(r.at("weights")[0][1].get<double>(), Near(2.0 / 3));
}

TEST_CASE("an empty row has null metrics in the results JSON", "[state][empty]") {
    json s = example1();
    s["mask"]["allow"] = json::parse("[[false, false]]");
    const json r = json::parse(attn::compute_state_json(s.dump()));
    INFO(r.dump());
    const json& row = r.at("rows").at(0);
    CHECK(row.at("empty") == true);
    CHECK(row.at("visible") == 0);
    // Every metric the table says is undefined on an empty row is null; the others are 0.
    for (const attn::RowMetricInfo& m : attn::kRowMetrics) {
        INFO(m.key);
        if (m.undefined_when_empty)
            CHECK(row.at(m.key).is_null());
        else
            CHECK(row.at(m.key) == 0);
    }
    CHECK(r.at("weights") == json::parse("[[0, 0]]"));
    CHECK(r.at("output") == json::parse("[[0, 0]]"));
    CHECK(r.at("summary").at("emptyRows") == 1);
    CHECK(r.at("summary").at("meanEntropy").is_null());
}

TEST_CASE("bad state documents are refused with typed errors", "[state][errors]") {
    json s = example1();
    SECTION("not JSON") {
        check_refused("{\"version\": 1, \"mode\": ", ErrorCode::kBadState);
    }
    SECTION("a JSON array, not an object") {
        check_refused("[1, 2, 3]", ErrorCode::kBadState);
    }
    SECTION("version 2") {
        s["version"] = 2;
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("version missing") {
        s.erase("version");
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("mode \"foo\"") {
        s["mode"] = "foo";
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("heads missing") {
        s.erase("heads");
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("heads empty") {
        s["heads"] = json::array();
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("head index out of range") {
        s["head"] = 1;
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("tau as a string") {
        s["tau"] = "1";
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("scale as an unknown string") {
        s["scale"] = "big";
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("Q missing in qkv mode") {
        s["heads"][0]["Q"] = nullptr;
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("a matrix cell that is a string") {
        s["heads"][0]["K"][1][1] = "one";
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("logits missing in logits mode") {
        s["mode"] = "logits";
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("three key tokens for two keys") {
        s["tokens"]["keys"] = json::array({"k1", "k2", "k3"});
        check_refused(s.dump(), ErrorCode::kShapeMismatch);
    }
    SECTION("two query tokens for one query") {
        s["tokens"]["queries"] = json::array({"q", "r"});
        check_refused(s.dump(), ErrorCode::kShapeMismatch);
    }
    SECTION("padding of the wrong length") {
        s["mask"]["padding"] = json::array({false, false, false});
        check_refused(s.dump(), ErrorCode::kShapeMismatch);
    }
    SECTION("allow-matrix of the wrong shape") {
        s["mask"]["allow"] = json::parse("[[true, true], [true, true]]");
        check_refused(s.dump(), ErrorCode::kShapeMismatch);
    }
    SECTION("V rows not matching K") {
        s["heads"][0]["V"] = json::parse("[[2, 0], [0, 4], [1, 1]]");
        check_refused(s.dump(), ErrorCode::kShapeMismatch);
    }
    SECTION("allow-matrix of the right total size but the wrong shape (2 x 1 for 1 x 2)") {
        // Flattening the rows before checking would read this as [[true, false]].
        s["mask"]["allow"] = json::parse("[[true], [false]]");
        check_refused(s.dump(), ErrorCode::kShapeMismatch);
    }
    SECTION("ragged matrix") {
        s["heads"][0]["K"] = json::parse("[[1, 0], [0]]");
        check_refused(s.dump(), ErrorCode::kShapeMismatch);
    }
    SECTION("row out of range") {
        s["row"] = 1;
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("topK 0") {
        s["topK"] = 0;
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("padding flag that is not a boolean") {
        s["mask"]["padding"] = json::array({false, 1});
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("tau 0 is what validate() throws") {
        s["tau"] = 0;
        check_refused(s.dump(), ErrorCode::kBadTemperature);
    }
}

TEST_CASE("state fields outside the documented ranges are refused", "[state][errors][schema]") {
    // docs/state.md, field table: heads holds 1 to 64 head objects; 0 < tau <= 1000.
    // The code is the adapter's kBadState (or validate()'s kBadTemperature for tau).
    json s = example1();
    SECTION("65 heads") {
        json many = json::array();
        for (int i = 0; i < 65; ++i) many.push_back(s["heads"][0]);
        s["heads"] = many;
        check_refused(s.dump(), ErrorCode::kBadState);
    }
    SECTION("tau above 1000") {
        s["tau"] = 1000.5;
        const std::string doc = s.dump();
        const ErrorCode a = code_thrown([&] { (void)attn::problem_from_state_json(doc); });
        INFO("problem_from_state_json threw " << attn::to_string(a));
        CHECK((a == ErrorCode::kBadState || a == ErrorCode::kBadTemperature));
    }
    SECTION("tau exactly 1000 is accepted") {
        s["tau"] = 1000;
        CHECK_NOTHROW(attn::compute_state_json(s.dump()));
    }
}

TEST_CASE("result_to_json writes float32 values that round-trip", "[state]") {
    attn::Problem p;
    p.q = attn_test::mat({{0.3f, -1.7f, 0.9f}, {1.1f, 0.2f, -0.4f}});
    p.k = attn_test::mat({{0.5f, 0.25f, -2.0f}, {-0.1f, 0.7f, 0.3f}, {1.3f, -0.6f, 0.05f}});
    p.v = attn_test::mat({{1.0f / 3, 2}, {-7.1f, 0.125f}, {0.01f, 9.9f}});
    const attn::Result res = attn::compute(p);
    const json r = json::parse(attn::result_to_json(res, attn::Mode::qkv, 3));
    CHECK(r.at("head") == 3);
    CHECK(r.at("mode") == "qkv");
    for (int t = 0; t < 2; ++t) {
        for (int j = 0; j < 3; ++j) CHECK(r.at("weights")[t][j].get<float>() == res.weights(t, j));
        for (int c = 0; c < 2; ++c) CHECK(r.at("output")[t][c].get<float>() == res.output(t, c));
        CHECK_THAT(r.at("rows")[t].at("entropy").get<double>(),
                   Near(res.rows[static_cast<std::size_t>(t)].entropy, 1e-12, 1e-12));
    }
}

TEST_CASE("error_to_json", "[state][errors]") {
    const attn::Error e(ErrorCode::kBadTemperature, "tau", "tau must be > 0");
    const json j = json::parse(attn::error_to_json(e));
    CHECK(j.at("error").at("code") == "bad_temperature");
    CHECK(j.at("error").at("field") == "tau");
    CHECK(j.at("error").at("message") == "tau must be > 0");
}

TEST_CASE("unknown keys are refused at every level (the schema is closed)", "[state][errors]") {
    const std::vector<std::pair<std::string, std::function<void(json&)>>> cases = {
        {"temperature", [](json& s) { s["temperature"] = 2; }},
        {"heads[0].v", [](json& s) { s["heads"][0]["v"] = json::array({json::array({1})}); }},
        {"mask.foo", [](json& s) { s["mask"]["foo"] = true; }},
        {"tokens.values", [](json& s) { s["tokens"]["values"] = json::array(); }},
    };
    for (const auto& [field, mutate] : cases) {
        json s = example1();
        mutate(s);
        INFO(field);
        try {
            attn::compute_state_json(s.dump());
            FAIL("accepted");
        } catch (const attn::Error& e) {
            CHECK(e.code() == ErrorCode::kBadState);
            CHECK(e.field() == field);
        }
    }
}
