// The row metrics (metrics.def, through kRowMetrics) as JSON: one rule for every writer
// (state_json, attn analyze, attn compare, the schema; their CSV: cpp/cli/metrics_csv.hpp). Generic over the JSON type
// J (nlohmann::json or nlohmann::ordered_json, given by the includer: this header includes no JSON library, so the
// public headers stay free of one).
#pragma once

#include <cmath>
#include <string>

#include "attn/analysis.hpp"
#include "attn/row_metrics.hpp"

namespace attn {

/// A head's JSON key of a MEAN metric: "mean" + the row key with its first letter capitalised
/// ("entropy" -> "meanEntropy", "nEff" -> "meanNEff").
inline std::string head_key(const RowMetricInfo& m) {
    std::string k = m.key;
    if (!k.empty() && k[0] >= 'a' && k[0] <= 'z') k[0] = static_cast<char>(k[0] - 'a' + 'A');
    return "mean" + k;
}
/// A comparison's JSON key of a MEAN metric's difference: "delta" + Key ("deltaEntropy").
inline std::string delta_key(const RowMetricInfo& m) {
    return "delta" + head_key(m).substr(4);
}
/// A head's CSV column of a MEAN metric: "mean_" + the row column.
inline std::string head_csv(const RowMetricInfo& m) {
    return std::string("mean_") + m.csv;
}

/// A metric's value as JSON: null when not finite (an empty row's UNDEFINED metric).
template <class J>
J metric_value_json(const RowMetricInfo& info, const RowMetrics& m) {
    if (m.empty && info.undefined_when_empty) return J(nullptr);
    const double x = info.get(m);
    if (info.integer) return J(static_cast<long long>(x));
    return std::isfinite(x) ? J(x) : J(nullptr);
}

/// One row: {"empty": bool, <key>: value, ...} in metrics.def's order.
template <class J>
J row_metrics_json(const RowMetrics& m) {
    J j;
    j["empty"] = m.empty;
    for (const RowMetricInfo& info : kRowMetrics) j[info.key] = metric_value_json<J>(info, m);
    return j;
}

/// Rows as columns: {<key>: [value per row], ..., "empty": [bool per row]}.
template <class J, class Rows>
J rows_columns_json(const Rows& rows) {
    J j;
    for (const RowMetricInfo& info : kRowMetrics) {
        J col = J::array();
        for (const RowMetrics& m : rows) col.push_back(metric_value_json<J>(info, m));
        j[info.key] = std::move(col);
    }
    J empty = J::array();
    for (const RowMetrics& m : rows) empty.push_back(m.empty);
    j["empty"] = std::move(empty);
    return j;
}

/// A head's summary: {"rows", "emptyRows", "mean<Key>": value (null when NaN), ...}.
template <class J>
J head_summary_json(const HeadSummary& s) {
    J j;
    j["rows"] = s.rows;
    j["emptyRows"] = s.empty_rows;
    for (const RowMetricInfo& info : kRowMetrics) {
        if (!info.mean) continue;
        const double x = s.*(info.mean);
        j[head_key(info)] = std::isfinite(x) ? J(x) : J(nullptr);
    }
    return j;
}

/// The table itself, for `attn schema` (web/generated/schema.js "metrics"): per metric
/// {field, key, csv, unit, integer, head (null or {key, csv}), emptyUndefined}.
template <class J>
J row_metrics_schema_json() {
    J list = J::array();
    for (const RowMetricInfo& info : kRowMetrics) {
        J e;
        e["field"] = info.field;
        e["key"] = info.key;
        e["csv"] = info.csv;
        e["unit"] = info.unit;
        e["integer"] = info.integer;
        e["head"] = info.mean ? J{{"key", head_key(info)}, {"csv", head_csv(info)}} : J(nullptr);
        e["emptyUndefined"] = info.undefined_when_empty;
        list.push_back(std::move(e));
    }
    return list;
}

/// The head-detector scores and the pattern classes (head_scores.def), for `attn schema`:
/// {"headScores": [{key, csv}], "patternKinds": [name, ...]}.
template <class J>
J head_scores_schema_json() {
    J scores = J::array();
    for (const HeadScoreInfo& info : kHeadScores) scores.push_back(J{{"key", info.key}, {"csv", info.csv}});
    J kinds = J::array();
    for (PatternKind k : kPatternKinds) kinds.push_back(to_string(k));
    return J{{"headScores", std::move(scores)}, {"patternKinds", std::move(kinds)}};
}

}  // namespace attn
