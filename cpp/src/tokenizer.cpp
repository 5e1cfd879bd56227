#include "poslab/tokenizer.hpp"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "poslab/errors.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten/val.h>
#else
#include <unicode/brkiter.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>
#endif

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

bool is_hiragana(char32_t c) { return c >= 0x3041 && c <= 0x309F; }

// Katakana, the prolonged sound mark ー and half-width katakana; not the middle dot ・ (U+30FB).
bool is_katakana(char32_t c) {
    return (c >= 0x30A1 && c <= 0x30FA) || (c >= 0x30FC && c <= 0x30FF) || (c >= 0x31F0 && c <= 0x31FF) ||
           (c >= 0xFF66 && c <= 0xFF9F);
}

bool is_kanji(char32_t c) {
    return c == 0x3005 ||                   // 々
           (c >= 0x3400 && c <= 0x4DBF) ||  // CJK extension A
           (c >= 0x4E00 && c <= 0x9FFF) ||  // CJK unified ideographs
           (c >= 0xF900 && c <= 0xFAFF) ||  // CJK compatibility ideographs
           (c >= 0x20000 && c <= 0x2FFFF);  // CJK extensions B…
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


// Word segments of text, in order, covering it exactly (spaces included): ICU's
// word break iterator (UAX #29 with ICU's dictionary for Chinese and Japanese).
#ifdef __EMSCRIPTEN__
// In the browser (and Node) the JS engine's ICU: Intl.Segmenter('ja', {granularity: 'word'}).
std::vector<std::string> segment_words(const std::string& text) {
    using emscripten::val;
    const val intl = val::global("Intl");
    if (intl.isUndefined() || intl["Segmenter"].isUndefined())
        throw InvalidArgument("no_segmenter",
                              "this browser has no Intl.Segmenter, which the lab uses to split text into words; "
                              "use a current Chrome, Edge, Safari or Firefox (125 or later)");
    val options = val::object();
    options.set("granularity", std::string("word"));
    const val segmenter = intl["Segmenter"].new_(std::string("ja"), options);
    const val parts = val::global("Array").call<val>("from", segmenter.call<val>("segment", text));
    const unsigned n = parts["length"].as<unsigned>();
    std::vector<std::string> out;
    out.reserve(n);
    for (unsigned i = 0; i < n; ++i) out.push_back(parts[i]["segment"].as<std::string>());
    return out;
}
#else
// Natively ICU's BreakIterator (Debian's libicu).
std::vector<std::string> segment_words(const std::string& text) {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::BreakIterator> it(icu::BreakIterator::createWordInstance(icu::Locale("ja"), status));
    if (U_FAILURE(status) || !it)
        throw std::runtime_error(std::string("ICU has no word break iterator: ") + u_errorName(status));
    const icu::UnicodeString u = icu::UnicodeString::fromUTF8(text);
    it->setText(u);
    std::vector<std::string> out;
    int32_t start = it->first();
    for (int32_t end = it->next(); end != icu::BreakIterator::DONE; start = end, end = it->next()) {
        std::string piece;
        u.tempSubStringBetween(start, end).toUTF8String(piece);
        out.push_back(std::move(piece));
    }
    return out;
}
#endif

// Particles and auxiliaries: a closed grammatical class that stands as its own
// token after a verb stem (追いかけ|た, 知ら|ない, 読ん|で), never glued to it.
const std::vector<std::string>& function_words() {
    static const std::vector<std::string> words = {
        "が", "を", "に", "へ", "と", "で", "から", "より", "まで", "は", "も", "の", "や", "か", "ね", "よ",
        "な", "ぞ", "ぜ", "わ", "さ", "し", "ば", "て", "ても", "でも", "けど", "けれど", "けれども", "ので",
        "のに", "ながら", "だけ", "しか", "ほど", "くらい", "ぐらい", "など", "とか", "こそ", "なら", "ばかり",
        "さえ", "すら", "のみ", "ずつ", "た", "だ", "ない", "なかっ", "ます", "まし", "ました", "ませ", "ません",
        "ましょう", "です", "でし", "う", "よう", "たい", "たく", "たかっ", "れる", "られる", "せる", "させる",
        "らしい", "そう"};
    return words;
}

bool is_function_word(const std::string& s) {
    for (const std::string& w : function_words())
        if (s == w) return true;
    return false;
}

// Auxiliaries a segment may end in that are split off when the rest of the
// segment is okurigana (食|べた → 食べ|た), longest first.
const std::vector<std::string>& trailing_auxiliaries() {
    static const std::vector<std::string> words = {"ました", "ません", "ます", "ない", "た", "だ", "て", "で"};
    return words;
}

enum class Kind { space, katakana, hiragana, one_kanji, other };

Kind kind_of(const std::vector<CodePoint>& cps) {
    bool space = true, kata = true, hira = true;
    for (const CodePoint& c : cps) {
        space = space && is_space(c.value);
        kata = kata && is_katakana(c.value);
        hira = hira && is_hiragana(c.value);
    }
    if (space) return Kind::space;
    if (kata) return Kind::katakana;
    if (hira) return Kind::hiragana;
    if (cps.size() == 1 && is_kanji(cps[0].value)) return Kind::one_kanji;
    return Kind::other;
}

struct Segment {
    std::string text;
    Kind kind;
};

std::string folded(const std::string& s) {
    std::string out;
    for (const CodePoint& c : decode_utf8(s)) append_utf8(out, fold_case(c.value));
    return out;
}

void check_characters(const std::vector<CodePoint>& cps) {
    for (std::size_t i = 0; i < cps.size(); ++i) {
        const char32_t c = cps[i].value;
        if (is_control(c) || is_private_use(c)) {
            const std::string what = is_control(c) ? "a control character" : "a private-use character";
            throw InvalidArgument("bad_character",
                                  "text contains " + what + " (" + hex(c) + ") at character " +
                                      std::to_string(i + 1) +
                                      "; only printable characters, spaces and line breaks are allowed",
                                  {{"character", hex(c)}, {"index", std::to_string(i + 1)}});
        }
    }
}

void check_count(std::size_t n) {
    if (n > kMaxTokens)
        throw InvalidArgument("too_many_tokens",
                              "text has more than " + std::to_string(kMaxTokens) + " tokens; the lab takes at most " +
                                  std::to_string(kMaxTokens),
                              {{"limit", std::to_string(kMaxTokens)}});
}

}  // namespace

