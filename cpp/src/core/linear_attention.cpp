// Linear attention with elu+1 or ReLU random features beside softmax (linear_attention.hpp).
#include "attn/linear_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace attn {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.14159265358979323846;

}  // namespace

const char* to_string(FeatureMap f) {
    return f == FeatureMap::elu ? "elu" : "relu";
}

std::vector<double> gaussian_draws(std::uint64_t seed, std::size_t count) {
    std::mt19937_64 engine(seed);
    auto uniform = [&engine]() { return static_cast<double>(engine() >> 11) * 0x1.0p-53; };  // [0, 1)
    std::vector<double> out;
    out.reserve(count + 1);
    while (out.size() < count) {
        const double u1 = uniform(), u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(1.0 - u1));  // 1 - u1 in (0, 1]: log finite
        out.push_back(r * std::cos(2.0 * kPi * u2));
        out.push_back(r * std::sin(2.0 * kPi * u2));
    }
    out.resize(count);
    return out;
}

std::vector<double> random_feature_matrix(int m, int d, std::uint64_t seed) {
    return gaussian_draws(seed, static_cast<std::size_t>(m) * static_cast<std::size_t>(d));
}

namespace {

void check_inputs(const Problem& p, const Result& soft, const LinearOptions& o) {
    if (p.mode != Mode::qkv)
        throw Error(
            ErrorCode::kInvalidValue, "mode",
            std::string("linear attention needs Q, K and V (mode qkv); this head is given as ") + to_string(p.mode));
    if (o.feature == FeatureMap::relu && (o.features < 1 || o.features > kMaxRandomFeatures))
        throw Error(ErrorCode::kInvalidValue, "features",
                    "the number of random features must be between 1 and " + std::to_string(kMaxRandomFeatures));
    const int n_q = p.q.rows, n_k = p.k.rows, d_k = p.q.cols, d_v = soft.d_v;
    if (soft.n_q != n_q || soft.n_k != n_k || p.k.cols != d_k ||
        soft.visible.size() != static_cast<std::size_t>(n_q) * static_cast<std::size_t>(n_k) ||
        (d_v > 0 && (p.v.rows != n_k || p.v.cols != d_v)))
        throw Error(ErrorCode::kShapeMismatch, "result", "the softmax result is not the result of this problem");
}

/// phi of every query and key (double), rows of length m.
struct Features {
    int m = 0;
    std::vector<double> q, k;
    const double* phi_q(int t) const { return q.data() + static_cast<std::size_t>(t) * m; }
    const double* phi_k(int j) const { return k.data() + static_cast<std::size_t>(j) * m; }
};

/// phi of each row of x (d_k columns) scaled by c: elu + 1 (m = d_k), or m ReLU random features
/// of the m x d_k matrix w.
std::vector<double> feature_rows(const Matrix& x, FeatureMap feature, const std::vector<double>& w, int m, int d_k,
                                 double c) {
    const double inv_sqrt_m = 1.0 / std::sqrt(static_cast<double>(m));
    std::vector<double> f(static_cast<std::size_t>(x.rows) * static_cast<std::size_t>(m));
    for (int i = 0; i < x.rows; ++i) {
        double* fi = f.data() + static_cast<std::size_t>(i) * m;
        if (feature == FeatureMap::elu) {
            for (int d = 0; d < d_k; ++d) {
                const double z = c * static_cast<double>(x(i, d));
                fi[d] = z > 0 ? z + 1.0 : std::exp(z);
            }
        } else {
            for (int r = 0; r < m; ++r) {
                double z = 0;
                for (int d = 0; d < d_k; ++d)
                    z += w[static_cast<std::size_t>(r) * d_k + d] * c * static_cast<double>(x(i, d));
                fi[r] = z > 0 ? z * inv_sqrt_m : 0.0;
            }
        }
    }
    return f;
}

bool visible(const Result& soft, int t, int j) {
    return soft.visible[static_cast<std::size_t>(t) * soft.n_k + j] != 0;
}

/// Omega_t as a prefix length L_t, or -1 when it is not a prefix; `all_prefix` when every row's is.
std::vector<int> prefix_lengths(const Result& soft, bool& all_prefix) {
    const int n_q = soft.n_q, n_k = soft.n_k;
    std::vector<int> prefix(static_cast<std::size_t>(n_q));
    all_prefix = true;
    for (int t = 0; t < n_q; ++t) {
        int len = 0;
        while (len < n_k && visible(soft, t, len)) ++len;
        bool ok = true;
        for (int j = len; j < n_k && ok; ++j) ok = !visible(soft, t, j);
        prefix[static_cast<std::size_t>(t)] = ok ? len : -1;
        all_prefix = all_prefix && ok;
    }
    return prefix;
}

/// Implied weights and denominators (every path): a_lin[t,j] = phi(q_t).phi(k_j) / sum.
void implied_weights(LinearAttention& L, const Features& f, const Result& soft) {
    const int n_q = L.n_q, n_k = L.n_k, m = f.m;
    for (int t = 0; t < n_q; ++t) {
        LinearRow& row = L.rows[static_cast<std::size_t>(t)];
        double* a = L.weights.data() + static_cast<std::size_t>(t) * n_k;
        double den = 0;
        int count = 0;
        for (int j = 0; j < n_k; ++j) {
            if (!visible(soft, t, j)) continue;
            ++count;
            const double s = std::inner_product(f.phi_q(t), f.phi_q(t) + m, f.phi_k(j), 0.0);
            a[j] = s;
            den += s;
        }
        if (count == 0) {
            row.empty = true;
            row.denominator = kNaN;
            continue;
        }
        row.denominator = den;
        if (!(den > 0)) {
            row.degenerate = true;
            std::fill(a, a + n_k, 0.0);
            continue;
        }
        for (int j = 0; j < n_k; ++j) a[j] /= den;
    }
}

/// Outputs through the kernel trick when every Omega_t is a prefix: rows in order of their prefix
/// length; running KV = sum_{j < len} phi(k_j) v_j^T and z = sum_{j < len} phi(k_j).
void prefix_outputs(LinearAttention& L, const Features& f, const Matrix& v, const std::vector<int>& prefix) {
    const int n_q = L.n_q, m = f.m, d_v = L.d_v;
    std::vector<int> order(static_cast<std::size_t>(n_q));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
        return prefix[static_cast<std::size_t>(x)] < prefix[static_cast<std::size_t>(y)];
    });
    std::vector<double> kv(static_cast<std::size_t>(m) * d_v, 0.0), z(static_cast<std::size_t>(m), 0.0);
    int added = 0;
    for (int t : order) {
        const LinearRow& row = L.rows[static_cast<std::size_t>(t)];
        const int len = prefix[static_cast<std::size_t>(t)];
        for (; added < len; ++added) {
            const double* fk = f.phi_k(added);
            for (int r = 0; r < m; ++r) {
                z[static_cast<std::size_t>(r)] += fk[r];
                if (fk[r] == 0) continue;
                double* kvr = kv.data() + static_cast<std::size_t>(r) * d_v;
                for (int e = 0; e < d_v; ++e) kvr[e] += fk[r] * static_cast<double>(v(added, e));
            }
        }
        if (row.empty || row.degenerate) continue;
        const double* fq = f.phi_q(t);
        const double den = std::inner_product(fq, fq + m, z.begin(), 0.0);
        double* out = L.output.data() + static_cast<std::size_t>(t) * d_v;
        for (int r = 0; r < m; ++r) {
            if (fq[r] == 0) continue;
            const double* kvr = kv.data() + static_cast<std::size_t>(r) * d_v;
            for (int e = 0; e < d_v; ++e) out[e] += fq[r] * kvr[e];
        }
        for (int e = 0; e < d_v; ++e) out[e] /= den;
    }
}

