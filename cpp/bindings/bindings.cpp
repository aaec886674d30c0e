// Embind bindings: only bindings. Two entry points:
//   (the state entry points take (stateJson, ptr, count): `count` doubles at heap offset `ptr`
//    hold the matrices web/core/core.js packs in binary; state_schema.hpp PackedMatrices)
//   computeState(stateJson) -> results JSON          small states: page, node module, CLI agree
//   validateState(stateJson) -> normalised state     the schema's one implementation (state_schema.hpp)
//   schema() -> the schema's constants JSON          limits, modes, lab views, lesson, row defaults
//   computeLabInCore(stateJson) / labViewsInCore()   the lab views linked here (the lesson's);
//                                                    every view: the lab module (lab_bindings.cpp)
//   computeHead(spec) / computeTile(spec, ...)       large heads whose tensors the caller placed
//                                                    in the WASM heap once (byte offsets in spec)
//   computeHeadRows(spec, r0, r1) / mergeHeadRows(spec, parts) / headRowSplit(nQ, parts, causal)
//                                                    one long head split over workers by rows
// No C++ exception crosses into JavaScript: errors come back as {error: {code, field, message}}
// (web/core/core.js turns them into AttentionError). Results are copied out of the heap (.slice()), so
// a later memory growth cannot detach them.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/kernels.hpp"
#include "bind_util.hpp"
#include "attn/lab.hpp"
#include "attn/multihead.hpp"
#include "attn/state_json.hpp"
#include "attn/state_schema.hpp"
#include "attn/stream.hpp"

