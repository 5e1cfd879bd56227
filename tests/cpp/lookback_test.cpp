// The "look back k" task (train.hpp): its sequences and targets by hand, its
// batches and fixed test sequences, its evaluation against a plain count of
// argmaxes, its options, and that `extend` runs it end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "poslab/extend.hpp"
#include "poslab/random.hpp"
#include "poslab/train.hpp"

namespace poslab {
namespace {

TEST(LookbackTask, SequenceByHand) {
    // x = 3 1 4 1 5, k = 2: rows 0, 1 predict nothing; row 2 → x₀ = 3,
    // row 3 → x₁ = 1, row 4 → x₂ = 4.
    const TokenBatch b = lookback_sequence({3, 1, 4, 1, 5}, 2);
    EXPECT_EQ(b.lengths, (std::vector<std::size_t>{5}));
    EXPECT_EQ(b.tokens, (std::vector<int>{3, 1, 4, 1, 5}));
    EXPECT_EQ(b.targets, (std::vector<int>{0, 0, 3, 1, 4}));
    EXPECT_EQ(b.weights, (std::vector<float>{0, 0, 1, 1, 1}));

    // k = 1: copy the previous symbol.
    const TokenBatch one = lookback_sequence({7, 0, 2}, 1);
    EXPECT_EQ(one.targets, (std::vector<int>{0, 7, 0}));
    EXPECT_EQ(one.weights, (std::vector<float>{0, 1, 1}));

    // k = 5 on 5 symbols: nothing to predict.
    const TokenBatch none = lookback_sequence({1, 2, 3, 4, 5}, 5);
    EXPECT_EQ(none.weights, (std::vector<float>(5, 0.0f)));

    EXPECT_THROW(lookback_sequence({1, 8, 2}, 1), std::invalid_argument);  // symbols are 0 … 7
    EXPECT_THROW(lookback_sequence({1, -1, 2}, 1), std::invalid_argument);
}

TEST(LookbackTask, BatchDrawsLengthsFromHalfKUpAndCopiesKBack) {
    Rng rng(7);
    const std::size_t k = 5, max_n = 8;  // 2n ≥ 5: n from 3 to 8
    std::vector<int> seen_n(9, 0), seen_symbol(8, 0);
    for (int rep = 0; rep < 40; ++rep) {
        const TokenBatch b = lookback_task_batch(32, max_n, k, rng);
        ASSERT_EQ(b.lengths.size(), 32u);
        std::size_t start = 0;
        for (std::size_t len : b.lengths) {
            ASSERT_EQ(len % 2, 1u);
            const std::size_t n = (len - 1) / 2;
            ASSERT_GE(n, 3u);
            ASSERT_LE(n, 8u);
            ++seen_n[n];
            for (std::size_t i = 0; i < len; ++i) {
                const int x = b.tokens[start + i];
                ASSERT_GE(x, 0);
                ASSERT_LT(x, 8);
                ++seen_symbol[std::size_t(x)];
                if (i < k) {
                    ASSERT_EQ(b.weights[start + i], 0.0f);
                } else {
                    ASSERT_EQ(b.weights[start + i], 1.0f);
                    ASSERT_EQ(b.targets[start + i], b.tokens[start + i - k]) << "row " << i;
                }
            }
            start += len;
        }
        EXPECT_EQ(start, b.tokens.size());
        EXPECT_EQ(b.targets.size(), b.tokens.size());
    }
    for (std::size_t n = 0; n < 3; ++n) EXPECT_EQ(seen_n[n], 0) << n;
    for (std::size_t n = 3; n <= 8; ++n) EXPECT_GT(seen_n[n], 150) << n;  // 1280 draws, 213 expected each
    for (int x = 0; x < 8; ++x) EXPECT_GT(seen_symbol[std::size_t(x)], 1000) << x;

    EXPECT_THROW(lookback_task_batch(4, 2, 5, rng), std::invalid_argument);  // 2n ≤ 4 < k
    EXPECT_THROW(lookback_task_batch(4, 2, 0, rng), std::invalid_argument);
}

TEST(LookbackTask, TestSequencesAreFixedAndVaried) {
    const std::vector<TokenBatch> a = lookback_eval_sequences(6, 3), b = lookback_eval_sequences(6, 3);
    ASSERT_EQ(a.size(), kLookbackEvalSequences);
    std::set<std::vector<int>> distinct;
    for (std::size_t q = 0; q < a.size(); ++q) {
        EXPECT_EQ(a[q].tokens, b[q].tokens);
        ASSERT_EQ(a[q].tokens.size(), 13u);  // 2·6 + 1
        EXPECT_EQ(a[q].targets[3], a[q].tokens[0]);
        EXPECT_EQ(a[q].targets[12], a[q].tokens[9]);
        distinct.insert(a[q].tokens);
    }
    EXPECT_EQ(distinct.size(), a.size());
    // Another n draws other symbols (not the same stream cut longer).
    const std::vector<int> longer = lookback_eval_sequences(7, 3)[0].tokens;
    EXPECT_NE(std::vector<int>(longer.begin(), longer.begin() + 13), a[0].tokens);
}

// The evaluation over a packed batch agrees with scoring each test sequence
// alone, row by row; n with 2n < k count as solved.
TEST(LookbackTask, EvaluationCountsWholeSequencesRight) {
    ExtrapolationOptions o;
    o.task = TrainingTask::lookback;
    o.k = 3;
    o.scheme = PositionScheme::rope;
    o.train_max = 4;
    o.test_max = 6;
    o.steps = 60;
    o.batch = 16;
    o.d_model = 16;
    o.heads = 2;
    o.layers = 1;
    o.d_mlp = 16;
    ExtrapolationRun run(o);
    run.step(60);
    EXPECT_EQ(run.model().config().vocab, 8u);
    const ExtrapolationEvaluation ev = run.evaluate();
    ASSERT_EQ(ev.exact_match.size(), 6u);
    EXPECT_EQ(ev.exact_match[0], 1.0);  // n = 1: 3 symbols, k = 3, nothing to predict
    TinyTransformer<float> model(run.model().config());
    model.parameters() = run.model().parameters();
    std::vector<double> expected(6, 1.0);
    for (std::size_t n = 2; n <= 6; ++n) {
        int right = 0;
        for (const TokenBatch& seq : lookback_eval_sequences(n, 3)) {
            const std::vector<float> z = model.logits(seq);
            bool ok = true;
            for (std::size_t i = 3; i < seq.tokens.size(); ++i) {
                const float* row = z.data() + i * 8;
                ok = ok && int(std::max_element(row, row + 8) - row) == seq.tokens[i - 3];
            }
            right += ok;
        }
        expected[n - 1] = right / 16.0;
    }
    for (std::size_t n = 1; n <= 6; ++n) EXPECT_DOUBLE_EQ(ev.exact_match[n - 1], expected[n - 1]) << n;
    EXPECT_DOUBLE_EQ(ev.mean_extrapolated, (expected[4] + expected[5]) / 2);
    std::size_t solved = 0;
    while (solved < 6 && expected[solved] == 1.0) ++solved;
    EXPECT_EQ(ev.solved_up_to, solved);
}

// Copying one step back is learnt quickly at every trained length.
TEST(LookbackTask, ShortRunLearnsToCopy) {
    ExtrapolationOptions o;
    o.task = TrainingTask::lookback;
    o.k = 1;
    o.scheme = PositionScheme::rope;
    o.train_max = 4;
    o.test_max = 6;
    o.steps = 300;
    o.batch = 16;
    ExtrapolationRun run(o);
    run.step(300);
    EXPECT_LT(run.losses().back(), 0.1);  // chance: ln 8 ≈ 2.08
    const ExtrapolationEvaluation ev = run.evaluate();
    for (std::size_t n = 1; n <= 4; ++n) EXPECT_EQ(ev.exact_match[n - 1], 1.0) << n;
}

TEST(LookbackTask, OptionsAndNames) {
    EXPECT_EQ(parse_training_task("count"), TrainingTask::count);
    EXPECT_EQ(parse_training_task("lookback"), TrainingTask::lookback);
    EXPECT_EQ(to_string(TrainingTask::lookback), "lookback");
    try {
        parse_training_task("copy");
        ADD_FAILURE() << "accepted copy";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), "task must be count or lookback, got 'copy'");
    }
    ExtrapolationOptions o;  // train_max 16
    o.task = TrainingTask::lookback;
    for (std::int64_t k : {std::int64_t(0), std::int64_t(17), std::int64_t(-3)}) {
        o.k = k;
        try {
            validate(o);
            ADD_FAILURE() << "accepted k = " << k;
        } catch (const std::logic_error& e) {
            EXPECT_EQ(std::string(e.what()), "k must be an integer from 1 to 16, got " + std::to_string(k));
        }
    }
    o.k = 16;
    EXPECT_NO_THROW(validate(o));
    o.task = TrainingTask::count;
    o.k = 0;  // k means nothing to count and stop
    EXPECT_NO_THROW(validate(o));
    EXPECT_EQ(task_vocab(o), kCountTaskVocab);
    o.task = TrainingTask::lookback;
    o.k = 2;
    EXPECT_EQ(task_vocab(o), 8u);
}

