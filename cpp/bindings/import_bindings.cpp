// Embind bindings of the importer (import.hpp) and the head analysis (analysis.hpp). Only
// bindings: the page's import worker (web/import/import-worker.js) hands in bytes it read from a file,
// a head at a time, and gets plain objects back. Errors come back as {error: {code, field,
// message}} like bindings.cpp, never as exceptions.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/analysis.hpp"
#include "attn/import.hpp"
#include "bind_util.hpp"

namespace {

using emscripten::val;

using attn::bind::copy_out;
using attn::bind::error_val;

std::vector<std::uint8_t> bytes_of(const val& u8) {
    return emscripten::convertJSArrayToNumberVector<std::uint8_t>(u8);
}

val string_array(const std::vector<std::string>& v) {
    val out = val::array();
    for (std::size_t i = 0; i < v.size(); ++i) out.set(i, v[i]);
    return out;
}

/// npyHeaderLength(Uint8Array of the first >= 12 bytes) -> number of header bytes
val npy_header_length(const val& u8) {
    try {
        const auto b = bytes_of(u8);
        return val(static_cast<double>(attn::io::npy_header_length(b.data(), b.size())));
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

val layout_val(const attn::io::Layout& l) {
    val out = val::object();
    out.set("layers", l.layers);
    out.set("heads", l.heads);
    out.set("nQ", l.n_q);
    out.set("nK", l.n_k);
    return out;
}

/// parseNpyHeader(Uint8Array holding the whole header) ->
///   {version, dtype, shape, dataOffset, elements, dataBytes, layout: {layers, heads, nQ, nK}}
val parse_npy_header(const val& u8) {
    try {
        const auto b = bytes_of(u8);
        const attn::io::NpyHeader hd = attn::io::parse_npy_header(b.data(), b.size());
        val shape = val::array();
        for (std::size_t i = 0; i < hd.shape.size(); ++i) shape.set(i, static_cast<double>(hd.shape[i]));
        val out = val::object();
        out.set("version", hd.version_major);
        out.set("dtype", std::string(attn::io::to_string(hd.dtype)));
        out.set("shape", shape);
        out.set("dataOffset", static_cast<double>(hd.data_offset));
        out.set("elements", static_cast<double>(hd.elements));
        out.set("dataBytes", static_cast<double>(hd.data_bytes));
        out.set("layout", layout_val(attn::io::layout_from_shape(hd.shape)));
        return out;
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

/// parseAttentionJson(text) -> {format, layout, queryTokens, keyTokens, layerLabels, headLabels
/// (labels from the file, or empty), data: Float32Array}
val parse_attention_json(const std::string& text) {
    try {
        const attn::io::Tensor t = attn::io::parse_attention_json(text);
        val out = val::object();
        out.set("format", t.format);
        out.set("layout", layout_val(t.layout));
        out.set("queryTokens", string_array(t.query_tokens));
        out.set("keyTokens", string_array(t.key_tokens));
        out.set("layerLabels", string_array(t.layer_labels));
        out.set("headLabels", string_array(t.head_labels));
        out.set("data", copy_out(t.data.data(), t.data.size()));
        return out;
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

/// parseTokens(text) -> string[]
val parse_tokens(const std::string& text) {
    try {
        return string_array(attn::io::parse_tokens(text));
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

val check_val(const attn::HeadCheck& c) {
    val out = val::object();
    out.set("nonfinite", static_cast<double>(c.nonfinite));
    out.set("firstNonfiniteRow", c.first_nonfinite_row);
    out.set("firstNonfiniteCol", c.first_nonfinite_col);
    out.set("negative", static_cast<double>(c.negative));
    out.set("aboveOne", static_cast<double>(c.above_one));
    out.set("fill", static_cast<double>(c.fill));
    out.set("negInf", static_cast<double>(c.neg_inf));
    out.set("finiteFill", static_cast<double>(c.finite_fill));
    out.set("aboveDiagonalOpen", static_cast<double>(c.above_diagonal_open));
    out.set("minValue", c.min_value);
    out.set("maxValue", c.max_value);
    out.set("nQ", c.n_q);
    out.set("zeroRows", c.zero_rows);
    out.set("maxRowSumError", c.max_row_sum_error);
    out.set("worstRow", c.worst_row);
    out.set("rowsAboveDiagonal", c.rows_above_diagonal);
    out.set("maxAboveDiagonal", c.max_above_diagonal);
    out.set("firstRowAboveDiagonal", c.first_row_above_diagonal);
    return out;
}

val pattern_val(const attn::Pattern& p) {
    const attn::PatternScores& s = p.scores;
    val scores = val::object();
    scores.set("sink", s.sink);
    scores.set("self", s.self);
    scores.set("previous", s.previous);
    scores.set("next", s.next);
    scores.set("offset", s.offset);
    scores.set("offsetD", s.offset_d);
    scores.set("strided", s.strided);
    scores.set("period", s.period);
    scores.set("position", s.position);
    scores.set("positionKey", s.position_key);
    scores.set("global", s.global);
    val out = val::object();
    out.set("kind", std::string(attn::to_string(p.kind)));
    out.set("confidence", p.confidence);
    out.set("parameter", p.parameter);
    out.set("scores", scores);
    return out;
}

/// The raw values at spec[ptrKey] (dtype spec[dtypeKey]) as float32, n_q x n_k. A float32 head
/// whose bytes are 4-aligned in the heap is read where it lies (`values` points into the heap and
/// `converted` stays empty: no copy of the head); float16, float64 and unaligned float32 are
/// converted into `converted`.
struct HeadValues {
    const float* values = nullptr;
    std::vector<float> converted;
};

HeadValues head_values(const val& spec, const char* ptr_key, const char* dtype_key, int n_q, int n_k) {
    const auto ptr = spec[ptr_key].as<std::uintptr_t>();
    const std::string dtype = spec[dtype_key].as<std::string>();
    attn::io::DType t = attn::io::DType::f32;
    if (dtype == "float16")
        t = attn::io::DType::f16;
    else if (dtype == "float64")
        t = attn::io::DType::f64;
    else if (dtype != "float32")
        throw attn::Error(attn::ErrorCode::kInvalidValue, "dtype", "dtype must be float16, float32 or float64");
    HeadValues out;
    if (t == attn::io::DType::f32 && ptr % alignof(float) == 0) {
        out.values = reinterpret_cast<const float*>(ptr);
        return out;
    }
    const std::size_t count = static_cast<std::size_t>(n_q) * n_k;
    out.converted.resize(count);
    attn::io::to_float32(t, reinterpret_cast<const std::uint8_t*>(ptr), count, out.converted.data());
    out.values = out.converted.data();
    return out;
}

void check_sizes(int n_q, int n_k) {
    if (n_q < 1 || n_k < 1 || n_q > attn::io::kMaxImportTokens || n_k > attn::io::kMaxImportTokens)
        throw attn::Error(attn::ErrorCode::kShapeMismatch, "shape", "a head needs 1 to 131072 queries and keys");
}

/// AnalyzeOptions from a spec; spec.tokens (optional, the key tokens: n_k strings) gives the
/// token ids of the TransformerLens duplicate-token and induction scores.
attn::AnalyzeOptions options_of(const val& spec, int n_q, int n_k) {
    attn::AnalyzeOptions o;
    o.reading = spec["reading"].as<std::string>() == "logits" ? attn::Reading::logits : attn::Reading::weights;
    o.causal = spec["causal"].as<bool>();
    o.top_k = spec["topK"].as<int>();
    o.sink_keys = spec["sinkKeys"].as<int>();
    o.delta = spec["delta"].as<double>();
    if (spec["thumbnail"].isNumber()) o.thumbnail = spec["thumbnail"].as<int>();
    if (!spec["wantRows"].isUndefined()) o.want_rows = spec["wantRows"].as<bool>();
    const val tokens = spec["tokens"];
    if (n_q == n_k && tokens.isArray() && tokens["length"].as<int>() == n_k)
        o.token_ids = attn::token_ids_of(emscripten::vecFromJSArray<std::string>(tokens));
    return o;
}

val field_val(const attn::FieldScores& f) {
    val out = val::object();
    for (const attn::HeadScoreInfo& info : attn::kHeadScores) out.set(info.key, f.*(info.member));
    return out;
}

/// analyzeHead(spec): spec {ptr (byte offset of the raw values in the heap), dtype ("float16" |
/// "float32" | "float64"), nQ, nK, reading ("weights" | "logits"), causal, topK, sinkKeys, delta,
/// thumbnail, wantRows, tokens? (the key tokens)} -> {verdict, computed, check, summary, pattern,
/// field {previousToken, duplicateToken, induction}, causalStructure, causalVisibility,
/// aboveDiagonalMass, thumbnail, thumbRows, thumbCols, rows?}. float32 bytes (4-aligned) are
/// analysed where they lie in the heap; other dtypes are converted to float32 into a buffer of
/// the core's own. The heap bytes are only read.
val analyze_head(const val& spec) {
    try {
        const int n_q = spec["nQ"].as<int>();
        const int n_k = spec["nK"].as<int>();
        check_sizes(n_q, n_k);
        const HeadValues values = head_values(spec, "ptr", "dtype", n_q, n_k);
        const attn::AnalyzeOptions o = options_of(spec, n_q, n_k);
        const attn::HeadAnalysis a = attn::analyze_head(values.values, n_q, n_k, o);

        val out = val::object();
        out.set("verdict", std::string(attn::to_string(a.verdict)));
        out.set("computed", a.computed);
        out.set("check", check_val(a.check));
        val summary = attn::bind::summary_val(a.summary);
        out.set("summary", summary);
        out.set("pattern", pattern_val(a.pattern));
        out.set("field", field_val(a.field));
        out.set("causalStructure", a.causal_structure);
        out.set("causalVisibility", a.causal_visibility);
        out.set("aboveDiagonalMass", a.above_diagonal_mass);
        out.set("thumbnail", copy_out(a.thumbnail.data.data(), a.thumbnail.data.size()));
        out.set("thumbRows", a.thumbnail.rows);
        out.set("thumbCols", a.thumbnail.cols);
        if (o.want_rows && a.computed) out.set("rows", attn::bind::rows_val(a.rows));
        return out;
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

val side_val(const attn::HeadAnalysis& a) {
    val out = val::object();
    out.set("verdict", std::string(attn::to_string(a.verdict)));
    out.set("computed", a.computed);
    out.set("summary", attn::bind::summary_val(a.summary));
    out.set("pattern", pattern_val(a.pattern));
    return out;
}

/// compareHeads(spec): spec as analyzeHead's with ptrA, dtypeA, ptrB, dtypeB for the two runs of
/// one head (same nQ x nK) -> {a, b: {verdict, computed, summary, pattern}, meanJsd, maxJsd,
/// maxJsdRow} (compare_heads: Jensen-Shannon divergence in nats).
val compare_heads(const val& spec) {
    try {
        const int n_q = spec["nQ"].as<int>();
        const int n_k = spec["nK"].as<int>();
        check_sizes(n_q, n_k);
        const HeadValues a = head_values(spec, "ptrA", "dtypeA", n_q, n_k);
        const HeadValues b = head_values(spec, "ptrB", "dtypeB", n_q, n_k);
        attn::AnalyzeOptions o = options_of(spec, n_q, n_k);
        o.thumbnail = 0;
        o.want_rows = false;
        const attn::HeadComparison c = attn::compare_heads(a.values, b.values, n_q, n_k, o);
        val out = val::object();
        out.set("a", side_val(c.a));
        out.set("b", side_val(c.b));
        out.set("meanJsd", c.mean_jsd);
        out.set("maxJsd", c.max_jsd);
        out.set("maxJsdRow", c.max_jsd_row);
        for (const attn::RowMetricInfo& info : attn::kRowMetrics)
            if (info.mean) out.set(attn::delta_key(info), c.delta.*(info.mean));
        out.set("labelA", c.label_a);
        out.set("labelB", c.label_b);
        out.set("labelChanged", c.label_changed);
        return out;
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

/// parseLayerNumbers(text, count) -> number[] (count of them) or {error}.
val parse_layer_numbers(const std::string& text, int count) {
    try {
        const std::vector<int> n = attn::parse_layer_numbers(text, count);
        val out = val::array();
        for (std::size_t i = 0; i < n.size(); ++i) out.set(i, n[i]);
        return out;
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

/// layerNumbersFromLabels(labels: string[]) -> number[] (empty when the labels give none).
val layer_numbers_from_labels(const val& labels) {
    const std::vector<int> n = attn::layer_numbers_from_labels(emscripten::vecFromJSArray<std::string>(labels));
    val out = val::array();
    for (std::size_t i = 0; i < n.size(); ++i) out.set(i, n[i]);
    return out;
}

/// structureSummary(heads: [{layer, head, computed, causalStructure, aboveDiagonalMass, check:
/// {rowsAboveDiagonal, firstRowAboveDiagonal, maxAboveDiagonal}}], stated, reading) ->
/// {structure, stated, causalHeads, analysed, flagged: [{layer, head, aboveDiagonalMass,
/// rowsAboveDiagonal, firstRowAboveDiagonal, maxAboveDiagonal}]} (summarize_structure).
val structure_summary(const val& heads, bool stated, const std::string& reading) {
    std::vector<attn::StructureHead> in;
    const unsigned n = heads["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
        const val h = heads[i];
        const val c = h["check"];
        attn::StructureHead s;
        s.layer = h["layer"].as<int>();
        s.head = h["head"].as<int>();
        s.computed = h["computed"].as<bool>();
        s.causal_structure = h["causalStructure"].as<bool>();
        s.above_diagonal_mass = h["aboveDiagonalMass"].as<double>();
        s.rows_above_diagonal = c["rowsAboveDiagonal"].as<int>();
        s.first_row_above_diagonal = c["firstRowAboveDiagonal"].as<int>();
        s.max_above_diagonal = c["maxAboveDiagonal"].as<double>();
        in.push_back(s);
    }
    const attn::StructureSummary ss =
        attn::summarize_structure(in, stated, reading == "logits" ? attn::Reading::logits : attn::Reading::weights);
    val flagged = val::array();
    for (std::size_t i = 0; i < ss.flagged.size(); ++i) {
        const attn::StructureHead& h = ss.flagged[i];
        val o = val::object();
        o.set("layer", h.layer);
        o.set("head", h.head);
        o.set("aboveDiagonalMass", h.above_diagonal_mass);
        o.set("rowsAboveDiagonal", h.rows_above_diagonal);
        o.set("firstRowAboveDiagonal", h.first_row_above_diagonal);
        o.set("maxAboveDiagonal", h.max_above_diagonal);
        flagged.set(i, o);
    }
    val out = val::object();
    out.set("structure", ss.structure);
    out.set("stated", ss.stated);
    out.set("causalHeads", ss.causal_heads);
    out.set("analysed", ss.analysed);
    out.set("flagged", flagged);
    return out;
}

/// toFloat32(ptr, dtype, count, outPtr): converts raw little-endian values in the heap.
val to_float32(std::uintptr_t src, const std::string& dtype, double count, std::uintptr_t dst) {
    attn::io::DType t = attn::io::DType::f32;
    if (dtype == "float16")
        t = attn::io::DType::f16;
    else if (dtype == "float64")
        t = attn::io::DType::f64;
    attn::io::to_float32(t, reinterpret_cast<const std::uint8_t*>(src), static_cast<std::size_t>(count),
                         reinterpret_cast<float*>(dst));
    return val::undefined();
}

/// layerSummaries(heads: [{layer, computed, summary: {mean<Key>, ...}}]) -> [{layer, heads,
/// analysed, mean<Key>, ...}]: one mean<Key> per MEAN metric of metrics.def (NaN where no head of
/// the layer has the value; a summary without a key counts as NaN), layers in order of first
/// appearance.
val layer_summaries(const val& heads) {
    std::vector<attn::LayerHead> in;
    const unsigned n = heads["length"].as<unsigned>();
    in.reserve(n);
    for (unsigned i = 0; i < n; ++i) {
        const val h = heads[i];
        const val s = h["summary"];
        attn::LayerHead lh;
        lh.layer = h["layer"].as<int>();
        lh.computed = h["computed"].as<bool>();
        lh.summary = attn::bind::summary_from_val(s);
        in.push_back(lh);
    }
    val out = val::array();
    const std::vector<attn::LayerSummary> layers = attn::summarize_layers(in);
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const attn::LayerSummary& l = layers[i];
        val o = val::object();
        o.set("layer", l.layer);
        o.set("heads", l.heads);
        o.set("analysed", l.analysed);
        for (const attn::RowMetricInfo& info : attn::kRowMetrics)
            if (info.mean) o.set(attn::head_key(info), l.means.*(info.mean));
        out.set(i, o);
    }
    return out;
}

/// meanHeads([Float32Array of nQ * nK, ...], nQ, nK) -> Float32Array: mean_heads (analysis.hpp),
/// the layer-averaged weights of the token views.
val mean_heads(const val& heads, int n_q, int n_k) {
    try {
        std::vector<std::vector<float>> in;
        const unsigned n = heads["length"].as<unsigned>();
        in.reserve(n);
        for (unsigned i = 0; i < n; ++i) in.push_back(emscripten::convertJSArrayToNumberVector<float>(heads[i]));
        const attn::Matrix m = attn::mean_heads(in, n_q, n_k);
        return copy_out(m.data.data(), m.data.size());
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

}  // namespace

EMSCRIPTEN_BINDINGS(attn_import) {
    emscripten::function("npyHeaderLength", &npy_header_length);
    emscripten::function("parseNpyHeader", &parse_npy_header);
    emscripten::function("parseAttentionJson", &parse_attention_json);
    emscripten::function("parseTokens", &parse_tokens);
    emscripten::function("analyzeHead", &analyze_head);
    emscripten::function("toFloat32", &to_float32);
    emscripten::function("layerSummaries", &layer_summaries);
    emscripten::function("compareHeads", &compare_heads);
    emscripten::function("structureSummary", &structure_summary);
    emscripten::function("parseLayerNumbers", &parse_layer_numbers);
    emscripten::function("layerNumbersFromLabels", &layer_numbers_from_labels);
    emscripten::function("meanHeads", &mean_heads);
}
