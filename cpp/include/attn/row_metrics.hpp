// What the kernels compute per query row, and with which parameters: the contract between the
// pipeline (attention.hpp, stream.hpp) and the kernels (kernels.hpp), so the kernels need neither
// the pipeline's header nor anything above it.
//
// RowParams' member initialisers are the only definition of the row defaults (top-k 2, sink keys 1,
// delta 0.1) in C++: Problem, AnalyzeOptions and the bindings read them from a default RowParams.
#pragma once

namespace attn {

/// Per-query metrics (MATH.md, "Per-row quantities"). All NaN when `empty`.
struct RowMetrics {
    bool empty = false;
    int visible = 0;                ///< |Omega_t|
    double entropy = 0;             ///< H = -sum a ln a, nats, in [0, ln |Omega_t|]
    double normalized_entropy = 0;  ///< H / ln |Omega_t|, 0 when |Omega_t| = 1
    double n_eff = 0;               ///< exp(H), in [1, |Omega_t|]
    double top_k_mass = 0;          ///< sum of the min(k, |Omega_t|) largest weights
    double sink_mass = 0;           ///< weight on the first `sink_keys` keys
    double row_sum = 0;             ///< sum of the row's weights (1 up to rounding; NaN if empty)
    int support = 0;                ///< |S_t|: fewest keys holding mass >= 1 - delta (0 if empty)
};

namespace kernels {

/// Parameters of one row's normalisation and metrics (MATH.md, "Per-row quantities").
struct RowParams {
    double tau = 1.0;    ///< temperature, finite and > 0
    int top_k = 2;       ///< >= 1, clamped to |Omega_t|
    int sink_keys = 1;   ///< >= 0: the sink mass is the weight on keys [0, sink_keys)
    double delta = 0.1;  ///< in [0, 1): support = fewest keys holding mass >= 1 - delta
};

}  // namespace kernels

/// The row defaults, for default member initialisers elsewhere (Problem, AnalyzeOptions).
inline constexpr kernels::RowParams kRowDefaults{};

}  // namespace attn
