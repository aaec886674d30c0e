// Attention rows as compositional data (compositional.hpp; docs/MATH.md "Entropy identity",
// "Keep-sink vs drop-sink conventions", "Aitchison geometry"). Double precision throughout.
#include "attn/compositional.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/error.hpp"

namespace attn::compositional {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_probability(const std::vector<double>& a) {
    double sum = 0;
    for (double x : a) {
        if (!std::isfinite(x) || x < 0)
            throw Error(ErrorCode::kInvalidValue, "row", "a probability row needs finite entries >= 0");
        sum += x;
    }
    if (!(std::fabs(sum - 1.0) <= 1e-9))
        throw Error(ErrorCode::kInvalidValue, "row",
                    "a probability row must sum to 1 (got " + std::to_string(sum) + ")");
}

void same_length(std::size_t a, std::size_t b, const char* what) {
    if (a != b)
        throw Error(
            ErrorCode::kShapeMismatch, what,
            std::string(what) + ": the two rows have " + std::to_string(a) + " and " + std::to_string(b) + " entries");
}

// x ln(x / m) with 0 ln 0 = 0.
double kl_term(double x, double m) {
    return x > 0 ? x * std::log(x / m) : 0.0;
}

AitchisonSplit undefined(std::string reason) {
    AitchisonSplit s;
    s.defined = false;
    s.reason = std::move(reason);
    s.distance = s.balance_x = s.balance_y = s.sink_term = s.within_sink = s.content_term = kNaN;
    return s;
}

// ||d - mean(d)|| over [lo, hi).
double centred_norm(const std::vector<double>& d, std::size_t lo, std::size_t hi) {
    if (hi <= lo) return 0.0;
    double mean = 0;
    for (std::size_t i = lo; i < hi; ++i) mean += d[i];
    mean /= static_cast<double>(hi - lo);
    double ss = 0;
    for (std::size_t i = lo; i < hi; ++i) ss += (d[i] - mean) * (d[i] - mean);
    return std::sqrt(ss);
}

double mean_of(const std::vector<double>& v, std::size_t lo, std::size_t hi) {
    double s = 0;
    for (std::size_t i = lo; i < hi; ++i) s += v[i];
    return s / static_cast<double>(hi - lo);
}

}  // namespace

double binary_entropy(double s) {
    if (!(s >= 0.0 && s <= 1.0)) return kNaN;
    const double t = 1.0 - s;
    return (s > 0 ? -s * std::log(s) : 0.0) + (t > 0 ? -t * std::log(t) : 0.0);
}

double entropy(const std::vector<double>& p) {
    double h = 0;
    for (double x : p)
        if (x > 0) h -= x * std::log(x);
    return h;
}

std::vector<double> normalized(const std::vector<double>& row) {
    double sum = 0;
    for (double x : row) {
        if (!std::isfinite(x) || x < 0)
            throw Error(ErrorCode::kInvalidValue, "row", "a row of weights needs finite entries >= 0");
        sum += x;
    }
    if (!(sum > 0))
        throw Error(ErrorCode::kInvalidValue, "row", "an empty row (weights summing to 0) has no distribution");
    std::vector<double> out(row.size());
    for (std::size_t i = 0; i < row.size(); ++i) out[i] = row[i] / sum;
    return out;
}

SinkSplit sink_split(const std::vector<double>& a, int sink_keys) {
    if (sink_keys < 1) throw Error(ErrorCode::kInvalidValue, "sinkKeys", "the number of sink keys must be >= 1");
    check_probability(a);
    const std::size_t k = std::min(a.size(), static_cast<std::size_t>(sink_keys));
    SinkSplit out;
    double s = 0, m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) (i < k ? s : m) += a[i];
    out.sink_mass = s;
    out.content_mass = m;
    // h(s) with 1 - s taken as the content mass summed directly (the identity's own terms).
    out.sink_entropy = (s > 0 ? -s * std::log(s) : 0.0) + (m > 0 ? -m * std::log(m) : 0.0);
    if (m > 0) {
        double hc = 0;
        for (std::size_t i = k; i < a.size(); ++i)
            if (a[i] > 0) {
                const double c = a[i] / m;
                hc -= c * std::log(c);
            }
        out.content_entropy = hc;
        out.content_term = m * hc;
    } else {
        out.content_entropy = kNaN;
        out.content_term = 0.0;
    }
    if (s > 0) {
        double hs = 0;
        for (std::size_t i = 0; i < k; ++i)
            if (a[i] > 0) {
                const double p = a[i] / s;
                hs -= p * std::log(p);
            }
        out.sink_spread = hs;
        out.sink_spread_term = s * hs;
    } else {
        out.sink_spread = kNaN;
        out.sink_spread_term = 0.0;
    }
    out.entropy = entropy(a);
    out.residual = out.entropy - (out.sink_entropy + out.sink_spread_term + out.content_term);
    return out;
}

