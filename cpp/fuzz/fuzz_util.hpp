// Helpers shared by the libFuzzer targets in this directory (docs/security.md "Fuzzing").
//
// Every target calls the real entry point of the code it fuzzes (no copies) and treats the
// exceptions that code is documented to throw for bad input (attn::Error, and the CLI's
// UsageError) as a normal return. Anything else -- another exception, an abort, a failed
// FUZZ_CHECK, or what AddressSanitizer / UndefinedBehaviorSanitizer catch -- is a crash.
// The same sources build without libFuzzer into replay executables (replay_main.cpp) that ctest
// runs over tests/fuzz/corpus/<target> and tests/fuzz/regressions/<target>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "attn/analysis.hpp"

/// An invariant of the code under test: a violation is a bug, reported as a crash.
#define FUZZ_CHECK(cond)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            std::abort();                                                                      \
        }                                                                                      \
    } while (0)

namespace attn::fuzz {

/// The input as text (the JSON and token readers take any bytes, invalid UTF-8 included).
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

/// Splits `data` at every "\n--\n" (the sections of a structured input: files, option values).
/// Always returns at least one section; a missing section is empty.
inline std::vector<std::string_view> sections(std::string_view data) {
    static constexpr std::string_view kSeparator = "\n--\n";
    std::vector<std::string_view> out;
    std::size_t pos = 0;
    for (;;) {
        const std::size_t at = data.find(kSeparator, pos);
        if (at == std::string_view::npos) {
            out.push_back(data.substr(pos));
            return out;
        }
        out.push_back(data.substr(pos, at - pos));
        pos = at + kSeparator.size();
    }
}

/// Analysis options picked by a few bits of `bits`, so the fuzzer reaches both readings, causal
/// checks, top-k and sink widths, rows and thumbnails (the options the page and the CLI pass).
inline AnalyzeOptions analyze_options(std::uint64_t bits) {
    AnalyzeOptions o;
    o.reading = bits & 1 ? Reading::logits : Reading::weights;
    o.causal = (bits >> 1) & 1;
    o.want_rows = (bits >> 2) & 1;
    o.top_k = 1 + static_cast<int>((bits >> 3) & 3);
    o.sink_keys = 1 + static_cast<int>((bits >> 5) & 1);
    o.thumbnail = (bits >> 6) & 1 ? 0 : 32;
    return o;
}

/// Largest head the targets analyse (cells): larger ones are only read, so one input costs
/// milliseconds, not seconds, and the fuzzer keeps its pace.
inline constexpr std::uint64_t kAnalyseCells = 1u << 16;

}  // namespace attn::fuzz
