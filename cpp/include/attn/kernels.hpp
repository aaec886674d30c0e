// Hot loops of one head, behind a table of function pointers (KernelSet). The scalar set is the
// reference implementation (accumulating in double) and the oracle every SIMD set is tested
// against; the pipeline (attention.cpp) calls kernels::active() only, so a vectorised set swaps in
// without touching it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/row_metrics.hpp"

namespace attn::kernels {

/// One implementation of every kernel. All pointers are row-major float32 arrays.
struct KernelSet {
    /// "scalar", "sse4.1", "avx2", "wasm-simd128", ...
    const char* name;

    /// scores[i][j] = scale * dot(q_i, k_j).  q: n_q x d, k: n_k x d, scores: n_q x n_k.
    void (*scores_qk)(const float* q, const float* k, int n_q, int n_k, int d, float scale, float* scores);

    /// Softmax of one row over its visible keys, with temperature, and the row's metrics.
    ///   in:  s[0..n)       scores (anything, even NaN, where visible[j] == 0: never read there)
    ///        visible[0..n) 1 = key allowed by the mask; a -inf score also makes a key not visible;
    ///                      nullptr = every key visible and every s[j] finite (the caller checked:
    ///                      the same results as an array of ones, one pass fewer)
    ///   out: a[0..n)       weights, exact 0 outside Omega_t; all 0 if Omega_t is empty
    ///        m             metrics; NaN (support 0) and empty = true if Omega_t is empty
    /// Stable: subtracts max over Omega_t. Entropy as H = ln Z - sum(e_j x_j)/Z with
    /// x_j = (s_j - max)/tau (no log per element). Error: H within 1e-6 relative of a double
    /// reference for rows up to 4096 keys.
    void (*softmax_row)(const float* s, const std::uint8_t* visible, int n, const RowParams& p, float* a,
                        RowMetrics& m);

    /// out (n_q x d_v) = a (n_q x n_k) * v (n_k x d_v).
    void (*weighted_sum)(const float* a, const float* v, int n_q, int n_k, int d_v, float* out);
};

/// The scalar reference set (always available).
const KernelSet& scalar();

/// Every set this build and this CPU can run, the scalar set first.
std::vector<const KernelSet*> available();

/// The set the pipeline uses: the best available one unless select() chose another.
const KernelSet& active();

/// Forgets what this thread's previous rows taught the row kernels (where the SIMD sets look for
/// a row's (1-delta) support first). Results never depend on it up to ties within 1e-12 of the
/// need; the pipeline calls it at the start of every head so that even those are decided the same
/// whichever thread runs the head (attn analyze --threads).
void reset_row_hints();

/// Makes the set named `name` active (tests, benchmarks). Returns false if it is not available.
bool select(const std::string& name);

}  // namespace attn::kernels
