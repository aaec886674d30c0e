// Which KernelSet runs. The scalar reference is always there; a SIMD set is registered when its
// translation unit is part of this build (ATTN_KERNELS_* from CMakeLists.txt) and, natively, when
// the CPU supports its instructions at run time. Best last, so active() defaults to the best.
#include <string>
#include <vector>

#include "attn/kernels.hpp"
#include "kernels_simd.hpp"

namespace attn::kernels {
namespace {

struct Entry {
    const KernelSet* set;
    const RowBench* bench;
};

std::vector<Entry> build_registry() {
    std::vector<Entry> r{{&scalar(), &scalar_bench()}};
#if defined(ATTN_KERNELS_SSE41) || defined(ATTN_KERNELS_AVX2)
    __builtin_cpu_init();  // in case the first call comes from another static initialiser
#endif
#if defined(ATTN_KERNELS_SSE41)
    if (__builtin_cpu_supports("sse4.1")) r.push_back({&sse41_set(), &sse41_bench()});
#endif
#if defined(ATTN_KERNELS_AVX2)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) r.push_back({&avx2_set(), &avx2_bench()});
#endif
#if defined(ATTN_KERNELS_WASM_SIMD128)
    r.push_back({&wasm_simd128_set(), &wasm_simd128_bench()});
#endif
    return r;
}

const std::vector<Entry>& registry() {
    static const std::vector<Entry> r = build_registry();
    return r;
}

const KernelSet*& current() {
    static const KernelSet* set = registry().back().set;  // the last one is the best
    return set;
}

}  // namespace

std::vector<const KernelSet*> available() {
    std::vector<const KernelSet*> out;
    for (const Entry& e : registry()) out.push_back(e.set);
    return out;
}

const KernelSet& active() {
    return *current();
}

bool select(const std::string& name) {
    for (const Entry& e : registry())
        if (name == e.set->name) {
            current() = e.set;
            return true;
        }
    return false;
}

std::vector<const RowBench*> bench_available() {
    std::vector<const RowBench*> out;
    for (const Entry& e : registry()) out.push_back(e.bench);
    return out;
}

const RowBench* bench_for(const KernelSet& set) {
    for (const Entry& e : registry())
        if (e.set == &set) return e.bench;
    return nullptr;
}

}  // namespace attn::kernels
