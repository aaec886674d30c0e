// The lesson's experiments on one query row (lesson.hpp): the angle sweep of the parameter
// experiment and the sensitivity of the output to each value, score, key and token deletion.
#include "attn/lesson.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "attn/error.hpp"

namespace attn {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.14159265358979323846;

void check_keys(const SweepKeys& k) {
    if (k.d_k < 2)
        throw Error(
            ErrorCode::kShapeMismatch, "K",
            "the angle sweep needs keys of dimension >= 2 (q(theta) lies in the plane of the first two axes); d_k = " +
                std::to_string(k.d_k));
    if (k.n_k < 0 || k.keys.size() != static_cast<std::size_t>(k.n_k) * static_cast<std::size_t>(k.d_k))
        throw Error(ErrorCode::kShapeMismatch, "K", "keys must hold n_k x d_k numbers");
    if (!k.visible.empty() && k.visible.size() != static_cast<std::size_t>(k.n_k))
        throw Error(ErrorCode::kShapeMismatch, "K", "visible must hold n_k flags");
    if (!std::isfinite(k.scale) || k.scale <= 0)
        throw Error(ErrorCode::kInvalidValue, "scale", "scale must be finite and > 0");
    for (int j = 0; j < k.n_k; ++j) {
        if (!k.visible.empty() && !k.visible[static_cast<std::size_t>(j)]) continue;
        for (int c = 0; c < 2; ++c)
            if (!std::isfinite(k.keys[static_cast<std::size_t>(j) * k.d_k + c]))
                throw Error(ErrorCode::kNonFinite, "K", "key " + std::to_string(j) + " is not finite");
    }
}

void check_tau(double tau, const char* field) {
    if (!std::isfinite(tau) || tau <= 0)
        throw Error(ErrorCode::kBadTemperature, field, std::string(field) + " must be finite and > 0");
}

/// (cos theta, sin theta), exact at 0, pi/4 and pi/2 (the lesson's table angles), where the
/// library's cos(pi/2) = 6e-17 and cos(pi/4) != sin(pi/4) would leave a last-bit asymmetry.
void direction(double theta, double& c, double& s) {
    if (theta == 0) {
        c = 1;
        s = 0;
        return;
    }
    if (theta == kPi / 2) {
        c = 0;
        s = 1;
        return;
    }
    if (theta == kPi / 4) {
        c = s = std::sqrt(0.5);
        return;
    }
    c = std::cos(theta);
    s = std::sin(theta);
}

NormalisedRow weights_at(const SweepKeys& k, double c, double s, double tau) {
    std::vector<double> z(static_cast<std::size_t>(k.n_k), kNaN);
    for (int j = 0; j < k.n_k; ++j) {
        if (!k.visible.empty() && !k.visible[static_cast<std::size_t>(j)]) continue;  // never read
        const double* kj = k.keys.data() + static_cast<std::size_t>(j) * k.d_k;
        z[static_cast<std::size_t>(j)] = k.scale * (c * kj[0] + s * kj[1]);
    }
    return softmax_row(z.data(), k.n_k, tau, k.visible.empty() ? nullptr : k.visible.data());
}

double norm(const std::vector<double>& x) {
    double s = 0;
    for (double v : x) s += v * v;
    return std::sqrt(s);
}

void check_row(const RowProblem& p) {
    if (p.n_k < 0 || p.scores.size() != static_cast<std::size_t>(p.n_k))
        throw Error(ErrorCode::kShapeMismatch, "scores", "scores must hold n_k numbers");
    if (!p.visible.empty() && p.visible.size() != static_cast<std::size_t>(p.n_k))
        throw Error(ErrorCode::kShapeMismatch, "scores", "visible must hold n_k flags");
    if (p.d_v < 1) throw Error(ErrorCode::kShapeMismatch, "V", "the output needs values (d_v >= 1)");
    if (p.values.size() != static_cast<std::size_t>(p.n_k) * static_cast<std::size_t>(p.d_v))
        throw Error(ErrorCode::kShapeMismatch, "V", "values must hold n_k x d_v numbers");
    check_tau(p.tau, "tau");
    if (!p.query.empty()) {
        if (!std::isfinite(p.scale) || p.scale <= 0)
            throw Error(ErrorCode::kInvalidValue, "scale", "scale must be finite and > 0");
        for (double x : p.query)
            if (!std::isfinite(x)) throw Error(ErrorCode::kNonFinite, "query", "the query is not finite");
    }
    for (int j = 0; j < p.n_k; ++j) {
        if (!p.visible.empty() && !p.visible[static_cast<std::size_t>(j)]) continue;
        for (int c = 0; c < p.d_v; ++c)
            if (!std::isfinite(p.values[static_cast<std::size_t>(j) * p.d_v + c]))
                throw Error(ErrorCode::kNonFinite, "V", "value " + std::to_string(j) + " is not finite");
    }
}

/// sum_j a_j v_j over the keys with a_j != 0.
std::vector<double> mix(const RowProblem& p, const std::vector<double>& a) {
    std::vector<double> o(static_cast<std::size_t>(p.d_v), 0.0);
    for (int j = 0; j < p.n_k; ++j) {
        const double w = a[static_cast<std::size_t>(j)];
        if (w == 0) continue;
        const double* v = p.values.data() + static_cast<std::size_t>(j) * p.d_v;
        for (int c = 0; c < p.d_v; ++c) o[static_cast<std::size_t>(c)] += w * v[c];
    }
    return o;
}

NormalisedRow row_softmax(const RowProblem& p) {
    return softmax_row(p.scores.data(), p.n_k, p.tau, p.visible.empty() ? nullptr : p.visible.data());
}

}  // namespace

