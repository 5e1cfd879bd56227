// combine 'concat' with a learned table: allowed (it appends a position vector,
// as with sinusoidal), and the appended half is the learned table's rows.
#include <gtest/gtest.h>

#include "poslab/errors.hpp"
#include "poslab/model.hpp"
#include "poslab/positional.hpp"

using namespace poslab;

TEST(ForwardConcat, LearnedTableIsAppendedAfterTheTokenVector) {
    ForwardOptions o;
    o.tokens = std::vector<std::string>{"犬", "が", "猫"};
    o.d_model = 4;
    o.pe = PositionScheme::learned;
    o.combine = Combine::concat;
    o.seed = 5;
    const ForwardResult r = forward(o);
    ASSERT_EQ(r.hidden.shape(1), 8u);
    const auto table = learned_position_table(o.max_positions, 4, 5, 0, 3);
    for (std::size_t s = 0; s < 3; ++s)
        for (std::size_t j = 0; j < 4; ++j) {
            EXPECT_EQ(r.hidden(s, j), r.input(s, j));
            EXPECT_EQ(r.hidden(s, 4 + j), table(s, j));
        }
    o.pe = PositionScheme::rope;
    EXPECT_THROW(forward(o), InvalidArgument);
}
