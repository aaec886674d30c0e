// SIMD kernels, templated on the xsimd architecture. Included ONLY by the per-architecture
// translation units (kernels_simd_sse41.cpp, kernels_simd_avx2.cpp, kernels_simd_wasm.cpp), each
// compiled with its own target flags. Everything here has internal linkage (anonymous namespace)
// so that a function compiled with -mavx2 can never be merged with, and picked instead of, the
// same function compiled for SSE4.1 (the ODR trap of per-file target flags). The std:: templates
// that such merging could affect (sort, vector) are kept out: they live in kernels_simd_common.cpp.
//
// Algorithms (see kernels.hpp for the contracts, docs MATH.md for the conventions):
//   softmax_row   pass 1: a[j] = visible ? s[j] : -inf (sanitised copy), max and |Omega_t|; a NaN or
//                         Inf behind the mask is replaced before it can reach the max; with
//                         visible = nullptr (all visible, finite) the max and min alone (plain_max);
//                 pass 2: ONE fused pass: x = (a - max)/tau, e = exp(x), a[j] = e, Z += e,
//                         EX += e*x; float lane partials widened into double every
//                         kExpFold*U*W elements; without the clamp and the exact-zero mask when
//                         no key is masked and (max - min)/tau <= 86 (the same bits);
//                 pass 3: a *= 1/Z with the selection metrics in the same pass (scale_select:
//                         row sum, top-k for k <= kTopKFast, and the (1-delta) support's bracket
//                         around the previous row's threshold, its weights left-packed into a
//                         buffer), then the support exact among them (support_select_packed:
//                         a mass-weighted quickselect partitioning four weights at a time);
//                         larger k and short rows: a *= 1/Z, then kernels_simd_common.cpp's
//                         bit-pattern histogram (exact order only inside the boundary buckets);
//                 H = ln Z - EX/Z. Rows shorter than one vector go to the double reference. The
//                 exp runs over U = 4 vectors at once, statement by statement (exp_reduced: why).
//   bench rows    (bench_softmax, bench_softmax_entropy: all visible, finite) the same passes;
//                 pass 1 also ORs the bit patterns (a bound on every |s|: no clamp when no x can
//                 fall below kExpLo) and does the previous row's pass 3; at tau = 1, pass 2 is
//                 exp(s - k0 ln2) with k0 ln2 >= max (exp_shifted_n: no s - max to round).
//   scores_qk     W keys at a time: W dot products vectorised over d, reduced with haddp.
//   weighted_sum  vectorised over d_v (chunks of up to 4 vectors kept in registers; with 8-wide
//                 vectors blocks of 4 queries share each load of V), zero weights skipped,
//                 float partials widened into double every kWsFold keys.
// Tails never read past the end of a row: the last partial vector goes through a small local
// buffer padded with -inf (exp(-inf) is exactly 0; the shifted bench pass pads with a score of
// the row and masks the padding out of its sums) or is done in scalar code.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "attn/kernels.hpp"
#include "kernels_simd.hpp"

namespace attn::kernels::simd_impl {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
/// exp(x) is taken as 0 below this (exp(-87) = 1.6e-38, the float normal range ends at 1.2e-38).
constexpr float kExpLo = -87.0f;

inline float max_f(float a, float b) {
    return b > a ? b : a;
}  // keeps a if b is NaN

/// The few operations xsimd 8.1 lacks or does slowly on a target, on masks held as float batches
/// (all-ones / all-zeros lanes).
template <class A>
struct Ops;

#if defined(__SSE4_1__)
template <>
struct Ops<xsimd::sse4_1> {
    using B = xsimd::batch<float, xsimd::sse4_1>;
    /// All-ones lanes where visible[j] != 0 (reads exactly 4 bytes).
    static B visible(const std::uint8_t* v) {
        std::int32_t u;
        std::memcpy(&u, v, 4);
        const __m128i b = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(u));
        return _mm_castsi128_ps(_mm_cmpgt_epi32(b, _mm_setzero_si128()));
    }
    static B and_mask(B x, B m) { return _mm_and_ps(x, m); }
    static B select(B m, B a, B b) {
#if defined(__wasm_simd128__)
        return (__m128)wasm_v128_bitselect((v128_t)(__m128)a, (v128_t)(__m128)b, (v128_t)(__m128)m);
#else
        return _mm_blendv_ps(b, a, m);
#endif
    }
    /// max(acc, x); returns acc where x is NaN. WASM: pmax is one instruction, _mm_max_ps's
    /// emulation is a compare + select (docs/toolchain.md quirk 4).
    static B vmax(B acc, B x) {
#if defined(__wasm_simd128__)
        return (__m128)wasm_f32x4_pmax((v128_t)(__m128)acc, (v128_t)(__m128)x);  // acc < x ? x : acc
#else
        return _mm_max_ps(x, acc);  // second operand where either is NaN
#endif
    }
    static B vmin(B acc, B x) {
#if defined(__wasm_simd128__)
        return (__m128)wasm_f32x4_pmin((v128_t)(__m128)acc, (v128_t)(__m128)x);  // x < acc ? x : acc
#else
        return _mm_min_ps(x, acc);
#endif
    }
    static B gt(B a, B b) {
        return _mm_cmpgt_ps(a, b);
    }
    static B ge(B a, B b) {
        return _mm_cmpge_ps(a, b);
    }
    /// a & ~m, a | b on masks; the lanes' sign bits as an int (bit i = lane i).
    static B andnot(B a, B m) {
        return _mm_andnot_ps(m, a);
    }
    static B or_mask(B a, B b) {
        return _mm_or_ps(a, b);
    }
    static int movemask(B m) {
        return _mm_movemask_ps(m);
    }
    /// y * 2^k for t = k + 1.5 * 2^23 (k integer), as an integer add of k << 23 (t's low bits shifted
    /// into the exponent field) to y's bits: exact while the result is a normal float. One integer
    /// op instead of a float multiply (the float ports are the bottleneck of the exp passes).
    static B add_exponent(B y, B t) {
        const __m128i k = _mm_slli_epi32(_mm_castps_si128(t), 23);
        return _mm_castsi128_ps(_mm_add_epi32(_mm_castps_si128(y), k));
    }
    /// The lanes' bit patterns OR-ed into acc (an integer vector held as floats).
    static B or_bits(B acc, B x) {
        return _mm_or_ps(acc, x);
    }
    /// Double accumulators for float partial sums: lanes widened in registers (cheaper than a
    /// store and W scalar conversions, notably in WASM: f64x2.promote_low_f32x4).
    using D = __m128d;
    static D dzero() {
        return _mm_setzero_pd();
    }
    static void widen_add(B x, D& lo, D& hi) {
        lo = _mm_add_pd(lo, _mm_cvtps_pd(x));
        hi = _mm_add_pd(hi, _mm_cvtps_pd(_mm_movehl_ps(x, x)));
    }
    static double dsum(D lo, D hi) {
        const __m128d s = _mm_add_pd(lo, hi);
        return _mm_cvtsd_f64(s) + _mm_cvtsd_f64(_mm_unpackhi_pd(s, s));
    }
    /// The W lanes (lo, hi) rounded to float, stored unaligned.
    static void store_narrow(float* p, D lo, D hi) {
        _mm_storeu_ps(p, _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi)));
    }
};
#endif

