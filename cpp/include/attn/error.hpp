// Typed validation errors. Every error the core throws is an attn::Error with a code the page
// can map to a place (which control caused it) and a message a person can read.
#pragma once

#include <stdexcept>
#include <string>

namespace attn {

enum class ErrorCode {
    kShapeMismatch,   ///< matrices whose dimensions do not agree
    kNonFinite,       ///< NaN or Inf where a finite number is required
    kBadTemperature,  ///< tau <= 0, NaN or Inf
    kInvalidValue,    ///< a value outside its valid range (negative weight, top_k < 1, ...)
    kTooLarge,        ///< more tokens or dimensions than the core accepts
    kBadState,        ///< a state document that is not of the schema (JSON adapter only)
    kBadFile,         ///< an imported file that is not of a format the importer reads (import.hpp)
};

/// Stable machine-readable name: "shape_mismatch", "non_finite", "bad_temperature",
/// "invalid_value", "too_large", "bad_state", "bad_file".
const char* to_string(ErrorCode c);

class Error : public std::runtime_error {
public:
    /// `field` names the input that caused the error ("Q", "tau", "mask.padding", ...).
    Error(ErrorCode code, std::string field, const std::string& message)
        : std::runtime_error(message), code_(code), field_(std::move(field)) {}
    ErrorCode code() const noexcept { return code_; }
    const std::string& field() const noexcept { return field_; }

private:
    ErrorCode code_;
    std::string field_;
};

}  // namespace attn
