// The core against second, plain-loop implementations written here, where a
// developer's bug would hide from the other tests:
//   * attention at key counts on both sides of every blocking boundary of
//     kernels.cpp (the 4 x 8 register tile, the 64-row query block, the
//     128-row A block, the 256-long k slice), up to 2·256+1 keys;
//   * the count-and-stop evaluation, position by position, stop token
//     included, on a model whose predictions are set by hand;
//   * the code questions' reference functions on hidden cases of many shapes
//     (values wider or narrower than the keys, S ≠ D, several batches), and
//     hidden cases that differ per learner and stay the same for one learner.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "poslab/attention.hpp"
#include "poslab/code_questions.hpp"
#include "poslab/grading.hpp"
#include "poslab/kernels.hpp"
#include "poslab/train.hpp"

using json = nlohmann::json;

namespace {

using Floats = std::vector<float>;
using Doubles = std::vector<double>;

Floats uniform(std::size_t n, std::uint32_t seed, float scale = 1.0f) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> d(-scale, scale);
    Floats v(n);
    for (float& x : v) x = d(gen);
    return v;
}

// ALiBi slopes by the paper's rule, written out: H a power of two → 2^(-8h/H);
// else the slopes of the largest power of two m < H, then the odd-numbered
// slopes 2^(-8(2k-1)/(2m)) of 2m heads, k = 1, 2, ….
Doubles paper_slopes(std::size_t heads) {
    std::size_t m = 1;
    while (m * 2 <= heads) m *= 2;
    Doubles s;
    for (std::size_t h = 1; h <= m; ++h) s.push_back(std::pow(2.0, -8.0 * double(h) / double(m)));
    for (std::size_t k = 1; s.size() < heads; ++k) s.push_back(std::pow(2.0, -8.0 * double(2 * k - 1) / double(2 * m)));
    return s;
}

// softmax(q_h k_hᵀ/√d + bias) v_h for every head, in double, q/k/v rows of width heads·dh.
void plain_attention(const Floats& q, const Floats& k, const Floats& v, std::size_t seq, std::size_t heads,
                     std::size_t dh, bool causal, const Doubles* slopes, Doubles& weights, Doubles& context) {
    const std::size_t width = heads * dh;
    weights.assign(heads * seq * seq, 0.0);
    context.assign(seq * width, 0.0);
    for (std::size_t h = 0; h < heads; ++h)
        for (std::size_t i = 0; i < seq; ++i) {
            Doubles score(seq, -std::numeric_limits<double>::infinity());
            double top = -std::numeric_limits<double>::infinity();
            for (std::size_t j = 0; j < seq; ++j) {
                if (causal && j > i) continue;
                double dot = 0;
                for (std::size_t d = 0; d < dh; ++d) dot += double(q[i * width + h * dh + d]) * double(k[j * width + h * dh + d]);
                score[j] = dot / std::sqrt(double(dh)) - (slopes ? (*slopes)[h] * std::fabs(double(i) - double(j)) : 0.0);
                top = std::max(top, score[j]);
            }
            double sum = 0;
            for (std::size_t j = 0; j < seq; ++j) sum += std::isinf(score[j]) ? 0.0 : std::exp(score[j] - top);
            for (std::size_t j = 0; j < seq; ++j) {
                const double w = std::isinf(score[j]) ? 0.0 : std::exp(score[j] - top) / sum;
                weights[(h * seq + i) * seq + j] = w;
                for (std::size_t d = 0; d < dh; ++d) context[i * width + h * dh + d] += w * double(v[j * width + h * dh + d]);
            }
        }
}

// Key counts: 1, around the 4/8 tile, the 64-row query block, the 128-row
// block, the 256-long k slice and past two of them.
const std::size_t kKeyCounts[] = {1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 255, 256, 257, 513};

}  // namespace

