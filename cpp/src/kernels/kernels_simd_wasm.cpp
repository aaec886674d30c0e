// The "wasm-simd128" KernelSet. xsimd 8.1 has no WebAssembly backend: compiled with
// -msimd128 -msse4.1, xsimd uses its sse4_1 arch and Emscripten lowers the SSE intrinsics to
// WebAssembly SIMD128 (docs/toolchain.md quirk 3); the hot max/min use wasm_f32x4_pmax/pmin.
// Only the SIMD module (attn_simd.wasm) contains this file; there is no run-time detection in
// WebAssembly (the page picks the module).
#if !defined(__wasm_simd128__) || !defined(__SSE4_1__)
#error "kernels_simd_wasm.cpp must be compiled with -msimd128 -msse4.1"
#endif

#include "kernels_simd_impl.hpp"

ATTN_DEFINE_SIMD_SET(wasm_simd128, xsimd::sse4_1, "wasm-simd128")
