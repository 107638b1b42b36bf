// Implementation of scalewall/base/stats.h.
#include "scalewall/base/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

// A pivot smaller than this leaves the normal equations singular: far below any product of
// the library's columns (times, rank-count shapes), far above the smallest normal double.
constexpr double kSingularPivot = 1e-300;

// Two residual sums closer than this (relative, then absolute for sums near 0) are equal to
// rounding: the subsets' solutions differ only in the last bits of a double.
constexpr double kEqualRssRelative = 1e-9;
constexpr double kEqualRssAbsolute = 1e-18;

// 2^20 subsets already take a noticeable time; the library fits at most four optional columns.
constexpr std::size_t kMaxOptionalColumns = 20;

}  // namespace

double median(std::vector<double> values) {
  SCALEWALL_CHECK(!values.empty());
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  // The halves are added separately, so that two values near the largest double cannot
  // overflow; below that it is the same double as (a + b) / 2.
  return n % 2 == 1 ? values[n / 2] : values[n / 2 - 1] / 2 + values[n / 2] / 2;
}

double quantile(std::span<const double> sorted, double q) {
  SCALEWALL_CHECK(!sorted.empty() && q >= 0 && q <= 1);
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::optional<std::vector<double>> least_squares(const DesignRows& a, std::span<const double> y,
                                                 std::span<const std::size_t> columns,
                                                 std::span<const double> weights) {
  SCALEWALL_CHECK(y.size() == a.size() && (weights.empty() || weights.size() == a.size()));
  const auto weight = [&](std::size_t r) { return weights.empty() ? 1.0 : weights[r]; };
  const std::size_t k = columns.size();
  // The augmented normal matrix [A^T W A | A^T W y].
  std::vector<std::vector<double>> m(k, std::vector<double>(k + 1, 0.0));
  for (std::size_t r = 0; r < a.size(); ++r) {
    for (std::size_t i = 0; i < k; ++i) {
      const double wa = weight(r) * a[r][columns[i]];
      for (std::size_t j = 0; j < k; ++j) m[i][j] += wa * a[r][columns[j]];
      m[i][k] += wa * y[r];
    }
  }
  // Gauss-Jordan elimination with partial pivoting.
  for (std::size_t c = 0; c < k; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < k; ++r) {
      if (std::fabs(m[r][c]) > std::fabs(m[pivot][c])) pivot = r;
    }
    if (std::fabs(m[pivot][c]) < kSingularPivot) return std::nullopt;
    std::swap(m[c], m[pivot]);
    for (std::size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      const double f = m[r][c] / m[c][c];
      for (std::size_t j = c; j <= k; ++j) m[r][j] -= f * m[c][j];
    }
  }
  std::vector<double> x(k, 0.0);
  for (std::size_t i = 0; i < k; ++i) x[i] = m[i][k] / m[i][i];
  return x;
}

namespace {

// 1 - SS_res / SS_tot of `line` over the points, weighted (w empty: every weight 1); 1 when
// every y is equal.
double weighted_r_squared(std::span<const double> x, std::span<const double> y,
                          std::span<const double> w, double intercept, double slope) {
  const auto weight = [&](std::size_t i) { return w.empty() ? 1.0 : w[i]; };
  double sum_w = 0;
  double mean_y = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sum_w += weight(i);
    mean_y += weight(i) * y[i];
  }
  mean_y /= sum_w;
  double ss_res = 0;
  double ss_tot = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (intercept + slope * x[i]);
    ss_res += weight(i) * r * r;
    ss_tot += weight(i) * (y[i] - mean_y) * (y[i] - mean_y);
  }
  return ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
}

}  // namespace

