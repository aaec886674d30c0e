// Importing attention tensors (import.hpp): .npy headers and data built byte by byte here, the
// float16 conversion against its definition, shapes, the JSON formats and token lists, and the
// bundled real sets (web/data/real: the .npy and the .json of each set hold the same float32s).
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/import.hpp"
#include "fixtures.hpp"

#ifndef ATTN_DATA_DIR
#error "ATTN_DATA_DIR must point at web/data (set by CMakeLists.txt)"
#endif

using attn::ErrorCode;
using attn::io::DType;
using Bytes = std::vector<std::uint8_t>;

namespace {

/// A .npy file: magic, version, header length, the dict padded with spaces and a newline so the
/// data starts at a multiple of 64 (as numpy writes it), then `data`.
Bytes npy_bytes(const std::string& dict, int major, const Bytes& data = {}, int minor = 0) {
    const std::size_t prefix = major == 1 ? 10 : 12;
    std::string text = dict;
    while ((prefix + text.size() + 1) % 64 != 0) text += ' ';
    text += '\n';
    Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<std::uint8_t>(major), static_cast<std::uint8_t>(minor)};
    const std::size_t len = text.size();
    b.push_back(static_cast<std::uint8_t>(len & 0xFF));
    b.push_back(static_cast<std::uint8_t>(len >> 8));
    if (major != 1) {
        b.push_back(static_cast<std::uint8_t>(len >> 16));
        b.push_back(static_cast<std::uint8_t>(len >> 24));
    }
    b.insert(b.end(), text.begin(), text.end());
    b.insert(b.end(), data.begin(), data.end());
    return b;
}

std::string dict_for(const std::string& descr, const std::string& shape, bool fortran = false) {
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape +
           ", }";
}

template <class T>
Bytes le_bytes(const std::vector<T>& values) {
    Bytes b(values.size() * sizeof(T));
    std::memcpy(b.data(), values.data(), b.size());  // x86-64 / WASM: little-endian
    return b;
}

attn::io::NpyHeader parse(const Bytes& b) {
    return attn::io::parse_npy_header(b.data(), b.size());
}

/// The attn::Error `f` throws (fails the test if none).
template <class F>
attn::Error error_of(F&& f) {
    try {
        f();
    } catch (const attn::Error& e) {
        return e;
    } catch (const std::exception& e) {
        FAIL("threw a non-attn exception: " << e.what());
    }
    FAIL("no exception thrown");
    return attn::Error(ErrorCode::kBadState, "", "");
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

Bytes read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string read_text(const std::string& path) {
    const Bytes b = read_file(path);
    return std::string(b.begin(), b.end());
}

std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

/// float16 by its definition: (-1)^s * 2^(e-15) * (1 + m/1024), subnormals 2^-14 * m/1024.
double half_reference(std::uint16_t h) {
    const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    const double sign = s ? -1.0 : 1.0;
    if (e == 31) return m ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
    if (e == 0) return sign * std::ldexp(m, -24);
    return sign * std::ldexp(1024 + m, e - 25);
}

}  // namespace

// -------------------------------------------------------------------------------------------
// float16 and conversions
// -------------------------------------------------------------------------------------------

TEST_CASE("half_to_float: the values every float16 table lists", "[import]") {
    using attn::io::half_to_float;
    CHECK(half_to_float(0x3C00) == 1.0f);
    CHECK(half_to_float(0xC000) == -2.0f);
    CHECK(half_to_float(0x7BFF) == 65504.0f);
    CHECK(half_to_float(0x0001) == 5.960464477539063e-08f);  // 2^-24, smallest subnormal
    CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
    CHECK(half_to_float(0x03FF) == std::ldexp(1023.0f, -24));  // largest subnormal
    CHECK(half_to_float(0x0400) == std::ldexp(1.0f, -14));     // smallest normal
    CHECK(half_to_float(0x3555) == 0.333251953125f);
    CHECK(half_to_float(0x7C00) == std::numeric_limits<float>::infinity());
    CHECK(half_to_float(0xFC00) == -std::numeric_limits<float>::infinity());
    CHECK(std::isnan(half_to_float(0x7E00)));
    CHECK(std::isnan(half_to_float(0xFE00)));
    CHECK(std::isnan(half_to_float(0x7C01)));  // signalling NaN stays NaN, not Inf
    const float nz = half_to_float(0x8000);
    CHECK(nz == 0.0f);
    CHECK(std::signbit(nz));
    CHECK_FALSE(std::signbit(half_to_float(0x0000)));
}

TEST_CASE("half_to_float agrees with the definition on all 65536 values", "[import]") {
    int mismatches = 0;
    for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
        const float got = attn::io::half_to_float(static_cast<std::uint16_t>(h));
        const double want = half_reference(static_cast<std::uint16_t>(h));
        const bool ok = std::isnan(want)
                            ? std::isnan(got)
                            : (static_cast<double>(got) == want && std::signbit(got) == std::signbit(want));
        if (!ok && ++mismatches <= 5) FAIL_CHECK("half 0x" << std::hex << h << " -> " << got << ", want " << want);
    }
    CHECK(mismatches == 0);
}

