// The tiny Transformer and the "train short, test long" experiment: the
// forward pass against a plain re-implementation written from the equations,
// the backward pass against finite differences (double precision), and the
// training loop's determinism, convergence and option checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "poslab/random.hpp"
#include "poslab/train.hpp"

namespace poslab {
namespace {

const PositionScheme kAllSchemes[] = {PositionScheme::learned, PositionScheme::sinusoidal,
                                      PositionScheme::rope, PositionScheme::alibi,
                                      PositionScheme::none};

TinyTransformerConfig small_config(PositionScheme scheme) {
    TinyTransformerConfig c;
    c.vocab = 5;
    c.d_model = 8;
    c.heads = 2;
    c.layers = 2;
    c.d_mlp = 12;
    c.max_positions = 12;
    c.scheme = scheme;
    c.base = 100.0;  // a small base so the test positions turn visibly
    return c;
}

// Every parameter drawn N(0, 0.4²) (gains around 1): large enough that every
// path carries gradient, unlike the 0.02 of training.
void randomize(TinyTransformer<double>& model, std::uint64_t seed) {
    Rng rng(seed);
    for (const auto& g : model.groups())
        for (std::size_t i = 0; i < g.size; ++i)
            model.parameters()[g.offset + i] = g.init_value + 0.4 * rng.normal();
}

const double* group(const TinyTransformer<double>& m, const std::string& name) {
    for (const auto& g : m.groups())
        if (g.name == name) return m.parameters().data() + g.offset;
    throw std::runtime_error("no parameter group " + name);
}

// The model written out plainly from its equations, one sequence, no
// batching, no shared kernels: [S, vocab] logits.
std::vector<std::vector<double>> reference_logits(const TinyTransformer<double>& m,
                                                  const std::vector<int>& tokens) {
    const auto& c = m.config();
    const std::size_t S = tokens.size(), D = c.d_model, H = c.heads, dh = D / H, F = c.d_mlp;
    using Mat = std::vector<std::vector<double>>;
    auto layer_norm = [&](const Mat& x, const double* g, const double* b) {
        Mat y(S, std::vector<double>(D));
        for (std::size_t s = 0; s < S; ++s) {
            double mean = 0, var = 0;
            for (double v : x[s]) mean += v / double(D);
            for (double v : x[s]) var += (v - mean) * (v - mean) / double(D);
            for (std::size_t j = 0; j < D; ++j)
                y[s][j] = (x[s][j] - mean) / std::sqrt(var + 1e-5) * g[j] + b[j];
        }
        return y;
    };
    auto dense = [&](const Mat& x, const double* w, const double* b, std::size_t in,
                     std::size_t out) {
        Mat y(S, std::vector<double>(out));
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t o = 0; o < out; ++o) {
                double sum = b[o];
                for (std::size_t i = 0; i < in; ++i) sum += x[s][i] * w[i * out + o];
                y[s][o] = sum;
            }
        return y;
    };
    Mat x(S, std::vector<double>(D));
    const double* emb = group(m, "token_embedding");
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t j = 0; j < D; ++j) {
            x[s][j] = emb[tokens[s] * D + j];
            if (c.scheme == PositionScheme::learned) x[s][j] += group(m, "position_table")[s * D + j];
            if (c.scheme == PositionScheme::sinusoidal) {
                const double angle = double(s) / std::pow(c.base, double(j - j % 2) / double(D));
                x[s][j] += j % 2 == 0 ? std::sin(angle) : std::cos(angle);
            }
        }
    for (std::size_t l = 1; l <= c.layers; ++l) {
        const std::string p = "layer" + std::to_string(l) + ".";
        const Mat h = layer_norm(x, group(m, p + "ln1_gain"), group(m, p + "ln1_bias"));
        Mat qkv = dense(h, group(m, p + "w_qkv"), group(m, p + "b_qkv"), D, 3 * D);
        Mat ctx(S, std::vector<double>(D, 0.0));
        for (std::size_t hd = 0; hd < H; ++hd) {
            auto q = [&](std::size_t s) { return std::vector<double>(qkv[s].begin() + hd * dh, qkv[s].begin() + (hd + 1) * dh); };
            auto k = [&](std::size_t s) { return std::vector<double>(qkv[s].begin() + D + hd * dh, qkv[s].begin() + D + (hd + 1) * dh); };
            auto rope = [&](std::vector<double> v, std::size_t pos) {
                if (c.scheme != PositionScheme::rope) return v;
                for (std::size_t i = 0; i < dh / 2; ++i) {
                    const double freq = c.rope_theta.empty()
                                            ? std::pow(c.base, -2.0 * double(i) / double(dh))
                                            : c.rope_theta[i];
                    const double theta = double(pos) * freq;
                    const double a = v[2 * i], b = v[2 * i + 1];
                    v[2 * i] = a * std::cos(theta) - b * std::sin(theta);
                    v[2 * i + 1] = a * std::sin(theta) + b * std::cos(theta);
                }
                return v;
            };
            // ALiBi slopes for H = 2 by hand: 2^{-8·1/2}, 2^{-8·2/2}.
            const double slope = hd == 0 ? 1.0 / 16.0 : 1.0 / 256.0;
            for (std::size_t i = 0; i < S; ++i) {
                std::vector<double> score(i + 1);
                const std::vector<double> qi = rope(q(i), i);
                for (std::size_t j = 0; j <= i; ++j) {
                    const std::vector<double> kj = rope(k(j), j);
                    double dot = 0;
                    for (std::size_t d = 0; d < dh; ++d) dot += qi[d] * kj[d];
                    score[j] = c.logit_scale * dot / std::sqrt(double(dh));
                    if (c.scheme == PositionScheme::alibi) score[j] -= slope * double(i - j);
                }
                const double mx = *std::max_element(score.begin(), score.end());
                double z = 0;
                for (double& sc : score) z += (sc = std::exp(sc - mx));
                for (std::size_t j = 0; j <= i; ++j)
                    for (std::size_t d = 0; d < dh; ++d)
                        ctx[i][hd * dh + d] += score[j] / z * qkv[j][2 * D + hd * dh + d];
            }
        }
        const Mat attn = dense(ctx, group(m, p + "w_o"), group(m, p + "b_o"), D, D);
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t j = 0; j < D; ++j) x[s][j] += attn[s][j];
        const Mat h2 = layer_norm(x, group(m, p + "ln2_gain"), group(m, p + "ln2_bias"));
        Mat u = dense(h2, group(m, p + "w_mlp1"), group(m, p + "b_mlp1"), D, F);
        for (auto& row : u)
            for (double& v : row) v = std::max(v, 0.0);
        const Mat mlp = dense(u, group(m, p + "w_mlp2"), group(m, p + "b_mlp2"), F, D);
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t j = 0; j < D; ++j) x[s][j] += mlp[s][j];
    }
    const Mat hf = layer_norm(x, group(m, "final_ln_gain"), group(m, "final_ln_bias"));
    return dense(hf, group(m, "w_out"), group(m, "b_out"), D, c.vocab);
}

