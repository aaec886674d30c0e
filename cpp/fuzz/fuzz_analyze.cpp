// libFuzzer target: the command line `attn analyze FILE [options]` (cpp/cli/analyze.cpp) end to
// end -- options and their values (--layers / --heads lists, --top-k, --array, --format, --read),
// the attention file (.npy / .npz / JSON, told apart by its first bytes, read from disk as the CLI
// reads it), --tokens / --key-tokens files, the analysis and the JSON / CSV it prints.
//
// Input: sections separated by "\n--\n" (fuzz_util.hpp sections()):
//   [0] option bytes, each one argument (kOptions below: byte % 16, high values add a usage error)
//   [1] FILE's bytes   [2] --tokens file   [3] --key-tokens file   [4] --layers value
//   [5] --heads value  [6] --array value   [7] --top-k value       [8] --format value
//   [9] --read value
// Files live in a private temporary directory; the file arguments always name them, so an input
// cannot make the CLI read anything else. Bad input must come back as exit status 2, 3 or 64 (the
// CLI catches attn::Error, UsageError and bad_alloc); an exit status 0 must come with a complete
// JSON document on stdout (when JSON was asked for).
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <ftw.h>
#include <nlohmann/json.hpp>

#include "analyze.hpp"
#include "fuzz_util.hpp"

namespace {

std::string g_dir;  // the private directory (mkdtemp)
int g_out = -1;     // stdout's file there

int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
    return std::remove(path);
}
void remove_dir() {
    if (!g_dir.empty()) nftw(g_dir.c_str(), remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

void setup() {
    if (!g_dir.empty()) return;
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/attn-fuzz-analyze-XXXXXX";
    if (!mkdtemp(templ.data())) {
        std::perror("fuzz_analyze: mkdtemp");
        std::abort();
    }
    g_dir = templ;
    std::atexit(remove_dir);
    // The CLI prints to stdout: into a file we can read back (and that does not flood the log).
    std::fflush(stdout);
    g_out = open((g_dir + "/stdout").c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (g_out < 0 || dup2(g_out, STDOUT_FILENO) < 0) {
        std::perror("fuzz_analyze: stdout");
        std::abort();
    }
}

void write_file(const std::string& path, std::string_view bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::perror(path.c_str());
        std::abort();
    }
    if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
}

std::string read_stdout() {
    std::fflush(stdout);
    std::string text;
    char buf[1 << 14];
    off_t at = 0;
    ssize_t got;
    while ((got = pread(STDOUT_FILENO, buf, sizeof buf, at)) > 0) {
        text.append(buf, static_cast<std::size_t>(got));
        at += got;
    }
    return text;
}

void reset_stdout() {
    std::fflush(stdout);
    if (ftruncate(STDOUT_FILENO, 0) != 0 || lseek(STDOUT_FILENO, 0, SEEK_SET) < 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    setup();
    const std::vector<std::string_view> s = attn::fuzz::sections(attn::fuzz::as_text(data, size));
    auto section = [&](std::size_t i) { return i < s.size() ? std::string(s[i]) : std::string(); };

    std::string name = "input";  // a name without the magic bytes picks that format's errors
    std::vector<std::string> args = {"attn", "analyze"};
    std::vector<std::string> extra;
    for (unsigned char b : s[0]) {
        switch (b % 16) {
            case 0:
                extra.push_back("--format=csv");
                break;
            case 1:
                extra.push_back("--rows");
                break;
            case 2:
                extra.push_back("--causal");
                break;
            case 3:
                extra.push_back("--read=logits");
                break;
            case 4:
                extra.push_back("--read=weights");
                break;
            case 5:
                extra.insert(extra.end(), {"--tokens", g_dir + "/tokens"});
                break;
            case 6:
                extra.insert(extra.end(), {"--key-tokens", g_dir + "/keys"});
                break;
            case 7:
                extra.insert(extra.end(), {"--layers", section(4)});
                break;
            case 8:
                extra.insert(extra.end(), {"--heads", section(5)});
                break;
            case 9:
                extra.insert(extra.end(), {"--array", section(6)});
                break;
            case 10:
                extra.insert(extra.end(), {"--top-k", section(7)});
                break;
            case 11:
                extra.insert(extra.end(), {"--format", section(8)});
                break;
            case 12:
                extra.insert(extra.end(), {"--read", section(9)});
                break;
            case 13:
                name = "input.npy";
                break;
            case 14:
                name = "input.npz";
                break;
            case 15:
                name = "input.json";
                break;
        }
        if (b >= 0xF8) extra.push_back(b & 1 ? "-x" : g_dir + "/second-file");  // usage errors
    }
    const std::string file = g_dir + "/" + name;
    args.push_back(file);
    args.insert(args.end(), extra.begin(), extra.end());

    write_file(file, section(1));
    write_file(g_dir + "/tokens", section(2));
    write_file(g_dir + "/keys", section(3));
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    reset_stdout();
    const int status = attn::cli::run_analyze(static_cast<int>(args.size()), argv.data());
    FUZZ_CHECK(status == 0 || status == 2 || status == 3 || status == 64);
    const std::string out = read_stdout();
    if (status == 0 && !out.empty() && out.front() == '{') FUZZ_CHECK(nlohmann::json::accept(out));
    std::remove(file.c_str());
    return 0;
}