TEST(CoreReference, AttentionKernelAtEveryBlockingBoundary) {
    std::uint32_t seed = 9000;
    for (std::size_t seq : kKeyCounts)
        for (int flags = 0; flags < 4; ++flags) {
            const bool causal = flags & 1, alibi = flags & 2;
            const std::size_t heads = 2, dh = 3, width = heads * dh;
            const Floats q = uniform(seq * width, seed++, 1.5f), k = uniform(seq * width, seed++, 1.5f),
                         v = uniform(seq * width, seed++);
            const Doubles slopes = paper_slopes(heads);
            const Floats slopes_f(slopes.begin(), slopes.end());
            Doubles want_w, want_c;
            plain_attention(q, k, v, seq, heads, dh, causal, alibi ? &slopes : nullptr, want_w, want_c);
            const std::string where = "keys=" + std::to_string(seq) + (causal ? " causal" : "") + (alibi ? " alibi" : "");
            for (bool materialise : {false, true}) {
                Floats context(seq * width, std::numeric_limits<float>::quiet_NaN());
                Floats weights(materialise ? heads * seq * seq : 0, std::numeric_limits<float>::quiet_NaN());
                poslab::kernels::attention_heads(q.data(), k.data(), v.data(), width, context.data(), width, seq, heads, dh,
                                                 causal, alibi ? slopes_f.data() : nullptr,
                                                 materialise ? weights.data() : nullptr);
                for (std::size_t i = 0; i < context.size(); ++i)
                    ASSERT_NEAR(context[i], want_c[i], 2e-5) << where << (materialise ? " weights" : " fused") << " context " << i;
                for (std::size_t i = 0; i < weights.size(); ++i)
                    ASSERT_NEAR(weights[i], want_w[i], 1e-5 * want_w[i] + 1e-7) << where << " weight " << i;
            }
        }
}

TEST(CoreReference, AttentionKernelWithHeadsWiderThanTheKSlice) {
    // d_head past 256: the scores' own product crosses the k slice.
    std::uint32_t seed = 9500;
    for (std::size_t dh : {255u, 256u, 257u, 300u})
        for (std::size_t seq : {1u, 5u, 9u}) {
            const Floats q = uniform(seq * dh, seed++, 0.2f), k = uniform(seq * dh, seed++, 0.2f), v = uniform(seq * dh, seed++);
            Doubles want_w, want_c;
            plain_attention(q, k, v, seq, 1, dh, false, nullptr, want_w, want_c);
            Floats context(seq * dh), weights(seq * seq);
            poslab::kernels::attention_heads(q.data(), k.data(), v.data(), dh, context.data(), dh, seq, 1, dh, false, nullptr,
                                             weights.data());
            for (std::size_t i = 0; i < weights.size(); ++i)
                ASSERT_NEAR(weights[i], want_w[i], 1e-5) << "dh=" << dh << " seq=" << seq << " at " << i;
            for (std::size_t i = 0; i < context.size(); ++i)
                ASSERT_NEAR(context[i], want_c[i], 2e-5) << "dh=" << dh << " seq=" << seq << " at " << i;
        }
}

