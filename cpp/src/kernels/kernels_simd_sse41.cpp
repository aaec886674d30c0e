// The "sse4.1" KernelSet (native x86). This file alone is compiled with -msse4.1; the dispatcher
// registers the set only if the CPU reports SSE4.1 at run time.
#if !defined(__SSE4_1__)
#error "kernels_simd_sse41.cpp must be compiled with -msse4.1"
#endif

#include "kernels_simd_impl.hpp"

ATTN_DEFINE_SIMD_SET(sse41, xsimd::sse4_1, "sse4.1")
