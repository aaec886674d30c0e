// `attn analyze` (analyze.hpp): reads heads one at a time from a source (sources.hpp), checks and
// analyses each with the same core functions the page calls (analysis.hpp) on --threads workers,
// and prints each head's result in head order as soon as it and those before it are computed, so
// memory stays at a few heads (2 per thread) whatever the file size.
#include "analyze.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <vector>

#include "attn/analysis.hpp"
#include "attn/import.hpp"
#include "attn/metrics_io.hpp"
#include "metrics_csv.hpp"
#include "attn/text.hpp"
#include "sources.hpp"

namespace attn::cli {

const char* const kAnalyzeUsage =
    "usage: attn analyze FILE [--tokens F] [--key-tokens F] [--format json|csv] [--rows]\n"
    "                    [--layers LIST] [--heads LIST] [--array NAME]\n"
    "                    [--read auto|weights|logits] [--causal] [--top-k K] [--threads N]\n"
    "                    [--stats] [--layer-numbers LIST]\n"
    "  Checks and analyses every head of an attention file (docs/import.md) and prints, per\n"
    "  head, its verdict, summary metrics (entropy in nats, N_eff, top-k mass, sink mass) and\n"
    "  pattern label, as one JSON document (default) or CSV (one line per head).\n"
    "  FILE          .npy (float16/32/64, [n_q,n_k] ... [1,L,H,n_q,n_k]), .npz, or attention\n"
    "                JSON (this page's, CircuitsVis, BertViz); told apart by their first bytes.\n"
    "                .npy and .npz are read one head at a time.\n"
    "  --tokens F    token list (JSON list of strings, or one per line); with --key-tokens,\n"
    "                the query tokens\n"
    "  --key-tokens F  key tokens of cross-attention\n"
    "  --rows        also every row's metrics (JSON \"rows\"; CSV: one line per row)\n"
    "  --layers LIST, --heads LIST   e.g. 0,2,5-7 (default all): positions in the file, 0 to\n"
    "                layers - 1, whatever the layers' numbers\n"
    "  --layer-numbers LIST  the model's numbers of the file's layers, e.g. 0,2,4,5 for a file\n"
    "                of four layers (default: the numbers in the file's layer labels, else 0,1,...);\n"
    "                used as \"layer\" in JSON and CSV, the position as \"layerIndex\"\n"
    "  --array NAME  the .npz member to read (required when it holds several, unless each\n"
    "                member is one layer named by its number: layer_0, layer_2, ...)\n"
    "  --read        auto (default): weights if the first selected head holds probabilities,\n"
    "                else exit 3; weights; logits (values <= -1e30 are masked keys)\n"
    "  --causal      the heads are causal: weight above the diagonal is reported (and masked\n"
    "                when read as logits). Without it the structure is detected: heads zero\n"
    "                above the diagonal are causal (|Omega_t| = t + 1, a float16 weight of 0\n"
    "                stays a visible key); when most are, the others are flagged\n"
    "  --top-k K     k of the top-k mass (default 2)\n"
    "  --threads N   heads analysed in parallel (default: every hardware thread); the output is\n"
    "                byte-identical for every N; memory: one head per thread\n"
    "  --stats       print the peak resident memory and the time to stderr\n"
    "  Exit status: 0 ok, 2 bad input (or a head holding NaN/Inf: the document is still\n"
    "  complete), 3 values that are not probabilities (rerun with --read logits), 64 usage.\n"
    "  Examples:\n"
    "    attn analyze gpt2_attention.npy --tokens gpt2_tokens.json > heads.json\n"
    "    attn analyze run.npz --array patterns --layers 5 --heads 1,5 --format csv\n"
    "    attn analyze scores.npy --read logits --causal --rows --format csv > rows.csv\n";

namespace {

using ojson = nlohmann::ordered_json;

struct Options {
    std::string file, tokens, key_tokens, array, layers, heads, layer_numbers;
    std::string format = "json";
    std::string read = "auto";
    bool rows = false, causal = false, stats = false;
    int top_k = 2;
    int threads = 0;  ///< 0: every hardware thread
};

Options parse_options(int argc, char** argv) {
    Options o;
    bool have_file = false;
    for (int i = 2; i < argc; ++i) {
        std::string arg = argv[i];
        std::string value;
        bool has_value = false;
        if (arg.rfind("--", 0) == 0) {
            if (auto eq = arg.find('='); eq != std::string::npos) {
                value = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
                has_value = true;
            }
        }
        auto take = [&]() -> std::string {
            if (has_value) return value;
            if (i + 1 >= argc) throw UsageError(arg + " needs a value");
            return argv[++i];
        };
        auto flag = [&] {
            if (has_value) throw UsageError(arg + " takes no value");
            return true;
        };
        if (arg == "--tokens")
            o.tokens = take();
        else if (arg == "--key-tokens")
            o.key_tokens = take();
        else if (arg == "--format")
            o.format = take();
        else if (arg == "--layers")
            o.layers = take();
        else if (arg == "--heads")
            o.heads = take();
        else if (arg == "--array")
            o.array = take();
        else if (arg == "--layer-numbers")
            o.layer_numbers = take();
        else if (arg == "--read")
            o.read = take();
        else if (arg == "--top-k") {
            const std::string v = take();
            int k = 0;
            const auto r = std::from_chars(v.data(), v.data() + v.size(), k);
            if (r.ec != std::errc() || r.ptr != v.data() + v.size() || k < 1)
                throw UsageError("--top-k " + v + ": expected a whole number >= 1");
            o.top_k = k;
        } else if (arg == "--threads") {
            const std::string v = take();
            int t = 0;
            const auto r = std::from_chars(v.data(), v.data() + v.size(), t);
            if (r.ec != std::errc() || r.ptr != v.data() + v.size() || t < 1 || t > 1024)
                throw UsageError("--threads " + v + ": expected a whole number from 1 to 1024");
            o.threads = t;
        } else if (arg == "--rows")
            o.rows = flag();
        else if (arg == "--causal")
            o.causal = flag();
        else if (arg == "--stats")
            o.stats = flag();
        else if (arg.size() > 1 && arg[0] == '-')
            throw UsageError("unknown option " + arg);
        else if (have_file)
            throw UsageError("one FILE at a time (got " + o.file + " and " + arg + ")");
        else {
            o.file = arg;
            have_file = true;
        }
    }
    if (!have_file) throw UsageError("analyze needs a FILE");
    if (o.format != "json" && o.format != "csv") throw UsageError("--format " + o.format + ": expected json or csv");
    if (o.read != "auto" && o.read != "weights" && o.read != "logits")
        throw UsageError("--read " + o.read + ": expected auto, weights or logits");
    if (!o.key_tokens.empty() && o.tokens.empty()) throw UsageError("--key-tokens needs --tokens (the query tokens)");
    return o;
}

/// "0,2,5-7" -> {0, 2, 5, 6, 7} (sorted, without repeats); every index in [0, count).
std::vector<int> parse_list(const std::string& text, int count, const char* option, const char* what) {
    std::vector<int> out;
    if (text.empty()) {
        for (int i = 0; i < count; ++i) out.push_back(i);
        return out;
    }
    const std::string range = count == 1 ? "0" : "0-" + std::to_string(count - 1);
    auto syntax = [&] { return UsageError(std::string(option) + " " + text + ": expected a list like 0,2,5-7"); };
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(pos, comma - pos);
        const std::size_t dash = item.find('-', 1);
        auto number = [&](const std::string& s) {
            long long v = 0;
            const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
            if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) throw syntax();
            if (v < 0 || v >= count)
                throw UsageError(std::string(option) + " " + text + ": " + std::string(what) + " " + s +
                                 " is out of range: the file has " + std::to_string(count) + " " + what +
                                 (count == 1 ? "" : "s") + " (" + range + ")");
            return static_cast<int>(v);
        };
        const int lo = number(dash == std::string::npos ? item : item.substr(0, dash));
        const int hi = dash == std::string::npos ? lo : number(item.substr(dash + 1));
        if (hi < lo) throw syntax();
        for (int i = lo; i <= hi; ++i) out.push_back(i);
        pos = comma + 1;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

/// JSON text of `j`. Token files and file names are bytes, not always UTF-8: invalid sequences are
/// written as U+FFFD (as the page's TextDecoder shows them) instead of nlohmann's default, a
/// type_error that aborted the command (found by the seeds of cpp/fuzz/fuzz_analyze.cpp).
std::string dump(const ojson& j) {
    return j.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

ojson num(double x) {
    return std::isfinite(x) ? ojson(x) : ojson(nullptr);
}
ojson index_or_null(int i) {
    return i >= 0 ? ojson(i) : ojson(nullptr);
}

/// A text cell (a token): guarded against spreadsheet formulas (csv_text_cell, text.hpp: the
/// page's rule), then quoted per RFC 4180 when it holds a comma, a quote, a line break or edge
/// spaces; quotes doubled.
std::string csv_field(const std::string& raw) {
    const std::string s = csv_text_cell(raw);
    const bool quote = s.find_first_of(",\"\r\n") != std::string::npos ||
                       (!s.empty() && (s.front() == ' ' || s.back() == ' ' || s.front() == '\t'));
    if (!quote) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string fmt(const char* f, double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

std::string where(int layer, int head) {
    return "layer " + std::to_string(layer) + ", head " + std::to_string(head);
}

/// The exit-3 message: what makes the values not probabilities.
std::string not_probabilities_message(const HeadCheck& c, const std::vector<float>& v, int layer, int head) {
    // What makes them not probabilities first: -inf and finite mask fills are masked keys of
    // logits; the finite values' range is said apart from them (a -inf is not the "min").
    std::string s = "values are not probabilities (" + where(layer, head) + ": ";
    std::vector<std::string> why;
    if (c.n_q > 0 && c.zero_rows == c.n_q)
        why.push_back("every row is all zero (" + std::to_string(c.n_q) + (c.n_q == 1 ? " row" : " rows") +
                      "; an unfilled buffer?)");
    if (c.neg_inf > 0)
        why.push_back(std::to_string(c.neg_inf) + (c.neg_inf == 1 ? " entry is" : " entries are") +
                      " -inf (masked keys of logits)");
    if (c.finite_fill > 0)
        why.push_back(std::to_string(c.finite_fill) + (c.finite_fill == 1 ? " entry is" : " entries are") +
                      " a mask fill (-1e4, -65504, -1e9 or <= -1e30: masked keys of logits)");
    const std::int64_t negative_scores = c.negative - c.finite_fill;
    if (negative_scores > 0)
        why.push_back(std::to_string(negative_scores) + " negative " + (negative_scores == 1 ? "entry" : "entries"));
    if (c.max_value > 1 + kProbabilityTolerance) why.push_back("max " + fmt("%.3g", c.max_value));
    for (const std::string& w : why) s += w + ", ";
    s += std::isfinite(c.min_value)
             ? "finite values from " + fmt("%.3g", c.min_value) + " to " + fmt("%.3g", c.max_value)
             : std::string("no finite value");
    if (c.worst_row >= 0 && c.worst_row < c.n_q && c.max_row_sum_error > kRowSumTolerance) {
        double sum = 0;
        for (int j = 0; j < c.n_k; ++j) {
            const double x = v[static_cast<std::size_t>(c.worst_row) * c.n_k + j];
            if (std::isfinite(x)) sum += x;
        }
        s += ", rows sum to " + fmt("%.3g", sum) + " (query " + std::to_string(c.worst_row) + ", the farthest from 1)";
    }
    return s + "): rerun with --read logits to treat them as scores";
}

std::string invalid_message(const HeadCheck& c, const std::vector<float>& v, int layer, int head) {
    std::string what = "NaN or Inf";
    if (c.first_nonfinite_row >= 0 && c.first_nonfinite_col >= 0) {
        const float x = v[static_cast<std::size_t>(c.first_nonfinite_row) * c.n_k + c.first_nonfinite_col];
        what = std::isnan(x) ? "NaN" : x > 0 ? "+Inf" : "-Inf";
    }
    return where(layer, head) + " holds " + what + " at query " + std::to_string(c.first_nonfinite_row) + ", key " +
           std::to_string(c.first_nonfinite_col) + " (" + std::to_string(c.nonfinite) + " non-finite " +
           (c.nonfinite == 1 ? "entry" : "entries") + " in the head): only finite numbers can be analysed";
}

ojson check_json(const HeadCheck& c) {
    ojson j;
    j["nonfinite"] = c.nonfinite;
    j["firstNonfinite"] = c.first_nonfinite_row >= 0
                              ? ojson{{"row", c.first_nonfinite_row}, {"col", c.first_nonfinite_col}}
                              : ojson(nullptr);
    j["negative"] = c.negative;
    j["aboveOne"] = c.above_one;
    j["fill"] = c.fill;
    j["negInf"] = c.neg_inf;
    j["finiteFill"] = c.finite_fill;
    j["min"] = num(c.min_value);
    j["max"] = num(c.max_value);
    j["zeroRows"] = c.zero_rows;
    j["maxRowSumError"] = num(c.max_row_sum_error);
    j["worstRow"] = index_or_null(c.worst_row);
    j["rowsAboveDiagonal"] = c.rows_above_diagonal;
    j["maxAboveDiagonal"] = num(c.max_above_diagonal);
    j["firstRowAboveDiagonal"] = index_or_null(c.first_row_above_diagonal);
    j["aboveDiagonalOpen"] = c.above_diagonal_open;
    return j;
}

ojson pattern_json(const Pattern& p) {
    const PatternScores& s = p.scores;
    ojson scores;
    scores["sink"] = num(s.sink);
    scores["self"] = num(s.self);
    scores["previous"] = num(s.previous);
    scores["next"] = num(s.next);
    scores["offset"] = num(s.offset);
    scores["offsetD"] = s.offset_d;
    scores["strided"] = num(s.strided);
    scores["period"] = s.period;
    scores["position"] = num(s.position);
    scores["positionKey"] = s.position_key;
    scores["global"] = num(s.global);
    ojson j;
    j["kind"] = to_string(p.kind);
    j["confidence"] = num(p.confidence);
    j["parameter"] = p.parameter;
    j["scores"] = std::move(scores);
    return j;
}

ojson field_json(const FieldScores& f) {
    ojson j;
    for (const HeadScoreInfo& info : kHeadScores) j[info.key] = num(f.*(info.member));
    return j;
}

ojson head_json(const HeadAnalysis& a, int layer, int layer_index, int head, const std::string& label, bool rows) {
    ojson j;
    j["layer"] = layer;
    j["layerIndex"] = layer_index;
    j["head"] = head;
    if (!label.empty()) j["label"] = label;
    j["verdict"] = to_string(a.verdict);
    if (a.computed) {
        j["summary"] = head_summary_json<ojson>(a.summary);
        j["pattern"] = pattern_json(a.pattern);
        j["fieldScores"] = field_json(a.field);
    } else {
        j["summary"] = nullptr;
        j["pattern"] = nullptr;
        j["fieldScores"] = nullptr;
    }
    j["causalStructure"] = a.causal_structure;
    j["causalVisibility"] = a.causal_visibility;
    j["aboveDiagonalMass"] = num(a.above_diagonal_mass);
    j["check"] = check_json(a.check);
    if (rows && a.computed) j["rows"] = rows_columns_json<ojson>(a.rows);
    return j;
}

void out(const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
}

/// Warnings of one kind over many heads, said once: "... in 3 heads: layer 0, head 1 (...); ...".
struct Gathered {
    int count = 0;
    std::string examples;
    void add(const std::string& example) {
        if (++count <= 8) examples += (examples.empty() ? "" : "; ") + example;
    }
    std::string list() const { return examples + (count > 8 ? "; ..." : ""); }
};

int exit_with(int status, const std::string& message) {
    std::fprintf(stderr, "attn: %s\n", message.c_str());
    return status;
}

/// The run's tokens: the file's, or --tokens (one list: the keys, the queries its last n_q) with
/// --key-tokens (the keys of cross-attention).
void read_tokens(const Options& o, const SourceInfo& info, std::vector<std::string>& queries,
                 std::vector<std::string>& keys) {
    const io::Layout& L = info.layout;
    queries = info.query_tokens;
    keys = info.key_tokens;
    if (o.tokens.empty()) return;
    std::vector<std::string> first = io::parse_tokens(read_text_file(o.tokens, "tokens"));
    if (!o.key_tokens.empty()) {
        keys = io::parse_tokens(read_text_file(o.key_tokens, "tokens"));
        io::check_token_count(first, L.n_q, "queries");
        io::check_token_count(keys, L.n_k, "keys");
        queries = std::move(first);
    } else if (!first.empty()) {
        // (An empty token file gives no tokens, as in the JSON reader's set_tokens(); it used to
        // reach the assign below and read before the list: a segfault, found by
        // cpp/fuzz/fuzz_analyze.cpp.)
        io::check_token_count(first, L.n_k, "keys");
        if (L.n_q > L.n_k)
            throw Error(
                ErrorCode::kShapeMismatch, "tokens",
                std::to_string(first.size()) + " tokens for a tensor with " + std::to_string(L.n_q) + " queries");
        keys = std::move(first);
        queries.assign(keys.end() - L.n_q, keys.end());
    }
}

/// The model's layer numbers: --layer-numbers, else the file's labels, else the positions.
std::vector<int> model_layer_numbers(const Options& o, const SourceInfo& info) {
    const int layers = info.layout.layers;
    std::vector<int> numbers;
    if (!o.layer_numbers.empty()) {
        try {
            numbers = parse_layer_numbers(o.layer_numbers, layers);
        } catch (const Error& e) {
            throw UsageError(std::string("--layer-numbers: ") + e.what());
        }
    } else {
        numbers = layer_numbers_from_labels(info.layer_labels);
        if (numbers.size() != static_cast<std::size_t>(layers)) numbers.clear();
    }
    if (numbers.empty())
        for (int i = 0; i < layers; ++i) numbers.push_back(i);
    return numbers;
}

/// The CSV header: per head, or per row with --rows (the page's Rows CSV columns after layer,
/// head: both come from metrics.def).
std::string csv_header(bool rows) {
    if (rows) return "layer,head,row,query_token,empty," + row_metrics_csv_header() + "\n";
    return "layer,head,verdict,rows,empty_rows," + head_summary_csv_header() +
           ",pattern,confidence,parameter,above_diagonal_mass,causal_structure," + head_scores_csv_header() + "\n";
}

/// The JSON document's opening, up to the heads' array.
std::string json_header(const Options& o, const SourceInfo& info, const std::vector<int>& numbers, const char* reading,
                        const std::vector<std::string>& queries, const std::vector<std::string>& keys) {
    const io::Layout& L = info.layout;
    ojson h;
    h["file"] = o.file;
    h["format"] = info.format;
    if (!info.array.empty()) h["array"] = info.array;
    h["dtype"] = info.dtype.empty() ? ojson(nullptr) : ojson(info.dtype);
    h["shape"] = info.shape;
    h["layers"] = L.layers;
    h["layerNumbers"] = numbers;
    h["headsPerLayer"] = L.heads;
    h["nQ"] = L.n_q;
    h["nK"] = L.n_k;
    h["reading"] = reading;
    h["causal"] = o.causal;
    h["topK"] = o.top_k;
    if (!queries.empty() || !keys.empty()) h["tokens"] = ojson{{"queries", queries}, {"keys", keys}};
    std::string text = dump(h);
    text.pop_back();  // the closing brace: the heads follow
    return text + ",\"heads\":[\n";
}

/// One head's part of the output and of the warnings, computed from its values alone (so any
/// thread may compute it), then emitted in head order by the main thread.
struct HeadOut {
    std::string text;  ///< JSON object (without the separator) or CSV lines
    std::string at, invalid, refused, sums;
    StructureHead structure;
};

/// What every head's output needs to know of the run.
struct Run {
    const Options& o;
    const io::Layout& L;
    const std::vector<int>& numbers;
    const std::vector<std::string>& queries;
    const std::vector<std::string>& head_labels;
    const AnalyzeOptions& opts;
    bool csv;

    std::string head_csv_line(const HeadAnalysis& a, int layer, int head) const {
        std::string line = std::to_string(layer) + "," + std::to_string(head) + "," + to_string(a.verdict) + ",";
        if (!a.computed) {
            // rows, then every other column empty.
            const std::string header = csv_header(false);
            const auto columns = std::count(header.begin(), header.end(), ',') + 1;
            return line + std::to_string(L.n_q) + std::string(static_cast<std::size_t>(columns - 4), ',') + "\n";
        }
        const HeadSummary& s = a.summary;
        return line + std::to_string(s.rows) + "," + std::to_string(s.empty_rows) + "," + head_summary_csv(&s) + "," +
               to_string(a.pattern.kind) + "," + csv_number(a.pattern.confidence) + "," +
               std::to_string(a.pattern.parameter) + "," + csv_number(a.above_diagonal_mass) + "," +
               (a.causal_structure ? "true" : "false") + "," + head_scores_csv(a.field) + "\n";
    }

    std::string rows_csv_lines(const HeadAnalysis& a, int layer, int head) const {
        std::string text;
        if (!a.computed) return text;
        for (std::size_t t = 0; t < a.rows.size(); ++t) {
            const RowMetrics& r = a.rows[t];
            // empty as 1/0, as the page writes it.
            text += std::to_string(layer) + "," + std::to_string(head) + "," + std::to_string(t) + "," +
                    csv_field(t < queries.size() ? queries[t] : std::string()) + "," + (r.empty ? "1" : "0") + "," +
                    row_metrics_csv(r) + "\n";
        }
        return text;
    }

    HeadOut process(int layer_index, int head, const std::vector<float>& v, const HeadAnalysis& a) const {
        HeadOut h;
        const int layer = numbers[static_cast<std::size_t>(layer_index)];
        const HeadCheck& c = a.check;
        h.at = where(layer, head);
        if (a.verdict == Verdict::invalid)
            h.invalid = invalid_message(c, v, layer, head);
        else if (!a.computed)
            h.refused = not_probabilities_message(c, v, layer, head);
        if (a.verdict == Verdict::probabilities_warn && opts.reading == Reading::weights)
            h.sums = h.at + " (" + fmt("%.2g", c.max_row_sum_error) + ", query " + std::to_string(c.worst_row) + ")";
        h.structure = StructureHead{layer,
                                    head,
                                    a.computed,
                                    a.causal_structure,
                                    a.above_diagonal_mass,
                                    c.rows_above_diagonal,
                                    c.first_row_above_diagonal,
                                    c.max_above_diagonal};
        if (!csv) {
            const std::string label =
                static_cast<std::size_t>(head) < head_labels.size() ? head_labels[head] : std::string();
            h.text = dump(head_json(a, layer, layer_index, head, label, o.rows));
        } else {
            h.text = o.rows ? rows_csv_lines(a, layer, head) : head_csv_line(a, layer, head);
        }
        return h;
    }
};

/// The heads' outputs in order, and what they gather for the closing warnings.
struct Emitter {
    bool csv = false;
    int done = 0;
    Gathered sums, refused, broken;
    std::vector<StructureHead> structure_heads;  ///< for summarize_structure, in file order
    std::string first_invalid, first_refused;

    void emit(const HeadOut& h) {
        if (!h.invalid.empty()) {
            if (first_invalid.empty()) first_invalid = h.invalid;
            broken.add(h.at);
        } else if (!h.refused.empty()) {
            if (first_refused.empty()) first_refused = h.refused;
            refused.add(h.at);
        }
        if (!h.sums.empty()) sums.add(h.sums);
        structure_heads.push_back(h.structure);
        out((!csv && done > 0 ? ",\n" : "") + h.text);
        ++done;
    }
};

/// Heads order[1..] on `threads` workers. The main thread reads the heads in order (a .npz
/// member reads only forwards) and emits the results in order; at most 2 x threads heads are read
/// and not yet emitted. `work(seq, values)` computes head order[seq]'s output.
void analyze_in_parallel(HeadSource& src, int heads_per_layer, const std::vector<std::pair<int, int>>& order,
                         int threads, const std::function<HeadOut(std::size_t, const std::vector<float>&)>& work,
                         Emitter& em) {
    struct Task {
        std::size_t seq;
        std::vector<float> values;
    };
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Task> tasks;
    std::map<std::size_t, HeadOut> ready;
    // Head buffers the workers are done with, read into again: a new buffer per head was zeroed,
    // grown and first touched for every head (+45 % CPU time over one thread).
    std::vector<std::vector<float>> spare;
    std::exception_ptr failure;
    bool closing = false;
    std::vector<std::thread> pool;
    for (int w = 0; w < threads; ++w)
        pool.emplace_back([&] {
            for (;;) {
                Task t;
                {
                    std::unique_lock<std::mutex> lock(mu);
                    cv.wait(lock, [&] { return !tasks.empty() || closing; });
                    if (tasks.empty()) return;
                    t = std::move(tasks.front());
                    tasks.pop_front();
                }
                HeadOut h;
                std::exception_ptr err;
                try {
                    h = work(t.seq, t.values);
                } catch (...) {
                    err = std::current_exception();
                }
                std::lock_guard<std::mutex> lock(mu);
                if (err && !failure) failure = err;
                ready.emplace(t.seq, std::move(h));
                spare.push_back(std::move(t.values));
                cv.notify_all();
            }
        });
    std::size_t next = 1;  // the next head to emit
    const auto drain = [&](std::unique_lock<std::mutex>& lock) {
        while (!failure && ready.count(next)) {
            HeadOut h = std::move(ready[next]);
            ready.erase(next++);
            lock.unlock();
            em.emit(h);
            lock.lock();
        }
    };
    try {
        for (std::size_t i = 1; i < order.size(); ++i) {
            std::vector<float> v;
            {
                std::lock_guard<std::mutex> lock(mu);
                if (!spare.empty()) {
                    v = std::move(spare.back());
                    spare.pop_back();
                }
            }
            src.read_head(order[i].first * heads_per_layer + order[i].second, v);
            std::unique_lock<std::mutex> lock(mu);
            tasks.push_back(Task{i, std::move(v)});
            cv.notify_all();
            for (;;) {
                drain(lock);
                if (failure || i + 1 - next < static_cast<std::size_t>(2 * threads)) break;
                cv.wait(lock);
            }
            if (failure) break;
        }
        std::unique_lock<std::mutex> lock(mu);
        while (!failure && next < order.size()) {
            drain(lock);
            if (next < order.size() && !failure) cv.wait(lock);
        }
    } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = std::current_exception();
    }
    {
        std::lock_guard<std::mutex> lock(mu);
        closing = true;
        tasks.clear();
    }
    cv.notify_all();
    for (std::thread& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
}

/// The structure, said with why: causal when stated (--causal) or when every analysed head is
/// causal by its values; mixed when most are (the others flagged); else bidirectional.
std::string structure_note(const StructureSummary& ss, bool stated, bool logits) {
    const std::string& structure = ss.structure;
    const std::string zero = logits ? "masked (-inf or a mask fill)" : "zero";
    const int analysed = ss.analysed, causal_heads = ss.causal_heads;
    std::string why;
    if (stated)
        why = "stated (--causal)";
    else if (structure == "unknown")
        why = "no head was analysed";
    else if (structure == "causal")
        why = analysed == 1
                  ? "detected: the one analysed head is " + zero + " above the diagonal"
                  : "detected: all " + std::to_string(analysed) + " analysed heads are " + zero + " above the diagonal";
    else if (structure == "mixed")
        why = "detected: " + std::to_string(causal_heads) + " of " + std::to_string(analysed) + " analysed heads are " +
              zero + " above the diagonal, " + std::to_string(analysed - causal_heads) + " not";
    else
        why = "detected: " + std::to_string(analysed - causal_heads) + " of " + std::to_string(analysed) +
              " analysed heads have weight above the diagonal";
    return "structure: " + structure + " (" + why + ")" +
           (structure == "causal" && !logits ? "; |Omega_t| = t + 1 for the causal heads, zeros included" : "");
}

/// The closing warnings, each said once over every head it concerns.
std::vector<std::string> closing_warnings(const Emitter& em, const StructureSummary& ss) {
    std::string flagged_list;
    for (const StructureHead& h : ss.flagged) {
        flagged_list += (flagged_list.empty() ? "" : "; ") + std::string("layer ") + std::to_string(h.layer) +
                        ", head " + std::to_string(h.head) + " (mass " + fmt("%.3g", h.above_diagonal_mass) + ", " +
                        std::to_string(h.rows_above_diagonal) + " rows from query " +
                        std::to_string(h.first_row_above_diagonal) + ", largest " + fmt("%.3g", h.max_above_diagonal) +
                        ")";
    }
    std::vector<std::string> warnings;
    if (em.sums.count)
        warnings.push_back("rows sum to 1 only within the tolerance in " + std::to_string(em.sums.count) +
                           (em.sums.count == 1 ? " head" : " heads") + " (largest error, query): " + em.sums.list() +
                           "; each row is renormalised");
    if (!ss.flagged.empty())
        warnings.push_back("weight above the causal diagonal in " + std::to_string(ss.flagged.size()) +
                           (ss.flagged.size() == 1 ? " head" : " heads") +
                           ", largest above-diagonal mass first: " + flagged_list);
    if (em.refused.count)
        warnings.push_back(std::to_string(em.refused.count) + (em.refused.count == 1 ? " head is" : " heads are") +
                           " not probabilities and not analysed: " + em.refused.list() + "; rerun with --read logits");
    if (em.broken.count)
        warnings.push_back(std::to_string(em.broken.count) + (em.broken.count == 1 ? " head holds" : " heads hold") +
                           " NaN or Inf and is not analysed: " + em.broken.list());
    return warnings;
}

int analyze(const Options& o) {
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<HeadSource> src = open_source(o.file, o.array);
    const SourceInfo& info = src->info();
    const io::Layout& L = info.layout;
    std::vector<std::string> queries, keys;
    read_tokens(o, info, queries, keys);
    const std::vector<int> layers = parse_list(o.layers, L.layers, "--layers", "layer");
    const std::vector<int> numbers = model_layer_numbers(o, info);
    const std::vector<int> heads = parse_list(o.heads, L.heads, "--heads", "head");

    AnalyzeOptions opts;
    opts.causal = o.causal;
    opts.top_k = o.top_k;
    opts.thumbnail = 0;
    opts.want_rows = o.rows;
    opts.reading = o.read == "logits" ? Reading::logits : Reading::weights;
    if (L.n_q == L.n_k && keys.size() == static_cast<std::size_t>(L.n_k)) opts.token_ids = token_ids_of(keys);

    // --read auto: the first selected head decides, before anything is printed.
    std::vector<float> values;
    HeadAnalysis first;
    src->read_head(layers[0] * L.heads + heads[0], values);
    first = analyze_head(values.data(), L.n_q, L.n_k, opts);
    if (o.read == "auto") {
        if (first.verdict == Verdict::invalid)
            return exit_with(2, invalid_message(first.check, values, numbers[layers[0]], heads[0]));
        if (first.verdict == Verdict::not_probabilities)
            return exit_with(3, not_probabilities_message(first.check, values, numbers[layers[0]], heads[0]));
    }
    const char* reading = opts.reading == Reading::logits ? "logits" : "weights";
    const bool csv = o.format == "csv";
    out(csv ? csv_header(o.rows) : json_header(o, info, numbers, reading, queries, keys));

    const Run run{o, L, numbers, queries, info.head_labels, opts, csv};
    Emitter em;
    em.csv = csv;
    std::vector<std::pair<int, int>> order;  // (layer index in the file, head) in output order
    for (int layer_index : layers)
        for (int head : heads) order.emplace_back(layer_index, head);
    em.emit(run.process(layers[0], heads[0], values, first));
    first = HeadAnalysis{};

    const int threads = std::min<int>(o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency()),
                                      static_cast<int>(order.size()) - 1);
    const auto work = [&](std::size_t seq, const std::vector<float>& v) {
        const auto [layer_index, head] = order[seq];
        return run.process(layer_index, head, v, analyze_head(v.data(), L.n_q, L.n_k, opts));
    };
    if (threads <= 1) {
        for (std::size_t i = 1; i < order.size(); ++i) {
            src->read_head(order[i].first * L.heads + order[i].second, values);
            em.emit(work(i, values));
        }
    } else {
        analyze_in_parallel(*src, L.heads, order, threads, work, em);
    }

    const StructureSummary ss = summarize_structure(em.structure_heads, o.causal, opts.reading);
    const std::vector<std::string> warnings = closing_warnings(em, ss);
    if (!csv) out("\n],\"structure\":" + dump(structure_json(ss)) + ",\"warnings\":" + dump(ojson(warnings)) + "}\n");
    std::fflush(stdout);
    std::fprintf(stderr, "attn: %s\n", structure_note(ss, o.causal, opts.reading == Reading::logits).c_str());
    for (const auto& w : warnings) std::fprintf(stderr, "attn: warning: %s\n", w.c_str());

    if (o.stats) {
        struct rusage ru {};
        getrusage(RUSAGE_SELF, &ru);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "attn: peak RSS %ld KiB\n", ru.ru_maxrss);
        std::fprintf(stderr, "attn: %d heads of %d x %d in %.2f s\n", em.done, L.n_q, L.n_k, seconds);
    }
    if (!em.first_invalid.empty()) return exit_with(2, em.first_invalid);
    if (!em.first_refused.empty()) return exit_with(3, em.first_refused);
    return 0;
}

}  // namespace

nlohmann::ordered_json structure_json(const StructureSummary& ss) {
    ojson flagged = ojson::array();
    for (const StructureHead& h : ss.flagged)
        flagged.push_back(ojson{{"layer", h.layer},
                                {"head", h.head},
                                {"aboveDiagonalMass", num(h.above_diagonal_mass)},
                                {"rowsAboveDiagonal", h.rows_above_diagonal},
                                {"firstRowAboveDiagonal", index_or_null(h.first_row_above_diagonal)},
                                {"maxAboveDiagonal", num(h.max_above_diagonal)}});
    return ojson{{"structure", ss.structure},
                 {"stated", ss.stated},
                 {"causalHeads", ss.causal_heads},
                 {"analysed", ss.analysed},
                 {"flagged", flagged}};
}

int run_analyze(int argc, char** argv) {
    try {
        const Options o = parse_options(argc, argv);
        return analyze(o);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "attn: %s (attn --help shows the usage)\n", e.what());
        return 64;
    } catch (const Error& e) {
        return exit_with(2, e.what());
    } catch (const std::bad_alloc&) {
        return exit_with(2, "out of memory: one head of this file does not fit");
    }
}

}  // namespace attn::cli
