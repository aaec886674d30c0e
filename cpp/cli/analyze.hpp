// `attn analyze FILE ...`: checks and analyses every selected head of an attention file and prints
// one JSON document or CSV, a head at a time (docs/import.md).
#pragma once

#include <nlohmann/json.hpp>

#include "attn/analysis.hpp"

namespace attn::cli {

/// Usage text of the analyze command (part of `attn --help`).
extern const char* const kAnalyzeUsage;

/// Runs `attn analyze` on argv[2..]; returns the exit status (0 ok, 2 bad input, 3 values that are
/// not probabilities under --read auto, 64 usage). Messages go to stderr prefixed "attn: ".
int run_analyze(int argc, char** argv);

/// A file's structure (summarize_structure) as the JSON of `attn analyze` and `attn compare`
/// write it: {structure, stated, causalHeads, analysed, flagged: [{layer, head,
/// aboveDiagonalMass, rowsAboveDiagonal, firstRowAboveDiagonal, maxAboveDiagonal}]}, the keys of
/// the page's structureSummary() (cpp/bindings/import_bindings.cpp), so both export one schema.
nlohmann::ordered_json structure_json(const StructureSummary& ss);

}  // namespace attn::cli
