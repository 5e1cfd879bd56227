#pragma once
// Turns a sentence into tokens with ICU's word segmentation: natively ICU's
// BreakIterator (libicu), in the wasm build the JS engine's ICU through
// Intl.Segmenter('ja', {granularity: 'word'}). Then one post-pass, the same in
// both builds (tokens_from_segments): spaces are dropped, punctuation stays a
// token of its own, case is folded, a katakana run is one token, and a kanji
// ICU left alone takes its okurigana (追|い|かけ|た → 追いかけ|た).
#include <cstddef>
#include <string>
#include <vector>

namespace poslab {

// The most tokens one input may have. The 1024-wall exercise goes to 2048
// positions; 4096 leaves room while keeping an S×S attention matrix small
// enough for the browser (4096² floats = 64 MiB per head).
constexpr std::size_t kMaxTokens = 4096;

// Throws std::invalid_argument for empty or blank text, invalid UTF-8,
// control characters, or more than kMaxTokens tokens.
std::vector<std::string> tokenize(const std::string& text);

// The post-pass over ICU's word segments (which cover the text, spaces
// included). Exposed so that it can be tested apart from any one ICU version.
std::vector<std::string> tokens_from_segments(const std::vector<std::string>& segments);

// The text as its tokens must spell it: without spaces, case-folded.
std::string token_skeleton(const std::string& text);

// Checks tokens recorded for a text (a submission's lab.tokens): at least one,
// at most kMaxTokens, none empty, and joined they are token_skeleton(text).
// Throws InvalidArgument (empty_tokens, too_many_tokens, empty_token,
// tokens_not_of_text) otherwise.
void check_tokens_of_text(const std::string& text, const std::vector<std::string>& tokens);

// Unicode Normalization Form C of UTF-8 text (composed and decomposed "José"
// become the same bytes): natively ICU's Normalizer2, in the wasm build the JS
// engine's String.prototype.normalize('NFC'). Text must be valid UTF-8.
std::string nfc(const std::string& text);

}  // namespace poslab
