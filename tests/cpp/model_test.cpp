#include <gtest/gtest.h>

#include <cmath>

#include "poslab/embedding.hpp"
#include "poslab/errors.hpp"
#include "poslab/experiments.hpp"
#include "poslab/model.hpp"
#include "reference.hpp"

using namespace poslab;

namespace {

ForwardOptions text_options(const std::string& text, PositionScheme pe = PositionScheme::none) {
    ForwardOptions o;
    o.text = text;
    o.pe = pe;
    o.d_model = 8;
    o.heads = 2;
    return o;
}

template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(Embeddings, SameTokenSameVectorInAnyPositionOrSentence) {
    const auto a = token_embeddings({"犬", "が", "猫"}, 16, 1);
    const auto b = token_embeddings({"猫", "を", "犬", "犬"}, 16, 1);
    for (std::size_t d = 0; d < 16; ++d) {
        EXPECT_EQ(a(0, d), b(2, d));
        EXPECT_EQ(a(0, d), b(3, d));
        EXPECT_EQ(a(2, d), b(0, d));
    }
    const auto other_seed = token_embeddings({"犬"}, 16, 2);
    EXPECT_NE(other_seed(0, 0), a(0, 0));
}

TEST(Embeddings, AreStandardNormal) {
    std::vector<std::string> tokens;
    for (int i = 0; i < 2000; ++i) tokens.push_back("t" + std::to_string(i));
    const auto e = token_embeddings(tokens, 64, 0);
    double sum = 0, sq = 0;
    for (float v : e) sum += v, sq += double(v) * v;
    const double n = double(e.size()), mean = sum / n;
    EXPECT_NEAR(mean, 0.0, 0.02);  // 128k samples: standard error 0.003
    EXPECT_NEAR(std::sqrt(sq / n - mean * mean), 1.0, 0.02);
}

TEST(Forward, NoPositionInformationMeansPermutationEquivariance) {
    // Attention(PX) = P·Attention(X): 犬が猫を追いかけた → 猫が犬を追いかけた.
    for (bool causal : {false}) {
        ForwardOptions o = text_options("犬が猫を追いかけた");
        o.causal = causal;
        const auto c = permutation_check(o, {2, 1, 0, 3, 4, 5});
        EXPECT_LT(c.max_abs_diff, 1e-5);
        EXPECT_EQ(c.permuted.tokens, (std::vector<std::string>{"猫", "が", "犬", "を", "追いかけ", "た"}));
        // 犬's output is the same vector in both sentences.
        for (std::size_t d = 0; d < 8; ++d) EXPECT_NEAR(c.original.output(0, d), c.permuted.output(2, d), 1e-5);
    }
}

TEST(Forward, EverySchemeBreaksTheSymmetry) {
    for (PositionScheme pe : {PositionScheme::sinusoidal, PositionScheme::learned, PositionScheme::rope,
                              PositionScheme::alibi}) {
        const auto c = permutation_check(text_options("犬が猫を追いかけた", pe), {2, 1, 0, 3, 4, 5});
        EXPECT_GT(c.max_abs_diff, 1e-3) << to_string(pe);
    }
}

TEST(Forward, TheAtPositionZeroAndThreeBecomeDifferentVectors) {
    ForwardOptions o = text_options("The keys on the table are lost.", PositionScheme::sinusoidal);
    const auto r = forward(o);
    ASSERT_EQ(r.tokens.size(), 8u);
    ASSERT_EQ(r.tokens[0], "the");
    ASSERT_EQ(r.tokens[3], "the");
    double input_diff = 0, hidden_diff = 0;
    for (std::size_t d = 0; d < 8; ++d) {
        input_diff += std::fabs(r.input(0, d) - r.input(3, d));
        hidden_diff += std::fabs(r.hidden(0, d) - r.hidden(3, d));
        EXPECT_NEAR(r.hidden(3, d), r.input(3, d) + ref::sinusoidal(3, d, 8), 1e-6);
    }
    EXPECT_EQ(input_diff, 0.0);
    EXPECT_GT(hidden_diff, 0.1);
}

TEST(Forward, NoneRopeAndAlibiAddNoVector) {
    for (PositionScheme pe : {PositionScheme::none, PositionScheme::rope, PositionScheme::alibi}) {
        const auto r = forward(text_options("犬が猫を追いかけた", pe));
        for (float v : r.positional) EXPECT_EQ(v, 0.0f);
        for (std::size_t i = 0; i < r.input.size(); ++i) EXPECT_EQ(r.hidden.data()[i], r.input.data()[i]);
    }
}

TEST(Forward, ConcatAppendsThePositionVector) {
    ForwardOptions o = text_options("犬が猫を追いかけた", PositionScheme::sinusoidal);
    o.combine = Combine::concat;
    const auto r = forward(o);
    ASSERT_EQ(r.hidden.shape(1), 16u);
    ASSERT_EQ(r.output.shape(1), 16u);
    for (std::size_t s = 0; s < 6; ++s)
        for (std::size_t d = 0; d < 8; ++d) {
            EXPECT_EQ(r.hidden(s, d), r.input(s, d));
            EXPECT_NEAR(r.hidden(s, 8 + d), ref::sinusoidal(s, d, 8), 1e-6);
        }
    o.pe = PositionScheme::rope;
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "needs pe 'sinusoidal' or 'learned'"));
}

