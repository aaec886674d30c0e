// .npy / .npz / JSON head sources of `attn analyze` (sources.hpp).
#include "sources.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <zip.h>

#include "attn/analysis.hpp"

namespace attn::cli {
namespace {

[[noreturn]] void bad(const std::string& message) {
    throw Error(ErrorCode::kBadFile, "file", message);
}

bool ends_with(const std::string& s, const std::string& suffix) {
    if (s.size() < suffix.size()) return false;
    std::string tail = s.substr(s.size() - suffix.size());
    std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return std::tolower(c); });
    return tail == suffix;
}

/// Forward-only byte stream of known total size.
class ByteStream {
public:
    virtual ~ByteStream() = default;
    /// Reads up to n bytes; returns how many (fewer only at the end).
    virtual std::size_t read(void* dst, std::size_t n) = 0;
    /// Skips n bytes forward.
    virtual void skip(std::uint64_t n) = 0;
    virtual std::uint64_t size() const = 0;
    void read_exact(void* dst, std::size_t n, const char* what) {
        if (read(dst, n) != n) bad(std::string("truncated ") + what + ": the file ends early");
    }
};

class FileStream : public ByteStream {
public:
    explicit FileStream(const std::string& path) {
        f_ = std::fopen(path.c_str(), "rb");
        if (!f_) bad("cannot open " + path + ": " + std::strerror(errno));
        struct stat st {};
        if (fstat(fileno(f_), &st) != 0 || !S_ISREG(st.st_mode)) {
            std::fclose(f_);
            bad("cannot read " + path + ": not a regular file");
        }
        size_ = static_cast<std::uint64_t>(st.st_size);
    }
    ~FileStream() override { std::fclose(f_); }
    std::size_t read(void* dst, std::size_t n) override {
        std::size_t got = std::fread(dst, 1, n, f_);
        if (got < n && std::ferror(f_)) bad(std::string("read error: ") + std::strerror(errno));
        return got;
    }
    void skip(std::uint64_t n) override {
        if (n && fseeko(f_, static_cast<off_t>(n), SEEK_CUR) != 0)
            bad(std::string("seek error: ") + std::strerror(errno));
    }
    std::uint64_t size() const override { return size_; }

private:
    std::FILE* f_ = nullptr;
    std::uint64_t size_ = 0;
};

std::string zip_message(int code) {
    zip_error_t e;
    zip_error_init_with_code(&e, code);
    std::string s = zip_error_strerror(&e);
    zip_error_fini(&e);
    return s;
}

/// A member of an open archive, read with zip_fread (inflated on the fly).
class ZipMemberStream : public ByteStream {
public:
    ZipMemberStream(zip_t* archive, zip_uint64_t index, std::uint64_t size) : size_(size) {
        f_ = zip_fopen_index(archive, index, 0);
        if (!f_) bad(std::string("cannot read the .npz member: ") + zip_strerror(archive));
    }
    ~ZipMemberStream() override { zip_fclose(f_); }
    std::size_t read(void* dst, std::size_t n) override {
        std::size_t total = 0;
        auto* p = static_cast<char*>(dst);
        while (total < n) {
            const zip_int64_t got = zip_fread(f_, p + total, n - total);
            if (got < 0) bad(std::string("cannot inflate the .npz member: ") + zip_file_strerror(f_));
            if (got == 0) break;
            total += static_cast<std::size_t>(got);
        }
        return total;
    }
    void skip(std::uint64_t n) override {
        char buf[1 << 16];
        while (n > 0) {
            const std::size_t step = static_cast<std::size_t>(std::min<std::uint64_t>(n, sizeof buf));
            if (read(buf, step) != step) bad("truncated .npy data in the .npz member");
            n -= step;
        }
    }
    std::uint64_t size() const override { return size_; }

private:
    zip_file_t* f_ = nullptr;
    std::uint64_t size_ = 0;
};

