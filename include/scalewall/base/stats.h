// scalewall/base/stats.h: the small statistics the library uses, each written once: the median,
// the type-7 quantile, least squares by the normal equations (and a straight line on centred
// data built on it), and non-negative least squares over subsets of columns. docs/models.md
// ("Statistics") states each one.
#ifndef SCALEWALL_BASE_STATS_H_
#define SCALEWALL_BASE_STATS_H_

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace scalewall {

// The median of `values`: the middle one, or the mean of the two middle ones for an even
// count. REQUIRES: not empty.
double median(std::vector<double> values);

// The type-7 quantile (numpy's and R's default) of `sorted` at q in [0, 1]: with h = q (n-1),
// x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]). REQUIRES: sorted ascending, not
// empty, 0 <= q <= 1.
double quantile(std::span<const double> sorted, double q);

// A design matrix, one row per observation.
using DesignRows = std::vector<std::vector<double>>;

// The x minimising sum_r w_r (y_r - sum_i a[r][columns[i]] x_i)^2 (w_r = 1 when `weights` is
// empty), by the normal equations A^T W A x = A^T W y solved with partial pivoting: for the
// few (at most about five) columns the library fits. x[i] goes with columns[i]. nullopt when
// the normal matrix is singular (a pivot below 1e-300).
// REQUIRES: y and weights (when given) have one entry per row; every column index is in range.
std::optional<std::vector<double>> least_squares(const DesignRows& a, std::span<const double> y,
                                                 std::span<const std::size_t> columns,
                                                 std::span<const double> weights = {});

// y = intercept + slope x by weighted least squares on centred data (x - mean x, y - mean y):
// the sums stay well conditioned when x spans 0 to 1e9 and more, where the raw normal
// equations would subtract two numbers of order n x^2 to get the slope's denominator.
// r_squared = 1 - SS_res / SS_tot (weighted), 1 when every y is equal.
struct Line {
  double intercept = 0;
  double slope = 0;
  double r_squared = 1;
};
// `w` empty means every weight is 1. REQUIRES: x and y of one length, at least 2 distinct x,
// positive weights (one per point when given).
Line fit_line(std::span<const double> x, std::span<const double> y,
              std::span<const double> w = {});
// y = intercept + slope x with the intercept held: the slope by weighted least squares,
// sum(w x (y - intercept)) / sum(w x^2) (0 when every x is 0), and r_squared as fit_line's.
// REQUIRES: x and y of one length, at least 1 point, positive weights (one per point when
// given).
Line fit_slope(std::span<const double> x, std::span<const double> y, double intercept,
               std::span<const double> w = {});

// Non-negative least squares over few columns, exactly: every subset of the optional columns
// (those from `required` on) together with all the required ones (0 .. required-1) is solved by
// least_squares; a subset with more columns than rows, a singular one or one with any negative
// coefficient is dropped; the smallest residual sum of squares wins, and among fits equal to
// rounding (within 1e-9 relative, 1e-18 absolute) the one with fewer columns.
struct NonNegativeFit {
  std::vector<double> coefficients;  // one per column of `a`; 0 for a column left out
  double rss = 0;                    // sum of squared residuals
};
// nullopt when no subset gives a non-negative solution. REQUIRES: every row as wide as the
// first, required <= that width, optional columns at most 20 (2^20 subsets).
std::optional<NonNegativeFit> nonnegative_least_squares(const DesignRows& a,
                                                        std::span<const double> y,
                                                        std::size_t required);

// The sum of squared residuals of y against a restricted to `columns` with coefficients x.
double residual_sum_of_squares(const DesignRows& a, std::span<const double> y,
                               std::span<const std::size_t> columns,
                               std::span<const double> x);

}  // namespace scalewall

#endif  // SCALEWALL_BASE_STATS_H_
