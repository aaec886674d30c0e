// `attn compare A B ...`: two runs of the same model (another prompt, a patched run) head by head:
// per-head differences of the summary metrics, label changes and the Jensen-Shannon divergence
// of their rows (analysis.hpp compare_heads; docs/import.md "Compare two runs").
#pragma once

namespace attn::cli {

/// Usage text of the compare command (part of `attn --help`).
extern const char* const kCompareUsage;

/// Runs `attn compare` on argv[2..]; returns the exit status (0 ok, 2 bad input or shapes that
/// differ, 64 usage). Messages go to stderr prefixed "attn: ".
int run_compare(int argc, char** argv);

}  // namespace attn::cli
