// Internals of the analysis lab (lab.hpp): what an analysis receives, and the registry.
// Each analysis lives in its own file (lab_<name>.cpp) and is listed once, in lab_views.def.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "attn/attention.hpp"

namespace attn::lab {

// The state's instantiation (io/state_json.cpp), so that the modules hold one copy of nlohmann's
// code, not two (docs/performance.md "The WebAssembly core's size"). Results keep the order in
// which an analysis writes its fields.
using json = nlohmann::ordered_json;

/// Everything an analysis may use. Heads other than the selected one are computed on demand
/// with the same mask, temperature, scale and top-k as the selected one.
struct Input {
    const json& state;                       ///< the whole state document (already validated)
    const json& params;                      ///< state.lab.params (an object; may be empty)
    int head = 0;                            ///< the selected head
    int heads = 1;                           ///< number of heads in the state
    const Problem& problem;                  ///< the selected head's problem
    const Result& result;                    ///< the selected head's result
    std::function<Problem(int)> problem_of;  ///< problem of head h (same settings)
    std::function<Result(int)> result_of;    ///< computed head h (cached)
};

using Analysis = json (*)(const Input&);

/// A number parameter: params[name] or `fallback`; throws Error(kInvalidValue,
/// "lab.params.<name>") unless lo <= x <= hi (and finite).
double number(const json& params, const char* name, double fallback, double lo, double hi);
/// An integer parameter, as number().
int integer(const json& params, const char* name, int fallback, int lo, int hi);
/// A string parameter from a fixed set of choices.
std::string choice(const json& params, const char* name, const std::string& fallback,
                   std::initializer_list<const char*> choices);
/// NaN and +-Inf as null, for JSON.
json metric(double x);

/// The lab's entry points' common part (lab_common.cpp): validates the state document, computes
/// its selected head and calls `run(view, input)` for state.lab.view; returns {"view": view, ...}
/// as JSON text ({"view": "none"} without lab). Throws attn::Error as lab_state_json() (lab.hpp).
std::string run_view(const std::string& state_json, const std::function<json(const std::string&, const Input&)>& run);

}  // namespace attn::lab
