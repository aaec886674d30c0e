// The row metrics (metrics.def, through kRowMetrics) as CSV cells, for attn analyze and attn
// compare: the columns the page's exports write too (web/views/metrics.js). Native only: the
// shortest round-trip decimal needs std::to_chars for double.
#pragma once

#include <charconv>
#include <cmath>
#include <string>

#include "attn/analysis.hpp"
#include "attn/metrics_io.hpp"

namespace attn::cli {

/// The shortest decimal that reads back to the same double; empty for NaN / Inf (undefined).
inline std::string csv_number(double x) {
    if (!std::isfinite(x)) return "";
    char buf[40];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
}

/// The CSV cells of one row's metrics, comma-separated, in metrics.def's order (no leading or
/// trailing comma); an UNDEFINED metric of an empty row is an empty cell.
inline std::string row_metrics_csv(const RowMetrics& m) {
    std::string out;
    bool first = true;
    for (const RowMetricInfo& info : kRowMetrics) {
        if (!first) out += ',';
        first = false;
        if (m.empty && info.undefined_when_empty) continue;
        const double x = info.get(m);
        out += info.integer ? std::to_string(static_cast<long long>(x)) : csv_number(x);
    }
    return out;
}

/// The header of row_metrics_csv's cells.
inline std::string row_metrics_csv_header() {
    std::string out;
    for (const RowMetricInfo& info : kRowMetrics) out += (out.empty() ? "" : ",") + std::string(info.csv);
    return out;
}

/// A head's means as CSV cells ("" for NaN), and their header (mean_<csv>), for the MEAN metrics.
inline std::string head_summary_csv(const HeadSummary* s) {
    std::string out;
    bool first = true;
    for (const RowMetricInfo& info : kRowMetrics) {
        if (!info.mean) continue;
        if (!first) out += ',';
        first = false;
        if (s) out += csv_number(s->*(info.mean));
    }
    return out;
}
inline std::string head_summary_csv_header() {
    std::string out;
    for (const RowMetricInfo& info : kRowMetrics)
        if (info.mean) out += (out.empty() ? "" : ",") + head_csv(info);
    return out;
}

/// A head's detector scores (head_scores.def) as CSV cells, and their header.
inline std::string head_scores_csv(const FieldScores& f) {
    std::string out;
    bool first = true;
    for (const HeadScoreInfo& info : kHeadScores) {
        if (!first) out += ',';
        first = false;
        out += csv_number(f.*(info.member));
    }
    return out;
}
inline std::string head_scores_csv_header() {
    std::string out;
    for (const HeadScoreInfo& info : kHeadScores) out += (out.empty() ? "" : ",") + std::string(info.csv);
    return out;
}

}  // namespace attn::cli
