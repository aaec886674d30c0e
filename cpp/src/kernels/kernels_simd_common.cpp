// Parts of the SIMD sets compiled WITHOUT target flags (see kernels_simd.hpp): the per-row
// selection metrics (they use std:: algorithms, which must not be instantiated in a -mavx2
// translation unit) and the scalar float bench kernels.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "kernels_simd.hpp"

namespace attn::kernels {
namespace {

/// Sum of the k largest of b[0..m) (k >= 1). May reorder b.
double top_mass(float* b, int m, int k) {
    double s = 0.0;
    if (k >= m) {
        for (int i = 0; i < m; ++i) s += b[i];
        return s;
    }
    if (k <= 8) {  // one scan keeping the k largest in descending order
        float best[8];
        int nb = 0;
        for (int i = 0; i < m; ++i) {
            const float x = b[i];
            if (nb == k && !(x > best[k - 1])) continue;
            int p = nb < k ? nb++ : k - 1;
            while (p > 0 && best[p - 1] < x) {
                best[p] = best[p - 1];
                --p;
            }
            best[p] = x;
        }
        for (int i = 0; i < nb; ++i) s += best[i];
        return s;
    }
    std::nth_element(b, b + (k - 1), b + m, std::greater<float>());
    for (int i = 0; i < k; ++i) s += b[i];
    return s;
}

/// Fewest of the positive weights b[0..m) (largest first) whose sum reaches `need`; `count` if
/// they never do (the reference then also takes the zero weights). Mass-weighted quickselect with
/// a three-way partition (ties, e.g. a uniform row, end in one pass). Overwrites b (scratch
/// afterwards). `last`, when given, receives the smallest weight taken (untouched when the sum
/// never reaches `need`). The partition is branch-free (every weight is written to both sides, the side's end moves by
/// the comparison; the smaller ones go through a thread's scratch buffer and back): with the two
/// data-dependent branches per weight of an in-place partition about half of them mispredicted
/// on these rows (callgrind --branch-sim: 20 % of the row metrics' mispredicts were here).
int support_size(float* b, int m, double need, int count, float* last = nullptr) {
    if (!(need > 0.0)) return 0;
    thread_local std::vector<float> scratch;
    if (scratch.size() < static_cast<std::size_t>(m)) scratch.resize(static_cast<std::size_t>(m));
    float* const t = scratch.data();
    double cum = 0.0;
    int taken = 0, lo = 0, hi = m;
    while (hi - lo > 16) {
        const float x0 = b[lo], x1 = b[lo + (hi - lo) / 2], x2 = b[hi - 1];
        const float pivot = std::max(std::min(x0, x1), std::min(std::max(x0, x1), x2));
        // b[lo, lt) > pivot (in place: lt <= i), t[0, nb) < pivot, the rest == pivot.
        int lt = lo, nb = 0;
        double sum0 = 0.0, sum1 = 0.0;  // the mass above the pivot, two partials
        int i = lo;
        for (; i + 1 < hi; i += 2) {
            const float xa = b[i], xb = b[i + 1];
            const bool ga = xa > pivot, gb = xb > pivot;
            b[lt] = xa;
            lt += ga;
            t[nb] = xa;
            nb += xa < pivot;
            b[lt] = xb;
            lt += gb;
            t[nb] = xb;
            nb += xb < pivot;
            sum0 += static_cast<double>(xa) * ga;  // a product, not ?: (which g++ made a branch)
            sum1 += static_cast<double>(xb) * gb;
        }
        if (i < hi) {
            const float xa = b[i];
            const bool ga = xa > pivot;
            b[lt] = xa;
            lt += ga;
            t[nb] = xa;
            nb += xa < pivot;
            sum0 += static_cast<double>(xa) * ga;  // a product, not ?: (which g++ made a branch)
        }
        const double sum_gt = sum0 + sum1;
        const int gt = hi - nb;
        if (cum + sum_gt >= need) {  // the answer is inside the larger part
            hi = lt;
            continue;
        }
        cum += sum_gt;
        taken += lt - lo;
        for (int e = lt; e < gt; ++e) {
            cum += pivot;
            ++taken;
            if (cum >= need) {
                if (last) *last = pivot;
                return taken;
            }
        }
        std::memcpy(b + gt, t, static_cast<std::size_t>(nb) * sizeof(float));
        lo = gt;
    }
    float at = 0.0f;
    const int t_end = detail::select_tail(b + lo, hi - lo, cum, taken, need, at);
    if (t_end < 0) return count;
    if (last) *last = at;
    return t_end;
}

template <bool kEntropy>
void scalar_rows(const float* in, float* out, float* entropy, int rows, int n, float tau) {
    if (n <= 0) return;
    const float itau = 1.0f / tau;
    for (int r = 0; r < rows; ++r) {
        const float* s = in + static_cast<std::size_t>(r) * n;
        float* o = out + static_cast<std::size_t>(r) * n;
        float mx = s[0];
        for (int j = 1; j < n; ++j) mx = s[j] > mx ? s[j] : mx;
        // Float partials of 16 terms folded into double (same accuracy scheme as the SIMD sets).
        double z = 0.0, ex = 0.0;
        float zf = 0.0f, exf = 0.0f;
        int since = 0;
        for (int j = 0; j < n; ++j) {
            const float x = (s[j] - mx) * itau;
            const float e = std::exp(x);
            o[j] = e;
            zf += e;
            if constexpr (kEntropy) exf += e * x;
            if (++since == 16) {
                z += zf;
                ex += exf;
                zf = exf = 0.0f;
                since = 0;
            }
        }
        z += zf;
        ex += exf;
        const float inv = static_cast<float>(1.0 / z);
        for (int j = 0; j < n; ++j) o[j] *= inv;
        if constexpr (kEntropy) {
            const double h = std::log(z) - ex / z;
            entropy[r] = static_cast<float>(h > 0.0 ? h : 0.0);
        }
    }
}

void scalar_softmax_entropy(const float* in, float* out, float* entropy, int rows, int n, float tau) {
    scalar_rows<true>(in, out, entropy, rows, n, tau);
}

void scalar_softmax(const float* in, float* out, int rows, int n, float tau) {
    scalar_rows<false>(in, out, nullptr, rows, n, tau);
}

void scalar_exp(const float* x, float* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = x[i] < -87.0f ? 0.0f : std::exp(x[i]);
}

}  // namespace

const RowBench& scalar_bench() {
    static const RowBench bench{"scalar", &scalar_softmax_entropy, &scalar_softmax, &scalar_exp};
    return bench;
}

namespace detail {

namespace {

// Histogram of the weights by their float bits: 8 exponent bits and 2 mantissa bits, so a bucket
// spans a factor 2^(1/4) and bucket order is value order (weights are >= 0). Top-k and support
// then need the exact order only inside one boundary bucket each.
constexpr int kShift = 21;
constexpr int kBuckets = 513;  // keys of [0, 2]; weights are <= 1 up to rounding

inline int bucket_of(float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    u >>= kShift;
    return u < kBuckets - 1 ? static_cast<int>(u) : kBuckets - 1;
}

struct Histogram {
    int count[kBuckets] = {};
    double mass[kBuckets] = {};
};

/// The weights of bucket b, into out; returns how many.
int gather(const float* a, int n, int b, float* out) {
    int c = 0;
    for (int j = 0; j < n; ++j) {
        out[c] = a[j];
        c += bucket_of(a[j]) == b;
    }
    return c;
}

}  // namespace

SupportHint& support_hint() {
    thread_local SupportHint hint;
    return hint;
}

float* select_buffer(int n) {
    thread_local std::vector<float> buf;
    if (buf.size() < static_cast<std::size_t>(n)) buf.resize(static_cast<std::size_t>(n));
    return buf.data();
}

float* select_scratch(int n) {
    thread_local std::vector<float> buf;
    if (buf.size() < static_cast<std::size_t>(n)) buf.resize(static_cast<std::size_t>(n));
    return buf.data();
}

int select_tail(const float* b, int r, double cum, int taken, double need, float& last) {
    float sorted[16];
    for (int i = 0; i < r; ++i) {
        const float x = b[i];
        int rank = 0;
        for (int j = 0; j < r; ++j) rank += (b[j] > x) | ((b[j] == x) & (j < i));
        sorted[rank] = x;
    }
    for (int i = 0; i < r; ++i) {
        cum += sorted[i];
        ++taken;
        if (cum >= need) {
            last = sorted[i];
            return taken;
        }
    }
    return -1;
}

void row_selection_metrics(const float* a, int n, int count, const RowParams& rp, RowMetrics& m) {
    thread_local Histogram h;  // all zero between calls (cleared below)
    thread_local std::vector<float> buf;
    if (buf.size() < static_cast<std::size_t>(n)) buf.resize(static_cast<std::size_t>(n));
    float* b = buf.data();

    double sink = 0.0;
    const int sink_end = std::min(std::max(rp.sink_keys, 0), n);
    for (int j = 0; j < sink_end; ++j) sink += a[j];

    // One pass: row sum in index order (4 partials) and the histogram.
    double r[4] = {0.0, 0.0, 0.0, 0.0};
    int kmin = kBuckets, kmax = -1;
    for (int j = 0; j < n; ++j) {
        const float x = a[j];
        r[j & 3] += x;
        const int k = bucket_of(x);
        ++h.count[k];
        h.mass[k] += x;
        kmin = std::min(kmin, k);
        kmax = std::max(kmax, k);
    }
    const double row_sum = (r[0] + r[1]) + (r[2] + r[3]);
    m.row_sum = row_sum;
    m.sink_mass = sink;

    // Top-k mass: whole buckets from the top, then the largest of the boundary bucket.
    double topk = 0.0;
    int k_left = std::min(rp.top_k, count);
    for (int k = kmax; k >= kmin && k_left > 0; --k) {
        if (h.count[k] <= k_left) {
            topk += h.mass[k];
            k_left -= h.count[k];
        } else {
            topk += top_mass(b, gather(a, n, k, b), k_left);
            k_left = 0;
        }
    }
    m.top_k_mass = topk;

    // (1-delta) support: whole buckets while they stay below the need, then the boundary bucket
    // by the mass-weighted quickselect. Never reached (rounding, delta = 0): every visible key.
    const double need = (1.0 - rp.delta) * row_sum;
    int support = 0;
    if (need > 0.0) {
        double cum = 0.0;
        int taken = 0;
        support = count;
        for (int k = kmax; k >= kmin; --k) {
            if (h.count[k] == 0) continue;
            if (cum + h.mass[k] < need) {
                cum += h.mass[k];
                taken += h.count[k];
                continue;
            }
            const int c = gather(a, n, k, b);
            const int t = support_size(b, c, need - cum, -1);
            if (t >= 0) {
                support = taken + t;
                break;
            }
            cum += h.mass[k];  // the bucket fell short by a rounding: go on
            taken += c;
        }
    }
    m.support = support;

    for (int k = kmin; k <= kmax; ++k) {
        h.count[k] = 0;
        h.mass[k] = 0.0;
    }
}

}  // namespace detail

void reset_row_hints() {
    detail::support_hint() = detail::SupportHint{};
}

}  // namespace attn::kernels
