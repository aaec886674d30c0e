// The state-document adapter: docs/state.md's JSON schema in, docs/state.md's results JSON out.
// The Embind bindings and the CLI both call compute_state_json(), so the page, the node module and
// the native tool run the same code on the same document and cannot disagree.
#pragma once

#include <string>

#include "attn/attention.hpp"

namespace attn {

/// Builds the Problem of the selected head (`state.head`) of a version-1 state document.
/// Throws attn::Error: kBadState (not JSON, missing or mistyped field, unknown version or mode),
/// kShapeMismatch (tokens, padding or allow-matrix not matching the matrices), and anything
/// validate() throws.
Problem problem_from_state_json(const std::string& state_json);

/// Serialises a Result in the results schema of docs/state.md; `head` and `mode` are echoed.
std::string result_to_json(const Result& r, Mode mode, int head);

/// problem_from_state_json + compute + result_to_json. Throws attn::Error.
std::string compute_state_json(const std::string& state_json);

/// {"error": {"code", "field", "message"}}
std::string error_to_json(const Error& e);

}  // namespace attn
