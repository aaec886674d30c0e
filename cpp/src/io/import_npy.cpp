// .npy headers, float conversion and the shape -> layers x heads x queries x keys mapping
// (import.hpp). The header is a Python dict literal; it is parsed here by a small recursive
// reader of exactly the literals numpy writes (strings, True/False, tuples of integers), so no
// Python-like evaluation happens and every malformed byte is a kBadFile with a reason.
#include "attn/import.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace attn::io {
namespace {

constexpr std::uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
/// numpy itself refuses headers above 10000 bytes by default; a float array needs ~120. Anything
/// much larger is not a header a reader should fetch.
constexpr std::size_t kMaxHeaderBytes = 1u << 20;

[[noreturn]] void bad(const std::string& message) {
    throw Error(ErrorCode::kBadFile, "file", message);
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

/// Reader of the header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class DictReader {
public:
    DictReader(const char* p, std::size_t n) : p_(p), end_(p + n) {}

    void skip_ws() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
    }
    bool at_end() {
        skip_ws();
        return p_ == end_;
    }
    char peek() {
        skip_ws();
        return p_ < end_ ? *p_ : '\0';
    }
    void expect(char c, const char* what) {
        if (peek() != c) fail(std::string("expected ") + what);
        ++p_;
    }
    bool accept(char c) {
        if (peek() != c) return false;
        ++p_;
        return true;
    }
    /// A Python string literal in single or double quotes (no escapes occur in numpy headers;
    /// a backslash is refused rather than misread).
    std::string string() {
        const char q = peek();
        if (q != '\'' && q != '"') fail("expected a quoted string");
        ++p_;
        std::string s;
        while (p_ < end_ && *p_ != q) {
            if (*p_ == '\\' || *p_ == '\n') fail("unsupported character in a string");
            s += *p_++;
        }
        if (p_ == end_) fail("unterminated string");
        ++p_;
        return s;
    }
    bool boolean() {
        if (word("True")) return true;
        if (word("False")) return false;
        fail("expected True or False");
    }
    /// A tuple (or list) of integers: (), (5,), (2, 3). Python 2 numpy wrote longs as "3L".
    std::vector<std::int64_t> int_tuple() {
        const char open = peek();
        if (open != '(' && open != '[') fail("'shape' must be a tuple of integers");
        const char close = open == '(' ? ')' : ']';
        ++p_;
        std::vector<std::int64_t> out;
        while (!accept(close)) {
            out.push_back(integer());
            if (accept(',')) continue;
            if (peek() != close) fail("'shape' must be a tuple of integers");
        }
        return out;
    }
    [[noreturn]] void fail(const std::string& what) {
        bad("malformed .npy header: " + what + " at byte " + std::to_string(offset()) + " of the dict");
    }

private:
    std::size_t offset() const { return static_cast<std::size_t>(p_ - origin_); }
    bool word(const char* w) {
        skip_ws();
        const std::size_t n = std::strlen(w);
        if (static_cast<std::size_t>(end_ - p_) < n || std::memcmp(p_, w, n) != 0) return false;
        p_ += n;
        return true;
    }
    std::int64_t integer() {
        skip_ws();
        bool negative = false;
        if (p_ < end_ && (*p_ == '-' || *p_ == '+')) negative = *p_++ == '-';
        if (p_ == end_ || *p_ < '0' || *p_ > '9')
            bad("malformed .npy header: shape extents must be integers (at byte " + std::to_string(offset()) +
                " of the dict)");
        std::uint64_t v = 0;
        while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
            if (v > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - 9) / 10)
                bad("malformed .npy header: a shape extent is too large for 64 bits");
            v = v * 10 + static_cast<std::uint64_t>(*p_++ - '0');
        }
        if (p_ < end_ && (*p_ == 'L' || *p_ == 'l')) ++p_;
        if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E'))
            bad("malformed .npy header: shape extents must be integers");
        if (negative && v != 0) bad("the .npy shape has a negative extent (-" + std::to_string(v) + ")");
        return static_cast<std::int64_t>(v);
    }

    const char* p_;
    const char* end_;
    const char* origin_ = p_;
};

