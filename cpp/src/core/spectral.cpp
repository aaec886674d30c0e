// Spectral quantities of a row-stochastic attention matrix and head redundancy (spectral.hpp).
#include "attn/spectral.hpp"

// Emscripten's SIMD build defines __SSE2__ (SSE lowered to SIMD128), which makes Eigen include
// x86 headers (mmintrin.h) that Emscripten does not have: Eigen runs scalar in WebAssembly.
#if defined(__EMSCRIPTEN__) && !defined(EIGEN_DONT_VECTORIZE)
#define EIGEN_DONT_VECTORIZE
#endif
#include <Eigen/Dense>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// -sum p ln p over p > 0 (0 ln 0 = 0).
double entropy_of(const std::vector<double>& p) {
    double h = 0;
    for (double x : p)
        if (x > 0) h -= x * std::log(x);
    return h;
}

}  // namespace

StochasticMatrix row_stochastic(const Matrix& weights) {
    StochasticMatrix m;
    m.rows = weights.rows;
    m.cols = weights.cols;
    m.a.assign(static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols), 0.0);
    m.empty.assign(static_cast<std::size_t>(m.rows), 0);
    for (int i = 0; i < m.rows; ++i) {
        const float* w = weights.row(i);
        double sum = 0;
        for (int j = 0; j < m.cols; ++j) sum += static_cast<double>(w[j]);
        double* out = m.a.data() + static_cast<std::size_t>(i) * m.cols;
        if (!(sum > 0) || !std::isfinite(sum)) {
            m.empty[static_cast<std::size_t>(i)] = 1;
            ++m.empty_rows;
            continue;
        }
        for (int j = 0; j < m.cols; ++j) out[j] = static_cast<double>(w[j]) / sum;
    }
    return m;
}

Stationary stationary(const StochasticMatrix& a, int plain_doublings, int max_doublings, double tolerance) {
    Stationary s;
    s.residual = kNaN;
    s.change = kNaN;
    const int n = a.rows;
    if (a.rows != a.cols) {
        s.undefined_reason = "A is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                             ": a stationary distribution needs a square matrix (queries = keys)";
        return s;
    }
    if (n == 0) {
        s.undefined_reason = "A has no rows";
        return s;
    }
    if (a.empty_rows > 0) {
        s.undefined_reason = std::to_string(a.empty_rows) + (a.empty_rows == 1 ? " row is" : " rows are") +
                             " empty (no visible key): A is not row-stochastic, so it is not a Markov chain";
        return s;
    }
    s.defined = true;
    plain_doublings = std::max(0, std::min(plain_doublings, max_doublings));
    using RowVec = Eigen::Matrix<double, 1, Eigen::Dynamic>;
    using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Map<const Mat> A(a.a.data(), n, n);
    RowVec pi = RowVec::Constant(n, 1.0 / n);
    RowVec pa(n), half(n);
    auto residual = [&]() {  // ||pi A - pi||_1; leaves pi A in `pa`
        pa.noalias() = pi * A;
        return (pa - pi).lpNorm<1>();
    };
    // The test at t = 2^k (t = 1 compares with the uniform start).
    auto accept = [&]() {
        s.change = (pi - half).lpNorm<1>();
        s.residual = residual();
        return s.change <= tolerance && s.residual <= tolerance;
    };

    // 1. Plain steps of the lazy chain, t = 1 ... 2^plain_doublings.
    double next_check = 1;
    half = pi;
    residual();
    for (double t = 1; t <= std::ldexp(1.0, plain_doublings); ++t) {
        pi = 0.5 * (pi + pa);
        pi /= pi.sum();
        s.steps = t;
        if (t == next_check) {
            if (accept()) {
                s.converged = true;
                break;
            }
            half = pi;
            next_check *= 2;
        } else {
            residual();
        }
    }
    // 2. Doublings by squaring: M = P^t, pi <- pi M takes t to 2t.
    if (!s.converged && plain_doublings < max_doublings) {
        Mat m = 0.5 * (Mat::Identity(n, n) + A);
        auto square = [&]() {
            const Mat sq = m * m;
            m = sq;
            for (int i = 0; i < n; ++i) m.row(i) /= m.row(i).sum();
            ++s.squarings;
        };
        for (int k = 0; k < plain_doublings; ++k) square();  // M = P^(2^plain_doublings) = P^t
        for (int k = plain_doublings; k < max_doublings; ++k) {
            if (k > plain_doublings) square();
            half = pi;
            pi = half * m;
            pi /= pi.sum();
            s.steps *= 2;
            if (accept()) {
                s.converged = true;
                break;
            }
        }
    }
    s.pi.assign(pi.data(), pi.data() + n);
    return s;
}

