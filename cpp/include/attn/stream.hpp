// Long sequences: one head computed a block of query rows at a time, so memory is
// O(block_rows * n_k + n_q * d_v + overview^2) instead of O(n_q * n_k). The tensors are read where
// they lie (the WASM heap, an imported file): nothing is copied.
//
// Same conventions and kernels as compute() (attention.hpp, MATH.md): the metrics of a row are
// identical to the dense path's; the full weight matrix is simply never stored. What a view needs
// instead is a pooled overview (max or mean over rectangular cells) and full-resolution tiles on
// demand.
#pragma once

#include <cstddef>

#include "attn/attention.hpp"
#include "attn/kernels.hpp"

namespace attn {

/// A head whose tensors live elsewhere. Row-major float32, not owned.
struct HeadView {
    Mode mode = Mode::qkv;
    int n_q = 0, n_k = 0;
    int d_k = 0;                   ///< qkv only
    int d_v = 0;                   ///< 0 = no values, no output
    const float* q = nullptr;      ///< n_q x d_k (qkv)
    const float* k = nullptr;      ///< n_k x d_k (qkv)
    const float* v = nullptr;      ///< n_k x d_v, or null when d_v = 0
    const float* given = nullptr;  ///< n_q x n_k logits (-inf = not visible) or weights (>= 0)
};

/// How the overview pools the weights of the rows and keys that fall in one cell.
enum class Pool { max, mean };

struct StreamOptions {
    MaskSpec mask;           ///< as in Problem (padding: n_k flags, allow: n_q x n_k, or empty)
    kernels::RowParams row;  ///< tau, top_k, sink_keys, delta
    double scale = 0.0;      ///< qkv: <= 0 or NaN = 1/sqrt(d_k)
    int block_rows = 64;     ///< rows per block, >= 1
    int overview = 0;        ///< side of the pooled overview (0 = none), at most 1024
    Pool pool = Pool::max;
    bool want_output = true;  ///< compute O = A V when the head has values
};

struct StreamResult {
    int n_q = 0, n_k = 0, d_v = 0;
    double scale = 1.0;
    std::vector<RowMetrics> rows;  ///< n_q entries, identical to compute()'s
    HeadSummary summary;
    Matrix output;                  ///< n_q x d_v (empty without values or want_output)
    Matrix overview;                ///< min(overview, n_q) x min(overview, n_k) pooled weights;
                                    ///< NaN where no (query, key) of the cell is visible
    std::size_t scratch_bytes = 0;  ///< working memory used besides the inputs and outputs
    int first_row = 0;              ///< compute_streaming_rows: the head's row of rows[0]
};

/// Computes row metrics (and output, overview) of a head block by block.
/// Throws attn::Error like compute(): kShapeMismatch, kNonFinite (Q, K, V, or a visible given
/// value), kBadTemperature, kInvalidValue (negative weight, bad options), kTooLarge.
/// Sizes: n_q, n_k up to kMaxStreamTokens.
StreamResult compute_streaming(const HeadView& h, const StreamOptions& o);

/// Rows [r0, r1) of a head, exactly as compute_streaming() computes them, so that one long head
/// can be split over workers (each with its own copy of Q, K, V): rows and output hold the r1 - r0
/// rows (first_row = r0, n_q = r1 - r0); masks apply at absolute positions; the overview has the
/// whole head's geometry (min(overview, n_q) rows over all n_q queries) and holds what these rows
/// pool into it, NaN where none of them sees a key of the cell; summary over these rows. Work is
/// proportional to the rows' visible keys (a causal row t costs t + 1 keys: split by
/// sqrt-spaced bounds for equal work). Throws as compute_streaming(), kInvalidValue for a bad range.
StreamResult compute_streaming_rows(const HeadView& h, const StreamOptions& o, int r0, int r1);

/// The parts of compute_streaming_rows() for consecutive ranges from row 0 (in order, same head
/// and options) merged into compute_streaming()'s result: rows and output concatenated, overview
/// cells combined (max, or the mean weighted by the queries each part pooled into the cell),
/// summary over all rows in row order. Equal to compute_streaming(h, o) (rows and summary
/// exactly; overview and output to float rounding). Throws kInvalidValue if the parts do not
/// tile [0, n_q) in order.
StreamResult merge_streaming_rows(const std::vector<StreamResult>& parts, const StreamOptions& o);

/// Full-resolution weights of query rows [r0, r1) restricted to keys [c0, c1): a zoomed tile
/// ((r1 - r0) x (c1 - c0), at most 512 x 512). Each row is normalised over all its visible keys,
/// so the tile shows exactly the cells of the full matrix; cells whose key is not visible are NaN.
/// Throws as compute_streaming().
Matrix compute_tile(const HeadView& h, const StreamOptions& o, int r0, int r1, int c0, int c1);

/// S = Q K^T * scale of a qkv head, all n_q x n_k of it, into `out` (caller-owned). Lets a caller
/// that recomputes often (a temperature slider) pay for Q K^T once and then run the head as
/// logits. Returns the scale used. Throws as compute_streaming(), kInvalidValue if not qkv.
double compute_scores(const HeadView& h, const StreamOptions& o, float* out);

/// Largest sequence length of the streaming path (memory is linear in it).
inline constexpr int kMaxStreamTokens = 1 << 17;

}  // namespace attn
