// Tests of scalewall/base/stats.h against closed forms.
#include "scalewall/base/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace scalewall {
namespace {

TEST(StatsMedian, OddCountIsTheMiddleValue) {
  EXPECT_EQ(median({5.0, 1.0, 3.0}), 3.0);
  EXPECT_EQ(median({7.0}), 7.0);
}

TEST(StatsMedian, EvenCountIsTheMeanOfTheTwoMiddleValues) {
  EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_EQ(median({1.0, 2.0}), 1.5);
}

TEST(StatsMedian, TwoHugeValuesDoNotOverflow) {
  const double big = std::numeric_limits<double>::max();
  EXPECT_EQ(median({big, big}), big);
}

TEST(StatsQuantile, TypeSevenInterpolatesBetweenOrderStatistics) {
  const std::vector<double> x = {1.0, 2.0, 3.0, 4.0, 5.0};
  EXPECT_EQ(quantile(x, 0.0), 1.0);
  EXPECT_EQ(quantile(x, 1.0), 5.0);
  EXPECT_EQ(quantile(x, 0.5), 3.0);
  EXPECT_EQ(quantile(x, 0.25), 2.0);
  // numpy.quantile([1, 2, 3, 4], 0.25) = 1.75: h = 0.75, 1 + 0.75 (2 - 1).
  const std::vector<double> y = {1.0, 2.0, 3.0, 4.0};
  EXPECT_DOUBLE_EQ(quantile(y, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile(y, 0.5), 2.5);
  const std::vector<double> one = {9.0};
  EXPECT_EQ(quantile(one, 0.75), 9.0);
}

TEST(StatsLeastSquares, SolvesAnExactSystem) {
  // y = 2 + 3 x at x = 0, 1, 2: the columns are (1, x).
  const DesignRows a = {{1.0, 0.0}, {1.0, 1.0}, {1.0, 2.0}};
  const std::vector<double> y = {2.0, 5.0, 8.0};
  const std::vector<std::size_t> columns = {0, 1};
  const auto x = least_squares(a, y, columns);
  ASSERT_TRUE(x.has_value());
  EXPECT_NEAR((*x)[0], 2.0, 1e-12);
  EXPECT_NEAR((*x)[1], 3.0, 1e-12);
}

TEST(StatsLeastSquares, OverdeterminedGivesTheNormalEquationsSolution) {
  // A mean: one column of ones fits y by its average, 2.
  const DesignRows a = {{1.0}, {1.0}, {1.0}};
  const std::vector<double> y = {1.0, 2.0, 3.0};
  const std::vector<std::size_t> columns = {0};
  EXPECT_DOUBLE_EQ(least_squares(a, y, columns)->front(), 2.0);
  // Weighted: weights 1, 1, 2 give (1 + 2 + 6) / 4.
  const std::vector<double> w = {1.0, 1.0, 2.0};
  EXPECT_DOUBLE_EQ(least_squares(a, y, columns, w)->front(), 2.25);
}

TEST(StatsLeastSquares, SolvesSeparateColumns) {
  // Each column is nonzero in one row only: x = (7, 4).
  const DesignRows a = {{0.0, 1.0}, {1.0, 0.0}};
  const std::vector<double> y = {4.0, 7.0};
  const std::vector<std::size_t> columns = {0, 1};
  const auto x = least_squares(a, y, columns);
  ASSERT_TRUE(x.has_value());
  EXPECT_DOUBLE_EQ((*x)[0], 7.0);
  EXPECT_DOUBLE_EQ((*x)[1], 4.0);
}

TEST(StatsLeastSquares, SingularIsNullopt) {
  const DesignRows a = {{1.0, 2.0}, {2.0, 4.0}, {3.0, 6.0}};
  const std::vector<double> y = {1.0, 2.0, 3.0};
  const std::vector<std::size_t> columns = {0, 1};
  EXPECT_FALSE(least_squares(a, y, columns).has_value());
}

TEST(StatsFitLine, RecoversAnExactLineWithRSquaredOne) {
  const std::vector<double> x = {0.0, 1e9, 2e9, 4e9};
  std::vector<double> y;
  for (const double v : x) y.push_back(1e-6 + v / 1e10);
  const Line line = fit_line(x, y);
  EXPECT_NEAR(line.intercept, 1e-6, 1e-15);  // y spans 1e-6 .. 0.4: rounding of the sums
  EXPECT_NEAR(line.slope, 1e-10, 1e-22);
  EXPECT_NEAR(line.r_squared, 1.0, 1e-12);
}

TEST(StatsFitLine, ClosedFormOfThreePoints) {
  // (0, 0), (1, 1), (2, 3): slope = Sxy / Sxx = 3 / 2, intercept = 4/3 - 3/2 = -1/6,
  // SS_res = 1/6, SS_tot = 14/3, R^2 = 1 - 1/28 = 27/28.
  const std::vector<double> x = {0.0, 1.0, 2.0};
  const std::vector<double> y = {0.0, 1.0, 3.0};
  const Line line = fit_line(x, y);
  EXPECT_DOUBLE_EQ(line.slope, 1.5);
  EXPECT_DOUBLE_EQ(line.intercept, -1.0 / 6.0);
  EXPECT_DOUBLE_EQ(line.r_squared, 27.0 / 28.0);
}

TEST(StatsFitLine, WeightsPullTheLineTowardHeavyPoints) {
  // Weights 1, 1, 0-ish: a tiny third weight leaves the line through the first two points.
  const std::vector<double> x = {0.0, 1.0, 2.0};
  const std::vector<double> y = {1.0, 2.0, 10.0};
  const std::vector<double> w = {1.0, 1.0, 1e-12};
  const Line line = fit_line(x, y, w);
  EXPECT_NEAR(line.intercept, 1.0, 1e-9);
  EXPECT_NEAR(line.slope, 1.0, 1e-9);
  // A flat y: R^2 is 1 by definition.
  const std::vector<double> flat = {2.0, 2.0, 2.0};
  EXPECT_EQ(fit_line(x, flat).r_squared, 1.0);
}

TEST(StatsFitSlope, TheSlopeWithTheInterceptHeldInClosedForm) {
  // (1, 1), (2, 3), intercept held at 0: slope = (1 + 6) / (1 + 4) = 7/5; residuals -0.4 and
  // 0.2, SS_res = 0.2; mean y 2, SS_tot = 2; R^2 = 0.9.
  const std::vector<double> x = {1.0, 2.0};
  const std::vector<double> y = {1.0, 3.0};
  const Line line = fit_slope(x, y, 0.0);
  EXPECT_EQ(line.intercept, 0.0);
  EXPECT_DOUBLE_EQ(line.slope, 1.4);
  EXPECT_DOUBLE_EQ(line.r_squared, 0.9);
  // Weights 1 and 3: slope = (1 + 3 * 6) / (1 + 3 * 4) = 19/13.
  const std::vector<double> w = {1.0, 3.0};
  EXPECT_DOUBLE_EQ(fit_slope(x, y, 0.0, w).slope, 19.0 / 13.0);
  // On an exact line the held intercept gives the line back, R^2 1.
  const std::vector<double> exact = {0.5 + 2.0, 0.5 + 4.0};
  const Line back = fit_slope(x, exact, 0.5);
  EXPECT_DOUBLE_EQ(back.slope, 2.0);
  EXPECT_DOUBLE_EQ(back.r_squared, 1.0);
}

TEST(StatsNonNegative, DropsAColumnThatWouldGoNegative) {
  // y = 1 - x: unconstrained the x column's coefficient is -1; non-negative, the best fit is
  // the constant alone at the mean, 0.5, with RSS 2 * 0.25.
  const DesignRows a = {{1.0, 0.0}, {1.0, 1.0}};
  const std::vector<double> y = {1.0, 0.0};
  const auto fit = nonnegative_least_squares(a, y, 1);
  ASSERT_TRUE(fit.has_value());
  EXPECT_DOUBLE_EQ(fit->coefficients[0], 0.5);
  EXPECT_EQ(fit->coefficients[1], 0.0);
  EXPECT_DOUBLE_EQ(fit->rss, 0.5);
}

TEST(StatsNonNegative, KeepsAPositiveColumnAndPrefersTheSimplerTie) {
  // y = 1 + 2 x exactly: both columns, RSS 0.
  const DesignRows a = {{1.0, 0.0, 0.0}, {1.0, 1.0, 0.0}, {1.0, 2.0, 0.0}};
  const std::vector<double> y = {1.0, 3.0, 5.0};
  const auto fit = nonnegative_least_squares(a, y, 1);
  ASSERT_TRUE(fit.has_value());
  EXPECT_NEAR(fit->coefficients[0], 1.0, 1e-12);
  EXPECT_NEAR(fit->coefficients[1], 2.0, 1e-12);
  EXPECT_EQ(fit->coefficients[2], 0.0);  // an all-zero column: singular, left out
  EXPECT_NEAR(fit->rss, 0.0, 1e-20);
  // A duplicate of column 1 fits equally well; the fit with fewer columns is kept.
  const DesignRows twin = {{1.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {1.0, 2.0, 2.0}};
  const auto simple = nonnegative_least_squares(twin, y, 1);
  ASSERT_TRUE(simple.has_value());
  EXPECT_NEAR(simple->coefficients[1] + simple->coefficients[2], 2.0, 1e-12);
  EXPECT_TRUE(simple->coefficients[1] == 0.0 || simple->coefficients[2] == 0.0);
}

TEST(StatsNonNegative, NoNonNegativeSolutionIsNullopt) {
  // y = -1 with only a column of ones: its coefficient must be -1.
  const DesignRows a = {{1.0}, {1.0}};
  const std::vector<double> y = {-1.0, -1.0};
  EXPECT_FALSE(nonnegative_least_squares(a, y, 1).has_value());
}

TEST(StatsResidual, SumsSquaredResiduals) {
  const DesignRows a = {{1.0}, {2.0}};
  const std::vector<double> y = {1.0, 5.0};
  const std::vector<std::size_t> columns = {0};
  const std::vector<double> x = {2.0};
  // residuals 1 - 2 = -1 and 5 - 4 = 1.
  EXPECT_EQ(residual_sum_of_squares(a, y, columns, x), 2.0);
}

}  // namespace
}  // namespace scalewall
