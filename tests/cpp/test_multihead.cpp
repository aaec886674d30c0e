// Multi-head attention from X (multihead.hpp) and the G1 gated output, through the core function
// and through the state document (mode "x", heads[i].gate).
//
// Golden values and how they were obtained:
//  * seed example 1 (docs/MATH.md "Golden values"): weights (0.7310585786, 0.2689414214), output
//    (1.462117157, 1.075765685); the gate multiplies the row by sigmoid(g): sigmoid(0) = 1/2
//    exactly, so the gated output is half of it (0.7310585786, 0.5378828427); sigmoid(-20) =
//    1/(1+e^20) = 2.061153622e-9 (by hand from e^20 = 4.851651954e8).
//  * X = I (2 x 2), W_Q = W_K = 0: every score is 0, so each row's weights are (1/2, 1/2); with
//    W_V = [[2,0],[0,4]], V = W_V and Y = (v1 + v2)/2 = (1, 2) on both rows. W_O = [[1,1],[0,1]]
//    gives (1, 1 + 2) = (1, 3); + X gives (2, 3) and (1, 4). All by hand.
//  * a second head with W_V = [[1],[1]]: V = (1, 1)^T, Y = 1; concat (1, 2, 1); W_O =
//    [[1,0],[0,1],[1,1]] gives (2, 3); gating head 1 with g = 0 halves (1, 2): concat (0.5, 1, 1),
//    output (1.5, 2). By hand.
//  * X = I with identity projections: Q = K = V = I, row 0 scores (1, 0) at scale 1: the softmax
//    of (1, 0) is seed example 1's (0.7310585786, 0.2689414214), so the output row 0 is that row.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "approx.hpp"
#include "attn/error.hpp"
#include "attn/lab.hpp"
#include "attn/multihead.hpp"
#include "attn/state_json.hpp"

using json = nlohmann::json;
using attn_test::Near;

namespace {

attn::Matrix mat(int r, int c, std::initializer_list<float> v) {
    attn::Matrix m(r, c);
    m.data.assign(v.begin(), v.end());
    return m;
}

attn::Problem settings(double scale = 1.0) {
    attn::Problem p;
    p.scale = scale;
    p.top_k = 2;
    return p;
}

/// A mode-"x" state of two tokens a, b; heads given as JSON objects {WQ, WK, WV[, gate]}.
json x_state(const json& X, const json& heads, const json& wo, bool residual) {
    json hs = json::array();
    int i = 0;
    for (const json& h : heads) {
        json e = {{"name", "h" + std::to_string(i++)},
                  {"Q", nullptr},
                  {"K", nullptr},
                  {"V", nullptr},
                  {"logits", nullptr},
                  {"weights", nullptr}};
        for (auto it = h.begin(); it != h.end(); ++it) e[it.key()] = it.value();
        hs.push_back(e);
    }
    json tokens = json::array();
    for (std::size_t t = 0; t < X.size(); ++t) tokens.push_back("t" + std::to_string(t));
    return {{"version", 1},
            {"mode", "x"},
            {"heads", hs},
            {"head", 0},
            {"tokens", {{"queries", tokens}, {"keys", tokens}}},
            {"mask",
             {{"causal", false}, {"window", 0}, {"padding", std::vector<bool>(X.size(), false)}, {"allow", nullptr}}},
            {"tau", 1},
            {"scale", 1},
            {"topK", 2},
            {"row", 0},
            {"view", {{"panel", "weights"}, {"preset", "custom"}, {"numbers", "auto"}}},
            {"source", ""},
            {"x", {{"X", X}, {"WO", wo}, {"residual", residual}}}};
}

json example1_state() {
    return {{"version", 1},
            {"mode", "qkv"},
            {"heads",
             {{{"name", "e1"},
               {"Q", {{1, 0}}},
               {"K", {{1, 0}, {0, 1}}},
               {"V", {{2, 0}, {0, 4}}},
               {"logits", nullptr},
               {"weights", nullptr}}}},
            {"head", 0},
            {"tokens", {{"queries", {"q"}}, {"keys", {"k1", "k2"}}}},
            {"mask", {{"causal", false}, {"window", 0}, {"padding", {false, false}}, {"allow", nullptr}}},
            {"tau", 1},
            {"scale", 1},
            {"topK", 2},
            {"row", 0},
            {"view", {{"panel", "weights"}, {"preset", "custom"}, {"numbers", "auto"}}},
            {"source", ""}};
}

template <class F>
attn::Error error_of(F&& f) {
    try {
        f();
    } catch (const attn::Error& e) {
        return e;
    }
    FAIL("expected an attn::Error");
    return attn::Error(attn::ErrorCode::kBadState, "", "");
}

}  // namespace

