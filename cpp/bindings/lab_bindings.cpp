// Embind bindings of the lab module (web/wasm/attn_lab{,_simd}.{js,wasm}): every analysis of the
// lab (lab.hpp), in a module of its own so that the page's first download does not carry it (about
// half of the core's code: docs/performance.md "The WebAssembly core's size"). The page loads it on
// the first lab view (web/core/core.js loadLab); the lesson's sensitivity stays in the core module
// (computeLabInCore, bindings.cpp). Same calling convention as the core's state entry points:
//   computeLab(stateJson, ptr, count) -> the lab analysis JSON, or {"error": {code, field, message}}
// The one-file page links this file into the core module itself (attn_full_simd: one module, since
// its size counts once inline; scripts/single-file.js).
#include <emscripten/bind.h>

#include <string>

#include "attn/lab.hpp"
#include "bind_util.hpp"

EMSCRIPTEN_BINDINGS(attn_lab) {
    emscripten::function("computeLab", &attn::bind::state_call<&attn::lab_state_json>);
}
