// Helpers shared by the Embind binding files: the state entry points' wrapper, errors as values, typed-array copies out
// of the heap, and the row metrics / head summary objects every head-computing entry point returns.
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/state_json.hpp"
#include "attn/state_schema.hpp"

namespace attn::bind {

using emscripten::val;

/// The packed matrices of a call (state_schema.hpp): `count` doubles at heap byte offset `ptr`.
inline PackedMatrices packs_at(unsigned ptr, unsigned count) {
    return {reinterpret_cast<const double*>(static_cast<std::uintptr_t>(ptr)), count};
}

/// The bindings' state entry points (stateJson, ptr, count): `run` on the document with its packed
/// matrices in scope; an error comes back as {"error": {code, field, message}}, never as a throw.
///   computeState        -> results (state_json.hpp)
///   validateState       -> the normalised state (state_schema.hpp)
///   validateAndCompute  -> {"state", "results"}
///   computeLab          -> the lab analysis (lab.hpp; the lab module, lab_bindings.cpp)
template <std::string (*run)(const std::string&)>
std::string state_call(const std::string& state_json, unsigned ptr, unsigned count) {
    const PackedScope scope(packs_at(ptr, count));
    try {
        return run(state_json);
    } catch (const Error& e) {
        return error_to_json(e);
    } catch (const std::exception& e) {
        return error_to_json(Error(ErrorCode::kBadState, "state", e.what()));
    }
}

/// {error: {code, field, message}}: no C++ exception crosses into JavaScript.
inline val error_val(const Error& e) {
    val err = val::object();
    err.set("code", std::string(to_string(e.code())));
    err.set("field", e.field());
    err.set("message", std::string(e.what()));
    val out = val::object();
    out.set("error", err);
    return out;
}

/// A typed array holding a copy of data[0, n): valid after the heap grows.
template <class T>
val copy_out(const T* data, std::size_t n) {
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

/// Row metrics as one typed array per metric: entropy, normalizedEntropy, nEff, topKMass,
/// sinkMass, rowSum (Float64Array, NaN for empty rows), visible, support (Int32Array), empty
/// (Uint8Array).
inline val rows_val(const std::vector<RowMetrics>& rows) {
    const std::size_t n = rows.size();
    std::vector<double> entropy(n), hnorm(n), neff(n), topk(n), sink(n), rowsum(n);
    std::vector<std::int32_t> visible(n), support(n);
    std::vector<std::uint8_t> empty(n);
    for (std::size_t t = 0; t < n; ++t) {
        const RowMetrics& m = rows[t];
        entropy[t] = m.entropy;
        hnorm[t] = m.normalized_entropy;
        neff[t] = m.n_eff;
        topk[t] = m.top_k_mass;
        sink[t] = m.sink_mass;
        rowsum[t] = m.row_sum;
        visible[t] = m.visible;
        support[t] = m.support;
        empty[t] = m.empty;
    }
    val out = val::object();
    out.set("entropy", copy_out(entropy.data(), n));
    out.set("normalizedEntropy", copy_out(hnorm.data(), n));
    out.set("nEff", copy_out(neff.data(), n));
    out.set("topKMass", copy_out(topk.data(), n));
    out.set("sinkMass", copy_out(sink.data(), n));
    out.set("rowSum", copy_out(rowsum.data(), n));
    out.set("visible", copy_out(visible.data(), n));
    out.set("support", copy_out(support.data(), n));
    out.set("empty", copy_out(empty.data(), n));
    return out;
}

/// {rows, emptyRows, meanEntropy, meanNormalizedEntropy, meanNEff, meanTopKMass, meanSinkMass}
inline val summary_val(const HeadSummary& s) {
    val out = val::object();
    out.set("rows", s.rows);
    out.set("emptyRows", s.empty_rows);
    out.set("meanEntropy", s.mean_entropy);
    out.set("meanNormalizedEntropy", s.mean_normalized_entropy);
    out.set("meanNEff", s.mean_n_eff);
    out.set("meanTopKMass", s.mean_top_k_mass);
    out.set("meanSinkMass", s.mean_sink_mass);
    return out;
}

}  // namespace attn::bind