TEST(CoreReference, SelfAttentionPastOneKSliceOfKeys) {
    // The whole layer (random projections, RoPE, ALiBi, the mask) at 255 … 513
    // tokens, against projections, rotations and softmax written out here.
    std::uint32_t seed = 9700;
    for (std::size_t seq : {255u, 256u, 257u, 300u, 513u})
        for (int flags : {0, 1, 2, 5, 7}) {
            poslab::AttentionOptions o;
            o.heads = 2;
            o.causal = flags & 1;
            o.alibi = flags & 2;
            o.rope = flags & 4;
            o.position_offset = 2;
            const std::size_t D = 8, dh = D / o.heads;
            const poslab::AttentionWeights w = poslab::make_attention_weights(poslab::WeightsKind::random, D, seed++);
            const Floats xs = uniform(seq * D, seed++);
            xt::xtensor<float, 3> x({1, seq, D});
            std::copy(xs.begin(), xs.end(), x.begin());
            auto project = [&](const xt::xtensor<float, 2>& m) {
                Floats out(seq * D);
                for (std::size_t i = 0; i < seq; ++i)
                    for (std::size_t j = 0; j < D; ++j) {
                        double s = 0;
                        for (std::size_t p = 0; p < D; ++p) s += double(xs[i * D + p]) * double(m(p, j));
                        out[i * D + j] = float(s);
                    }
                return out;
            };
            Floats q = project(w.wq), k = project(w.wk), v = project(w.wv);
            if (o.rope)
                for (Floats* t : {&q, &k})
                    for (std::size_t s = 0; s < seq; ++s)
                        for (std::size_t h = 0; h < o.heads; ++h)
                            for (std::size_t i = 0; i < dh / 2; ++i) {
                                const double angle = double(o.position_offset + s) / std::pow(o.rope_base, 2.0 * double(i) / double(dh));
                                float* p = &(*t)[s * D + h * dh + 2 * i];
                                const double a = p[0], b = p[1];
                                p[0] = float(a * std::cos(angle) - b * std::sin(angle));
                                p[1] = float(a * std::sin(angle) + b * std::cos(angle));
                            }
            const Doubles slopes = paper_slopes(o.heads);
            Doubles want_w, ctx;
            plain_attention(q, k, v, seq, o.heads, dh, o.causal, o.alibi ? &slopes : nullptr, want_w, ctx);
            Doubles want(seq * D, 0.0);
            for (std::size_t i = 0; i < seq; ++i)
                for (std::size_t j = 0; j < D; ++j)
                    for (std::size_t p = 0; p < D; ++p) want[i * D + j] += ctx[i * D + p] * double(w.wo(p, j));
            const std::string where = "S=" + std::to_string(seq) + " flags=" + std::to_string(flags);
            for (bool with_weights : {true, false}) {
                o.return_weights = with_weights;
                const poslab::AttentionResult r = poslab::self_attention(x, w, o);
                ASSERT_EQ(r.output.size(), want.size()) << where;
                for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(r.output.data()[i], want[i], 5e-5) << where << " at " << i;
                if (!with_weights) continue;
                ASSERT_EQ(r.weights.size(), want_w.size()) << where;
                for (std::size_t i = 0; i < want_w.size(); ++i)
                    ASSERT_NEAR(r.weights.data()[i], want_w[i], 1e-4 * want_w[i] + 1e-7) << where << " weight " << i;
            }
        }
}

TEST(CoreReference, MatmulAtEveryBlockEdge) {
    // m around the 4-row tile and the 128-row block, k around the 256 slice, n around 8.
    std::uint32_t seed = 9900;
    for (std::size_t m : {1u, 3u, 4u, 5u, 127u, 128u, 129u})
        for (std::size_t kk : {1u, 255u, 256u, 257u, 513u})
            for (std::size_t n : {1u, 7u, 8u, 9u}) {
                const Floats a = uniform(m * kk, seed++), b = uniform(kk * n, seed++);
                Floats c(m * n, std::numeric_limits<float>::quiet_NaN());
                poslab::kernels::matmul(a.data(), b.data(), c.data(), m, kk, n);
                for (std::size_t i = 0; i < m; ++i)
                    for (std::size_t j = 0; j < n; ++j) {
                        double s = 0, mag = 0;
                        for (std::size_t p = 0; p < kk; ++p) {
                            s += double(a[i * kk + p]) * double(b[p * n + j]);
                            mag += std::fabs(double(a[i * kk + p]) * double(b[p * n + j]));
                        }
                        ASSERT_NEAR(c[i * n + j], s, 1e-5 * mag + 1e-30) << "m=" << m << " k=" << kk << " n=" << n;
                    }
            }
}

// ---------------------------------------------------------------------------
// Count and stop: exact match per n, from '=' (position n) to the <eos> target
// (position 2n), on a tiny model whose prediction at each row is set by hand.

