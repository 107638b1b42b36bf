// Tests of scalewall/present/prediction_tables.h: the scaling curve with its knee marked once,
// the remedies with the first to try, and the two wordings sharing their keys.
#include "scalewall/present/prediction_tables.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scalewall {
namespace {

Prediction three_rows(std::optional<std::int64_t> knee) {
  Prediction p;
  for (const std::int64_t n : {8, 64, 512}) {
    StepTime t;
    t.ranks = n;
    t.compute_s = 1.0 / static_cast<double>(n);
    t.step_s = 2.0 / static_cast<double>(n);
    t.efficiency = 0.5;
    t.binding = Mechanism::kBandwidth;
    p.rows.push_back(t);
  }
  p.knee_ranks = knee;
  return p;
}

TEST(ScalingCurveTable, MarksTheFirstRowAtOrAboveTheKnee) {
  const Table t = scaling_curve_table(three_rows(40), TableWords::kTerminal);
  ASSERT_EQ(t.key, "rows");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.marks, (std::vector<std::string>{"", "<-- knee at 40 ranks", ""}));
  EXPECT_EQ(std::get<std::int64_t>(t.rows[1][0]), 64);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[1][1]), 1.0 / 64);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[1][7]), 2.0 / 64);
  EXPECT_EQ(std::get<std::string>(t.rows[1][10]), std::string(mechanism_name(Mechanism::kBandwidth)));
  EXPECT_EQ(t.columns[3].title, "comm");
  EXPECT_EQ(t.columns[6].title, "ckpt");
}

TEST(ScalingCurveTable, PageWordsKeepTheKeys) {
  const Table terminal = scaling_curve_table(three_rows(8), TableWords::kTerminal);
  const Table page = scaling_curve_table(three_rows(8), TableWords::kPage);
  ASSERT_EQ(page.columns.size(), terminal.columns.size());
  for (std::size_t c = 0; c < page.columns.size(); ++c) {
    EXPECT_EQ(page.columns[c].key, terminal.columns[c].key);
  }
  EXPECT_EQ(page.columns[3].title, "all-reduce");
  EXPECT_EQ(page.columns[6].title, "checkpoint");
  EXPECT_EQ(page.marks, (std::vector<std::string>{"knee at 8 ranks", "", ""}));
}

TEST(ScalingCurveTable, NoKneeNoMark) {
  const Table t = scaling_curve_table(three_rows(std::nullopt), TableWords::kPage);
  EXPECT_TRUE(t.marks.empty());
}

}  // namespace
}  // namespace scalewall

namespace scalewall {
namespace {

WhatIf three_remedies() {
  WhatIf w;
  w.baseline.name = "baseline";
  w.baseline.step.step_s = 2.0;
  const auto remedy = [](std::string name, double gain, bool applicable) {
    Remedy r;
    r.name = std::move(name);
    r.gain = gain;
    r.applicable = applicable;
    r.step.step_s = 2.0 / gain;
    r.time_per_work_s = 2.0 / gain;
    return r;
  };
  w.remedies = {remedy("overlap", 1.5, true), remedy("compression", 1.001, true),
                remedy("all together", 1.6, true), remedy("hierarchical", 1.0, false)};
  return w;
}

TEST(WhatIfTable, TerminalMarksTheFirstAndTheNoGains) {
  const Table t = what_if_table(three_remedies(), TableWords::kTerminal);
  EXPECT_EQ(t.key, "remedies");
  ASSERT_EQ(t.columns.size(), 8u);
  EXPECT_EQ(t.columns[3].key, "time_per_work_s");
  ASSERT_EQ(t.rows.size(), 5u);
  EXPECT_EQ(t.marks, (std::vector<std::string>{"", "<-- first", "(no gain)", "", ""}));
  EXPECT_EQ(std::get<bool>(t.rows[4][1]), false);
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[1][5]), 1.5);
}

TEST(WhatIfTable, PageSaysYesOrNoAndMarksOnlyTheFirst) {
  const Table t = what_if_table(three_remedies(), TableWords::kPage);
  ASSERT_EQ(t.columns.size(), 7u);
  EXPECT_EQ(t.columns[3].key, "efficiency");
  EXPECT_EQ(t.marks, (std::vector<std::string>{"", "first to try", "", "", ""}));
  EXPECT_EQ(std::get<std::string>(t.rows[4][1]), "no");
  EXPECT_EQ(std::get<std::string>(t.rows[1][1]), "yes");
}

}  // namespace
}  // namespace scalewall
