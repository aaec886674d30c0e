// Lab views "sink" and "routing" (lab_sink.cpp, lab_routing.cpp) through lab_state_json(): the
// MATH.md sink split, a constructed flip, the temperature attribution, GPT-2 layer 0's 12 heads
// (web/data/real/gpt2-small_L0_nlp-sentence) with values recomputed here from the file, seed
// example 2 for routing, parameters out of range, empty rows and a 1-token state.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "approx.hpp"
#include "attn/error.hpp"
#include "attn/lab.hpp"

#ifndef ATTN_DATA_DIR
#error "ATTN_DATA_DIR must point at web/data (set by CMakeLists.txt)"
#endif

using attn_test::Near;
using json = nlohmann::json;

namespace {

/// A version-1 state of n_q queries and n_k keys with the given heads (each {name, field: matrix}).
json state_of(const std::string& mode, const std::vector<json>& mats, int nq, int nk, const json& v = nullptr) {
    json heads = json::array();
    for (std::size_t h = 0; h < mats.size(); ++h) {
        json head = {{"name", "H" + std::to_string(h)},
                     {"Q", nullptr},
                     {"K", nullptr},
                     {"V", v},
                     {"logits", nullptr},
                     {"weights", nullptr}};
        head[mode] = mats[h];
        heads.push_back(head);
    }
    json q = json::array(), k = json::array();
    for (int i = 0; i < nq; ++i) q.push_back("q" + std::to_string(i));
    for (int i = 0; i < nk; ++i) k.push_back(nq == nk ? "q" + std::to_string(i) : "k" + std::to_string(i));
    return {{"version", 1},
            {"mode", mode},
            {"heads", heads},
            {"head", 0},
            {"tokens", {{"queries", q}, {"keys", k}}},
            {"mask", {{"causal", false}, {"window", 0}, {"padding", std::vector<bool>(nk, false)}, {"allow", nullptr}}},
            {"tau", 1},
            {"scale", "auto"},
            {"topK", 2},
            {"row", 0},
            {"view", {{"panel", "weights"}, {"preset", "custom"}, {"numbers", "auto"}}},
            {"source", ""}};
}

json run(json s, const std::string& view, const json& params = json::object()) {
    s["lab"] = {{"view", view}, {"params", params}};
    return json::parse(attn::lab_state_json(s.dump()));
}

const json& gpt2() {
    static const json doc = [] {
        std::ifstream in(std::string(ATTN_DATA_DIR) + "/real/gpt2-small_L0_nlp-sentence/attention.json");
        REQUIRE(in);
        return json::parse(in);
    }();
    return doc;
}

double ent(const std::vector<double>& p) {
    double h = 0;
    for (double x : p) h += x > 0 ? -x * std::log(x) : 0.0;
    return h;
}

/// Row t of GPT-2 L0 head h from the file, in double, renormalised; content drops key 0.
std::vector<double> file_row(int h, int t, bool drop_sink) {
    const json& r = gpt2()["attention"][0][h][t];
    std::vector<double> a;
    for (std::size_t j = drop_sink ? 1 : 0; j < r.size(); ++j) a.push_back(r[j].get<float>());
    double s = 0;
    for (double x : a) s += x;
    for (double& x : a) x /= s;
    return a;
}

double file_jsd(const std::vector<double>& p, const std::vector<double>& q) {
    double js = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double m = (p[i] + q[i]) / 2;
        if (p[i] > 0) js += 0.5 * p[i] * std::log(p[i] / m);
        if (q[i] > 0) js += 0.5 * q[i] * std::log(q[i] / m);
    }
    return js;
}

}  // namespace

