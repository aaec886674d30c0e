// Attention JSON documents and token lists (import.hpp). Which format a document is follows from
// its keys only; the numbers then go through the same shape rules as a .npy (layout_from_shape).
#include "attn/import.hpp"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "attn/text.hpp"

namespace attn::io {
namespace {

// The state's instantiation (state_json.cpp): a second one (nlohmann::json, std::map objects)
// would be ~124 KB more code in the page's WebAssembly core (docs/performance.md "The WebAssembly
// core's size"). Objects keep the file's key order (the "known keys" of an error list them so).
using json = nlohmann::ordered_json;

[[noreturn]] void bad(const std::string& field, const std::string& message) {
    throw Error(ErrorCode::kBadFile, field, message);
}

const char* type_name(const json& j) {
    switch (j.type()) {
        case json::value_t::null:
            return "null";
        case json::value_t::boolean:
            return "a boolean";
        case json::value_t::string:
            return "a string";
        case json::value_t::object:
            return "an object";
        case json::value_t::array:
            return "a list";
        case json::value_t::binary:
            return "binary";
        case json::value_t::discarded:
            return "invalid";
        default:
            return "a number";
    }
}

/// Skips a UTF-8 byte-order mark (editors on Windows write one).
std::string_view strip_bom(std::string_view text) {
    if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
        static_cast<unsigned char>(text[1]) == 0xBB && static_cast<unsigned char>(text[2]) == 0xBF)
        text.remove_prefix(3);
    return text;
}

/// double -> float32 rounding to nearest, +-Inf beyond float32's range (as to_float32 for f64).
float to_f32(double d) {
    constexpr double kOverflow = 3.4028235677973366e38;
    if (std::isfinite(d) && std::fabs(d) >= kOverflow)
        return d > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
    return static_cast<float>(d);
}

/// Flattens a nested list of numbers whose shape is read along its first elements; every other
/// list must have the same length at its depth.
class Flattener {
public:
    Flattener(const json& root, std::string name) : name_(std::move(name)) {
        const json* j = &root;
        while (j->is_array()) {
            shape_.push_back(static_cast<std::int64_t>(j->size()));
            if (j->empty()) break;
            j = &(*j)[0];
        }
    }
    const std::vector<std::int64_t>& shape() const { return shape_; }

    /// Fills `out` (row-major); call after the shape has been accepted.
    void fill(const json& root, std::vector<float>& out, std::size_t reserve) {
        out.clear();
        out.reserve(reserve);
        std::string path = name_;
        walk(root, 0, path, out);
    }

private:
    void walk(const json& j, std::size_t depth, std::string& path, std::vector<float>& out) {
        if (depth == shape_.size()) {
            if (j.is_number()) {
                out.push_back(to_f32(j.get<double>()));
            } else if (j.is_null()) {
                out.push_back(std::numeric_limits<float>::quiet_NaN());
            } else if (j.is_array()) {
                throw Error(ErrorCode::kShapeMismatch, "attention",
                            path +
                                " is a list where a number is expected (the lists are nested "
                                "deeper here than along the first entries)");
            } else {
                bad("attention", path + " is " + type_name(j) + ", expected a number");
            }
            return;
        }
        if (!j.is_array())
            throw Error(
                ErrorCode::kShapeMismatch, "attention",
                path + " is " + type_name(j) + ", expected a list of " + std::to_string(shape_[depth]) + " entries");
        if (static_cast<std::int64_t>(j.size()) != shape_[depth])
            throw Error(
                ErrorCode::kShapeMismatch, "attention",
                path + " has " + std::to_string(j.size()) + " entries, expected " + std::to_string(shape_[depth]));
        const std::size_t keep = path.size();
        for (std::size_t i = 0; i < j.size(); ++i) {
            path += "[" + std::to_string(i) + "]";
            walk(j[i], depth + 1, path, out);
            path.resize(keep);
        }
    }

    std::string name_;
    std::vector<std::int64_t> shape_;
};

std::vector<std::string> string_list(const json& j, const std::string& field) {
    if (!j.is_array()) bad(field, field + " is " + type_name(j) + ", expected a list of strings");
    std::vector<std::string> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
        if (!j[i].is_string())
            bad(field, field + "[" + std::to_string(i) + "] is " + type_name(j[i]) + ", expected a string");
        out.push_back(j[i].get<std::string>());
    }
    return out;
}

