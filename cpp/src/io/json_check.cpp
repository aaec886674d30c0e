// The checks of json_check.hpp: describing a value for a message, and refusing it.
#include "json_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "attn/attention.hpp"
#include "attn/state_schema.hpp"

namespace attn::json_check {
namespace {

// --- Values a JavaScript caller may hand over that JSON cannot spell -------------------------
// web/core/core.js writes NaN, +-Infinity, undefined (an array hole), functions, symbols and bigints as
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
/// which web/core/core.js hands over as "\x01js:long:<code points>:<its first 40 units>" instead of
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

}  // namespace

bool is_text(const oj* v) {
    return v && v->is_string() && !marker_of(*v);
}
bool is_number(const oj* v) {
    return v && v->is_number();
}

// From the shortest round-trip digits nlohmann's serialiser finds.
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

namespace {

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

}  // namespace

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

namespace {

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

/// The key of a packed matrix's offset (state_schema.hpp PackedMatrices).
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

}  // namespace

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

}  // namespace attn::json_check

namespace attn {
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

}  // namespace attn