TEST_CASE("lab sink: the MATH.md row [0.6, 0.1, 0.1, 0.15, 0.05] in a weights state", "[lab][sink]") {
    const json out = run(state_of("weights", {json::array({{0.6, 0.1, 0.1, 0.15, 0.05}})}, 1, 5), "sink");
    REQUIRE(out["view"] == "sink");
    REQUIRE(out["rows"].size() == 1);
    const json& r = out["rows"][0];
    CHECK_THAT(r["sinkMass"].get<double>(), Near(0.6, 1e-7));
    CHECK_THAT(r["entropy"].get<double>(), Near(1.201367004, 1e-6));
    CHECK_THAT(r["sinkEntropy"].get<double>(), Near(0.673011667, 1e-6));
    CHECK_THAT(r["contentEntropy"].get<double>(), Near(1.320888343, 1e-6));
    CHECK_THAT(r["contentTerm"].get<double>(), Near(0.4 * 1.320888343, 1e-6));
    CHECK(std::fabs(r["residual"].get<double>()) < 1e-12);
    CHECK(out["compareHead"] == -1);  // one head: nothing to compare
    CHECK(out["compare"].is_null());
    CHECK(out["pairs"].empty());
    CHECK(out["flips"]["jsd"]["triples"] == 0);
    CHECK(out["compareTau"] == 2.0);
    CHECK(out["aitchisonSource"] == "log-weights");
    // Head means of one row are that row.
    CHECK(out["heads"][0]["meanEntropy"] == r["entropy"]);
}

TEST_CASE("lab sink: three heads whose JSD and cosine verdicts flip (R=0, P=1, Q=2)", "[lab][sink]") {
    // R = (0.8,.1,.1), P = (0.8,.18,.02), Q = (0.2,.4,.4): keep says R is closer to P, drop
    // (contents (1/2,1/2), (0.9,0.1), (1/2,1/2)) says Q. Hand values: test_compositional.cpp.
    const json s = state_of(
        "weights", {json::array({{0.8, 0.1, 0.1}}), json::array({{0.8, 0.18, 0.02}}), json::array({{0.2, 0.4, 0.4}})},
        1, 3);
    const json out = run(s, "sink");
    for (const char* m : {"jsd", "cosine"}) {
        INFO(m);
        const json& f = out["flips"][m];
        CHECK(f["triples"] == 3);
        REQUIRE(f["count"] == 1);
        CHECK(f["list"][0] == json{{"reference", 0}, {"p", 1}, {"q", 2}, {"keep", "p"}, {"drop", "q"}});
    }
    REQUIRE(out["pairs"].size() == 3);
    const json& p01 = out["pairs"][0];
    CHECK(p01["a"] == 0);
    CHECK(p01["b"] == 1);
    CHECK_THAT(p01["jsd"]["keep"].get<double>(), Near(0.02034984502, 1e-7));
    CHECK_THAT(p01["jsd"]["drop"].get<double>(), Near(0.10174922508, 1e-7));
    const json& p02 = out["pairs"][1];
    CHECK_THAT(p02["jsd"]["drop"].get<double>(), Near(0.0, 1e-12));
    CHECK_THAT(p02["cosine"]["drop"].get<double>(), Near(1.0, 1e-12));
    // Aitchison between R and Q: same content, so the whole distance is the sink balance:
    // ln R - ln Q = (ln 4, -ln 4, -ln 4): d_A^2 = 8/3 ln^2 4 (by hand), content 0.
    const double l4 = std::log(4.0);
    CHECK_THAT(p02["aitchison"]["distanceSq"].get<double>(), Near(8.0 / 3.0 * l4 * l4, 1e-5));
    CHECK_THAT(p02["aitchison"]["sinkSq"].get<double>(), Near(8.0 / 3.0 * l4 * l4, 1e-5));
    CHECK_THAT(p02["aitchison"]["contentSq"].get<double>(), Near(0.0, 1e-9));
    CHECK(p02["aitchison"]["reason"].is_null());
    // The default compareHead is the next head.
    CHECK(out["compareHead"] == 1);
    CHECK(out["compare"]["rows"][0]["aitchison"]["distance"].is_number());
}

