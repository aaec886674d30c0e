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

Stationary stationary(const StochasticMatrix& a, int max_iterations, double tolerance) {
    Stationary s;
    s.residual = kNaN;
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
    std::vector<double> pi(static_cast<std::size_t>(n), 1.0 / n), next(static_cast<std::size_t>(n));
    // r = ||pi A - pi||_1 for the current pi; pi A is computed once per step and reused for the
    // lazy step pi P = (pi + pi A) / 2.
    auto times_a = [&](const std::vector<double>& x, std::vector<double>& y) {
        std::fill(y.begin(), y.end(), 0.0);
        for (int i = 0; i < n; ++i) {
            const double xi = x[static_cast<std::size_t>(i)];
            if (xi == 0) continue;
            const double* row = a.a.data() + static_cast<std::size_t>(i) * n;
            for (int j = 0; j < n; ++j) y[static_cast<std::size_t>(j)] += xi * row[j];
        }
    };
    for (int it = 0;; ++it) {
        times_a(pi, next);
        double r = 0;
        for (int j = 0; j < n; ++j) r += std::fabs(next[static_cast<std::size_t>(j)] - pi[static_cast<std::size_t>(j)]);
        s.residual = r;
        s.iterations = it;
        if (r <= tolerance) {
            s.converged = true;
            break;
        }
        if (it >= max_iterations) break;
        double sum = 0;
        for (int j = 0; j < n; ++j) {
            double& p = pi[static_cast<std::size_t>(j)];
            p = 0.5 * (p + next[static_cast<std::size_t>(j)]);
            sum += p;
        }
        for (double& p : pi) p /= sum;
    }
    s.pi = std::move(pi);
    return s;
}

std::vector<double> singular_values(const StochasticMatrix& a) {
    if (a.rows == 0 || a.cols == 0) return {};
    Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> m(a.a.data(), a.rows, a.cols);
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
