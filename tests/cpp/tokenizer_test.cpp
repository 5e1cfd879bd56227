#include <gtest/gtest.h>

#include "poslab/errors.hpp"
#include "poslab/tokenizer.hpp"

using poslab::tokenize;
using Tokens = std::vector<std::string>;

// Expected tokens below are worked out by hand: the word boundaries a Japanese
// reader draws (verb stem | auxiliary, as the lesson's 追いかけ|た), spaces
// dropped, punctuation a token of its own, case folded.
TEST(Tokenizer, LessonSentences) {
    EXPECT_EQ(tokenize("犬が猫を追いかけた"), (Tokens{"犬", "が", "猫", "を", "追いかけ", "た"}));
    EXPECT_EQ(tokenize("猫が犬を追いかけた"), (Tokens{"猫", "が", "犬", "を", "追いかけ", "た"}));
    EXPECT_EQ(tokenize("The keys on the table are lost."),
              (Tokens{"the", "keys", "on", "the", "table", "are", "lost", "."}));
    EXPECT_EQ(tokenize("The table on the keys are lost."),
              (Tokens{"the", "table", "on", "the", "keys", "are", "lost", "."}));
    EXPECT_EQ(tokenize("The dog chased the cat."), (Tokens{"the", "dog", "chased", "the", "cat", "."}));
}

TEST(Tokenizer, CompoundsAreOneTokenEach) {
    // The sentences: 東京, 寿司 and トランスフォーマー were cut into characters.
    EXPECT_EQ(tokenize("東京で寿司を食べた"), (Tokens{"東京", "で", "寿司", "を", "食べ", "た"}));
    EXPECT_EQ(tokenize("トランスフォーマーは位置を知らない"),
              (Tokens{"トランスフォーマー", "は", "位置", "を", "知ら", "ない"}));
    EXPECT_EQ(tokenize("子どもが本を読んだ"), (Tokens{"子ども", "が", "本", "を", "読ん", "だ"}));
    EXPECT_EQ(tokenize("彼は走った"), (Tokens{"彼", "は", "走っ", "た"}));
    EXPECT_EQ(tokenize("鳥が魚を見た"), (Tokens{"鳥", "が", "魚", "を", "見", "た"}));
    EXPECT_EQ(tokenize("猫は寿司を食べました"), (Tokens{"猫", "は", "寿司", "を", "食べ", "ました"}));
    EXPECT_EQ(tokenize("雨が降っている"), (Tokens{"雨", "が", "降っ", "て", "いる"}));
    EXPECT_EQ(tokenize("猫ばかり見た"), (Tokens{"猫", "ばかり", "見", "た"}));
}

TEST(Tokenizer, MultiCharacterWordAtTheVeryEnd) {
    EXPECT_EQ(tokenize("位置を知らないトランスフォーマー"),
              (Tokens{"位置", "を", "知ら", "ない", "トランスフォーマー"}));
    EXPECT_EQ(tokenize("寿司は東京"), (Tokens{"寿司", "は", "東京"}));
    EXPECT_EQ(tokenize("I live in Tokyo"), (Tokens{"i", "live", "in", "tokyo"}));
}

TEST(Tokenizer, AMultiCharacterWordAtTheVeryEnd) {
    // The longest match must reach the last character: 追いかけ ends the text.
    EXPECT_EQ(tokenize("猫が追いかけ"), (Tokens{"猫", "が", "追いかけ"}));
    EXPECT_EQ(tokenize("犬を追いかけ"), (Tokens{"犬", "を", "追いかけ"}));
    EXPECT_EQ(tokenize("the keys"), (Tokens{"the", "keys"}));
    EXPECT_EQ(tokenize("keys"), (Tokens{"keys"}));
}

TEST(Tokenizer, MixedScriptsSpacesAndPunctuation) {
    EXPECT_EQ(tokenize("私はGPT-4で東京の寿司を食べた。"),
              (Tokens{"私", "は", "gpt", "-", "4", "で", "東京", "の", "寿司", "を", "食べ", "た", "。"}));
    EXPECT_EQ(tokenize("Transformerは位置を知らない"), (Tokens{"transformer", "は", "位置", "を", "知ら", "ない"}));
    EXPECT_EQ(tokenize("犬が猫を追いかけた。そして、猫は逃げた！"),
              (Tokens{"犬", "が", "猫", "を", "追いかけ", "た", "。", "そして", "、", "猫", "は", "逃げ", "た", "！"}));
    EXPECT_EQ(tokenize("  Hello,\tWORLD!\n"), (Tokens{"hello", ",", "world", "!"}));
    EXPECT_EQ(tokenize("Ünïcode ÀÉ"), (Tokens{"ünïcode", "àé"}));
    EXPECT_EQ(tokenize("ΑΒΓ Привет"), (Tokens{"αβγ", "привет"}));
    EXPECT_EQ(tokenize("犬　猫"), (Tokens{"犬", "猫"}));  // ideographic space
    // Words with inner punctuation stay whole (UAX #29); the quotes are tokens.
    EXPECT_EQ(tokenize("don't say \"3.14\""), (Tokens{"don't", "say", "\"", "3.14", "\""}));
}

