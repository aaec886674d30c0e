// Lab view "sink": sink versus content, attention rows as compositional data (compositional.hpp;
// docs/lab.md "Sink vs content"; idea from Papamichalis & Ruane 2026, arXiv:2608.14712).
//
// Per row of the selected head: s, h(s), H(c), (1-s)H(c), H and the identity's residual; per
// head the means; every pair of heads compared keep-sink and drop-sink (JSD, cosine, entropy gap)
// and by the Aitchison distance with its sink/content split; the triples whose "closer" verdict
// flips between the conventions; and the entropy change between the state and the same state at
// compareTau (and between the head and compareHead) split into a sink and a content part.
#include <cmath>
#include <limits>

#include "attn/compositional.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

namespace {

namespace cd = attn::compositional;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The head's rows as probability vectors (double, renormalised; empty for an empty row) and its
/// log-values scores / tau (NaN where not visible): clr = centred logits / tau (MATH.md).
cd::HeadRows head_rows(const Result& r, double tau) {
    cd::HeadRows h;
    h.weights.resize(static_cast<std::size_t>(r.n_q));
    h.logs.resize(static_cast<std::size_t>(r.n_q));
    for (int t = 0; t < r.n_q; ++t) {
        auto& lg = h.logs[static_cast<std::size_t>(t)];
        lg.assign(static_cast<std::size_t>(r.n_k), kNaN);
        if (r.rows[static_cast<std::size_t>(t)].empty) continue;
        std::vector<double> w(static_cast<std::size_t>(r.n_k));
        for (int j = 0; j < r.n_k; ++j) {
            w[static_cast<std::size_t>(j)] = r.weights(t, j);
            if (r.visible[static_cast<std::size_t>(t) * r.n_k + j])
                lg[static_cast<std::size_t>(j)] = r.scores(t, j) / tau;
        }
        h.weights[static_cast<std::size_t>(t)] = cd::normalized(w);
    }
    return h;
}

json keep_drop(const cd::KeepDrop& k) {
    return {{"keep", metric(k.keep)}, {"drop", metric(k.drop)}};
}

json split_json(const cd::SinkSplit& s) {
    return {{"sinkMass", metric(s.sink_mass)},
            {"sinkEntropy", metric(s.sink_entropy)},
            {"contentEntropy", metric(s.content_entropy)},
            {"contentTerm", metric(s.content_term)},
            {"sinkSpreadTerm", metric(s.sink_spread_term)},
            {"entropy", metric(s.entropy)}};
}

json part_json(const cd::Attribution::Part& p) {
    return {{"sink", metric(p.sink)}, {"content", metric(p.content)}};
}

json aitchison_json(const cd::AitchisonSplit& a) {
    if (!a.defined) return {{"distance", nullptr}, {"reason", a.reason}};
    return {{"distance", metric(a.distance)},        {"balance", {metric(a.balance_x), metric(a.balance_y)}},
            {"sinkTerm", metric(a.sink_term)},       {"withinSink", metric(a.within_sink)},
            {"contentTerm", metric(a.content_term)}, {"reason", nullptr}};
}

json head_comparison_json(const cd::HeadComparison& c) {
    return {{"rows", c.rows},
            {"jsd", keep_drop(c.jsd)},
            {"cosine", keep_drop(c.cosine)},
            {"entropyGap", keep_drop(c.entropy_gap)},
            {"aitchison",
             {{"rows", c.aitchison_rows},
              {"distance", metric(c.aitchison)},
              {"distanceSq", metric(c.aitchison_sq)},
              {"sinkSq", metric(c.sink_sq)},
              {"withinSinkSq", metric(c.within_sink_sq)},
              {"contentSq", metric(c.content_sq)},
              {"reason", c.aitchison_reason.empty() ? json(nullptr) : json(c.aitchison_reason)}}}};
}

/// The split of every row (NaN-free: empty rows are null).
std::vector<cd::SinkSplit> splits_of(const cd::HeadRows& h, int sink_keys) {
    std::vector<cd::SinkSplit> out(h.weights.size());
    for (std::size_t t = 0; t < h.weights.size(); ++t)
        if (!h.weights[t].empty()) out[t] = cd::sink_split(h.weights[t], sink_keys);
    return out;
}

/// Entropy attribution from rows `before` to rows `after` (same n_q), per row and mean over the
/// rows where both content distributions are defined.
json attribution_json(const cd::HeadRows& hb, const cd::HeadRows& ha, int sink_keys) {
    const auto sb = splits_of(hb, sink_keys), sa = splits_of(ha, sink_keys);
    json per_row = json::array();
    int n = 0;
    double total = 0, h1 = 0, h2 = 0;
    cd::Attribution::Part tw, sf, cf, sh;
    auto add = [](cd::Attribution::Part& acc, const cd::Attribution::Part& p) {
        acc.sink += p.sink;
        acc.content += p.content;
    };
    for (std::size_t t = 0; t < sb.size(); ++t) {
        const bool ok =
            !hb.weights[t].empty() && !ha.weights[t].empty() && sb[t].content_defined() && sa[t].content_defined();
        if (!ok) {
            per_row.push_back({{"row", t}, {"defined", false}});
            continue;
        }
        const cd::Attribution a = cd::attribute(sb[t], sa[t]);
        ++n;
        total += a.total, h1 += sb[t].entropy, h2 += sa[t].entropy;
        add(tw, a.termwise), add(sf, a.sink_first), add(cf, a.content_first), add(sh, a.shapley);
        per_row.push_back({{"row", t},
                           {"defined", true},
                           {"before", split_json(sb[t])},
                           {"after", split_json(sa[t])},
                           {"total", metric(a.total)},
                           {"termwise", part_json(a.termwise)},
                           {"sinkFirst", part_json(a.sink_first)},
                           {"contentFirst", part_json(a.content_first)},
                           {"shapley", part_json(a.shapley)}});
    }
    auto mean = [n](cd::Attribution::Part p) {
        return n ? cd::Attribution::Part{p.sink / n, p.content / n} : cd::Attribution::Part{kNaN, kNaN};
    };
    const double mt = n ? total / n : kNaN;
    const cd::Attribution::Part msh = mean(sh);
    return {{"rows", n},
            {"mean",
             {{"before", metric(n ? h1 / n : kNaN)},
              {"after", metric(n ? h2 / n : kNaN)},
              {"total", metric(mt)},
              {"termwise", part_json(mean(tw))},
              {"sinkFirst", part_json(mean(sf))},
              {"contentFirst", part_json(mean(cf))},
              {"shapley", part_json(msh)},
              {"sinkShare", metric(std::fabs(mt) > 1e-12 ? msh.sink / mt : kNaN)}}},
            {"perRow", per_row}};
}

const char* closer_name(cd::Closer c) {
    return c == cd::Closer::p ? "p" : c == cd::Closer::q ? "q" : "tie";
}

/// Per row of the selected head: its sink/content split.
json row_splits_json(const cd::HeadRows& sel, int sink_keys) {
    json rows = json::array();
    for (std::size_t t = 0; t < sel.weights.size(); ++t) {
        if (sel.weights[t].empty()) {
            rows.push_back({{"row", t},
                            {"empty", true},
                            {"contentDefined", false},
                            {"sinkMass", nullptr},
                            {"sinkEntropy", nullptr},
                            {"contentEntropy", nullptr},
                            {"contentTerm", nullptr},
                            {"sinkSpreadTerm", nullptr},
                            {"entropy", nullptr},
                            {"residual", nullptr}});
            continue;
        }
        const cd::SinkSplit s = cd::sink_split(sel.weights[t], sink_keys);
        json r = split_json(s);
        r["row"] = t;
        r["empty"] = false;
        r["contentDefined"] = s.content_defined();
        r["residual"] = s.residual;
        rows.push_back(r);
    }
    return rows;
}

/// Per head: means over the non-empty rows (H(c) over the rows where it is defined).
json head_means_json(const Input& in, const std::vector<cd::HeadRows>& heads, int sink_keys) {
    json head_means = json::array();
    for (int h = 0; h < in.heads; ++h) {
        const auto sp = splits_of(heads[static_cast<std::size_t>(h)], sink_keys);
        int n = 0, nc = 0;
        double s = 0, hs = 0, st = 0, ct = 0, e = 0, hc = 0, mr = 0;
        for (std::size_t t = 0; t < sp.size(); ++t) {
            if (heads[static_cast<std::size_t>(h)].weights[t].empty()) continue;
            ++n;
            s += sp[t].sink_mass, hs += sp[t].sink_entropy, st += sp[t].sink_spread_term;
            ct += sp[t].content_term, e += sp[t].entropy;
            mr = std::max(mr, std::fabs(sp[t].residual));
            if (sp[t].content_defined()) ++nc, hc += sp[t].content_entropy;
        }
        head_means.push_back({{"head", h},
                              {"name", in.state.at("heads").at(h).value("name", "")},
                              {"rows", n},
                              {"contentRows", nc},
                              {"meanSinkMass", metric(n ? s / n : kNaN)},
                              {"meanSinkEntropy", metric(n ? hs / n : kNaN)},
                              {"meanSinkSpreadTerm", metric(n ? st / n : kNaN)},
                              {"meanContentTerm", metric(n ? ct / n : kNaN)},
                              {"meanEntropy", metric(n ? e / n : kNaN)},
                              {"meanContentEntropy", metric(nc ? hc / nc : kNaN)},
                              {"maxResidual", metric(n ? mr : kNaN)}});
    }
    return head_means;
}

json flips_json(const cd::FlipReport& f) {
    json list = json::array();
    for (const auto& x : f.list)
        list.push_back({{"reference", x.reference},
                        {"p", x.p},
                        {"q", x.q},
                        {"keep", closer_name(x.keep)},
                        {"drop", closer_name(x.drop)}});
    return json{{"triples", f.triples}, {"count", f.flips}, {"list", list}};
}

/// Every pair of heads compared (`pairs`), and the triples whose verdict flips (`flips`) from the
/// head-level matrices.
void pairs_and_flips(const std::vector<cd::HeadRows>& heads, int sink_keys, json& pairs, json& flips) {
    const std::size_t H = heads.size();
    using Mat = std::vector<std::vector<double>>;
    Mat jk(H, std::vector<double>(H, kNaN)), jd = jk, ck = jk, cdm = jk, ek = jk, ed = jk;
    pairs = json::array();
    for (std::size_t a = 0; a < H; ++a)
        for (std::size_t b = a + 1; b < H; ++b) {
            const cd::HeadComparison c = cd::compare_heads(heads[a], heads[b], sink_keys);
            jk[a][b] = jk[b][a] = c.jsd.keep, jd[a][b] = jd[b][a] = c.jsd.drop;
            ck[a][b] = ck[b][a] = c.cosine.keep, cdm[a][b] = cdm[b][a] = c.cosine.drop;
            ek[a][b] = ek[b][a] = c.entropy_gap.keep, ed[a][b] = ed[b][a] = c.entropy_gap.drop;
            json pj = head_comparison_json(c);
            pj["a"] = a;
            pj["b"] = b;
            pairs.push_back(pj);
        }
    flips = {{"jsd", flips_json(cd::find_flips(jk, jd, false))},
             {"cosine", flips_json(cd::find_flips(ck, cdm, true))},
             {"entropyGap", flips_json(cd::find_flips(ek, ed, false))}};
}

/// The selected head against compareHead (`other`), row by row.
json compare_json(const cd::HeadRows& sel, const cd::HeadRows& other, int compare_head, int sink_keys) {
    json crow = json::array();
    for (std::size_t t = 0; t < sel.weights.size(); ++t) {
        if (sel.weights[t].empty() || other.weights[t].empty()) {
            crow.push_back({{"row", t}, {"empty", true}});
            continue;
        }
        const cd::RowComparison r = cd::compare_rows(sel.weights[t], other.weights[t], sink_keys);
        crow.push_back({{"row", t},
                        {"empty", false},
                        {"jsd", keep_drop(r.jsd)},
                        {"cosine", keep_drop(r.cosine)},
                        {"entropyGap", keep_drop(r.entropy_gap)},
                        {"aitchison", aitchison_json(cd::aitchison_of_rows(sel.weights[t], other.weights[t],
                                                                           sel.logs[t], other.logs[t], sink_keys))}});
    }
    json summary = head_comparison_json(cd::compare_heads(sel, other, sink_keys));
    return {{"head", compare_head}, {"summary", summary}, {"rows", crow}};
}

}  // namespace