/// An .npy array on a stream: header first, then heads on demand, in increasing order.
class NpySource : public HeadSource {
public:
    NpySource(std::unique_ptr<ByteStream> s, std::string format, std::string array,
              std::shared_ptr<zip_t> archive = nullptr)
        : archive_(std::move(archive)), s_(std::move(s)) {
        std::vector<std::uint8_t> head(12);
        const std::size_t got = s_->read(head.data(), head.size());
        const std::size_t total = io::npy_header_length(head.data(), got);
        head.resize(total);
        if (total > 12) {
            const std::size_t more = s_->read(head.data() + 12, total - 12);
            head.resize(12 + more);
        }
        const io::NpyHeader h = io::parse_npy_header(head.data(), head.size());
        info_.layout = io::layout_from_shape(h.shape);
        if (s_->size() < h.data_offset + h.data_bytes)
            bad("truncated .npy data: the header promises " + std::to_string(h.data_bytes) +
                " bytes of data after byte " + std::to_string(h.data_offset) + ", the " +
                (array.empty() ? "file" : "member") + " has " + std::to_string(s_->size()) + " bytes in all");
        dtype_ = h.dtype;
        info_.format = std::move(format);
        info_.dtype = io::to_string(h.dtype);
        info_.array = std::move(array);
        info_.shape = h.shape;
        head_bytes_ = info_.layout.head_elements() * io::item_size(h.dtype);
    }
    void read_head(int index, std::vector<float>& out) override {
        if (index < next_) throw std::logic_error("heads must be read in increasing order");
        s_->skip(static_cast<std::uint64_t>(index - next_) * head_bytes_);
        // In chunks, `out` growing only as the bytes arrive: a .npz member's size is what its zip
        // header claims, and a 200-byte archive claiming a 1 GB member made this allocate and
        // zero 3 GB before finding the data missing (found writing cpp/fuzz/fuzz_npz.cpp). Growth is
        // geometric up to the head's size, so a real head is read with at most one copy.
        const std::size_t count = static_cast<std::size_t>(info_.layout.head_elements());
        const std::size_t item = io::item_size(dtype_);
        if (out.size() > count) out.resize(count);
        for (std::size_t done = 0; done < count;) {
            const std::size_t n = std::min(count - done, kChunkElements);
            if (out.capacity() < done + n) out.reserve(std::min(count, std::max(2 * out.capacity(), done + n)));
            if (out.size() < done + n) out.resize(done + n);
            if (dtype_ == io::DType::f32) {
                s_->read_exact(out.data() + done, n * item, ".npy data");
            } else {
                raw_.resize(n * item);
                s_->read_exact(raw_.data(), n * item, ".npy data");
                io::to_float32(dtype_, raw_.data(), n, out.data() + done);
            }
            done += n;
        }
        next_ = index + 1;
    }

private:
    static constexpr std::size_t kChunkElements = std::size_t{1} << 20;  // 4 MiB of float32
    std::shared_ptr<zip_t> archive_;                                     // outlives s_ (declared first, destroyed last)
    std::unique_ptr<ByteStream> s_;
    io::DType dtype_ = io::DType::f32;
    std::size_t head_bytes_ = 0;
    std::vector<std::uint8_t> raw_;
    int next_ = 0;
};

class JsonSource : public HeadSource {
public:
    explicit JsonSource(const std::string& path) {
        t_ = io::parse_attention_json(read_text_file(path, "file"));
        info_.format = t_.format;
        info_.layout = t_.layout;
        info_.shape = {t_.layout.layers, t_.layout.heads, t_.layout.n_q, t_.layout.n_k};
        info_.query_tokens = t_.query_tokens;
        info_.key_tokens = t_.key_tokens;
        info_.layer_labels = t_.layer_labels;
        info_.head_labels = t_.head_labels;
    }
    void read_head(int index, std::vector<float>& out) override {
        const std::size_t n = static_cast<std::size_t>(t_.layout.head_elements());
        const auto first = t_.data.begin() + static_cast<std::ptrdiff_t>(n * static_cast<std::size_t>(index));
        out.assign(first, first + static_cast<std::ptrdiff_t>(n));
    }

private:
    io::Tensor t_;
};