/// Labels of layers or heads: numbers or strings, as written ("layers": [0], "heads": ["L9H9"]).
std::vector<std::string> labels(const json& obj, const char* key, int expected, const char* what) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return {};
    if (!it->is_array()) bad(key, std::string(key) + " must be a list of labels");
    std::vector<std::string> out;
    for (const json& x : *it) {
        if (x.is_string())
            out.push_back(x.get<std::string>());
        else if (x.is_number_integer())
            out.push_back(std::to_string(x.get<long long>()));
        else if (x.is_number())
            out.push_back(x.dump());
        else
            bad(key, std::string(key) + " must be a list of numbers or strings");
    }
    if (static_cast<int>(out.size()) != expected)
        throw Error(ErrorCode::kShapeMismatch, key,
                    std::string(key) + " has " + std::to_string(out.size()) + " labels for a tensor with " +
                        std::to_string(expected) + " " + what);
    return out;
}

/// Reads a nested list into `t`. `layer_list`: the outer list is layers, each [1, H, n, n] or
/// [H, n, n] (BertViz's attn, a bare list of HF per-layer outputs).
void read_tensor(const json& root, const std::string& name, bool layer_list, Tensor& t, std::size_t text_bytes) {
    Flattener f(root, name);
    std::vector<std::int64_t> shape = f.shape();
    if (layer_list && shape.size() == 5 && shape[1] != 1 && shape[0] != 1)
        throw Error(ErrorCode::kShapeMismatch, "shape",
                    name + " is a list of " + std::to_string(shape[0]) +
                        " layers of [batch, heads, n_q, n_k]: pick one example: the batch axis has " +
                        std::to_string(shape[1]) + " entries");
    if (layer_list && shape.size() == 5 && shape[1] == 1 && shape[0] != 1) {
        // A list of per-layer [1, H, n, n] arrays (HF `output_attentions`, BertViz): the batch
        // axis is the second one. Dropping an axis of length 1 keeps the row-major order.
        shape.erase(shape.begin() + 1);
    }
    t.layout = layout_from_shape(shape);
    // Each number takes at least two characters ("0,"): never reserve beyond what the text holds.
    const std::uint64_t total = static_cast<std::uint64_t>(t.layout.total_heads()) * t.layout.head_elements();
    f.fill(root, t.data, static_cast<std::size_t>(std::min<std::uint64_t>(total, text_bytes / 2 + 1)));
}

/// Token lists of a self- or cross-attention document against the tensor's n_q and n_k.
void set_tokens(Tensor& t, std::vector<std::string> queries, std::vector<std::string> keys, bool cross) {
    if (!cross) {
        check_token_count(keys, t.layout.n_k, "keys");
        // One list for both axes: the queries are the last n_q tokens (n_q < n_k when a model
        // attends from new tokens to a cache; the query t sits at key position t + n_k - n_q).
        if (!keys.empty() && t.layout.n_q <= t.layout.n_k)
            queries.assign(keys.end() - t.layout.n_q, keys.end());
        else if (!keys.empty())
            throw Error(
                ErrorCode::kShapeMismatch, "tokens",
                std::to_string(keys.size()) + " tokens for a tensor with " + std::to_string(t.layout.n_q) + " queries");
    } else {
        check_token_count(queries, t.layout.n_q, "queries");
        check_token_count(keys, t.layout.n_k, "keys");
    }
    t.query_tokens = std::move(queries);
    t.key_tokens = std::move(keys);
}

std::string key_list(const json& obj) {
    std::string s;
    int n = 0;
    for (auto it = obj.begin(); it != obj.end() && n < 8; ++it, ++n) {
        if (n) s += ", ";
        s += "\"" + it.key() + "\"";
    }
    if (obj.size() > 8) s += ", ...";
    return s.empty() ? "none" : s;
}

constexpr const char* kExpected =
    "expected {\"tokens\", \"attention\"} (this page's format, CircuitsVis), {\"queryTokens\", "
    "\"keyTokens\", \"attention\"}, BertViz {\"all\": {\"attn\", \"left_text\", \"right_text\"}} "
    "or a list of per-layer arrays";

}  // namespace

void check_token_count(const std::vector<std::string>& tokens, int expected, const char* axis) {
    if (tokens.empty() || static_cast<long long>(tokens.size()) == expected) return;
    throw Error(ErrorCode::kShapeMismatch, "tokens",
                std::to_string(tokens.size()) + " tokens for a tensor with " + std::to_string(expected) + " " + axis);
}

