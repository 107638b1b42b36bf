// Tests of the remedy rules of scalewall/analysis/predict.h: the first remedy to try and the
// ones that gain nothing.
#include <gtest/gtest.h>

#include "scalewall/analysis/predict.h"

namespace scalewall {
namespace {

Remedy remedy(std::string name, double gain, bool applicable = true) {
  Remedy r;
  r.name = std::move(name);
  r.gain = gain;
  r.applicable = applicable;
  return r;
}

TEST(RemedyRules, FirstIsTheHighestRankedSingleRemedyThatGains) {
  WhatIf w;
  w.remedies = {remedy("all together", 3.0), remedy("overlap", 2.0, false),
                remedy("compression", 1.5), remedy("hierarchical", 1.2)};
  const Remedy* first = first_remedy(w);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->name, "compression");
}

TEST(RemedyRules, AGainBelowOnePercentIsNone) {
  WhatIf w;
  w.remedies = {remedy("overlap", 1.0 + 0.5 * kNegligibleGain), remedy("all together", 1.5)};
  EXPECT_EQ(first_remedy(w), nullptr);
  EXPECT_TRUE(gains_nothing(w.remedies[0]));
  EXPECT_FALSE(gains_nothing(w.remedies[1]));  // "all together" is never marked
  EXPECT_TRUE(gains(remedy("overlap", 1.0 + kNegligibleGain)));
  EXPECT_FALSE(gains(remedy("overlap", 2.0, false)));
  EXPECT_FALSE(gains_nothing(remedy("overlap", 1.0, false)));
}

}  // namespace
}  // namespace scalewall
