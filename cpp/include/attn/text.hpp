// Well-formed text for the readers of state documents, attention JSON and token files (io layer):
// one rule for a character that is not one. A lone UTF-16 surrogate (half an emoji, as byte-level
// BPE tokens and a JavaScript string sliced by code units give) or a byte sequence that is not
// UTF-8 becomes U+FFFD, the replacement character, everywhere: the page, node and the CLI
// (docs/state.md "Text").
#pragma once

#include <string>
#include <string_view>

namespace attn {

/// `text` with every JSON string made well formed: an escaped lone surrogate (\ud83d not followed
/// by a low surrogate, or a low surrogate alone) becomes \ufffd, and a byte sequence inside a
/// string that is not UTF-8 becomes U+FFFD (EF BF BD). Text outside strings is left alone.
/// Byte-level tokenizers (GPT-2's BPE) produce such halves of a character; docs/state.md "Text".
std::string well_formed_json_text(const std::string& text);

/// False when well_formed_json_text(text) == text for certain (no surrogate escape, no invalid
/// UTF-8 anywhere): the common case, which then costs one scan and no copy.
bool json_text_needs_repair(const std::string& text);

/// Characters that make a spreadsheet (Excel, LibreOffice, Sheets) read a CSV cell starting with
/// one as a formula: = + - @, a tab and a carriage return (OWASP "CSV injection"). A text cell
/// (a token) starting with one is written with a ' before it by every CSV writer of the project:
/// the page's exports (web/export/text-formats.js, through `attn schema`) and `attn analyze` (csv_text_cell).
inline constexpr char kCsvFormulaStart[] = "=+-@\t\r";

/// `s` guarded for a spreadsheet: "'" + s when s starts with a kCsvFormulaStart character.
inline std::string csv_text_cell(const std::string& s) {
    if (!s.empty() && std::string_view(kCsvFormulaStart).find(s.front()) != std::string_view::npos) return "'" + s;
    return s;
}

/// `text` with every byte sequence that is not UTF-8 replaced by U+FFFD (EF BF BD): token files
/// read one token per line.
std::string well_formed_utf8(std::string_view text);

}  // namespace attn