#ifdef __EMSCRIPTEN__
std::string nfc(const std::string& text) {
    return emscripten::val(text).call<std::string>("normalize", std::string("NFC"));
}
#else
std::string nfc(const std::string& text) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* n = icu::Normalizer2::getNFCInstance(status);
    if (U_FAILURE(status) || !n) throw std::runtime_error(std::string("ICU has no NFC normalizer: ") + u_errorName(status));
    const icu::UnicodeString out = n->normalize(icu::UnicodeString::fromUTF8(text), status);
    if (U_FAILURE(status)) throw std::runtime_error(std::string("ICU could not normalise text: ") + u_errorName(status));
    std::string bytes;
    out.toUTF8String(bytes);
    return bytes;
}
#endif

std::vector<std::string> tokens_from_segments(const std::vector<std::string>& segments) {
    std::vector<Segment> segs;
    segs.reserve(segments.size());
    for (const std::string& s : segments) {
        const std::vector<CodePoint> cps = decode_utf8(s);
        if (cps.empty()) continue;
        const Kind k = kind_of(cps);
        if (k != Kind::space) segs.push_back({s, k});
    }
    std::vector<std::string> tokens;
    for (std::size_t i = 0; i < segs.size();) {
        std::string word = segs[i].text;
        const Kind k = segs[i].kind;
        ++i;
        if (k == Kind::katakana) {
            // A run of katakana is one word (a loanword): ICU's dictionary cuts
            // トランスフォーマー into トランス|フォー|マ|ー.
            while (i < segs.size() && segs[i].kind == Kind::katakana) word += segs[i++].text;
        } else if (k == Kind::one_kanji) {
            // A kanji ICU found no word for, then its okurigana: the hiragana
            // segments up to a particle or auxiliary (追|い|かけ|た → 追いかけ|た).
            // An auxiliary that ends the okurigana so far is split off and ends
            // the word (食|べた → 食べ|た, 食|べ|ま|した → 食べ|ました); when the
            // okurigana so far is that auxiliary whole, the kanji stands alone
            // (見|ま|した → 見|ました, not 見まし|た).
            std::string okurigana;
            while (i < segs.size() && segs[i].kind == Kind::hiragana && !is_function_word(segs[i].text)) {
                okurigana += segs[i++].text;
                std::string aux;
                for (const std::string& a : trailing_auxiliaries())
                    if (okurigana.size() >= a.size() &&
                        okurigana.compare(okurigana.size() - a.size(), a.size(), a) == 0) {
                        aux = a;
                        break;
                    }
                if (!aux.empty()) {
                    tokens.push_back(folded(word + okurigana.substr(0, okurigana.size() - aux.size())));
                    word = aux;
                    okurigana.clear();
                    break;
                }
            }
            word += okurigana;
        }
        tokens.push_back(folded(word));
        check_count(tokens.size());
    }
    return tokens;
}

std::vector<std::string> tokenize(const std::string& text) {
    check_characters(decode_utf8(text));
    const std::vector<std::string> tokens = tokens_from_segments(segment_words(text));
    if (tokens.empty())
        throw InvalidArgument("empty_text",
                              text.empty() ? "text is empty; type a sentence such as 犬が猫を追いかけた"
                                           : "text has only spaces; type a sentence such as 犬が猫を追いかけた");
    return tokens;
}

std::string token_skeleton(const std::string& text) {
    const std::vector<CodePoint> cps = decode_utf8(text);
    check_characters(cps);
    std::string out;
    for (const CodePoint& c : cps)
        if (!is_space(c.value)) append_utf8(out, fold_case(c.value));
    return out;
}

void check_tokens_of_text(const std::string& text, const std::vector<std::string>& tokens) {
    if (tokens.empty()) throw InvalidArgument("empty_tokens", "tokens is empty; give at least one token");
    if (tokens.size() > kMaxTokens)
        throw InvalidArgument("too_many_tokens",
                              "tokens has " + std::to_string(tokens.size()) + " entries; the lab takes at most " +
                                  std::to_string(kMaxTokens),
                              {{"limit", std::to_string(kMaxTokens)}});
    std::string joined;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].empty())
            throw InvalidArgument("empty_token", "tokens[" + std::to_string(i) + "] is an empty string; every token "
                                                 "needs at least one character", {{"index", std::to_string(i)}});
        joined += tokens[i];
    }
    if (joined != token_skeleton(text))
        throw InvalidArgument("tokens_not_of_text",
                              "the tokens, joined, are not the text (without spaces, case-folded); the tokens must "
                              "split the text they were recorded with");
}

}  // namespace poslab