/// Outputs row by row over Omega_t: sum_j (phi(q_t).phi(k_j)) v_j / sum_j phi(q_t).phi(k_j).
void per_row_outputs(LinearAttention& L, const Features& f, const Matrix& v, const Result& soft) {
    const int n_q = L.n_q, n_k = L.n_k, m = f.m, d_v = L.d_v;
    for (int t = 0; t < n_q; ++t) {
        const LinearRow& row = L.rows[static_cast<std::size_t>(t)];
        if (row.empty || row.degenerate) continue;
        double* out = L.output.data() + static_cast<std::size_t>(t) * d_v;
        double den = 0;
        for (int j = 0; j < n_k; ++j) {
            if (!visible(soft, t, j)) continue;
            const double s = std::inner_product(f.phi_q(t), f.phi_q(t) + m, f.phi_k(j), 0.0);
            den += s;
            for (int e = 0; e < d_v; ++e) out[e] += s * static_cast<double>(v(j, e));
        }
        for (int e = 0; e < d_v; ++e) out[e] /= den;
    }
}

/// Errors against softmax, per row and their means.
void errors_against(LinearAttention& L, const Result& soft) {
    const int n_q = L.n_q, n_k = L.n_k, d_v = L.d_v;
    double sum_out = 0, sum_rel = 0, sum_w = 0;
    int n_rel = 0;
    for (int t = 0; t < n_q; ++t) {
        LinearRow& row = L.rows[static_cast<std::size_t>(t)];
        if (row.empty || row.degenerate) {
            row.output_error = row.relative_error = row.max_weight_error = kNaN;
            continue;
        }
        ++L.defined_rows;
        double maxw = 0;
        for (int j = 0; j < n_k; ++j)
            maxw = std::max(maxw, std::fabs(L.weights[static_cast<std::size_t>(t) * n_k + j] -
                                            static_cast<double>(soft.weights(t, j))));
        row.max_weight_error = maxw;
        sum_w += maxw;
        if (d_v == 0) {
            row.output_error = row.relative_error = kNaN;
            continue;
        }
        double diff2 = 0, norm2 = 0;
        for (int e = 0; e < d_v; ++e) {
            const double s = static_cast<double>(soft.output(t, e));
            const double d = L.output[static_cast<std::size_t>(t) * d_v + e] - s;
            diff2 += d * d;
            norm2 += s * s;
        }
        row.output_error = std::sqrt(diff2);
        sum_out += row.output_error;
        row.relative_error = norm2 > 0 ? row.output_error / std::sqrt(norm2) : kNaN;
        if (norm2 > 0) {
            sum_rel += row.relative_error;
            ++n_rel;
        }
    }
    L.mean_max_weight_error = L.defined_rows > 0 ? sum_w / L.defined_rows : kNaN;
    L.mean_output_error = L.defined_rows > 0 && d_v > 0 ? sum_out / L.defined_rows : kNaN;
    L.mean_relative_error = n_rel > 0 ? sum_rel / n_rel : kNaN;
}

}  // namespace

