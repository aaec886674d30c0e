// Which KernelSet runs. Today only the scalar reference exists; SIMD sets register here.
#include <string>
#include <vector>

#include "attn/kernels.hpp"

namespace attn::kernels {
namespace {

const KernelSet*& current() {
    static const KernelSet* set = available().back();  // the last one is the best
    return set;
}

}  // namespace

std::vector<const KernelSet*> available() { return {&scalar()}; }

const KernelSet& active() { return *current(); }

bool select(const std::string& name) {
    for (const KernelSet* set : available())
        if (name == set->name) {
            current() = set;
            return true;
        }
    return false;
}

}  // namespace attn::kernels
