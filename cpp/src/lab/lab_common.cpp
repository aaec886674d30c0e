// What every analysis of the lab shares (lab_internal.hpp): the state parsed once, the selected
// head computed, the parameter readers. Apart from lab.cpp (the registry of every view) so that a
// build may carry one analysis without the others (the page's core carries only "sensitivity",
// lab_sensitivity.cpp; docs/architecture.md "Two WebAssembly modules").
#include <cmath>
#include <map>

#include "attn/state_json.hpp"
#include "attn/state_schema.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

namespace {

[[noreturn]] void bad_param(const char* name, const std::string& what) {
    const std::string field = std::string("lab.params.") + name;
    throw Error(ErrorCode::kInvalidValue, field, field + " " + what);
}

}  // namespace

double number(const json& params, const char* name, double fallback, double lo, double hi) {
    auto it = params.find(name);
    if (it == params.end() || it->is_null()) return fallback;
    if (!it->is_number()) bad_param(name, "must be a number");
    const double x = it->get<double>();
    if (!std::isfinite(x) || x < lo || x > hi)
        bad_param(name, "must be between " + json(lo).dump() + " and " + json(hi).dump() + " (got " + it->dump() + ")");
    return x;
}

int integer(const json& params, const char* name, int fallback, int lo, int hi) {
    const double x = number(params, name, fallback, lo, hi);
    if (std::floor(x) != x) bad_param(name, "must be an integer");
    return static_cast<int>(x);
}

std::string choice(const json& params, const char* name, const std::string& fallback,
                   std::initializer_list<const char*> choices) {
    auto it = params.find(name);
    if (it == params.end() || it->is_null()) return fallback;
    std::string list;
    for (const char* c : choices) {
        if (it->is_string() && it->get<std::string>() == c) return c;
        list += (list.empty() ? "" : ", ") + std::string(c);
    }
    bad_param(name, "must be one of " + list);
}

json metric(double x) {
    return std::isfinite(x) ? json(x) : json(nullptr);
}

std::string run_view(const std::string& state_json, const std::function<json(const std::string&, const Input&)>& run) {
    // The schema (state_schema.hpp) checks the whole state once, lab and params included.
    const json s = json::parse(validate_state_json(state_json));
    const auto lab_it = s.find("lab");
    if (lab_it == s.end()) return json{{"view", "none"}}.dump();
    const std::string view = lab_it->at("view").get<std::string>();
    if (view == "none") return json{{"view", "none"}}.dump();
    const json& params = lab_it->at("params");
    const Problem problem = problem_from_state_json(state_json);

    const int head = s.at("head").get<int>();
    const int heads = static_cast<int>(s.at("heads").size());
    const Result result = compute(problem);
    std::map<int, Result> cache;
    auto problem_of = [&](int h) {
        if (h == head) return problem;
        json other = s;
        other["head"] = h;
        return problem_from_state_json(other.dump());
    };
    auto result_of = [&](int h) -> Result {
        if (h == head) return result;
        auto it = cache.find(h);
        if (it == cache.end()) it = cache.emplace(h, compute(problem_of(h))).first;
        return it->second;
    };
    const Input in{s, params, head, heads, problem, result, problem_of, result_of};
    json out = run(view, in);
    out["view"] = view;
    return out.dump();
}

}  // namespace attn::lab
