// Lab view "patterns": the pattern class of every head of the state (analysis.hpp,
// classify_pattern; docs/analysis.md), for the grid of heads coloured and labelled by pattern.
#include "attn/analysis.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

/// Output: {"heads": [{"head", "name", "kind", "confidence", "parameter", "scores": {...}}]}.
/// Each head is computed with the state's mask, temperature and scale, so the labels follow tau.
json patterns(const Input& in) {
    json heads = json::array();
    for (int h = 0; h < in.heads; ++h) {
        const Result r = in.result_of(h);
        const Pattern p = classify_pattern(r.weights.data.data(), r.n_q, r.n_k);
        const PatternScores& s = p.scores;
        heads.push_back({{"head", h},
                         {"name", in.state.at("heads").at(h).value("name", "")},
                         {"kind", to_string(p.kind)},
                         {"confidence", metric(p.confidence)},
                         {"parameter", p.parameter},
                         {"scores",
                          {{"sink", metric(s.sink)},
                           {"self", metric(s.self)},
                           {"previous", metric(s.previous)},
                           {"next", metric(s.next)},
                           {"offset", metric(s.offset)},
                           {"offsetD", s.offset_d},
                           {"strided", metric(s.strided)},
                           {"period", s.period},
                           {"position", metric(s.position)},
                           {"positionKey", s.position_key},
                           {"global", metric(s.global)}}}});
    }
    return {{"heads", heads}};
}

}  // namespace attn::lab