TEST_CASE("to_float32 converts each dtype from unaligned little-endian bytes", "[import]") {
    using attn::io::to_float32;
    SECTION("float16") {
        const Bytes raw = {0xAA, 0x00, 0x3C, 0x00, 0xC0, 0xFF, 0x7B, 0x01, 0x00};
        float out[4];
        to_float32(DType::f16, raw.data() + 1, 4, out);  // odd address
        CHECK(out[0] == 1.0f);
        CHECK(out[1] == -2.0f);
        CHECK(out[2] == 65504.0f);
        CHECK(out[3] == std::ldexp(1.0f, -24));
    }
    SECTION("float32, also in place") {
        const std::vector<float> v = {0.1f, -0.0f, FLT_MAX, attn_test::kInf, 1e-45f};
        Bytes raw(1);
        const Bytes vb = le_bytes(v);
        raw.insert(raw.end(), vb.begin(), vb.end());
        std::vector<float> out(v.size());
        to_float32(DType::f32, raw.data() + 1, v.size(), out.data());
        for (std::size_t i = 0; i < v.size(); ++i) CHECK(bits_of(out[i]) == bits_of(v[i]));
        to_float32(DType::f32, reinterpret_cast<const std::uint8_t*>(out.data()), v.size(), out.data());
        for (std::size_t i = 0; i < v.size(); ++i) CHECK(bits_of(out[i]) == bits_of(v[i]));
    }
    SECTION("float64: round to nearest, Inf beyond float32's range, NaN kept") {
        // 2^128 - 2^103 is halfway between FLT_MAX and 2^128: it rounds (to even) up to Inf, the
        // double just below it rounds down to FLT_MAX.
        const double half_way = 0x1.ffffffp127;
        const std::vector<double> v = {0.1,       1.0 / 3.0,
                                       -1e300,    1e300,
                                       half_way,  std::nextafter(half_way, 0.0),
                                       -half_way, static_cast<double>(FLT_MAX),
                                       1e-50,     std::numeric_limits<double>::quiet_NaN()};
        Bytes raw(3);
        const Bytes vb = le_bytes(v);
        raw.insert(raw.end(), vb.begin(), vb.end());
        std::vector<float> out(v.size());
        to_float32(DType::f64, raw.data() + 3, v.size(), out.data());
        CHECK(out[0] == 0.1f);
        CHECK(out[1] == static_cast<float>(1.0 / 3.0));
        CHECK(out[2] == -attn_test::kInf);
        CHECK(out[3] == attn_test::kInf);
        CHECK(out[4] == attn_test::kInf);
        CHECK(out[5] == FLT_MAX);
        CHECK(out[6] == -attn_test::kInf);
        CHECK(out[7] == FLT_MAX);
        CHECK(out[8] == 0.0f);
        CHECK(std::isnan(out[9]));
    }
    CHECK(attn::io::item_size(DType::f16) == 2);
    CHECK(attn::io::item_size(DType::f32) == 4);
    CHECK(attn::io::item_size(DType::f64) == 8);
    CHECK(std::string(attn::io::to_string(DType::f16)) == "float16");
    CHECK(std::string(attn::io::to_string(DType::f64)) == "float64");
}

// -------------------------------------------------------------------------------------------
// .npy headers
// -------------------------------------------------------------------------------------------

TEST_CASE("parse_npy_header reads versions 1, 2 and 3 and each float dtype", "[import]") {
    for (int major : {1, 2, 3}) {
        for (const auto& [descr, type] : std::vector<std::pair<std::string, DType>>{
                 {"<f2", DType::f16}, {"<f4", DType::f32}, {"<f8", DType::f64}, {"=f4", DType::f32}}) {
            INFO("version " << major << " descr " << descr);
            const Bytes b = npy_bytes(dict_for(descr, "(2, 3)"), major);
            const auto h = parse(b);
            CHECK(h.version_major == major);
            CHECK(h.dtype == type);
            CHECK(h.shape == std::vector<std::int64_t>{2, 3});
            CHECK(h.data_offset == b.size());
            CHECK(h.data_offset % 64 == 0);
            CHECK(h.elements == 6);
            CHECK(h.data_bytes == 6 * attn::io::item_size(type));
            CHECK(attn::io::npy_header_length(b.data(), 12) == b.size());
        }
    }
}