// Three sequences (n = 4, 1, 2) packed back to back: 9 + 3 + 5 rows.
TokenBatch test_batch() {
    TokenBatch b;
    for (std::size_t n : {4, 1, 2}) {
        const TokenBatch one = count_task_sequence(n);
        b.lengths.push_back(one.lengths[0]);
        b.tokens.insert(b.tokens.end(), one.tokens.begin(), one.tokens.end());
        b.targets.insert(b.targets.end(), one.targets.begin(), one.targets.end());
        b.weights.insert(b.weights.end(), one.weights.begin(), one.weights.end());
    }
    return b;
}
const std::size_t kTestStarts[] = {0, 9, 12};

class PerScheme : public ::testing::TestWithParam<PositionScheme> {};

TEST_P(PerScheme, ForwardMatchesPlainReimplementation) {
    TinyTransformer<double> model(small_config(GetParam()));
    randomize(model, 7);
    const TokenBatch batch = test_batch();
    const std::vector<double> logits = model.logits(batch);
    ASSERT_EQ(logits.size(), 17u * 5u);
    for (std::size_t b = 0; b < 3; ++b) {
        const std::size_t start = kTestStarts[b], length = batch.lengths[b];
        // Each sequence alone: nothing may leak across from its neighbours.
        const std::vector<int> tokens(batch.tokens.begin() + start,
                                      batch.tokens.begin() + start + length);
        const auto expected = reference_logits(model, tokens);
        for (std::size_t s = 0; s < length; ++s)
            for (std::size_t v = 0; v < 5; ++v)
                EXPECT_NEAR(logits[(start + s) * 5 + v], expected[s][v], 1e-12)
                    << "sequence " << b << " position " << s;
    }
}

