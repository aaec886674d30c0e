// Masks as selections (docs/MATH.md, Conventions): Omega_t = the keys query t may see.
// Every constraint below removes keys; they combine by intersection (sink keys are exempt from the
// window and the stride only).
#pragma once

#include <cstdint>
#include <vector>

namespace attn {

struct MaskSpec {
    /// Causal: key j visible to query t only if j <= t.
    bool causal = false;
    /// Sliding window w >= 1: key j visible only if t - w < j <= t (the last w positions up to and
    /// including t, as in Mistral/StreamingLLM); 0 = no window.
    int window = 0;
    /// Strided mask s >= 2: key j visible only if the distance t - j is a multiple of s (every
    /// s-th key counting back from the query; Child et al. 2019, arXiv:1904.10509); 0 or 1 = off.
    int stride = 0;
    /// Attention-sink keys (StreamingLLM, Xiao et al. 2023, arXiv:2309.17453): keys j < sink_keys
    /// are exempt from the window and the stride (the "first n_sink plus the last w" pattern);
    /// causal, padding and the allow-matrix still apply. 0 = none.
    int sink_keys = 0;
    /// Key padding, n_k flags or empty: a padded key (1) is visible to no query.
    std::vector<std::uint8_t> key_padding;
    /// Explicit allow-matrix, n_q x n_k flags or empty: only cells with 1 are visible.
    std::vector<std::uint8_t> allow;
    /// Position of query row 0 in the sequence, for causal and window tests when the rows are a
    /// slice of a longer sequence (a zoomed tile). The allow-matrix is indexed by the local row.
    int row_offset = 0;

    /// True when key j is in Omega_t (before scores are looked at). Preconditions: t < n_q,
    /// j < n_k, and the flag vectors are either empty or of the documented sizes.
    bool visible(int t, int j, int n_k) const noexcept {
        const int pos = t + row_offset;
        const bool sink = j < sink_keys;
        if (causal && j > pos) return false;
        if (window > 0 && (j > pos || (!sink && j <= pos - window))) return false;
        if (stride > 1 && !sink && ((pos - j) % stride + stride) % stride != 0) return false;
        if (!key_padding.empty() && key_padding[static_cast<std::size_t>(j)]) return false;
        if (!allow.empty() &&
            !allow[static_cast<std::size_t>(t) * static_cast<std::size_t>(n_k) + static_cast<std::size_t>(j)])
            return false;
        return true;
    }
};

}  // namespace attn