TEST_CASE("parse_npy_header: the dict's keys in any order, any spacing, any tuple form", "[import]") {
    const std::vector<std::pair<std::string, std::vector<std::int64_t>>> cases = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4, 5), }", {4, 5}},
        {"{'shape': (4, 5), 'fortran_order': False, 'descr': '<f4'}", {4, 5}},
        {"{'fortran_order':False,'descr':'<f4','shape':(4,5)}", {4, 5}},
        {"{ \"descr\" : \"<f4\" , \"fortran_order\" : False , \"shape\" : ( 4 , 5 , ) , }", {4, 5}},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", {5}},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (), }", {}},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }", {2, 3}},  // Python 2 longs
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 12, 12, 512, 512), }", {1, 12, 12, 512, 512}},
    };
    for (const auto& [dict, shape] : cases) {
        INFO(dict);
        const auto h = parse(npy_bytes(dict, 1));
        CHECK(h.shape == shape);
        std::uint64_t elements = 1;
        for (auto e : shape) elements *= static_cast<std::uint64_t>(e);
        CHECK(h.elements == elements);
    }
    // Zero extents are a valid file with no data (layout_from_shape refuses them later).
    CHECK(parse(npy_bytes(dict_for("<f4", "(0, 3)"), 1)).data_bytes == 0);
    // Fortran order of an array with one non-trivial axis is the same bytes: accepted.
    CHECK(parse(npy_bytes(dict_for("<f4", "(1, 7)", true), 1)).elements == 7);
}

TEST_CASE("npy_header_length says how many bytes to fetch", "[import]") {
    const Bytes v1 = npy_bytes(dict_for("<f4", "(3, 3)"), 1);
    const Bytes v2 = npy_bytes(dict_for("<f4", "(3, 3)"), 2);
    CHECK(attn::io::npy_header_length(v1.data(), 12) == 128);  // 10 + 58-byte dict, padded to 64s
    CHECK(attn::io::npy_header_length(v2.data(), 12) == 128);
    // A v2 header whose length field claims 4 GiB is refused before anyone fetches it.
    Bytes huge = v2;
    huge[8] = huge[9] = huge[10] = huge[11] = 0xFF;
    CHECK(error_of([&] { (void)attn::io::npy_header_length(huge.data(), huge.size()); }).code() == ErrorCode::kBadFile);
}

TEST_CASE("parse_npy_header refuses broken and unsupported files with a reason", "[import]") {
    const Bytes good = npy_bytes(dict_for("<f4", "(2, 2)"), 1, le_bytes(std::vector<float>{1, 0, 0, 1}));

    SECTION("truncated at any length of the header") {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{6}, std::size_t{9},
                              std::size_t{10}, std::size_t{11}, std::size_t{12}, std::size_t{30}, std::size_t{127}}) {
            INFO("first " << n << " bytes");
            const auto e = error_of([&] { (void)attn::io::parse_npy_header(good.data(), n); });
            CHECK(e.code() == ErrorCode::kBadFile);
            CHECK(e.field() == "file");
            CHECK(contains(e.what(), n == 0 ? "magic" : "truncated"));
        }
        CHECK(parse(Bytes(good.begin(), good.begin() + 128)).elements == 4);  // the header alone is enough
    }
    SECTION("bad magic") {
        for (std::string text :
             {"PK\x03\x04 not a npy file at all", "{\"tokens\": []}", "\x93NUMPZ\x01\x00\x10\x00  "}) {
            INFO(text);
            const Bytes b(text.begin(), text.end());
            const auto e = error_of([&] { (void)parse(b); });
            CHECK(e.code() == ErrorCode::kBadFile);
            CHECK(contains(e.what(), "\\x93NUMPY"));
        }
    }
    SECTION("unknown versions") {
        for (auto [major, minor] : {std::pair{4, 0}, std::pair{0, 0}, std::pair{1, 1}}) {
            Bytes b = good;
            b[6] = static_cast<std::uint8_t>(major);
            b[7] = static_cast<std::uint8_t>(minor);
            const auto e = error_of([&] { (void)parse(b); });
            CHECK(e.code() == ErrorCode::kBadFile);
            CHECK(contains(e.what(), "version " + std::to_string(major) + "." + std::to_string(minor)));
        }
    }
    SECTION("dtypes other than little-endian floats name the descr") {
        const auto be = error_of([&] { (void)parse(npy_bytes(dict_for(">f4", "(2, 2)"), 1)); });
        CHECK(be.code() == ErrorCode::kBadFile);
        CHECK(contains(be.what(), "big-endian float32 ('>f4'): convert with arr.astype('<f4')"));
        CHECK(contains(error_of([&] { (void)parse(npy_bytes(dict_for(">f8", "(2, 2)"), 1)); }).what(),
                       "big-endian float64 ('>f8')"));
        for (const std::string& d : {"|O", "<i8", "|b1", "<c8", "<U3", "|f2", "<M8[ns]", "|u1"}) {
            INFO(d);
            const auto e = error_of([&] { (void)parse(npy_bytes(dict_for(d, "(2, 2)"), 1)); });
            CHECK(e.code() == ErrorCode::kBadFile);
            CHECK(contains(e.what(), "'" + d + "'"));
            CHECK(contains(e.what(), "only little-endian float16, float32 and float64"));
        }
        CHECK(contains(error_of([&] { (void)parse(npy_bytes(dict_for("|O", "(2, 2)"), 1)); }).what(), "object arrays"));
        CHECK(
            contains(error_of([&] { (void)parse(npy_bytes(dict_for("<i8", "(2, 2)"), 1)); }).what(), "integer arrays"));
        const auto structured = error_of(
            [&] { (void)parse(npy_bytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 1)); });
        CHECK(contains(structured.what(), "structured"));
    }
    SECTION("Fortran order") {
        const auto e = error_of([&] { (void)parse(npy_bytes(dict_for("<f4", "(2, 3)", true), 1)); });
        CHECK(e.code() == ErrorCode::kBadFile);
        CHECK(contains(e.what(), "Fortran-order arrays are not supported: save with np.ascontiguousarray"));
    }
    SECTION("bad extents") {
        const auto neg = error_of([&] { (void)parse(npy_bytes(dict_for("<f4", "(2, -3)"), 1)); });
        CHECK(neg.code() == ErrorCode::kBadFile);
        CHECK(contains(neg.what(), "negative"));
        CHECK(error_of([&] { (void)parse(npy_bytes(dict_for("<f4", "(2.5, 3)"), 1)); }).code() == ErrorCode::kBadFile);
        CHECK(error_of([&] { (void)parse(npy_bytes(dict_for("<f4", "('a', 3)"), 1)); }).code() == ErrorCode::kBadFile);
        // 2^32 * 2^32 * 4 bytes overflows 64 bits; so does a 20-digit extent.
        const auto over = error_of([&] { (void)parse(npy_bytes(dict_for("<f4", "(4294967296, 4294967296)"), 1)); });
        CHECK(over.code() == ErrorCode::kBadFile);
        CHECK(contains(over.what(), "overflows 64 bits"));
        CHECK(error_of([&] { (void)parse(npy_bytes(dict_for("<f8", "(99999999999999999999,)"), 1)); }).code() ==
              ErrorCode::kBadFile);
        // 2^31 * 2^30 * 4 = 2^63 bytes fits in 64 bits: a header, not yet an error.
        CHECK(parse(npy_bytes(dict_for("<f4", "(2147483648, 1073741824)"), 1)).data_bytes == (std::uint64_t{1} << 63));
    }
    SECTION("malformed dicts") {
        for (const std::string& dict :
             {"{'descr': '<f4', 'fortran_order': False}",                                   // no shape
              "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'extra': 1}",      // unknown key
              "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)}",  // duplicate
              "{'descr': '<f4', 'fortran_order': false, 'shape': (2, 2)}",                  // not Python
              "{'descr': '<f4' 'fortran_order': False, 'shape': (2, 2)}",                   // no comma
              "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)",                   // no brace
              "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)} trailing", "['descr', '<f4']",
              "{'descr: '<f4', 'fortran_order': False, 'shape': (2, 2)}"}) {
            INFO(dict);
            const auto e = error_of([&] { (void)parse(npy_bytes(dict, 1)); });
            CHECK(e.code() == ErrorCode::kBadFile);
            CHECK(contains(e.what(), ".npy header"));
        }
    }
}

