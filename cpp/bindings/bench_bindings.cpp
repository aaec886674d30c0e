// Embind entry points for the loader's self-check and the JS benchmarks, in both WASM modules
// (attn.js scalar, attn_simd.js SIMD128):
//   kernelName()   the active KernelSet ("scalar" or "wasm-simd128")
//   selfTest()     softmax of [1, 2, 3, 4] through the active set, as a JS array; the loader
//                  expects [0.0320586, 0.0871443, 0.2368828, 0.6439143] within 1e-6
//   benchSoftmaxEntropy(inPtr, outPtr, entropyPtr, rows, n, tau)   fused softmax + entropy
//   benchSoftmax(inPtr, outPtr, rows, n, tau)                      softmax only
// The bench functions take byte offsets into the heap (numbers, e.g. from Module._malloc) of
// rows x n float32 inputs / outputs and rows float32 entropies; every key is visible, scores must
// be finite and tau > 0. They run the active set's row kernels (kernels_simd.hpp).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <string>

#include "attn/kernels.hpp"
#include "kernels_simd.hpp"

namespace {

using emscripten::val;

std::string kernel_name() {
    return attn::kernels::active().name;
}

val self_test() {
    const float s[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    const std::uint8_t visible[4] = {1, 1, 1, 1};
    float a[4];
    attn::RowMetrics m;
    attn::kernels::active().softmax_row(s, visible, 4, attn::kernels::RowParams{}, a, m);
    val out = val::array();
    for (int j = 0; j < 4; ++j) out.call<void>("push", static_cast<double>(a[j]));
    return out;
}

const attn::kernels::RowBench& bench() {
    const attn::kernels::RowBench* b = attn::kernels::bench_for(attn::kernels::active());
    return b ? *b : attn::kernels::scalar_bench();
}

template <class T>
T* at(std::uintptr_t byte_offset) {
    return reinterpret_cast<T*>(byte_offset);
}

void bench_softmax_entropy(std::uintptr_t in, std::uintptr_t out, std::uintptr_t entropy, int rows, int n, float tau) {
    bench().softmax_entropy(at<const float>(in), at<float>(out), at<float>(entropy), rows, n, tau);
}

void bench_softmax(std::uintptr_t in, std::uintptr_t out, int rows, int n, float tau) {
    bench().softmax(at<const float>(in), at<float>(out), rows, n, tau);
}

}  // namespace

EMSCRIPTEN_BINDINGS(attn_bench) {
    emscripten::function("kernelName", &kernel_name);
    emscripten::function("selfTest", &self_test);
    emscripten::function("benchSoftmaxEntropy", &bench_softmax_entropy);
    emscripten::function("benchSoftmax", &bench_softmax);
}