TEST_CASE("gate_sigmoid: exact at 0, no overflow far out", "[multihead][gate]") {
    CHECK(attn::gate_sigmoid(0.0) == 0.5);
    CHECK_THAT(attn::gate_sigmoid(-20.0), Near(2.061153622e-9, 1e-18, 1e-8));
    CHECK_THAT(attn::gate_sigmoid(20.0), Near(1.0 - 2.061153622e-9, 1e-15, 1e-15));
    CHECK(attn::gate_sigmoid(-1000.0) == 0.0);
    CHECK(attn::gate_sigmoid(1000.0) == 1.0);
}

TEST_CASE("apply_gate: sigmoid(0) halves a row, g = -20 closes it, shape errors", "[multihead][gate]") {
    const attn::Matrix y = mat(2, 2, {1.462117157f, 1.075765685f, 2.0f, -4.0f});
    const attn::Matrix g = attn::apply_gate(y, {0.0, -20.0});
    CHECK_THAT(g(0, 0), Near(0.7310585786, 1e-7, 1e-7));
    CHECK_THAT(g(0, 1), Near(0.5378828427, 1e-7, 1e-7));
    CHECK(std::fabs(g(1, 0)) < 1e-8);
    CHECK(std::fabs(g(1, 1)) < 1e-8);
    CHECK(g(1, 1) < 0.0f);  // the sign survives the gate
    auto e = error_of([&] { attn::apply_gate(y, {0.0}, "heads[0].gate"); });
    CHECK(e.code() == attn::ErrorCode::kShapeMismatch);
    CHECK(e.field() == "heads[0].gate");
    e = error_of([&] { attn::apply_gate(y, {0.0, NAN}, "heads[0].gate"); });
    CHECK(e.code() == attn::ErrorCode::kNonFinite);
}

TEST_CASE("a layer with identity projections equals the qkv head on X", "[multihead]") {
    attn::LayerProblem L;
    L.x = mat(2, 2, {1, 0, 0, 1});
    L.heads.push_back({mat(2, 2, {1, 0, 0, 1}), mat(2, 2, {1, 0, 0, 1}), mat(2, 2, {1, 0, 0, 1}), {}});
    L.settings = settings(1.0);
    const attn::LayerResult r = attn::compute_layer(L);
    // Hand values: softmax(1, 0) = seed example 1's weights.
    CHECK_THAT(r.heads[0].weights(0, 0), Near(0.7310585786));
    CHECK_THAT(r.heads[0].output(0, 0), Near(0.7310585786));
    CHECK_THAT(r.heads[0].output(0, 1), Near(0.2689414214));
    CHECK_THAT(r.heads[0].output(1, 1), Near(0.7310585786));
    // And the same numbers as the single-head path on Q = K = V = X.
    attn::Problem p = settings(1.0);
    p.q = L.x;
    p.k = L.x;
    p.v = L.x;
    const attn::Result single = attn::compute(p);
    CHECK(single.weights.data == r.heads[0].weights.data);
    CHECK(single.output.data == r.heads[0].output.data);
    // No W_O, no residual: the layer output is the concatenation = the head's output.
    CHECK(r.output.data == r.heads[0].output.data);
    CHECK(r.ungated[0].empty());
}

