// Attention rows as compositional data: the sink mass versus the content distribution.
//
// Source of the idea: Papamichalis & Ruane 2026, "Which Question Is Your Attention Metric
// Answering? Attention Rows as Compositional Data", arXiv:2608.14712. The formulas are the
// standard compositional-data ones written down in docs/MATH.md ("Per-row quantities", "Entropy
// identity", "Keep-sink vs drop-sink conventions", "Aitchison geometry"); the paper's own
// definitions were not available to us.
//
// A row a (n keys, a_i >= 0, sum 1; keys outside Omega_t are 0) splits into
//   * the sink mass s = sum_{j < k} a_j over the first k = sink_keys keys, and
//   * the content distribution c = a_{k:} / (1 - s) over the other keys, undefined when s = 1
//     (row 0 of every causal head: the only visible key is the sink).
// Entropy identity (grouping rule, exact): H(a) = h(s) + (1 - s) H(c), h the binary entropy.
// With k > 1 sink keys the sink has its own distribution sigma = a_{:k} / s and the rule reads
// H(a) = h(s) + s H(sigma) + (1 - s) H(c) (the middle term is 0 when k = 1).
// Every function here runs in double, natural logarithms (nats), 0 ln 0 = 0. No I/O.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn::compositional {

/// Binary entropy h(s) = -s ln s - (1-s) ln(1-s) in nats, in [0, ln 2]; h(0) = h(1) = 0.
/// NaN for s outside [0, 1] or NaN.
double binary_entropy(double s);

/// Shannon entropy -sum p_i ln p_i over the p_i > 0 (nats). p is used as given (not
/// renormalised); zeros contribute 0.
double entropy(const std::vector<double>& p);

/// `row` divided by its sum, in double: the probability vector of a float row whose sum is 1 up
/// to rounding. Throws attn::Error(kInvalidValue, "row") for a negative or non-finite entry or a
/// zero sum (an empty row has no distribution).
std::vector<double> normalized(const std::vector<double>& row);

/// The sink/content split of one row (MATH.md, "Entropy identity").
struct SinkSplit {
    double sink_mass = 0;         ///< s = sum of a_j, j < sink_keys; in [0, 1]
    double content_mass = 0;      ///< 1 - s, summed directly over the content keys (no cancellation)
    double sink_entropy = 0;      ///< h(s), nats, in [0, ln 2]
    double content_entropy = 0;   ///< H(c), nats, in [0, ln(n - sink_keys)]; NaN when s = 1
    double content_term = 0;      ///< (1 - s) H(c); 0 when s = 1 (its limit, so the identity holds)
    double sink_spread = 0;       ///< H(sigma), sigma = a_{:k} / s: 0 when k = 1; NaN when s = 0
    double sink_spread_term = 0;  ///< s H(sigma); 0 when k = 1 or s = 0
    double entropy = 0;           ///< H(a) computed directly from a
    /// H(a) - (h(s) + s H(sigma) + (1 - s) H(c)): 0 up to rounding (~1e-16)
    double residual = 0;
    bool content_defined() const { return content_mass > 0; }
};

/// Splits the probability row `a` (entries >= 0, sum 1 within 1e-9) at its first `sink_keys`
/// keys (clamped to a.size()). Throws attn::Error(kInvalidValue, "row") when `a` is not a
/// probability vector, kInvalidValue "sinkKeys" when sink_keys < 1.
SinkSplit sink_split(const std::vector<double>& a, int sink_keys = 1);

/// The content distribution c = a_{k:} / (1 - s), n - k entries (k = sink_keys clamped to n);
/// empty when s = 1 (c undefined). Same preconditions as sink_split().
std::vector<double> content(const std::vector<double>& a, int sink_keys = 1);

/// Jensen-Shannon divergence in nats, JSD(p, q) = (KL(p||m) + KL(q||m)) / 2 with m = (p + q)/2,
/// in [0, ln 2]; symmetric; 0 iff p = q. p and q: probability vectors of one length (zeros
/// allowed). Throws kShapeMismatch for different lengths.
double jensen_shannon(const std::vector<double>& p, const std::vector<double>& q);

/// Cosine similarity p.q / (|p| |q|), in [0, 1] for non-negative vectors; NaN when either is 0.
/// Throws kShapeMismatch for different lengths.
double cosine_similarity(const std::vector<double>& p, const std::vector<double>& q);