#if defined(__AVX2__) && defined(__FMA__)
template <>
struct Ops<xsimd::fma3<xsimd::avx2>> {
    using B = xsimd::batch<float, xsimd::fma3<xsimd::avx2>>;
    /// All-ones lanes where visible[j] != 0 (reads exactly 8 bytes).
    static B visible(const std::uint8_t* v) {
        const __m128i b8 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(v));
        const __m256i b = _mm256_cvtepu8_epi32(b8);
        return _mm256_castsi256_ps(_mm256_cmpgt_epi32(b, _mm256_setzero_si256()));
    }
    static B and_mask(B x, B m) { return _mm256_and_ps(x, m); }
    static B select(B m, B a, B b) { return _mm256_blendv_ps(b, a, m); }
    static B vmax(B acc, B x) { return _mm256_max_ps(x, acc); }
    static B vmin(B acc, B x) { return _mm256_min_ps(x, acc); }
    static B gt(B a, B b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
    static B ge(B a, B b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
    static B andnot(B a, B m) { return _mm256_andnot_ps(m, a); }
    static B or_mask(B a, B b) { return _mm256_or_ps(a, b); }
    static int movemask(B m) { return _mm256_movemask_ps(m); }
    static B add_exponent(B y, B t) {
        const __m256i k = _mm256_slli_epi32(_mm256_castps_si256(t), 23);
        return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(y), k));
    }
    static B or_bits(B acc, B x) { return _mm256_or_ps(acc, x); }
    using D = __m256d;
    static D dzero() { return _mm256_setzero_pd(); }
    static void widen_add(B x, D& lo, D& hi) {
        lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
        hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
    }
    static double dsum(D lo, D hi) {
        const __m256d s = _mm256_add_pd(lo, hi);
        const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
        return _mm_cvtsd_f64(h) + _mm_cvtsd_f64(_mm_unpackhi_pd(h, h));
    }
    static void store_narrow(float* p, D lo, D hi) {
        _mm256_storeu_ps(p, _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
    }
};
#endif

/// The exp constants: log2(e), 1.5 * 2^23, ln2 hi/lo (Cody-Waite), then the coefficients of
/// P(r), degree 4, in e^r ~ 1 + r + r^2 P(r) on [-ln2/2, ln2/2]: a Chebyshev fit of
/// (e^r - 1 - r) / r^2 (mpmath.chebyfit, rounded to float), 1.0e-8 relative error before
/// rounding, i.e. one polynomial term fewer than Cephes expf for the same float32 result.
constexpr float kExpConstants[9] = {1.44269504088896341f, 12582912.0f,    0.693359375f,
                                    -2.12194440e-4f,      1.39262842e-3f, 8.36325902e-3f,
                                    4.16665524e-2f,       1.66665763e-1f, 0.5f};

/// exp's constants as vectors, built once per pass.
template <class A>
struct ExpK {
    using B = xsimd::batch<float, A>;
    B log2e, shifter, ln2_hi, ln2_lo, p0, p1, p2, p3, p4, one;
    explicit ExpK(const float* c)
        : log2e(c[0]),
          shifter(c[1]),
          ln2_hi(c[2]),
          ln2_lo(c[3]),
          p0(c[4]),
          p1(c[5]),
          p2(c[6]),
          p3(c[7]),
          p4(c[8]),
          one(1.0f) {}
};

/// The second half of exp for N vectors at once: e^r * 2^k from the reduced r (|r| <= ln2/2 + a
/// rounding) and t (k in its low bits: t = k + 1.5 * 2^23, or that plus a per-row integer), the
/// degree-6 polynomial 1 + r + r^2 P(r) (kExpConstants), 2^k added into the exponent bits.
/// Every statement runs over the N vectors (N independent chains interleaved, as XNNPACK writes
/// its kernels): WebAssembly keeps the order LLVM emits and V8 does not schedule, so one
/// vector's chain of ~20 dependent operations after another left the out-of-order window short
/// of independent work (1.2-1.3x slower in node than the same operations interleaved).
template <class A, int N>
inline void exp_reduced(xsimd::batch<float, A> (&r)[N], const xsimd::batch<float, A> (&t)[N], const ExpK<A>& c,
                        xsimd::batch<float, A> (&e)[N]) {
    using B = xsimd::batch<float, A>;
    B p[N], r2[N];
    for (int u = 0; u < N; ++u) p[u] = xsimd::fma(c.p0, r[u], c.p1);
    for (int u = 0; u < N; ++u) p[u] = xsimd::fma(p[u], r[u], c.p2);
    for (int u = 0; u < N; ++u) p[u] = xsimd::fma(p[u], r[u], c.p3);
    for (int u = 0; u < N; ++u) p[u] = xsimd::fma(p[u], r[u], c.p4);
    for (int u = 0; u < N; ++u) r2[u] = r[u] * r[u];
    for (int u = 0; u < N; ++u) e[u] = Ops<A>::add_exponent(xsimd::fma(p[u], r2[u], r[u]) + c.one, t[u]);
}

/// exp(x) for x in [kExpLo, 0] (callers clamp), N vectors at once. Cody-Waite reduction
/// x = k ln2 + r, |r| <= ln2/2, then exp_reduced. k is rounded by adding 1.5 * 2^23 (no
/// float-to-int conversion, which Emscripten 3.1.6 scalarises); -k = 1.5 * 2^23 - t (written so,
/// LLVM keeps one constant instead of adding -1.5 * 2^23), r = x + (-k) ln2_hi + (-k) ln2_lo, the
/// same IEEE operations as x - k ln2_hi - k ln2_lo. Max relative error against double exp,
/// measured over EVERY float in [-87, 0] with a normal result (1.12e9 values): 8.84e-8 =
/// 0.74 * 2^-23 without FMA (sse4.1, and wasm-simd128, whose f32x4 arithmetic is the same IEEE
/// operations in the same order), 8.94e-8 with FMA (avx2); mean 4.4e-9 (the 2^k add gives the
/// same bits as the float multiply by 2^k it replaced: the results are normal floats).
/// tests/cpp/test_kernels.cpp ("vector exp") re-checks every 97th float against a 2.5e-7 bound.
template <class A, int N>
inline void exp_nonpositive_n(const xsimd::batch<float, A> (&x)[N], const ExpK<A>& c, xsimd::batch<float, A> (&e)[N]) {
    using B = xsimd::batch<float, A>;
    B t[N], kn[N], r[N];
    for (int u = 0; u < N; ++u) t[u] = xsimd::fma(x[u], c.log2e, c.shifter);
    for (int u = 0; u < N; ++u) kn[u] = c.shifter - t[u];                  // -round(x / ln 2), exact
    for (int u = 0; u < N; ++u) r[u] = xsimd::fma(kn[u], c.ln2_hi, x[u]);  // exact: ln2_hi has 9 bits
    for (int u = 0; u < N; ++u) r[u] = xsimd::fma(kn[u], c.ln2_lo, r[u]);
    exp_reduced<A, N>(r, t, c, e);
}

template <class A>
inline xsimd::batch<float, A> exp_nonpositive(xsimd::batch<float, A> x, const ExpK<A>& c) {
    xsimd::batch<float, A> in[1] = {x}, out[1];
    exp_nonpositive_n<A, 1>(in, c, out);
    return out[0];
}

/// exp(s - k0 ln2) straight from the scores s, N vectors at once, for an integer k0 with
/// |k0| <= 128 (bench rows at tau = 1: k0 ln2 >= the row max stands for it; the shift cancels in
/// the softmax). m_shift = 1.5 * 2^23 - k0. The reduction s = K ln2 + r, K = round(s / ln2),
/// needs no s - max: s - K ln2_hi is exact (K ln2_hi has <= 17 bits; for K != 0 the difference is
/// below 0.5 and a multiple of ulp(s) >= 2^-25, for K = 0 it is s), so the only errors before the
/// polynomial are K ln2_lo's rounding and ln2_lo's own (< 6e-9 together for |K| <= 254): the
/// rounding of x = s - max (up to half an ulp of x, a relative error of 2.4e-7 in exp(x) at
/// x = -8) is gone. The caller keeps s >= (k0 - 125) ln2, so that the exponent field stays normal.
/// Measured (every 97th float x in [-87, 0] as s = float(x + k0 ln2), k0 in {-3, 10, 128}, against
/// double exp(s - k0 ln2)): max relative error 8.4e-8 - 8.7e-8.
template <class A, int N>
inline void exp_shifted_n(const xsimd::batch<float, A> (&s)[N], xsimd::batch<float, A> m_shift, const ExpK<A>& c,
                          xsimd::batch<float, A> (&e)[N]) {
    using B = xsimd::batch<float, A>;
    B t[N], kn[N], r[N];
    for (int u = 0; u < N; ++u) t[u] = xsimd::fma(s[u], c.log2e, m_shift);  // K - k0 + 1.5 * 2^23
    for (int u = 0; u < N; ++u) kn[u] = m_shift - t[u];                     // -K, exact
    for (int u = 0; u < N; ++u) r[u] = xsimd::fma(kn[u], c.ln2_hi, s[u]);   // exact
    for (int u = 0; u < N; ++u) r[u] = xsimd::fma(kn[u], c.ln2_lo, r[u]);
    exp_reduced<A, N>(r, t, c, e);
}