TEST_CASE("lab sink: attribution to compareTau and compareHead, by hand", "[lab][sink]") {
    // Head 0: (0.6, 0.1, 0.1, 0.15, 0.05); head 1: uniform. Head comparison = the hand example of
    // test_compositional.cpp: total 0.4080709082, Shapley sink (0.3557460938+0.3819085010)/2.
    const json s = state_of(
        "weights", {json::array({{0.6, 0.1, 0.1, 0.15, 0.05}}), json::array({{0.2, 0.2, 0.2, 0.2, 0.2}})}, 1, 5);
    const json out = run(s, "sink", {{"compareTau", 1.0}});
    const json& hd = out["attribution"]["head"]["mean"];
    CHECK(out["attribution"]["head"]["from"] == 0);
    CHECK(out["attribution"]["head"]["to"] == 1);
    CHECK_THAT(hd["total"].get<double>(), Near(0.4080709082, 1e-6));
    CHECK_THAT(hd["shapley"]["sink"].get<double>(), Near((0.3557460938 + 0.3819085010) / 2, 1e-6));
    CHECK_THAT(hd["sinkFirst"]["content"].get<double>(), Near(0.0523248144, 1e-6));
    CHECK_THAT(hd["contentFirst"]["content"].get<double>(), Near(0.0261624072, 1e-6));
    CHECK_THAT(hd["sinkShare"].get<double>(), Near((0.3557460938 + 0.3819085010) / 2 / 0.4080709082, 1e-5));
    // compareTau = tau: no change at all.
    CHECK_THAT(out["attribution"]["tau"]["mean"]["total"].get<double>(), Near(0.0, 1e-12));
    CHECK(out["attribution"]["tau"]["mean"]["sinkShare"].is_null());
    // compareTau 2 on head 0: a^(1/2) renormalised, computed here.
    const json o2 = run(s, "sink", {{"compareTau", 2.0}});
    std::vector<double> a = {0.6, 0.1, 0.1, 0.15, 0.05}, b;
    double z = 0;
    for (double x : a) z += std::sqrt(x);
    for (double x : a) b.push_back(std::sqrt(x) / z);
    const json& tm = o2["attribution"]["tau"]["mean"];
    CHECK_THAT(tm["total"].get<double>(), Near(ent(b) - ent(a), 1e-6));
    // Shapley sink part: h(s2) - h(s1) + (s1 - s2)(H(c1) + H(c2))/2, with this file's entropies.
    const double s1 = a[0], s2 = b[0];
    std::vector<double> c1(a.begin() + 1, a.end()), c2(b.begin() + 1, b.end());
    for (double& x : c1) x /= 1 - s1;
    for (double& x : c2) x /= 1 - s2;
    const double want = ent({s2, 1 - s2}) - ent({s1, 1 - s1}) + (s1 - s2) * (ent(c1) + ent(c2)) / 2;
    CHECK_THAT(tm["shapley"]["sink"].get<double>(), Near(want, 1e-6));
    CHECK_THAT(tm["shapley"]["sink"].get<double>() + tm["shapley"]["content"].get<double>(),
               Near(tm["total"].get<double>(), 1e-12));
}