TEST_P(PerScheme, LossIsMeanCrossEntropyFromEqualsOn) {
    TinyTransformer<double> model(small_config(GetParam()));
    randomize(model, 8);
    const TokenBatch batch = test_batch();
    const std::vector<double> logits = model.logits(batch);
    double total = 0;
    int count = 0;
    const std::size_t ns[] = {4, 1, 2};
    for (std::size_t b = 0; b < 3; ++b)
        for (std::size_t s = ns[b]; s <= 2 * ns[b]; ++s) {  // '=' … last b
            const double* z = logits.data() + (kTestStarts[b] + s) * 5;
            double sum = 0;
            for (int v = 0; v < 5; ++v) sum += std::exp(z[v]);
            const int target = s == 2 * ns[b] ? kTokenEos : kTokenB;
            total += std::log(sum) - z[target];
            ++count;
        }
    EXPECT_EQ(count, 5 + 2 + 3);
    EXPECT_NEAR(model.loss(batch), total / count, 1e-12);
}

// Central differences for every parameter of every layer, in double.
void expect_gradient_matches_finite_differences(const TinyTransformerConfig& config) {
    TinyTransformer<double> model(config);
    randomize(model, 11);
    const TokenBatch batch = test_batch();
    std::vector<double> grad;
    model.loss_and_gradient(batch, grad);
    ASSERT_EQ(grad.size(), model.parameters().size());
    const double h = 1e-5;
    for (const auto& g : model.groups()) {
        double max_err = 0, max_abs = 0;
        for (std::size_t i = g.offset; i < g.offset + g.size; ++i) {
            double& w = model.parameters()[i];
            const double saved = w;
            w = saved + h;
            const double up = model.loss(batch);
            w = saved - h;
            const double down = model.loss(batch);
            w = saved;
            const double numeric = (up - down) / (2 * h);
            max_err = std::max(max_err, std::abs(numeric - grad[i]));
            max_abs = std::max(max_abs, std::abs(numeric));
        }
        EXPECT_LT(max_err, 1e-8) << g.name << " (largest |gradient| " << max_abs << ")";
        // Positions 9 … 11 of the table never occur in the batch.
        if (g.name != "position_table") {
            EXPECT_GT(max_abs, 1e-4) << g.name << " has no gradient";
        }
    }
}

TEST_P(PerScheme, GradientMatchesFiniteDifferences) {
    expect_gradient_matches_finite_differences(small_config(GetParam()));
}

// RoPE context extension: the model evaluated and fine-tuned with scaled
// frequencies θ'ᵢ and YaRN's logit factor 1/t (rope_scaling.hpp).
TinyTransformerConfig scaled_rope_config() {
    TinyTransformerConfig c = small_config(PositionScheme::rope);
    c.rope_theta = {0.7, 0.045};  // any θ'ᵢ, not base^(−2i/d)
    c.logit_scale = 1.3;
    return c;
}

