#include "attn/error.hpp"

namespace attn {

const char* to_string(ErrorCode c) {
    switch (c) {
        case ErrorCode::kShapeMismatch:
            return "shape_mismatch";
        case ErrorCode::kNonFinite:
            return "non_finite";
        case ErrorCode::kBadTemperature:
            return "bad_temperature";
        case ErrorCode::kInvalidValue:
            return "invalid_value";
        case ErrorCode::kTooLarge:
            return "too_large";
        case ErrorCode::kBadState:
            return "bad_state";
        case ErrorCode::kBadFile:
            return "bad_file";
    }
    return "unknown";
}

}  // namespace attn
