// The state schema (docs/state.md): every rule of a version-1 state, in one place. Messages name
// the first offending field and say what was found, in the words the page shows under a control.
#include "attn/state_schema.hpp"

#include "attn/metrics_io.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attn/kernels.hpp"
#include "attn/text.hpp"
#include "state_schema_internal.hpp"

namespace attn {
namespace {

using oj = nlohmann::ordered_json;

// --- Values a JavaScript caller may hand over that JSON cannot spell -------------------------
// web/core.js writes NaN, +-Infinity, undefined (an array hole), functions, symbols and bigints as
// these marker strings so that the message can say what was given ("got NaN"). A marker is never
// a string of the state.
struct Marker {
    const char* text;
    const char* shown;
};
const Marker kMarkers[] = {
    {"\x01js:NaN", "NaN"},           {"\x01js:Infinity", "Infinity"},   {"\x01js:-Infinity", "-Infinity"},
    {"\x01js:undefined", "nothing"}, {"\x01js:function", "a function"}, {"\x01js:symbol", "a symbol"},
    {"\x01js:bigint", "a bigint"},
};

const char* marker_of(const oj& v) {
    if (!v.is_string()) return nullptr;
    const std::string& s = v.get_ref<const std::string&>();
    if (s.size() < 4 || s[0] != '\x01') return nullptr;
    for (const Marker& m : kMarkers)
        if (s == m.text) return m.shown;
    if (s.rfind("\x01js:long:", 0) == 0) return "a long string";
    return nullptr;
}

/// A string longer than every limit of the schema (more than 2 * kMaxStringLength UTF-16 units),
/// which web/core.js hands over as "\x01js:long:<code points>:<its first 40 units>" instead of
/// copying megabytes into the module: its length in code points and its start, or false.
bool long_string(const oj* v, long long& code_points, std::string& start) {
    if (!v || !v->is_string()) return false;
    const std::string& s = v->get_ref<const std::string&>();
    if (s.rfind("\x01js:long:", 0) != 0) return false;
    const std::size_t colon = s.find(':', 9);
    if (colon == std::string::npos) return false;
    code_points = std::atoll(s.substr(9, colon - 9).c_str());
    start = s.substr(colon + 1);
    return true;
}

bool is_text(const oj* v) {
    return v && v->is_string() && !marker_of(*v);
}
bool is_number(const oj* v) {
    return v && v->is_number();
}

/// A double as JavaScript's String(x) writes it (ECMA-262 Number::toString), from the shortest
/// round-trip digits nlohmann's serialiser finds.
std::string js_number(double x) {
    if (x == 0) return std::signbit(x) ? "-0" : "0";
    std::string s = oj(x).dump();
    std::string sign;
    if (s[0] == '-') {
        sign = "-";
        s.erase(0, 1);
    }
    int exp10 = 0;
    if (auto e = s.find_first_of("eE"); e != std::string::npos) {
        exp10 = std::stoi(s.substr(e + 1));
        s.resize(e);
    }
    std::string digits;
    int point = static_cast<int>(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '.')
            point = static_cast<int>(i);
        else
            digits += s[i];
    }
    int lead = 0;
    while (lead < static_cast<int>(digits.size()) - 1 && digits[lead] == '0') ++lead;
    digits.erase(0, lead);
    point -= lead;
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    const int k = static_cast<int>(digits.size());
    const int n = point + exp10;  // x = 0.d1 d2 ... dk * 10^n
    std::string out;
    if (k <= n && n <= 21) {
        out = digits + std::string(static_cast<std::size_t>(n - k), '0');
    } else if (0 < n && n <= 21) {
        out = digits.substr(0, n) + "." + digits.substr(n);
    } else if (-6 < n && n <= 0) {
        out = "0." + std::string(static_cast<std::size_t>(-n), '0') + digits;
    } else {
        const int e = n - 1;
        out = digits.substr(0, 1) + (k > 1 ? "." + digits.substr(1) : "") + "e" + (e >= 0 ? "+" : "-") +
              std::to_string(e >= 0 ? e : -e);
    }
    return sign + out;
}

/// Code points of well-formed UTF-8 (after well_formed_json_text every string is).
int code_points(const std::string& s) {
    int n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

/// UTF-16 code units of each code point: JavaScript's String length.
int utf16_units(unsigned char lead) {
    return lead >= 0xF0 ? 2 : 1;
}

/// Short description of a value for messages: "-1", "\"abc\"", "an object", "nothing".
std::string describe(const oj* v) {
    if (!v) return "nothing";
    long long n = 0;
    std::string start;
    if (long_string(v, n, start)) return oj(start + "...").dump();
    if (const char* m = marker_of(*v)) return m;
    if (v->is_number_integer()) return std::to_string(v->get<std::int64_t>());
    if (v->is_number_unsigned()) return std::to_string(v->get<std::uint64_t>());
    if (v->is_number_float()) return js_number(v->get<double>());
    if (v->is_string()) {
        const std::string& s = v->get_ref<const std::string&>();
        // The first 40 UTF-16 units, as the page's own messages shorten a pasted text.
        std::size_t i = 0;
        int units = 0;
        while (i < s.size()) {
            const auto c = static_cast<unsigned char>(s[i]);
            std::size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            if (units + utf16_units(c) > 40) break;
            units += utf16_units(c);
            i += len;
        }
        return i < s.size() ? oj(s.substr(0, i) + "...").dump() : oj(s).dump();
    }
    if (v->is_null()) return "null";
    if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
    if (v->is_array()) return "an array of length " + std::to_string(v->size());
    return "an object";
}

[[noreturn]] void fail(ErrorCode code, const std::string& field, const std::string& message) {
    throw Error(code, field, message);
}
[[noreturn]] void bad(const std::string& field, const std::string& message) {
    fail(ErrorCode::kBadState, field, message);
}

const oj* own(const oj& obj, const char* key) {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}
bool absent(const oj* v) {
    return !v || v->is_null();
}
bool undefined(const oj* v) {
    return !v;
}

bool is_record(const oj* v) {
    return v && v->is_object();
}

const oj& require_record(const oj* v, const std::string& path) {
    if (!is_record(v)) bad(path, path + " must be an object (got " + describe(v) + ")");
    return *v;
}

/// Unknown keys are refused, not dropped: a typo such as "temperature" would otherwise be ignored.
void reject_unknown_keys(const oj& obj, const std::vector<const char*>& allowed, const std::string& path) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        bool ok = false;
        for (const char* a : allowed) ok = ok || it.key() == a;
        if (ok) continue;
        std::string known;
        for (const char* a : allowed) known += (known.empty() ? "" : ", ") + std::string(a);
        bad(path.empty() ? it.key() : path + "." + it.key(), (path.empty() ? std::string("the state") : path) +
                                                                 " has an unknown field " + oj(it.key()).dump() +
                                                                 " (known fields: " + known + ")");
    }
}

