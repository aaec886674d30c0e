// Where `attn analyze` reads heads from: a .npy file or a .npz member streamed a head at a time
// (memory: one head, whatever the file size), or an attention JSON document held in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/import.hpp"

namespace attn::cli {

/// A command line that cannot be run as written (exit status 64).
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct SourceInfo {
    std::string format;               ///< "npy" | "npz" | Tensor::format of a JSON document
    std::string dtype;                ///< "float16" | "float32" | "float64"; empty for JSON
    std::string array;                ///< the .npz member read, else empty
    std::vector<std::int64_t> shape;  ///< the array's shape (JSON: [layers, heads, n_q, n_k])
    io::Layout layout;
    std::vector<std::string> query_tokens, key_tokens;  ///< from the file (JSON), else empty
    std::vector<std::string> layer_labels, head_labels;
};

class HeadSource {
public:
    virtual ~HeadSource() = default;
    const SourceInfo& info() const { return info_; }
    /// Head `index` (= layer * heads + head) as n_q x n_k float32 into `out` (resized). Indices
    /// must be requested in increasing order: a .npz member can only be read forwards.
    virtual void read_head(int index, std::vector<float>& out) = 0;

protected:
    SourceInfo info_;
};

/// Opens FILE, telling the kind by its first bytes (\x93NUMPY, PK\x03\x04, else JSON; a .npy /
/// .npz name without its magic gets that format's error). `array` picks a .npz member ("scores"
/// or "scores.npy"); required when the archive has several. Throws attn::Error (bad input,
/// exit 2) or UsageError.
std::unique_ptr<HeadSource> open_source(const std::string& path, const std::string& array);

/// The .npz reader of open_source() over an archive already in memory (`data` must outlive the
/// source; `name` is only used in messages). The same member choice, streaming and errors as a
/// file: only the zip source differs (the .npz fuzz target, cpp/fuzz/fuzz_npz.cpp, feeds it bytes).
std::unique_ptr<HeadSource> open_npz_memory(const void* data, std::size_t size, const std::string& name,
                                            const std::string& array);

/// The whole of a (small) text file, for JSON and token files. Throws Error(kBadFile).
std::string read_text_file(const std::string& path, const char* field);

}  // namespace attn::cli
