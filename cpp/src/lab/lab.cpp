// The analysis lab's entry point (lab.hpp): parses the state once, computes the selected head,
// and runs the analysis named by state.lab.view. Each analysis is one function in its own file.
#include "attn/lab.hpp"

#include <cmath>
#include <map>

#include "attn/state_json.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

// One declaration per view (lab_views.def; each defined in its lab_<name>.cpp).
#define ATTN_LAB_VIEW(name) json name(const Input& in);
#include "lab_views.def"
#undef ATTN_LAB_VIEW

namespace {

struct Entry {
    const char* name;
    Analysis run;
};

// The registry: name -> entry function, in display order (lab_views.def).
const Entry kAnalyses[] = {
#define ATTN_LAB_VIEW(name) {#name, &name},
#include "lab_views.def"
#undef ATTN_LAB_VIEW
};

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

json metric(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

}  // namespace attn::lab

namespace attn {

std::vector<std::string> lab_views() {
    std::vector<std::string> out;
    for (const auto& e : lab::kAnalyses) out.emplace_back(e.name);
    return out;
}

std::string lab_state_json(const std::string& state_json) {
    using lab::json;
    const Problem problem = problem_from_state_json(state_json);  // validates the whole state
    const json s = json::parse(state_json);
    const auto lab_it = s.find("lab");
    if (lab_it == s.end() || lab_it->is_null()) return json{{"view", "none"}}.dump();
    const json& labj = *lab_it;
    if (!labj.is_object()) throw Error(ErrorCode::kBadState, "lab", "lab must be an object {view, params}");
    for (auto it = labj.begin(); it != labj.end(); ++it)
        if (it.key() != "view" && it.key() != "params")
            throw Error(ErrorCode::kBadState, "lab." + it.key(), "lab." + it.key() + " is not a field of lab (view, params)");
    const auto view_it = labj.find("view");
    if (view_it == labj.end() || !view_it->is_string())
        throw Error(ErrorCode::kBadState, "lab.view", "lab.view must be a string");
    const std::string view = view_it->get<std::string>();
    if (view == "none") return json{{"view", "none"}}.dump();
    static const json empty_params = json::object();
    const auto params_it = labj.find("params");
    const json& params = params_it == labj.end() || params_it->is_null() ? empty_params : *params_it;
    if (!params.is_object()) throw Error(ErrorCode::kBadState, "lab.params", "lab.params must be an object");

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
    const lab::Input in{s, params, head, heads, problem, result, problem_of, result_of};
    for (const auto& e : lab::kAnalyses) {
        if (view == e.name) {
            json out = e.run(in);
            out["view"] = view;
            return out.dump();
        }
    }
    std::string known;
    for (const auto& e : lab::kAnalyses) known += (known.empty() ? "" : ", ") + std::string(e.name);
    throw Error(ErrorCode::kBadState, "lab.view", "lab.view \"" + view + "\" is not an analysis of this build (" + known + ", none)");
}

}  // namespace attn