TEST_CASE("lab sink: GPT-2 layer 0, 12 heads: identity, JSD against the file, flips well formed", "[lab][sink][real]") {
    const json& doc = gpt2();
    std::vector<json> mats;
    for (int h = 0; h < 12; ++h) mats.push_back(doc["attention"][0][h]);
    json s = state_of("weights", mats, 33, 33);
    s["head"] = 3;
    const json out = run(s, "sink", {{"compareHead", 5}});
    REQUIRE(out["rows"].size() == 33);
    // Row 0 of a causal head: s = 1, c undefined.
    CHECK(out["rows"][0]["contentDefined"] == false);
    CHECK(out["rows"][0]["contentEntropy"].is_null());
    CHECK(out["identityMaxResidual"].get<double>() < 1e-12);
    for (int t = 1; t < 33; ++t) {
        INFO("row " << t);
        const json& r = out["rows"][t];
        const std::vector<double> a = file_row(3, t, false);
        CHECK_THAT(r["sinkMass"].get<double>(), Near(a[0], 1e-6));
        CHECK_THAT(r["entropy"].get<double>(), Near(ent(a), 1e-5));
        CHECK_THAT(r["contentEntropy"].get<double>(), Near(ent(file_row(3, t, true)), 1e-5));
    }
    REQUIRE(out["heads"].size() == 12);
    REQUIRE(out["pairs"].size() == 66);
    // Pair (3, 5): the mean JSD over rows 1..32 (row 0 has no content) keep and drop, from the file.
    double keep = 0, drop = 0;
    for (int t = 1; t < 33; ++t) {
        keep += file_jsd(file_row(3, t, false), file_row(5, t, false));
        drop += file_jsd(file_row(3, t, true), file_row(5, t, true));
    }
    json pair;
    for (const auto& p : out["pairs"])
        if (p["a"] == 3 && p["b"] == 5) pair = p;
    REQUIRE(pair.is_object());
    CHECK(pair["rows"] == 32);
    CHECK_THAT(pair["jsd"]["keep"].get<double>(), Near(keep / 32, 1e-5));
    CHECK_THAT(pair["jsd"]["drop"].get<double>(), Near(drop / 32, 1e-5));
    // Aitchison: defined on rows 1..32 (all weights positive), undefined on row 0 (one part).
    CHECK(pair["aitchison"]["rows"] == 32);
    CHECK_THAT(pair["aitchison"]["reason"].get<std::string>(), Catch::Contains("row 0"));
    CHECK_THAT(
        pair["aitchison"]["distanceSq"].get<double>(),
        Near(pair["aitchison"]["sinkSq"].get<double>() + pair["aitchison"]["contentSq"].get<double>(), 1e-9, 1e-12));
    // Flips: 12 * C(11, 2) = 660 triples; each listed flip really disagrees.
    for (const char* m : {"jsd", "cosine"}) {
        const json& f = out["flips"][m];
        CHECK(f["triples"] == 660);
        CHECK(f["list"].size() == std::min<std::size_t>(f["count"].get<std::size_t>(), 500));
        for (const auto& x : f["list"]) CHECK(x["keep"] != x["drop"]);
    }
    // Two sink keys: s = a_0 + a_1 and H = h(s) + s H(sigma) + (1-s) H(c), row by row.
    const json two = run(s, "sink", {{"sinkKeys", 2}});
    for (int t = 1; t < 33; ++t) {
        INFO("row " << t);
        const json& r = two["rows"][t];
        const std::vector<double> a = file_row(3, t, false);
        CHECK_THAT(r["sinkMass"].get<double>(), Near(a[0] + a[1], 1e-6));
        CHECK(std::fabs(r["sinkEntropy"].get<double>() + r["sinkSpreadTerm"].get<double>() +
                        r["contentTerm"].get<double>() - r["entropy"].get<double>()) < 1e-12);
        if (t == 1) CHECK(r["contentDefined"] == false);  // row 1 sees keys 0 and 1 only: all sink
    }
    CHECK(out["compare"]["head"] == 5);
    CHECK(out["attribution"]["head"]["rows"] == 32);
    CHECK(out["attribution"]["tau"]["to"] == 2.0);
}

TEST_CASE("lab sink: parameters out of range, empty rows, one token", "[lab][sink]") {
    const json s =
        state_of("weights", {json::array({{0.5, 0.5}, {0.3, 0.7}}), json::array({{1, 0}, {0.5, 0.5}})}, 2, 2);
    CHECK_THROWS_WITH(run(s, "sink", {{"sinkKeys", 0}}), Catch::Contains("lab.params.sinkKeys"));
    CHECK_THROWS_WITH(run(s, "sink", {{"sinkKeys", 1.5}}), Catch::Contains("lab.params.sinkKeys"));
    CHECK_THROWS_WITH(run(s, "sink", {{"compareHead", 2}}), Catch::Contains("lab.params.compareHead"));
    CHECK_THROWS_WITH(run(s, "sink", {{"compareTau", 0}}), Catch::Contains("lab.params.compareTau"));
    CHECK_THROWS_WITH(run(s, "sink", {{"compareTau", -1}}), Catch::Contains("lab.params.compareTau"));
    CHECK(run(s, "sink", {{"compareHead", -1}})["compare"].is_null());
    // sinkKeys 2 = every key: the content is undefined everywhere, nothing crashes.
    const json all = run(s, "sink", {{"sinkKeys", 2}});
    CHECK(all["rows"][1]["contentDefined"] == false);
    CHECK(all["pairs"][0]["jsd"]["drop"].is_null());
    json pad = s;
    pad["mask"]["padding"] = {true, true};  // every key padded: every row empty
    const json e = run(pad, "sink");
    CHECK(e["rows"][0]["empty"] == true);
    CHECK(e["rows"][0]["entropy"].is_null());
    CHECK(e["heads"][0]["meanEntropy"].is_null());
    CHECK(e["identityMaxResidual"].is_null());
    CHECK(e["pairs"][0]["rows"] == 0);
    CHECK(e["pairs"][0]["aitchison"]["distance"].is_null());
    // One token.
    const json one = run(state_of("weights", {json::array({{1.0}})}, 1, 1), "sink");
    CHECK(one["rows"][0]["sinkMass"] == 1.0);
    CHECK(one["rows"][0]["contentDefined"] == false);
    CHECK(one["attribution"]["tau"]["rows"] == 0);
}