namespace {

constexpr std::size_t kTestMax = 8, kTrainMax = 3;
constexpr std::size_t kPositions = 2 * kTestMax + 1;  // rows 0 … 2·test_max

// The prediction the hand-set model makes for (input token, position): the
// argmax of token_pref[token] + pos_pref[position].
struct Design {
    std::vector<Doubles> token_pref;  // [5][5]
    std::vector<Doubles> pos_pref;    // [kPositions][5]
    int predict(int token, std::size_t pos) const {
        int best = 0;
        for (int v = 1; v < 5; ++v)
            if (token_pref[token][v] + pos_pref[pos][v] > token_pref[token][best] + pos_pref[pos][best]) best = v;
        return best;
    }
};

// A model that computes exactly logits = c·(token_pref[token] + pos_pref[pos]) + const:
// the residual stream is one-hot(token) + one-hot(5 + pos) (every block adds 0,
// as its output weights are 0), the final LayerNorm scales all such vectors
// alike, and w_out maps the one-hots to the preferences (its columns summing to 0).
poslab::TinyTransformer<float> hand_set_model(const Design& d) {
    poslab::TinyTransformerConfig c;
    c.vocab = poslab::kCountTaskVocab;
    c.d_model = 24;
    c.heads = 2;
    c.layers = 1;
    c.d_mlp = 4;
    c.max_positions = kPositions;
    c.scheme = poslab::PositionScheme::learned;
    poslab::TinyTransformer<float> model(c);
    std::vector<float>& w = model.parameters();
    std::fill(w.begin(), w.end(), 0.0f);
    for (const auto& g : model.groups()) {
        if (g.name == "token_embedding")
            for (std::size_t t = 0; t < 5; ++t) w[g.offset + t * 24 + t] = 1.0f;
        if (g.name == "position_table")
            for (std::size_t p = 0; p < kPositions; ++p) w[g.offset + p * 24 + 5 + p] = 1.0f;
        if (g.name == "final_ln_gain") std::fill(w.begin() + g.offset, w.begin() + g.offset + g.size, 1.0f);
        if (g.name == "w_out") {  // [D][V]
            for (std::size_t t = 0; t < 5; ++t)
                for (std::size_t v = 0; v < 5; ++v) w[g.offset + t * 5 + v] = float(d.token_pref[t][v]);
            for (std::size_t p = 0; p < kPositions; ++p)
                for (std::size_t v = 0; v < 5; ++v) w[g.offset + (5 + p) * 5 + v] = float(d.pos_pref[p][v]);
            // LayerNorm subtracts the mean (2/D) from every entry, which adds
            // −(2/D)/σ · Σ_rows w_out[·][v] to logit v: the last (unused) row
            // makes every column sum to 0, so that term is the same for all v.
            for (std::size_t v = 0; v < 5; ++v) {
                double column = 0;
                for (std::size_t r = 0; r + 1 < 24; ++r) column += w[g.offset + r * 5 + v];
                w[g.offset + 23 * 5 + v] = float(-column);
            }
        }
    }
    return model;
}

// The sequence of n written out: a×n, '=', b×n; targets shifted by one, then <eos>.
std::vector<double> expected_exact_match(const Design& d) {
    std::vector<double> out;
    for (std::size_t n = 1; n <= kTestMax; ++n) {
        std::vector<int> input(2 * n + 1, poslab::kTokenA), target(2 * n + 1, poslab::kTokenA);
        input[n] = poslab::kTokenEquals;
        for (std::size_t i = n + 1; i <= 2 * n; ++i) input[i] = poslab::kTokenB;
        for (std::size_t i = 0; i + 1 < input.size(); ++i) target[i] = input[i + 1];
        target[2 * n] = poslab::kTokenEos;
        bool right = true;
        for (std::size_t s = n; s <= 2 * n; ++s) right = right && d.predict(input[s], s) == target[s];
        out.push_back(right ? 1.0 : 0.0);
    }
    return out;
}

}  // namespace