// The post-pass alone, on segments as ICU 72 (Debian), ICU 78 (Node 20) and
// Chromium 156 all give them for these sentences.
TEST(Tokenizer, PostPassOverIcuSegments) {
    using poslab::tokens_from_segments;
    EXPECT_EQ(tokens_from_segments({"追", "い", "かけ", "た"}), (Tokens{"追いかけ", "た"}));
    EXPECT_EQ(tokens_from_segments({"食", "べた"}), (Tokens{"食べ", "た"}));
    EXPECT_EQ(tokens_from_segments({"知", "ら", "ない"}), (Tokens{"知ら", "ない"}));
    EXPECT_EQ(tokens_from_segments({"食", "べ", "ま", "した"}), (Tokens{"食べ", "ました"}));
    EXPECT_EQ(tokens_from_segments({"降", "って", "いる"}), (Tokens{"降っ", "て", "いる"}));
    EXPECT_EQ(tokens_from_segments({"トランス", "フォー", "マ", "ー", "は"}), (Tokens{"トランスフォーマー", "は"}));
    EXPECT_EQ(tokens_from_segments({"犬", "が", "猫"}), (Tokens{"犬", "が", "猫"}));  // particles stay apart
    EXPECT_EQ(tokens_from_segments({"The", " ", "Dog", "  ", "."}), (Tokens{"the", "dog", "."}));
    EXPECT_EQ(tokens_from_segments({"東京", "・", "大阪"}), (Tokens{"東京", "・", "大阪"}));
    EXPECT_EQ(tokens_from_segments({" ", "\n"}), Tokens{});
}

TEST(Tokenizer, RecordedTokensMustSpellTheirText) {
    using poslab::check_tokens_of_text;
    EXPECT_NO_THROW(check_tokens_of_text("犬が猫を追いかけた", {"犬", "が", "猫", "を", "追いかけ", "た"}));
    EXPECT_NO_THROW(check_tokens_of_text("犬が猫を追いかけた", {"犬が", "猫を", "追", "い", "かけた"}));  // another cut
    EXPECT_NO_THROW(check_tokens_of_text("The  dog.", {"the", "dog", "."}));
    EXPECT_NO_THROW(check_tokens_of_text("U.S.A. e.g.", {"u", ".", "s", ".", "a", ".", "e.g", "."}));
    const auto code = [](const std::string& text, const Tokens& tokens) {
        try {
            check_tokens_of_text(text, tokens);
        } catch (const poslab::InvalidArgument& e) {
            return e.code();
        }
        return std::string("none");
    };
    EXPECT_EQ(code("犬が猫を追いかけた", {"猫", "が", "犬", "を", "追いかけ", "た"}), "tokens_not_of_text");
    EXPECT_EQ(code("犬が猫", {"犬", "が"}), "tokens_not_of_text");
    EXPECT_EQ(code("犬が猫", {"犬", "", "が猫"}), "empty_token");
    EXPECT_EQ(code("犬が猫", {}), "empty_tokens");
    EXPECT_EQ(code("the dog", {"the ", "dog"}), "tokens_not_of_text");  // no spaces inside a token
    EXPECT_EQ(code("a", Tokens(poslab::kMaxTokens + 1, "a")), "too_many_tokens");
}

TEST(Tokenizer, EmptyAndBlankTextAreErrors) {
    for (const char* text : {"", "   ", "\n\t "}) {
        try {
            tokenize(text);
            FAIL() << "no error for '" << text << "'";
        } catch (const poslab::InvalidArgument& e) {
            EXPECT_EQ(e.code(), "empty_text");
            EXPECT_NE(std::string(e.what()).find("犬が猫を追いかけた"), std::string::npos);
        }
    }
}

TEST(Tokenizer, TooManyTokens) {
    std::string ok, over;
    for (std::size_t i = 0; i < poslab::kMaxTokens; ++i) ok += "a ";
    over = ok + "a";
    EXPECT_EQ(tokenize(ok).size(), poslab::kMaxTokens);
    try {
        tokenize(over);
        FAIL();
    } catch (const poslab::InvalidArgument& e) {
        EXPECT_EQ(e.code(), "too_many_tokens");
        EXPECT_NE(std::string(e.what()).find("4096"), std::string::npos);
    }
    EXPECT_GE(poslab::kMaxTokens, 4096u);
}

TEST(Tokenizer, InvalidUtf8AndControlCharacters) {
    EXPECT_THROW(tokenize("abc\xff"), std::invalid_argument);
    EXPECT_THROW(tokenize("\xe7\x8a"), std::invalid_argument);           // truncated 犬
    EXPECT_THROW(tokenize("\xc0\xaf"), std::invalid_argument);           // overlong '/'
    EXPECT_THROW(tokenize("\xed\xa0\x80"), std::invalid_argument);       // surrogate
    try {
        tokenize(std::string("dog\x07") + "cat");
        FAIL();
    } catch (const poslab::InvalidArgument& e) {
        EXPECT_EQ(e.code(), "bad_character");
        EXPECT_NE(std::string(e.what()).find("U+0007"), std::string::npos);
    }
    EXPECT_THROW(tokenize("\xee\x80\x80"), std::invalid_argument);  // U+E000 private use
}
