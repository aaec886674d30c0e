// The analysis lab: analyses of the selected head of a state beyond its row metrics (normalisers,
// sink versus content, routing width, saturation, spectral, linear attention, head patterns ...).
//
// One entry point, like compute_state_json(): the state document carries the analysis to run in
// its optional `lab` object ({"view": name, "params": {...}}, docs/state.md), so the page, the
// node module and the CLI (`attn lab < state.json`) run the same code on the same document.
#pragma once

#include <string>
#include <vector>

namespace attn {

/// Runs state.lab.view on the selected head of a version-1 state document and returns its JSON:
/// {"view": name, ...} with the fields the analysis documents (docs/lab.md). A state without
/// `lab`, or with view "none", gives {"view": "none"}.
/// Throws attn::Error: whatever compute_state_json() throws for the state; kBadState for an
/// unknown view or a malformed `lab`; kInvalidValue (field "lab.params.<name>") for a parameter
/// out of its range.
std::string lab_state_json(const std::string& state_json);

/// The names of the analyses this build knows, in display order.
std::vector<std::string> lab_views();

/// The lab views lab_core_state_json() runs: the ones the guided lesson needs on its first screen
/// ("sensitivity"), linked into the page's core module without the rest of the lab (the page
/// loads the lab module for the others; docs/architecture.md "Two WebAssembly modules").
std::vector<std::string> lab_core_views();

/// lab_state_json() for the views of lab_core_views() only (lab_sensitivity.cpp), with the same
/// output; throws attn::Error(kBadState, "lab.view") for any other view, else as lab_state_json().
std::string lab_core_state_json(const std::string& state_json);

}  // namespace attn
