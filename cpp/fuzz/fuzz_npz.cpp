// libFuzzer target: a .npz archive through the CLI's reader (cpp/cli/sources.cpp) from memory:
// libzip opens the bytes (zip_source_buffer_create), the .npy member is picked as `attn analyze`
// picks it (the only one, else --array), inflated and streamed a head at a time into the same
// NpySource as a file. Bad archives must end in attn::Error, or UsageError for a member choice.
#include <cstdint>
#include <vector>

#include "fuzz_util.hpp"
#include "sources.hpp"

namespace {

void read_all(const std::uint8_t* data, std::size_t size, const std::string& array) {
    using namespace attn;
    const auto src = cli::open_npz_memory(data, size, "fuzz.npz", array);
    const cli::SourceInfo& info = src->info();
    FUZZ_CHECK(info.format == "npz");
    FUZZ_CHECK(info.layout.n_q >= 1 && info.layout.n_k >= 1 && info.layout.total_heads() >= 1);
    std::vector<float> head;
    const AnalyzeOptions opts = fuzz::analyze_options(size);
    for (int i = 0; i < info.layout.total_heads(); i += 1 + static_cast<int>(size % 2)) {
        src->read_head(i, head);
        FUZZ_CHECK(head.size() == info.layout.head_elements());
        if (head.size() <= fuzz::kAnalyseCells) analyze_head(head.data(), info.layout.n_q, info.layout.n_k, opts);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        read_all(data, size, "");
    } catch (const attn::Error&) {
    } catch (const attn::cli::UsageError&) {
        // Several members and no --array: what `attn analyze run.npz --array attention` would read.
        try {
            read_all(data, size, "attention");
        } catch (const attn::Error&) {
        } catch (const attn::cli::UsageError&) {
        }
    }
    return 0;
}