TEST(ScaledRope, ForwardMatchesPlainReimplementation) {
    TinyTransformer<double> model(scaled_rope_config());
    randomize(model, 7);
    const TokenBatch batch = test_batch();
    const std::vector<double> logits = model.logits(batch);
    for (std::size_t b = 0; b < 3; ++b) {
        const std::size_t start = kTestStarts[b], length = batch.lengths[b];
        const std::vector<int> tokens(batch.tokens.begin() + start,
                                      batch.tokens.begin() + start + length);
        const auto expected = reference_logits(model, tokens);
        for (std::size_t s = 0; s < length; ++s)
            for (std::size_t v = 0; v < 5; ++v)
                EXPECT_NEAR(logits[(start + s) * 5 + v], expected[s][v], 1e-12);
    }
    // And the scaling changes the output (the fields are used at all).
    TinyTransformer<double> plain(small_config(PositionScheme::rope));
    plain.parameters() = model.parameters();
    EXPECT_GT(std::abs(plain.logits(batch)[16 * 5] - logits[16 * 5]), 1e-6);
}

TEST(ScaledRope, GradientMatchesFiniteDifferences) {
    expect_gradient_matches_finite_differences(scaled_rope_config());
}

TEST(ScaledRope, RejectsBadFrequenciesAndScale) {
    TinyTransformerConfig c = scaled_rope_config();
    c.rope_theta = {1.0};  // d_head/2 = 2 needed
    EXPECT_THROW(TinyTransformer<float>{c}, std::invalid_argument);
    c = scaled_rope_config();
    c.rope_theta[1] = std::nan("");
    EXPECT_THROW(TinyTransformer<float>{c}, std::invalid_argument);
    c = scaled_rope_config();
    c.scheme = PositionScheme::learned;
    EXPECT_THROW(TinyTransformer<float>{c}, std::invalid_argument);
    c = scaled_rope_config();
    c.logit_scale = 0.0;
    EXPECT_THROW(TinyTransformer<float>{c}, std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(AllSchemes, PerScheme, ::testing::ValuesIn(kAllSchemes),
                         [](const auto& info) { return to_string(info.param); });

TEST(TinyTransformer, LearnedTableRowsPastTheBatchGetNoGradient) {
    TinyTransformer<double> model(small_config(PositionScheme::learned));
    randomize(model, 3);
    std::vector<double> grad;
    model.loss_and_gradient(test_batch(), grad);  // positions 0 … 8 of 12
    const auto& table = model.groups()[1];
    ASSERT_EQ(table.name, "position_table");
    ASSERT_EQ(table.size, 12u * 8u);
    for (std::size_t pos = 0; pos < 12; ++pos) {
        double norm = 0;
        for (std::size_t j = 0; j < 8; ++j) norm += std::abs(grad[table.offset + pos * 8 + j]);
        if (pos < 9) {
            EXPECT_GT(norm, 0.0) << "row " << pos;
        } else {
            EXPECT_EQ(norm, 0.0) << "row " << pos;
        }
    }
}

TEST(TinyTransformer, CausalOutputsIgnoreLaterTokens) {
    for (PositionScheme scheme : kAllSchemes) {
        TinyTransformer<double> model(small_config(scheme));
        randomize(model, 5);
        TokenBatch b = count_task_sequence(4);
        const std::vector<double> before = model.logits(b);
        b.tokens[6] = kTokenA;  // was b
        const std::vector<double> after = model.logits(b);
        for (std::size_t i = 0; i < 6 * 5; ++i) EXPECT_EQ(before[i], after[i]) << to_string(scheme);
        double changed = 0;
        for (std::size_t i = 6 * 5; i < 9 * 5; ++i) changed += std::abs(before[i] - after[i]);
        EXPECT_GT(changed, 1e-6) << to_string(scheme);
    }
}

TEST(TinyTransformer, FloatAgreesWithDouble) {
    TinyTransformer<double> d(small_config(PositionScheme::rope));
    TinyTransformer<float> f(small_config(PositionScheme::rope));
    d.initialize(9);
    f.initialize(9);
    for (std::size_t i = 0; i < d.parameters().size(); ++i)
        ASSERT_EQ(float(d.parameters()[i]), f.parameters()[i]);
    std::vector<double> gd;
    std::vector<float> gf;
    EXPECT_NEAR(f.loss_and_gradient(test_batch(), gf), d.loss_and_gradient(test_batch(), gd), 1e-5);
    for (std::size_t i = 0; i < gd.size(); ++i) EXPECT_NEAR(gf[i], gd[i], 1e-5) << i;
}

TEST(TinyTransformer, InitialisationFollowsTheIssue) {
    TinyTransformerConfig c = small_config(PositionScheme::learned);
    c.d_model = 32;
    c.heads = 4;
    c.d_mlp = 128;
    c.max_positions = 98;
    TinyTransformer<float> model(c);
    model.initialize(1);
    for (const auto& g : model.groups()) {
        double sum = 0, sum2 = 0;
        for (std::size_t i = 0; i < g.size; ++i) {
            const double v = model.parameters()[g.offset + i];
            sum += v;
            sum2 += v * v;
        }
        const double mean = sum / double(g.size);
        const double sd = std::sqrt(sum2 / double(g.size) - mean * mean);
        const bool gain = g.name.find("gain") != std::string::npos;
        const bool weight = g.name == "token_embedding" || g.name == "position_table" ||
                            g.name.find(".w_") != std::string::npos || g.name == "w_out";
        if (g.name == "token_embedding") {
            EXPECT_NEAR(sd, 1.0, 0.25) << g.name;  // 160 draws
        } else if (weight) {
            EXPECT_NEAR(sd, 0.02, 0.004) << g.name;
        } else {
            EXPECT_EQ(sd, 0.0) << g.name;
            EXPECT_EQ(mean, gain ? 1.0 : 0.0) << g.name;
        }
    }
}

TEST(TinyTransformer, AlibiSlopesFollowThePaper) {
    EXPECT_EQ(alibi_head_slopes(4), (std::vector<double>{0.25, 0.0625, 0.015625, 0.00390625}));
    EXPECT_EQ(alibi_head_slopes(1), (std::vector<double>{1.0 / 256.0}));
    // 6 heads: those of 4, then every other one of 8 (2^-1, 2^-3).
    EXPECT_EQ(alibi_head_slopes(6), (std::vector<double>{0.25, 0.0625, 0.015625, 0.00390625, 0.5,
                                                         0.125}));
}

// The model's position formulas (checked against reference_logits above) are
// the lab's own (positional.hpp), so the page shows one definition of each.
TEST(TinyTransformer, PositionFormulasAreTheLabs) {
    for (std::size_t h = 1; h <= 16; ++h) {
        const std::vector<double> mine = alibi_head_slopes(h), lab = alibi_slopes(h);
        ASSERT_EQ(mine.size(), lab.size());
        for (std::size_t i = 0; i < h; ++i) EXPECT_NEAR(mine[i], lab[i], 1e-15) << h << " heads";
    }
    // reference_logits: PE(pos, j) = sin/cos(pos / base^{(j - j%2)/D}); RoPE θ = pos·base^{-2i/d_head}.
    const auto pe = sinusoidal_encoding(12, 8, 100.0);
    for (std::size_t pos = 0; pos < 12; ++pos)
        for (std::size_t j = 0; j < 8; ++j) {
            const double angle = double(pos) / std::pow(100.0, double(j - j % 2) / 8.0);
            EXPECT_NEAR(pe(pos, j), j % 2 == 0 ? std::sin(angle) : std::cos(angle), 1e-6);
        }
    for (std::size_t pos = 0; pos < 12; ++pos)
        for (std::size_t i = 0; i < 2; ++i)
            EXPECT_NEAR(rope_angle(pos, i, 4, 100.0), double(pos) * std::pow(100.0, -2.0 * i / 4.0),
                        1e-12);
}

TEST(TinyTransformer, RejectsBadConfigAndBatch) {
    TinyTransformerConfig c = small_config(PositionScheme::none);
    c.heads = 3;
    EXPECT_THROW(TinyTransformer<float>{c}, std::invalid_argument);
    c = small_config(PositionScheme::rope);
    c.heads = 8;  // head width 1
    EXPECT_THROW(TinyTransformer<float>{c}, std::invalid_argument);
    TinyTransformer<float> model(small_config(PositionScheme::learned));
    TokenBatch b = count_task_sequence(6);  // 13 positions > 12
    try {
        model.loss(b);
        FAIL() << "no exception";
    } catch (const std::out_of_range& e) {
        EXPECT_NE(std::string(e.what()).find("max_positions 12"), std::string::npos) << e.what();
    }
    b = count_task_sequence(2);
    b.tokens[1] = 5;
    EXPECT_THROW(model.loss(b), std::out_of_range);
}

// ---- the experiment ----

TEST(CountTask, SequenceByHand) {
    const TokenBatch b = count_task_sequence(3);  // a a a = b b b <eos>
    EXPECT_EQ(b.lengths, (std::vector<std::size_t>{7}));
    EXPECT_EQ(b.tokens, (std::vector<int>{1, 1, 1, 3, 2, 2, 2}));
    EXPECT_EQ(b.targets, (std::vector<int>{1, 1, 3, 2, 2, 2, 4}));
    EXPECT_EQ(b.weights, (std::vector<float>{0, 0, 0, 1, 1, 1, 1}));
}

TEST(CountTask, BatchDrawsEveryTrainedLengthPacked) {
    Rng rng(42);
    std::vector<int> seen(17, 0);
    for (int rep = 0; rep < 50; ++rep) {
        const TokenBatch b = count_task_batch(32, 16, rng);
        ASSERT_EQ(b.lengths.size(), 32u);
        std::size_t start = 0;
        for (std::size_t len : b.lengths) {
            ASSERT_EQ(len % 2, 1u);
            const std::size_t n = (len - 1) / 2;
            ASSERT_GE(n, 1u);
            ASSERT_LE(n, 16u);
            ++seen[n];
            // The sequence is exactly count_task_sequence(n), in place.
            const TokenBatch one = count_task_sequence(n);
            for (std::size_t s = 0; s < len; ++s) {
                ASSERT_EQ(b.tokens[start + s], one.tokens[s]);
                ASSERT_EQ(b.targets[start + s], one.targets[s]);
                ASSERT_EQ(b.weights[start + s], one.weights[s]);
            }
            start += len;
        }
        EXPECT_EQ(start, b.tokens.size());
    }
    for (int n = 1; n <= 16; ++n) EXPECT_GT(seen[n], 50) << n;  // 1600 draws, 100 expected each
}

TEST(Extrapolation, LearnedTableCoversTheLongestTestSequence) {
    ExtrapolationOptions o;  // test_max 48: a 48 = 48 b eos is 98 tokens
    EXPECT_EQ(learned_table_rows(o), 98u);
    ExtrapolationRun run(o);
    EXPECT_EQ(run.model().config().max_positions, 98u);
    EXPECT_EQ(run.model().groups()[1].size, 98u * 32u);
}

TEST(Extrapolation, LearningRateWarmsUpThenDecaysLinearly) {
    ExtrapolationOptions o;  // 3e-3, 40 warm-up steps of 400
    EXPECT_DOUBLE_EQ(learning_rate_at(o, 0), 3e-3 / 40);
    EXPECT_DOUBLE_EQ(learning_rate_at(o, 19), 3e-3 / 2);
    EXPECT_DOUBLE_EQ(learning_rate_at(o, 39), 3e-3);
    EXPECT_DOUBLE_EQ(learning_rate_at(o, 40), 3e-3);
    EXPECT_DOUBLE_EQ(learning_rate_at(o, 220), 3e-3 / 2);
    EXPECT_DOUBLE_EQ(learning_rate_at(o, 399), 3e-3 / 360);
    EXPECT_EQ(warmup_steps(o), 40u);  // unset: steps/10
    o.steps = 25;
    EXPECT_EQ(warmup_steps(o), 2u);
    EXPECT_DOUBLE_EQ(learning_rate_at(o, 0), 3e-3 / 2);
    EXPECT_DOUBLE_EQ(learning_rate_at(o, 24), 3e-3 / 23);
    o.warmup = 0;
    EXPECT_DOUBLE_EQ(learning_rate_at(o, 0), 3e-3 * 25 / 25);
}

TEST(Extrapolation, FirstAdamStepFollowsTheFormula) {
    // Adam's first step, bias-corrected: m̂ = g, v̂ = g², so each weight moves by
    // -lr·g/(|g| + eps), g being the clipped gradient of the first batch.
    ExtrapolationOptions o;
    o.scheme = PositionScheme::learned;
    o.steps = 10;
    o.warmup = 2;  // first lr = 3e-3 / 2
    ExtrapolationRun run(o);
    const std::vector<float> before = run.model().parameters();
    run.step(1);
    const std::vector<float>& after = run.model().parameters();

    TinyTransformer<float> copy(run.model().config());
    copy.parameters() = before;
    Rng data(mix_seed(1, kDataStream));
    std::vector<float> g;
    copy.loss_and_gradient(count_task_batch(32, 16, data), g);
    double norm = 0;
    for (float v : g) norm += double(v) * v;
    norm = std::sqrt(norm);
    const double scale = std::min(1.0, 1.0 / norm);
    std::size_t still = 0;
    for (std::size_t i = 0; i < before.size(); ++i) {
        const double gc = g[i] * scale;
        const double expected = -1.5e-3 * gc / (std::abs(gc) + 1e-8);
        // float: a relative 1e-5 of the step plus the rounding of a weight near 2
        EXPECT_NEAR(double(after[i]) - double(before[i]), expected, 1.5e-8 + 2.5e-7) << i;
        if (g[i] == 0.0f) ++still;
    }
    // At least the table rows past 2·16 (positions 33 … 97) receive no gradient.
    EXPECT_GE(still, (98u - 33u) * 32u);
}

TEST(Extrapolation, LearnedRowsPastTheTrainedLengthsNeverChange) {
    // Training inputs have 2·16+1 = 33 positions (0 … 32): rows 33 … 97 keep
    // their initial values; the rows in use all move.
    ExtrapolationOptions o;
    o.scheme = PositionScheme::learned;
    o.steps = 30;
    ExtrapolationRun run(o);
    const std::vector<float> before = run.model().parameters();
    run.step(30);
    const auto& table = run.model().groups()[1];
    ASSERT_EQ(table.name, "position_table");
    for (std::size_t row = 0; row < 98; ++row) {
        std::size_t changed = 0;
        for (std::size_t j = 0; j < 32; ++j) {
            const std::size_t i = table.offset + row * 32 + j;
            changed += run.model().parameters()[i] != before[i];
        }
        if (row <= 32) {
            EXPECT_EQ(changed, 32u) << "row " << row;
        } else {
            EXPECT_EQ(changed, 0u) << "row " << row;
        }
    }
}

TEST(Extrapolation, TrainingIsDeterministicForASeed) {
    ExtrapolationOptions o;
    o.scheme = PositionScheme::rope;
    o.steps = 12;
    ExtrapolationRun a(o), b(o);
    a.step(5);
    a.step(7);  // chunking must not matter
    b.step(12);
    EXPECT_EQ(a.losses(), b.losses());
    EXPECT_EQ(a.model().parameters(), b.model().parameters());
    o.seed = 2;
    ExtrapolationRun c(o);
    c.step(12);
    EXPECT_NE(a.losses(), c.losses());
}

TEST(Extrapolation, StepStopsAtTheEnd) {
    ExtrapolationOptions o;
    o.steps = 3;
    ExtrapolationRun run(o);
    EXPECT_FALSE(run.done());
    EXPECT_EQ(run.step(2), 2u);
    EXPECT_EQ(run.step(5), 1u);
    EXPECT_TRUE(run.done());
    EXPECT_EQ(run.step(5), 0u);
    EXPECT_EQ(run.losses().size(), 3u);
    const ExtrapolationEvaluation ev = run.evaluate();
    EXPECT_EQ(ev.exact_match.size(), 48u);
}

// A short run on n ≤ 8 learns every trained length, whatever the scheme.
TEST(Extrapolation, ShortRunSolvesTheTrainedLengths) {
    for (PositionScheme scheme : kAllSchemes) {
        ExtrapolationOptions o;
        o.scheme = scheme;
        o.train_max = 8;
        o.test_max = 12;
        o.steps = 200;
        o.warmup = 20;
        o.batch = 16;
        ExtrapolationRun run(o);
        run.step(200);
        EXPECT_LT(run.losses().back(), run.losses().front() / 10) << to_string(scheme);
        const ExtrapolationEvaluation ev = run.evaluate();
        for (std::size_t n = 1; n <= 8; ++n)
            EXPECT_EQ(ev.exact_match[n - 1], 1.0) << to_string(scheme) << " n=" << n;
        EXPECT_GE(ev.solved_up_to, 8u) << to_string(scheme);
        double mean = 0;
        for (std::size_t n = 9; n <= 12; ++n) mean += ev.exact_match[n - 1] / 4;
        EXPECT_DOUBLE_EQ(ev.mean_extrapolated, mean);
    }
}

void expect_rejected(const std::function<void(ExtrapolationOptions&)>& change,
                     const std::string& fragment) {
    ExtrapolationOptions o;
    change(o);
    try {
        validate(o);
        ADD_FAILURE() << "accepted; expected a message containing: " << fragment;
    } catch (const std::logic_error& e) {  // invalid_argument or out_of_range
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
    EXPECT_THROW(ExtrapolationRun{o}, std::logic_error);
}

TEST(Extrapolation, InvalidOptionsAreRejectedWithClearMessages) {
    EXPECT_NO_THROW(validate(ExtrapolationOptions{}));
    expect_rejected([](auto& o) { o.steps = 0; }, "steps must be an integer from 1 to 20000, got 0");
    expect_rejected([](auto& o) { o.steps = -5; }, "got -5");
    expect_rejected([](auto& o) { o.seed = -1; }, "seed must be an integer from 0 to 4294967295");
    expect_rejected([](auto& o) { o.seed = 4294967296LL; }, "got 4294967296");
    expect_rejected([](auto& o) { o.train_max = 0; }, "trainMax must be an integer from 1 to 32");
    expect_rejected([](auto& o) { o.test_max = 16; }, "testMax must be an integer from 17 to 96, got 16");
    expect_rejected([](auto& o) { o.test_max = 97; }, "testMax must be an integer from 17 to 96");
    expect_rejected([](auto& o) { o.batch = 129; }, "batch must be an integer from 1 to 128, got 129");
    expect_rejected([](auto& o) { o.lr = 0.0; }, "lr must be a number in (0, 1], got 0");
    expect_rejected([](auto& o) { o.lr = std::nan(""); }, "lr must be a number in (0, 1]");
    expect_rejected([](auto& o) { o.warmup = 401; }, "warmup must be an integer from 0 to 400, got 401");
    expect_rejected([](auto& o) { o.warmup = -1; }, "warmup must be an integer from 0 to 400, got -1");
    expect_rejected([](auto& o) { o.clip = -1.0; }, "clip must be a number in (0, 1000], got -1");
    expect_rejected([](auto& o) { o.d_model = 65; }, "dModel must be an integer from 2 to 64");
    expect_rejected([](auto& o) { o.heads = 3; }, "heads must divide dModel: dModel 32, heads 3");
    expect_rejected([](auto& o) { o.layers = 5; }, "layers must be an integer from 1 to 4, got 5");
    expect_rejected([](auto& o) { o.d_mlp = 0; }, "dMlp must be an integer from 1 to 256, got 0");
    expect_rejected([](auto& o) { o.base = 1.0; }, "base must be a number in (1, 1e9], got 1");
    expect_rejected(
        [](auto& o) {
            o.scheme = PositionScheme::rope;
            o.heads = 16;
            o.d_model = 48;
        },
        "rope needs an even head width dModel/heads, got 3");
    expect_rejected(
        [](auto& o) {
            o.scheme = PositionScheme::sinusoidal;
            o.heads = 1;
            o.d_model = 33;
        },
        "sinusoidal needs an even dModel (sin, cos pairs), got 33");
}

}  // namespace
}  // namespace poslab