// -------------------------------------------------------------------------------------------
// Shapes
// -------------------------------------------------------------------------------------------

TEST_CASE("layout_from_shape maps 2 to 5 axes to layers x heads x n_q x n_k", "[import]") {
    using attn::io::layout_from_shape;
    struct Case {
        std::vector<std::int64_t> shape;
        int layers, heads, n_q, n_k;
    };
    for (const Case& c : std::vector<Case>{{{7, 9}, 1, 1, 7, 9},
                                           {{12, 5, 5}, 1, 12, 5, 5},
                                           {{3, 4, 6, 8}, 3, 4, 6, 8},
                                           {{1, 4, 6, 6}, 1, 4, 6, 6},
                                           {{1, 3, 4, 6, 6}, 3, 4, 6, 6},
                                           {{1, 1, 1, 1, 1}, 1, 1, 1, 1},
                                           {{64, 64, 2, 2}, 64, 64, 2, 2},
                                           {{1, 131072}, 1, 1, 1, 131072}}) {
        const auto l = layout_from_shape(c.shape);
        CHECK(l.layers == c.layers);
        CHECK(l.heads == c.heads);
        CHECK(l.n_q == c.n_q);
        CHECK(l.n_k == c.n_k);
        CHECK(l.total_heads() == c.layers * c.heads);
        CHECK(l.head_elements() == static_cast<std::uint64_t>(c.n_q) * c.n_k);
    }
}

TEST_CASE("layout_from_shape refuses other ranks, batches, empty axes and sizes", "[import]") {
    using attn::io::layout_from_shape;
    const auto batch = error_of([] { (void)layout_from_shape({4, 2, 3, 5, 5}); });
    CHECK(batch.code() == ErrorCode::kShapeMismatch);
    CHECK(batch.field() == "shape");
    CHECK(contains(batch.what(), "pick one example: the batch axis has 4 entries"));
    for (const auto& shape : std::vector<std::vector<std::int64_t>>{{}, {5}, {1, 1, 2, 3, 4, 4}}) {
        const auto e = error_of([&] { (void)layout_from_shape(shape); });
        CHECK(e.code() == ErrorCode::kShapeMismatch);
        CHECK(contains(e.what(), std::to_string(shape.size()) + (shape.size() == 1 ? " axis" : " axes")));
    }
    CHECK(contains(error_of([] { (void)layout_from_shape({5}); }).what(), "shape [5]"));
    CHECK(error_of([] { (void)layout_from_shape({2, 0, 4}); }).code() == ErrorCode::kShapeMismatch);
    CHECK(error_of([] { (void)layout_from_shape({3, 131073}); }).code() == ErrorCode::kTooLarge);
    CHECK(error_of([] { (void)layout_from_shape({65, 64, 2, 2}); }).code() == ErrorCode::kTooLarge);
    CHECK(error_of([] { (void)layout_from_shape({1, 4097, 2, 2}); }).code() == ErrorCode::kTooLarge);
    CHECK(error_of([] { (void)layout_from_shape({1LL << 40, 1LL << 40, 2, 2}); }).code() == ErrorCode::kTooLarge);
}

