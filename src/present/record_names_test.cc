#include "scalewall/present/record_names.h"

#include <gtest/gtest.h>

namespace scalewall {
namespace {

TEST(RecordNames, StepCollective) {
  EXPECT_EQ(step_collective_name(StepCollective{}), "");
  EXPECT_EQ(step_collective_name(BusBandwidthGiven{}), "busbw");
  EXPECT_EQ(step_collective_name(AlgorithmSpec{Algorithm::kRing, Algorithm::kRing}), "ring");
  EXPECT_EQ(step_collective_name(AlgorithmSpec{Algorithm::kHierarchical,
                                               Algorithm::kRecursiveDoubling}),
            "hierarchical-recursive-doubling");
}

}  // namespace
}  // namespace scalewall
