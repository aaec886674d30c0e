// `attn compare` (compare.hpp): reads the same head of two files one head at a time and compares
// them with the core's compare_heads(), printing each head's result as it is computed.
#include "compare.hpp"

#include "analyze.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attn/analysis.hpp"
#include "attn/metrics_io.hpp"
#include "metrics_csv.hpp"
#include "sources.hpp"

namespace attn::cli {

const char* const kCompareUsage =
    "usage: attn compare A B [--format json|csv] [--array NAME] [--read weights|logits]\n"
    "                    [--causal] [--top-k K] [--layer-numbers LIST]\n"
    "  Compares two attention files of the same shape (two prompts, a patched run) head by\n"
    "  head: each head mean (entropy, normalised entropy, N_eff, top-k mass, sink mass, ...) of\n"
    "  both and their differences\n"
    "  (B - A), the pattern labels and whether they differ, and the Jensen-Shannon divergence\n"
    "  of the heads' rows (nats, in [0, ln 2]; mean and largest over the rows). JSON (default)\n"
    "  or CSV, one line per head. Options as for attn analyze (--array applies to both).\n"
    "  Exit status: 0 ok, 2 bad input or different shapes, 64 usage.\n"
    "  Example: attn compare clean.npy patched.npy --format csv > diff.csv\n";

namespace {

using ojson = nlohmann::ordered_json;

ojson num(double x) {
    return std::isfinite(x) ? ojson(x) : ojson(nullptr);
}
std::string dump(const ojson& j) {
    return j.dump(-1, ' ', false, ojson::error_handler_t::replace);
}
void out(const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
}
std::string shape_text(const io::Layout& l) {
    return "[" + std::to_string(l.layers) + ", " + std::to_string(l.heads) + ", " + std::to_string(l.n_q) + ", " +
           std::to_string(l.n_k) + "]";
}
/// One run's head: its verdict, every head mean of metrics.def (null when not computed), its
/// pattern and label.
ojson side_json(const HeadAnalysis& a) {
    ojson j{{"verdict", to_string(a.verdict)}};
    for (const RowMetricInfo& info : kRowMetrics)
        if (info.mean) j[head_key(info)] = a.computed ? num(a.summary.*(info.mean)) : ojson(nullptr);
    j["pattern"] = a.computed ? ojson(to_string(a.pattern.kind)) : ojson(nullptr);
    j["parameter"] = a.pattern.parameter;
    j["confidence"] = a.computed ? num(a.pattern.confidence) : ojson(nullptr);
    j["label"] = head_label(a);
    return j;
}

/// The CSV header: per head mean of metrics.def <csv>_a, <csv>_b, delta_<csv>.
std::string csv_header() {
    std::string h = "layer,head,";
    for (const RowMetricInfo& info : kRowMetrics)
        if (info.mean) h += std::string(info.csv) + "_a," + info.csv + "_b,delta_" + info.csv + ",";
    return h + "pattern_a,pattern_b,label_changed,mean_jsd,max_jsd,max_jsd_row\n";
}

std::string csv_line(const HeadComparison& c, int layer, int head) {
    std::string line = std::to_string(layer) + "," + std::to_string(head) + ",";
    for (const RowMetricInfo& info : kRowMetrics) {
        if (!info.mean) continue;
        line += (c.a.computed ? csv_number(c.a.summary.*(info.mean)) : std::string()) + ",";
        line += (c.b.computed ? csv_number(c.b.summary.*(info.mean)) : std::string()) + ",";
        line += csv_number(c.delta.*(info.mean)) + ",";
    }
    return line + c.label_a + "," + c.label_b + "," + (c.label_changed ? "true" : "false") + "," +
           csv_number(c.mean_jsd) + "," + csv_number(c.max_jsd) + "," +
           (c.max_jsd_row >= 0 ? std::to_string(c.max_jsd_row) : std::string()) + "\n";
}

ojson head_json(const HeadComparison& c, int layer, int layer_index, int head) {
    ojson delta;
    for (const RowMetricInfo& info : kRowMetrics)
        if (info.mean) delta[head_key(info)] = num(c.delta.*(info.mean));
    return ojson{{"layer", layer},
                 {"layerIndex", layer_index},
                 {"head", head},
                 {"a", side_json(c.a)},
                 {"b", side_json(c.b)},
                 {"delta", std::move(delta)},
                 {"labelChanged", c.label_changed},
                 {"meanJsd", num(c.mean_jsd)},
                 {"maxJsd", num(c.max_jsd)},
                 {"maxJsdRow", c.max_jsd_row >= 0 ? ojson(c.max_jsd_row) : ojson(nullptr)}};
}
int run(int argc, char** argv) {
    std::vector<std::string> files;
    std::string format = "json", array, read = "weights", layer_numbers;
    bool causal = false;
    int top_k = 2;
    for (int i = 2; i < argc; ++i) {
        std::string arg = argv[i], value;
        bool has_value = false;
        if (arg.rfind("--", 0) == 0)
            if (auto eq = arg.find('='); eq != std::string::npos) {
                value = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
                has_value = true;
            }
        auto take = [&]() -> std::string {
            if (has_value) return value;
            if (i + 1 >= argc) throw UsageError(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--format")
            format = take();
        else if (arg == "--array")
            array = take();
        else if (arg == "--read")
            read = take();
        else if (arg == "--layer-numbers")
            layer_numbers = take();
        else if (arg == "--top-k") {
            const std::string v = take();
            const auto r = std::from_chars(v.data(), v.data() + v.size(), top_k);
            if (r.ec != std::errc() || r.ptr != v.data() + v.size() || top_k < 1)
                throw UsageError("--top-k " + v + ": expected a whole number >= 1");
        } else if (arg == "--causal") {
            if (has_value) throw UsageError("--causal takes no value");
            causal = true;
        } else if (arg.size() > 1 && arg[0] == '-')
            throw UsageError("unknown option " + arg);
        else
            files.push_back(arg);
    }
    if (files.size() != 2) throw UsageError("compare needs two files, A and B");
    if (format != "json" && format != "csv") throw UsageError("--format " + format + ": expected json or csv");
    if (read != "weights" && read != "logits") throw UsageError("--read " + read + ": expected weights or logits");

    std::unique_ptr<HeadSource> a = open_source(files[0], array), b = open_source(files[1], array);
    const io::Layout& L = a->info().layout;
    const io::Layout& M = b->info().layout;
    if (L.layers != M.layers || L.heads != M.heads || L.n_q != M.n_q || L.n_k != M.n_k)
        throw Error(ErrorCode::kShapeMismatch, "shape",
                    files[0] + " is " + shape_text(L) + " (layers, heads, queries, keys) and " + files[1] + " is " +
                        shape_text(M) + ": compare needs two files of the same shape");
    std::vector<int> numbers;
    if (!layer_numbers.empty()) {
        try {
            numbers = parse_layer_numbers(layer_numbers, L.layers);
        } catch (const Error& e) {
            throw UsageError(std::string("--layer-numbers: ") + e.what());
        }
    } else {
        numbers = layer_numbers_from_labels(a->info().layer_labels);
        if (numbers.size() != static_cast<std::size_t>(L.layers)) numbers.clear();
    }
    if (numbers.empty())
        for (int i = 0; i < L.layers; ++i) numbers.push_back(i);

    AnalyzeOptions opts;
    opts.reading = read == "logits" ? Reading::logits : Reading::weights;
    opts.causal = causal;
    opts.top_k = top_k;
    opts.thumbnail = 0;
    opts.want_rows = false;

    const bool csv = format == "csv";
    if (csv) {
        out(csv_header());
    } else {
        ojson h{{"a", files[0]},
                {"b", files[1]},
                {"layers", L.layers},
                {"layerNumbers", numbers},
                {"headsPerLayer", L.heads},
                {"nQ", L.n_q},
                {"nK", L.n_k},
                {"reading", read},
                {"causal", causal},
                {"topK", top_k}};
        std::string text = dump(h);
        text.pop_back();
        out(text + ",\"heads\":[\n");
    }
    std::vector<float> va, vb;
    int changed = 0, done = 0;
    std::vector<StructureHead> structure_heads;  // run A's structure, as attn analyze reports it
    for (int li = 0; li < L.layers; ++li)
        for (int head = 0; head < L.heads; ++head) {
            const int index = li * L.heads + head;
            a->read_head(index, va);
            b->read_head(index, vb);
            const HeadComparison c = compare_heads(va.data(), vb.data(), L.n_q, L.n_k, opts);
            changed += c.label_changed;
            const int layer = numbers[static_cast<std::size_t>(li)];
            structure_heads.push_back(StructureHead{layer, head, c.a.computed, c.a.causal_structure,
                                                    c.a.above_diagonal_mass, c.a.check.rows_above_diagonal,
                                                    c.a.check.first_row_above_diagonal, c.a.check.max_above_diagonal});
            if (csv)
                out(csv_line(c, layer, head));
            else
                out((done ? ",\n" : "") + dump(head_json(c, layer, li, head)));
            ++done;
        }
    // The structure of run A (detected from its values, or stated by --causal): "causal" above is
    // only what the command line said.
    if (!csv)
        out("\n],\"labelChanges\":" + std::to_string(changed) + ",\"structure\":" +
            dump(structure_json(summarize_structure(structure_heads, causal, opts.reading))) + "}\n");
    std::fflush(stdout);
    return 0;
}

}  // namespace

int run_compare(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "attn: %s (attn --help shows the usage)\n", e.what());
        return 64;
    } catch (const Error& e) {
        std::fprintf(stderr, "attn: %s\n", e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "attn: out of memory: one head of these files does not fit\n");
        return 2;
    }
}

}  // namespace attn::cli
