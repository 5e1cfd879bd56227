#include "poslab/tokenizer.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "poslab/errors.hpp"

namespace poslab {
namespace {

struct CodePoint {
    char32_t value;
    std::size_t byte_offset;
    std::size_t byte_length;
};

std::string hex(char32_t c) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
    return buf;
}

std::vector<CodePoint> decode_utf8(const std::string& text) {
    std::vector<CodePoint> out;
    out.reserve(text.size());
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned char b = s[i];
        std::size_t len = 0;
        char32_t cp = 0;
        char32_t min = 0;
        if (b < 0x80) { len = 1; cp = b; }
        else if ((b & 0xE0) == 0xC0) { len = 2; cp = b & 0x1F; min = 0x80; }
        else if ((b & 0xF0) == 0xE0) { len = 3; cp = b & 0x0F; min = 0x800; }
        else if ((b & 0xF8) == 0xF0) { len = 4; cp = b & 0x07; min = 0x10000; }
        bool ok = len != 0 && i + len <= n;
        for (std::size_t k = 1; ok && k < len; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) ok = false;
            else cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (ok && len > 1 && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
        if (!ok) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "0x%02X", b);
            throw InvalidArgument("text_not_utf8",
                                  "text is not valid UTF-8 (byte " + std::string(buf) + " at offset " +
                                      std::to_string(i) + "); the lab reads UTF-8 text only",
                                  {{"offset", std::to_string(i)}});
        }
        out.push_back({cp, i, len});
        i += len;
    }
    return out;
}

bool is_space(char32_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x00A0 || c == 0x3000 ||
           (c >= 0x2000 && c <= 0x200B) || c == 0x202F || c == 0x205F || c == 0xFEFF;
}

bool is_control(char32_t c) {
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || (c >= 0x7F && c <= 0x9F);
}

bool is_private_use(char32_t c) {
    return (c >= 0xE000 && c <= 0xF8FF) || c >= 0xF0000;
}

// Kana, CJK ideographs and CJK punctuation: cut by the lexicon, not by spaces.
bool is_japanese(char32_t c) {
    return (c >= 0x3001 && c <= 0x303F) ||  // CJK punctuation (、。「」…), not U+3000 (a space)
           (c >= 0x3040 && c <= 0x30FF) ||  // hiragana, katakana
           (c >= 0x31F0 && c <= 0x31FF) ||  // katakana extensions
           (c >= 0x3400 && c <= 0x4DBF) ||  // CJK extension A
           (c >= 0x4E00 && c <= 0x9FFF) ||  // CJK unified ideographs
           (c >= 0xF900 && c <= 0xFAFF) ||  // CJK compatibility ideographs
           (c >= 0xFF61 && c <= 0xFF9F) ||  // half-width katakana
           (c >= 0x20000 && c <= 0x2FFFF);  // CJK extensions B…
}

// ASCII and full-width ASCII punctuation and symbols, plus general punctuation.
bool is_punctuation(char32_t c) {
    if (c < 0x80) return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) ||
                         (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
    if (c >= 0xFF01 && c <= 0xFF5E) return is_punctuation(c - 0xFF01 + 0x21);
    return (c >= 0x00A1 && c <= 0x00BF && c != 0x00AA && c != 0x00B5 && c != 0x00BA) ||
           c == 0x00D7 || c == 0x00F7 || (c >= 0x2010 && c <= 0x2027) ||
           (c >= 0x2030 && c <= 0x205E);
}