NormalisedRow angle_weights(const SweepKeys& keys, double theta, double tau) {
    check_keys(keys);
    check_tau(tau, "tau");
    if (!std::isfinite(theta)) throw Error(ErrorCode::kNonFinite, "theta", "theta must be finite");
    double c = 0, s = 0;
    direction(theta, c, s);
    return weights_at(keys, c, s, tau);
}

AngleSweep angle_sweep(const SweepKeys& keys, const std::vector<double>& taus, int steps) {
    check_keys(keys);
    if (taus.empty() || taus.size() > 16) throw Error(ErrorCode::kInvalidValue, "taus", "give 1 to 16 temperatures");
    for (double t : taus) check_tau(t, "taus");
    if (steps < 2 || steps > 10001) throw Error(ErrorCode::kInvalidValue, "steps", "steps must be between 2 and 10001");

    AngleSweep out;
    out.taus = taus;
    for (int i = 0; i < steps; ++i) out.thetas.push_back(i == steps - 1 ? kPi / 2 : (kPi / 2) * i / (steps - 1));
    for (int j = 0; j < keys.n_k; ++j)
        if (keys.visible.empty() || keys.visible[static_cast<std::size_t>(j)]) out.keys.push_back(j);
    out.empty = out.keys.empty();
    out.weights.assign(taus.size(), {});
    if (out.empty) return out;
    for (std::size_t t = 0; t < taus.size(); ++t) {
        auto& w = out.weights[t];
        w.assign(out.keys.size(), std::vector<double>(static_cast<std::size_t>(steps)));
        for (int i = 0; i < steps; ++i) {
            double c = 0, s = 0;
            direction(out.thetas[static_cast<std::size_t>(i)], c, s);
            const NormalisedRow r = weights_at(keys, c, s, taus[t]);
            for (std::size_t k = 0; k < out.keys.size(); ++k)
                w[k][static_cast<std::size_t>(i)] = r.weights[static_cast<std::size_t>(out.keys[k])];
        }
    }
    return out;
}

std::vector<int> leaders_of(const std::vector<int>& keys, const std::vector<double>& x) {
    double best = -std::numeric_limits<double>::infinity();
    for (double v : x)
        if (!std::isnan(v)) best = std::max(best, v);
    std::vector<int> out;
    if (best == -std::numeric_limits<double>::infinity()) return out;
    const double tol = std::max(1e-300, 1e-9 * std::fabs(best));
    for (std::size_t i = 0; i < x.size() && i < keys.size(); ++i)
        if (!std::isnan(x[i]) && x[i] >= best - tol) out.push_back(keys[i]);
    return out;
}

