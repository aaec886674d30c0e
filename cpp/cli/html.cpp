// `attn html` (html.hpp): the one-file page with a state or a file in its
// <script type="application/json" id="ap-embedded" data-max-bytes="N"> block (web/embed/embedded.js).
// A state is validated by the core's validator (validate_state_json, as `attn validate`) and
// embedded normalised; an attention file (.npy, .npz, attention JSON) is first read as `attn
// analyze` reads it (a file that is not one is refused), then embedded with its tokens as base64
// and opens in the page's import view. The largest input is the template's
// data-max-bytes (defined once, in scripts/single-file.js).
#include "html.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "attn/error.hpp"
#include "attn/state_schema.hpp"
#include "sources.hpp"

namespace attn::cli {

const char* const kHtmlUsage =
    "usage: attn html INPUT [--tokens F] [--template PAGE] [--out FILE]\n"
    "  Writes the one-file page (dist/attention-playground.html) with INPUT embedded, on stdout\n"
    "  or to --out: opens from file://, in a sandboxed iframe or a notebook, with no network.\n"
    "  INPUT         a state document (JSON with \"version\": what the page's Save state\n"
    "                button downloads; docs/state.md): checked like `attn validate` and\n"
    "                opened in the playground; or an attention file (.npy, .npz, attention\n"
    "                JSON; docs/import.md): opened in the import overview\n"
    "  --tokens F    the file's tokens (JSON list of strings, or one per line)\n"
    "  --template PAGE  the one-file page to fill; default $ATTN_HTML_TEMPLATE, else\n"
    "                dist/attention-playground.html of this checkout (`npm run single-file`)\n"
    "  Inputs larger than the template's limit (data-max-bytes, 50 MB) are refused.\n"
    "  Exit status: 0 ok, 2 bad input (unreadable, invalid state, too large, no template),\n"
    "  64 usage.\n"
    "  Prefer --out to a shell redirect: a refused input writes nothing with --out, while\n"
    "  `> FILE` leaves an empty file behind.\n"
    "  Examples:\n"
    "    attn html lesson.state.json --out lesson.html\n"
    "    attn html attention.npy --tokens tokens.json --out heads.html\n";

namespace {

namespace fs = std::filesystem;

struct BadInput : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw BadInput("cannot read " + path.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string base64(const std::string& bytes) {
    static const char* const kDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const auto b = [&](std::size_t k) { return k < bytes.size() ? static_cast<unsigned char>(bytes[k]) : 0u; };
        const unsigned n = (b(i) << 16) | (b(i + 1) << 8) | b(i + 2);
        out += kDigits[(n >> 18) & 63];
        out += kDigits[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? kDigits[(n >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? kDigits[n & 63] : '=';
    }
    return out;
}

/// The template: --template, else $ATTN_HTML_TEMPLATE, else dist/ of the checkout this binary
/// was built in (build/native/attn -> ../../dist/), else ./dist/.
fs::path find_template(const std::string& given) {
    if (!given.empty()) return given;
    if (const char* env = std::getenv("ATTN_HTML_TEMPLATE"); env && *env) return env;
    const fs::path name = fs::path("dist") / "attention-playground.html";
    std::error_code ec;
    const fs::path exe = fs::canonical("/proc/self/exe", ec);
    if (!ec) {
        for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.parent_path(); dir = dir.parent_path()) {
            if (fs::exists(dir / name)) return dir / name;
        }
    }
    if (fs::exists(name)) return name;
    throw BadInput(
        "no one-file page to fill: build it with `npm run single-file` (writes "
        "dist/attention-playground.html) or give --template PAGE / $ATTN_HTML_TEMPLATE");
}

/// JSON text that is safe inside a <script> element: every '<' (only ever inside a string) as \u003c.
std::string script_safe(const std::string& json) {
    std::string out;
    out.reserve(json.size());
    for (const char c : json) {
        if (c == '<') {
            out += "\\u003c";
        } else {
            out += c;
        }
    }
    return out;
}

std::string size_text(std::uintmax_t bytes) {
    std::ostringstream s;
    s.precision(3);
    s << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MB";
    return s.str();
}

/// A file name the page's import view reads as a token list (its name says "token").
std::string tokens_name(const fs::path& path) {
    const std::string name = path.filename().string();
    if (name.find("token") != std::string::npos || path.extension() == ".txt") return name;
    return "tokens" + path.extension().string();
}

int html(const std::string& input, const std::string& tokens, const std::string& template_arg, const std::string& out) {
    const fs::path template_path = find_template(template_arg);
    std::string page = read_file(template_path);
    const std::string marker = "id=\"ap-embedded\"";
    const std::size_t at = page.find(marker);
    const std::size_t open_end = at == std::string::npos ? at : page.find('>', at);
    const std::size_t close = open_end == std::string::npos ? open_end : page.find("</script>", open_end);
    if (close == std::string::npos)
        throw BadInput(template_path.string() + " is not the one-file page (no ap-embedded block)");
    const std::size_t limit_at = page.find("data-max-bytes=\"", at);
    if (limit_at == std::string::npos || limit_at > open_end)
        throw BadInput(template_path.string() + " names no data-max-bytes limit");
    const std::uintmax_t limit = std::strtoull(page.c_str() + limit_at + 16, nullptr, 10);

    std::uintmax_t total = 0;
    for (const auto& f : {input, tokens}) {
        if (f.empty()) continue;
        std::error_code ec;
        const auto size = fs::file_size(f, ec);
        if (ec) throw BadInput("cannot read " + f);
        total += size;
    }
    if (total > limit) {
        throw BadInput("the input is " + size_text(total) + "; the one-file page embeds at most " + size_text(limit) +
                       " (open larger files in the page's import view, or use `attn analyze`)");
    }

    const std::string data = read_file(input);
    nlohmann::ordered_json payload;
    const auto parsed = nlohmann::json::parse(data, nullptr, false);
    if (!parsed.is_discarded() && parsed.is_object() && parsed.contains("version")) {
        if (!tokens.empty()) throw BadInput("--tokens is for attention files; a state carries its own tokens");
        // The core's validator (as `attn validate`); throws attn::Error on an invalid state.
        payload["kind"] = "state";
        payload["state"] = nlohmann::ordered_json::parse(validate_state_json(data));
    } else {
        // Read as `attn analyze` reads it (the format from the first bytes, the header or the
        // document parsed, the shape checked): a file the page would refuse is refused here, when
        // the page is made, not when a student opens it. A .npz with several arrays is left to the
        // page, which lets its reader pick one.
        try {
            (void)open_source(input, "");
        } catch (const UsageError&) {
        } catch (const attn::Error& e) {
            throw BadInput(input + " is neither a state document (JSON with \"version\") nor an attention file " +
                           "(.npy, .npz, attention JSON; docs/import.md): " + attn::to_string(e.code()) + ": " +
                           e.what());
        }
        payload["kind"] = "files";
        payload["files"] = nlohmann::ordered_json::array();
        payload["files"].push_back({{"name", fs::path(input).filename().string()}, {"base64", base64(data)}});
        if (!tokens.empty())
            payload["files"].push_back({{"name", tokens_name(tokens)}, {"base64", base64(read_file(tokens))}});
    }
    page.replace(open_end + 1, close - open_end - 1, script_safe(payload.dump()));

    if (out.empty()) {
        std::cout << page;
        std::cout.flush();
        if (!std::cout) throw BadInput("cannot write the page to stdout");
    } else {
        std::ofstream file(out, std::ios::binary);
        file << page;
        if (!file) throw BadInput("cannot write " + out);
    }
    return 0;
}

}  // namespace

int run_html(int argc, char** argv) {
    std::string input, tokens, template_path, out;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h") {
            std::cout << kHtmlUsage;
            return 0;
        }
        try {
            if (arg == "--tokens") {
                tokens = value();
            } else if (arg == "--template") {
                template_path = value();
            } else if (arg == "--out") {
                out = value();
            } else if (!arg.empty() && arg[0] != '-' && input.empty()) {
                input = arg;
            } else {
                throw std::invalid_argument("unknown argument " + arg);
            }
        } catch (const std::invalid_argument& e) {
            std::cerr << "attn: " << e.what() << '\n' << kHtmlUsage;
            return 64;
        }
    }
    if (input.empty()) {
        std::cerr << kHtmlUsage;
        return 64;
    }
    try {
        return html(input, tokens, template_path, out);
    } catch (const attn::Error& e) {
        std::cerr << "attn: " << input << " is not a valid state: " << attn::to_string(e.code()) << ": " << e.what()
                  << '\n';
    } catch (const BadInput& e) {
        std::cerr << "attn: " << e.what() << '\n';
    } catch (const std::exception& e) {
        std::cerr << "attn: " << e.what() << '\n';
    }
    return 2;
}

}  // namespace attn::cli