template <class A>
constexpr int width() {
    return static_cast<int>(xsimd::batch<float, A>::size);
}

/// Sum of a batch's lanes in double.
template <class A>
inline double lanes_sum(xsimd::batch<float, A> v) {
    constexpr int W = width<A>();
    alignas(64) float lanes[W];
    v.store_aligned(lanes);
    double s = 0.0;
    for (int i = 0; i < W; ++i) s += lanes[i];
    return s;
}

template <class A>
inline float lanes_max(xsimd::batch<float, A> v) {
    constexpr int W = width<A>();
    alignas(64) float lanes[W];
    v.store_aligned(lanes);
    float m = lanes[0];
    for (int i = 1; i < W; ++i) m = max_f(m, lanes[i]);
    return m;
}

constexpr int U = 4;  // vectors per unrolled iteration (interleaved exp chains)

// ---------------------------------------------------------------------------------------------
// softmax passes

/// Max over s[0..n), all visible (bench path), n >= 1, and a bound on every |s|: the OR of the
/// lanes' bit patterns (an integer op beside the max) has an exponent field >= every element's, so
/// |s| < 2^(field - 126); field 255 means an Inf or NaN somewhere. With kScale, the same loop also
/// does the previous row's pass 3, prev[0..n) *= inv (bench rows: two light passes over two rows
/// in one, the loads and stores of one overlap the max of the other).
template <class A, bool kScale = false>
float row_max(const float* s, int n, double& abs_bound, float* prev = nullptr, float inv = 1.0f) {
    using B = xsimd::batch<float, A>;
    using O = Ops<A>;
    constexpr int W = width<A>();
    B m0(-kInf), m1(-kInf), m2(-kInf), m3(-kInf), o0(0.0f), o1(0.0f);
    const B vi(inv);
    int j = 0;
    for (; j + U * W <= n; j += U * W) {
        const B a = B::load_unaligned(s + j), b = B::load_unaligned(s + j + W);
        const B c = B::load_unaligned(s + j + 2 * W), d = B::load_unaligned(s + j + 3 * W);
        m0 = O::vmax(m0, a);
        m1 = O::vmax(m1, b);
        m2 = O::vmax(m2, c);
        m3 = O::vmax(m3, d);
        o0 = O::or_bits(o0, O::or_bits(a, b));
        o1 = O::or_bits(o1, O::or_bits(c, d));
        if constexpr (kScale)
            for (int u = 0; u < U; ++u) (B::load_unaligned(prev + j + u * W) * vi).store_unaligned(prev + j + u * W);
    }
    for (; j + W <= n; j += W) {
        const B a = B::load_unaligned(s + j);
        m0 = O::vmax(m0, a);
        o0 = O::or_bits(o0, a);
        if constexpr (kScale) (B::load_unaligned(prev + j) * vi).store_unaligned(prev + j);
    }
    float m = lanes_max<A>(O::vmax(O::vmax(m0, m1), O::vmax(m2, m3)));
    alignas(64) float lanes[W];
    O::or_bits(o0, o1).store_aligned(lanes);
    std::uint32_t bits = 0;
    for (int i = 0; i < W; ++i) {
        std::uint32_t u;
        std::memcpy(&u, lanes + i, 4);
        bits |= u;
    }
    for (; j < n; ++j) {
        m = max_f(m, s[j]);
        std::uint32_t u;
        std::memcpy(&u, s + j, 4);
        bits |= u;
        if constexpr (kScale) prev[j] *= inv;
    }
    const int field = static_cast<int>((bits >> 23) & 0xffu);
    abs_bound = field == 0xff ? static_cast<double>(kInf) : std::ldexp(1.0, field - 126);
    return m;
}

/// Pass 1 of softmax_row: a[j] = visible[j] ? s[j] : -inf; returns the max over the visible keys
/// and their number (a -inf score is not visible). The mask is applied before the max, so a NaN
/// or Inf behind it never reaches the max.
template <class A>
float sanitize_max(const float* s, const std::uint8_t* visible, int n, float* a, int& count) {
    using B = xsimd::batch<float, A>;
    using O = Ops<A>;
    constexpr int W = width<A>();
    const B ninf(-kInf), one(1.0f);
    B m0(-kInf), m1(-kInf), c0(0.0f), c1(0.0f);
    int j = 0;
    for (; j + 2 * W <= n; j += 2 * W) {
        const B x0 = O::select(O::visible(visible + j), B::load_unaligned(s + j), ninf);
        const B x1 = O::select(O::visible(visible + j + W), B::load_unaligned(s + j + W), ninf);
        x0.store_unaligned(a + j);
        x1.store_unaligned(a + j + W);
        m0 = O::vmax(m0, x0);
        m1 = O::vmax(m1, x1);
        c0 += O::and_mask(one, O::gt(x0, ninf));
        c1 += O::and_mask(one, O::gt(x1, ninf));
    }
    for (; j + W <= n; j += W) {
        const B x0 = O::select(O::visible(visible + j), B::load_unaligned(s + j), ninf);
        x0.store_unaligned(a + j);
        m0 = O::vmax(m0, x0);
        c0 += O::and_mask(one, O::gt(x0, ninf));
    }
    float m = lanes_max<A>(O::vmax(m0, m1));
    int cnt = static_cast<int>(lanes_sum<A>(c0 + c1));  // lanes hold integers < 2^24: exact
    for (; j < n; ++j) {
        const float x = visible[j] ? s[j] : -kInf;
        a[j] = x;
        if (x > -kInf) {
            ++cnt;
            m = max_f(m, x);
        }
    }
    count = cnt;
    return m;
}

/// Pass 1 of softmax_row when every key is visible and every score finite (visible == nullptr):
/// the max of s[0..n) and, in mn, its min (whether the exp pass may skip its clamp); nothing
/// written (the exp pass reads s itself).
template <class A>
float plain_max(const float* s, int n, float& mn) {
    using B = xsimd::batch<float, A>;
    using O = Ops<A>;
    constexpr int W = width<A>();
    B m0(-kInf), m1(-kInf), l0(kInf), l1(kInf);
    int j = 0;
    for (; j + 2 * W <= n; j += 2 * W) {
        const B a = B::load_unaligned(s + j), b = B::load_unaligned(s + j + W);
        m0 = O::vmax(m0, a);
        m1 = O::vmax(m1, b);
        l0 = O::vmin(l0, a);
        l1 = O::vmin(l1, b);
    }
    for (; j + W <= n; j += W) {
        const B a = B::load_unaligned(s + j);
        m0 = O::vmax(m0, a);
        l0 = O::vmin(l0, a);
    }
    float m = lanes_max<A>(O::vmax(m0, m1));
    float lo = -lanes_max<A>(-O::vmin(l0, l1));
    for (; j < n; ++j) {
        m = max_f(m, s[j]);
        lo = s[j] < lo ? s[j] : lo;
    }
    mn = lo;
    return m;
}

struct ExpSums {
    double z = 0.0;   ///< sum e_j
    double ex = 0.0;  ///< sum e_j x_j (<= 0)
};

/// Where the fused pass may skip work (results are the same bits either way).
/// (The multiply by 1/tau is skipped at tau = 1: x * 1 = x.)
struct ExpPassOpts {
    bool clamp = true;  ///< clamp x at kExpLo (false: the caller knows every x >= kExpLo)
};