TEST(Forward, HandCalculationThroughTheFullPipeline) {
    ForwardOptions o;
    o.vectors = std::vector<std::vector<double>>{{1, 0}, {0, 1}};
    o.weights = WeightsKind::identity;
    o.heads = 1;
    const auto r = forward(o);
    EXPECT_NEAR(r.output(0, 0), 0.670, 5e-4);
    EXPECT_NEAR(r.output(0, 1), 0.330, 5e-4);
    EXPECT_NEAR(r.attention(0, 1, 1), 0.670, 5e-4);
    EXPECT_TRUE(r.tokens.empty());
}

TEST(Forward, CausalMaskGivesDirectionNotDistance) {
    // With the mask on and no position information, token 5 sees tokens 0..5
    // as a set: swapping two of the tokens before it leaves its output alone.
    ForwardOptions o = text_options("a b c d e f g");
    o.causal = true;
    const auto base = forward(o);
    o.text = "b a c d e f g";  // swap tokens 0 and 1
    const auto swapped = forward(o);
    for (std::size_t d = 0; d < 8; ++d) EXPECT_NEAR(swapped.output(5, d), base.output(5, d), 1e-5);
    o.text = "a b c d e g f";  // swap tokens 5 and 6: token 5 is now g, with g's view
    const auto changed = forward(o);
    double diff = 0;
    for (std::size_t d = 0; d < 8; ++d) diff += std::fabs(changed.output(5, d) - base.output(5, d));
    EXPECT_GT(diff, 1e-3);
    // With sinusoidal, the same swap before token 5 does change it.
    o.pe = PositionScheme::sinusoidal;
    o.text = "a b c d e f g";
    const auto pe_base = forward(o);
    o.text = "b a c d e f g";
    const auto pe_swapped = forward(o);
    diff = 0;
    for (std::size_t d = 0; d < 8; ++d) diff += std::fabs(pe_swapped.output(5, d) - pe_base.output(5, d));
    EXPECT_GT(diff, 1e-4);
}

TEST(Forward, LearnedTableWallAtGpt2Shape) {
    ForwardOptions o = text_options("犬が猫を追いかけた", PositionScheme::learned);
    o.d_model = 768;
    o.heads = 12;
    o.position_offset = 1018;  // positions 1018..1023: the last rows of the table
    EXPECT_NO_THROW(forward(o));
    o.position_offset = 1019;  // positions 1019..1024
    try {
        forward(o);
        FAIL();
    } catch (const std::out_of_range& e) {
        EXPECT_TRUE(contains(e.what(), "position 1024")) << e.what();
    }
    o.pe = PositionScheme::sinusoidal;  // the fixed formula carries on
    EXPECT_NO_THROW(forward(o));
    o.pe = PositionScheme::rope;
    EXPECT_NO_THROW(forward(o));
}

TEST(Forward, ReturnAttentionFalseKeepsTheOutput) {
    ForwardOptions o = text_options("犬が猫を追いかけた", PositionScheme::rope);
    const auto with = forward(o);
    o.return_attention = false;
    const auto without = forward(o);
    EXPECT_EQ(without.attention.size(), 0u);
    ASSERT_EQ(with.attention.shape(0), 2u);
    for (std::size_t i = 0; i < with.output.size(); ++i) EXPECT_EQ(with.output.data()[i], without.output.data()[i]);
}