TEST(CoreReference, CountAndStopIsScoredFromEqualsToTheStopToken) {
    std::mt19937 rng(77);
    int designs_with_a_solved_n = 0, designs_with_a_failed_n = 0;
    for (int trial = 0; trial < 60; ++trial) {
        Design d;
        d.token_pref.assign(5, Doubles(5, 0.0));
        d.pos_pref.assign(kPositions, Doubles(5, 0.0));
        // By default: after a → a, after '=' and b → b.
        d.token_pref[poslab::kTokenA][poslab::kTokenA] = 4;
        d.token_pref[poslab::kTokenEquals][poslab::kTokenB] = 4;
        d.token_pref[poslab::kTokenB][poslab::kTokenB] = 4;
        // Some positions push <eos> (right only at the end), some push a or '=' (always wrong there).
        for (std::size_t p = 1; p < kPositions; ++p) {
            const unsigned r = rng() % 8;
            if (r < 3) d.pos_pref[p][poslab::kTokenEos] = 8;
            else if (r == 3) d.pos_pref[p][poslab::kTokenA] = 8;
            else if (r == 4) d.pos_pref[p][poslab::kTokenEquals] = 8;
        }
        if (trial == 0) {  // the rows of n = 3 only: <eos> at 6
            for (auto& p : d.pos_pref) std::fill(p.begin(), p.end(), 0.0);
            d.pos_pref[6][poslab::kTokenEos] = 8;
        }
        poslab::TinyTransformer<float> model = hand_set_model(d);
        // The model does predict what the design says, row by row.
        for (std::size_t n = 1; n <= kTestMax; ++n) {
            const poslab::TokenBatch seq = poslab::count_task_sequence(n);
            const std::vector<float> logits = model.logits(seq);
            for (std::size_t s = 0; s < seq.tokens.size(); ++s) {
                const float* z = logits.data() + s * 5;
                ASSERT_EQ(int(std::max_element(z, z + 5) - z), d.predict(seq.tokens[s], s)) << "n=" << n << " row " << s;
            }
        }
        const std::vector<double> want = expected_exact_match(d);
        if (trial == 0) {
            EXPECT_EQ(want, (std::vector<double>{0, 0, 1, 0, 0, 0, 0, 0}));
        }
        const poslab::ExtrapolationEvaluation ev = poslab::evaluate_count_task(model, kTrainMax, kTestMax);
        EXPECT_EQ(ev.exact_match, want) << "trial " << trial;
        std::size_t solved = 0;
        while (solved < kTestMax && want[solved] == 1.0) ++solved;
        EXPECT_EQ(ev.solved_up_to, solved) << "trial " << trial;
        double sum = 0;
        for (std::size_t n = kTrainMax + 1; n <= kTestMax; ++n) sum += want[n - 1];
        EXPECT_DOUBLE_EQ(ev.mean_extrapolated, sum / double(kTestMax - kTrainMax)) << "trial " << trial;
        for (double x : want) (x == 1.0 ? designs_with_a_solved_n : designs_with_a_failed_n)++;
    }
    // The designs exercise both outcomes, many times.
    EXPECT_GE(designs_with_a_solved_n, 10);
    EXPECT_GT(designs_with_a_failed_n, 20);
}

TEST(CoreReference, CountAndStopNeedsTheStopTokenAndTheFirstB) {
    Design d;
    d.token_pref.assign(5, Doubles(5, 0.0));
    d.pos_pref.assign(kPositions, Doubles(5, 0.0));
    // b after '=' and after every b, never <eos>: every n fails (the stop is missed).
    d.token_pref[poslab::kTokenEquals][poslab::kTokenB] = 4;
    d.token_pref[poslab::kTokenB][poslab::kTokenB] = 4;
    poslab::TinyTransformer<float> never_stops = hand_set_model(d);
    EXPECT_EQ(poslab::evaluate_count_task(never_stops, kTrainMax, kTestMax).exact_match, std::vector<double>(kTestMax, 0.0));
    // Right after every b and <eos> at 2n for n = 2 (position 4) … but '=' at
    // position 2 predicts a: n = 2 fails on its first prediction only.
    d.pos_pref[4][poslab::kTokenEos] = 8;
    d.pos_pref[2][poslab::kTokenA] = 8;
    poslab::TinyTransformer<float> wrong_first = hand_set_model(d);
    const auto ev = poslab::evaluate_count_task(wrong_first, kTrainMax, kTestMax);
    EXPECT_EQ(ev.exact_match[1], 0.0);
    d.pos_pref[2][poslab::kTokenA] = 0;
    poslab::TinyTransformer<float> right = hand_set_model(d);
    EXPECT_EQ(poslab::evaluate_count_task(right, kTrainMax, kTestMax).exact_match[1], 1.0);
}

