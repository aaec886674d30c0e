// What the kernels compute per query row, and with which parameters: the contract between the
// pipeline (attention.hpp, stream.hpp) and the kernels (kernels.hpp), so the kernels need neither
// the pipeline's header nor anything above it.
//
// RowParams' member initialisers are the only definition of the row defaults (top-k 2, sink keys 1,
// delta 0.1) in C++: Problem, AnalyzeOptions and the bindings read them from a default RowParams.
#pragma once

#include <limits>

namespace attn {

/// Per-query metrics (MATH.md, "Per-row quantities"): one member per line of metrics.def, where
/// each is described. Set by the kernels (KernelSet::softmax_row); set_empty() for an empty row.
struct RowMetrics {
    bool empty = false;
#define ATTN_ROW_METRIC(type, field, key, csv, unit, head, ev) type field = 0;
#include "attn/metrics.def"
#undef ATTN_ROW_METRIC
    /// An empty row (Omega_t empty): empty = true, every metric as its `empty` column says
    /// (UNDEFINED: NaN, or 0 for an int; ZERO: 0).
    void set_empty();
};

/// Means of the row metrics over the non-empty rows (NaN when every row is empty): one
/// mean_<field> per metric of metrics.def whose head column is MEAN.
struct HeadSummary {
    int rows = 0;
    int empty_rows = 0;
#define ATTN_HEAD_MEAN(field) double mean_##field = 0;
#define ATTN_HEAD_NONE(field)
#define ATTN_ROW_METRIC(type, field, key, csv, unit, head, ev) ATTN_HEAD_##head(field)
#include "attn/metrics.def"
#undef ATTN_ROW_METRIC
#undef ATTN_HEAD_MEAN
#undef ATTN_HEAD_NONE
    /// Every mean NaN (a head that was not computed).
    void set_undefined();
};

/// One line of metrics.def, for code that handles every metric alike (JSON, CSV, bindings,
/// summaries). `get` reads the metric as a double (an int converted); `set` writes it (an int
/// rounded toward zero); `mean` is HeadSummary's member, nullptr when the head column is NONE.
struct RowMetricInfo {
    const char* field;          ///< C++ member name
    const char* key;            ///< JSON key of a row
    const char* csv;            ///< CSV column of a row
    const char* unit;           ///< "nats", "keys" or "none"
    bool integer;               ///< int member (JSON integers; Int32Array in the bindings)
    bool head_mean;             ///< the head column is MEAN
    bool undefined_when_empty;  ///< the empty column is UNDEFINED: null in JSON, "" in CSV
    double (*get)(const RowMetrics&);
    void (*set)(RowMetrics&, double);
    double HeadSummary::*mean;
};

namespace detail {
template <class T>
constexpr bool kIsInt = false;
template <>
inline constexpr bool kIsInt<int> = true;
}  // namespace detail

/// Every metric of metrics.def, in its order.
inline constexpr RowMetricInfo kRowMetrics[] = {
#define ATTN_HEAD_MEAN(field) &HeadSummary::mean_##field
#define ATTN_HEAD_NONE(field) nullptr
#define ATTN_ROW_METRIC(type, field, key, csv, unit, head, ev)                      \
    RowMetricInfo{#field,                                                           \
                  key,                                                              \
                  csv,                                                              \
                  #unit,                                                            \
                  detail::kIsInt<type>,                                             \
                  ATTN_HEAD_##head(field) != nullptr,                               \
                  #ev[0] == 'U',                                                    \
                  [](const RowMetrics& m) { return static_cast<double>(m.field); }, \
                  [](RowMetrics& m, double x) { m.field = static_cast<type>(x); },  \
                  ATTN_HEAD_##head(field)},
#include "attn/metrics.def"
#undef ATTN_ROW_METRIC
#undef ATTN_HEAD_MEAN
#undef ATTN_HEAD_NONE
};

namespace kernels {

/// Parameters of one row's normalisation and metrics (MATH.md, "Per-row quantities").
struct RowParams {
    double tau = 1.0;    ///< temperature, finite and > 0
    int top_k = 2;       ///< >= 1, clamped to |Omega_t|
    int sink_keys = 1;   ///< >= 0: the sink mass is the weight on keys [0, sink_keys)
    double delta = 0.1;  ///< in [0, 1): support = fewest keys holding mass >= 1 - delta
};

/// What the kernels' fused pass does not compute: the metrics read from the row's final weights
/// a[0..n) (0 outside Omega_t) of a non-empty row, written into `m` (row_metrics.cpp). Every
/// KernelSet's softmax_row calls it last, so each kernel path gives them alike.
void finish_row_metrics(const float* a, int n, RowMetrics& m);

}  // namespace kernels

namespace detail {
/// The value of a metric of type T in an empty row: NaN for an UNDEFINED double, else 0.
template <class T>
constexpr T empty_value(bool undefined) {
    if constexpr (kIsInt<T>) {
        return T{0};
    } else {
        return undefined ? std::numeric_limits<T>::quiet_NaN() : T{0};
    }
}
}  // namespace detail

inline void RowMetrics::set_empty() {
    empty = true;
#define ATTN_ROW_METRIC(type, field, key, csv, unit, head, ev) field = detail::empty_value<type>(#ev[0] == 'U');
#include "attn/metrics.def"
#undef ATTN_ROW_METRIC
}

inline void HeadSummary::set_undefined() {
#define ATTN_HEAD_MEAN(field) mean_##field = std::numeric_limits<double>::quiet_NaN();
#define ATTN_HEAD_NONE(field)
#define ATTN_ROW_METRIC(type, field, key, csv, unit, head, ev) ATTN_HEAD_##head(field)
#include "attn/metrics.def"
#undef ATTN_ROW_METRIC
#undef ATTN_HEAD_MEAN
#undef ATTN_HEAD_NONE
}

/// The row defaults, for default member initialisers elsewhere (Problem, AnalyzeOptions).
inline constexpr kernels::RowParams kRowDefaults{};

}  // namespace attn