bool is_integral(const oj* v) {
    if (!is_number(v)) return false;
    if (!v->is_number_float()) return true;
    const double d = v->get<double>();
    return std::isfinite(d) && std::floor(d) == d;
}

long long require_integer(const oj* v, const std::string& path, long long lo, long long hi) {
    const bool ok =
        is_integral(v) && v->get<double>() >= static_cast<double>(lo) && v->get<double>() <= static_cast<double>(hi);
    if (!ok)
        bad(path, path + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + " (got " +
                      describe(v) + ")");
    return static_cast<long long>(v->get<double>());  // -0 becomes 0
}

bool require_boolean(const oj* v, const std::string& path) {
    if (!v || !v->is_boolean()) bad(path, path + " must be true or false (got " + describe(v) + ")");
    return v->get<bool>();
}

const std::string& require_string(const oj* v, const std::string& path, int max_length) {
    long long n = 0;
    std::string start;
    if (long_string(v, n, start))
        bad(path,
            path + " must be at most " + std::to_string(max_length) + " characters (got " + std::to_string(n) + ")");
    if (!is_text(v)) bad(path, path + " must be a string (got " + describe(v) + ")");
    const std::string& s = v->get_ref<const std::string&>();
    if (static_cast<int>(s.size()) > max_length && code_points(s) > max_length)
        bad(path, path + " must be at most " + std::to_string(max_length) + " characters (got " +
                      std::to_string(code_points(s)) + ")");
    return s;
}

std::string require_one_of(const oj* v, const std::string& path, const std::vector<std::string>& choices) {
    if (is_text(v))
        for (const std::string& c : choices)
            if (v->get_ref<const std::string&>() == c) return c;
    std::string list;
    for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + oj(c).dump();
    bad(path, path + " must be one of " + list + " (got " + describe(v) + ")");
}