// ---------------------------------------------------------------------------
// The code questions: reference functions on hidden cases of many shapes.

namespace {

using poslab::grading::code_cases;
using poslab::grading::code_reference;

double num(const json& v) { return v.get<double>(); }

// PE[s][2i] = sin(s / 10000^(2i/D)), PE[s][2i+1] = cos(…), written out.
json plain_sinusoidal(long S, long D) {
    json out = json::array();
    for (long s = 0; s < S; ++s) {
        json row = json::array();
        for (long d = 0; d < D; ++d) {
            const double angle = double(s) / std::pow(10000.0, double(d - d % 2) / double(D));
            row.push_back(d % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
        out.push_back(row);
    }
    return out;
}

json plain_reference(const std::string& fn, const json& args) {
    if (fn == "build_sinusoidal_encoding") return plain_sinusoidal(args[0].get<long>(), args[1].get<long>());
    if (fn == "add_positional_information") {
        json out = args[0];
        for (json& batch : out) {
            const json pe = plain_sinusoidal(long(batch.size()), long(batch[0].size()));
            for (std::size_t s = 0; s < batch.size(); ++s)
                for (std::size_t d = 0; d < batch[s].size(); ++d) batch[s][d] = num(batch[s][d]) + num(pe[s][d]);
        }
        return out;
    }
    if (fn == "attention_row") {
        const json &q = args[0], &K = args[1], &V = args[2];
        Doubles e;
        double top = -1e300;
        for (const json& k : K) {
            double dot = 0;
            for (std::size_t i = 0; i < q.size(); ++i) dot += num(q[i]) * num(k[i]);
            e.push_back(dot / std::sqrt(double(q.size())));
            top = std::max(top, e.back());
        }
        double sum = 0;
        for (double& x : e) sum += x = std::exp(x - top);
        json out = json::array();
        for (std::size_t d = 0; d < V[0].size(); ++d) {
            double acc = 0;
            for (std::size_t j = 0; j < V.size(); ++j) acc += e[j] / sum * num(V[j][d]);
            out.push_back(acc);
        }
        return out;
    }
    if (fn == "causal_mask") {
        const long S = args[0].get<long>();
        json out = json::array();
        for (long i = 0; i < S; ++i) {
            json row = json::array();
            for (long j = 0; j < S; ++j) row.push_back(j <= i ? 1 : 0);
            out.push_back(row);
        }
        return out;
    }
    if (fn == "masked_softmax") {
        const json& sc = args[0];
        json out = json::array();
        for (std::size_t i = 0; i < sc.size(); ++i) {
            double top = -1e300, sum = 0;
            for (std::size_t j = 0; j <= i; ++j) top = std::max(top, num(sc[i][j]));
            for (std::size_t j = 0; j <= i; ++j) sum += std::exp(num(sc[i][j]) - top);
            json row = json::array();
            for (std::size_t j = 0; j < sc.size(); ++j) row.push_back(j <= i ? std::exp(num(sc[i][j]) - top) / sum : 0.0);
            out.push_back(row);
        }
        return out;
    }
    if (fn == "rope_rotate") {
        const json& x = args[0];
        const double pos = num(args[1]), base = num(args[2]), D = double(x.size());
        json out = json::array();
        for (std::size_t i = 0; 2 * i < x.size(); ++i) {
            const double t = pos / std::pow(base, 2.0 * double(i) / D);
            out.push_back(num(x[2 * i]) * std::cos(t) - num(x[2 * i + 1]) * std::sin(t));
            out.push_back(num(x[2 * i]) * std::sin(t) + num(x[2 * i + 1]) * std::cos(t));
        }
        return out;
    }
    // alibi_slopes
    json out = json::array();
    for (double s : paper_slopes(args[0].get<std::size_t>())) out.push_back(s);
    return out;
}

// Same nesting and lengths, and every number within 1e-9 (relative) of the other.
void expect_same(const json& got, const json& want, const std::string& where) {
    if (want.is_array()) {
        ASSERT_TRUE(got.is_array()) << where;
        ASSERT_EQ(got.size(), want.size()) << where << " (shape)";
        for (std::size_t i = 0; i < want.size(); ++i) expect_same(got[i], want[i], where + "[" + std::to_string(i) + "]");
        return;
    }
    ASSERT_TRUE(got.is_number()) << where;
    EXPECT_NEAR(num(got), num(want), 1e-9 * std::max(1.0, std::fabs(num(want)))) << where;
}

// The hidden groups of exercise 12's questions, with wider size ranges so
// that many shapes come up (values narrower and wider than the keys, S ≠ D).
json code_question(const std::string& id) {
    if (id == "build_sinusoidal_encoding")
        return {{"count", 12}, {"sizes", {{"S", {1, 9}}, {"D", {{"even", {2, 16}}}}}}, {"args", {"S", "D"}}};
    if (id == "add_positional_information")
        return {{"count", 12}, {"sizes", {{"B", {1, 3}}, {"S", {1, 6}}, {"D", {{"even", {2, 8}}}}}},
                {"args", {{{"list", {"B", "S", "D"}}, {"range", {-1, 1}}}}}};
    if (id == "attention_row")
        return {{"count", 12}, {"sizes", {{"N", {1, 6}}, {"K", {1, 8}}, {"V", {1, 6}}}},
                {"args", {{{"list", {"K"}}, {"range", {-2, 2}}}, {{"list", {"N", "K"}}, {"range", {-2, 2}}}, {{"list", {"N", "V"}}, {"range", {-2, 2}}}}}};
    if (id == "causal_mask") return {{"count", 12}, {"sizes", {{"S", {1, 9}}}}, {"args", {"S"}}};
    if (id == "masked_softmax")
        return {{"count", 12}, {"sizes", {{"S", {1, 7}}}}, {"args", {{{"list", {"S", "S"}}, {"range", {-3, 3}}}}}};
    if (id == "rope_rotate")
        return {{"count", 12}, {"sizes", {{"D", {{"even", {2, 12}}}}, {"P", {0, 50}}}}, {"args", {{{"list", {"D"}}, {"range", {-1, 1}}}, "P", 10000}}};
    return {{"count", 12}, {"sizes", {{"H", {1, 20}}}}, {"args", {"H"}}};
}

json question_for(const std::string& fn) {
    return {{"type", "code"}, {"id", "q-" + fn}, {"function", fn}, {"params", json::array()},
            {"prompt", {{"ja", "p"}, {"en", "p"}}}, {"starter", "def f():\n    pass\n"},
            {"cases", json::array()}, {"hidden", json::array({code_question(fn)})},
            {"tolerance", {{"rtol", 1e-6}, {"atol", 1e-9}}}};
}

// The shape of a nested list, e.g. [3, 4].
std::vector<std::size_t> shape_of(const json& v) {
    std::vector<std::size_t> s;
    const json* at = &v;
    while (at->is_array() && !at->empty()) {
        s.push_back(at->size());
        at = &(*at)[0];
    }
    return s;
}

}  // namespace

TEST(CoreReference, CodeReferencesOnHiddenCasesOfManyShapes) {
    for (const std::string& fn : poslab::grading::code_functions()) {
        const json q = question_for(fn);
        std::set<std::vector<std::size_t>> shapes;
        for (std::uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
            const json cases = code_cases(q, seed);
            ASSERT_EQ(cases["hidden"].size(), 12u) << fn;
            for (const json& c : cases["hidden"]) {
                const json want = plain_reference(fn, c["args"]);
                expect_same(code_reference(fn, c["args"]), want, fn + c["args"].dump());
                std::vector<std::size_t> s;
                for (const json& a : c["args"])
                    for (std::size_t n : shape_of(a)) s.push_back(n);
                if (!c["args"][0].is_array()) s.push_back(c["args"][0].get<std::size_t>());
                shapes.insert(s);
                // And a learner's answer computed the independent way is graded right.
                const json variant = {{"code:" + q["id"].get<std::string>(), {{"visible", json::array()}, {"hidden", json::array({c})}}}};
                const auto r = poslab::grading::check_code_attempt(
                    q, {{"code", "x"}, {"status", "ok"}, {"results", json::array({{{"ok", true}, {"value", want}}})}}, variant);
                EXPECT_EQ(r.status, "correct") << fn << c["args"].dump();
            }
        }
        EXPECT_GE(shapes.size(), 5u) << fn << ": the hidden cases should come in many shapes";
    }
}

TEST(CoreReference, AttentionRowOutputHasTheValuesWidthNotTheKeys) {
    // q and keys of width 3, values of width 1 and 5: the output has the values' width.
    for (int vw : {1, 5}) {
        json V = json::array();
        for (int j = 0; j < 2; ++j) {
            json row = json::array();
            for (int d = 0; d < vw; ++d) row.push_back(j + 0.5 * d);
            V.push_back(row);
        }
        const json args = {json{1.0, 0.0, 0.0}, json{{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}}, V};
        const json got = code_reference("attention_row", args);
        ASSERT_EQ(got.size(), std::size_t(vw));
        // softmax([1/√3, 0]) by hand: w0 = 1/(1+e^(−1/√3)).
        const double w0 = 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(3.0)));
        for (int d = 0; d < vw; ++d) EXPECT_NEAR(got[d].get<double>(), w0 * (0.5 * d) + (1 - w0) * (1 + 0.5 * d), 1e-12);
    }
}

