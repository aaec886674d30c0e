// Masks as selections (docs/MATH.md, Conventions): Omega_t = the keys query t may see.
// Every constraint below removes keys; they combine by intersection.
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
        if (causal && j > pos) return false;
        if (window > 0 && (j > pos || j <= pos - window)) return false;
        if (!key_padding.empty() && key_padding[static_cast<std::size_t>(j)]) return false;
        if (!allow.empty() &&
            !allow[static_cast<std::size_t>(t) * static_cast<std::size_t>(n_k) +
                   static_cast<std::size_t>(j)])
            return false;
        return true;
    }
};

}  // namespace attn