/// Several members of one layer each ("layer_0", "blocks.4.attn.hook_pattern"...: a layer number
/// in every name, the same [heads, n_q, n_k] and dtype) read as one file of those layers, in the
/// order of their numbers; the names are its layer labels (docs/import.md "Layer numbers").
class LayersSource : public HeadSource {
public:
    LayersSource(std::vector<std::unique_ptr<HeadSource>> layers, std::vector<std::string> names)
        : layers_(std::move(layers)) {
        const SourceInfo& first = layers_.front()->info();
        info_.format = "npz";
        info_.dtype = first.dtype;
        info_.array = names.front() + " ... " + names.back();
        info_.layout = first.layout;
        info_.layout.layers = static_cast<int>(layers_.size());
        info_.shape = {info_.layout.layers, info_.layout.heads, info_.layout.n_q, info_.layout.n_k};
        info_.layer_labels = std::move(names);
    }
    void read_head(int index, std::vector<float>& out) override {
        const int heads = info_.layout.heads;
        layers_[static_cast<std::size_t>(index / heads)]->read_head(index % heads, out);
    }

private:
    std::vector<std::unique_ptr<HeadSource>> layers_;
};

/// The member `array` (or the only .npy member) of an open archive, which the source then owns.
std::unique_ptr<HeadSource> open_npz_archive(zip_t* raw, const std::string& path, const std::string& array) {
    std::shared_ptr<zip_t> archive(raw, [](zip_t* z) { zip_discard(z); });

    std::vector<std::string> names;
    std::vector<zip_uint64_t> indices;
    const zip_int64_t n = zip_get_num_entries(raw, 0);
    for (zip_int64_t i = 0; i < n; ++i) {
        const char* name = zip_get_name(raw, static_cast<zip_uint64_t>(i), 0);
        if (!name || !ends_with(name, ".npy")) continue;
        names.emplace_back(name);
        indices.push_back(static_cast<zip_uint64_t>(i));
    }
    auto list = [&] {
        std::string s;
        for (const auto& name : names) s += (s.empty() ? "" : ", ") + name.substr(0, name.size() - 4);
        return s;
    };
    if (names.empty()) bad(path + " holds no .npy member");
    std::size_t pick = 0;
    if (!array.empty()) {
        auto it = std::find_if(names.begin(), names.end(),
                               [&](const std::string& name) { return name == array || name == array + ".npy"; });
        if (it == names.end())
            throw UsageError("--array " + array + ": " + path + " has no such member; it holds " + list());
        pick = static_cast<std::size_t>(it - names.begin());
    } else if (names.size() > 1) {
        // One member per layer, each naming its layer: read as one file of those layers.
        std::vector<std::string> stems;
        for (const auto& name : names) stems.push_back(name.substr(0, name.size() - 4));
        const std::vector<int> numbers = layer_numbers_from_labels(stems);
        if (numbers.size() == names.size()) {
            std::vector<std::size_t> order(names.size());
            for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
            std::sort(order.begin(), order.end(),
                      [&](std::size_t a, std::size_t b) { return numbers[a] < numbers[b]; });
            std::vector<std::unique_ptr<HeadSource>> layers;
            std::vector<std::string> sorted;
            bool same = true;
            for (std::size_t k : order) {
                zip_stat_t st;
                zip_stat_init(&st);
                if (zip_stat_index(raw, indices[k], 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
                    same = false;
                    break;
                }
                layers.push_back(std::make_unique<NpySource>(
                    std::make_unique<ZipMemberStream>(raw, indices[k], st.size), "npz", stems[k], archive));
                const SourceInfo& a = layers.front()->info();
                const SourceInfo& b = layers.back()->info();
                same = same && b.layout.layers == 1 && b.dtype == a.dtype && b.layout.heads == a.layout.heads &&
                       b.layout.n_q == a.layout.n_q && b.layout.n_k == a.layout.n_k;
                sorted.push_back(stems[k]);
            }
            if (same) return std::make_unique<LayersSource>(std::move(layers), std::move(sorted));
        }
        throw UsageError(path + " holds " + std::to_string(names.size()) + " arrays (" + list() +
                         "): pick one with --array NAME");
    }
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(raw, indices[pick], 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        bad(std::string("cannot read the .npz member ") + names[pick] + ": " + zip_strerror(raw));
    auto stream = std::make_unique<ZipMemberStream>(raw, indices[pick], st.size);
    const std::string member = names[pick].substr(0, names[pick].size() - 4);
    return std::make_unique<NpySource>(std::move(stream), "npz", member, archive);
}

std::unique_ptr<HeadSource> open_npz(const std::string& path, const std::string& array) {
    int err = 0;
    zip_t* raw = zip_open(path.c_str(), ZIP_RDONLY, &err);
    if (!raw) bad("cannot read " + path + " as a .npz (zip) archive: " + zip_message(err));
    return open_npz_archive(raw, path, array);
}

}  // namespace

std::unique_ptr<HeadSource> open_npz_memory(const void* data, std::size_t size, const std::string& name,
                                            const std::string& array) {
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* source = zip_source_buffer_create(data, size, 0, &error);
    if (!source) {
        const std::string message = zip_error_strerror(&error);
        zip_error_fini(&error);
        bad("cannot read " + name + " as a .npz (zip) archive: " + message);
    }
    zip_t* raw = zip_open_from_source(source, ZIP_RDONLY, &error);
    if (!raw) {
        zip_source_free(source);  // still ours when the open fails
        const std::string message = zip_error_strerror(&error);
        zip_error_fini(&error);
        bad("cannot read " + name + " as a .npz (zip) archive: " + message);
    }
    zip_error_fini(&error);
    return open_npz_archive(raw, name, array);
}

std::string read_text_file(const std::string& path, const char* field) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error(ErrorCode::kBadFile, field, "cannot open " + path + ": " + std::strerror(errno));
    std::string text;
    char buf[1 << 16];
    std::size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
    const bool failed = std::ferror(f);
    std::fclose(f);
    if (failed) throw Error(ErrorCode::kBadFile, field, "cannot read " + path);
    return text;
}