LinearAttention linear_attention(const Problem& p, const Result& soft, const LinearOptions& o) {
    check_inputs(p, soft, o);
    const int n_q = p.q.rows, n_k = p.k.rows, d_k = p.q.cols, d_v = soft.d_v;
    LinearAttention L;
    L.n_q = n_q;
    L.n_k = n_k;
    L.d_v = d_v;
    L.input_scale = std::sqrt(soft.scale / p.tau);
    L.m = o.feature == FeatureMap::elu ? d_k : o.features;
    const std::vector<double> w =
        o.feature == FeatureMap::elu ? std::vector<double>() : random_feature_matrix(L.m, d_k, o.seed);
    Features f;
    f.m = L.m;
    f.q = feature_rows(p.q, o.feature, w, L.m, d_k, L.input_scale);
    f.k = feature_rows(p.k, o.feature, w, L.m, d_k, L.input_scale);

    L.weights.assign(static_cast<std::size_t>(n_q) * n_k, 0.0);
    L.output.assign(static_cast<std::size_t>(n_q) * std::max(d_v, 0), 0.0);
    L.rows.assign(static_cast<std::size_t>(n_q), LinearRow{});
    bool all_prefix = true;
    const std::vector<int> prefix = prefix_lengths(soft, all_prefix);
    L.path = all_prefix ? "prefix" : "per-row";
    implied_weights(L, f, soft);
    if (d_v > 0) {
        if (all_prefix)
            prefix_outputs(L, f, p.v, prefix);
        else
            per_row_outputs(L, f, p.v, soft);
    }
    errors_against(L, soft);
    return L;
}

}  // namespace attn
