// forward's cache of random projections (an LRU per thread, keyed by weights
// kind, width and seed): a cached call gives the very bits a fresh one does,
// and configurations that differ in seed, width or kind never share weights.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "poslab/attention.hpp"
#include "poslab/model.hpp"

using namespace poslab;

namespace {

ForwardOptions options(std::uint32_t seed, std::size_t d, WeightsKind kind = WeightsKind::random,
                       Combine combine = Combine::add) {
    ForwardOptions o;
    o.tokens = std::vector<std::string>{"犬", "が", "猫", "を", "追いかけ", "た"};
    o.pe = PositionScheme::sinusoidal;
    o.combine = combine;
    o.d_model = d;
    o.heads = 2;
    o.weights = kind;
    o.seed = seed;
    return o;
}

template <class A, class B>
bool same_bits(const A& a, const B& b) {
    return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The output as attention computes it with weights made afresh, not through forward's cache.
xt::xtensor<float, 2> uncached_output(const ForwardOptions& o, const ForwardResult& r) {
    const std::size_t seq = r.hidden.shape(0), width = r.hidden.shape(1);
    xt::xtensor<float, 3> x({1, seq, width});
    std::copy(r.hidden.begin(), r.hidden.end(), x.begin());
    AttentionOptions ao;
    ao.heads = o.heads;
    ao.return_weights = false;
    const AttentionResult a = self_attention(x, make_attention_weights(o.weights, width, o.seed), ao);
    xt::xtensor<float, 2> out({seq, width});
    std::copy(a.output.begin(), a.output.end(), out.begin());
    return out;
}

}  // namespace

TEST(WeightsCache, CachedCallGivesTheBitsOfAFreshOne) {
    const ForwardOptions o = options(7, 64);
    clear_weights_cache();
    const ForwardResult fresh = forward(o);
    EXPECT_EQ(weights_cache_generated(), 1u);
    const ForwardResult cached = forward(o);
    EXPECT_EQ(weights_cache_generated(), 1u) << "the second call should reuse the weights";
    EXPECT_TRUE(same_bits(fresh.output, cached.output));
    EXPECT_TRUE(same_bits(fresh.output, uncached_output(o, fresh)));
}

TEST(WeightsCache, SeedsWidthsAndKindsDoNotCollide) {
    // Four configurations that fit in the cache together, then a fifth that evicts.
    const std::vector<ForwardOptions> configs = {
        options(1, 32), options(2, 32), options(1, 16), options(1, 32, WeightsKind::identity), options(3, 16)};
    std::vector<xt::xtensor<float, 2>> alone;
    for (const ForwardOptions& o : configs) {
        clear_weights_cache();
        alone.push_back(forward(o).output);
    }
    // The seeds, widths and kinds really give different outputs (else the test could not see a mix-up).
    for (std::size_t i = 0; i < alone.size(); ++i)
        for (std::size_t j = i + 1; j < alone.size(); ++j)
            if (alone[i].shape() == alone[j].shape()) EXPECT_FALSE(same_bits(alone[i], alone[j])) << i << " vs " << j;

    clear_weights_cache();
    for (int round = 0; round < 3; ++round)
        for (std::size_t i = 0; i < 4; ++i) {
            const ForwardResult r = forward(configs[i]);
            EXPECT_TRUE(same_bits(r.output, alone[i])) << "config " << i << ", round " << round;
            EXPECT_TRUE(same_bits(r.output, uncached_output(configs[i], r))) << "config " << i;
        }
    EXPECT_EQ(weights_cache_generated(), 4u) << "four configurations fit in the cache";

    // Five in turn: each evicts the least recently used, so every call makes its weights again.
    clear_weights_cache();
    for (int round = 0; round < 2; ++round)
        for (std::size_t i = 0; i < configs.size(); ++i)
            EXPECT_TRUE(same_bits(forward(configs[i]).output, alone[i])) << "config " << i << ", round " << round;
    EXPECT_EQ(weights_cache_generated(), 10u);
}

TEST(WeightsCache, ConcatWidthIsItsOwnKey) {
    // concat doubles the width: D = 16 with concat attends at width 32, like D = 32 with add.
    const ForwardOptions concat = options(5, 16, WeightsKind::random, Combine::concat);
    const ForwardOptions narrow = options(5, 16);
    clear_weights_cache();
    const ForwardResult a = forward(narrow);
    const ForwardResult b = forward(concat);
    EXPECT_EQ(weights_cache_generated(), 2u);
    EXPECT_EQ(b.output.shape(1), 32u);
    EXPECT_TRUE(same_bits(b.output, uncached_output(concat, b)));
    EXPECT_TRUE(same_bits(forward(narrow).output, a.output));
}
