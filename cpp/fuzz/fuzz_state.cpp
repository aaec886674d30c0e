// libFuzzer target: a state document (docs/state.md) through compute_state_json, exactly what
// `attn compute` runs on stdin and the page's core runs on every change: parse, validate, compute
// the selected head (every head in mode "x") and serialise the results; bad states end in
// attn::Error, which the CLI turns into its error JSON with error_to_json (also exercised).
#include <cstdint>
#include <string>

#include "attn/state_json.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string state(reinterpret_cast<const char*>(data), size);
    try {
        const std::string out = attn::compute_state_json(state);
        FUZZ_CHECK(!out.empty() && out.front() == '{' && out.back() == '}');
    } catch (const attn::Error& e) {
        const std::string out = attn::error_to_json(e);
        FUZZ_CHECK(out.rfind("{\"error\":", 0) == 0);
    }
    return 0;
}
