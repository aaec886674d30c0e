// Embind bindings: only bindings. The page and the node module call computeState(stateJson) and
// get the results JSON back; errors come back as {"error": {...}} so no C++ exception crosses into
// JavaScript (web/core.js turns them into AttentionError).
#include <emscripten/bind.h>

#include <string>

#include "attn/state_json.hpp"

namespace {

std::string compute_state(const std::string& state_json) {
    try {
        return attn::compute_state_json(state_json);
    } catch (const attn::Error& e) {
        return attn::error_to_json(e);
    } catch (const std::exception& e) {
        return attn::error_to_json(attn::Error(attn::ErrorCode::kBadState, "", e.what()));
    }
}

}  // namespace

EMSCRIPTEN_BINDINGS(attn) {
    emscripten::function("computeState", &compute_state);
    emscripten::constant("schemaVersion", 1);
}