TEST_CASE("W_O and the residual on a 2 x 2 example computed by hand", "[multihead]") {
    attn::LayerProblem L;
    L.x = mat(2, 2, {1, 0, 0, 1});
    L.heads.push_back({mat(2, 1, {0, 0}), mat(2, 1, {0, 0}), mat(2, 2, {2, 0, 0, 4}), {}});
    L.wo = mat(2, 2, {1, 1, 0, 1});
    L.settings = settings(1.0);
    attn::LayerResult r = attn::compute_layer(L);
    for (int t = 0; t < 2; ++t) {
        CHECK_THAT(r.heads[0].output(t, 0), Near(1.0));
        CHECK_THAT(r.heads[0].output(t, 1), Near(2.0));
        CHECK_THAT(r.output(t, 0), Near(1.0));
        CHECK_THAT(r.output(t, 1), Near(3.0));
    }
    L.residual = true;
    r = attn::compute_layer(L);
    CHECK_THAT(r.output(0, 0), Near(2.0));
    CHECK_THAT(r.output(0, 1), Near(3.0));
    CHECK_THAT(r.output(1, 0), Near(1.0));
    CHECK_THAT(r.output(1, 1), Near(4.0));

    SECTION("two heads: concatenation, then W_O; a gate on one head halves its part") {
        L.residual = false;
        L.heads.push_back({mat(2, 1, {0, 0}), mat(2, 1, {0, 0}), mat(2, 1, {1, 1}), {}});
        L.wo = mat(3, 2, {1, 0, 0, 1, 1, 1});
        r = attn::compute_layer(L);
        REQUIRE(r.concat.cols == 3);
        CHECK_THAT(r.concat(0, 2), Near(1.0));
        CHECK_THAT(r.output(0, 0), Near(2.0));
        CHECK_THAT(r.output(0, 1), Near(3.0));
        L.heads[0].gate = {0.0, 0.0};
        r = attn::compute_layer(L);
        CHECK_THAT(r.concat(1, 0), Near(0.5));
        CHECK_THAT(r.concat(1, 1), Near(1.0));
        CHECK_THAT(r.ungated[0](1, 1), Near(2.0));
        CHECK_THAT(r.output(1, 0), Near(1.5));
        CHECK_THAT(r.output(1, 1), Near(2.0));
        CHECK(r.ungated[1].empty());
    }
}

TEST_CASE("layer shape errors name the field and say what fits", "[multihead][errors]") {
    attn::LayerProblem L;
    L.x = mat(2, 2, {1, 0, 0, 1});
    L.heads.push_back({mat(2, 1, {0, 0}), mat(2, 1, {0, 0}), mat(2, 2, {2, 0, 0, 4}), {}});
    L.settings = settings(1.0);

    L.wo = mat(3, 2, {1, 0, 0, 1, 1, 1});  // 3 rows, but sum d_v = 2
    auto e = error_of([&] { attn::compute_layer(L); });
    CHECK(e.code() == attn::ErrorCode::kShapeMismatch);
    CHECK(e.field() == "x.WO");
    CHECK(std::string(e.what()).find("sum of every head's d_v") != std::string::npos);

    L.wo = mat(2, 3, {1, 0, 0, 0, 1, 0});  // output width 3 != d_model 2
    L.residual = true;
    e = error_of([&] { attn::compute_layer(L); });
    CHECK(e.field() == "x.residual");
    CHECK(std::string(e.what()).find("d_model = 2") != std::string::npos);

    L.wo = attn::Matrix();
    L.residual = false;
    L.heads[0].wq = mat(3, 1, {0, 0, 0});
    e = error_of([&] { attn::compute_layer(L); });
    CHECK(e.field() == "heads[0].WQ");
    L.heads[0].wq = mat(2, 2, {0, 0, 0, 0});
    e = error_of([&] { attn::compute_layer(L); });
    CHECK(e.field() == "heads[0].WK");
    CHECK(std::string(e.what()).find("share d_k") != std::string::npos);
    L.heads[0].wq = mat(2, 1, {0, 0});
    L.heads[0].gate = {1.0};
    e = error_of([&] { attn::compute_layer(L); });
    CHECK(e.field() == "heads[0].gate");
    L.heads[0].gate = {};
    L.x(0, 1) = INFINITY;
    e = error_of([&] { attn::compute_layer(L); });
    CHECK(e.code() == attn::ErrorCode::kNonFinite);
    CHECK(e.field() == "x.X");
}

