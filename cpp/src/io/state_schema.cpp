// The state schema (docs/state.md): every rule of a version-1 state, in one place. Messages name
// the first offending field and say what was found, in the words the page shows under a control;
// the checks that say it are json_check.hpp's.
#include "attn/state_schema.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "attn/kernels.hpp"
#include "attn/metrics_io.hpp"
#include "attn/text.hpp"
#include "json_check.hpp"
#include "json_where.hpp"
#include "state_schema_internal.hpp"

namespace attn {
namespace {

using namespace json_check;

// --- Heads -----------------------------------------------------------------------------------

const std::vector<const char*> kMatrixNames = {"Q", "K", "V", "logits", "weights"};
const std::vector<const char*> kProjectionNames = {"WQ", "WK", "WV"};

/// n_q, n_k and where they come from, carried from head 0 to the others (tokens are shared).
struct Shape {
    int n_q = -1, n_k = -1, d_model = 0, sum_dv = 0;
    std::string q_from, k_from;
};

oj read_gate(const oj& head, const std::string& path, int n_q) {
    const oj* g = own(head, "gate");
    if (absent(g)) return nullptr;
    const std::string f = path + ".gate";
    if (!g->is_array())
        bad(f, f + " must be null or a list of gate logits, one number per query row (got " + describe(g) + ")");
    if (g->size() != static_cast<std::size_t>(n_q))
        fail(ErrorCode::kShapeMismatch, f,
             f + " has " + std::to_string(g->size()) + " gate logits but there are n_q = " + std::to_string(n_q) +
                 " query rows; a gate has one logit per query row");
    oj out = oj::array();
    for (std::size_t t = 0; t < g->size(); ++t) {
        const oj& x = (*g)[t];
        const std::string ft = f + "[" + std::to_string(t) + "]";
        if (!x.is_number()) bad(ft, ft + " must be a finite number (got " + describe(&x) + ")");
        out.push_back(x);
    }
    return out;
}

oj read_projected_head(const oj& h, const std::string& path, const std::string& name, Shape& shape) {
    for (const char* key : kMatrixNames)
        if (!absent(own(h, key)))
            bad(path + "." + key, path + "." + key +
                                      " must be null in mode \"x\": the head's Q, K and V are derived from x.X and "
                                      "its WQ, WK, WV");
    Mat w[3];
    for (int i = 0; i < 3; ++i) {
        const char* key = kProjectionNames[static_cast<std::size_t>(i)];
        const std::string what = i == 2 ? "d_v" : "d_k";
        const std::string f = path + "." + key;
        const oj* m = own(h, key);
        if (absent(m))
            bad(f, f + " is required in mode \"x\" (a d_model x " + what + " matrix; got " + describe(m) + ")");
        w[i] = read_matrix(m, f, 1, kMaxDim, Cell::finite);
        if (w[i].rows != shape.d_model)
            fail(ErrorCode::kShapeMismatch, f,
                 f + " has " + std::to_string(w[i].rows) + " rows but x.X has d_model = " +
                     std::to_string(shape.d_model) + " columns; a projection is d_model x " + what);
    }
    if (w[0].cols != w[1].cols)
        fail(ErrorCode::kShapeMismatch, path + ".WK",
             path + ".WK has " + std::to_string(w[1].cols) + " columns but " + path + ".WQ has " +
                 std::to_string(w[0].cols) + "; WQ and WK must share d_k");
    shape.sum_dv += w[2].cols;
    oj out = {{"name", name}, {"Q", nullptr},      {"K", nullptr},
              {"V", nullptr}, {"logits", nullptr}, {"weights", nullptr}};
    out["WQ"] = std::move(w[0].data);
    out["WK"] = std::move(w[1].data);
    out["WV"] = std::move(w[2].data);
    oj gate = read_gate(h, path, shape.n_q);
    if (!gate.is_null()) out["gate"] = std::move(gate);
    return out;
}

oj read_head(const oj* v, int index, const std::string& mode, Shape& shape) {
    const std::string path = "heads[" + std::to_string(index) + "]";
    const oj& h = require_record(v, path);
    reject_unknown_keys(h, {"name", "Q", "K", "V", "logits", "weights", "WQ", "WK", "WV", "gate"}, path);
    const std::string name = require_string(own(h, "name"), path + ".name", kMaxNameLength);
    if (mode == "x") return read_projected_head(h, path, name, shape);
    for (const char* key : kProjectionNames)
        if (!absent(own(h, key)))
            bad(path + "." + key, path + "." + key +
                                      " is only used in mode \"x\" (Q = X WQ, K = X WK, V = X WV); remove it or "
                                      "set mode to \"x\"");
    // Absent matrices mean "not given", like null (docs/state.md: "absent = no output" for V).
    struct Given {
        bool present = false;
        Mat m;
    } m[5];
    const int min_cols[5] = {1, 1, 0, 1, 1};
    const int max_cols[5] = {kMaxDim, kMaxDim, kMaxDim, kMaxTokens, kMaxTokens};
    const Cell cells[5] = {Cell::finite, Cell::finite, Cell::finite, Cell::finite_or_null, Cell::non_negative};
    for (int i = 0; i < 5; ++i) {
        const oj* x = own(h, kMatrixNames[static_cast<std::size_t>(i)]);
        if (absent(x)) continue;
        m[i].present = true;
        m[i].m =
            read_matrix(x, path + "." + kMatrixNames[static_cast<std::size_t>(i)], min_cols[i], max_cols[i], cells[i]);
    }
    enum { Q, K, V, LOGITS, WEIGHTS };
    const std::vector<int> needed = mode == "qkv"      ? std::vector<int>{Q, K}
                                    : mode == "logits" ? std::vector<int>{LOGITS}
                                                       : std::vector<int>{WEIGHTS};
    for (int key : needed)
        if (!m[key].present)
            bad(path + "." + kMatrixNames[static_cast<std::size_t>(key)],
                path + "." + kMatrixNames[static_cast<std::size_t>(key)] + " is required in mode \"" + mode +
                    "\" (got null)");
    // n_q and n_k come from the mode's own matrix of head 0; every other matrix given must agree,
    // even one the mode does not use, so that switching mode never meets a mismatched matrix.
    if (shape.n_q < 0) {
        const int qf = mode == "qkv" ? Q : mode == "logits" ? LOGITS : WEIGHTS;
        const int kf = mode == "qkv" ? K : qf;
        shape.n_q = m[qf].m.rows;
        shape.n_k = mode == "qkv" ? m[kf].m.rows : m[kf].m.cols;
        shape.q_from = path + "." + kMatrixNames[static_cast<std::size_t>(qf)];
        shape.k_from = path + "." + kMatrixNames[static_cast<std::size_t>(kf)];
    }
    const std::string q_from = "n_q = " + std::to_string(shape.n_q) + " (rows of " + shape.q_from + ")";
    const std::string k_from = "n_k = " + std::to_string(shape.n_k) + " (" +
                               (shape.k_from == shape.q_from ? "columns" : "rows") + " of " + shape.k_from + ")";
    const auto expect = [&](int key, const char* what, int actual, int wanted, const std::string& from) {
        if (actual == wanted) return;
        const std::string f = path + "." + kMatrixNames[static_cast<std::size_t>(key)];
        fail(ErrorCode::kShapeMismatch, f,
             f + " has " + std::to_string(actual) + " " + what + " but " + from + " gives " + std::to_string(wanted));
    };
    if (m[Q].present) expect(Q, "rows", m[Q].m.rows, shape.n_q, q_from);
    if (m[K].present) expect(K, "rows", m[K].m.rows, shape.n_k, k_from);
    if (m[V].present) expect(V, "rows", m[V].m.rows, shape.n_k, k_from);
    for (int key : {LOGITS, WEIGHTS}) {
        if (!m[key].present) continue;
        expect(key, "rows", m[key].m.rows, shape.n_q, q_from);
        expect(key, "columns", m[key].m.cols, shape.n_k, k_from);
    }
    if (m[Q].present && m[K].present && m[Q].m.cols != m[K].m.cols)
        fail(ErrorCode::kShapeMismatch, path + ".K",
             path + ".K has " + std::to_string(m[K].m.cols) + " columns but " + path + ".Q has " +
                 std::to_string(m[Q].m.cols) + "; Q and K must share d_k");
    oj out = {{"name", name}};
    for (int i = 0; i < 5; ++i)
        out[kMatrixNames[static_cast<std::size_t>(i)]] = m[i].present ? std::move(m[i].m.data) : oj(nullptr);
    oj gate = read_gate(h, path, shape.n_q);
    if (!gate.is_null()) out["gate"] = std::move(gate);
    return out;
}

// --- The optional parts: lab and lesson -------------------------------------------------------

std::vector<std::string> lab_view_names() {
    std::vector<std::string> out;
#define ATTN_LAB_VIEW(name) out.emplace_back(#name);
#include "attn/lab_views.def"
#undef ATTN_LAB_VIEW
    return out;
}

bool lab_param_name(const std::string& s) {
    if (s.empty() || s.size() > 32 || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
    for (unsigned char c : s)
        if (!std::isalnum(c) || c > 0x7F) return false;
    return true;
}

oj read_lab(const oj* v) {
    const oj& lab = require_record(v, "lab");
    reject_unknown_keys(lab, {"view", "params"}, "lab");
    std::vector<std::string> views = {"none"};
    for (std::string& n : lab_view_names()) views.push_back(std::move(n));
    const std::string view = require_one_of(own(lab, "view"), "lab.view", views);
    const oj* p = own(lab, "params");
    static const oj empty = oj::object();
    const oj& params_in = undefined(p) ? empty : require_record(p, "lab.params");
    if (params_in.size() > static_cast<std::size_t>(kLabMaxParams))
        bad("lab.params", "lab.params has " + std::to_string(params_in.size()) + " entries, at most " +
                              std::to_string(kLabMaxParams));
    oj params = oj::object();
    for (auto it = params_in.begin(); it != params_in.end(); ++it) {
        const std::string path = "lab.params." + it.key();
        if (!lab_param_name(it.key()))
            bad("lab.params",
                "lab.params has a parameter named " + oj(it.key()).dump() + "; names are letters and digits");
        const oj& x = it.value();
        const auto zero = [](const oj& n) { return n.is_number_float() && n.get<double>() == 0 ? oj(0) : n; };
        if (x.is_null() || x.is_boolean() || x.is_number()) {
            params[it.key()] = zero(x);
        } else if (is_text(&x)) {
            params[it.key()] = require_string(&x, path, kLabMaxString);
        } else {
            bool ok = x.is_array() && x.size() <= static_cast<std::size_t>(kMaxTokens);
            if (ok)
                for (const oj& e : x) ok = ok && e.is_number();
            if (!ok)
                bad(path, path + " must be a finite number, true/false, null, a string of at most " +
                              std::to_string(kLabMaxString) + " characters or a list of at most " +
                              std::to_string(kMaxTokens) + " numbers (got " + describe(&x) + ")");
            oj list = oj::array();
            for (const oj& e : x) list.push_back(zero(e));
            params[it.key()] = std::move(list);
        }
    }
    return {{"view", view}, {"params", std::move(params)}};
}

/// The lesson's exercises (seed 003 "练习"), marked done in lesson.done: 1..kLessonExercises.
constexpr int kLessonExercises = 3;

struct LessonChoice {
    const char* name;
    std::vector<std::string> choices;
};
/// The guided lesson's predictions (web/lesson/): short choices, and lists of indices (keys
/// whose weight rises in step 1; cells t * n_k + j that become zero in step 3).
const std::vector<LessonChoice>& lesson_choices() {
    static const std::vector<LessonChoice> c = {
        {"entropy", {"up", "down", "same"}},
        {"sums", {"yes", "no"}},
        {"renorm", {"same", "renormalised", "less"}},
        {"scores", {"change", "same"}},
        {"largest", {"yes", "no"}},
        {"reproduce", {"yes", "no"}},
        // step 1: how the rest of the row answers one key's rise; the three 常见误区 checks
        {"redistribute", {"others-fall", "others-same", "sum-grows"}},
        {"myth1", {"right", "wrong"}},
        {"myth2", {"right", "wrong"}},
        {"myth3", {"right", "wrong"}},
    };
    return c;
}
struct LessonList {
    const char* name;
    int max, length;
};
const LessonList kLessonLists[] = {{"rise", 63, 64}, {"zeros", 4095, 256}};

/// A strictly increasing list of integers in [lo, hi], at most `length` long.
oj read_index_list(const oj* x, const std::string& path, int hi, int length, int lo = 0) {
    if (!x || !x->is_array() || x->size() > static_cast<std::size_t>(length))
        bad(path,
            path + " must be a list of at most " + std::to_string(length) + " integers (got " + describe(x) + ")");
    oj out = oj::array();
    std::string shown;
    for (std::size_t i = 0; i < x->size(); ++i) {
        const long long v = require_integer(&(*x)[i], path + "[" + std::to_string(i) + "]", lo, hi);
        out.push_back(v);
        shown += (i ? "," : "") + std::to_string(v);
    }
    for (std::size_t i = 1; i < out.size(); ++i)
        if (out[i].get<long long>() <= out[i - 1].get<long long>())
            bad(path, path + " must be in increasing order without repeats (got [" + shown + "])");
    return out;
}

oj read_lesson(const oj* v) {
    const oj& lesson = require_record(v, "lesson");
    reject_unknown_keys(lesson, {"step", "predictions", "revealed", "done"}, "lesson");
    const long long step = require_integer(own(lesson, "step"), "lesson.step", 1, kLessonSteps);
    static const oj empty = oj::object();
    const oj* p = own(lesson, "predictions");
    const oj& pred_in = undefined(p) ? empty : require_record(p, "lesson.predictions");
    std::vector<const char*> names;
    for (const LessonList& l : kLessonLists) names.push_back(l.name);
    for (const LessonChoice& c : lesson_choices()) names.push_back(c.name);
    reject_unknown_keys(pred_in, names, "lesson.predictions");
    oj predictions = oj::object();
    for (const LessonList& l : kLessonLists)
        if (const oj* x = own(pred_in, l.name))
            predictions[l.name] = read_index_list(x, std::string("lesson.predictions.") + l.name, l.max, l.length);
    for (const LessonChoice& c : lesson_choices())
        if (const oj* x = own(pred_in, c.name))
            predictions[c.name] = require_one_of(x, std::string("lesson.predictions.") + c.name, c.choices);
    const oj* r = own(lesson, "revealed");
    static const oj none = oj::array();
    oj revealed = read_index_list(undefined(r) ? &none : r, "lesson.revealed", kLessonSteps, kLessonSteps, 1);
    oj out = {{"step", step}, {"predictions", std::move(predictions)}, {"revealed", std::move(revealed)}};
    // The exercises the student marked done (标记完成): 1..kLessonExercises. Written only when
    // one is, so every link made before the marks existed reads back bit for bit.
    const oj* d = own(lesson, "done");
    oj done = read_index_list(undefined(d) ? &none : d, "lesson.done", kLessonExercises, kLessonExercises, 1);
    if (!done.empty()) out["done"] = std::move(done);
    return out;
}

// --- The state ---------------------------------------------------------------------------------

bool preset_id(const std::string& s) {
    if (s.empty()) return false;
    for (unsigned char c : s)
        if (!(std::isalnum(c) || c == '.' || c == '_' || c == '-') || c > 0x7F) return false;
    return true;
}

oj read_state(const oj& state) {
    if (!state.is_object()) bad("state", "the state must be an object (got " + describe(&state) + ")");
    reject_unknown_keys(state,
                        {"version", "mode", "heads", "head", "tokens", "mask", "tau", "scale", "topK", "row", "view",
                         "source", "lab", "lesson", "x"},
                        "");
    const oj* version = own(state, "version");
    if (!is_integral(version) || version->get<double>() != 1)
        bad("version", "version must be 1 (got " + describe(version) + "); this page reads version 1 states");
    const std::string mode = require_one_of(own(state, "mode"), "mode", {"qkv", "logits", "weights", "x"});

    const oj* heads_in = own(state, "heads");
    if (!heads_in || !heads_in->is_array() || heads_in->empty() ||
        heads_in->size() > static_cast<std::size_t>(kMaxHeads))
        bad("heads",
            "heads must be an array of 1 to " + std::to_string(kMaxHeads) + " heads (got " + describe(heads_in) + ")");
    Shape shape;
    const oj* x_in = own(state, "x");
    Mat X, WO;
    bool residual = false, has_wo = false;
    if (mode == "x") {
        if (absent(x_in)) bad("x", "x is required in mode \"x\": {X, WO, residual}");
        const oj& x = require_record(x_in, "x");
        reject_unknown_keys(x, {"X", "WO", "residual"}, "x");
        if (absent(own(x, "X")))
            bad("x.X", "x.X is required in mode \"x\": the token vectors, one row per token (n x d_model)");
        X = read_matrix(own(x, "X"), "x.X", 1, kMaxDim, Cell::finite);
        if (!absent(own(x, "WO"))) {
            WO = read_matrix(own(x, "WO"), "x.WO", 1, kMaxDim, Cell::finite);
            has_wo = true;
        }
        residual = require_boolean(own(x, "residual"), "x.residual");
        shape.n_q = shape.n_k = X.rows;
        shape.d_model = X.cols;
        shape.q_from = shape.k_from = "x.X";
    } else if (!absent(x_in)) {
        bad("x",
            "x is only used in mode \"x\" (multi-head attention from X); remove it or set mode to \"x\" (mode is " +
                oj(mode).dump() + ")");
    }
    oj heads = oj::array();
    for (std::size_t i = 0; i < heads_in->size(); ++i)
        heads.push_back(read_head(&(*heads_in)[i], static_cast<int>(i), mode, shape));
    const int n_q = shape.n_q, n_k = shape.n_k;
    if (mode == "x") {
        const std::string sum = std::to_string(shape.sum_dv);
        if (has_wo && WO.rows != shape.sum_dv)
            fail(ErrorCode::kShapeMismatch, "x.WO",
                 "x.WO has " + std::to_string(WO.rows) + " rows but the heads' outputs side by side have " + sum +
                     " columns (the sum of every head's d_v); WO must be " + sum + " x d_out");
        if (shape.sum_dv > kMaxTokens)
            fail(ErrorCode::kTooLarge, "heads",
                 "the heads' d_v add up to " + sum + "; the layer's concatenation holds at most " +
                     std::to_string(kMaxTokens) + " columns");
        const int d_out = has_wo ? WO.cols : shape.sum_dv;
        if (residual && d_out != shape.d_model)
            fail(ErrorCode::kShapeMismatch, "x.residual",
                 "the residual X + output needs the output width (" + std::to_string(d_out) + ", " +
                     (has_wo ? "the columns of x.WO" : "the sum of the heads' d_v, as there is no WO") +
                     ") to equal d_model = " + std::to_string(shape.d_model) + " (the columns of x.X)");
    }
    const long long head = require_integer(own(state, "head"), "head", 0, static_cast<long long>(heads.size()) - 1);

    const oj& tokens_in = require_record(own(state, "tokens"), "tokens");
    reject_unknown_keys(tokens_in, {"queries", "keys"}, "tokens");
    oj queries = read_string_list(own(tokens_in, "queries"), "tokens.queries", kMaxTokenLength);
    oj keys = read_string_list(own(tokens_in, "keys"), "tokens.keys", kMaxTokenLength);
    if (queries.size() != static_cast<std::size_t>(n_q))
        fail(ErrorCode::kShapeMismatch, "tokens.queries",
             "tokens.queries has " + std::to_string(queries.size()) +
                 " labels but there are n_q = " + std::to_string(n_q) + " queries (rows of " + shape.q_from + ")");
    if (keys.size() != static_cast<std::size_t>(n_k))
        fail(ErrorCode::kShapeMismatch, "tokens.keys",
             "tokens.keys has " + std::to_string(keys.size()) + " labels but there are n_k = " + std::to_string(n_k) +
                 " keys (from " + shape.k_from + ")");

    const oj& mask_in = require_record(own(state, "mask"), "mask");
    reject_unknown_keys(mask_in, {"causal", "window", "padding", "allow", "stride", "sinks"}, "mask");
    const oj* padding_in = own(mask_in, "padding");
    if (!padding_in || !padding_in->is_array() || padding_in->size() != static_cast<std::size_t>(n_k))
        fail(padding_in && padding_in->is_array() ? ErrorCode::kShapeMismatch : ErrorCode::kBadState, "mask.padding",
             "mask.padding must be an array of n_k = " + std::to_string(n_k) + " booleans (got " +
                 describe(padding_in) + ")");
    oj padding = oj::array();
    for (int j = 0; j < n_k; ++j)
        padding.push_back(
            require_boolean(&(*padding_in)[static_cast<std::size_t>(j)], "mask.padding[" + std::to_string(j) + "]"));
    oj allow = nullptr;
    if (const oj* a = own(mask_in, "allow"); !absent(a)) {
        Mat m = read_matrix(a, "mask.allow", 1, kMaxTokens, Cell::boolean);
        if (m.rows != n_q || m.cols != n_k)
            fail(ErrorCode::kShapeMismatch, "mask.allow",
                 "mask.allow is " + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
                     " but must be n_q x n_k = " + std::to_string(n_q) + " x " + std::to_string(n_k));
        allow = std::move(m.data);
    }
    oj mask = {{"causal", require_boolean(own(mask_in, "causal"), "mask.causal")},
               {"window", require_integer(own(mask_in, "window"), "mask.window", 0, kMaxTokens)},
               {"padding", std::move(padding)},
               {"allow", std::move(allow)}};
    // Optional, absent = 0, and left out when 0 so that older states and links read unchanged.
    for (const char* key : {"stride", "sinks"}) {
        const oj* v = own(mask_in, key);
        const long long n = undefined(v) ? 0 : require_integer(v, std::string("mask.") + key, 0, kMaxTokens);
        if (n) mask[key] = n;
    }

    const oj* tau = own(state, "tau");
    if (!is_number(tau) || !(tau->get<double>() > 0) || tau->get<double>() > kMaxTau)
        fail(is_number(tau) ? ErrorCode::kBadTemperature : ErrorCode::kBadState, "tau",
             "tau must be a number > 0 and <= " + js_number(kMaxTau) + " (got " + describe(tau) + ")");
    const oj* scale = own(state, "scale");
    const bool scale_auto = is_text(scale) && scale->get_ref<const std::string&>() == "auto";
    if (!scale_auto && !(is_number(scale) && scale->get<double>() > 0))
        bad("scale", "scale must be \"auto\" or a finite number > 0 (got " + describe(scale) + ")");
    const long long top_k = require_integer(own(state, "topK"), "topK", 1, kMaxTokens);
    const long long row = require_integer(own(state, "row"), "row", 0, n_q - 1);

    const oj& view_in = require_record(own(state, "view"), "view");
    reject_unknown_keys(view_in, {"panel", "preset", "numbers"}, "view");
    const std::string preset = require_string(own(view_in, "preset"), "view.preset", kMaxPresetLength);
    if (!preset_id(preset))
        bad("view.preset", "view.preset must be a preset id made of letters, digits, \".\", \"_\" and \"-\" (got " +
                               describe(own(view_in, "preset")) + ")");
    oj view = {{"panel", require_one_of(own(view_in, "panel"), "view.panel", {"weights", "scores"})},
               {"preset", preset},
               {"numbers", require_one_of(own(view_in, "numbers"), "view.numbers", {"auto", "on", "off"})}};
    const std::string source = require_string(own(state, "source"), "source", kMaxSourceLength);

    oj out = {{"version", 1}, {"mode", mode}, {"heads", std::move(heads)}, {"head", head}};
    out["tokens"] = {{"queries", std::move(queries)}, {"keys", std::move(keys)}};
    out["mask"] = std::move(mask);
    out["tau"] = *tau;
    out["scale"] = *scale;
    out["topK"] = top_k;
    out["row"] = row;
    out["view"] = std::move(view);
    out["source"] = source;
    if (const oj* lab = own(state, "lab"); !undefined(lab)) out["lab"] = read_lab(lab);
    if (const oj* lesson = own(state, "lesson"); !undefined(lesson)) out["lesson"] = read_lesson(lesson);
    if (mode == "x")
        out["x"] = {
            {"X", std::move(X.data)}, {"WO", has_wo ? std::move(WO.data) : oj(nullptr)}, {"residual", residual}};
    return out;
}

}  // namespace

nlohmann::ordered_json validated_state(const std::string& state_json) {
    const bool repair = json_text_needs_repair(state_json);
    const std::string repaired = repair ? well_formed_json_text(state_json) : std::string();
    const std::string& text = repair ? repaired : state_json;
    oj s = oj::parse(text, nullptr, /*allow_exceptions=*/false);
    if (s.is_discarded()) {
        const ParseStop where = where_parsing_stops(text);
        if (where.id == 406)  // out_of_range.406: a number beyond float64 ("1e400")
            throw Error(ErrorCode::kInvalidValue, where.key.empty() ? "state" : where.key,
                        (where.key.empty() ? std::string("a number") : where.key) + " = " + where.token +
                            " is out of range: numbers must be finite (at most 1.8e308 in magnitude)");
        throw Error(ErrorCode::kBadState, "state", "the state is not valid JSON");
    }
    return read_state(s);
}

std::string validate_state_json(const std::string& state_json) {
    // Invalid UTF-8 cannot reach here (well_formed_json_text), so dump() never throws on it.
    return validated_state(state_json).dump();
}

std::string schema_json() {
    oj lesson_choices_json = oj::object();
    for (const LessonChoice& c : lesson_choices()) lesson_choices_json[c.name] = c.choices;
    oj lists = oj::object();
    for (const LessonList& l : kLessonLists) lists[l.name] = {{"max", l.max}, {"length", l.length}};
    const kernels::RowParams row;
    oj out = {{"version", 1},
              {"limits",
               {{"maxTokens", kMaxTokens},
                {"maxDim", kMaxDim},
                {"maxHeads", kMaxHeads},
                {"maxTau", kMaxTau},
                {"maxTokenLength", kMaxTokenLength},
                {"maxNameLength", kMaxNameLength},
                {"maxSourceLength", kMaxSourceLength},
                {"maxPresetLength", kMaxPresetLength},
                {"labMaxParams", kLabMaxParams},
                {"labMaxString", kLabMaxString},
                {"maxStringLength", kMaxStringLength}}},
              {"modes", {"qkv", "logits", "weights", "x"}},
              {"labViews", lab_view_names()},
              {"lesson",
               {{"steps", kLessonSteps},
                {"exercises", kLessonExercises},
                {"choices", lesson_choices_json},
                {"lists", lists}}},
              {"rowDefaults", {{"topK", row.top_k}, {"sinkKeys", row.sink_keys}, {"delta", row.delta}}},
              {"metrics", row_metrics_schema_json<oj>()},
              {"heads", head_scores_schema_json<oj>()},
              {"csv", {{"formulaStart", kCsvFormulaStart}}}};
    return out.dump();
}

}  // namespace attn