std::vector<double> content(const std::vector<double>& a, int sink_keys) {
    if (sink_keys < 1) throw Error(ErrorCode::kInvalidValue, "sinkKeys", "the number of sink keys must be >= 1");
    check_probability(a);
    const std::size_t k = std::min(a.size(), static_cast<std::size_t>(sink_keys));
    double m = 0;
    for (std::size_t i = k; i < a.size(); ++i) m += a[i];
    if (!(m > 0)) return {};
    std::vector<double> c(a.size() - k);
    for (std::size_t i = k; i < a.size(); ++i) c[i - k] = a[i] / m;
    return c;
}

double jensen_shannon(const std::vector<double>& p, const std::vector<double>& q) {
    same_length(p.size(), q.size(), "jensen_shannon");
    double js = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double m = 0.5 * (p[i] + q[i]);
        if (m > 0) js += 0.5 * (kl_term(p[i], m) + kl_term(q[i], m));
    }
    return std::max(js, 0.0);  // rounding can leave -1e-17 for identical rows
}

double cosine_similarity(const std::vector<double>& p, const std::vector<double>& q) {
    same_length(p.size(), q.size(), "cosine_similarity");
    double pq = 0, pp = 0, qq = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        pq += p[i] * q[i];
        pp += p[i] * p[i];
        qq += q[i] * q[i];
    }
    if (!(pp > 0) || !(qq > 0)) return kNaN;
    return pq / (std::sqrt(pp) * std::sqrt(qq));
}

RowComparison compare_rows(const std::vector<double>& a, const std::vector<double>& b, int sink_keys) {
    same_length(a.size(), b.size(), "compare_rows");
    RowComparison r;
    const SinkSplit sa = sink_split(a, sink_keys), sb = sink_split(b, sink_keys);
    r.jsd.keep = jensen_shannon(a, b);
    r.cosine.keep = cosine_similarity(a, b);
    r.entropy_gap.keep = std::fabs(sa.entropy - sb.entropy);
    const std::vector<double> ca = content(a, sink_keys), cb = content(b, sink_keys);
    if (ca.empty() || cb.empty()) {
        r.jsd.drop = r.cosine.drop = r.entropy_gap.drop = kNaN;
    } else {
        r.jsd.drop = jensen_shannon(ca, cb);
        r.cosine.drop = cosine_similarity(ca, cb);
        r.entropy_gap.drop = std::fabs(sa.content_entropy - sb.content_entropy);
    }
    return r;
}

std::vector<double> clr_from_logs(const std::vector<double>& lx) {
    if (lx.empty()) return {};
    const double mean = mean_of(lx, 0, lx.size());
    std::vector<double> out(lx.size());
    for (std::size_t i = 0; i < lx.size(); ++i) out[i] = lx[i] - mean;
    return out;
}

double sink_balance_from_logs(const std::vector<double>& lx, int sink_parts) {
    const std::size_t d = lx.size();
    if (sink_parts < 1 || static_cast<std::size_t>(sink_parts) >= d) return kNaN;
    const auto k = static_cast<std::size_t>(sink_parts);
    const double km_d = static_cast<double>(k) * static_cast<double>(d - k) / static_cast<double>(d);
    return std::sqrt(km_d) * (mean_of(lx, 0, k) - mean_of(lx, k, d));
}

