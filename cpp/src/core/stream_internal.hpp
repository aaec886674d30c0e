// Internals shared by the dense (attention.cpp) and streaming (stream.cpp) entry points.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "attn/stream.hpp"

namespace attn::detail {

/// A number as it reads in an error message ("%.9g": enough digits for a float32).
std::string num(double x);

/// Receives each block of rows: first row r0, `rows` rows of n_k scores (NaN where not visible),
/// visibility flags and weights. Called in row order.
using BlockSink =
    std::function<void(int r0, int rows, const float* scores, const std::uint8_t* visible, const float* weights)>;

/// Shapes, options and finiteness of Q, K, V; throws attn::Error.
void validate_view(const HeadView& h, const StreamOptions& o, int max_tokens);

/// Means of the row metrics over the non-empty rows (NaN when all are empty), in row order.
HeadSummary summarise(const std::vector<RowMetrics>& rows);

/// The pipeline; given values are checked as their rows are reached. Assumes validate_view().
/// When the view is rows [first_row, first_row + h.n_q) of a head of head_rows rows (0: the view
/// is the whole head), the overview has the whole head's geometry and pools these rows only.
StreamResult run_pipeline(const HeadView& h, const StreamOptions& o, const BlockSink* sink, int head_rows = 0,
                          int first_row = 0);

}  // namespace attn::detail