namespace {

using emscripten::val;

using attn::bind::copy_out;
using attn::bind::error_val;
using attn::bind::state_call;

template <class T>
const T* heap_ptr(const val& spec, const char* key) {
    const val v = spec[key];
    if (v.isUndefined() || v.isNull()) return nullptr;
    const auto offset = v.as<std::uintptr_t>();
    return offset ? reinterpret_cast<const T*>(offset) : nullptr;
}

template <class T>
T get(const val& spec, const char* key, T fallback) {
    const val v = spec[key];
    return v.isUndefined() || v.isNull() ? fallback : v.as<T>();
}

/// spec: {mode, nQ, nK, dK, dV, q, k, v, given (byte offsets), causal, window, stride, maskSinks
/// (attention-sink keys kept beside the window), padding (offset of
/// nK bytes), allow (offset of nQ*nK bytes), tau, scale (0 = 1/sqrt(d_k)), topK, sinkKeys, delta,
/// blockRows, overview, pool ("max" | "mean"), wantOutput}
void read_spec(const val& spec, attn::HeadView& h, attn::StreamOptions& o) {
    h.mode = attn::mode_from_string(spec["mode"].as<std::string>());
    h.n_q = get<int>(spec, "nQ", 0);
    h.n_k = get<int>(spec, "nK", 0);
    h.d_k = get<int>(spec, "dK", 0);
    h.d_v = get<int>(spec, "dV", 0);
    h.q = heap_ptr<float>(spec, "q");
    h.k = heap_ptr<float>(spec, "k");
    h.v = heap_ptr<float>(spec, "v");
    h.given = heap_ptr<float>(spec, "given");
    o.mask.causal = get<bool>(spec, "causal", false);
    o.mask.window = get<int>(spec, "window", 0);
    o.mask.stride = get<int>(spec, "stride", 0);
    o.mask.sink_keys = get<int>(spec, "maskSinks", 0);
    if (const auto* pad = heap_ptr<std::uint8_t>(spec, "padding"); pad && h.n_k > 0)
        o.mask.key_padding.assign(pad, pad + h.n_k);
    if (const auto* allow = heap_ptr<std::uint8_t>(spec, "allow"); allow && h.n_q > 0 && h.n_k > 0)
        o.mask.allow.assign(allow, allow + static_cast<std::size_t>(h.n_q) * h.n_k);
    const attn::kernels::RowParams defaults;  // the row defaults' one definition (row_metrics.hpp)
    o.row.tau = get<double>(spec, "tau", defaults.tau);
    o.row.top_k = get<int>(spec, "topK", defaults.top_k);
    o.row.sink_keys = get<int>(spec, "sinkKeys", defaults.sink_keys);
    o.row.delta = get<double>(spec, "delta", defaults.delta);
    o.scale = get<double>(spec, "scale", 0.0);
    o.block_rows = get<int>(spec, "blockRows", 64);
    o.overview = get<int>(spec, "overview", 0);
    o.pool = get<std::string>(spec, "pool", "max") == "mean" ? attn::Pool::mean : attn::Pool::max;
    o.want_output = get<bool>(spec, "wantOutput", true);
}

/// computeHead's result object (heap data copied out).
val head_val(const attn::StreamResult& r) {
    val rows = attn::bind::rows_val(r.rows);
    val summary = attn::bind::summary_val(r.summary);
    val out = val::object();
    out.set("nQ", r.n_q);
    out.set("nK", r.n_k);
    out.set("dV", r.d_v);
    out.set("scale", r.scale);
    out.set("rows", rows);
    out.set("summary", summary);
    out.set("output", copy_out(r.output.data.data(), r.output.data.size()));
    out.set("overview", copy_out(r.overview.data.data(), r.overview.data.size()));
    out.set("overviewRows", r.overview.rows);
    out.set("overviewCols", r.overview.cols);
    out.set("scratchBytes", static_cast<double>(r.scratch_bytes));
    return out;
}

val compute_head(const val& spec) {
    try {
        attn::HeadView h;
        attn::StreamOptions o;
        read_spec(spec, h, o);
        return head_val(attn::compute_streaming(h, o));
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

/// A StreamResult as the page receives it (computeHead, computeHeadRows, mergeHeadRows).
val stream_result_val(const attn::StreamResult& r) {
    val out = val::object();
    out.set("firstRow", r.first_row);
    out.set("nQ", r.n_q);
    out.set("nK", r.n_k);
    out.set("dV", r.d_v);
    out.set("scale", r.scale);
    out.set("rows", attn::bind::rows_val(r.rows));
    out.set("summary", attn::bind::summary_val(r.summary));
    out.set("output", copy_out(r.output.data.data(), r.output.data.size()));
    out.set("overview", copy_out(r.overview.data.data(), r.overview.data.size()));
    out.set("overviewRows", r.overview.rows);
    out.set("overviewCols", r.overview.cols);
    out.set("scratchBytes", static_cast<double>(r.scratch_bytes));
    return out;
}

/// computeHeadRows(spec, r0, r1): rows [r0, r1) of the head of `spec` (stream.hpp
/// compute_streaming_rows), for a worker that computes part of one long head; firstRow = r0.
val compute_head_rows(const val& spec, int r0, int r1) {
    try {
        attn::HeadView h;
        attn::StreamOptions o;
        read_spec(spec, h, o);
        return stream_result_val(attn::compute_streaming_rows(h, o, r0, r1));
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

/// mergeHeadRows(spec, parts): the computeHeadRows results of consecutive ranges from row 0, in
/// order, merged into computeHead(spec)'s result (stream.hpp merge_streaming_rows). Only the
/// spec's options are read (pool), not its tensors.
val merge_head_rows(const val& spec, const val& parts) {
    try {
        attn::StreamOptions o;
        o.pool = get<std::string>(spec, "pool", "max") == "mean" ? attn::Pool::mean : attn::Pool::max;
        using emscripten::convertJSArrayToNumberVector;
        std::vector<attn::StreamResult> rs;
        for (int i = 0, n = parts["length"].as<int>(); i < n; ++i) {
            const val p = parts[i];
            attn::StreamResult r;
            r.first_row = p["firstRow"].as<int>();
            r.n_q = p["nQ"].as<int>();
            r.n_k = p["nK"].as<int>();
            r.d_v = p["dV"].as<int>();
            r.scale = p["scale"].as<double>();
            r.scratch_bytes = static_cast<std::size_t>(p["scratchBytes"].as<double>());
            if (r.n_q < 0) throw attn::Error(attn::ErrorCode::kInvalidValue, "parts", "a part's nQ is negative");
            r.rows = attn::bind::rows_from_val(p["rows"], static_cast<std::size_t>(r.n_q));
            r.output = attn::Matrix(r.n_q, r.d_v);
            r.output.data = convertJSArrayToNumberVector<float>(p["output"]);
            r.overview = attn::Matrix(p["overviewRows"].as<int>(), p["overviewCols"].as<int>());
            r.overview.data = convertJSArrayToNumberVector<float>(p["overview"]);
            if (r.output.data.size() != static_cast<std::size_t>(r.n_q) * r.d_v ||
                r.overview.data.size() != static_cast<std::size_t>(r.overview.rows) * r.overview.cols)
                throw attn::Error(attn::ErrorCode::kInvalidValue, "parts", "a part's arrays do not match its sizes");
            rs.push_back(std::move(r));
        }
        return stream_result_val(attn::merge_streaming_rows(rs, o));
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

/// headRowSplit(nQ, parts, causal): parts + 1 row bounds 0 = b_0 < ... < b_parts = nQ (fewer parts
/// when nQ < parts) giving each range about the same work: a causal row t sees t + 1 keys, so the
/// bounds are nQ sqrt(i / parts); otherwise nQ i / parts.
val head_row_split(int n_q, int parts, bool causal) {
    val out = val::array();
    if (n_q < 1 || parts < 1) return out;
    int prev = 0;
    out.call<void>("push", 0);
    for (int i = 1; i <= parts; ++i) {
        const double f = static_cast<double>(i) / parts;
        int b = i == parts ? n_q : static_cast<int>(std::lround(n_q * (causal ? std::sqrt(f) : f)));
        if (b <= prev) continue;
        out.call<void>("push", b);
        prev = b;
    }
    return out;
}

val compute_tile(const val& spec, int r0, int r1, int c0, int c1) {
    try {
        attn::HeadView h;
        attn::StreamOptions o;
        read_spec(spec, h, o);
        const attn::Matrix tile = attn::compute_tile(h, o, r0, r1, c0, c1);
        val out = val::object();
        out.set("rows", tile.rows);
        out.set("cols", tile.cols);
        out.set("weights", copy_out(tile.data.data(), tile.data.size()));
        return out;
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

/// S = Q K^T * scale of a qkv head written to `out` (byte offset of n_q * n_k floats): a worker
/// caches it so a temperature, mask or top-k change recomputes only the softmax (as logits).
/// Returns the scale used, or {error}.
val scores_into(const val& spec, std::uintptr_t out) {
    try {
        attn::HeadView h;
        attn::StreamOptions o;
        read_spec(spec, h, o);
        return val(attn::compute_scores(h, o, reinterpret_cast<float*>(out)));
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

/// costOf(shape) -> the cost of a state from its shapes (multihead.hpp layer_cost / head_cost):
///   {mode: "x", n, dModel, dK: [per head], dV: [per head], woRows, woCols}
///     -> {projectionMacs, attentionMacs, outputMacs}
///   {mode: "qkv" | "logits" | "weights", nQ, nK, dK, dV, blockRows}
///     -> {cells, matrixBytes, scoreMacs, outputMacs, streamBytes}
val cost_of(const val& shape) {
    try {
        const std::string mode = shape["mode"].as<std::string>();
        val out = val::object();
        if (mode == "x") {
            attn::LayerShape s;
            s.n = get<int>(shape, "n", 0);
            s.d_model = get<int>(shape, "dModel", 0);
            const val dk = shape["dK"];
            const val dv = shape["dV"];
            for (int h = 0, n = dk["length"].as<int>(); h < n; ++h) s.d_k.push_back(dk[h].as<int>());
            for (int h = 0, n = dv["length"].as<int>(); h < n; ++h) s.d_v.push_back(dv[h].as<int>());
            s.wo_rows = get<int>(shape, "woRows", 0);
            s.wo_cols = get<int>(shape, "woCols", 0);
            const attn::LayerCost c = attn::layer_cost(s);
            out.set("projectionMacs", c.projection_macs);
            out.set("attentionMacs", c.attention_macs);
            out.set("outputMacs", c.output_macs);
            return out;
        }
        const attn::HeadCost c =
            attn::head_cost(attn::mode_from_string(mode), get<int>(shape, "nQ", 0), get<int>(shape, "nK", 0),
                            get<int>(shape, "dK", 0), get<int>(shape, "dV", 0), get<int>(shape, "blockRows", 64));
        out.set("cells", c.cells);
        out.set("matrixBytes", c.matrix_bytes);
        out.set("scoreMacs", c.score_macs);
        out.set("outputMacs", c.output_macs);
        out.set("streamBytes", c.stream_bytes);
        return out;
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

std::string active_kernels() {
    return attn::kernels::active().name;
}

val lab_views_in_core() {
    val out = val::array();
    for (const auto& v : attn::lab_core_views()) out.call<void>("push", v);
    return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attn) {
    emscripten::function("computeState", &state_call<&attn::compute_state_json>);
    emscripten::function("computeHead", &compute_head);
    emscripten::function("computeTile", &compute_tile);
    emscripten::function("computeHeadRows", &compute_head_rows);
    emscripten::function("mergeHeadRows", &merge_head_rows);
    emscripten::function("headRowSplit", &head_row_split);
    emscripten::function("scoresInto", &scores_into);
    emscripten::function("activeKernels", &active_kernels);
    // The lab views the guided lesson needs (lab.hpp lab_core_views); the rest of the lab is the
    // lab module's (lab_bindings.cpp), which the page loads on first use.
    emscripten::function("computeLabInCore", &state_call<&attn::lab_core_state_json>);
    emscripten::function("labViewsInCore", &lab_views_in_core);
    emscripten::function("validateState", &state_call<&attn::validate_state_json>);
    emscripten::function("validateAndCompute", &state_call<&attn::validate_and_compute_state_json>);
    emscripten::function("schema", &attn::schema_json);
    emscripten::constant("schemaVersion", 1);
}

// The page's cost line (web/core/cost.js): its own block, beside the entry points above.
EMSCRIPTEN_BINDINGS(attn_cost) {
    emscripten::function("costOf", &cost_of);
}