TEST_CASE("whole .npy files: header, layout and values for each dtype and shape", "[import]") {
    // Values 0, 0.25, 0.5, ... exact in every dtype; float16 bits written by hand.
    struct Case {
        std::string shape;
        int layers, heads, n_q, n_k;
    };
    for (const Case& c : std::vector<Case>{{"(3, 4)", 1, 1, 3, 4},
                                           {"(2, 3, 3)", 1, 2, 3, 3},
                                           {"(2, 3, 2, 2)", 2, 3, 2, 2},
                                           {"(1, 2, 3, 2, 2)", 2, 3, 2, 2},
                                           {"(1, 3, 2, 2)", 1, 3, 2, 2}}) {
        const int count = c.layers * c.heads * c.n_q * c.n_k;
        std::vector<float> want(count);
        std::vector<double> f64(count);
        std::vector<std::uint16_t> f16(count);
        for (int i = 0; i < count; ++i) {
            want[i] = 0.25f * static_cast<float>(i % 16);  // 0 .. 3.75
            f64[i] = want[i];
            // float16 of k/4 for k in 1..15: exponent and mantissa from k/4 = 2^e * (1 + m/1024)
            const int k = i % 16;
            if (k == 0) {
                f16[i] = 0;
            } else {
                int e = -2;
                int v = k;
                while (v >= 2) {
                    v >>= 1;
                    ++e;
                }  // k = 2^(e+2) * (1 + frac)
                const double frac = k / std::ldexp(1.0, e + 2) - 1.0;
                f16[i] = static_cast<std::uint16_t>(((e + 15) << 10) | static_cast<int>(frac * 1024));
            }
        }
        for (int major : {1, 2}) {
            for (DType type : {DType::f16, DType::f32, DType::f64}) {
                INFO(c.shape << " version " << major << " " << attn::io::to_string(type));
                const std::string descr = type == DType::f16 ? "<f2" : type == DType::f32 ? "<f4" : "<f8";
                const Bytes data = type == DType::f16   ? le_bytes(f16)
                                   : type == DType::f32 ? le_bytes(want)
                                                        : le_bytes(f64);
                const Bytes file = npy_bytes(dict_for(descr, c.shape), major, data);
                const auto h = parse(file);
                REQUIRE(h.data_offset + h.data_bytes == file.size());
                const auto l = attn::io::layout_from_shape(h.shape);
                CHECK(l.layers == c.layers);
                CHECK(l.heads == c.heads);
                CHECK(l.n_q == c.n_q);
                CHECK(l.n_k == c.n_k);
                std::vector<float> got(h.elements);
                attn::io::to_float32(h.dtype, file.data() + h.data_offset, h.elements, got.data());
                CHECK(got == want);
            }
        }
    }
}

// -------------------------------------------------------------------------------------------
// JSON
// -------------------------------------------------------------------------------------------

TEST_CASE("attention JSON: this page's format with layers and heads", "[import]") {
    const auto t = attn::io::parse_attention_json(R"({"tokens": ["a", "b"],
        "attention": [[[[1, 0], [0.5, 0.5]], [[1, 0], [0.25, 0.75]]]], "layers": [3], "heads": [0, "x"]})");
    CHECK(t.format == "attention-json");
    CHECK(t.layout.layers == 1);
    CHECK(t.layout.heads == 2);
    CHECK(t.layout.n_q == 2);
    CHECK(t.layout.n_k == 2);
    CHECK(t.data == std::vector<float>{1, 0, 0.5f, 0.5f, 1, 0, 0.25f, 0.75f});
    CHECK(t.query_tokens == std::vector<std::string>{"a", "b"});
    CHECK(t.key_tokens == std::vector<std::string>{"a", "b"});
    CHECK(t.layer_labels == std::vector<std::string>{"3"});
    CHECK(t.head_labels == std::vector<std::string>{"0", "x"});
}