// Simple case folding for the scripts with case that the lab is likely to see.
char32_t fold_case(char32_t c) {
    if (c >= 'A' && c <= 'Z') return c + 0x20;
    if (c >= 0xFF21 && c <= 0xFF3A) return c + 0x20;                // full-width A-Z
    if (c >= 0x00C0 && c <= 0x00DE && c != 0x00D7) return c + 0x20;  // Latin-1
    if (c >= 0x0100 && c <= 0x017F && c != 0x0130 && c != 0x0131 && c != 0x0138 && c != 0x0149 &&
        c != 0x017F) {
        // Latin Extended-A alternates upper/lower, in two runs with different parity.
        const bool upper_even = (c <= 0x0137) || (c >= 0x014A && c <= 0x0177);
        if (upper_even ? (c % 2 == 0) : (c % 2 == 1 && c != 0x0178)) return c + 1;
        if (c == 0x0178) return 0x00FF;
        return c;
    }
    if (c >= 0x0391 && c <= 0x03A9 && c != 0x03A2) return c + 0x20;  // Greek
    if (c >= 0x0410 && c <= 0x042F) return c + 0x20;                 // Cyrillic
    if (c >= 0x0400 && c <= 0x040F) return c + 0x50;
    return c;
}

void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

}  // namespace

const std::vector<std::string>& japanese_lexicon() {
    // Content words and particles of the lab's example sentences, longest first
    // so that the first match found is the longest.
    static const std::vector<std::string> lexicon = [] {
        std::vector<std::string> words = {
            "追いかけ", "食べ", "走っ", "読ん", "座っ", "子ども", "テーブル", "から", "まで",
            "犬", "猫", "鳥", "魚", "人", "本", "鍵", "机", "上", "私", "彼", "見",
            "が", "を", "は", "に", "の", "で", "と", "も", "へ", "た", "だ", "て"};
        std::stable_sort(words.begin(), words.end(),
                         [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
        return words;
    }();
    return lexicon;
}

std::vector<std::string> tokenize(const std::string& text) {
    const std::vector<CodePoint> cps = decode_utf8(text);
    std::vector<std::string> tokens;
    std::string word;  // the current space-separated word, case-folded
    auto flush_word = [&] {
        if (!word.empty()) tokens.push_back(std::move(word));
        word.clear();
    };
    auto check_count = [&] {
        if (tokens.size() > kMaxTokens)
            throw InvalidArgument("too_many_tokens",
                                  "text has more than " + std::to_string(kMaxTokens) +
                                      " tokens; the lab takes at most " + std::to_string(kMaxTokens),
                                  {{"limit", std::to_string(kMaxTokens)}});
    };

    for (std::size_t i = 0; i < cps.size();) {
        const char32_t c = cps[i].value;
        if (is_control(c) || is_private_use(c)) {
            const std::string what = is_control(c) ? "a control character" : "a private-use character";
            throw InvalidArgument("bad_character",
                                  "text contains " + what + " (" + hex(c) + ") at character " +
                                      std::to_string(i + 1) +
                                      "; only printable characters, spaces and line breaks are allowed",
                                  {{"character", hex(c)}, {"index", std::to_string(i + 1)}});
        }
        if (is_space(c)) {
            flush_word();
            ++i;
        } else if (is_japanese(c)) {
            flush_word();
            // Longest match over the lexicon, comparing raw bytes from this code point on.
            const std::size_t at = cps[i].byte_offset;
            std::size_t matched_bytes = 0;
            for (const std::string& w : japanese_lexicon()) {
                if (text.compare(at, w.size(), w) == 0) {
                    matched_bytes = w.size();
                    break;
                }
            }
            if (matched_bytes == 0) matched_bytes = cps[i].byte_length;
            tokens.push_back(text.substr(at, matched_bytes));
            const std::size_t end = at + matched_bytes;
            while (i < cps.size() && cps[i].byte_offset < end) ++i;
        } else if (is_punctuation(c)) {
            flush_word();
            std::string p;
            append_utf8(p, c);
            tokens.push_back(std::move(p));
            ++i;
        } else {
            append_utf8(word, fold_case(c));
            ++i;
        }
        check_count();
    }
    flush_word();
    check_count();
    if (tokens.empty())
        throw InvalidArgument("empty_text",
                              text.empty() ? "text is empty; type a sentence such as 犬が猫を追いかけた"
                                           : "text has only spaces; type a sentence such as 犬が猫を追いかけた");
    return tokens;
}

}  // namespace poslab