/// One step of the fused pass on N vectors at once (interleaved, see exp_reduced): e = exp(x)
/// (0 below kExpLo, so exactly 0 for the -inf of a masked key), stored to dst;
/// z += e, ex += e * x for each in turn (x clamped: 0 * finite, never 0 * inf).
template <class A, int N, bool kEntropy, bool kExactZero, bool kScale, bool kClamp>
inline void exp_step(const float* src, float* dst, xsimd::batch<float, A> vm, xsimd::batch<float, A> vit,
                     xsimd::batch<float, A> lo, const ExpK<A>& c, xsimd::batch<float, A>& z,
                     xsimd::batch<float, A>& ex) {
    using B = xsimd::batch<float, A>;
    using O = Ops<A>;
    constexpr int W = width<A>();
    B x[N], xc[N], e[N];
    for (int u = 0; u < N; ++u) {
        x[u] = B::load_unaligned(src + u * W) - vm;
        if constexpr (kScale) x[u] = x[u] * vit;
        xc[u] = kClamp ? O::vmax(lo, x[u]) : x[u];  // in [kExpLo, 0]; lo where x is NaN
    }
    exp_nonpositive_n<A, N>(xc, c, e);
    for (int u = 0; u < N; ++u) {
        // Masked keys (-inf) must give exactly 0. Without masks (bench rows, finite scores) a key
        // below kExpLo keeps exp(kExpLo) = 1.6e-38 instead of its true, even smaller, value.
        if constexpr (kExactZero) e[u] = O::and_mask(e[u], O::ge(x[u], lo));
        e[u].store_unaligned(dst + u * W);
        z += e[u];
        if constexpr (kEntropy) ex = xsimd::fma(e[u], xc[u], ex);
    }
}

/// Pass 2: dst[j] = exp((src[j] - m) * itau) and the sums Z, sum(e x). src may equal dst.
/// Float partials: one accumulator each for Z and sum(e x) (every lane adds U terms per
/// iteration, kExpFold iterations), then widened into double vector accumulators. (A plain float
/// running sum over 4096 keys misses the 1e-6 entropy target; this stays within ~8 float ulps per
/// fold of kExpFold * U * W elements, and the folds add up in double.) One accumulator, not U:
/// with U of each V8 ran out of vector registers and spilled them in the loop.
constexpr int kExpFold = 2;
template <class A, bool kEntropy, bool kExactZero, bool kScale, bool kClamp>
ExpSums exp_pass_impl(const float* src, float* dst, int n, float m, float itau) {
    using B = xsimd::batch<float, A>;
    constexpr int W = width<A>();
    const B vm(m), vit(itau), zero(0.0f), lo(kExpLo);
    const ExpK<A> c(kExpConstants);
    using O = Ops<A>;
    B z = zero, e = zero;
    typename O::D zlo = O::dzero(), zhi = O::dzero(), elo = O::dzero(), ehi = O::dzero();
    auto fold = [&]() {
        O::widen_add(z, zlo, zhi);
        z = zero;
        if constexpr (kEntropy) {
            O::widen_add(e, elo, ehi);
            e = zero;
        }
    };
    int j = 0, iters = 0;
    for (; j + U * W <= n; j += U * W) {
        exp_step<A, U, kEntropy, kExactZero, kScale, kClamp>(src + j, dst + j, vm, vit, lo, c, z, e);
        if (++iters == kExpFold) {
            fold();
            iters = 0;
        }
    }
    // At most U - 1 whole vectors, then the tail through a padded buffer.
    for (; j + W <= n; j += W)
        exp_step<A, 1, kEntropy, kExactZero, kScale, kClamp>(src + j, dst + j, vm, vit, lo, c, z, e);
    if (j < n) {
        alignas(64) float buf[W];
        for (int i = 0; i < W; ++i) buf[i] = i < n - j ? src[j + i] : -kInf;
        // -inf padding -> exactly 0
        exp_step<A, 1, kEntropy, true, kScale, true>(buf, buf, vm, vit, lo, c, z, e);
        for (int i = 0; i < n - j; ++i) dst[j + i] = buf[i];
    }
    fold();
    ExpSums out;
    out.z = O::dsum(zlo, zhi);
    if constexpr (kEntropy) out.ex = O::dsum(elo, ehi);
    return out;
}

template <class A, bool kEntropy, bool kExactZero>
ExpSums exp_pass(const float* src, float* dst, int n, float m, float itau, ExpPassOpts opt = {}) {
    if constexpr (kExactZero) {  // masked rows: -inf keys need the clamp
        return exp_pass_impl<A, kEntropy, true, true, true>(src, dst, n, m, itau);
    } else {
        const bool scale = itau != 1.0f;
        if (scale && opt.clamp) return exp_pass_impl<A, kEntropy, false, true, true>(src, dst, n, m, itau);
        if (scale) return exp_pass_impl<A, kEntropy, false, true, false>(src, dst, n, m, itau);
        if (opt.clamp) return exp_pass_impl<A, kEntropy, false, false, true>(src, dst, n, m, itau);
        return exp_pass_impl<A, kEntropy, false, false, false>(src, dst, n, m, itau);
    }
}

/// The bench rows' pass 2 at tau = 1 (every score finite): dst[j] = exp(src[j] - k0 ln2)
/// (exp_shifted_n), Z and, with kEntropy, sum e (s - m_f) for m_f = float(k0 ln2) (the caller adds
/// back k0 ln2 - m_f). With kClamp, s is clamped at lo = (k0 - 125) ln2 (a key below keeps
/// exp(lo - k0 ln2) ~ 2^-125 for its true, smaller, value, as exp_pass does at kExpLo). The
/// float partials as exp_pass's.
template <class A, bool kEntropy, bool kClamp>
ExpSums exp_pass_shifted(const float* src, float* dst, int n, float k0, float m_f, float lo_s) {
    using B = xsimd::batch<float, A>;
    using O = Ops<A>;
    constexpr int W = width<A>();
    const ExpK<A> c(kExpConstants);
    const B ms = c.shifter - B(k0), lo(lo_s), vm(m_f), zero(0.0f);
    B z = zero, ex = zero;
    typename O::D zlo = O::dzero(), zhi = O::dzero(), elo = O::dzero(), ehi = O::dzero();
    auto fold = [&]() {
        O::widen_add(z, zlo, zhi);
        z = zero;
        if constexpr (kEntropy) {
            O::widen_add(ex, elo, ehi);
            ex = zero;
        }
    };
    // N vectors from p to d; lanes where keep is 0 (the tail's padding) are left out of the sums.
    auto step = [&](auto n_tag, const float* p, float* d, B keep) {
        constexpr int NV = decltype(n_tag)::value;
        B s[NV], e[NV];
        for (int u = 0; u < NV; ++u) {
            s[u] = B::load_unaligned(p + u * W);
            if constexpr (kClamp) s[u] = O::vmax(lo, s[u]);
        }
        exp_shifted_n<A, NV>(s, ms, c, e);
        for (int u = 0; u < NV; ++u) {
            e[u].store_unaligned(d + u * W);
            const B ek = NV == 1 ? O::and_mask(e[u], keep) : e[u];
            z += ek;
            if constexpr (kEntropy) ex = xsimd::fma(ek, s[u] - vm, ex);
        }
    };
    const B all = O::ge(zero, zero);
    int j = 0, iters = 0;
    for (; j + U * W <= n; j += U * W) {
        step(std::integral_constant<int, U>{}, src + j, dst + j, all);
        if (++iters == kExpFold) {
            fold();
            iters = 0;
        }
    }
    for (; j + W <= n; j += W) step(std::integral_constant<int, 1>{}, src + j, dst + j, all);
    if (j < n) {
        alignas(64) float buf[W], keep[W];
        for (int i = 0; i < W; ++i) {
            buf[i] = i < n - j ? src[j + i] : src[j];  // a score of the row: no NaN from the padding
            keep[i] = i < n - j ? 1.0f : 0.0f;
        }
        step(std::integral_constant<int, 1>{}, buf, buf, O::gt(B::load_aligned(keep), zero));
        for (int i = 0; i < n - j; ++i) dst[j + i] = buf[i];
    }
    fold();
    ExpSums out;
    out.z = O::dsum(zlo, zhi);
    if constexpr (kEntropy) out.ex = O::dsum(elo, ehi);
    return out;
}

