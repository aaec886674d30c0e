// Replays fuzz inputs without libFuzzer: feeds every file of the directories named on the command
// line to the target's LLVMFuzzerTestOneInput, in name order, and reports how many it ran. ctest
// runs one such executable per target over tests/fuzz/corpus/<target> (the seed corpus, which must
// exist and be non-empty) and tests/fuzz/regressions/<target> (past crashes; may be absent), so
// every checked-in input runs on every test run. A crash fails the test; the input being replayed
// is printed first so the failing file is named.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/resource.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR [REGRESSIONS_DIR...]\n", argv[0]);
        return 64;
    }
    // libFuzzer refuses a single allocation above -malloc_limit_mb; here a 1 GiB address-space
    // limit makes one a std::bad_alloc, which no target catches: an input that makes the code
    // allocate far beyond its size (a .npz member claiming gigabytes) fails the test.
    const rlimit limit{rlim_t{1} << 30, rlim_t{1} << 30};
    setrlimit(RLIMIT_AS, &limit);
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t total = 0;
    for (int a = 1; a < argc; ++a) {
        const fs::path dir = argv[a];
        std::vector<fs::path> files;
        if (fs::is_directory(dir))
            for (const auto& e : fs::directory_iterator(dir))
                if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
        if (a == 1 && files.empty()) {
            std::fprintf(stderr, "replay: the corpus %s is missing or empty\n", dir.c_str());
            return 1;
        }
        std::sort(files.begin(), files.end());
        for (const fs::path& f : files) {
            std::ifstream in(f, std::ios::binary);
            const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
            std::fprintf(stderr, "replay: %s\n", f.c_str());
            static const char empty = 0;  // libFuzzer never passes a null pointer, even for size 0
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.empty() ? &empty : bytes.data()),
                                   bytes.size());
            ++total;
        }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "replay: %zu inputs without a crash in %.2f s\n", total, s);
    return 0;
}
