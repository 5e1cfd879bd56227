// forward spread over Workers by heads (issue 25): forward_heads for ranges
// of heads, put side by side, then forward_combine, must give forward's
// output bit for bit; and one head's share must be that head's attention
// (checked against the plain double-precision reference, not against the core).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "poslab/attention.hpp"
#include "poslab/errors.hpp"
#include "poslab/model.hpp"
#include "reference.hpp"

using namespace poslab;

namespace {

ForwardOptions options(PositionScheme pe, bool causal, WeightsKind weights, std::size_t s, std::size_t d,
                       std::size_t heads) {
    ForwardOptions o;
    std::vector<std::string> tokens;
    const char* words[] = {"犬", "が", "猫", "を", "追いかけ", "た", "。"};
    for (std::size_t i = 0; i < s; ++i) tokens.push_back(words[(i * 5 + i / 7) % 7]);
    o.tokens = tokens;
    o.pe = pe;
    o.causal = causal;
    o.weights = weights;
    o.d_model = d;
    o.heads = heads;
    o.seed = 11;
    o.max_positions = 4096;
    o.return_attention = false;
    return o;
}

// The shares of `ranges`, side by side.
xt::xtensor<float, 2> joined(const ForwardOptions& o, const std::vector<std::pair<std::size_t, std::size_t>>& ranges,
                             std::size_t s, std::size_t d) {
    xt::xtensor<float, 2> context({s, d});
    std::size_t col = 0;
    for (auto [from, to] : ranges) {
        const xt::xtensor<float, 2> part = forward_heads(o, from, to);
        EXPECT_EQ(part.shape(0), s);
        EXPECT_EQ(part.shape(1), (to - from) * (d / o.heads));
        for (std::size_t r = 0; r < s; ++r)
            for (std::size_t c = 0; c < part.shape(1); ++c) context(r, col + c) = part(r, c);
        col += part.shape(1);
    }
    EXPECT_EQ(col, d);
    return context;
}

bool same_bits(const xt::xtensor<float, 2>& a, const xt::xtensor<float, 2>& b) {
    return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST(HeadsSplit, SharesPutTogetherEqualForwardBitForBit) {
    // 13 rows, 6 heads of 4: uneven shares, and a share of one head.
    const std::vector<std::vector<std::pair<std::size_t, std::size_t>>> splits = {
        {{0, 6}}, {{0, 3}, {3, 6}}, {{0, 2}, {2, 5}, {5, 6}}, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}}};
    for (PositionScheme pe : {PositionScheme::none, PositionScheme::sinusoidal, PositionScheme::learned,
                              PositionScheme::rope, PositionScheme::alibi})
        for (bool causal : {false, true})
            for (WeightsKind w : {WeightsKind::random, WeightsKind::identity}) {
                const ForwardOptions o = options(pe, causal, w, 13, 24, 6);
                const ForwardResult whole = forward(o);
                for (const auto& split : splits) {
                    const ForwardResult parts = forward_combine(o, joined(o, split, 13, 24));
                    EXPECT_TRUE(same_bits(parts.output, whole.output))
                        << to_string(pe) << " causal " << causal << " " << to_string(w) << " shares " << split.size();
                    EXPECT_TRUE(std::memcmp(parts.output_mean.data(), whole.output_mean.data(),
                                            whole.output_mean.size() * sizeof(float)) == 0);
                    EXPECT_TRUE(same_bits(parts.hidden, whole.hidden));
                    EXPECT_EQ(parts.attention.size(), 0u);
                }
            }
}

TEST(HeadsSplit, Gpt2ShapeTwoAndFiveSharesEqualForward) {
    // D = 768, 12 heads: the projections cross the kernels' 256-long k
    // slices, and 70 rows cross a 64-row query block.
    for (PositionScheme pe : {PositionScheme::learned, PositionScheme::rope}) {
        const ForwardOptions o = options(pe, false, WeightsKind::random, 70, 768, 12);
        const ForwardResult whole = forward(o);
        EXPECT_TRUE(same_bits(forward_combine(o, joined(o, {{0, 6}, {6, 12}}, 70, 768)).output, whole.output));
        EXPECT_TRUE(same_bits(
            forward_combine(o, joined(o, {{0, 3}, {3, 5}, {5, 8}, {8, 11}, {11, 12}}, 70, 768)).output, whole.output));
    }
}