TEST_CASE("state mode x: results of the selected head, derived Q/K/V and the layer", "[multihead][state]") {
    const json X = {{1, 0}, {0, 1}};
    const json s = x_state(X,
                           json::array({json{{"WQ", {{0}, {0}}}, {"WK", {{0}, {0}}}, {"WV", {{2, 0}, {0, 4}}}},
                                        json{{"WQ", {{0}, {0}}}, {"WK", {{0}, {0}}}, {"WV", {{1}, {1}}}}}),
                           json{{1, 0}, {0, 1}, {1, 1}}, false);
    const json r = json::parse(attn::compute_state_json(s.dump()));
    CHECK(r.at("mode") == "x");
    CHECK(r.at("dV") == 2);
    CHECK_THAT(r.at("weights")[0][0].get<double>(), Near(0.5));
    CHECK_THAT(r.at("output")[1][1].get<double>(), Near(2.0));
    CHECK(r.at("derived").at("V") == json({{2.0, 0.0}, {0.0, 4.0}}));
    const json& layer = r.at("layer");
    CHECK(layer.at("heads").size() == 2);
    CHECK(layer.at("heads")[1].at("name") == "h1");
    CHECK(layer.at("heads")[1].at("dV") == 1);
    CHECK(layer.at("dOut") == 2);
    CHECK(layer.at("projected") == true);
    CHECK_THAT(layer.at("concat")[0][2].get<double>(), Near(1.0));
    CHECK_THAT(layer.at("output")[0][0].get<double>(), Near(2.0));
    CHECK_THAT(layer.at("output")[0][1].get<double>(), Near(3.0));
    CHECK(layer.at("heads")[0].at("weights")[0][1].get<double>() == 0.5);

    SECTION("head 1 selected: its own results, the same layer") {
        json s1 = s;
        s1["head"] = 1;
        const json r1 = json::parse(attn::compute_state_json(s1.dump()));
        CHECK(r1.at("dV") == 1);
        CHECK_THAT(r1.at("output")[0][0].get<double>(), Near(1.0));
        CHECK(r1.at("layer").at("output") == layer.at("output"));
    }
    SECTION("the qkv state with Q = X W_Q, K = X W_K, V = X W_V gives the same head") {
        json q = example1_state();
        q["heads"][0]["Q"] = {{0}, {0}};
        q["heads"][0]["K"] = {{0}, {0}};
        q["heads"][0]["V"] = {{2, 0}, {0, 4}};
        q["tokens"] = {{"queries", {"t0", "t1"}}, {"keys", {"t0", "t1"}}};
        const json rq = json::parse(attn::compute_state_json(q.dump()));
        CHECK(rq.at("weights") == r.at("weights"));
        CHECK(rq.at("output") == r.at("output"));
        CHECK(rq.at("rows") == r.at("rows"));
    }
    SECTION("the problem of a mode-x state is the derived qkv problem (the lab reads it)") {
        const attn::Problem p = attn::problem_from_state_json(s.dump());
        CHECK(p.mode == attn::Mode::qkv);
        CHECK(p.v.rows == 2);
        CHECK(p.v(1, 1) == 4.0f);
        json sl = s;
        sl["lab"] = {{"view", "patterns"}, {"params", json::object()}};
        const json lab = json::parse(attn::lab_state_json(sl.dump()));
        CHECK(lab.at("heads").size() == 2);
    }
    SECTION("residual on the state") {
        json sr = s;
        sr["x"]["residual"] = true;
        const json rr = json::parse(attn::compute_state_json(sr.dump()));
        CHECK_THAT(rr.at("layer").at("output")[0][0].get<double>(), Near(3.0));
        CHECK_THAT(rr.at("layer").at("output")[1][1].get<double>(), Near(4.0));
    }
}

