// libFuzzer target: an attention JSON document (this page's format, CircuitsVis, BertViz) through
// parse_attention_json, the reader the page (Embind parseAttentionJson) and `attn analyze` share,
// then its heads through analyze_head. Bad documents must end in attn::Error; a parsed tensor
// must hold exactly layers x heads x n_q x n_k values and token / label lists of its sizes.
#include <cstdint>

#include "attn/analysis.hpp"
#include "attn/import.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attn;
    try {
        const io::Tensor t = io::parse_attention_json(fuzz::as_text(data, size));
        const io::Layout& L = t.layout;
        FUZZ_CHECK(L.layers >= 1 && L.heads >= 1 && L.n_q >= 1 && L.n_k >= 1);
        FUZZ_CHECK(t.data.size() == static_cast<std::uint64_t>(L.total_heads()) * L.head_elements());
        FUZZ_CHECK(t.query_tokens.empty() || t.query_tokens.size() == static_cast<std::size_t>(L.n_q));
        FUZZ_CHECK(t.key_tokens.empty() || t.key_tokens.size() == static_cast<std::size_t>(L.n_k));
        FUZZ_CHECK(t.layer_labels.empty() || t.layer_labels.size() == static_cast<std::size_t>(L.layers));
        FUZZ_CHECK(t.head_labels.empty() || t.head_labels.size() == static_cast<std::size_t>(L.heads));
        FUZZ_CHECK(t.format == "attention-json" || t.format == "circuitsvis" || t.format == "bertviz");
        const std::size_t cells = static_cast<std::size_t>(L.head_elements());
        if (cells > fuzz::kAnalyseCells) return 0;
        const AnalyzeOptions opts = fuzz::analyze_options(size);
        for (int i = 0; i < L.total_heads(); ++i)
            analyze_head(t.data.data() + cells * static_cast<std::size_t>(i), L.n_q, L.n_k, opts);
    } catch (const Error&) {
    }
    return 0;
}
