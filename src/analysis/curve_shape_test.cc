// Tests of scalewall/analysis/curve_shape.h on a curve given in closed form: the knee found
// to the exact count by bisection, a cliff against its regular count, and a cliff that is
// past the threshold and is still not the knee.
#include "scalewall/analysis/curve_shape.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace scalewall {
namespace {

// Efficiency 1 - n / 4096 at every count from 1 to 4096; exposed communication reaches the
// compute from `threshold` on; the counts in `dips` lose 5 points of efficiency (a fold).
class ClosedFormCurve final : public CurveProbe {
 public:
  ClosedFormCurve(std::int64_t threshold, std::set<std::int64_t> dips)
      : threshold_(threshold), dips_(std::move(dips)) {}
  bool runs(std::int64_t n) const override { return n >= 1 && n <= 4096; }
  std::int64_t snap_down(std::int64_t n) const override { return n; }
  std::int64_t next_above(std::int64_t lo, std::int64_t hi) const override {
    return lo + 1 < hi ? lo + 1 : hi;
  }
  CurvePoint at(std::int64_t n) const override {
    ++evaluated;
    const double dip = dips_.count(n) != 0 ? 0.05 : 0.0;
    return {n, 1.0 - static_cast<double>(n) / 4096.0 - dip, n >= threshold_};
  }
  std::int64_t regular_unit() const override { return 1; }
  mutable int evaluated = 0;

 private:
  std::int64_t threshold_;
  std::set<std::int64_t> dips_;
};

std::vector<CurvePoint> Rows(const CurveProbe& probe, const std::vector<std::int64_t>& counts) {
  std::vector<CurvePoint> rows;
  for (const std::int64_t n : counts) rows.push_back(probe.at(n));
  return rows;
}

TEST(CurveShape, TheKneeIsBisectedToTheExactCountBetweenTwoRows) {
  const ClosedFormCurve curve(100, {});
  const std::vector<CurvePoint> rows = Rows(curve, {16, 64, 256, 1024});
  const std::vector<Cliff> cliffs = cliffs_of(curve, rows);
  EXPECT_TRUE(cliffs.empty());
  curve.evaluated = 0;
  EXPECT_EQ(knee_of(curve, rows, cliffs, 1), 100);
  // Bisection between 64 and 256: about log2(192) counts (and the regular count of each), not
  // every one of them.
  EXPECT_LE(curve.evaluated, 20);
  // Past the threshold at the first row: the bisection starts at `lowest`.
  const std::vector<CurvePoint> late = Rows(curve, {256, 1024});
  EXPECT_EQ(knee_of(curve, late, {}, 1), 100);
  EXPECT_EQ(knee_of(curve, late, {}, 256), 256);
  // Never past it: no knee.
  const ClosedFormCurve never(5000, {});
  EXPECT_FALSE(knee_of(never, Rows(never, {16, 64, 256, 1024}), {}, 1));
}

TEST(CurveShape, ACountLessEfficientThanTheNextPowerOfTwoIsACliffNotTheKnee) {
  const ClosedFormCurve curve(96, {96, 97});
  EXPECT_EQ(regular_count(curve, 96), 128);
  EXPECT_EQ(regular_count(curve, 128), 128);
  const std::vector<CurvePoint> rows = Rows(curve, {64, 96, 128});
  const std::vector<Cliff> cliffs = cliffs_of(curve, rows);
  ASSERT_EQ(cliffs.size(), 1u);
  EXPECT_EQ(cliffs[0].ranks, 96);
  EXPECT_EQ(cliffs[0].regular_ranks, 128);
  EXPECT_DOUBLE_EQ(cliffs[0].efficiency, 1.0 - 96.0 / 4096 - 0.05);
  EXPECT_DOUBLE_EQ(cliffs[0].regular_efficiency, 1.0 - 128.0 / 4096);
  // 96 and 97 are past the threshold but cliffs: the knee is the next count that is not.
  EXPECT_EQ(knee_of(curve, rows, cliffs, 1), 98);
  // Within the margin a count is no cliff: 1 - 127/4096 is above 1 - 128/4096.
  EXPECT_FALSE(cliff_at(curve, curve.at(127)));
}

// A curve with points only at multiples of 24 (a split whose tp x pp is 24): the power of two
// above a count is not one of them, so its regular count is 24 x 2^k.
class MultiplesOf24 final : public CurveProbe {
 public:
  bool runs(std::int64_t n) const override { return n >= 24 && n % 24 == 0; }
  std::int64_t snap_down(std::int64_t n) const override { return n / 24 * 24; }
  std::int64_t next_above(std::int64_t lo, std::int64_t hi) const override {
    const std::int64_t next = (lo / 24 + 1) * 24;
    return next < hi ? next : hi;
  }
  CurvePoint at(std::int64_t n) const override { return {n, 1.0, n >= 200}; }
  std::int64_t regular_unit() const override { return 24; }
};

TEST(CurveShape, TheRegularCountFallsBackToTheUnitTimesAPowerOfTwo) {
  const MultiplesOf24 curve;
  EXPECT_EQ(regular_count(curve, 72), 96);
  EXPECT_EQ(regular_count(curve, 96), 96);
  // The bisection tries multiples of 24 only: the knee is 216, the first past 200.
  const std::vector<CurvePoint> rows = {curve.at(96), curve.at(384)};
  EXPECT_EQ(knee_of(curve, rows, {}, 24), 216);
}

}  // namespace
}  // namespace scalewall
