// The state-document adapter: docs/state.md's JSON schema in, docs/state.md's results JSON out.
// The Embind bindings and the CLI both call compute_state_json(), so the page, the node module and
// the native tool run the same code on the same document and cannot disagree.
#pragma once

#include <string>

#include "attn/attention.hpp"

namespace attn {

/// Builds the Problem of the selected head (`state.head`) of a version-1 state document.
/// Throws attn::Error: whatever validate_state_json (state_schema.hpp) throws for a document that
/// is not of the schema, and anything validate() throws.
Problem problem_from_state_json(const std::string& state_json);

/// Serialises a Result in the results schema of docs/state.md; `head` and `mode` are echoed.
std::string result_to_json(const Result& r, Mode mode, int head);

/// problem_from_state_json + compute + result_to_json. Throws attn::Error.
std::string compute_state_json(const std::string& state_json);

/// {"state": validate_state_json(state_json), "results": compute_state_json(state_json)}, with the
/// state validated once: the page's commit path (web/core/core.js validateAndCompute). Throws as both.
std::string validate_and_compute_state_json(const std::string& state_json);

/// {"error": {"code", "field", "message"}}
std::string error_to_json(const Error& e);

}  // namespace attn