std::vector<double> singular_values(const StochasticMatrix& a) {
    if (a.rows == 0 || a.cols == 0) return {};
    Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> m(a.a.data(), a.rows,
                                                                                               a.cols);
    const Eigen::MatrixXd dense = m;
    Eigen::BDCSVD<Eigen::MatrixXd> svd(dense);  // singular values only (no U, V)
    const Eigen::VectorXd& sv = svd.singularValues();
    std::vector<double> out(sv.data(), sv.data() + sv.size());
    std::sort(out.begin(), out.end(), [](double x, double y) { return x > y; });  // Eigen: already descending
    for (double& x : out) x = std::max(x, 0.0);
    return out;
}

double spectral_entropy(const std::vector<double>& sigma) {
    double sum = 0;
    for (double x : sigma) sum += x;
    if (!(sum > 0)) return kNaN;
    std::vector<double> p(sigma.size());
    for (std::size_t i = 0; i < sigma.size(); ++i) p[i] = sigma[i] / sum;
    return entropy_of(p);
}

double effective_rank(const std::vector<double>& sigma) {
    const double h = spectral_entropy(sigma);
    return std::isnan(h) ? kNaN : std::exp(h);
}

int threshold_rank(const std::vector<double>& sigma, double eps) {
    if (sigma.empty()) return 0;
    const double s1 = *std::max_element(sigma.begin(), sigma.end());
    if (!(s1 > 0)) return 0;
    int r = 0;
    for (double x : sigma)
        if (x > eps * s1) ++r;
    return r;
}

double jensen_shannon(const double* p, const double* q, int n) {
    double kl_p = 0, kl_q = 0;
    for (int i = 0; i < n; ++i) {
        const double m = 0.5 * (p[i] + q[i]);
        if (p[i] > 0) kl_p += p[i] * std::log(p[i] / m);
        if (q[i] > 0) kl_q += q[i] * std::log(q[i] / m);
    }
    // Rounding can leave a value a hair below 0 or above ln 2.
    return std::min(std::max(0.5 * (kl_p + kl_q), 0.0), std::log(2.0));
}

HeadSimilarity compare_heads(const StochasticMatrix& x, const StochasticMatrix& y, SinkConvention c) {
    HeadSimilarity out;
    out.cosine = kNaN;
    out.jsd = kNaN;
    if (x.rows != y.rows || x.cols != y.cols) return out;
    const int n = x.cols;
    const int first = c == SinkConvention::drop ? 1 : 0;
    const int len = n - first;
    std::vector<double> p(static_cast<std::size_t>(std::max(len, 0))), q(p.size());
    double cos_sum = 0, jsd_sum = 0;
    for (int i = 0; i < x.rows; ++i) {
        if (x.empty[static_cast<std::size_t>(i)] || y.empty[static_cast<std::size_t>(i)]) {
            ++out.empty;
            continue;
        }
        const double* xr = x.a.data() + static_cast<std::size_t>(i) * n + first;
        const double* yr = y.a.data() + static_cast<std::size_t>(i) * n + first;
        double sx = 0, sy = 0;
        for (int j = 0; j < len; ++j) {
            sx += xr[j];
            sy += yr[j];
        }
        if (!(sx > 0) || !(sy > 0)) {  // keep: impossible for a non-empty row; drop: all mass on key 0
            ++out.sink_only;
            continue;
        }
        double dot = 0, nx = 0, ny = 0;
        for (int j = 0; j < len; ++j) {
            p[static_cast<std::size_t>(j)] = xr[j] / sx;
            q[static_cast<std::size_t>(j)] = yr[j] / sy;
            dot += p[static_cast<std::size_t>(j)] * q[static_cast<std::size_t>(j)];
            nx += p[static_cast<std::size_t>(j)] * p[static_cast<std::size_t>(j)];
            ny += q[static_cast<std::size_t>(j)] * q[static_cast<std::size_t>(j)];
        }
        cos_sum += std::min(dot / std::sqrt(nx * ny), 1.0);
        jsd_sum += jensen_shannon(p.data(), q.data(), len);
        ++out.rows;
    }
    if (out.rows > 0) {
        out.cosine = cos_sum / out.rows;
        out.jsd = jsd_sum / out.rows;
    }
    return out;
}

}  // namespace attn