RowSensitivity row_sensitivity(const RowProblem& p) {
    check_row(p);
    RowSensitivity out;
    const NormalisedRow soft = row_softmax(p);
    out.weights = soft.weights;
    out.empty = soft.empty;
    if (soft.empty) return out;
    const std::vector<double>& a = soft.weights;
    out.output = mix(p, a);
    const std::vector<double>& o = out.output;
    const double qn = p.query.empty() ? kNaN : norm(p.query);

    std::vector<int> vis;
    for (int j = 0; j < p.n_k; ++j)
        if ((p.visible.empty() || p.visible[static_cast<std::size_t>(j)]) &&
            p.scores[static_cast<std::size_t>(j)] != -std::numeric_limits<double>::infinity())
            vis.push_back(j);
    const std::size_t m = vis.size();
    // Mass of every key but vis[i], from prefix and suffix sums (no subtraction from 1).
    std::vector<double> prefix(m + 1, 0.0), suffix(m + 1, 0.0);
    for (std::size_t i = 0; i < m; ++i) prefix[i + 1] = prefix[i] + a[static_cast<std::size_t>(vis[i])];
    for (std::size_t i = m; i-- > 0;) suffix[i] = suffix[i + 1] + a[static_cast<std::size_t>(vis[i])];

    std::vector<double> w, val, sc, ke, del;
    for (std::size_t i = 0; i < m; ++i) {
        const int j = vis[i];
        const double aj = a[static_cast<std::size_t>(j)];
        const double* vj = p.values.data() + static_cast<std::size_t>(j) * p.d_v;
        std::vector<double> diff(static_cast<std::size_t>(p.d_v));
        for (int c = 0; c < p.d_v; ++c) diff[static_cast<std::size_t>(c)] = vj[c] - o[static_cast<std::size_t>(c)];
        const double dn = norm(diff);
        KeySensitivity k;
        k.key = j;
        k.weight = aj;
        k.distance = dn;
        k.value_effect = aj;
        k.score_effect = aj * dn / p.tau;
        k.key_effect = p.query.empty() ? kNaN : aj * dn * qn * p.scale / p.tau;

        // Deletion: the output over Omega_t \ {j}, renormalised.
        if (m > 1) {
            std::vector<double> o2;
            const double rest = prefix[i] + suffix[i + 1];
            if (aj > 0.5 || !(rest >= 0.5)) {
                // The dominant key (at most one): renormalise by the core's softmax over the
                // remaining keys, so weights that underflowed next to key j come back.
                RowProblem q = p;
                if (q.visible.empty()) q.visible.assign(static_cast<std::size_t>(p.n_k), 1);
                q.visible[static_cast<std::size_t>(j)] = 0;
                o2 = mix(q, row_softmax(q).weights);
            } else {
                // (o - a_j v_j) / sum_{i != j} a_i, with that sum >= 1/2: no cancellation.
                o2.resize(static_cast<std::size_t>(p.d_v));
                for (int c = 0; c < p.d_v; ++c)
                    o2[static_cast<std::size_t>(c)] = (o[static_cast<std::size_t>(c)] - aj * vj[c]) / rest;
            }
            k.deletion_shift.resize(static_cast<std::size_t>(p.d_v));
            for (int c = 0; c < p.d_v; ++c)
                k.deletion_shift[static_cast<std::size_t>(c)] =
                    o2[static_cast<std::size_t>(c)] - o[static_cast<std::size_t>(c)];
            k.deletion = norm(k.deletion_shift);
        } else {
            k.deletion = kNaN;
        }
        w.push_back(k.weight);
        val.push_back(k.value_effect);
        sc.push_back(k.score_effect);
        ke.push_back(k.key_effect);
        del.push_back(k.deletion);
        out.keys.push_back(std::move(k));
    }
    out.leaders.weight = leaders_of(vis, w);
    out.leaders.value = leaders_of(vis, val);
    out.leaders.score = leaders_of(vis, sc);
    out.leaders.key = leaders_of(vis, ke);
    out.leaders.deletion = leaders_of(vis, del);
    return out;
}