Line fit_line(std::span<const double> x, std::span<const double> y, std::span<const double> w) {
  SCALEWALL_CHECK(x.size() == y.size() && x.size() >= 2);
  SCALEWALL_CHECK(w.empty() || w.size() == x.size());
  const auto weight = [&](std::size_t i) { return w.empty() ? 1.0 : w[i]; };
  double sum_w = 0;
  double mean_x = 0;
  double mean_y = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sum_w += weight(i);
    mean_x += weight(i) * x[i];
    mean_y += weight(i) * y[i];
  }
  mean_x /= sum_w;
  mean_y /= sum_w;
  DesignRows centred_x;
  std::vector<double> centred_y;
  for (std::size_t i = 0; i < x.size(); ++i) {
    centred_x.push_back({x[i] - mean_x});
    centred_y.push_back(y[i] - mean_y);
  }
  const std::size_t slope_column[] = {0};
  const auto slope = least_squares(centred_x, centred_y, slope_column, w);
  SCALEWALL_CHECK(slope.has_value());  // two distinct x give a positive sum of squares
  Line line;
  line.slope = slope->front();
  line.intercept = mean_y - line.slope * mean_x;
  line.r_squared = weighted_r_squared(x, y, w, line.intercept, line.slope);
  return line;
}

Line fit_slope(std::span<const double> x, std::span<const double> y, double intercept,
               std::span<const double> w) {
  SCALEWALL_CHECK(x.size() == y.size() && !x.empty());
  SCALEWALL_CHECK(w.empty() || w.size() == x.size());
  const auto weight = [&](std::size_t i) { return w.empty() ? 1.0 : w[i]; };
  double num = 0;
  double den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    num += weight(i) * x[i] * (y[i] - intercept);
    den += weight(i) * x[i] * x[i];
  }
  Line line;
  line.intercept = intercept;
  line.slope = den > 0 ? num / den : 0.0;
  line.r_squared = weighted_r_squared(x, y, w, intercept, line.slope);
  return line;
}

double residual_sum_of_squares(const DesignRows& a, std::span<const double> y,
                               std::span<const std::size_t> columns,
                               std::span<const double> x) {
  SCALEWALL_CHECK(columns.size() == x.size() && y.size() == a.size());
  double rss = 0;
  for (std::size_t r = 0; r < a.size(); ++r) {
    double fit = 0;
    for (std::size_t i = 0; i < columns.size(); ++i) fit += a[r][columns[i]] * x[i];
    rss += (y[r] - fit) * (y[r] - fit);
  }
  return rss;
}

std::optional<NonNegativeFit> nonnegative_least_squares(const DesignRows& a,
                                                        std::span<const double> y,
                                                        std::size_t required) {
  const std::size_t width = a.empty() ? required : a.front().size();
  SCALEWALL_CHECK(required <= width && width - required <= kMaxOptionalColumns);
  const std::size_t optional = width - required;
  std::optional<NonNegativeFit> best;
  std::size_t best_size = width + 1;
  for (std::size_t mask = 0; mask < (std::size_t{1} << optional); ++mask) {
    std::vector<std::size_t> columns;
    for (std::size_t c = 0; c < required; ++c) columns.push_back(c);
    for (std::size_t k = 0; k < optional; ++k) {
      if (mask & (std::size_t{1} << k)) columns.push_back(required + k);
    }
    if (columns.size() > a.size()) continue;  // more parameters than points
    const auto x = least_squares(a, y, columns);
    if (!x || std::any_of(x->begin(), x->end(), [](double v) { return v < 0; })) continue;
    const double rss = residual_sum_of_squares(a, y, columns, *x);
    const double best_rss = best ? best->rss : std::numeric_limits<double>::infinity();
    // A smaller residual wins; among fits equal to rounding, the simpler one.
    const bool better = rss < best_rss * (1.0 - kEqualRssRelative) - kEqualRssAbsolute ||
                        (std::fabs(rss - best_rss) <= kEqualRssRelative * best_rss +
                                                          kEqualRssAbsolute &&
                         columns.size() < best_size);
    if (better) {
      best = NonNegativeFit{std::vector<double>(width, 0.0), rss};
      best_size = columns.size();
      for (std::size_t i = 0; i < columns.size(); ++i) best->coefficients[columns[i]] = (*x)[i];
    }
  }
  return best;
}

}  // namespace scalewall
