#include <gtest/gtest.h>

#include "poslab/errors.hpp"
#include "poslab/tokenizer.hpp"

using poslab::tokenize;
using Tokens = std::vector<std::string>;

TEST(Tokenizer, JapaneseSentenceByLongestMatch) {
    EXPECT_EQ(tokenize("犬が猫を追いかけた"), (Tokens{"犬", "が", "猫", "を", "追いかけ", "た"}));
    EXPECT_EQ(tokenize("猫が犬を追いかけた"), (Tokens{"猫", "が", "犬", "を", "追いかけ", "た"}));
}

TEST(Tokenizer, JapaneseUnknownCharactersAreOneTokenEach) {
    // 鳥 and 魚 are in the lexicon; 象 and ぞ are not.
    EXPECT_EQ(tokenize("象が魚を見た"), (Tokens{"象", "が", "魚", "を", "見", "た"}));
    EXPECT_EQ(tokenize("鳥ぞ"), (Tokens{"鳥", "ぞ"}));
    EXPECT_EQ(tokenize("犬が猫を食べた。"), (Tokens{"犬", "が", "猫", "を", "食べ", "た", "。"}));
}

TEST(Tokenizer, EnglishSplitsOnSpacesAndPunctuationAndFoldsCase) {
    const Tokens t = tokenize("The keys on the table are lost.");
    EXPECT_EQ(t, (Tokens{"the", "keys", "on", "the", "table", "are", "lost", "."}));
    EXPECT_EQ(t.size(), 8u);
    EXPECT_EQ(t[0], t[3]);  // "The" and "the" are one token
}

TEST(Tokenizer, AMultiCharacterWordAtTheVeryEnd) {
    // The longest match must reach the last character: 追いかけ ends the text.
    EXPECT_EQ(tokenize("猫が追いかけ"), (Tokens{"猫", "が", "追いかけ"}));
    EXPECT_EQ(tokenize("犬を追いかけ"), (Tokens{"犬", "を", "追いかけ"}));
    EXPECT_EQ(tokenize("the keys"), (Tokens{"the", "keys"}));
    EXPECT_EQ(tokenize("keys"), (Tokens{"keys"}));
}

TEST(Tokenizer, OtherScriptsAndMixedText) {
    EXPECT_EQ(tokenize("  Hello,\tWORLD!\n"), (Tokens{"hello", ",", "world", "!"}));
    EXPECT_EQ(tokenize("Ünïcode ÀÉ"), (Tokens{"ünïcode", "àé"}));
    EXPECT_EQ(tokenize("ΑΒΓ Привет"), (Tokens{"αβγ", "привет"}));
    EXPECT_EQ(tokenize("GPT-2の犬"), (Tokens{"gpt", "-", "2", "の", "犬"}));
    EXPECT_EQ(tokenize("犬　猫"), (Tokens{"犬", "猫"}));  // ideographic space
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
