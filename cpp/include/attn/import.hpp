// Reading attention tensors exported from real models, and checking what they hold.
//
// Pure functions over bytes and strings (no files, no DOM): the page calls them through Embind
// on slices of a dropped file, the CLI on what it reads from disk, so both parse and judge a file
// identically. Formats (docs/import.md):
//   * .npy, versions 1.0 / 2.0 / 3.0, little-endian float16, float32 or float64, C order;
//   * JSON: our own {tokens | queryTokens + keyTokens, attention}, CircuitsVis {tokens, attention
//     [heads, dest, src]}, BertViz {all: {attn, left_text, right_text}} or a bare list of layers;
//   * token lists: a JSON list of strings, or one token per line.
// .npz archives are zip files of .npy members: the page unpacks them with fflate, the CLI with
// libzip; each member then goes through parse_npy_header().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/error.hpp"

namespace attn::io {

/// Element type of an array file. Only little-endian IEEE floats are accepted.
enum class DType { f16, f32, f64 };

/// Bytes per element (2, 4, 8).
std::size_t item_size(DType t);
/// "float16" | "float32" | "float64".
const char* to_string(DType t);

/// What a .npy header says.
struct NpyHeader {
    int version_major = 1;
    DType dtype = DType::f32;
    std::vector<std::int64_t> shape;  ///< C order; each extent >= 0
    std::size_t data_offset = 0;      ///< byte offset of the first element (header length)
    std::uint64_t elements = 0;       ///< product of the shape
    std::uint64_t data_bytes = 0;     ///< elements * item_size
};

/// Bytes needed to hold the whole header of a .npy file whose first `n` bytes are `bytes`:
/// returns the total header length (magic + length field + dict) once n >= 12, so a reader can
/// fetch exactly that much and call parse_npy_header(). Throws Error(kBadFile) when the magic
/// "\x93NUMPY" or the version is wrong, or n < 12 ("truncated header").
std::size_t npy_header_length(const std::uint8_t* bytes, std::size_t n);

/// Parses a .npy header held in bytes[0, n). Throws Error(kBadFile, "file", message) for: a
/// truncated header, a missing or wrong magic, an unknown version, a malformed dict, fortran_order
/// True ("Fortran-order arrays are not supported: save with np.ascontiguousarray"), a big-endian
/// or non-float dtype (the message names the descr, e.g. '>f4', '|O', '<i8'), a negative or
/// non-integer extent, or a shape whose byte size overflows 64 bits. The dict is read as the
/// Python literal numpy writes: keys in any order, either quote, any spacing, a trailing comma,
/// shapes (), (5,), (2, 3) (and Python 2's 3L). descr '<f2' / '<f4' / '<f8' ('=' = native =
/// little-endian on the targets). fortran_order True is accepted when at most one extent exceeds
/// 1 (both orders are then the same bytes). A zero extent is a valid header (elements 0).
NpyHeader parse_npy_header(const std::uint8_t* bytes, std::size_t n);

/// IEEE 754 binary16 -> binary32, exact (subnormals, +-Inf and NaN included).
float half_to_float(std::uint16_t h);

/// Converts `count` little-endian elements of type `t` at `src` (any alignment) to float32 at
/// `dst`. float64 values beyond float32's range become +-Inf (and are then reported as
/// non-finite by check_head); NaN stays NaN. `src` and `dst` may be the same address for f32.
void to_float32(DType t, const std::uint8_t* src, std::size_t count, float* dst);

/// How an array's shape maps to layers x heads x queries x keys.
struct Layout {
    int layers = 1;
    int heads = 1;
    int n_q = 0;  ///< queries (destination positions, axis -2)
    int n_k = 0;  ///< keys (source positions, axis -1)
    std::uint64_t head_elements() const { return static_cast<std::uint64_t>(n_q) * n_k; }
    int total_heads() const { return layers * heads; }
};

/// Accepts [n_q, n_k], [H, n_q, n_k], [L, H, n_q, n_k] and a leading batch axis of 1 in front of
/// the 3-d and 4-d forms ([1, H, n_q, n_k] is read as [L=1, H, ...]; [1, L, H, n_q, n_k]).
/// Throws Error(kShapeMismatch, "shape") naming the shape for any other rank, a batch > 1
/// ("pick one example: the batch axis has 4 entries"), or a zero extent; Error(kTooLarge) beyond
/// kMaxImportTokens per axis or kMaxImportHeads heads in all.
Layout layout_from_shape(const std::vector<std::int64_t>& shape);

inline constexpr int kMaxImportTokens = 1 << 17;  ///< = kMaxStreamTokens
inline constexpr int kMaxImportHeads = 4096;

/// A whole attention tensor held in memory (JSON imports, small files).
struct Tensor {
    Layout layout;
    std::vector<float> data;                ///< layers * heads * n_q * n_k, row-major
    std::vector<std::string> query_tokens;  ///< n_q entries, or empty when the file has none
    std::vector<std::string> key_tokens;    ///< n_k entries (same as query_tokens unless cross)
    std::string format;                     ///< "attention-json" | "circuitsvis" | "bertviz"
    /// Labels the file gives its layers / heads ("layers": [0], "heads": ["L9H9", ...],
    /// CircuitsVis "headLabels"), as strings; empty when it gives none. layers / heads entries.
    std::vector<std::string> layer_labels;
    std::vector<std::string> head_labels;
};

/// Parses an attention JSON document (formats above; nesting depth 2 to 5 like the .npy shapes).
/// Which format, from the keys alone:
///   * an object with "version" and "heads" is a playground state: Error(kBadFile) "this is a
///     playground state (docs/state.md), not an attention file" (the page opens states itself);
///   * {"all": {"attn", "left_text", "right_text"}} or that inner object, or a top-level list:
///     "bertviz". The outer list is layers: [L][H][n_q][n_k], or [L][1][H][n_q][n_k] (a list of
///     per-layer [batch=1, H, n, n] outputs); left_text are the queries, right_text the keys;
///   * {"attention", "tokens" | "queryTokens" + "keyTokens", "layers"?, "heads"?}: "circuitsvis"
///     when it has none of layers / heads / queryTokens and the nesting depth is 2 or 3
///     ([heads, dest, src]), else "attention-json". "layers" / "heads" (CircuitsVis:
///     "headLabels") are labels, kept in layer_labels / head_labels.
/// One token list for a tensor with n_q < n_k: the queries are the last n_q tokens (the query t
/// sits at key position t + n_k - n_q, as in docs/MATH.md).
/// Numbers beyond float32's range become +-Inf; null entries are read as NaN (so both are located
/// by check_head, not silently zero).
/// Throws Error(kBadFile, "file") for text that is not JSON or not one of the formats (the
/// message says which keys were expected), Error(kBadFile, "attention") for an entry that is not a
/// number or null ("attention[0][1][2] is a string, expected a number"), Error(kShapeMismatch,
/// "attention") for ragged lists
/// (names the first path whose length differs, e.g. "attention[0][3] has 11 entries, expected
/// 12"), Error(kShapeMismatch, "tokens") when the token count does not match the tensor ("12
/// tokens for a tensor with 16 keys"), Error(kTooLarge) as layout_from_shape.
Tensor parse_attention_json(std::string_view text);

/// A token list file: a JSON array of strings, or else one token per line (a trailing newline
/// does not make an extra token; "\r\n" accepted). Throws Error(kBadFile, "tokens") for a JSON
/// value that is not an array of strings.
std::vector<std::string> parse_tokens(std::string_view text);

/// Throws Error(kShapeMismatch, "tokens") unless `tokens` is empty or has `expected` entries:
/// "12 tokens for a tensor with 16 keys" (`axis` is "keys" or "queries").
void check_token_count(const std::vector<std::string>& tokens, int expected, const char* axis);

}  // namespace attn::io
