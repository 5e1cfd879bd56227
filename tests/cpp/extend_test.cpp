// The RoPE extension experiment: its phases, its lengths, and that "none"
// zero-shot is exactly the trained model of "train short, test long".
#include <gtest/gtest.h>

#include <cmath>

#include "poslab/errors.hpp"
#include "poslab/extend.hpp"
#include "poslab/random.hpp"
#include "poslab/tiny_transformer.hpp"

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

// The fine-tune's learning rate is finetuneLr (not the training lr) on its
// own schedule (not the training's warm-up): the fine-tune replayed by hand,
// with its schedule worked out from the doc (warm-up steps/10 = 0 for 5
// steps, then lr·(steps−s)/steps), gives the same losses step by step, for
// two different finetuneLr values, with and without a training warm-up.
TEST(Extension, FinetuneUsesFinetuneLrOnItsOwnSchedule) {
    // The second run sets the training's warm-up: the fine-tune still has its own (none).
    for (const double lr : {0.02, 1e-4}) {
        ExtensionOptions o = tiny_options();
        o.methods = {RopeScaling::pi};
        o.finetune_lr = lr;
        if (lr < 1e-3) o.train.warmup = 3;
        ASSERT_NE(lr, o.train.lr);
        ExtensionRun run(o);
        run.step(run.total_steps());
        ASSERT_EQ(run.curves().size(), 2u);
        const std::vector<double>& got = run.curves()[1].losses;
        ASSERT_EQ(got.size(), 5u);

        ExtrapolationOptions t = o.train;
        t.scheme = PositionScheme::rope;
        ExtrapolationRun base(t);
        base.step(std::size_t(t.steps));
        TinyTransformerConfig c = base.model().config();
        const ScaledRope rope = extension_rope(o, RopeScaling::pi);
        c.rope_theta = rope.theta;
        c.logit_scale = rope.logit_scale;
        TinyTransformer<float> m(c);
        m.parameters() = base.model().parameters();
        std::vector<float> g, am(m.parameters().size(), 0.0f), av(m.parameters().size(), 0.0f);
        Rng data(mix_seed(std::uint64_t(t.seed), kFinetuneStream));
        for (std::size_t s = 0; s < 5; ++s) {
            const TokenBatch b = task_batch(t, std::size_t(t.test_max), data);
            const float loss = m.loss_and_gradient(b, g);
            EXPECT_EQ(double(loss), got[s]) << "lr " << lr << " step " << s;
            const double lr_s = lr * double(5 - s) / 5.0;  // no warm-up: 5/10 rounds to 0
            adam_update(m.parameters(), g, am, av, s + 1, lr_s, t.clip);
        }
        // The fine-tuned curve is measured on the weights after the last step.
        EXPECT_EQ(run.curves()[1].evaluation.exact_match, evaluate_task(m, t).exact_match);
        EXPECT_EQ(run.curves()[1].evaluation.solved_up_to, evaluate_task(m, t).solved_up_to);
    }
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
    o.finetune_lr = 1.0000001;
    EXPECT_THROW(validate(o), InvalidArgument);
    o = tiny_options();
    o.finetune_lr = 1.0;  // the documented edges are allowed: lr 1, 0 and 2000 fine-tune steps
    o.finetune_steps = 2000;
    EXPECT_NO_THROW(validate(o));
    o.finetune_steps = 0;
    EXPECT_NO_THROW(validate(o));
    o.finetune_steps = -1;
    EXPECT_THROW(validate(o), InvalidArgument);
    o = tiny_options();
    o = tiny_options();
    o.train.heads = 8;  // d_head 2: NTK needs 4
    EXPECT_THROW(validate(o), InvalidArgument);
    o = tiny_options();
    o.train.test_max = 4;  // not longer than trained
    EXPECT_THROW(validate(o), std::exception);
}

}  // namespace
}  // namespace poslab