TEST_CASE("attention JSON: cross-attention tokens, nulls, queries at the end of the keys", "[import]") {
    const auto cross = attn::io::parse_attention_json(
        R"({"queryTokens": ["q"], "keyTokens": ["k1", "k2", "k3"], "attention": [[0.2, null, 0.8]]})");
    CHECK(cross.format == "attention-json");
    CHECK(cross.layout.n_q == 1);
    CHECK(cross.layout.n_k == 3);
    CHECK(cross.query_tokens == std::vector<std::string>{"q"});
    CHECK(cross.key_tokens == std::vector<std::string>{"k1", "k2", "k3"});
    CHECK(std::isnan(cross.data[1]));
    CHECK(cross.data[2] == 0.8f);
    // One token list, fewer queries than keys: the queries are the last ones (a KV cache).
    const auto tail = attn::io::parse_attention_json(
        R"({"tokens": ["a", "b", "c"], "attention": [[0.5, 0.5, 0], [0.2, 0.3, 0.5]], "layers": null})");
    CHECK(tail.query_tokens == std::vector<std::string>{"b", "c"});
    CHECK(tail.key_tokens.size() == 3);
    // Numbers beyond float32 become Inf (reported as non-finite by the check, not an error here).
    const auto big = attn::io::parse_attention_json(R"({"attention": [[1e300, -1e39]]})");
    CHECK(big.data == std::vector<float>{attn_test::kInf, -attn_test::kInf});
    CHECK(big.query_tokens.empty());
}

TEST_CASE("attention JSON: CircuitsVis props", "[import]") {
    const auto t = attn::io::parse_attention_json(
        R"({"tokens": ["x", "y"], "attention": [[[1, 0], [0.5, 0.5]], [[1, 0], [0, 1]], [[1, 0], [1, 0]]],
            "headLabels": ["A", "B", "C"], "maxValue": 1})");
    CHECK(t.format == "circuitsvis");
    CHECK(t.layout.layers == 1);
    CHECK(t.layout.heads == 3);
    CHECK(t.data.size() == 12);
    CHECK(t.data[7] == 1.0f);  // head 1, row 1, col 1
    CHECK(t.head_labels == std::vector<std::string>{"A", "B", "C"});
    const auto single = attn::io::parse_attention_json(R"({"tokens": ["x", "y"], "attention": [[1, 0], [0.5, 0.5]]})");
    CHECK(single.format == "circuitsvis");
    CHECK(single.layout.total_heads() == 1);
}

TEST_CASE("attention JSON: BertViz and bare lists of layers", "[import]") {
    // [layers][heads][n][n] under "all", left_text = queries, right_text = keys.
    const auto bv = attn::io::parse_attention_json(R"({"all": {"attn": [[[[1, 0], [0.5, 0.5]]], [[[1, 0], [0.1, 0.9]]]],
        "left_text": ["[CLS]", "hi"], "right_text": ["[CLS]", "hi"]}})");
    CHECK(bv.format == "bertviz");
    CHECK(bv.layout.layers == 2);
    CHECK(bv.layout.heads == 1);
    CHECK(bv.data[7] == 0.9f);
    CHECK(bv.query_tokens == std::vector<std::string>{"[CLS]", "hi"});
    // With the batch axis inside each layer: [layers][1][heads][n][n].
    const auto bv5 = attn::io::parse_attention_json(
        R"({"all": {"attn": [[[[[1, 0], [0.5, 0.5]]]], [[[[1, 0], [0.1, 0.9]]]], [[[[1, 0], [0, 1]]]]],
        "left_text": ["a", "b"], "right_text": ["c", "d"]}})");
    CHECK(bv5.layout.layers == 3);
    CHECK(bv5.layout.heads == 1);
    CHECK(bv5.data.size() == 12);
    CHECK(bv5.query_tokens == std::vector<std::string>{"a", "b"});
    CHECK(bv5.key_tokens == std::vector<std::string>{"c", "d"});
    // A top-level list of per-layer [1, H, n, n] (HF output_attentions) and of [H, n, n].
    const auto list5 = attn::io::parse_attention_json("[[[[[1]], [[1]]]], [[[[1]], [[1]]]], [[[[1]], [[1]]]]]");
    CHECK(list5.format == "bertviz");
    CHECK(list5.layout.layers == 3);
    CHECK(list5.layout.heads == 2);
    const auto list4 = attn::io::parse_attention_json("[[[[1]], [[1]]], [[[1]], [[1]]]]");
    CHECK(list4.layout.layers == 2);
    CHECK(list4.layout.heads == 2);
    const auto batch = error_of(
        [] { (void)attn::io::parse_attention_json("[[[[[1]]], [[[1]]]], [[[[1]]], [[[1]]]], [[[[1]]], [[[1]]]]]"); });
    CHECK(batch.code() == ErrorCode::kShapeMismatch);
    CHECK(contains(batch.what(), "the batch axis has 2 entries"));
}

