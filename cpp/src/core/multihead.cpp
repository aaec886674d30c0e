// Multi-head attention from X (multihead.hpp): projections, per-head compute, G1 gate, concat,
// output projection and residual.
#include "attn/multihead.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace attn {
namespace {

std::string dims(const Matrix& m) {
    return std::to_string(m.rows) + " x " + std::to_string(m.cols);
}

std::string head_field(int h, const char* what) {
    return "heads[" + std::to_string(h) + "]." + what;
}

void check_finite(const Matrix& m, const std::string& field) {
    for (int i = 0; i < m.rows; ++i)
        for (int j = 0; j < m.cols; ++j)
            if (!std::isfinite(m(i, j)))
                throw Error(ErrorCode::kNonFinite, field,
                            field + "[" + std::to_string(i) + "][" + std::to_string(j) + "] is not a finite number");
}

void check_stored(const Matrix& m, const std::string& field) {
    if (m.rows < 0 || m.cols < 0 ||
        m.data.size() != static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols))
        throw Error(ErrorCode::kShapeMismatch, field,
                    field + " holds " + std::to_string(m.data.size()) + " values but is declared " + dims(m));
}

void check_projection(const Matrix& w, int d_model, const std::string& field, const char* dim_name) {
    check_stored(w, field);
    if (w.rows != d_model)
        throw Error(ErrorCode::kShapeMismatch, field,
                    field + " has " + std::to_string(w.rows) + " rows but X has d_model = " + std::to_string(d_model) +
                        " columns; a projection is d_model x " + dim_name);
    if (w.cols < 1)
        throw Error(ErrorCode::kShapeMismatch, field, field + " needs at least one column (" + dim_name + " >= 1)");
    if (w.cols > kMaxDim)
        throw Error(ErrorCode::kTooLarge, field,
                    field + " has " + std::to_string(w.cols) + " columns; the limit is " + std::to_string(kMaxDim));
    check_finite(w, field);
}

/// The product X W of a projection, with a float32 overflow reported against the projection.
Matrix project(const Matrix& x, const Matrix& w, const std::string& field, const char* what) {
    Matrix out = matmul(x, w, field.c_str());
    for (float v : out.data)
        if (!std::isfinite(v))
            throw Error(ErrorCode::kNonFinite, field,
                        std::string(what) + " = X " + field +
                            " overflows float32 (a value beyond "
                            "3.4e38); use smaller numbers in X or " +
                            field);
    return out;
}

}  // namespace

double gate_sigmoid(double g) noexcept {
    if (std::isnan(g)) return g;
    if (g >= 0) return 1.0 / (1.0 + std::exp(-g));
    const double e = std::exp(g);  // g < 0: no overflow, exp(g) in (0, 1)
    return e / (1.0 + e);
}

Matrix apply_gate(const Matrix& y, const std::vector<double>& gate, const char* field) {
    if (gate.size() != static_cast<std::size_t>(y.rows))
        throw Error(ErrorCode::kShapeMismatch, field,
                    std::string(field) + " has " + std::to_string(gate.size()) + " gate logits but there are " +
                        std::to_string(y.rows) + " query rows; a gate has one logit per query row");
    Matrix out(y.rows, y.cols);
    for (int t = 0; t < y.rows; ++t) {
        const double g = gate[static_cast<std::size_t>(t)];
        if (!std::isfinite(g))
            throw Error(ErrorCode::kNonFinite, field,
                        std::string(field) + "[" + std::to_string(t) + "] is not a finite number");
        const double s = gate_sigmoid(g);
        for (int j = 0; j < y.cols; ++j) out(t, j) = static_cast<float>(static_cast<double>(y(t, j)) * s);
    }
    return out;
}

Matrix matmul(const Matrix& a, const Matrix& b, const char* field) {
    if (a.cols != b.rows)
        throw Error(ErrorCode::kShapeMismatch, field,
                    std::string("cannot multiply ") + dims(a) + " by " + dims(b) + " (" + field + ")");
    Matrix out(a.rows, b.cols);
    std::vector<double> acc(static_cast<std::size_t>(b.cols));
    for (int i = 0; i < a.rows; ++i) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int k = 0; k < a.cols; ++k) {
            const double aik = a(i, k);
            if (aik == 0.0) continue;
            const float* brow = b.row(k);
            for (int j = 0; j < b.cols; ++j) acc[static_cast<std::size_t>(j)] += aik * brow[j];
        }
        for (int j = 0; j < b.cols; ++j) out(i, j) = static_cast<float>(acc[static_cast<std::size_t>(j)]);
    }
    return out;
}