/// Output fields: docs/lab.md, "Sink vs content".
json sink(const Input& in) {
    const int sink_keys = integer(in.params, "sinkKeys", 1, 1, kMaxTokens);
    const int compare_head =
        integer(in.params, "compareHead", in.heads > 1 ? (in.head + 1) % in.heads : -1, -1, in.heads - 1);
    const double tau = in.problem.tau;
    const double default_tau = 2 * tau <= kMaxTau ? 2 * tau : tau / 2;
    const double compare_tau = number(in.params, "compareTau", default_tau, 0, kMaxTau);
    if (!(compare_tau > 0))
        throw Error(ErrorCode::kInvalidValue, "lab.params.compareTau",
                    "lab.params.compareTau must be > 0 (a temperature)");

    // Every head's rows (the heads share the mask, temperature and scale).
    std::vector<cd::HeadRows> heads;
    for (int h = 0; h < in.heads; ++h) heads.push_back(head_rows(in.result_of(h), tau));
    const cd::HeadRows& sel = heads[static_cast<std::size_t>(in.head)];

    const json rows = row_splits_json(sel, sink_keys);
    const json head_means = head_means_json(in, heads, sink_keys);
    json pairs, flips;
    pairs_and_flips(heads, sink_keys, pairs, flips);
    const json compare = compare_head >= 0
                             ? compare_json(sel, heads[static_cast<std::size_t>(compare_head)], compare_head, sink_keys)
                             : json(nullptr);

    // Entropy attribution: the state at tau -> at compareTau; the head -> compareHead.
    Problem hot = in.problem;
    hot.tau = compare_tau;
    const cd::HeadRows at_tau2 = head_rows(compute(hot), compare_tau);
    json by_tau = attribution_json(sel, at_tau2, sink_keys);
    by_tau["from"] = tau;
    by_tau["to"] = compare_tau;
    json by_head = nullptr;
    if (compare_head >= 0) {
        by_head = attribution_json(sel, heads[static_cast<std::size_t>(compare_head)], sink_keys);
        by_head["from"] = in.head;
        by_head["to"] = compare_head;
    }

    const Mode mode = in.problem.mode;
    return {{"head", in.head},
            {"sinkKeys", sink_keys},
            {"compareHead", compare_head},
            {"tau", tau},
            {"compareTau", compare_tau},
            {"rows", rows},
            {"identityMaxResidual", head_means.at(static_cast<std::size_t>(in.head)).at("maxResidual")},
            {"heads", head_means},
            {"aitchisonSource", mode == Mode::weights ? "log-weights" : "logits"},
            {"pairs", pairs},
            {"flips", flips},
            {"compare", compare},
            {"attribution", {{"tau", by_tau}, {"head", by_head}}}};
}

}  // namespace attn::lab