/// The dtype of a descr string, or a kBadFile that names it and says what to do.
DType dtype_from_descr(const std::string& d) {
    if (d.size() >= 2) {
        const char order = d[0];
        const std::string code = d.substr(1);
        const bool little = order == '<' || order == '=';  // '=' is native: little on our targets
        if (code == "f2" || code == "f4" || code == "f8" || code == "e" || code == "f" || code == "d") {
            const char* name = code == "f2" || code == "e"   ? "float16"
                               : code == "f4" || code == "f" ? "float32"
                                                             : "float64";
            if (little)
                return code == "f2" || code == "e" ? DType::f16 : code == "f4" || code == "f" ? DType::f32 : DType::f64;
            if (order == '>')
                bad(std::string("big-endian ") + name + " ('" + d + "'): convert with arr.astype('<" + code + "')");
        }
    }
    const char c = d.size() >= 2 ? d[1] : (d.empty() ? '\0' : d[0]);
    const char* kind = nullptr;
    switch (c) {
        case 'O':
            kind = "object arrays";
            break;
        case 'i':
            kind = "integer arrays";
            break;
        case 'u':
            kind = "unsigned integer arrays";
            break;
        case 'b':
        case '?':
            kind = "boolean arrays";
            break;
        case 'c':
            kind = "complex arrays";
            break;
        case 'U':
        case 'S':
        case 'a':
            kind = "string arrays";
            break;
        case 'M':
        case 'm':
            kind = "date/time arrays";
            break;
        case 'V':
            kind = "structured (void) arrays";
            break;
        default:
            break;
    }
    bad(std::string(kind ? kind : "the dtype") + " ('" + d +
        "') cannot be read: only little-endian float16, float32 and float64 arrays can (convert "
        "with arr.astype('<f4'))");
}

}  // namespace

std::size_t item_size(DType t) {
    switch (t) {
        case DType::f16:
            return 2;
        case DType::f32:
            return 4;
        case DType::f64:
            return 8;
    }
    return 4;
}

const char* to_string(DType t) {
    switch (t) {
        case DType::f16:
            return "float16";
        case DType::f32:
            return "float32";
        case DType::f64:
            return "float64";
    }
    return "float32";
}

std::size_t npy_header_length(const std::uint8_t* bytes, std::size_t n) {
    // Check the magic on whatever is there first: a 5-byte text file is "not a .npy file", not
    // "truncated".
    const std::size_t m = n < 6 ? n : 6;
    if (n == 0 || std::memcmp(bytes, kMagic, m) != 0)
        bad("not a .npy file: it does not start with the magic bytes \\x93NUMPY");
    if (n < 12) bad("truncated .npy header: the file has " + std::to_string(n) + " bytes, a header needs at least 12");
    const int major = bytes[6], minor = bytes[7];
    std::size_t total = 0;
    if (major == 1) {
        total = 10 + (static_cast<std::size_t>(bytes[8]) | static_cast<std::size_t>(bytes[9]) << 8);
    } else if (major == 2 || major == 3) {
        const std::uint32_t len = static_cast<std::uint32_t>(bytes[8]) | static_cast<std::uint32_t>(bytes[9]) << 8 |
                                  static_cast<std::uint32_t>(bytes[10]) << 16 |
                                  static_cast<std::uint32_t>(bytes[11]) << 24;
        if (len > kMaxHeaderBytes)
            bad("the .npy header claims " + std::to_string(len) +
                " bytes: not a header this reader accepts (at most 1 MiB)");
        total = 12 + static_cast<std::size_t>(len);
    } else {
        bad("unknown .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
            " (this reader knows 1.0, 2.0 and 3.0)");
    }
    if (minor != 0)
        bad("unknown .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
            " (this reader knows 1.0, 2.0 and 3.0)");
    return total;
}

