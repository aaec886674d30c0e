// The analysis lab's entry point (lab.hpp): parses the state once, computes the selected head,
// and runs the analysis named by state.lab.view. Each analysis is one function in its own file.
#include "attn/lab.hpp"

#include <cmath>
#include <map>

#include "attn/state_json.hpp"
#include "attn/state_schema.hpp"
#include "lab_internal.hpp"

namespace attn::lab {

// One declaration per view (attn/lab_views.def; each defined in its lab_<name>.cpp).
#define ATTN_LAB_VIEW(name) json name(const Input& in);
#include "attn/lab_views.def"
#undef ATTN_LAB_VIEW

namespace {

struct Entry {
    const char* name;
    Analysis run;
};

// The registry: name -> entry function, in display order (attn/lab_views.def).
const Entry kAnalyses[] = {
#define ATTN_LAB_VIEW(name) {#name, &name},
#include "attn/lab_views.def"
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

json metric(double x) {
    return std::isfinite(x) ? json(x) : json(nullptr);
}

}  // namespace attn::lab

namespace attn {

std::vector<std::string> lab_views() {
    std::vector<std::string> out;
    for (const auto& e : lab::kAnalyses) out.emplace_back(e.name);
    return out;
}

std::string lab_state_json(const std::string& state_json) {
    using lab::json;
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
    const lab::Input in{s, params, head, heads, problem, result, problem_of, result_of};
    for (const auto& e : lab::kAnalyses) {
        if (view == e.name) {
            json out = e.run(in);
            out["view"] = view;
            return out.dump();
        }
    }
    throw Error(ErrorCode::kBadState, "lab.view", "lab.view \"" + view + "\" has no entry point");  // unreachable
}

}  // namespace attn