TEST(LookbackTask, ExtendRunsEveryMethodOnIt) {
    ExtensionOptions o;
    o.train.task = TrainingTask::lookback;
    o.train.k = 2;
    o.train.steps = 20;
    o.train.train_max = 4;
    o.train.test_max = 8;
    o.train.batch = 8;
    o.train.d_model = 16;
    o.train.heads = 2;
    o.train.d_mlp = 16;
    o.train.layers = 1;
    o.finetune_steps = 3;
    ExtensionRun run(o);
    run.step(run.total_steps());
    ASSERT_TRUE(run.done());
    ASSERT_EQ(run.curves().size(), 8u);
    for (const ExtensionCurve& c : run.curves()) {
        ASSERT_EQ(c.evaluation.exact_match.size(), 8u);
        for (double v : c.evaluation.exact_match) {
            // a multiple of 1/16
            EXPECT_DOUBLE_EQ(v * 16, double(int(v * 16 + 0.5)));
            EXPECT_GE(v, 0.0);
            EXPECT_LE(v, 1.0);
        }
    }
    // "none" zero-shot is the trained model, evaluated on the same task.
    ExtensionOptions again = o;
    again.methods = {RopeScaling::none};
    again.finetune_steps = 0;
    ExtensionRun none(again);
    none.step(1000);
    ASSERT_TRUE(none.done());
    ASSERT_EQ(none.curves().size(), 1u);
    EXPECT_EQ(none.curves()[0].evaluation.exact_match, run.curves()[0].evaluation.exact_match);
}

}  // namespace
}  // namespace poslab
