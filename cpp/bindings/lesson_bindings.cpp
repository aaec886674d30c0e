// Embind bindings of the guided lesson's answers (lesson.hpp, "The guided lesson's answers"). Only
// bindings: web/lesson/steps.js hands in the numbers of the live and the reference results and
// gets the sums, renormalised weights, differences and norms its answers show. Errors come back
// as {error: {code, field, message}} like bindings.cpp, never as exceptions.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <vector>

#include "attn/lesson.hpp"
#include "bind_util.hpp"

namespace {

using attn::bind::error_val;
using emscripten::val;

std::vector<double> doubles(const val& v) {
    return emscripten::convertJSArrayToNumberVector<double>(v);
}

/// A plain JS array (not a typed array: the page maps it to strings).
val array_of(const std::vector<double>& x) {
    val out = val::array();
    for (std::size_t i = 0; i < x.size(); ++i) out.set(i, x[i]);
    return out;
}

/// lessonWeightSum(weights: number[]) -> number
double weight_sum(const val& weights) {
    return attn::weight_sum(doubles(weights));
}

/// lessonRenormalisation(before: number[], visible: (0|1|boolean)[], after: number[]) ->
///   {kept, expected: number[], maxDiff, afterSum}
val renormalisation(const val& before, const val& visible, const val& after) {
    try {
        const std::vector<double> flags = doubles(visible);
        std::vector<std::uint8_t> vis(flags.size());
        for (std::size_t j = 0; j < flags.size(); ++j) vis[j] = flags[j] != 0;
        const attn::Renormalisation r = attn::renormalisation(doubles(before), vis, doubles(after));
        val out = val::object();
        out.set("kept", r.kept);
        out.set("expected", array_of(r.expected));
        out.set("maxDiff", r.max_diff);
        out.set("afterSum", r.after_sum);
        return out;
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

/// lessonValueEdit(spec): spec {nQ, nK, dV, scores, refScores (flat n_q x n_k, NaN = not
/// visible), output, refOutput (d_v), values, refValues (flat n_k x d_v), changed (indices)} ->
///   {scoresDiff, shift: number[], shiftSize, valueShifts: number[], ratio (NaN = none)}
val value_edit(const val& spec) {
    try {
        attn::ValueEditProblem p;
        p.n_q = spec["nQ"].as<int>();
        p.n_k = spec["nK"].as<int>();
        p.d_v = spec["dV"].as<int>();
        p.scores = doubles(spec["scores"]);
        p.ref_scores = doubles(spec["refScores"]);
        p.output = doubles(spec["output"]);
        p.ref_output = doubles(spec["refOutput"]);
        p.values = doubles(spec["values"]);
        p.ref_values = doubles(spec["refValues"]);
        for (double j : doubles(spec["changed"])) p.changed.push_back(static_cast<int>(j));
        const attn::ValueEdit r = attn::value_edit(p);
        val out = val::object();
        out.set("scoresDiff", r.scores_diff);
        out.set("shift", array_of(r.shift));
        out.set("shiftSize", r.shift_size);
        out.set("valueShifts", array_of(r.value_shifts));
        out.set("ratio", r.ratio);
        return out;
    } catch (const attn::Error& e) {
        return error_val(e);
    }
}

}  // namespace

EMSCRIPTEN_BINDINGS(attn_lesson) {
    emscripten::function("lessonWeightSum", &weight_sum);
    emscripten::function("lessonRenormalisation", &renormalisation);
    emscripten::function("lessonValueEdit", &value_edit);
}