TEST(CoreReference, HiddenCasesDifferPerLearnerAndStayForOneLearner) {
    json ex = {{"id", "code-ex"}, {"order", 12}, {"title", {{"ja", "t"}, {"en", "t"}}}, {"blocks", json::array()}};
    for (const std::string& fn : poslab::grading::code_functions()) ex["blocks"].push_back(question_for(fn));
    const std::string hash = poslab::grading::content_hash(ex);
    std::set<std::string> seen;
    const char* learners[] = {"ana", "ben", "chie", "dai", "emi", "fumi", "gen", "hana"};
    for (const char* learner : learners) {
        const std::uint32_t seed = poslab::grading::variant_seed(learner, "code-ex", hash);
        EXPECT_EQ(seed, poslab::grading::variant_seed(learner, "code-ex", hash));
        const json v = poslab::grading::make_variant(ex, seed);
        EXPECT_EQ(v, poslab::grading::make_variant(ex, seed)) << learner << ": the same learner gets the same cases";
        for (const std::string& fn : poslab::grading::code_functions()) {
            const std::string key = "code:q-" + fn;
            ASSERT_TRUE(v.contains(key)) << key;
            EXPECT_EQ(v[key]["hidden"].size(), 12u);
            EXPECT_TRUE(seen.insert(fn + v[key]["hidden"].dump()).second) << learner << " shares " << fn << "'s hidden cases with another learner";
        }
        // Another exercise id or another version of the file: other cases.
        EXPECT_NE(seed, poslab::grading::variant_seed(learner, "code-ex2", hash));
        EXPECT_NE(seed, poslab::grading::variant_seed(learner, "code-ex", "0000000000000000"));
    }
    // One learner's answer, right for their own cases, is not right for another learner's.
    const json q = question_for("build_sinusoidal_encoding");
    const json mine = poslab::grading::make_variant(ex, poslab::grading::variant_seed("ana", "code-ex", hash));
    const json theirs = poslab::grading::make_variant(ex, poslab::grading::variant_seed("ben", "code-ex", hash));
    json results = json::array();
    for (const json& c : mine["code:q-build_sinusoidal_encoding"]["hidden"])
        results.push_back({{"ok", true}, {"value", plain_reference("build_sinusoidal_encoding", c["args"])}});
    const json answer = {{"code", "x"}, {"status", "ok"}, {"results", results}};
    EXPECT_EQ(poslab::grading::check_code_attempt(q, answer, mine).status, "correct");
    EXPECT_NE(poslab::grading::check_code_attempt(q, answer, theirs).status, "correct");
}