TEST_CASE("attention JSON: errors name the place", "[import]") {
    using attn::io::parse_attention_json;
    const auto ragged =
        error_of([] { (void)parse_attention_json(R"({"attention": [[[1, 0, 0], [0.5, 0.5, 0], [1, 0]]]})"); });
    CHECK(ragged.code() == ErrorCode::kShapeMismatch);
    CHECK(ragged.field() == "attention");
    CHECK(std::string(ragged.what()) == "attention[0][2] has 2 entries, expected 3");

    const auto deep = error_of([] { (void)parse_attention_json(R"({"attention": [[1, 0], [[0.5], 0.5]]})"); });
    CHECK(deep.code() == ErrorCode::kShapeMismatch);
    CHECK(contains(deep.what(), "attention[1][0]"));
    const auto shallow = error_of([] { (void)parse_attention_json(R"({"attention": [[[1, 0]], [5]]})"); });
    CHECK(shallow.code() == ErrorCode::kShapeMismatch);
    CHECK(contains(shallow.what(), "attention[1][0] is a number, expected a list of 2 entries"));

    const auto text = error_of([] { (void)parse_attention_json(R"({"attention": [[1, 0], [0.5, "0.5"]]})"); });
    CHECK(text.code() == ErrorCode::kBadFile);
    CHECK(contains(text.what(), "attention[1][1] is a string, expected a number"));

    const auto tokens = error_of([] {
        std::string doc = R"({"tokens": [)";
        for (int i = 0; i < 12; ++i) doc += std::string(i ? "," : "") + "\"t\"";
        doc += R"(], "attention": [)";
        for (int r = 0; r < 16; ++r) {
            doc += r ? ",[" : "[";
            for (int c = 0; c < 16; ++c) doc += c ? ",0" : "1";
            doc += "]";
        }
        (void)parse_attention_json(doc + "]}");
    });
    CHECK(tokens.code() == ErrorCode::kShapeMismatch);
    CHECK(tokens.field() == "tokens");
    CHECK(std::string(tokens.what()) == "12 tokens for a tensor with 16 keys");

    const auto cross = error_of(
        [] { (void)parse_attention_json(R"({"queryTokens": ["a", "b"], "keyTokens": ["x"], "attention": [[1]]})"); });
    CHECK(std::string(cross.what()) == "2 tokens for a tensor with 1 queries");
    CHECK(error_of([] { (void)parse_attention_json(R"({"queryTokens": ["a"], "attention": [[1]]})"); }).code() ==
          ErrorCode::kBadFile);
    CHECK(contains(
        error_of([] { (void)parse_attention_json(R"({"tokens": ["a", 3], "attention": [[1, 0], [0, 1]]})"); }).what(),
        "tokens[1] is a number, expected a string"));

    const auto state =
        error_of([] { (void)parse_attention_json(R"({"version": 1, "mode": "qkv", "heads": [{"name": "h"}]})"); });
    CHECK(state.code() == ErrorCode::kBadFile);
    CHECK(std::string(state.what()) == "this is a playground state (docs/state.md), not an attention file");

    const auto not_json = error_of([] { (void)parse_attention_json("{\"attention\": [[1, 0],"); });
    CHECK(not_json.code() == ErrorCode::kBadFile);
    CHECK(contains(not_json.what(), "not valid JSON"));
    const auto other = error_of([] { (void)parse_attention_json(R"({"weights": [[1]], "toks": []})"); });
    CHECK(other.code() == ErrorCode::kBadFile);
    CHECK(contains(other.what(), "\"weights\""));
    CHECK(contains(other.what(), "expected {\"tokens\", \"attention\"}"));
    CHECK(error_of([] { (void)parse_attention_json("42"); }).code() == ErrorCode::kBadFile);
    CHECK(error_of([] { (void)parse_attention_json(R"({"attention": []})"); }).code() == ErrorCode::kShapeMismatch);
    CHECK(error_of([] { (void)parse_attention_json(R"({"attention": [1, 2, 3]})"); }).code() ==
          ErrorCode::kShapeMismatch);
    CHECK(error_of([] { (void)parse_attention_json(R"({"attention": [[1]], "heads": [0, 1]})"); }).code() ==
          ErrorCode::kShapeMismatch);
    CHECK(error_of([] { (void)parse_attention_json(R"({"encoder": {}, "decoder": {}, "cross": {}})"); }).code() ==
          ErrorCode::kBadFile);

    // A number beyond the double range is a bad file with a reason; nlohmann's out_of_range used
    // to escape the reader (found by cpp/fuzz/fuzz_attention_json.cpp).
    const auto overflow = error_of([] { (void)parse_attention_json(R"({"attention": [[1e390, 0]]})"); });
    CHECK(overflow.code() == ErrorCode::kBadFile);
    CHECK(overflow.field() == "file");
    CHECK(contains(overflow.what(), "too large for a double"));
    CHECK(error_of([] { (void)parse_attention_json("[[[-1e400]]]"); }).code() == ErrorCode::kBadFile);
}

TEST_CASE("parse_tokens: a JSON list of strings or one token per line", "[import]") {
    using attn::io::parse_tokens;
    using V = std::vector<std::string>;
    CHECK(parse_tokens(R"(["<|endoftext|>", " the", "\n"])") == V{"<|endoftext|>", " the", "\n"});
    CHECK(parse_tokens("  \n[]") == V{});
    CHECK(parse_tokens("a\nb\n") == V{"a", "b"});
    CHECK(parse_tokens("a\r\nb\r\n c") == V{"a", "b", " c"});
    CHECK(parse_tokens("a\n\nb") == V{"a", "", "b"});
    CHECK(parse_tokens("[CLS]\nhello\n[SEP]\n") == V{"[CLS]", "hello", "[SEP]"});  // not JSON: lines
    CHECK(parse_tokens("\xEF\xBB\xBF[\"x\"]") == V{"x"});
    CHECK(parse_tokens("") == V{});
    CHECK(parse_tokens("42\n") == V{"42"});
    CHECK(error_of([] { (void)parse_tokens("[1, 2]"); }).code() == ErrorCode::kBadFile);
    CHECK(error_of([] { (void)parse_tokens(R"({"tokens": ["a"]})"); }).field() == "tokens");
}

