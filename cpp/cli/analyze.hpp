// `attn analyze FILE ...`: checks and analyses every selected head of an attention file and prints
// one JSON document or CSV, a head at a time (docs/import.md).
#pragma once

namespace attn::cli {

/// Usage text of the analyze command (part of `attn --help`).
extern const char* const kAnalyzeUsage;

/// Runs `attn analyze` on argv[2..]; returns the exit status (0 ok, 2 bad input, 3 values that are
/// not probabilities under --read auto, 64 usage). Messages go to stderr prefixed "attn: ".
int run_analyze(int argc, char** argv);

}  // namespace attn::cli
