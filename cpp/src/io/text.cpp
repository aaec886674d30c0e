// Text that is well formed: JSON strings without lone surrogates, UTF-8 without invalid bytes
// (text.hpp). Byte-level tokenizers produce halves of characters; they become U+FFFD here.
#include "attn/text.hpp"

#include <algorithm>

namespace attn {

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// The code unit of a \uXXXX escape starting at text[i] ('\\'), or -1.
int escape_unit(const std::string& text, std::size_t i) {
    if (i + 6 > text.size() || text[i] != '\\' || text[i + 1] != 'u') return -1;
    int v = 0;
    for (std::size_t k = i + 2; k < i + 6; ++k) {
        const int h = hex_value(text[k]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

/// Length of the well-formed UTF-8 sequence at text[i], or 0.
std::size_t utf8_length(const std::string& text, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = b(i);
    std::size_t n = c < 0x80                   ? 1
                    : (c >= 0xC2 && c <= 0xDF) ? 2
                    : (c >= 0xE0 && c <= 0xEF) ? 3
                    : (c >= 0xF0 && c <= 0xF4) ? 4
                                               : 0;
    if (n == 0 || i + n > text.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80) return 0;
    if (n == 3 && c == 0xE0 && b(i + 1) < 0xA0) return 0;   // overlong
    if (n == 3 && c == 0xED && b(i + 1) >= 0xA0) return 0;  // a surrogate written as UTF-8
    if (n == 4 && c == 0xF0 && b(i + 1) < 0x90) return 0;   // overlong
    if (n == 4 && c == 0xF4 && b(i + 1) >= 0x90) return 0;  // beyond U+10FFFF
    return n;
}

}  // namespace

bool json_text_needs_repair(const std::string& text) {
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n;) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\\' && i + 2 < n && text[i + 1] == 'u' && (text[i + 2] == 'd' || text[i + 2] == 'D')) return true;
        if (c < 0x80) {
            ++i;  // after a backslash too: a stray byte there is checked like any other
            continue;
        }
        const std::size_t len = utf8_length(text, i);
        if (!len) return true;
        i += len;
    }
    return false;
}

std::string well_formed_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    const std::string t(text);
    for (std::size_t i = 0; i < t.size();) {
        if (const std::size_t n = utf8_length(t, i)) {
            out.append(t, i, n);
            i += n;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    return out;
}

std::string well_formed_json_text(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    bool in_string = false;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (!in_string) {
            if (c == '"') in_string = true;
            out += c;
            ++i;
            continue;
        }
        if (c == '"') {
            in_string = false;
            out += c;
            ++i;
        } else if (c == '\\') {
            const int u = escape_unit(text, i);
            if (u >= 0xD800 && u <= 0xDBFF) {
                const int low = escape_unit(text, i + 6);
                if (low >= 0xDC00 && low <= 0xDFFF) {
                    out.append(text, i, 12);
                    i += 12;
                } else {
                    out += "\\ufffd";
                    i += 6;
                }
            } else if (u >= 0xDC00 && u <= 0xDFFF) {
                out += "\\ufffd";
                i += 6;
            } else if (i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0x80) {
                out.append(text, i, 2);  // \" \\ \n ...: the escaped character is not a string end
                i += 2;
            } else {
                out += c;  // a backslash before a stray byte: JSON refuses it, the byte is repaired
                ++i;
            }
        } else if (static_cast<unsigned char>(c) < 0x80) {
            out += c;
            ++i;
        } else if (const std::size_t n = utf8_length(text, i)) {
            out.append(text, i, n);
            i += n;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    return out;
}

}  // namespace attn
