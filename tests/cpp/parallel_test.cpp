// poslab/parallel.hpp (issue 25): independent runs on several threads give
// the same numbers, at the same places, as the runs one after another.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "poslab/extend.hpp"
#include "poslab/parallel.hpp"
#include "poslab/train.hpp"

namespace {

using poslab::for_each_index;

TEST(Parallel, EveryIndexRunsExactlyOnceForAnyThreadCount) {
    for (std::size_t threads : {0u, 1u, 2u, 3u, 8u, 40u}) {
        for (std::size_t count : {0u, 1u, 5u, 37u}) {
            std::vector<std::atomic<int>> hits(count);
            for_each_index(count, threads, [&](std::size_t i) { hits[i]++; });
            for (std::size_t i = 0; i < count; ++i)
                EXPECT_EQ(hits[i].load(), 1) << "index " << i << " of " << count << " on " << threads << " threads";
        }
    }
}

TEST(Parallel, OneThreadRunsInOrderOnTheCallingThread) {
    std::vector<std::size_t> order;
    for_each_index(6, 1, [&](std::size_t i) { order.push_back(i); });
    EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
}

TEST(Parallel, TheLowestFailingIndexIsRethrown) {
    for (std::size_t threads : {1u, 2u, 4u}) {
        try {
            for_each_index(10, threads, [](std::size_t i) {
                if (i == 3) throw std::runtime_error("three");
            });
            ADD_FAILURE() << "no exception on " << threads << " threads";
        } catch (const std::runtime_error& e) {
            EXPECT_EQ(std::string(e.what()), "three");
        }
    }
}

TEST(Parallel, DefaultThreadCountIsAtLeastOne) {
    EXPECT_GE(poslab::default_thread_count(), 1u);
    EXPECT_LE(poslab::default_thread_count(), poslab::kMaxThreads);
}

// Short training runs (a few steps, a small test range): one per scheme and
// seed, on 1 and on 3 threads; every loss and exact-match value is equal.
struct Outcome {
    std::vector<double> losses;
    std::vector<double> exact;
    std::int64_t solved = 0;
    double mean = 0;
};

std::vector<Outcome> train_all(std::size_t threads) {
    const std::vector<poslab::PositionScheme> schemes = {poslab::PositionScheme::learned, poslab::PositionScheme::rope,
                                                         poslab::PositionScheme::alibi};
    const std::vector<std::int64_t> seeds = {1, 2};
    std::vector<Outcome> out(schemes.size() * seeds.size());
    for_each_index(out.size(), threads, [&](std::size_t i) {
        poslab::ExtrapolationOptions o;
        o.scheme = schemes[i / seeds.size()];
        o.seed = seeds[i % seeds.size()];
        o.steps = 6;
        o.test_max = 18;
        poslab::ExtrapolationRun run(o);
        run.step(6);
        const poslab::ExtrapolationEvaluation ev = run.evaluate();
        out[i] = {run.losses(), std::vector<double>(ev.exact_match.begin(), ev.exact_match.end()),
                  std::int64_t(ev.solved_up_to), ev.mean_extrapolated};
    });
    return out;
}

TEST(Parallel, TrainingRunsOnThreadsEqualTheRunsInOrder) {
    const std::vector<Outcome> one = train_all(1), three = train_all(3);
    ASSERT_EQ(one.size(), three.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
        EXPECT_EQ(one[i].losses, three[i].losses) << "run " << i;  // bit for bit (operator== on doubles)
        EXPECT_EQ(one[i].exact, three[i].exact) << "run " << i;
        EXPECT_EQ(one[i].solved, three[i].solved) << "run " << i;
        EXPECT_EQ(one[i].mean, three[i].mean) << "run " << i;
        EXPECT_EQ(one[i].losses.size(), 6u);
    }
    // Different seeds differ (the runs really are distinct, not one run copied).
    EXPECT_NE(one[0].losses, one[1].losses);
}

TEST(Parallel, ExtensionRunsOnThreadsEqualTheRunsInOrder) {
    auto run_all = [](std::size_t threads) {
        std::vector<std::vector<double>> out(2);
        for_each_index(2, threads, [&](std::size_t i) {
            poslab::ExtensionOptions o;
            o.train.scheme = poslab::PositionScheme::rope;
            o.train.train_max = poslab::extension_train_defaults().train_max;
            o.train.test_max = poslab::extension_train_defaults().test_max;
            o.train.steps = 4;
            o.train.seed = std::int64_t(i + 1);
            o.finetune_steps = 2;
            poslab::ExtensionRun run(o);
            while (!run.done()) run.step(run.total_steps());
            out[i] = run.losses();
            for (const poslab::ExtensionCurve& c : run.curves()) {
                out[i].insert(out[i].end(), c.losses.begin(), c.losses.end());
                out[i].insert(out[i].end(), c.evaluation.exact_match.begin(), c.evaluation.exact_match.end());
            }
        });
        return out;
    };
    EXPECT_EQ(run_all(1), run_all(2));
}

}  // namespace
