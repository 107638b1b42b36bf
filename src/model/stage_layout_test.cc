// Tests of scalewall/model/stage_layout.h.
#include "scalewall/model/stage_layout.h"

#include <gtest/gtest.h>

namespace scalewall {
namespace {

TEST(StageLayout, Placeholder) { EXPECT_TRUE(true); }

}  // namespace
}  // namespace scalewall
