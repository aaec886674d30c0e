// Private to the core, its tests and its benchmarks (not part of the public API): the SIMD
// KernelSets that kernels_dispatch.cpp registers, and the row kernels the benchmarks time.
//
// Each SIMD set lives in its own translation unit compiled with its own target flags
// (kernels_simd_sse41.cpp: -msse4.1, kernels_simd_avx2.cpp: -mavx2 -mfma,
// kernels_simd_wasm.cpp: -msimd128 -msse4.1). Only this header's plain declarations cross TU
// boundaries, so no code built for one instruction set can be picked for another.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/kernels.hpp"

namespace attn::kernels {

/// Row kernels for benchmarks and accuracy tests: every key visible, scores finite, tau > 0.
/// Same algorithm as the set's softmax_row (max pass, one fused exp/sum pass, scale pass), without
/// masks and without the metrics other than the entropy.
struct RowBench {
    const char* name;  ///< the KernelSet's name
    /// out[r][j] = softmax(in[r] / tau)_j and entropy[r] = H(out[r]) (nats), r < rows, j < n.
    void (*softmax_entropy)(const float* in, float* out, float* entropy, int rows, int n, float tau);
    /// out[r][j] = softmax(in[r] / tau)_j.
    void (*softmax)(const float* in, float* out, int rows, int n, float tau);
    /// y[i] = exp(x[i]) with the set's exp, for x[i] in [-87, 0] (0 below -87); for error tests.
    void (*exp_nonpositive)(const float* x, float* y, int n);
};

/// Scalar float kernels (std::exp per element): the baseline the SIMD sets are compared with.
const RowBench& scalar_bench();

/// Bench kernels of every available KernelSet, in the order of available().
std::vector<const RowBench*> bench_available();

/// The bench kernels of `set` (nullptr if it has none).
const RowBench* bench_for(const KernelSet& set);

// The SIMD sets, defined only in builds that compile their translation unit
// (ATTN_KERNELS_SSE41, ATTN_KERNELS_AVX2, ATTN_KERNELS_WASM_SIMD128).
const KernelSet& sse41_set();
const RowBench& sse41_bench();
const KernelSet& avx2_set();
const RowBench& avx2_bench();
const KernelSet& wasm_simd128_set();
const RowBench& wasm_simd128_bench();

namespace detail {

/// The metrics of one row that need more than Z and sum(e x), shared by the SIMD sets and compiled
/// without target flags: row_sum (double sum of the float weights), sink mass, top-k mass and the
/// (1-delta) support. a[0..n) are the row's final weights (0 outside Omega_t), count = |Omega_t|.
/// One pass builds the row sum and a histogram of the weights by their float bits (bucket order
/// is value order); top-k and support take whole buckets from the top and need the exact order
/// only inside one boundary bucket each (a selection scan / nth_element, a mass-weighted
/// quickselect): O(n), no sort of the row.
void row_selection_metrics(const float* a, int n, int count, const RowParams& rp, RowMetrics& m);

/// Where this thread's last row found its support threshold v* (the smallest weight the support
/// takes), relative to that row's mean weight 1 / |Omega_t| (the weights sum to 1), and the factor
/// of the bracket around it. Rows of one head are alike, so the next row looks for its v* in
/// (ratio / width, ratio * width) / |Omega_t|. Only the speed depends on it (a miss costs one more
/// pass); reset_row_hints() clears it at the start of every head, so a head's results are a
/// function of that head alone, whichever thread computes it after whichever other head.
struct SupportHint {
    float ratio = 0.0f;  ///< 0: no row yet (the first pass then brackets nothing)
    float width = 4.0f;
};
SupportHint& support_hint();

/// A thread-local scratch buffer of at least n floats (kept between calls: no allocation per row).
float* select_buffer(int n);

/// A second such buffer, of at least n floats (the SIMD sets' support_select_packed keeps the
/// weights below its pivot there while the candidates stay in select_buffer's).
float* select_scratch(int n);

/// The end of a mass-weighted quickselect (support_size here, support_select_packed in the SIMD
/// sets): the r <= 16 weights b[0..r) left after the partitions, taken largest first (sorted by
/// rank: the number of larger weights, and of equal ones before it; branch-free, where a small
/// sort's compares mispredicted as often as not), added to `cum` (the mass already taken, `taken`
/// weights) until it reaches `need`. Returns the count then, with `last` = the smallest weight
/// taken; -1 (last untouched) if the r weights do not reach it. Not inline: it is called from
/// translation units with other target flags.
int select_tail(const float* b, int r, double cum, int taken, double need, float& last);

}  // namespace detail
}  // namespace attn::kernels
