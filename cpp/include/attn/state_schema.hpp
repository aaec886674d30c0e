// The state schema of docs/state.md: the one implementation of its rules (fields, types, ranges,
// limits, key lists, shape checks, string rules). The page and node call it through the
// WebAssembly module (web/core/core.js validateState), the CLI and the JSON adapter (state_json.cpp)
// call it directly, so a state is accepted or refused identically everywhere.
#pragma once

#include <cstddef>
#include <string>

#include "attn/attention.hpp"

namespace attn {

/// String limits of a state, in Unicode code points (an emoji counts as one).
inline constexpr int kMaxTokenLength = 200;   ///< tokens.queries[i], tokens.keys[j]
inline constexpr int kMaxNameLength = 200;    ///< heads[i].name
inline constexpr int kMaxSourceLength = 500;  ///< source
inline constexpr int kMaxPresetLength = 100;  ///< view.preset
/// The optional lab object (docs/lab.md): at most this many parameters, string values this long.
inline constexpr int kLabMaxParams = 32;
inline constexpr int kLabMaxString = 64;
/// The longest string any field allows (code points): web/core/core.js hands a string of more than
/// twice as many UTF-16 units over by its length alone (json_check.cpp long_string).
inline constexpr int kMaxStringLength = 500;
static_assert(kMaxStringLength >= kMaxTokenLength && kMaxStringLength >= kMaxNameLength &&
                  kMaxStringLength >= kMaxSourceLength && kMaxStringLength >= kMaxPresetLength &&
                  kMaxStringLength >= kLabMaxString,
              "kMaxStringLength is the longest string limit");
/// The guided lesson (docs/lesson.md): steps 1..kLessonSteps.
inline constexpr int kLessonSteps = 5;

/// Checks a version-1 state document (JSON text) against docs/state.md and returns it normalised
/// as JSON text: keys in schema order; absent matrices (Q, K, V, logits, weights, mask.allow) as
/// null; -0 in integer fields as 0; mask.stride / mask.sinks left out when 0; an absent lab.params
/// as {}; absent lesson.predictions / lesson.revealed as {} / []. Strings are made well formed
/// first (well_formed_json_text, text.hpp): a lone UTF-16 surrogate or invalid UTF-8 becomes U+FFFD.
/// Throws attn::Error naming the first offending field: kBadState (not JSON, unknown or missing
/// field, wrong type, out of range), kShapeMismatch (matrices, tokens, padding, allow or gate not
/// matching n_q x n_k, a ragged matrix), kTooLarge (more rows or columns than kMaxTokens /
/// kMaxDim), kBadTemperature (tau <= 0 or > kMaxTau). A matrix number may be any finite double
/// (a link carries them bit-exactly); computing refuses one beyond float32 (kInvalidValue).
std::string validate_state_json(const std::string& state_json);

/// Numeric matrices the page hands over in binary instead of JSON text (web/core/core.js packs every
/// rectangular matrix of finite numbers with at least 256 cells): inside the document the object
/// {"\u0001js:matrix": offset, "rows": r, "cols": c} stands for the r x c doubles, row-major, at
/// data[offset ...]. The validator checks them by the same rules as JSON rows and keeps the
/// object in its normalised output; the readers take the numbers from `data`. Only while a
/// PackedScope lives (one call of the bindings; never in the CLI).
struct PackedMatrices {
    const double* data = nullptr;
    std::size_t count = 0;
};

/// Makes `packs` the packed matrices of the calls made during its lifetime (this thread).
class PackedScope {
public:
    explicit PackedScope(PackedMatrices packs);
    ~PackedScope();
    PackedScope(const PackedScope&) = delete;
    PackedScope& operator=(const PackedScope&) = delete;

private:
    const PackedMatrices* previous_;
    PackedMatrices packs_;
};

/// The packed matrices of the current call, or nullptr.
const PackedMatrices* packed_matrices();

/// The schema's constants as JSON, for the page (web/core/core.js `core.schema`): {version, limits:
/// {maxTokens, maxDim, maxHeads, maxTau, maxTokenLength, maxNameLength, maxSourceLength,
/// maxPresetLength, labMaxParams, labMaxString, maxStringLength}, modes, labViews (display order), lesson: {steps,
/// choices: {name: [...]}, lists: {name: {max, length}}}, rowDefaults: {topK, sinkKeys, delta}}.
std::string schema_json();

}  // namespace attn
