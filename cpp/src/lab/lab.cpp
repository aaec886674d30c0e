// The analysis lab's entry point (lab.hpp): parses the state once, computes the selected head,
// and runs the analysis named by state.lab.view. Each analysis is one function in its own file.
#include "attn/lab.hpp"

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

}  // namespace

}  // namespace attn::lab

namespace attn {

std::vector<std::string> lab_views() {
    std::vector<std::string> out;
    for (const auto& e : lab::kAnalyses) out.emplace_back(e.name);
    return out;
}

std::string lab_state_json(const std::string& state_json) {
    return lab::run_view(state_json, [](const std::string& view, const lab::Input& in) -> lab::json {
        for (const auto& e : lab::kAnalyses)
            if (view == e.name) return e.run(in);
        // unreachable: the schema checked the view's name
        throw Error(ErrorCode::kBadState, "lab.view", "lab.view \"" + view + "\" has no entry point");
    });
}

}  // namespace attn