enum class Cell { finite, finite_or_null, non_negative, boolean };

const char* wants(Cell c) {
    switch (c) {
        case Cell::finite:
            return "a finite number";
        case Cell::finite_or_null:
            return "a finite number or null (masked)";
        case Cell::non_negative:
            return "a finite number >= 0";
        case Cell::boolean:
            return "true or false";
    }
    return "";
}

bool accepts(Cell c, const oj& x) {
    switch (c) {
        case Cell::finite:
            return x.is_number();
        case Cell::finite_or_null:
            return x.is_null() || x.is_number();
        case Cell::non_negative:
            return x.is_number() && x.get<double>() >= 0;
        case Cell::boolean:
            return x.is_boolean();
    }
    return false;
}

struct Mat {
    int rows = 0, cols = 0;
    oj data;
};

/// A rectangular matrix (array of rows) of cells of rule `cell`, copied.
const char* const kPackedKey = "\x01js:matrix";

/// A packed matrix (PackedMatrices), checked by the rules of read_matrix; the object is kept.
Mat read_packed(const oj& v, const std::string& path, int min_cols, int max_cols, Cell cell) {
    const PackedMatrices* packs = packed_matrices();
    const oj* off = own(v, kPackedKey);
    const oj* r = own(v, "rows");
    const oj* c = own(v, "cols");
    if (!is_integral(off) || !is_integral(r) || !is_integral(c) || v.size() != 3)
        bad(path, path + " is a packed matrix with a malformed reference");
    const double offset = off->get<double>(), rows = r->get<double>(), cols = c->get<double>();
    if (offset < 0 || rows < 0 || cols < 0 || offset + rows * cols > static_cast<double>(packs->count))
        bad(path, path + " is a packed matrix outside the numbers handed over");
    Mat m;
    m.rows = static_cast<int>(std::min(rows, kMaxTokens + 1.0));
    m.cols = static_cast<int>(std::min(cols, max_cols + 1.0));
    if (m.rows < 1 || m.rows > kMaxTokens)
        fail(m.rows > kMaxTokens ? ErrorCode::kTooLarge : ErrorCode::kBadState, path,
             path + " must have 1 to " + std::to_string(kMaxTokens) + " rows (got " + js_number(rows) + ")");
    if (m.cols < min_cols || m.cols > max_cols)
        fail(m.cols > max_cols ? ErrorCode::kTooLarge : ErrorCode::kBadState, path,
             path + " must have " + std::to_string(min_cols) + " to " + std::to_string(max_cols) + " columns (got " +
                 js_number(cols) + ")");
    const double* x = packs->data + static_cast<std::size_t>(offset);
    for (int i = 0; i < m.rows; ++i)
        for (int j = 0; j < m.cols; ++j) {
            const double d = x[static_cast<std::size_t>(i) * m.cols + j];
            const bool ok = std::isfinite(d) && (cell != Cell::non_negative || d >= 0) && cell != Cell::boolean;
            if (!ok) {
                const std::string cp = path + "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
                bad(cp, cp + " must be " + wants(cell) + " (got " + js_number(d) + ")");
            }
        }
    m.data = v;
    return m;
}

