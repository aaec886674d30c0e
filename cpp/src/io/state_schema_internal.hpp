// Inside the io layer only: the validated state as a JSON value, for the JSON adapter
// (state_json.cpp) and the lab (lab.cpp), which read it after validate_state_json's checks.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace attn {

/// validate_state_json's normalised document as a value. Throws as validate_state_json.
nlohmann::ordered_json validated_state(const std::string& state_json);

}  // namespace attn