/// One row-comparison metric under both conventions (MATH.md, "Keep-sink vs drop-sink").
/// keep: on the full rows a, b; drop: on the content distributions c_a, c_b (NaN when either is
/// undefined, i.e. a sink mass of 1).
struct KeepDrop {
    double keep = 0;
    double drop = 0;
};

/// The three comparisons of two rows over the same n keys.
struct RowComparison {
    KeepDrop jsd;          ///< Jensen-Shannon divergence, nats, [0, ln 2]; lower = closer
    KeepDrop cosine;       ///< cosine similarity, [0, 1]; higher = closer
    KeepDrop entropy_gap;  ///< |H(x) - H(y)|, nats; lower = closer
};

/// Compares two probability rows of one length under keep-sink and drop-sink.
/// Throws as sink_split() and kShapeMismatch for different lengths.
RowComparison compare_rows(const std::vector<double>& a, const std::vector<double>& b, int sink_keys = 1);

/// Aitchison distance between two compositions with its orthogonal split (MATH.md, "Aitchison
/// geometry"). With k sink parts and m = D - k content parts (D parts in all) the sink balance is
///   b(x) = sqrt(k m / D) * (mean_{j<k} ln x_j - mean_{j>=k} ln x_j)
/// (k = 1: sqrt((D-1)/D) ln(x_0 / g(x_{1:})), g the geometric mean), and
///   d_A(x, y)^2 = (b(x) - b(y))^2 + d_A(x_sink, y_sink)^2 + d_A(c_x, c_y)^2
/// exactly (an orthonormal balance basis); the middle term, between the sink subcompositions, is
/// 0 when k = 1.
struct AitchisonSplit {
    bool defined = false;
    std::string reason;       ///< why not defined ("" when defined)
    double distance = 0;      ///< d_A(x, y) = ||clr x - clr y||_2
    double balance_x = 0;     ///< b(x)
    double balance_y = 0;     ///< b(y)
    double sink_term = 0;     ///< |b(x) - b(y)|
    double within_sink = 0;   ///< d_A between the sink subcompositions (0 when k = 1)
    double content_term = 0;  ///< d_A(c_x, c_y) between the content subcompositions
};

/// From two strictly positive compositions of D >= 2 parts, parts 0..k-1 the sink (1 <= k < D).
/// Not defined (defined = false, reason set, numbers NaN) when a part is <= 0 ("a zero part": the
/// log-ratio geometry has no zeros; use aitchison_from_logs() with logits), when D < 2, or when
/// k is not in [1, D). Throws kShapeMismatch for different lengths.
AitchisonSplit aitchison(const std::vector<double>& x, const std::vector<double>& y, int sink_parts = 1);

/// The same from log-values: lx_i = ln x_i + c (any constant per row), e.g. logits / tau of a
/// softmax row (clr x = centred logits / tau). Entries must be finite; undefined as aitchison()
/// for D < 2 or a bad k.
AitchisonSplit aitchison_from_logs(const std::vector<double>& lx, const std::vector<double>& ly, int sink_parts = 1);

/// clr of a composition from its log-values: lx - mean(lx).
std::vector<double> clr_from_logs(const std::vector<double>& lx);

/// Sink balance b(x) from log-values (formula at AitchisonSplit); NaN unless 1 <= k < D.
double sink_balance_from_logs(const std::vector<double>& lx, int sink_parts = 1);

/// Attribution of an entropy change H2 - H1 between two rows (two temperatures of one head, or
/// two heads) to the sink mass s and the content distribution c, with F(s, c) = h(s) + (1-s) H(c):
///   termwise:      sink = h(s2) - h(s1),                       content = (1-s2)H(c2) - (1-s1)H(c1)
///   sink first:    sink = F(s2, c1) - F(s1, c1),               content = F(s2, c2) - F(s2, c1)
///                       = h(s2)-h(s1) + (s1-s2) H(c1),                 = (1-s2)(H(c2)-H(c1))
///   content first: content = F(s1, c2) - F(s1, c1)            sink = F(s2, c2) - F(s1, c2)
///                       = (1-s1)(H(c2)-H(c1)),                         = h(s2)-h(s1) + (s1-s2) H(c2)
///   shapley:       the mean of the two orders (a two-player Shapley value).
/// With k > 1 sink keys the sink player is the whole sink block (s and sigma): every "sink" part
/// above also carries the change of s H(sigma), so each pair still sums to the total.
/// Each pair sums to F2 - F1 = H2 - H1 (up to the identity's residual). Defined only when both
/// content distributions are (s1 < 1 and s2 < 1); otherwise every number is NaN.
struct Attribution {
    double total = 0;  ///< H2 - H1, nats
    struct Part {
        double sink = 0;
        double content = 0;
    };
    Part termwise, sink_first, content_first, shapley;
};