/// Pass 3: a[0..n) *= inv.
template <class A>
void scale_pass(float* a, int n, float inv) {
    using B = xsimd::batch<float, A>;
    constexpr int W = width<A>();
    const B vi(inv);
    int j = 0;
    for (; j + 2 * W <= n; j += 2 * W) {
        (B::load_unaligned(a + j) * vi).store_unaligned(a + j);
        (B::load_unaligned(a + j + W) * vi).store_unaligned(a + j + W);
    }
    for (; j + W <= n; j += W) (B::load_unaligned(a + j) * vi).store_unaligned(a + j);
    for (; j < n; ++j) a[j] *= inv;
}

// ---------------------------------------------------------------------------------------------
// the selection metrics, fused into the scale pass

/// Top-k masses up to this k are kept in a small sorted array during the scale pass; larger k go
/// to the histogram of kernels_simd_common.cpp.
constexpr int kTopKFast = 8;
/// Rows shorter than this go to the histogram too (nothing to gain from a bracket).
constexpr int kSelectMinKeys = 32;
/// Vectors between folds of the float partial sums into double (each lane adds this many terms:
/// a relative error of at most 4 float ulps per fold).
constexpr int kSelectFold = 4;

/// Keeps the k largest values seen, descending (k <= kTopKFast).
struct TopK {
    float best[kTopKFast];
    int nb = 0, k = 1;
    /// Lanes must exceed this to enter (-1 while fewer than k values are held: weights are >= 0).
    float floor() const { return nb < k ? -1.0f : best[k - 1]; }
    void insert(float x) {
        if (nb == k && !(x > best[k - 1])) return;
        int p = nb < k ? nb++ : k - 1;
        while (p > 0 && best[p - 1] < x) {
            best[p] = best[p - 1];
            --p;
        }
        best[p] = x;
    }
    double sum() const {
        double s = 0.0;
        for (int i = 0; i < nb; ++i) s += best[i];
        return s;
    }
};

/// Shuffle patterns that move the lanes set in a 4-bit mask to the front (in lane order), and the
/// number of lanes set: the left-pack of a vectorised partition (_mm_shuffle_epi8 is SSSE3, and
/// i8x16.swizzle in WebAssembly).
struct LeftPack {
    alignas(16) std::uint8_t shuffle[16][16];
    std::uint8_t count[16];
    constexpr LeftPack() : shuffle{}, count{} {
        for (int m = 0; m < 16; ++m) {
            int k = 0;
            for (int lane = 0; lane < 4; ++lane)
                if (m >> lane & 1) {
                    for (int b = 0; b < 4; ++b) shuffle[m][4 * k + b] = static_cast<std::uint8_t>(4 * lane + b);
                    ++k;
                }
            for (int b = 4 * k; b < 16; ++b) shuffle[m][b] = 0x80;  // zero (never read)
            count[m] = static_cast<std::uint8_t>(k);
        }
    }
};
inline constexpr LeftPack kLeftPack{};

/// Stores the lanes of x set in `mask` (movemask bits) at dst, in lane order, and returns how
/// many: the compaction of a vector without a loop over its set bits (whose data-dependent
/// branches and stores V8 compiles poorly). Writes W floats at dst whatever the mask: dst must
/// have room for W even when fewer are kept.
template <class A>
inline int left_pack(float* dst, xsimd::batch<float, A> x, int mask) {
    constexpr int W = width<A>();
    const auto pack4 = [](float* d, __m128 v, int m4) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d),
                         _mm_shuffle_epi8(_mm_castps_si128(v),
                                          _mm_load_si128(reinterpret_cast<const __m128i*>(kLeftPack.shuffle[m4]))));
        return static_cast<int>(kLeftPack.count[m4]);
    };
    if constexpr (W == 4) {
        return pack4(dst, static_cast<__m128>(x), mask);
    } else {
#if defined(__AVX2__)
        static_assert(W == 8, "left_pack: 4 or 8 lanes");
        const __m256 v = static_cast<__m256>(x);
        const int c = pack4(dst, _mm256_castps256_ps128(v), mask & 15);
        return c + pack4(dst + c, _mm256_extractf128_ps(v, 1), mask >> 4);
#else
        static_assert(W == 4, "left_pack: 8 lanes need AVX2");
        return 0;
#endif
    }
}

/// Fewest of the weights b[0..m) (all > 0, any order) whose sum, largest first, reaches need > 0,
/// or -1 if they never do; `last` receives the smallest weight taken; reorders b. The exact
/// selection among the candidates of scale_select's bracket. It is support_size of
/// kernels_simd_common.cpp (the histogram path's) with its partition vectorised, four weights at a
/// time: the same mass-weighted quickselect (median-of-three pivot, three-way partition, the
/// larger part first, a rank sort of the last 16), so the same count and `last`, except that the
/// mass above a pivot is summed in another order (double, two lanes per accumulator: a last-bit
/// difference, inside the caller's 1e-12 slack on the need). The scalar partition was ~3.5x
/// slower in WebAssembly than natively (V8's code for its data-dependent stores); this one is the
/// same code in the sse4.1, avx2 and wasm-simd128 sets. b[0..m): weights > 0, reordered.
int support_select_packed(float* b, int m, double need, float& last) {
    if (!(need > 0.0)) return 0;
    float* const t = detail::select_scratch(m + 4);
    double cum = 0.0;
    int taken = 0, lo = 0, hi = m;
    while (hi - lo > 16) {
        const float x0 = b[lo], x1 = b[lo + (hi - lo) / 2], x2 = b[hi - 1];
        const float pivot = std::max(std::min(x0, x1), std::min(std::max(x0, x1), x2));
        const __m128 vp = _mm_set1_ps(pivot);
        // b[lo, lt) > pivot (in place: lt <= i, and a store at b + lt reaches at most the vector
        // just loaded), t[0, nb) < pivot, the rest == pivot.
        int lt = lo, nb = 0;
        __m128d s0 = _mm_setzero_pd(), s1 = _mm_setzero_pd();
        int i = lo;
        for (; i + 4 <= hi; i += 4) {
            const __m128 x = _mm_loadu_ps(b + i);
            const __m128 gt = _mm_cmpgt_ps(x, vp);
            const int mg = _mm_movemask_ps(gt), ml = _mm_movemask_ps(_mm_cmplt_ps(x, vp));
            const __m128i xi = _mm_castps_si128(x);
            _mm_storeu_si128(
                reinterpret_cast<__m128i*>(b + lt),
                _mm_shuffle_epi8(xi, _mm_load_si128(reinterpret_cast<const __m128i*>(kLeftPack.shuffle[mg]))));
            _mm_storeu_si128(
                reinterpret_cast<__m128i*>(t + nb),
                _mm_shuffle_epi8(xi, _mm_load_si128(reinterpret_cast<const __m128i*>(kLeftPack.shuffle[ml]))));
            lt += kLeftPack.count[mg];
            nb += kLeftPack.count[ml];
            const __m128 xg = _mm_and_ps(x, gt);
            s0 = _mm_add_pd(s0, _mm_cvtps_pd(xg));
            s1 = _mm_add_pd(s1, _mm_cvtps_pd(_mm_movehl_ps(xg, xg)));
        }
        alignas(16) double part[4];
        _mm_store_pd(part, s0);
        _mm_store_pd(part + 2, s1);
        double sum_gt = (part[0] + part[1]) + (part[2] + part[3]);
        for (; i < hi; ++i) {
            const float x = b[i];
            if (x > pivot) {
                b[lt++] = x;
                sum_gt += x;
            } else if (x < pivot) {
                t[nb++] = x;
            }
        }
        const int gt_end = hi - nb;  // [lt, gt_end): the weights equal to the pivot
        if (cum + sum_gt >= need) {  // the answer is inside the larger part
            hi = lt;
            continue;
        }
        cum += sum_gt;
        taken += lt - lo;
        for (int e = lt; e < gt_end; ++e) {
            cum += pivot;
            ++taken;
            if (cum >= need) {
                last = pivot;
                return taken;
            }
        }
        std::memcpy(b + gt_end, t, static_cast<std::size_t>(nb) * sizeof(float));
        lo = gt_end;
    }
    return detail::select_tail(b + lo, hi - lo, cum, taken, need, last);
}