// -------------------------------------------------------------------------------------------
// The bundled real sets (web/data/real/README.md)
// -------------------------------------------------------------------------------------------

TEST_CASE("real sets: attention.npy holds the same float32s as attention.json", "[import][real]") {
    struct Set {
        const char* folder;
        int heads, n;  // README: [1, heads, n, n]
    };
    for (const Set& s :
         {Set{"gpt2-small_L0_nlp-sentence", 12, 33}, Set{"gpt2-small_L5H5_induction_random-repeated", 1, 40},
          Set{"gpt2-small_induction-heads_repeated-sentence", 2, 43},
          Set{"t5-small_encoder_L0_bidirectional", 8, 12}}) {
        INFO(s.folder);
        const std::string dir = std::string(ATTN_DATA_DIR) + "/real/" + s.folder + "/";
        const Bytes file = read_file(dir + "attention.npy");
        const auto h = parse(file);
        CHECK(h.dtype == DType::f32);
        CHECK(h.version_major == 1);
        CHECK(h.shape == std::vector<std::int64_t>{1, s.heads, s.n, s.n});
        REQUIRE(h.data_offset + h.data_bytes == file.size());
        const auto l = attn::io::layout_from_shape(h.shape);
        CHECK(l.layers == 1);
        CHECK(l.heads == s.heads);
        CHECK(l.n_q == s.n);
        CHECK(l.n_k == s.n);
        std::vector<float> values(h.elements);
        attn::io::to_float32(h.dtype, file.data() + h.data_offset, h.elements, values.data());

        // Straight from the JSON text with nlohmann (independent of parse_attention_json).
        const std::string text = read_text(dir + "attention.json");
        const auto doc = nlohmann::json::parse(text);
        std::size_t i = 0, same = 0;
        for (const auto& head : doc.at("attention").at(0))
            for (const auto& row : head)
                for (const auto& x : row) same += i < values.size() && bits_of(values[i++]) == bits_of(x.get<float>());
        CHECK(i == values.size());
        CHECK(same == values.size());

        const auto t = attn::io::parse_attention_json(text);
        CHECK(t.format == "attention-json");
        CHECK(t.layout.heads == s.heads);
        CHECK(t.layout.n_k == s.n);
        REQUIRE(t.data.size() == values.size());
        CHECK(std::memcmp(t.data.data(), values.data(), values.size() * sizeof(float)) == 0);
        CHECK(t.head_labels.size() == static_cast<std::size_t>(s.heads));

        const auto tokens = attn::io::parse_tokens(read_text(dir + "tokens.json"));
        CHECK(tokens.size() == static_cast<std::size_t>(s.n));
        CHECK(tokens == t.key_tokens);
        CHECK(tokens == t.query_tokens);
    }
}

TEST_CASE("real sets: the T5 raw scores are read as what they are", "[import][real]") {
    // web/data/real/NOT_PROBABILITIES_*/meta.json: shape [1, 8, 11, 11], 440 entries of -FLT_MAX,
    // max 5.1875, 11 tokens starting with "<pad>".
    const std::string dir = std::string(ATTN_DATA_DIR) + "/real/NOT_PROBABILITIES_t5-small_decoder_L0_raw-scores/";
    const Bytes file = read_file(dir + "scores.npy");
    const auto h = parse(file);
    REQUIRE(h.data_offset + h.data_bytes == file.size());
    const auto l = attn::io::layout_from_shape(h.shape);
    CHECK(l.layers == 1);
    CHECK(l.heads == 8);
    CHECK(l.n_q == 11);
    CHECK(l.n_k == 11);
    std::vector<float> v(h.elements);
    attn::io::to_float32(h.dtype, file.data() + h.data_offset, h.elements, v.data());
    int fill = 0, above = 0;
    float max = -FLT_MAX;
    for (int head = 0; head < 8; ++head)
        for (int t = 0; t < 11; ++t)
            for (int j = 0; j < 11; ++j) {
                const float x = v[(head * 11 + t) * 11 + j];
                fill += x == -FLT_MAX;
                above += j > t && x == -FLT_MAX;
                max = std::max(max, x);
            }
    CHECK(fill == 440);
    CHECK(above == 440);  // exactly the 8 * 55 cells above the diagonal
    CHECK(max == 5.1875f);
    const auto meta = nlohmann::json::parse(read_text(dir + "meta.json"));
    CHECK(meta.at("n_neg_flt_max").get<int>() == fill);
    const auto tokens = attn::io::parse_tokens(read_text(dir + "tokens.json"));
    CHECK(tokens.size() == 11);
    CHECK(tokens.front() == "<pad>");
    CHECK(tokens.back() == "</s>");
}
