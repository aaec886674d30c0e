// `attn html INPUT ...`: writes the one-file page (scripts/single-file.js) with a state or an
// attention file embedded in it (web/embed/embedded.js reads it when the page starts).
#pragma once

namespace attn::cli {

/// Usage text of the html command (part of `attn --help`).
extern const char* const kHtmlUsage;

/// Runs `attn html` on argv[2..]; returns the exit status (0 ok, 2 bad input: unreadable, invalid
/// state, larger than the template's limit, or no template; 64 usage). Messages go to stderr
/// prefixed "attn: "; the page goes to stdout or --out.
int run_html(int argc, char** argv);

}  // namespace attn::cli