TEST(Forward, BadInputGetsAClearError) {
    ForwardOptions o;
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "give the input as text, tokens or vectors"));
    o.text = "";
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "text is empty"));
    o.text = "犬";
    o.d_model = 0;
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "dModel must be from 1 to 4096, got 0"));
    o.d_model = 7;
    o.heads = 1;
    o.pe = PositionScheme::sinusoidal;
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "must be even"));
    o.pe = PositionScheme::none;
    o.heads = 2;
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "heads (2) must divide the model width 7"));
    o.d_model = 6;
    o.heads = 2;
    o.pe = PositionScheme::rope;  // d_head 3
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "width / heads must be even"));
    o = ForwardOptions{};
    o.vectors = std::vector<std::vector<double>>{{1, 2}, {3}};
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "row 0 has 2 numbers, row 1 has 1"));
    o.vectors = std::vector<std::vector<double>>{};
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "vectors is empty"));
    o.vectors = std::vector<std::vector<double>>{{}};
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "row 0 is empty"));
    o.vectors = std::vector<std::vector<double>>{{1, NAN}};
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "vectors[0][1] is NaN"));
    o.vectors = std::vector<std::vector<double>>{{1, INFINITY}};
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "vectors[0][1] is not a finite float"));
    o.vectors = std::vector<std::vector<double>>{{1, 1e39}};  // overflows float
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "not a finite float"));
    o.vectors.reset();
    o.text = "犬";
    o.tokens = std::vector<std::string>{"犬"};
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "only one of text, tokens and vectors"));
    o.text.reset();
    o.tokens = std::vector<std::string>{"犬", ""};
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "tokens[1] is an empty string"));
    o = text_options("犬");
    o.base = 0.5;
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "base must be a finite number greater than 1"));
    o = text_options("犬");
    o.max_positions = 0;
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "maxPositions must be from 1"));
    o = text_options("犬");
    o.position_offset = kMaxPosition;
    EXPECT_TRUE(contains(error_of([&] { forward(o); }), "positions go up to 1048575"));
}

TEST(Encoding, SinusoidalAndLearnedTables) {
    EncodingOptions o;
    o.length = 5;
    o.d_model = 6;
    o.position_offset = 1021;
    const auto s = encoding(o);
    ASSERT_EQ(s.shape(0), 5u);
    for (std::size_t r = 0; r < 5; ++r)
        for (std::size_t d = 0; d < 6; ++d) EXPECT_NEAR(s(r, d), ref::sinusoidal(1021 + r, d, 6), 2e-6);
    o.scheme = PositionScheme::learned;
    EXPECT_THROW(encoding(o), std::out_of_range);  // rows 1021..1025 of a 1024-row table
    o.length = 3;
    EXPECT_EQ(encoding(o).shape(0), 3u);
    o.scheme = PositionScheme::rope;
    EXPECT_TRUE(contains(error_of([&] { encoding(o); }), "acts inside attention"));
}

TEST(Forward, OutputMeanIsTheSentenceVector) {
    const auto r = forward(text_options("犬が猫を追いかけた", PositionScheme::none));
    ASSERT_EQ(r.output_mean.size(), 8u);
    for (std::size_t d = 0; d < 8; ++d) {
        double sum = 0;
        for (std::size_t s = 0; s < 6; ++s) sum += r.output(s, d);
        EXPECT_NEAR(r.output_mean(d), sum / 6, 1e-6);
    }
    // Reordered without position information: the same sentence vector.
    ForwardOptions o = text_options("猫が犬を追いかけた");
    const auto swapped = forward(o);
    for (std::size_t d = 0; d < 8; ++d) EXPECT_NEAR(swapped.output_mean(d), r.output_mean(d), 1e-5);
}

TEST(Encoding, WavelengthsOfTheSinusoidalPairs) {
    const auto w = sinusoidal_wavelengths(8);
    ASSERT_EQ(w.size(), 4u);
    EXPECT_NEAR(w(0), 2 * M_PI, 1e-5);                        // pair 0 turns once every 2π positions
    EXPECT_NEAR(w(3), 2 * M_PI * std::pow(10000.0, 0.75), 1);  // the slowest pair: 2π·10000^{6/8}
    EXPECT_NEAR(w(1), 2 * M_PI * 10, 1e-4);                   // 2π·10000^{2/8} = 2π·10
    EXPECT_THROW(sinusoidal_wavelengths(7), std::invalid_argument);
}
