// Helpers shared by the Embind binding files: the state entry points' wrapper, errors as values, typed-array copies out
// of the heap, and the row metrics / head summary objects every head-computing entry point returns.
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/metrics_io.hpp"
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

/// Row metrics as one typed array per metric of metrics.def, under its JSON key (Float64Array
/// for a double, NaN for an empty row's; Int32Array for an int), and `empty` (Uint8Array).
inline val rows_val(const std::vector<RowMetrics>& rows) {
    const std::size_t n = rows.size();
    val out = val::object();
    std::vector<double> d(n);
    std::vector<std::int32_t> i(n);
    for (const RowMetricInfo& info : kRowMetrics) {
        if (info.integer) {
            for (std::size_t t = 0; t < n; ++t) i[t] = static_cast<std::int32_t>(info.get(rows[t]));
            out.set(info.key, copy_out(i.data(), n));
        } else {
            for (std::size_t t = 0; t < n; ++t) d[t] = info.get(rows[t]);
            out.set(info.key, copy_out(d.data(), n));
        }
    }
    std::vector<std::uint8_t> empty(n);
    for (std::size_t t = 0; t < n; ++t) empty[t] = rows[t].empty;
    out.set("empty", copy_out(empty.data(), n));
    return out;
}

/// rows_val's inverse: the typed arrays (or plain arrays) of `rows` back into n RowMetrics.
/// Throws Error(kInvalidValue, "parts") when a metric's array is missing or not n long.
inline std::vector<RowMetrics> rows_from_val(const val& rows, std::size_t n) {
    std::vector<RowMetrics> out(n);
    const auto column = [&](const char* key) {
        const val v = rows[key];
        if (v.isUndefined() || v.isNull())
            throw Error(ErrorCode::kInvalidValue, "parts", std::string("a part's rows have no ") + key);
        auto c = emscripten::convertJSArrayToNumberVector<double>(v);
        if (c.size() != n)
            throw Error(ErrorCode::kInvalidValue, "parts", std::string("a part's ") + key + " does not match its nQ");
        return c;
    };
    for (const RowMetricInfo& info : kRowMetrics) {
        const std::vector<double> c = column(info.key);
        for (std::size_t t = 0; t < n; ++t) info.set(out[t], c[t]);
    }
    const std::vector<double> empty = column("empty");
    for (std::size_t t = 0; t < n; ++t) out[t].empty = empty[t] != 0;
    return out;
}

/// {rows, emptyRows, mean<Key> for every MEAN metric of metrics.def}
inline val summary_val(const HeadSummary& s) {
    val out = val::object();
    out.set("rows", s.rows);
    out.set("emptyRows", s.empty_rows);
    for (const RowMetricInfo& info : kRowMetrics)
        if (info.mean) out.set(head_key(info), s.*(info.mean));
    return out;
}

/// summary_val's inverse for the means: every mean<Key> of `s` that is a number (else NaN).
inline HeadSummary summary_from_val(const val& s) {
    HeadSummary out;
    for (const RowMetricInfo& info : kRowMetrics) {
        if (!info.mean) continue;
        const val x = s[head_key(info)];
        out.*(info.mean) = x.isNumber() ? x.as<double>() : std::numeric_limits<double>::quiet_NaN();
    }
    return out;
}

}  // namespace attn::bind
