// The "avx2" KernelSet (native x86, AVX2 + FMA, 8 floats per vector). This file alone is compiled
// with -mavx2 -mfma; the dispatcher registers the set only if the CPU reports AVX2 and FMA.
#if !defined(__AVX2__) || !defined(__FMA__)
#error "kernels_simd_avx2.cpp must be compiled with -mavx2 -mfma"
#endif

#include "kernels_simd_impl.hpp"

ATTN_DEFINE_SIMD_SET(avx2, xsimd::fma3<xsimd::avx2>, "avx2")