/// Copies the weights lo < a[j] < hi of a[0..n) into buf, in index order; returns how many.
template <class A>
int compact_between(const float* a, int n, float lo, float hi, float* buf) {
    using B = xsimd::batch<float, A>;
    using O = Ops<A>;
    constexpr int W = width<A>();
    const B vlo(lo), vhi(hi);
    int c = 0, j = 0;
    for (; j + W <= n; j += W) {
        const B x = B::load_unaligned(a + j);
        c += left_pack<A>(buf + c, x, O::movemask(O::andnot(O::gt(x, vlo), O::ge(x, vhi))));  // c <= j
    }
    for (; j < n; ++j)
        if (a[j] > lo && a[j] < hi) buf[c++] = a[j];
    return c;
}

/// One more look for v* in the bracket (tl, th) of a[0..n): count and mass of a >= th, the
/// weights inside compacted into buf (returns how many).
template <class A>
int bracket_pass(const float* a, int n, float tl, float th, float* buf, double& mass_hi, int& count_hi) {
    using B = xsimd::batch<float, A>;
    using O = Ops<A>;
    constexpr int W = width<A>();
    const B vth(th), vtl(tl), one(1.0f);
    B ch(0.0f);
    typename O::D hlo = O::dzero(), hhi = O::dzero();
    int nc = 0, j = 0;
    for (; j + W <= n; j += W) {
        const B x = B::load_unaligned(a + j);
        const B hi = O::ge(x, vth);
        O::widen_add(O::and_mask(x, hi), hlo, hhi);
        ch += O::and_mask(one, hi);
        nc += left_pack<A>(buf + nc, x, O::movemask(O::andnot(O::gt(x, vtl), hi)));  // nc <= j
    }
    mass_hi = O::dsum(hlo, hhi);
    count_hi = static_cast<int>(lanes_sum<A>(ch));
    for (; j < n; ++j) {
        if (a[j] >= th) {
            mass_hi += a[j];
            ++count_hi;
        } else if (a[j] > tl) {
            buf[nc++] = a[j];
        }
    }
    return nc;
}

/// Pass 3 with every selection metric: a[0..n) *= inv (inv = 1/Z), and in the same pass the row sum, the top-k mass (k
/// <= kTopKFast) and the (1-delta) support's bracket: the count and mass of the weights at or above the bracket and the
/// weights inside it, compacted. The support is then exact: an exact selection (support_select_packed) among the
/// bracketed weights, or, when v* fell outside the bracket, among the weights on its side (a
/// second pass). O(n), no sort, no histogram, no allocation. count = |Omega_t| >= 1.
template <class A>
void scale_select(float* a, int n, float inv, int count, const RowParams& rp, RowMetrics& m) {
    using B = xsimd::batch<float, A>;
    using O = Ops<A>;
    constexpr int W = width<A>();
    detail::SupportHint& hint = detail::support_hint();
    TopK top;
    top.k = rp.top_k < count ? rp.top_k : count;
    const float mean = 1.0f / static_cast<float>(count);
    const float th = hint.ratio > 0.0f ? mean * hint.ratio * hint.width : kInf;  // a >= th: in
    const float tl = hint.ratio > 0.0f ? mean * hint.ratio / hint.width : kInf;  // tl < a < th: bracket
    float* buf = detail::select_buffer(n);
    int nc = 0;

    const B vinv(inv), vth(th), vtl(tl), zero(0.0f), one(1.0f);
    B thr(-1.0f), rs = zero, ch = zero;
    typename O::D rlo = O::dzero(), rhi = O::dzero(), hlo = O::dzero(), hhi = O::dzero();
    int j = 0, since = 0;
    for (; j + W <= n; j += W) {
        const B x = B::load_unaligned(a + j) * vinv;
        x.store_unaligned(a + j);
        rs += x;
        const B hi = O::ge(x, vth);
        O::widen_add(O::and_mask(x, hi), hlo, hhi);  // in double: see the slack below
        ch += O::and_mask(one, hi);
        // The bracket's weights in index order (nc <= j: room for W at buf + nc).
        nc += left_pack<A>(buf + nc, x, O::movemask(O::andnot(O::gt(x, vtl), hi)));
        if (int bup = O::movemask(O::gt(x, thr))) {
            while (bup) {
                const int i = __builtin_ctz(static_cast<unsigned>(bup));
                top.insert(a[j + i]);
                bup &= bup - 1;
            }
            thr = B(top.floor());
        }
        if (++since == kSelectFold) {
            O::widen_add(rs, rlo, rhi);
            rs = zero;
            since = 0;
        }
    }
    O::widen_add(rs, rlo, rhi);
    double row_sum = O::dsum(rlo, rhi), mass_hi = O::dsum(hlo, hhi);
    int count_hi = static_cast<int>(lanes_sum<A>(ch));  // lanes hold integers < 2^24: exact
    for (; j < n; ++j) {
        const float x = a[j] * inv;
        a[j] = x;
        row_sum += x;
        if (x >= th) {
            mass_hi += x;
            ++count_hi;
        } else if (x > tl) {
            buf[nc++] = x;
        }
        top.insert(x);
    }
    double sink = 0.0;
    const int sink_end = rp.sink_keys < n ? rp.sink_keys : n;
    for (int i = 0; i < sink_end; ++i) sink += a[i];
    m.row_sum = row_sum;
    m.sink_mass = sink;
    m.top_k_mass = top.sum();

    // The reference's relative slack (row_select.hpp): a tie with the need (a uniform row of 10
    // keys at delta 0.1) is then decided alike whichever path below sums the masses, in whatever
    // order (double sums of <= 2^17 weights differ by far less than 1e-12 of the need).
    const double need = (1.0 - rp.delta) * row_sum * (1.0 - 1e-12);
    if (!(need > 0.0)) {
        m.support = 0;
        return;
    }
    double mass_in = 0.0;
    for (int i = 0; i < nc; ++i) mass_in += buf[i];
    float last = 0.0f;
    int t = -1, base = 0;
    const bool in_bracket = mass_hi < need && mass_hi + mass_in >= need;
    if (in_bracket) {  // v* is in the bracket
        t = support_select_packed(buf, nc, need - mass_hi, last);
        base = count_hi;
        hint.width = hint.width * 0.9f > 1.02f ? hint.width * 0.9f : 1.02f;
    }
    if (t < 0 && !in_bracket && hint.ratio > 0.0f) {
        // A miss: look again on v*'s side in brackets 4 times wider each time (rows of one head
        // drift slowly), at most 4 more passes.
        float lo_b = tl, hi_b = th;
        const bool up = mass_hi >= need;
        for (int tries = 0; tries < 4 && t < 0; ++tries) {
            if (up) {
                lo_b = std::nextafter(hi_b, 0.0f);  // a > lo_b: a >= the old th
                hi_b = hi_b * 16.0f;
            } else {
                hi_b = std::nextafter(lo_b, kInf);
                lo_b = lo_b / 16.0f;
            }
            double mh = 0.0;
            int chi = 0;
            nc = bracket_pass<A>(a, n, lo_b, hi_b, buf, mh, chi);
            double mi = 0.0;
            for (int i = 0; i < nc; ++i) mi += buf[i];
            if (mh < need && mh + mi >= need) {
                t = support_select_packed(buf, nc, need - mh, last);
                base = chi;
            } else if (up ? mh < need : mh + mi >= need) {
                break;  // overshot (cannot happen with exact sums; rounding): the full search
            }
        }
        hint.width = hint.width * 1.5f < 1024.0f ? hint.width * 1.5f : 1024.0f;
    }
    if (t < 0) {
        // Still not found (no hint yet, or a rounding at the bracket's edge): every weight above
        // the bound v* >= delta * sum / |Omega_t| is a candidate (fewer, larger keys could not
        // leave a mass <= delta * sum out).
        const float lo = static_cast<float>(rp.delta * row_sum / count * (1.0 - 1e-6));
        nc = compact_between<A>(a, n, lo, kInf, buf);
        t = support_select_packed(buf, nc, need, last);
        base = 0;
    }
    if (t < 0) {  // never reached (rounding, delta = 0): every visible key, as the reference
        m.support = count;
        return;
    }
    m.support = base + t;
    hint.ratio = last * static_cast<float>(count);
}