AitchisonSplit aitchison_from_logs(const std::vector<double>& lx, const std::vector<double>& ly, int sink_parts) {
    same_length(lx.size(), ly.size(), "aitchison");
    const std::size_t d = lx.size();
    if (d < 2) return undefined("fewer than 2 parts");
    if (sink_parts < 1) return undefined("no sink part");
    if (static_cast<std::size_t>(sink_parts) >= d) return undefined("no content part (every part is a sink key)");
    for (std::size_t i = 0; i < d; ++i)
        if (!std::isfinite(lx[i]) || !std::isfinite(ly[i])) return undefined("a log-value is not finite (a zero part)");
    const auto k = static_cast<std::size_t>(sink_parts);
    std::vector<double> diff(d);
    for (std::size_t i = 0; i < d; ++i) diff[i] = lx[i] - ly[i];
    AitchisonSplit s;
    s.defined = true;
    s.distance = centred_norm(diff, 0, d);  // ||clr x - clr y||, directly
    s.balance_x = sink_balance_from_logs(lx, sink_parts);
    s.balance_y = sink_balance_from_logs(ly, sink_parts);
    s.sink_term = std::fabs(s.balance_x - s.balance_y);
    s.within_sink = centred_norm(diff, 0, k);
    s.content_term = centred_norm(diff, k, d);
    return s;
}

AitchisonSplit aitchison(const std::vector<double>& x, const std::vector<double>& y, int sink_parts) {
    same_length(x.size(), y.size(), "aitchison");
    std::vector<double> lx(x.size()), ly(y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!(x[i] > 0) || !(y[i] > 0) || !std::isfinite(x[i]) || !std::isfinite(y[i]))
            return undefined("part " + std::to_string(i) +
                             " is not strictly positive (a zero part) and no logits are given");
        lx[i] = std::log(x[i]);
        ly[i] = std::log(y[i]);
    }
    return aitchison_from_logs(lx, ly, sink_parts);
}

Attribution attribute(const SinkSplit& before, const SinkSplit& after) {
    Attribution a;
    if (!before.content_defined() || !after.content_defined()) {
        a.total = kNaN;
        for (Attribution::Part* p : {&a.termwise, &a.sink_first, &a.content_first, &a.shapley})
            p->sink = p->content = kNaN;
        return a;
    }
    // The sink block's own change: h(s) and, with several sink keys, s H(sigma).
    const double dh = (after.sink_entropy + after.sink_spread_term) - (before.sink_entropy + before.sink_spread_term);
    const double m1 = before.content_mass, m2 = after.content_mass;
    const double hc1 = before.content_entropy, hc2 = after.content_entropy;
    a.total = after.entropy - before.entropy;
    a.termwise = {dh, after.content_term - before.content_term};
    // (s1 - s2) = (m2 - m1): written with the content masses, as F uses them.
    a.sink_first = {dh + (m2 - m1) * hc1, m2 * (hc2 - hc1)};
    a.content_first = {dh + (m2 - m1) * hc2, m1 * (hc2 - hc1)};
    a.shapley = {0.5 * (a.sink_first.sink + a.content_first.sink),
                 0.5 * (a.sink_first.content + a.content_first.content)};
    return a;
}

FlipReport find_flips(const std::vector<std::vector<double>>& keep, const std::vector<std::vector<double>>& drop,
                      bool higher_is_closer, double tie_tol, std::size_t max_list) {
    const std::size_t h = keep.size();
    if (drop.size() != h) throw Error(ErrorCode::kShapeMismatch, "flips", "keep and drop matrices differ in size");
    for (std::size_t i = 0; i < h; ++i)
        if (keep[i].size() != h || drop[i].size() != h)
            throw Error(ErrorCode::kShapeMismatch, "flips", "the head-level matrices must be H x H");
    auto verdict = [&](double dp, double dq) {
        if (std::fabs(dp - dq) <= tie_tol) return Closer::tie;
        const bool p_closer = higher_is_closer ? dp > dq : dp < dq;
        return p_closer ? Closer::p : Closer::q;
    };
    FlipReport out;
    for (std::size_t r = 0; r < h; ++r)
        for (std::size_t p = 0; p < h; ++p)
            for (std::size_t q = p + 1; q < h; ++q) {
                if (p == r || q == r) continue;
                const double kp = keep[r][p], kq = keep[r][q], dp = drop[r][p], dq = drop[r][q];
                if (!std::isfinite(kp) || !std::isfinite(kq) || !std::isfinite(dp) || !std::isfinite(dq)) continue;
                ++out.triples;
                const Closer vk = verdict(kp, kq), vd = verdict(dp, dq);
                if (vk == Closer::tie || vd == Closer::tie || vk == vd) continue;
                ++out.flips;
                if (out.list.size() < max_list)
                    out.list.push_back({static_cast<int>(r), static_cast<int>(p), static_cast<int>(q), vk, vd});
            }
    return out;
}