TEST(HeadsSplit, OneShareIsThoseHeadsAttention) {
    // Heads 2..3 of 4 (d_head 4), ALiBi and causal: the reference computes
    // every head in double precision; the share is its columns 8..15.
    const std::size_t s = 9, d = 16, heads = 4;
    ForwardOptions o = options(PositionScheme::alibi, true, WeightsKind::random, s, d, heads);
    o.d_model = d;
    const ForwardResult f = forward(o);
    const AttentionWeights w = make_attention_weights(WeightsKind::random, d, o.seed);
    ref::Mat x = ref::zeros(s, d), wq = ref::zeros(d, d), wk = ref::zeros(d, d), wv = ref::zeros(d, d);
    for (std::size_t i = 0; i < s; ++i)
        for (std::size_t j = 0; j < d; ++j) x[i][j] = f.hidden(i, j);
    for (std::size_t i = 0; i < d; ++i)
        for (std::size_t j = 0; j < d; ++j) wq[i][j] = w.wq(i, j), wk[i][j] = w.wk(i, j), wv[i][j] = w.wv(i, j);
    // ALiBi slopes for 4 heads: 2^(-8h/4) for h = 1..4.
    const std::vector<double> slopes = {std::pow(2.0, -2.0), std::pow(2.0, -4.0), std::pow(2.0, -6.0),
                                        std::pow(2.0, -8.0)};
    const ref::Attn want = ref::attention(x, heads, true, wq, wk, wv, {}, slopes);
    const xt::xtensor<float, 2> share = forward_heads(o, 2, 4);
    ASSERT_EQ(share.shape(0), s);
    ASSERT_EQ(share.shape(1), 8u);
    for (std::size_t i = 0; i < s; ++i)
        for (std::size_t c = 0; c < 8; ++c) EXPECT_NEAR(share(i, c), want.output[i][8 + c], 1e-5) << i << "," << c;
}

TEST(HeadsSplit, BadRangesAndContextsAreRejected) {
    const ForwardOptions o = options(PositionScheme::sinusoidal, false, WeightsKind::random, 5, 8, 4);
    auto code_of = [](auto&& call) {
        try {
            call();
        } catch (const InvalidArgument& e) {
            return e.code();
        }
        return std::string("no error");
    };
    EXPECT_EQ(code_of([&] { forward_heads(o, 2, 2); }), "bad_head_range");
    EXPECT_EQ(code_of([&] { forward_heads(o, 3, 2); }), "bad_head_range");
    EXPECT_EQ(code_of([&] { forward_heads(o, 0, 5); }), "bad_head_range");
    EXPECT_EQ(code_of([&] { forward_heads(o, 3, 4); }), "no error");  // the last head alone
    EXPECT_EQ(code_of([&] { forward_heads(o, 0, 4); }), "no error");
    EXPECT_EQ(code_of([&] { forward_combine(o, xt::xtensor<float, 2>({5, 7})); }), "bad_context");
    EXPECT_EQ(code_of([&] { forward_combine(o, xt::xtensor<float, 2>({4, 8})); }), "bad_context");
    xt::xtensor<float, 2> nan_context = xt::zeros<float>({5, 8});
    nan_context(2, 3) = std::nanf("");
    EXPECT_EQ(code_of([&] { forward_combine(o, nan_context); }), "non_finite_value");
    // The options are checked as forward checks them.
    ForwardOptions odd = o;
    odd.heads = 3;
    EXPECT_EQ(code_of([&] { forward_heads(odd, 0, 1); }), "heads_not_dividing");
}