inline double entropy_from_sums(double z, double ex) {
    // H = -sum p ln p = ln Z - sum(e x)/Z; both terms are >= 0 (x <= 0), so no cancellation.
    const double h = std::log(z) - ex / z;
    return h > 0.0 ? h : 0.0;
}

template <class A>
void softmax_row(const float* s, const std::uint8_t* visible, int n, const RowParams& rp, float* a, RowMetrics& m) {
    // The double reference instead: rows shorter than one vector (nothing to vectorise; small,
    // hand-checkable rows such as MATH.md's golden examples then get double-exact metrics rather
    // than float32-accurate ones) and tau outside the float range.
    const float itau = static_cast<float>(1.0 / rp.tau);
    if (n < width<A>() || !(itau > 0.0f) || !(itau < kInf)) {
        scalar().softmax_row(s, visible, n, rp, a, m);
        return;
    }
    // Every key visible, every score finite (visible == nullptr): the max alone, and the exp pass
    // reads s (the same values sanitize_max would have copied into a, so the same bits).
    int count = n;
    float mn = -kInf;
    const float mx = visible ? sanitize_max<A>(s, visible, n, a, count) : plain_max<A>(s, n, mn);
    const float* src = visible ? a : s;
    m = RowMetrics{};
    m.visible = count;
    if (count == 0) {
        for (int j = 0; j < n; ++j) a[j] = 0.0f;
        m.set_empty();
        return;
    }
    // No key masked and every x = (s - max) / tau >= kExpLo (a margin of 1 for the float rounding
    // of s - max and of the product): the clamp and the exact-zero mask change nothing, so the
    // pass without them gives the same bits (and x * 1 = x: no multiply at tau = 1).
    const bool bounded = !visible && (static_cast<double>(mx) - mn) * itau <= -static_cast<double>(kExpLo) - 1.0;
    const ExpSums sums = !bounded       ? exp_pass<A, true, true>(src, a, n, mx, itau)
                         : itau == 1.0f ? exp_pass_impl<A, true, false, false, false>(src, a, n, mx, itau)
                                        : exp_pass_impl<A, true, false, true, false>(src, a, n, mx, itau);
    const double h = entropy_from_sums(sums.z, sums.ex);
    m.entropy = h;
    m.normalized_entropy = count > 1 ? h / std::log(static_cast<double>(count)) : 0.0;
    m.n_eff = std::exp(h);
    const float inv = static_cast<float>(1.0 / sums.z);
    // Two paths for the selection metrics (top-k mass, sink mass, row sum, support): a small k on
    // a row of at least kSelectMinKeys keys selects while it scales; otherwise the histogram pass.
    if (rp.top_k <= kTopKFast && n >= kSelectMinKeys) {
        scale_select<A>(a, n, inv, count, rp, m);
    } else {
        scale_pass<A>(a, n, inv);
        detail::row_selection_metrics(a, n, count, rp, m);
    }
    finish_row_metrics(a, n, m);
}

// ---------------------------------------------------------------------------------------------
// bench kernels (all visible, finite scores)

template <class A, bool kEntropy>
void bench_rows(const float* in, float* out, float* entropy, int rows, int n, float tau) {
    if (n <= 0 || rows <= 0) return;
    const float itau = 1.0f / tau;
    double bound = 0.0;  // > every |s| of the row
    float mx = row_max<A>(in, n, bound);
    for (int r = 0; r < rows; ++r) {
        const float* s = in + static_cast<std::size_t>(r) * n;
        float* o = out + static_cast<std::size_t>(r) * n;
        ExpSums sums;
        double h_shift = 0.0;  // added to the entropy of the shifted pass
        const double k0 = std::ceil(static_cast<double>(mx) * 1.4426950408889634);  // k0 ln2 >= max
        if (itau == 1.0f && std::fabs(k0) <= 128.0) {
            // tau = 1 (softmax alone, the TF.js comparison, and the fused kernel alike, so that
            // the two give the same weights): exp(s - k0 ln2), no s - max; unclamped when the
            // bound shows every s >= (k0 - 125) ln2.
            const double shift = k0 * 0.6931471805599453, lo = shift - 125.0 * 0.6931471805599453;
            const float m_f = static_cast<float>(shift), k0f = static_cast<float>(k0);
            h_shift = shift - static_cast<double>(m_f);
            sums = -bound >= lo ? exp_pass_shifted<A, kEntropy, false>(s, o, n, k0f, m_f, 0.0f)
                                : exp_pass_shifted<A, kEntropy, true>(s, o, n, k0f, m_f, static_cast<float>(lo));
        } else {
            // x = (s - max) / tau >= -(max + bound) / tau: no clamp needed when that is >= kExpLo
            // (a margin of 1 for the float rounding of s - max and of the product).
            ExpPassOpts opt;
            opt.clamp = !((static_cast<double>(mx) + bound) * itau <= -static_cast<double>(kExpLo) - 1.0);
            sums = exp_pass<A, kEntropy, false>(s, o, n, mx, itau, opt);
        }
        const float inv = static_cast<float>(1.0 / sums.z);
        if (r + 1 < rows)  // this row's pass 3 in the next row's pass 1
            mx = row_max<A, true>(s + n, n, bound, o, inv);
        else
            scale_pass<A>(o, n, inv);
        if constexpr (kEntropy) {
            // sum e x with x = s - m_f = (s - k0 ln2) + h_shift: H = ln Z - sum(e x)/Z + h_shift
            const double h = std::log(sums.z) - sums.ex / sums.z + h_shift;
            entropy[r] = static_cast<float>(h > 0.0 ? h : 0.0);
        }
    }
}

template <class A>
void bench_softmax_entropy(const float* in, float* out, float* entropy, int rows, int n, float tau) {
    bench_rows<A, true>(in, out, entropy, rows, n, tau);
}

template <class A>
void bench_softmax(const float* in, float* out, int rows, int n, float tau) {
    bench_rows<A, false>(in, out, nullptr, rows, n, tau);
}

template <class A>
void exp_nonpositive_array(const float* x, float* y, int n) {
    using B = xsimd::batch<float, A>;
    using O = Ops<A>;
    constexpr int W = width<A>();
    const B lo(kExpLo);
    const ExpK<A> c(kExpConstants);
    for (int j = 0; j < n; j += W) {
        alignas(64) float buf[W];
        for (int i = 0; i < W; ++i) buf[i] = j + i < n ? x[j + i] : 0.0f;
        const B v = B::load_aligned(buf);
        const B e = O::and_mask(exp_nonpositive<A>(O::vmax(lo, v), c), O::ge(v, lo));
        e.store_aligned(buf);
        for (int i = 0; i < W && j + i < n; ++i) y[j + i] = buf[i];
    }
}

// ---------------------------------------------------------------------------------------------
// scores_qk: scores = scale * Q K^T

/// Dot product of two length-d rows: vector over d, scalar tail.
template <class A>
inline float dot(const float* x, const float* y, int d) {
    using B = xsimd::batch<float, A>;
    constexpr int W = width<A>();
    B acc0(0.0f), acc1(0.0f);
    int c = 0;
    for (; c + 2 * W <= d; c += 2 * W) {
        acc0 = xsimd::fma(B::load_unaligned(x + c), B::load_unaligned(y + c), acc0);
        acc1 = xsimd::fma(B::load_unaligned(x + c + W), B::load_unaligned(y + c + W), acc1);
    }
    for (; c + W <= d; c += W) acc0 = xsimd::fma(B::load_unaligned(x + c), B::load_unaligned(y + c), acc0);
    float s = xsimd::hadd(acc0 + acc1);
    for (; c < d; ++c) s += x[c] * y[c];
    return s;
}