Mat read_matrix(const oj* v, const std::string& path, int min_cols, int max_cols, Cell cell) {
    if (v && v->is_object() && packed_matrices() && own(*v, kPackedKey))
        return read_packed(*v, path, min_cols, max_cols, cell);
    if (!v || !v->is_array())
        bad(path, path + " must be a matrix (an array of rows) or null (got " + describe(v) + ")");
    Mat m;
    m.rows = static_cast<int>(std::min<std::size_t>(v->size(), static_cast<std::size_t>(kMaxTokens) + 1));
    if (m.rows < 1 || m.rows > kMaxTokens)
        fail(m.rows > kMaxTokens ? ErrorCode::kTooLarge : ErrorCode::kBadState, path,
             path + " must have 1 to " + std::to_string(kMaxTokens) + " rows (got " + std::to_string(v->size()) + ")");
    m.data = oj::array();
    m.data.get_ref<oj::array_t&>().reserve(v->size());
    for (int i = 0; i < m.rows; ++i) {
        const oj& row = (*v)[static_cast<std::size_t>(i)];
        const std::string rp = path + "[" + std::to_string(i) + "]";
        if (!row.is_array()) bad(rp, rp + " must be an array (got " + describe(&row) + ")");
        const int n = static_cast<int>(std::min<std::size_t>(row.size(), static_cast<std::size_t>(max_cols) + 1));
        if (i == 0) {
            m.cols = n;
            if (n < min_cols || n > max_cols)
                fail(n > max_cols ? ErrorCode::kTooLarge : ErrorCode::kBadState, path,
                     path + " must have " + std::to_string(min_cols) + " to " + std::to_string(max_cols) +
                         " columns (got " + std::to_string(row.size()) + ")");
        } else if (row.size() != static_cast<std::size_t>(m.cols)) {
            fail(ErrorCode::kShapeMismatch, rp,
                 rp + " has " + std::to_string(row.size()) + " values but " + path + "[0] has " +
                     std::to_string(m.cols) + "; a matrix must be rectangular");
        }
        oj copy = oj::array();
        copy.get_ref<oj::array_t&>().reserve(row.size());
        for (int j = 0; j < m.cols; ++j) {
            const oj& x = row[static_cast<std::size_t>(j)];
            const std::string cp = rp + "[" + std::to_string(j) + "]";
            if (!accepts(cell, x)) bad(cp, cp + " must be " + wants(cell) + " (got " + describe(&x) + ")");
            copy.push_back(x);
        }
        m.data.push_back(std::move(copy));
    }
    return m;
}

oj read_string_list(const oj* v, const std::string& path, int max_length) {
    if (!v || !v->is_array()) bad(path, path + " must be an array of strings (got " + describe(v) + ")");
    oj out = oj::array();
    for (std::size_t i = 0; i < v->size(); ++i)
        out.push_back(require_string(&(*v)[i], path + "[" + std::to_string(i) + "]", max_length));
    return out;
}

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

namespace {

/// Where a JSON text stops parsing: a SAX pass that follows the keys, so that a number out of
/// float64 range ("topK": 1e400) is named by its key rather than reported as "not valid JSON".
struct WhereSax : nlohmann::json_sax<oj> {
    std::vector<std::string> keys;  // the key of each open object ("" inside arrays)
    std::string last_key;
    std::string message;
    int id = 0;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override {
        keys.push_back(last_key);
        return true;
    }
    bool key(string_t& k) override {
        last_key = k;
        return true;
    }
    bool end_object() override {
        if (!keys.empty()) {
            last_key = keys.back();
            keys.pop_back();
        }
        return true;
    }
    bool start_array(std::size_t) override {
        keys.push_back(last_key);
        return true;
    }
    bool end_array() override { return end_object(); }
    bool parse_error(std::size_t, const std::string& token, const nlohmann::detail::exception& e) override {
        id = e.id;
        message = token;
        return false;
    }
};

}  // namespace

nlohmann::ordered_json validated_state(const std::string& state_json) {
    const bool repair = json_text_needs_repair(state_json);
    const std::string repaired = repair ? well_formed_json_text(state_json) : std::string();
    const std::string& text = repair ? repaired : state_json;
    oj s = oj::parse(text, nullptr, /*allow_exceptions=*/false);
    if (s.is_discarded()) {
        WhereSax where;
        oj::sax_parse(text, &where);
        if (where.id == 406)  // out_of_range.406: a number beyond float64 ("1e400")
            throw Error(ErrorCode::kInvalidValue, where.last_key.empty() ? "state" : where.last_key,
                        (where.last_key.empty() ? std::string("a number") : where.last_key) + " = " + where.message +
                            " is out of range: numbers must be finite (at most 1.8e308 in magnitude)");
        throw Error(ErrorCode::kBadState, "state", "the state is not valid JSON");
    }
    return read_state(s);
}

std::string validate_state_json(const std::string& state_json) {
    // Invalid UTF-8 cannot reach here (well_formed_json_text), so dump() never throws on it.
    return validated_state(state_json).dump();
}

namespace {
thread_local const PackedMatrices* current_packs = nullptr;
}

PackedScope::PackedScope(PackedMatrices packs) : previous_(current_packs), packs_(packs) {
    current_packs = &packs_;
}
PackedScope::~PackedScope() {
    current_packs = previous_;
}
const PackedMatrices* packed_matrices() {
    return current_packs;
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
              {"csv", {{"formulaStart", kCsvFormulaStart}}}};
    return out.dump();
}

}  // namespace attn
