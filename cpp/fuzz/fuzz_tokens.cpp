// libFuzzer target: a token list file (a JSON list of strings, or one token per line) through
// parse_tokens, the reader of the page's token files (Embind parseTokens) and of `attn analyze
// --tokens`, then check_token_count against a tensor size. Bad lists must end in attn::Error.
#include <cstdint>

#include "attn/import.hpp"
#include "attn/text.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace attn;
    try {
        const std::vector<std::string> tokens = io::parse_tokens(fuzz::as_text(data, size));
        std::size_t bytes = 0;
        for (const std::string& t : tokens) {
            bytes += t.size();
            // Half a character or a stray byte became U+FFFD (text.hpp): every token is UTF-8.
            FUZZ_CHECK(attn::well_formed_utf8(t) == t);
        }
        FUZZ_CHECK(bytes <= 3 * size);  // an invalid byte (1) becomes U+FFFD (3)
        io::check_token_count(tokens, static_cast<int>(tokens.size()), "keys");  // never throws
        io::check_token_count(tokens, static_cast<int>(size % 7), "queries");
    } catch (const Error&) {
    }
    return 0;
}