template <class A>
void scores_qk(const float* q, const float* k, int n_q, int n_k, int d, float scale, float* scores) {
    using B = xsimd::batch<float, A>;
    constexpr int W = width<A>();
    const B vscale(scale);
    for (int i = 0; i < n_q; ++i) {
        const float* qi = q + static_cast<std::size_t>(i) * d;
        float* si = scores + static_cast<std::size_t>(i) * n_k;
        int j = 0;
        // W keys at a time: W accumulators over d, one haddp gives the W dot products.
        for (; j + W <= n_k; j += W) {
            const float* kj = k + static_cast<std::size_t>(j) * d;
            B acc[W];
            for (int r = 0; r < W; ++r) acc[r] = B(0.0f);
            int c = 0;
            for (; c + W <= d; c += W) {
                const B qv = B::load_unaligned(qi + c);
                for (int r = 0; r < W; ++r)
                    acc[r] = xsimd::fma(qv, B::load_unaligned(kj + static_cast<std::size_t>(r) * d + c), acc[r]);
            }
            B dots = xsimd::haddp(acc);
            if (c < d) {  // d tail
                alignas(64) float tail[W];
                for (int r = 0; r < W; ++r) {
                    const float* kr = kj + static_cast<std::size_t>(r) * d;
                    float t = 0.0f;
                    for (int cc = c; cc < d; ++cc) t += qi[cc] * kr[cc];
                    tail[r] = t;
                }
                dots += B::load_aligned(tail);
            }
            (dots * vscale).store_unaligned(si + j);
        }
        for (; j < n_k; ++j) si[j] = dot<A>(qi, k + static_cast<std::size_t>(j) * d, d) * scale;
    }
}

// ---------------------------------------------------------------------------------------------
// weighted_sum: out = a v

constexpr int kWsFold = 16;  // keys between folds of the float partials into double

/// Columns [c, c + NV * W) of one output row.
template <class A, int NV>
inline void weighted_sum_chunk(const float* ai, const float* v, int n_k, int d_v, int c, float* oi) {
    using B = xsimd::batch<float, A>;
    using O = Ops<A>;
    constexpr int W = width<A>();
    B acc[NV];
    typename O::D dlo[NV], dhi[NV];
    for (int u = 0; u < NV; ++u) {
        acc[u] = B(0.0f);
        dlo[u] = dhi[u] = O::dzero();
    }
    auto fold = [&]() {
        for (int u = 0; u < NV; ++u) {
            O::widen_add(acc[u], dlo[u], dhi[u]);
            acc[u] = B(0.0f);
        }
    };
    int since = 0;
    for (int j = 0; j < n_k; ++j) {
        const float w = ai[j];
        if (w == 0.0f) continue;  // structural zeros: masked keys add nothing (not even NaN * 0)
        const B wv(w);
        const float* vj = v + static_cast<std::size_t>(j) * d_v + c;
        for (int u = 0; u < NV; ++u) acc[u] = xsimd::fma(wv, B::load_unaligned(vj + u * W), acc[u]);
        if (++since == kWsFold) {
            fold();
            since = 0;
        }
    }
    fold();
    for (int u = 0; u < NV; ++u) O::store_narrow(oi + c + u * W, dlo[u], dhi[u]);
}

/// Four queries at once, columns [c, c + NV * W): each V load feeds four rows of A (the 1-query
/// chunk streams all of V once per query, which bounds it by L2 bandwidth). A key whose weight is
/// 0 for some of the four is added only to the others, so structural zeros still add nothing.
template <class A, int NV>
inline void weighted_sum_block4(const float* a, std::size_t lda, const float* v, int n_k, int d_v, int c, float* out) {
    using B = xsimd::batch<float, A>;
    using O = Ops<A>;
    constexpr int W = width<A>();
    constexpr int Q = 4;
    B acc[Q][NV];
    typename O::D dlo[Q][NV], dhi[Q][NV];
    for (int q = 0; q < Q; ++q)
        for (int u = 0; u < NV; ++u) {
            acc[q][u] = B(0.0f);
            dlo[q][u] = dhi[q][u] = O::dzero();
        }
    auto fold = [&]() {
        for (int q = 0; q < Q; ++q)
            for (int u = 0; u < NV; ++u) {
                O::widen_add(acc[q][u], dlo[q][u], dhi[q][u]);
                acc[q][u] = B(0.0f);
            }
    };
    int since = 0;
    for (int j = 0; j < n_k; ++j) {
        const float w[Q] = {a[j], a[lda + j], a[2 * lda + j], a[3 * lda + j]};
        const bool all = w[0] != 0.0f && w[1] != 0.0f && w[2] != 0.0f && w[3] != 0.0f;
        if (!all && w[0] == 0.0f && w[1] == 0.0f && w[2] == 0.0f && w[3] == 0.0f) continue;
        const float* vj = v + static_cast<std::size_t>(j) * d_v + c;
        B vv[NV];
        for (int u = 0; u < NV; ++u) vv[u] = B::load_unaligned(vj + u * W);
        for (int q = 0; q < Q; ++q) {
            if (!all && w[q] == 0.0f) continue;
            const B wv(w[q]);
            for (int u = 0; u < NV; ++u) acc[q][u] = xsimd::fma(wv, vv[u], acc[q][u]);
        }
        if (++since == kWsFold) {
            fold();
            since = 0;
        }
    }
    fold();
    for (int q = 0; q < Q; ++q)
        for (int u = 0; u < NV; ++u)
            O::store_narrow(out + static_cast<std::size_t>(q) * d_v + c + u * W, dlo[q][u], dhi[q][u]);
}

template <class A>
void weighted_sum(const float* a, const float* v, int n_q, int n_k, int d_v, float* out) {
    constexpr int W = width<A>();
    int i = 0;
    // Blocks of four queries over the whole vectors of d_v: +50-70% with 8-wide vectors (AVX2);
    // with 4-wide ones (SSE4.1, and the same code in WASM) measured no better than row by row.
    if constexpr (W >= 8) {
        for (; i + 4 <= n_q; i += 4) {
            const float* ai = a + static_cast<std::size_t>(i) * n_k;
            float* oi = out + static_cast<std::size_t>(i) * d_v;
            int c = 0;
            for (; c + 2 * W <= d_v; c += 2 * W)
                weighted_sum_block4<A, 2>(ai, static_cast<std::size_t>(n_k), v, n_k, d_v, c, oi);
            for (; c + W <= d_v; c += W)
                weighted_sum_block4<A, 1>(ai, static_cast<std::size_t>(n_k), v, n_k, d_v, c, oi);
        }
    }
    for (int r = 0; r < n_q; ++r) {
        const float* ai = a + static_cast<std::size_t>(r) * n_k;
        float* oi = out + static_cast<std::size_t>(r) * d_v;
        int c = 0;
        if (r < i) {
            c = d_v / W * W;  // the block pass did the whole vectors of this row
        } else {
            for (; c + 4 * W <= d_v; c += 4 * W) weighted_sum_chunk<A, 4>(ai, v, n_k, d_v, c, oi);
            for (; c + W <= d_v; c += W) weighted_sum_chunk<A, 1>(ai, v, n_k, d_v, c, oi);
        }
        for (; c < d_v; ++c) {  // d_v tail: scalar, double like the reference
            double acc = 0.0;
            for (int j = 0; j < n_k; ++j) {
                const float w = ai[j];
                if (w == 0.0f) continue;
                acc += static_cast<double>(w) * v[static_cast<std::size_t>(j) * d_v + c];
            }
            oi[c] = static_cast<float>(acc);
        }
    }
}

}  // namespace
}  // namespace attn::kernels::simd_impl

/// Defines `<prefix>_set()` and `<prefix>_bench()` for architecture ARCH under the name NAME.
#define ATTN_DEFINE_SIMD_SET(prefix, ARCH, NAME)                                                                    \
    namespace attn::kernels {                                                                                       \
    const KernelSet& prefix##_set() {                                                                               \
        static const KernelSet set{NAME, &simd_impl::scores_qk<ARCH>, &simd_impl::softmax_row<ARCH>,                \
                                   &simd_impl::weighted_sum<ARCH>};                                                 \
        return set;                                                                                                 \
    }                                                                                                               \
    const RowBench& prefix##_bench() {                                                                              \
        static const RowBench bench{NAME, &simd_impl::bench_softmax_entropy<ARCH>, &simd_impl::bench_softmax<ARCH>, \
                                    &simd_impl::exp_nonpositive_array<ARCH>};                                       \
        return bench;                                                                                               \
    }                                                                                                               \
    }
