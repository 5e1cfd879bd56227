// Issue 22, item 1: what exercise 5 now teaches about the causal mask.
// With no position information, ONE layer of causal self-attention gives
// token i an output that depends on which tokens precede it but not on their
// order; a SECOND layer sees the first layer's outputs, each made from a
// prefix, so its output does depend on the order of the visible tokens.
// Checked on the core's self_attention stacked twice, against a plain-loop
// implementation (reference.hpp), and on the tiny Transformer of exercise 7.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <utility>

#include "poslab/attention.hpp"
#include "poslab/random.hpp"
#include "poslab/tiny_transformer.hpp"
#include "reference.hpp"
#include "support.hpp"

using namespace poslab;

namespace {

using support::as_mat;
using support::batch_of;

constexpr std::size_t kS = 6, kD = 8, kHeads = 2;
constexpr std::size_t kWatched = 4;  // token 5 (1-based), as in exercise 5

ref::Mat random_rows(std::uint64_t seed) {
    Rng rng(seed);
    ref::Mat m = ref::zeros(kS, kD);
    for (auto& row : m)
        for (auto& v : row) v = rng.normal();
    return m;
}

// The core: `layers` causal self-attention layers (no position information), row `row` of the last output.
std::vector<double> core_stack(const ref::Mat& x, std::size_t layers, std::size_t row) {
    AttentionOptions o;
    o.heads = kHeads;
    o.causal = true;
    xt::xtensor<float, 3> h = batch_of(x);
    for (std::size_t l = 0; l < layers; ++l) h = self_attention(h, make_attention_weights(WeightsKind::random, kD, 100 + l), o).output;
    std::vector<double> out(kD);
    for (std::size_t j = 0; j < kD; ++j) out[j] = h(0, row, j);
    return out;
}

// The same stack in plain loops (reference.hpp), with the same weight matrices.
std::vector<double> ref_stack(const ref::Mat& x, std::size_t layers, std::size_t row) {
    ref::Mat h = x;
    for (std::size_t l = 0; l < layers; ++l) {
        const AttentionWeights w = make_attention_weights(WeightsKind::random, kD, 100 + l);
        h = ref::attention(h, kHeads, true, as_mat(w.wq), as_mat(w.wk), as_mat(w.wv), as_mat(w.wo)).output;
    }
    return h[row];
}

double max_gap(const std::vector<double>& a, const std::vector<double>& b) {
    double g = 0;
    for (std::size_t j = 0; j < a.size(); ++j) g = std::max(g, std::fabs(a[j] - b[j]));
    return g;
}

ref::Mat swapped(ref::Mat x, std::size_t a, std::size_t b) {
    std::swap(x[a], x[b]);
    return x;
}

}  // namespace

TEST(TruthCausalLayers, TheCoreStackMatchesPlainLoops) {
    const ref::Mat x = random_rows(7);
    for (std::size_t layers : {1u, 2u})
        for (std::size_t row = 0; row < kS; ++row) EXPECT_LT(max_gap(core_stack(x, layers, row), ref_stack(x, layers, row)), 1e-4) << layers << " layers, row " << row;
}

TEST(TruthCausalLayers, OneLayerCannotTellTheOrderOfThePrefixTwoLayersCan) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        const ref::Mat x = random_rows(seed);
        // Swap tokens 1 and 3 (rows 0 and 2), both before token 5 (row 4).
        const ref::Mat y = swapped(x, 0, 2);
        // One layer: the same set of visible tokens, the same output (to float rounding), in both implementations.
        EXPECT_LT(max_gap(ref_stack(x, 1, kWatched), ref_stack(y, 1, kWatched)), 1e-12) << "seed " << seed;
        EXPECT_LT(max_gap(core_stack(x, 1, kWatched), core_stack(y, 1, kWatched)), 1e-5) << "seed " << seed;
        // Two layers: rows 0 and 1 of the first layer were made from other prefixes ({3} and {3, 2}),
        // so token 5's output changes, clearly above rounding.
        const double ref_gap = max_gap(ref_stack(x, 2, kWatched), ref_stack(y, 2, kWatched));
        const double core_gap = max_gap(core_stack(x, 2, kWatched), core_stack(y, 2, kWatched));
        EXPECT_GT(ref_gap, 1e-3) << "seed " << seed;
        EXPECT_GT(core_gap, 1e-3) << "seed " << seed;
        EXPECT_NEAR(core_gap, ref_gap, 1e-4) << "seed " << seed;
        // A swap that changes the visible set (token 5 with token 6 in view: rows 3 and 5) changes even one layer.
        EXPECT_GT(max_gap(ref_stack(x, 1, kWatched), ref_stack(swapped(x, 3, 5), 1, kWatched)), 1e-3) << "seed " << seed;
    }
}