std::vector<double> output_key_jacobian(const RowProblem& p, int j) {
    check_row(p);
    if (p.query.empty()) throw Error(ErrorCode::kInvalidValue, "query", "d o / d k_j needs the query (mode qkv)");
    if (j < 0 || j >= p.n_k) throw Error(ErrorCode::kInvalidValue, "key", "key index out of range");
    const std::size_t d_k = p.query.size();
    std::vector<double> jac(static_cast<std::size_t>(p.d_v) * d_k, 0.0);
    const NormalisedRow soft = row_softmax(p);
    const double aj = soft.weights[static_cast<std::size_t>(j)];
    if (soft.empty || aj == 0) return jac;
    const std::vector<double> o = mix(p, soft.weights);
    const double* vj = p.values.data() + static_cast<std::size_t>(j) * p.d_v;
    for (int r = 0; r < p.d_v; ++r)
        for (std::size_t c = 0; c < d_k; ++c)
            jac[static_cast<std::size_t>(r) * d_k + c] =
                aj * (vj[r] - o[static_cast<std::size_t>(r)]) * p.query[c] * p.scale / p.tau;
    return jac;
}

double weight_sum(const std::vector<double>& weights) {
    double s = 0;
    for (double w : weights) s += w;
    return s;
}

Renormalisation renormalisation(const std::vector<double>& before, const std::vector<std::uint8_t>& visible,
                                const std::vector<double>& after) {
    if (visible.size() != before.size() || after.size() != before.size())
        throw Error(ErrorCode::kShapeMismatch, "weights", "before, visible and after must have one length");
    Renormalisation out;
    for (std::size_t j = 0; j < before.size(); ++j)
        if (visible[j]) out.kept += before[j];
    out.expected.resize(before.size());
    bool nan = false;
    double worst = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < before.size(); ++j) {
        out.expected[j] = visible[j] ? before[j] / out.kept : 0.0;
        const double d = std::fabs(after[j] - out.expected[j]);
        if (std::isnan(d))
            nan = true;
        else
            worst = std::max(worst, d);
    }
    out.max_diff = nan ? kNaN : worst;
    out.after_sum = weight_sum(after);
    return out;
}

ValueEdit value_edit(const ValueEditProblem& p) {
    const std::size_t cells = static_cast<std::size_t>(p.n_q) * static_cast<std::size_t>(p.n_k);
    if (p.n_q < 0 || p.n_k < 0 || p.scores.size() != cells || p.ref_scores.size() != cells)
        throw Error(ErrorCode::kShapeMismatch, "scores", "both score matrices must hold n_q x n_k numbers");
    if (p.d_v < 0 || p.output.size() != static_cast<std::size_t>(p.d_v) || p.ref_output.size() != p.output.size())
        throw Error(ErrorCode::kShapeMismatch, "output", "both outputs must hold d_v numbers");
    const std::size_t vn = static_cast<std::size_t>(p.n_k) * static_cast<std::size_t>(p.d_v);
    if (p.values.size() != vn || p.ref_values.size() != vn)
        throw Error(ErrorCode::kShapeMismatch, "V", "both value matrices must hold n_k x d_v numbers");
    for (int j : p.changed)
        if (j < 0 || j >= p.n_k) throw Error(ErrorCode::kInvalidValue, "changed", "value index out of range");

    ValueEdit out;
    for (std::size_t c = 0; c < cells; ++c) {
        const double x = p.scores[c], y = p.ref_scores[c];
        if (std::isnan(x) != std::isnan(y))
            out.scores_diff = std::numeric_limits<double>::infinity();
        else if (!std::isnan(x))
            out.scores_diff = std::max(out.scores_diff, std::fabs(x - y));
    }
    out.shift.resize(p.output.size());
    for (std::size_t c = 0; c < p.output.size(); ++c) out.shift[c] = p.output[c] - p.ref_output[c];
    out.shift_size = norm(out.shift);
    for (int j : p.changed) {
        std::vector<double> dv(static_cast<std::size_t>(p.d_v));
        for (int c = 0; c < p.d_v; ++c) {
            const std::size_t at = static_cast<std::size_t>(j) * p.d_v + c;
            dv[static_cast<std::size_t>(c)] = p.values[at] - p.ref_values[at];
        }
        out.value_shifts.push_back(norm(dv));
    }
    out.ratio = p.changed.size() == 1 && out.value_shifts[0] > 0 ? out.shift_size / out.value_shifts[0] : kNaN;
    return out;
}

}  // namespace attn