AitchisonSplit aitchison_of_rows(const std::vector<double>& a, const std::vector<double>& b,
                                 const std::vector<double>& la, const std::vector<double>& lb, int sink_keys) {
    same_length(a.size(), b.size(), "aitchison");
    const bool logs = !la.empty() || !lb.empty();
    if (logs) {
        same_length(la.size(), a.size(), "aitchison (log-values)");
        same_length(lb.size(), b.size(), "aitchison (log-values)");
    }
    std::vector<double> lx, ly;
    int k = 0;
    for (std::size_t j = 0; j < a.size(); ++j) {
        const bool in_x = logs ? !std::isnan(la[j]) : a[j] > 0;
        const bool in_y = logs ? !std::isnan(lb[j]) : b[j] > 0;
        if (!in_x && !in_y) continue;  // outside both rows' Omega: a structural zero of both
        if (in_x != in_y)
            return undefined("key " + std::to_string(j) +
                             (logs ? " is visible in one row only" : " has weight 0 in one row only") +
                             " (a zero part" + (logs ? ")" : "; no logits are given)"));
        lx.push_back(logs ? la[j] : std::log(a[j]));
        ly.push_back(logs ? lb[j] : std::log(b[j]));
        if (static_cast<long long>(j) < sink_keys) ++k;
    }
    if (k == 0 && !lx.empty()) return undefined("no sink key is a part (the sink is not visible)");
    return aitchison_from_logs(lx, ly, k);
}

HeadComparison compare_heads(const HeadRows& x, const HeadRows& y, int sink_keys) {
    if (x.weights.size() != y.weights.size())
        throw Error(ErrorCode::kShapeMismatch, "heads", "the two heads have different numbers of rows");
    const bool logs = !x.logs.empty() && !y.logs.empty();  // else from the weights
    if (logs && (x.logs.size() != x.weights.size() || y.logs.size() != y.weights.size()))
        throw Error(ErrorCode::kShapeMismatch, "heads", "log-values and weights differ in rows");
    HeadComparison c;
    double jk = 0, jd = 0, ck = 0, cd = 0, ek = 0, ed = 0;
    double a1 = 0, a2 = 0, s2 = 0, w2 = 0, c2 = 0;
    for (std::size_t t = 0; t < x.weights.size(); ++t) {
        const auto& a = x.weights[t];
        const auto& b = y.weights[t];
        const std::string where = "row " + std::to_string(t) + ": ";
        if (a.empty() || b.empty()) {
            if (c.aitchison_reason.empty()) c.aitchison_reason = where + "an empty row (no visible key)";
            continue;
        }
        same_length(a.size(), b.size(), "compare_heads");
        const RowComparison r = compare_rows(a, b, sink_keys);
        if (std::isfinite(r.jsd.drop) && std::isfinite(r.cosine.keep) && std::isfinite(r.cosine.drop)) {
            ++c.rows;
            jk += r.jsd.keep, jd += r.jsd.drop, ck += r.cosine.keep, cd += r.cosine.drop;
            ek += r.entropy_gap.keep, ed += r.entropy_gap.drop;
        }
        const AitchisonSplit s = logs ? aitchison_of_rows(a, b, x.logs[t], y.logs[t], sink_keys)
                                      : aitchison_of_rows(a, b, {}, {}, sink_keys);
        if (!s.defined) {
            if (c.aitchison_reason.empty()) c.aitchison_reason = where + s.reason;
            continue;
        }
        ++c.aitchison_rows;
        a1 += s.distance, a2 += s.distance * s.distance;
        s2 += s.sink_term * s.sink_term, w2 += s.within_sink * s.within_sink, c2 += s.content_term * s.content_term;
    }
    const double n = c.rows, na = c.aitchison_rows;
    c.jsd = {c.rows ? jk / n : kNaN, c.rows ? jd / n : kNaN};
    c.cosine = {c.rows ? ck / n : kNaN, c.rows ? cd / n : kNaN};
    c.entropy_gap = {c.rows ? ek / n : kNaN, c.rows ? ed / n : kNaN};
    c.aitchison = na ? a1 / na : kNaN;
    c.aitchison_sq = na ? a2 / na : kNaN;
    c.sink_sq = na ? s2 / na : kNaN;
    c.within_sink_sq = na ? w2 / na : kNaN;
    c.content_sq = na ? c2 / na : kNaN;
    return c;
}

}  // namespace attn::compositional