TEST_CASE("state mode x: malformed documents are refused with the field", "[multihead][state][errors]") {
    const json X = {{1, 0}, {0, 1}};
    const json good = x_state(X, json::array({json{{"WQ", {{0}, {0}}}, {"WK", {{0}, {0}}}, {"WV", {{2, 0}, {0, 4}}}}}),
                              nullptr, false);
    CHECK_NOTHROW(attn::compute_state_json(good.dump()));
    auto field_of = [](const json& s) {
        try {
            attn::compute_state_json(s.dump());
        } catch (const attn::Error& e) {
            return e.field();
        }
        return std::string("(no error)");
    };
    json s = good;
    s["x"]["WO"] = {{1, 0}, {0, 1}, {1, 1}};
    CHECK(field_of(s) == "x.WO");
    s = good;
    s["x"]["WO"] = {{1, 0, 0}, {0, 1, 0}};
    s["x"]["residual"] = true;
    CHECK(field_of(s) == "x.residual");
    s = good;
    s.erase("x");
    CHECK(field_of(s) == "x");
    s = good;
    s["heads"][0]["Q"] = {{1}, {1}};
    CHECK(field_of(s) == "heads[0].Q");
    s = good;
    s["heads"][0].erase("WV");
    CHECK(field_of(s) == "heads[0].WV");
    s = good;
    s["x"]["extra"] = 1;
    CHECK(field_of(s) == "x.extra");
    s = good;
    s["mode"] = "qkv";
    CHECK(field_of(s) == "x");  // x only in mode x
    json q = example1_state();
    q["heads"][0]["WQ"] = {{1}};
    CHECK(field_of(q) == "heads[0].WQ");
    s = good;
    s["heads"][0]["gate"] = {0};
    CHECK(field_of(s) == "heads[0].gate");
    s = good;
    s["tokens"]["keys"] = {"a"};
    CHECK(field_of(s) == "tokens.keys");
    // Mode x echoes every head's name in its results: a name that is not a string is refused with
    // its field (it used to escape as an nlohmann type_error and abort `attn compute`).
    for (const json& name : {json(5), json(nullptr), json::array()}) {
        s = good;
        s["heads"][0]["name"] = name;
        CHECK(field_of(s) == "heads[0].name");
        q = example1_state();
        q["heads"][0]["name"] = name;
        CHECK(field_of(q) == "heads[0].name");
    }
    s = good;
    // Absent is refused like every other missing field (the C++ adapter used to read it as "",
    // the page's validator refused it; the schema has one rule now: docs/state.md).
    s["heads"][0].erase("name");
    CHECK(field_of(s) == "heads[0].name");
}

TEST_CASE("state gate in mode qkv: output gated, ungatedOutput and the per-row gate table", "[gate][state]") {
    json s = example1_state();
    s["heads"][0]["gate"] = {0};
    json r = json::parse(attn::compute_state_json(s.dump()));
    CHECK_THAT(r.at("output")[0][0].get<double>(), Near(0.7310585786));
    CHECK_THAT(r.at("output")[0][1].get<double>(), Near(0.5378828427));
    CHECK_THAT(r.at("ungatedOutput")[0][0].get<double>(), Near(1.462117157));
    CHECK(r.at("gate").at("open")[0] == 0.5);
    // ||(1.462117157, 1.075765685)|| = sqrt(2.137786 + 1.157272) = 1.815231 (by hand)
    CHECK_THAT(r.at("gate").at("normUngated")[0].get<double>(), Near(1.815230, 1e-5, 1e-5));
    CHECK_THAT(r.at("gate").at("normGated")[0].get<double>(), Near(0.907615, 1e-5, 1e-5));
    // The weights and row metrics do not change: the gate acts after A V.
    CHECK_THAT(r.at("weights")[0][0].get<double>(), Near(0.7310585786));
    CHECK_THAT(r.at("rows")[0].at("sinkMass").get<double>(), Near(0.7310585786));

    s["heads"][0]["gate"] = {-20};
    r = json::parse(attn::compute_state_json(s.dump()));
    CHECK(std::fabs(r.at("output")[0][0].get<double>()) < 1e-8);
    CHECK(std::fabs(r.at("output")[0][1].get<double>()) < 1e-8);

    s["heads"][0]["gate"] = nullptr;
    r = json::parse(attn::compute_state_json(s.dump()));
    CHECK(r.find("ungatedOutput") == r.end());
    CHECK(r.find("gate") == r.end());
    CHECK_THAT(r.at("output")[0][0].get<double>(), Near(1.462117157));
}

TEST_CASE("gate on an empty row and without V", "[gate][state]") {
    json s = example1_state();
    s["mask"]["padding"] = {true, true};  // no visible key: the row is empty
    s["heads"][0]["gate"] = {3};
    json r = json::parse(attn::compute_state_json(s.dump()));
    CHECK(r.at("rows")[0].at("empty") == true);
    CHECK(r.at("output")[0][0] == 0.0);
    CHECK(r.at("gate").at("normUngated")[0] == 0.0);
    s = example1_state();
    s["heads"][0]["V"] = nullptr;
    s["heads"][0]["gate"] = {1};
    r = json::parse(attn::compute_state_json(s.dump()));
    CHECK(r.at("dV") == 0);
    CHECK(r.at("gate").at("normGated")[0] == 0.0);
}
