// libFuzzer target: a state document with a `lab` section (docs/lab.md) through lab_state_json,
// what `attn lab` runs on stdin and the page's analysis lab runs: the state is validated and
// computed, then the named view's analysis runs with the given params. Bad states and params end
// in attn::Error (turned into the CLI's error JSON by error_to_json, also exercised).
#include <cstdint>
#include <string>

#include "attn/lab.hpp"
#include "attn/state_json.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string state(reinterpret_cast<const char*>(data), size);
    try {
        const std::string out = attn::lab_state_json(state);
        FUZZ_CHECK(!out.empty() && out.front() == '{' && out.back() == '}');
    } catch (const attn::Error& e) {
        const std::string out = attn::error_to_json(e);
        FUZZ_CHECK(out.rfind("{\"error\":", 0) == 0);
    }
    return 0;
}
