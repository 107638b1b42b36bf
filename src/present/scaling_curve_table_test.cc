// Tests of scalewall/present/scaling_curve_table.h: one row per rank count, the knee marked
// once, and the two wordings sharing their keys.
#include "scalewall/present/scaling_curve_table.h"

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
  const Table t = scaling_curve_table(three_rows(40), CurveWords::kTerminal);
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
  const Table terminal = scaling_curve_table(three_rows(8), CurveWords::kTerminal);
  const Table page = scaling_curve_table(three_rows(8), CurveWords::kPage);
  ASSERT_EQ(page.columns.size(), terminal.columns.size());
  for (std::size_t c = 0; c < page.columns.size(); ++c) {
    EXPECT_EQ(page.columns[c].key, terminal.columns[c].key);
  }
  EXPECT_EQ(page.columns[3].title, "all-reduce");
  EXPECT_EQ(page.columns[6].title, "checkpoint");
  EXPECT_EQ(page.marks, (std::vector<std::string>{"knee at 8 ranks", "", ""}));
}

TEST(ScalingCurveTable, NoKneeNoMark) {
  const Table t = scaling_curve_table(three_rows(std::nullopt), CurveWords::kPage);
  EXPECT_TRUE(t.marks.empty());
}

}  // namespace
}  // namespace scalewall
