// libFuzzer target: a .npy file read the way the page's importer reads one (web/import/readers.js
// npyHeaderOf, then analyzeHead per head through the Embind bindings): npy_header_length on the
// first 12 bytes, parse_npy_header on the header, layout_from_shape, the data-size check, then
// every head through to_float32 (float16 / float32 / float64) and analyze_head.
// Bad files must end in attn::Error; the header's numbers must agree with each other.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "attn/analysis.hpp"
#include "attn/import.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attn;
    try {
        const std::size_t length = io::npy_header_length(data, std::min<std::size_t>(size, 12));
        if (length > size) return 0;  // the page refuses it before parsing (truncated header)
        const io::NpyHeader h = io::parse_npy_header(data, length);
        FUZZ_CHECK(h.data_offset == length);
        FUZZ_CHECK(h.data_bytes == h.elements * io::item_size(h.dtype));
        const io::Layout L = io::layout_from_shape(h.shape);
        FUZZ_CHECK(L.layers >= 1 && L.heads >= 1 && L.n_q >= 1 && L.n_k >= 1);
        FUZZ_CHECK(static_cast<std::uint64_t>(L.total_heads()) * L.head_elements() == h.elements);
        if (size - h.data_offset < h.data_bytes) return 0;  // truncated data: refused before reading

        const std::size_t cells = static_cast<std::size_t>(L.head_elements());
        const std::size_t head_bytes = cells * io::item_size(h.dtype);
        const AnalyzeOptions opts = fuzz::analyze_options(size);
        std::vector<float> head(cells);
        for (int i = 0; i < L.total_heads(); ++i) {
            io::to_float32(h.dtype, data + h.data_offset + head_bytes * static_cast<std::size_t>(i), cells,
                           head.data());
            if (cells > fuzz::kAnalyseCells) continue;
            const HeadAnalysis a = analyze_head(head.data(), L.n_q, L.n_k, opts);
            FUZZ_CHECK(a.check.n_q == L.n_q && a.check.n_k == L.n_k);
            FUZZ_CHECK(!a.computed || !opts.want_rows || a.rows.size() == static_cast<std::size_t>(L.n_q));
        }
    } catch (const Error&) {
    }
    return 0;
}