std::unique_ptr<HeadSource> open_source(const std::string& path, const std::string& array) {
    unsigned char magic[6] = {};
    std::size_t got = 0;
    {
        std::FILE* f = std::fopen(path.c_str(), "rb");
        if (!f) bad("cannot open " + path + ": " + std::strerror(errno));
        got = std::fread(magic, 1, sizeof magic, f);
        std::fclose(f);
    }
    if (got == 0) bad(path + " is empty");
    const bool npy_magic = got == 6 && std::memcmp(magic, "\x93NUMPY", 6) == 0;
    const bool zip_magic = got >= 4 && magic[0] == 'P' && magic[1] == 'K' &&
                           ((magic[2] == 3 && magic[3] == 4) || (magic[2] == 5 && magic[3] == 6));
    if (npy_magic || (!zip_magic && ends_with(path, ".npy"))) {
        if (!array.empty()) throw UsageError("--array picks a member of a .npz archive; " + path + " is a .npy file");
        return std::make_unique<NpySource>(std::make_unique<FileStream>(path), "npy", "");
    }
    if (zip_magic || ends_with(path, ".npz")) return open_npz(path, array);
    if (!array.empty()) throw UsageError("--array picks a member of a .npz archive; " + path + " is JSON");
    return std::make_unique<JsonSource>(path);
}

}  // namespace attn::cli
