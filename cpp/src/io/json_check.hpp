// Inside the io layer only: the checks the state schema (state_schema.cpp) reads a parsed JSON
// document with. Each check takes the value (nullptr when the key is absent) and its path in the
// document ("heads[0].Q"), and on a value it refuses throws attn::Error naming that path, with a
// message that says what was wanted and what was found (describe), in the words the page shows
// under a control.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attn/error.hpp"

namespace attn::json_check {

using oj = nlohmann::ordered_json;

// --- Describing values -----------------------------------------------------------------------

/// A string of the document: not one of the marker strings web/core/core.js writes for a JavaScript
/// value JSON cannot spell (NaN, +-Infinity, undefined, a function, a symbol, a bigint, a string
/// longer than every limit); a marker is never a string of the state.
bool is_text(const oj* v);
bool is_number(const oj* v);
/// A number with no fractional part (integer-valued floats count).
bool is_integral(const oj* v);

/// A double as JavaScript's String(x) writes it (ECMA-262 Number::toString).
std::string js_number(double x);

/// Short description of a value for messages: "-1", "\"abc\"", "an object", "nothing"; a marker
/// by what it stands for ("NaN", "a function"); a string by its first 40 UTF-16 units.
std::string describe(const oj* v);

// --- Refusing ----------------------------------------------------------------------------------

[[noreturn]] void fail(ErrorCode code, const std::string& field, const std::string& message);
/// fail with ErrorCode::kBadState.
[[noreturn]] void bad(const std::string& field, const std::string& message);

// --- Objects -----------------------------------------------------------------------------------

/// The value of `key` in `obj`, or nullptr.
const oj* own(const oj& obj, const char* key);
/// Absent or null.
bool absent(const oj* v);
/// Absent (JavaScript's undefined); null is a value.
bool undefined(const oj* v);
bool is_record(const oj* v);
/// `*v`, which must be an object.
const oj& require_record(const oj* v, const std::string& path);
/// Unknown keys are refused, not dropped: a typo such as "temperature" would otherwise be ignored.
/// `path` "" is the document itself.
void reject_unknown_keys(const oj& obj, const std::vector<const char*>& allowed, const std::string& path);

// --- Scalars -----------------------------------------------------------------------------------

/// An integer in [lo, hi] (-0 becomes 0).
long long require_integer(const oj* v, const std::string& path, long long lo, long long hi);
bool require_boolean(const oj* v, const std::string& path);
/// A string of at most `max_length` code points.
const std::string& require_string(const oj* v, const std::string& path, int max_length);
/// A string that is one of `choices`.
std::string require_one_of(const oj* v, const std::string& path, const std::vector<std::string>& choices);

// --- Lists and matrices ------------------------------------------------------------------------

/// An array of strings of at most `max_length` code points each, copied.
oj read_string_list(const oj* v, const std::string& path, int max_length);

/// What a matrix cell may be.
enum class Cell { finite, finite_or_null, non_negative, boolean };

/// A checked matrix: its shape and its cells (a copy of the rows, or the packed matrix's object).
struct Mat {
    int rows = 0, cols = 0;
    oj data;
};

/// A rectangular matrix (an array of rows, or a packed matrix: state_schema.hpp PackedMatrices) of
/// 1 to kMaxTokens rows and min_cols to max_cols columns, each cell of rule `cell`. Too many rows
/// or columns is kTooLarge, a ragged matrix kShapeMismatch.
Mat read_matrix(const oj* v, const std::string& path, int min_cols, int max_cols, Cell cell);

}  // namespace attn::json_check