NpyHeader parse_npy_header(const std::uint8_t* bytes, std::size_t n) {
    const std::size_t total = npy_header_length(bytes, n);
    if (n < total)
        bad("truncated .npy header: it needs " + std::to_string(total) + " bytes, the file has " + std::to_string(n));
    NpyHeader h;
    h.version_major = bytes[6];
    const std::size_t start = h.version_major == 1 ? 10 : 12;
    const char* text = reinterpret_cast<const char*>(bytes + start);
    DictReader r(text, total - start);

    bool have_descr = false, have_order = false, have_shape = false, fortran = false;
    std::string descr;
    r.expect('{', "'{' opening the header dict");
    while (!r.accept('}')) {
        const std::string key = r.string();
        r.expect(':', "':' after a key");
        if (key == "descr") {
            if (have_descr) r.fail("duplicate key 'descr'");
            if (r.peek() == '[')
                bad("structured arrays (a list 'descr') are not read: only little-endian float16, "
                    "float32 and float64 arrays are");
            descr = r.string();
            have_descr = true;
        } else if (key == "fortran_order") {
            if (have_order) r.fail("duplicate key 'fortran_order'");
            fortran = r.boolean();
            have_order = true;
        } else if (key == "shape") {
            if (have_shape) r.fail("duplicate key 'shape'");
            h.shape = r.int_tuple();
            have_shape = true;
        } else {
            r.fail("unexpected key '" + key + "'");
        }
        if (r.accept(',')) continue;
        if (r.peek() != '}') r.fail("expected ',' or '}'");
    }
    if (!r.at_end()) r.fail("unexpected text after the dict");
    if (!have_descr || !have_order || !have_shape)
        bad(std::string("malformed .npy header: the dict lacks '") +
            (!have_descr   ? "descr"
             : !have_order ? "fortran_order"
                           : "shape") +
            "'");

    h.dtype = dtype_from_descr(descr);
    if (fortran) {
        // With at most one extent above 1 both orders are the same bytes.
        int big = 0;
        for (std::int64_t e : h.shape) big += e > 1;
        if (big > 1)
            bad("Fortran-order arrays are not supported: save with np.ascontiguousarray (shape " +
                shape_string(h.shape) + ")");
    }
    const std::uint64_t item = item_size(h.dtype);
    std::uint64_t elements = 1;
    bool zero = false;
    for (std::int64_t e : h.shape) zero = zero || e == 0;
    if (!zero) {
        for (std::int64_t e : h.shape) {
            const auto u = static_cast<std::uint64_t>(e);
            if (elements > std::numeric_limits<std::uint64_t>::max() / item / u)
                bad("the .npy shape " + shape_string(h.shape) + " is too large: its byte size overflows 64 bits");
            elements *= u;
        }
    } else {
        elements = 0;
    }
    h.elements = elements;
    h.data_bytes = elements * item;
    h.data_offset = total;
    return h;
}

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exp = (h >> 10) & 0x1Fu;
    std::uint32_t mant = h & 0x3FFu;
    std::uint32_t bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (mant << 13);  // Inf, or NaN keeping its payload
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);  // rebias 15 -> 127
    } else if (mant == 0) {
        bits = sign;  // +-0
    } else {
        // Subnormal: value = mant * 2^-24. Normalise: shift until the implicit bit (0x400) is set.
        int e = -1;
        do {
            ++e;
            mant <<= 1;
        } while ((mant & 0x400u) == 0);
        // mant * 2^-24 = (mant_shifted / 2^(e+1)) * 2^-24 ... = 1.f * 2^(-15 - e)
        bits = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FFu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

void to_float32(DType t, const std::uint8_t* src, std::size_t count, float* dst) {
    switch (t) {
        case DType::f16:
            for (std::size_t i = 0; i < count; ++i)
                dst[i] = half_to_float(static_cast<std::uint16_t>(src[2 * i] | src[2 * i + 1] << 8));
            return;
        case DType::f32:
            // Little-endian host (x86-64, WebAssembly): the bytes are the floats.
            std::memmove(dst, src, count * 4);
            return;
        case DType::f64: {
            // Round to nearest even, overflowing to +-Inf exactly as IEEE conversion does
            // (a plain cast of an out-of-range double is undefined behaviour in C++).
            constexpr double kOverflow = 3.4028235677973366e38;  // FLT_MAX + half an ulp = 2^128 - 2^103
            for (std::size_t i = 0; i < count; ++i) {
                double d;
                std::memcpy(&d, src + 8 * i, sizeof d);
                if (std::isfinite(d) && std::fabs(d) >= kOverflow)
                    dst[i] = d > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
                else
                    dst[i] = static_cast<float>(d);
            }
            return;
        }
    }
}

Layout layout_from_shape(const std::vector<std::int64_t>& shape) {
    const std::string s = shape_string(shape);
    const std::size_t rank = shape.size();
    if (rank < 2 || rank > 5)
        throw Error(ErrorCode::kShapeMismatch, "shape",
                    "shape " + s + " has " + std::to_string(rank) + (rank == 1 ? " axis" : " axes") +
                        ": an attention tensor is [n_q, n_k], [heads, n_q, n_k], [layers, heads, "
                        "n_q, n_k] or [1, layers, heads, n_q, n_k]");
    for (std::int64_t e : shape) {
        if (e <= 0)
            throw Error(ErrorCode::kShapeMismatch, "shape",
                        "shape " + s + " has an empty axis: there is nothing to analyse");
    }
    if (rank == 5 && shape[0] != 1)
        throw Error(ErrorCode::kShapeMismatch, "shape",
                    "shape " + s + ": pick one example: the batch axis has " + std::to_string(shape[0]) + " entries");
    const std::int64_t n_q = shape[rank - 2], n_k = shape[rank - 1];
    const std::int64_t heads = rank >= 3 ? shape[rank - 3] : 1;
    const std::int64_t layers = rank >= 4 ? shape[rank - 4] : 1;
    if (n_q > kMaxImportTokens || n_k > kMaxImportTokens)
        throw Error(ErrorCode::kTooLarge, "shape",
                    "shape " + s + " has " + std::to_string(n_q > n_k ? n_q : n_k) +
                        " tokens on one axis; the limit is " + std::to_string(kMaxImportTokens));
    if (heads > kMaxImportHeads || layers > kMaxImportHeads || layers * heads > kMaxImportHeads)
        throw Error(ErrorCode::kTooLarge, "shape",
                    "shape " + s + " holds " +
                        (heads > kMaxImportHeads || layers > kMaxImportHeads
                             ? std::string("more than ") + std::to_string(kMaxImportHeads)
                             : std::to_string(layers * heads)) +
                        " heads; the limit is " + std::to_string(kMaxImportHeads));
    Layout l;
    l.layers = static_cast<int>(layers);
    l.heads = static_cast<int>(heads);
    l.n_q = static_cast<int>(n_q);
    l.n_k = static_cast<int>(n_k);
    return l;
}

}  // namespace attn::io