TEST(TruthCausalLayers, OneLayerAveragesSoTheCountShowsOnlyThroughAFixedFirstToken) {
    // Exercise 5's text: one layer's output is a weighted average of the visible tokens,
    // so the count itself does not show: a token seeing {x0, x0} gets what x0 alone gets.
    const ref::Mat x = random_rows(11);
    const ref::Mat twice = {x[0], x[0]};
    const ref::Mat once = {x[0]};
    EXPECT_LT(max_gap(ref_stack(twice, 1, 1), ref_stack(once, 1, 0)), 1e-12);
    EXPECT_LT(max_gap(core_stack(twice, 1, 1), core_stack(once, 1, 0)), 1e-5);
    // With the same first token s in every sequence, the weight on s shrinks as more tokens
    // come into view: "s a" and "s a a" give their last token different outputs.
    const ref::Mat two = {x[0], x[1]};
    const ref::Mat three = {x[0], x[1], x[1]};
    const double ref_gap = max_gap(ref_stack(two, 1, 1), ref_stack(three, 1, 2));
    EXPECT_GT(ref_gap, 1e-3);
    EXPECT_NEAR(max_gap(core_stack(two, 1, 1), core_stack(three, 1, 2)), ref_gap, 1e-4);
}

// Exercise 7's model (tiny_transformer.hpp): position scheme none, the causal mask only.
namespace {
std::vector<float> last_logits(std::size_t layers, const std::vector<int>& tokens) {
    TinyTransformerConfig c;
    c.layers = layers;
    c.scheme = PositionScheme::none;
    TinyTransformer<float> m(c);
    m.initialize(5);
    // At its init scale (N(0, 0.02²)) attention is nearly uniform and the effect tiny though present;
    // weights of a trained model's size (×25: std 0.5) make it clear of float rounding.
    for (const ParameterGroup& g : m.groups())
        if (g.init_std > 0 && g.init_std < 0.1)
            for (std::size_t k = 0; k < g.size; ++k) m.parameters()[g.offset + k] *= 25.0f;
    TokenBatch b;
    b.lengths = {tokens.size()};
    b.tokens = tokens;
    b.targets.assign(tokens.size(), 0);
    b.weights.assign(tokens.size(), 1.0f);
    const std::vector<float> all = m.logits(b);
    return std::vector<float>(all.end() - static_cast<std::ptrdiff_t>(c.vocab), all.end());
}
double gap(const std::vector<float>& a, const std::vector<float>& b) {
    double g = 0;
    for (std::size_t j = 0; j < a.size(); ++j) g = std::max(g, std::fabs(double(a[j]) - double(b[j])));
    return g;
}
}  // namespace

TEST(TruthCausalLayers, TheTinyTransformerWithoutPositionsTellsTheOrderFromTwoLayers) {
    // The same tokens before the last one, in two orders: a b c b | a  and  c b a b | a.
    const std::vector<int> one = {0, 1, 2, 1, 0};
    const std::vector<int> other = {2, 1, 0, 1, 0};
    // One layer (LayerNorm and the MLP act on each row alone): the last row's logits are the same.
    const double one_layer = gap(last_logits(1, one), last_logits(1, other));
    const double two_layers = gap(last_logits(2, one), last_logits(2, other));
    EXPECT_LT(one_layer, 1e-4);
    // Two layers, as in exercise 7: they differ, by far more than rounding.
    EXPECT_GT(two_layers, 1e-2);
    EXPECT_GT(two_layers, 100 * one_layer);
    std::printf("tiny Transformer, NoPE, last logits under a prefix reorder: 1 layer %.3g, 2 layers %.3g\n", one_layer, two_layers);
}