/// Attribution from `before` (state 1) to `after` (state 2). See Attribution.
Attribution attribute(const SinkSplit& before, const SinkSplit& after);

/// The verdict of "reference R is closer to P than to Q" under one distance.
enum class Closer { p, q, tie };

/// One triple whose verdict differs between keep-sink and drop-sink (strictly: one says P, the
/// other Q; ties are never flips).
struct Flip {
    int reference = 0, p = 0, q = 0;  ///< head indices, p < q, reference != p, q
    Closer keep = Closer::tie, drop = Closer::tie;
};

struct FlipReport {
    long long triples = 0;   ///< triples (R, P < Q) with all four head-level values defined
    long long flips = 0;     ///< how many of them flip
    std::vector<Flip> list;  ///< the first `max_list` flips, by R, then P, then Q
};

/// Flip detector over H heads. keep[i][j], drop[i][j]: H x H symmetric head-level values of one
/// metric (NaN = undefined; diagonal unused); `higher_is_closer` for similarities (cosine),
/// false for divergences (JSD, entropy gap). The verdict is a tie when the two values differ by
/// at most `tie_tol`. Throws kShapeMismatch when the matrices are not H x H.
FlipReport find_flips(const std::vector<std::vector<double>>& keep, const std::vector<std::vector<double>>& drop,
                      bool higher_is_closer, double tie_tol = 1e-12, std::size_t max_list = 500);

/// The Aitchison split of two rows over the same n keys, choosing the parts: the keys visible in
/// either row (with log-values: not NaN; without, i.e. la and lb empty: weight > 0). Not defined
/// when a key is a part of one row only ("a zero part"), when fewer than 2 parts remain, or when no
/// sink key (key < sink_keys) or no content key is a part. a, b: n weights; la, lb: n log-values
/// (ln a + const, NaN where not visible) or both empty. Throws kShapeMismatch on lengths.
AitchisonSplit aitchison_of_rows(const std::vector<double>& a, const std::vector<double>& b,
                                 const std::vector<double>& la, const std::vector<double>& lb, int sink_keys = 1);

/// One head's rows, as the head-level comparisons need them.
struct HeadRows {
    /// n_q rows, each n_k probabilities (keys outside Omega_t are 0) or empty for an empty row.
    std::vector<std::vector<double>> weights;
    /// Optional (empty = not available): n_q rows of n_k log-values ln a + const (logits / tau),
    /// NaN where the key is not visible. With them the Aitchison distance needs no positive
    /// weights (clr = centred logits / tau); without them it is computed from the weights.
    std::vector<std::vector<double>> logs;
};

/// Head-level comparison of two heads of the same n_q x n_k shape (the same queries and keys).
/// JSD, cosine and entropy gap are means over the rows where both conventions are defined for
/// both heads (both rows non-empty and both sink masses < 1), so keep and drop average the same
/// rows. The Aitchison numbers are means over the rows where it is defined: the parts are the keys
/// visible (or, without logs, of positive weight) in either row; it is not defined for a row
/// when a part is visible in one row only ("a zero part"), when fewer than 2 parts remain, or
/// when no sink key or no content key is a part.
struct HeadComparison {
    int rows = 0;                  ///< rows averaged for JSD, cosine and entropy gap
    KeepDrop jsd;                  ///< mean JSD (nats); NaN when rows = 0
    KeepDrop cosine;               ///< mean cosine similarity
    KeepDrop entropy_gap;          ///< mean |H(x) - H(y)| (nats)
    int aitchison_rows = 0;        ///< rows where d_A is defined
    std::string aitchison_reason;  ///< the first undefined row's reason ("row t: ...") or ""
    double aitchison = 0;          ///< mean d_A over those rows; NaN when aitchison_rows = 0
    double aitchison_sq = 0;       ///< mean d_A^2 = sink_sq + within_sink_sq + content_sq
    double sink_sq = 0;            ///< mean (b(x) - b(y))^2
    double within_sink_sq = 0;     ///< mean squared sink-subcomposition distance (0 with one sink key)
    double content_sq = 0;         ///< mean d_A(c_x, c_y)^2
};

/// Compares head x with head y (see HeadComparison). Throws kShapeMismatch for different shapes.
HeadComparison compare_heads(const HeadRows& x, const HeadRows& y, int sink_keys = 1);

}  // namespace attn::compositional