void validate_layer(const LayerProblem& layer) {
    const Matrix& x = layer.x;
    check_stored(x, "x.X");
    if (x.rows < 1 || x.cols < 1)
        throw Error(ErrorCode::kShapeMismatch, "x.X", "X needs at least one token (row) and one column (d_model >= 1)");
    if (x.rows > kMaxTokens || x.cols > kMaxDim)
        throw Error(
            ErrorCode::kTooLarge, "x.X",
            "X is " + dims(x) + "; the limit is " + std::to_string(kMaxTokens) + " x " + std::to_string(kMaxDim));
    check_finite(x, "x.X");
    const int n_heads = static_cast<int>(layer.heads.size());
    if (n_heads < 1 || n_heads > kMaxHeads)
        throw Error(ErrorCode::kTooLarge, "heads",
                    "a layer has 1 to " + std::to_string(kMaxHeads) + " heads (got " + std::to_string(n_heads) + ")");
    long long sum_dv = 0;
    for (int h = 0; h < n_heads; ++h) {
        const HeadProjection& hp = layer.heads[static_cast<std::size_t>(h)];
        check_projection(hp.wq, x.cols, head_field(h, "WQ"), "d_k");
        check_projection(hp.wk, x.cols, head_field(h, "WK"), "d_k");
        if (hp.wq.cols != hp.wk.cols)
            throw Error(ErrorCode::kShapeMismatch, head_field(h, "WK"),
                        head_field(h, "WK") + " has d_k = " + std::to_string(hp.wk.cols) + " columns but " +
                            head_field(h, "WQ") + " has " + std::to_string(hp.wq.cols) +
                            "; queries and keys must share d_k");
        check_projection(hp.wv, x.cols, head_field(h, "WV"), "d_v");
        sum_dv += hp.wv.cols;
        if (!hp.gate.empty()) {
            const std::string gf = head_field(h, "gate");
            if (hp.gate.size() != static_cast<std::size_t>(x.rows))
                throw Error(ErrorCode::kShapeMismatch, gf,
                            gf + " has " + std::to_string(hp.gate.size()) + " gate logits but X has n = " +
                                std::to_string(x.rows) + " tokens; a gate has one logit per query row");
            for (std::size_t t = 0; t < hp.gate.size(); ++t)
                if (!std::isfinite(hp.gate[t]))
                    throw Error(ErrorCode::kNonFinite, gf, gf + "[" + std::to_string(t) + "] is not a finite number");
        }
    }
    if (sum_dv > kMaxTokens)
        throw Error(ErrorCode::kTooLarge, "x.WO",
                    "the heads' d_v add up to " + std::to_string(sum_dv) + "; the limit of the concatenation is " +
                        std::to_string(kMaxTokens));
    int d_out = static_cast<int>(sum_dv);
    if (layer.wo.rows != 0 || layer.wo.cols != 0) {  // given (even if malformed)
        check_stored(layer.wo, "x.WO");
        if (layer.wo.rows != sum_dv)
            throw Error(ErrorCode::kShapeMismatch, "x.WO",
                        "WO has " + std::to_string(layer.wo.rows) + " rows but the heads' outputs side by side have " +
                            std::to_string(sum_dv) + " columns (the sum of every head's d_v); WO must be " +
                            std::to_string(sum_dv) + " x d_out");
        if (layer.wo.cols < 1 || layer.wo.cols > kMaxDim)
            throw Error(layer.wo.cols < 1 ? ErrorCode::kShapeMismatch : ErrorCode::kTooLarge, "x.WO",
                        "WO must have 1 to " + std::to_string(kMaxDim) + " columns (got " +
                            std::to_string(layer.wo.cols) + ")");
        check_finite(layer.wo, "x.WO");
        d_out = layer.wo.cols;
    }
    if (layer.residual && d_out != x.cols)
        throw Error(ErrorCode::kShapeMismatch, "x.residual",
                    "the residual X + output needs the output width (" + std::to_string(d_out) +
                        (layer.wo.rows == 0 && layer.wo.cols == 0 ? ", the sum of the heads' d_v, as there is no WO"
                                                                  : ", the columns of WO") +
                        ") to equal d_model = " + std::to_string(x.cols) + " (the columns of X)");
}