TEST_CASE("lab routing: seed example 2 (causal logits, V = (2, 6, 10))", "[lab][routing]") {
    // null = a masked cell (docs/state.md).
    const json logits = json::array({json::array({0.0, nullptr, nullptr}), json::array({0.0, std::log(3.0), nullptr}),
                                     json::array({std::log(2.0), 0.0, 0.0})});
    const json v = json::array({{2.0}, {6.0}, {10.0}});
    const json s = state_of("logits", {logits}, 3, 3, v);
    json out = run(s, "routing");
    REQUIRE(out["view"] == "routing");
    CHECK(out["delta"] == 0.1);
    CHECK(out["valueBound"] == 10.0);  // B = max |v_i|
    // Row 2 (1/2, 1/4, 1/4): delta 0.1 keeps all 3 keys; nothing ignored.
    CHECK(out["rows"][2]["support"] == json::array({0, 1, 2}));
    CHECK_THAT(out["rows"][2]["boundDelta"].get<double>(), Near(1.0, 1e-12));  // 0.1 * 10
    CHECK_THAT(out["rows"][2]["ignoredNorm"].get<double>(), Near(0.0, 1e-12));
    // delta 0.5: S = {0}; ignored output 1/4*6 + 1/4*10 = 4 <= (1 - 1/2) * 10 = 5 = delta B.
    out = run(s, "routing", {{"delta", 0.5}});
    CHECK(out["rows"][2]["support"] == json::array({0}));
    CHECK_THAT(out["rows"][2]["ignoredNorm"].get<double>(), Near(4.0, 1e-6));
    CHECK_THAT(out["rows"][2]["boundMass"].get<double>(), Near(5.0, 1e-6));
    CHECK_THAT(out["rows"][2]["boundDelta"].get<double>(), Near(5.0, 1e-12));
    // Row 1 (1/4, 3/4) at delta 0.5: key 1 alone, ignored 1/4 * 2 = 0.5 <= 0.25 * 10.
    CHECK(out["rows"][1]["support"] == json::array({1}));
    CHECK_THAT(out["rows"][1]["ignoredNorm"].get<double>(), Near(0.5, 1e-6));
    // Graph at threshold 0.3: (0,0), (1,1), (2,0). N_eff per query: 1, 1.754765351, 2.828427125.
    out = run(s, "routing", {{"threshold", 0.3}});
    CHECK(out["graph"]["edgeCount"] == 3);
    CHECK(out["graph"]["selfAttention"] == true);
    CHECK_THAT(out["graph"]["queries"][1]["nEff"].get<double>(), Near(1.754765351, 1e-6));
    CHECK_THAT(out["graph"]["queries"][2]["nEff"].get<double>(), Near(2.828427125, 1e-6));
    // Key 0 receives 1 + 1/4 + 1/2.
    CHECK_THAT(out["graph"]["keys"][0]["inWeight"].get<double>(), Near(1.75, 1e-6));
    // Tunnel vision with alpha 0.9: row 1 (H_norm 0.811 < 0.9, uniform evidence 1 > 0.8) yes;
    // row 2 (H_norm 0.946) no; row 0 (evidence over one key: 0) no.
    out = run(s, "routing", {{"tunnelAlpha", 0.9}});
    CHECK(out["rows"][1]["tunnel"]["verdict"] == true);
    CHECK(out["rows"][2]["tunnel"]["verdict"] == false);
    CHECK(out["rows"][0]["tunnel"]["verdict"] == false);
    CHECK(out["tunnelRows"] == 1);
    // Evidence on key 0 only: H_norm(beta) = 0 everywhere -> no tunnel.
    out = run(s, "routing", {{"tunnelAlpha", 0.9}, {"beta", {1, 0, 0}}});
    CHECK(out["tunnelRows"] == 0);
    CHECK(out["betaUniform"] == false);
    // Evidence (1, 1, 2): row 2 H_norm(beta) = 0.9463946304 (as MATH.md's row 2 of A).
    out = run(s, "routing", {{"beta", {1, 1, 2}}});
    CHECK_THAT(out["rows"][2]["evidenceEntropy"].get<double>(), Near(0.9463946304, 1e-9));
    // Regularisers: mean H = 0.5340186385, (H - ln 2)^2 mean 0.2058926854; H* = 1: by hand
    // ((0-1)^2 + (0.5623351446-1)^2 + (1.039720771-1)^2)/3 = 0.3977094218 (Python).
    CHECK_THAT(out["regularisers"]["minimise"].get<double>(), Near(0.5340186385, 1e-6));
    CHECK_THAT(out["regularisers"]["maximise"].get<double>(), Near(-0.5340186385, 1e-6));
    CHECK_THAT(out["regularisers"]["target"].get<double>(), Near(0.2058926854, 1e-6));
    out = run(s, "routing", {{"target", 1.0}});
    CHECK_THAT(out["regularisers"]["target"].get<double>(), Near(0.3977094218, 1e-6));
}

