#pragma once
// Turns a sentence into tokens. Japanese runs are cut by longest match over a
// small built-in lexicon (one token per character for anything else); other
// scripts are split on spaces and punctuation and case-folded.
#include <cstddef>
#include <string>
#include <vector>

namespace poslab {

// The most tokens one input may have. The 1024-wall exercise goes to 2048
// positions; 4096 leaves room while keeping an S×S attention matrix small
// enough for the browser (4096² floats = 64 MiB per head).
constexpr std::size_t kMaxTokens = 4096;

// The built-in Japanese lexicon, longest entries first.
const std::vector<std::string>& japanese_lexicon();

// Throws std::invalid_argument for empty or blank text, invalid UTF-8,
// control characters, or more than kMaxTokens tokens.
std::vector<std::string> tokenize(const std::string& text);

}  // namespace poslab
