// Inside the io layer only: where a JSON text that does not parse stops, for the state schema's
// message (state_schema.cpp validated_state).
#pragma once

#include <string>

namespace attn::json_check {

/// Where parsing stopped: nlohmann's exception id (406: a number beyond float64, "1e400"), the
/// key of the value being read there or of the array it is in ("" when there is none), and the
/// token read last.
struct ParseStop {
    int id = 0;
    std::string key;
    std::string token;
};

/// Parses `text` once more with a SAX pass that follows the keys, so that a number out of float64
/// range ("topK": 1e400) is named by its key rather than reported as "not valid JSON". Call it
/// on a text that does not parse.
ParseStop where_parsing_stops(const std::string& text);

}  // namespace attn::json_check