Tensor parse_attention_json(std::string_view text) {
    text = strip_bom(text);
    // Token strings with half a character (byte-level BPE) read as U+FFFD (text.hpp).
    std::string repaired;
    if (const std::string whole(text); json_text_needs_repair(whole)) {
        repaired = well_formed_json_text(whole);
        text = repaired;
    }
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        bad("file", "not an attention file: the text is not valid JSON (at byte " + std::to_string(e.byte) + ")");
    } catch (const json::out_of_range&) {
        // A number beyond the double range (1e400): nlohmann refuses it with out_of_range 406,
        // which used to escape the reader (an abort of `attn analyze`; found by
        // cpp/fuzz/fuzz_attention_json.cpp).
        bad("file", "not an attention file: it holds a number too large for a double (such as 1e400)");
    }
    Tensor t;
    if (doc.is_array()) {
        read_tensor(doc, "document", /*layer_list=*/true, t, text.size());
        t.format = "bertviz";
        return t;
    }
    if (!doc.is_object())
        bad("file", std::string("not an attention file: the JSON is ") + type_name(doc) + "; " + kExpected);
    if (doc.contains("version") && doc.contains("heads"))
        bad("file", "this is a playground state (docs/state.md), not an attention file");

    // BertViz: {"all": {"attn", "left_text", "right_text"}}, or that inner object itself.
    const json* bv = nullptr;
    std::string bv_name;
    if (auto it = doc.find("all"); it != doc.end() && it->is_object()) {
        bv = &*it;
        bv_name = "all.";
    } else if (doc.contains("attn")) {
        bv = &doc;
    } else if (!doc.contains("attention") &&
               (doc.contains("encoder") || doc.contains("decoder") || doc.contains("cross"))) {
        bad("file", "BertViz encoder-decoder data (" + key_list(doc) +
                        "): this reader takes one attention at a time; save the one to analyse "
                        "as {\"all\": {\"attn\", \"left_text\", \"right_text\"}}");
    }
    if (bv) {
        auto attn = bv->find("attn");
        if (attn == bv->end()) bad("file", "not an attention file: \"" + bv_name + "attn\" is missing; " + kExpected);
        read_tensor(*attn, bv_name + "attn", /*layer_list=*/true, t, text.size());
        std::vector<std::string> left, right;
        if (auto it = bv->find("left_text"); it != bv->end()) left = string_list(*it, bv_name + "left_text");
        if (auto it = bv->find("right_text"); it != bv->end()) right = string_list(*it, bv_name + "right_text");
        const bool cross = !left.empty() && !right.empty() && left != right;
        if (cross)
            set_tokens(t, std::move(left), std::move(right), true);
        else
            set_tokens(t, {}, right.empty() ? std::move(left) : std::move(right), false);
        t.format = "bertviz";
        return t;
    }

    auto attn = doc.find("attention");
    if (attn == doc.end()) bad("file", "not an attention file: found keys " + key_list(doc) + "; " + kExpected);
    read_tensor(*attn, "attention", /*layer_list=*/false, t, text.size());

    const bool has_q = doc.contains("queryTokens"), has_k = doc.contains("keyTokens");
    if (has_q != has_k)
        bad(has_q ? "keyTokens" : "queryTokens", std::string("\"") + (has_q ? "queryTokens" : "keyTokens") +
                                                     "\" needs \"" + (has_q ? "keyTokens" : "queryTokens") +
                                                     "\" too (cross-attention)");
    if (has_q) {
        set_tokens(t, string_list(doc["queryTokens"], "queryTokens"), string_list(doc["keyTokens"], "keyTokens"), true);
    } else if (auto it = doc.find("tokens"); it != doc.end() && !it->is_null()) {
        set_tokens(t, {}, string_list(*it, "tokens"), false);
    }
    // CircuitsVis props are {tokens, attention [heads, dest, src]} (plus display options such as
    // headLabels); this page's files name layers and heads or use cross-attention tokens.
    const bool ours = doc.contains("layers") || doc.contains("heads") || has_q;
    const std::size_t rank = Flattener(*attn, "").shape().size();
    t.format = !ours && rank <= 3 ? "circuitsvis" : "attention-json";
    t.layer_labels = labels(doc, "layers", t.layout.layers, "layers");
    t.head_labels = labels(doc, "heads", t.layout.heads, "heads");
    if (t.head_labels.empty()) t.head_labels = labels(doc, "headLabels", t.layout.heads, "heads");
    return t;
}

std::vector<std::string> parse_tokens(std::string_view text) {
    text = strip_bom(text);
    // One rule for half a character (text.hpp): U+FFFD, in JSON escapes and in raw bytes alike.
    std::string repaired;
    if (const std::string whole(text); json_text_needs_repair(whole)) {
        repaired = well_formed_utf8(well_formed_json_text(whole));
        text = repaired;
    }
    std::size_t first = 0;
    while (first < text.size() &&
           (text[first] == ' ' || text[first] == '\t' || text[first] == '\r' || text[first] == '\n'))
        ++first;
    if (first < text.size() && (text[first] == '[' || text[first] == '{')) {
        json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
        if (!doc.is_discarded()) {
            // A line list whose first line is "[CLS]" is not JSON and falls through to lines.
            if (!doc.is_array())
                bad("tokens",
                    std::string("the token file is JSON but ") + type_name(doc) + ", expected a list of strings");
            return string_list(doc, "tokens");
        }
    }
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view line = text.substr(pos, nl - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        out.emplace_back(line);
        pos = nl + 1;
    }
    return out;
}

}  // namespace attn::io
