// The RoPE extension experiment: its phases, its lengths, and that "none"
// zero-shot is exactly the trained model of "train short, test long".
#include <gtest/gtest.h>

#include <cmath>

#include "poslab/errors.hpp"
#include "poslab/extend.hpp"

namespace poslab {
namespace {

ExtensionOptions tiny_options() {
    ExtensionOptions o;
    o.train.steps = 30;
    o.train.train_max = 4;
    o.train.test_max = 8;
    o.train.batch = 8;
    o.train.d_model = 16;
    o.train.heads = 2;
    o.train.d_mlp = 16;
    o.train.layers = 1;
    o.finetune_steps = 5;
    return o;
}

TEST(Extension, LengthsAndScale) {
    const ExtensionOptions o = tiny_options();
    EXPECT_EQ(extension_trained_length(o), 8.0);  // positions 0 … 2·4
    EXPECT_EQ(extension_scale(o), 2.0);           // 8/4
    // d_head = 16/2 = 8, base 10^4, s = 2: PI's θ'₁ = 0.1/2.
    EXPECT_NEAR(extension_rope(o, RopeScaling::pi).theta[1], 0.05, 1e-15);
}

TEST(Extension, RunsEveryPhaseAndCountsSteps) {
    ExtensionRun run(tiny_options());
    EXPECT_EQ(run.total_steps(), 30u + 4u * 5u);
    std::size_t calls = 0;
    while (!run.done()) {
        run.step(7);
        ++calls;
        ASSERT_LT(calls, 100u);
    }
    EXPECT_EQ(run.steps_done(), 50u);
    EXPECT_EQ(run.losses().size(), 30u);
    ASSERT_EQ(run.curves().size(), 8u);  // 4 methods × (zero-shot, fine-tuned)
    const RopeScaling order[] = {RopeScaling::none, RopeScaling::pi, RopeScaling::ntk, RopeScaling::yarn};
    for (std::size_t i = 0; i < 8; ++i) {
        EXPECT_EQ(run.curves()[i].method, order[i / 2]);
        EXPECT_EQ(run.curves()[i].finetuned, i % 2 == 1);
        EXPECT_EQ(run.curves()[i].evaluation.exact_match.size(), 8u);
        EXPECT_EQ(run.curves()[i].losses.size(), i % 2 ? 5u : 0u);
    }
    EXPECT_EQ(run.step(10), 0u);
}

TEST(Extension, NoneZeroShotIsTheTrainedModel) {
    const ExtensionOptions o = tiny_options();
    ExtensionRun run(o);
    run.step(run.total_steps());
    ExtrapolationOptions t = o.train;
    t.scheme = PositionScheme::rope;
    ExtrapolationRun plain(t);
    plain.step(30);
    EXPECT_EQ(run.curves()[0].evaluation.exact_match, plain.evaluate().exact_match);
    EXPECT_EQ(run.losses(), plain.losses());
}

TEST(Extension, DeterministicPerSeedAndSameFinetuneDataPerMethod) {
    ExtensionRun a(tiny_options()), b(tiny_options());
    a.step(a.total_steps());
    for (std::size_t k = 0; k < 50; ++k) b.step(1);
    for (std::size_t i = 0; i < a.curves().size(); ++i) {
        EXPECT_EQ(a.curves()[i].evaluation.exact_match, b.curves()[i].evaluation.exact_match);
        EXPECT_EQ(a.curves()[i].losses, b.curves()[i].losses);
    }
}

TEST(Extension, NoFinetuneGivesZeroShotOnly) {
    ExtensionOptions o = tiny_options();
    o.finetune_steps = 0;
    o.methods = {RopeScaling::yarn, RopeScaling::base};
    ExtensionRun run(o);
    EXPECT_EQ(run.total_steps(), 30u);
    run.step(1000);
    EXPECT_TRUE(run.done());
    ASSERT_EQ(run.curves().size(), 2u);
    EXPECT_FALSE(run.curves()[1].finetuned);
}

TEST(Extension, RejectsBadOptions) {
    ExtensionOptions o = tiny_options();
    o.finetune_steps = 2001;
    EXPECT_THROW(validate(o), InvalidArgument);
    o = tiny_options();
    o.methods = {RopeScaling::pi, RopeScaling::pi};
    EXPECT_THROW(validate(o), InvalidArgument);
    o = tiny_options();
    o.methods = {};
    EXPECT_THROW(validate(o), InvalidArgument);
    o = tiny_options();
    o.finetune_lr = 0;
    EXPECT_THROW(validate(o), InvalidArgument);
    o = tiny_options();
    o.train.heads = 8;  // d_head 2: NTK needs 4
    EXPECT_THROW(validate(o), InvalidArgument);
    o = tiny_options();
    o.train.test_max = 4;  // not longer than trained
    EXPECT_THROW(validate(o), std::exception);
}

}  // namespace
}  // namespace poslab
