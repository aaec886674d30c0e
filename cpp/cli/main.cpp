// attn: the native command-line tool over the same core as the page.
//
//   attn compute < state.json > results.json
//       Reads a state document (docs/state.md) on stdin, prints the results JSON on stdout.
//       On invalid input prints {"error": {...}} on stdout, the message on stderr, exits 2.
//   attn lab < state.json > lab.json
//       Runs the state's analysis-lab view (state.lab; docs/lab.md) on the selected head.
//   attn validate < state.json > state.json
//       Checks a state document against the schema (state_schema.hpp) and prints it normalised.
//   attn schema
//       Prints the schema's constants (limits, modes, lab views, lesson, row defaults) as JSON;
//       scripts/build.sh writes them into web/generated/schema.js for the page.
//   attn analyze FILE [options]
//       Checks and analyses every head of an attention file (.npy, .npz, JSON; docs/import.md),
//       streaming a head at a time (analyze.cpp).
//   attn compare A B [options]
//       Compares two files of the same shape head by head (compare.cpp).
//   attn html INPUT [--tokens F] [--out page.html]
//       The one-file page with a state or an attention file embedded (html.cpp).
//   attn --version | --help
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "analyze.hpp"
#include "compare.hpp"
#include "html.hpp"
#include "attn/lab.hpp"
#include "attn/state_json.hpp"
#include "attn/state_schema.hpp"

namespace {

constexpr const char* kUsage =
    "usage: attn compute < state.json\n"
    "  Computes the attention head selected by a state document (docs/state.md) and\n"
    "  prints the results JSON (scores, weights, output, per-row metrics) on stdout.\n"
    "  Exit status: 0 ok, 2 invalid state (error JSON on stdout, message on stderr),\n"
    "  64 usage error.\n"
    "usage: attn lab < state.json\n"
    "  Runs the analysis-lab view named by the state's lab.view (docs/lab.md) on the\n"
    "  selected head and prints its JSON; same exit statuses.\n"
    "usage: attn validate [--lines] < state.json\n"
    "  Checks a state document against the schema and prints it normalised;\n"
    "  same exit statuses. --lines: one state per input line, one result per line.\n"
    "usage: attn schema\n"
    "  Prints the schema's limits, modes, lab views, lesson choices and row defaults.\n"
    "\n";

/// Reads a state on stdin and prints run(state) or the error (exit 2).
int run_state(std::string (*run)(const std::string&)) {
    const std::string input{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    try {
        std::cout << run(input) << '\n';
        return 0;
    } catch (const attn::Error& e) {
        std::cout << attn::error_to_json(e) << '\n';
        std::cerr << "attn: " << attn::to_string(e.code()) << ": " << e.what() << '\n';
        return 2;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "--help" || cmd == "-h" ||
        (cmd == "analyze" && argc == 3 && (std::string(argv[2]) == "--help" || std::string(argv[2]) == "-h"))) {
        std::cout << kUsage << attn::cli::kAnalyzeUsage << attn::cli::kCompareUsage << attn::cli::kHtmlUsage;
        return 0;
    }
    if (cmd == "--version") {
        std::cout << "attn 0.1.0 (state schema 1)\n";
        return 0;
    }
    if (cmd == "compute" && argc == 2) return run_state(&attn::compute_state_json);
    if (cmd == "validate" && argc == 2) return run_state(&attn::validate_state_json);
    if (cmd == "validate" && argc == 3 && std::string(argv[2]) == "--lines") {
        // One state per line (JSON lines) in, one line out per state: the normalised state or
        // {"error": ...}. Exit 0 when every line was read (tests/node/schema_agreement.test.js).
        std::string line;
        while (std::getline(std::cin, line)) {
            try {
                std::cout << attn::validate_state_json(line) << '\n';
            } catch (const attn::Error& e) {
                std::cout << attn::error_to_json(e) << '\n';
            }
        }
        return 0;
    }
    if (cmd == "schema" && argc == 2) {
        std::cout << attn::schema_json() << '\n';
        return 0;
    }
    if (cmd == "lab" && argc == 2) return run_state(&attn::lab_state_json);
    if (cmd == "analyze") return attn::cli::run_analyze(argc, argv);
    if (cmd == "compare") return attn::cli::run_compare(argc, argv);
    if (cmd == "html") return attn::cli::run_html(argc, argv);
    std::cerr << kUsage << attn::cli::kAnalyzeUsage << attn::cli::kCompareUsage << attn::cli::kHtmlUsage;
    return 64;
}