TEST_CASE("lab routing: parameters out of range, no V, empty rows, one token", "[lab][routing]") {
    const json s = state_of("weights", {json::array({{0.5, 0.5}, {0.3, 0.7}})}, 2, 2);
    CHECK_THROWS_WITH(run(s, "routing", {{"delta", 1}}), Catch::Contains("lab.params.delta"));
    CHECK_THROWS_WITH(run(s, "routing", {{"delta", -0.1}}), Catch::Contains("lab.params.delta"));
    CHECK_THROWS_WITH(run(s, "routing", {{"threshold", 2}}), Catch::Contains("lab.params.threshold"));
    CHECK_THROWS_WITH(run(s, "routing", {{"beta", {1}}}), Catch::Contains("lab.params.beta"));
    CHECK_THROWS_WITH(run(s, "routing", {{"beta", {0, 0}}}), Catch::Contains("lab.params.beta"));
    CHECK_THROWS_WITH(run(s, "routing", {{"beta", {1, -1}}}), Catch::Contains("lab.params.beta"));
    CHECK_THROWS_WITH(run(s, "routing", {{"beta", "flat"}}), Catch::Contains("lab.params.beta"));
    CHECK_THROWS_WITH(run(s, "routing", {{"tunnelAlpha", 1.5}}), Catch::Contains("lab.params.tunnelAlpha"));
    CHECK_THROWS_WITH(run(s, "routing", {{"target", -1}}), Catch::Contains("lab.params.target"));
    const json out = run(s, "routing");
    CHECK(out["valueBound"].is_null());  // no V
    CHECK(out["rows"][0]["ignoredNorm"].is_null());
    CHECK(out["rows"][0]["boundDelta"].is_null());
    CHECK(out["rows"][1]["support"] == json::array({1, 0}));  // 0.7 < 0.9: both keys
    json pad = s;
    pad["mask"]["padding"] = {true, true};
    const json e = run(pad, "routing");
    CHECK(e["rows"][0]["empty"] == true);
    CHECK(e["rows"][0]["support"].empty());
    CHECK(e["rows"][0]["tunnel"]["defined"] == false);
    CHECK(e["regularisers"]["rows"] == 0);
    CHECK(e["regularisers"]["minimise"].is_null());
    CHECK(e["graph"]["edgeCount"] == 0);
    const json one = run(state_of("weights", {json::array({{1.0}})}, 1, 1), "routing");
    CHECK(one["rows"][0]["support"] == json::array({0}));
    CHECK(one["rows"][0]["tunnel"]["verdict"] == false);
}