Problem head_problem(const LayerProblem& layer, int h) {
    if (h < 0 || h >= static_cast<int>(layer.heads.size()))
        throw Error(ErrorCode::kInvalidValue, "head",
                    "head " + std::to_string(h) + " is not a head of the layer (0 to " +
                        std::to_string(static_cast<int>(layer.heads.size()) - 1) + ")");
    const HeadProjection& hp = layer.heads[static_cast<std::size_t>(h)];
    check_projection(hp.wq, layer.x.cols, head_field(h, "WQ"), "d_k");
    check_projection(hp.wk, layer.x.cols, head_field(h, "WK"), "d_k");
    check_projection(hp.wv, layer.x.cols, head_field(h, "WV"), "d_v");
    Problem p = layer.settings;
    p.mode = Mode::qkv;
    p.logits = Matrix();
    p.weights = Matrix();
    p.q = project(layer.x, hp.wq, head_field(h, "WQ"), "Q");
    p.k = project(layer.x, hp.wk, head_field(h, "WK"), "K");
    p.v = project(layer.x, hp.wv, head_field(h, "WV"), "V");
    return p;
}

LayerResult compute_layer(const LayerProblem& layer) {
    validate_layer(layer);
    const int n = layer.x.rows;
    const int n_heads = static_cast<int>(layer.heads.size());
    LayerResult out;
    int sum_dv = 0;
    for (int h = 0; h < n_heads; ++h) {
        out.problems.push_back(head_problem(layer, h));
        Result r = compute(out.problems.back());
        const HeadProjection& hp = layer.heads[static_cast<std::size_t>(h)];
        if (hp.gate.empty()) {
            out.ungated.emplace_back();
        } else {
            const std::string gf = head_field(h, "gate");
            Matrix gated = apply_gate(r.output, hp.gate, gf.c_str());
            out.ungated.push_back(std::move(r.output));
            r.output = std::move(gated);
        }
        sum_dv += r.output.cols;
        out.heads.push_back(std::move(r));
    }
    out.concat = Matrix(n, sum_dv);
    for (int t = 0; t < n; ++t) {
        int c = 0;
        for (const Result& r : out.heads)
            for (int j = 0; j < r.output.cols; ++j) out.concat(t, c++) = r.output(t, j);
    }
    out.output = (layer.wo.rows == 0 && layer.wo.cols == 0) ? out.concat : matmul(out.concat, layer.wo, "x.WO");
    if (layer.residual) {
        for (int t = 0; t < n; ++t)
            for (int j = 0; j < out.output.cols; ++j)
                out.output(t, j) = static_cast<float>(static_cast<double>(out.output(t, j)) + layer.x(t, j));
    }
    for (float v : out.output.data)
        if (!std::isfinite(v))
            throw Error(ErrorCode::kNonFinite, "x.WO",
                        "the layer output overflows float32 (a value beyond 3.4e38); use smaller numbers in WO or X");
    return out;
}

LayerCost layer_cost(const LayerShape& shape) {
    if (shape.d_k.size() != shape.d_v.size())
        throw Error(ErrorCode::kShapeMismatch, "heads",
                    "the layer's shape lists " + std::to_string(shape.d_k.size()) + " d_k but " +
                        std::to_string(shape.d_v.size()) + " d_v; each head has one of each");
    if (shape.n < 0 || shape.d_model < 0 || shape.wo_rows < 0 || shape.wo_cols < 0)
        throw Error(ErrorCode::kInvalidValue, "x.X", "a size of the layer is negative");
    const double n = shape.n;
    const double d = shape.d_model;
    LayerCost c;
    for (std::size_t h = 0; h < shape.d_k.size(); ++h) {
        const double dk = shape.d_k[h];
        const double dv = shape.d_v[h];
        if (dk < 0 || dv < 0)
            throw Error(ErrorCode::kInvalidValue, head_field(static_cast<int>(h), "WQ"),
                        "d_k and d_v cannot be negative");
        c.projection_macs += n * d * (2 * dk + dv);
        c.attention_macs += n * n * (dk + dv);
    }
    c.output_macs = n * static_cast<double>(shape.wo_rows) * static_cast<double>(shape.wo_cols);
    return c;
}

HeadCost head_cost(Mode mode, int n_q, int n_k, int d_k, int d_v, int block_rows) {
    if (n_q < 0 || n_k < 0 || d_k < 0 || d_v < 0 || block_rows < 1)
        throw Error(ErrorCode::kInvalidValue, "head", "a size of the head is negative (or block_rows < 1)");
    HeadCost c;
    c.cells = static_cast<double>(n_q) * n_k;
    c.matrix_bytes = 4 * c.cells;
    c.score_macs = mode == Mode::qkv ? c.cells * d_k : 0;
    c.output_macs = c.cells * d_v;
    c.stream_bytes = 2 * 4 * static_cast<double>(std::min(block_rows, n_q)) * n_k;
    return c;
}

}  // namespace attn
