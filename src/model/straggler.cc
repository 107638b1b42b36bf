// Implementation of scalewall/model/straggler.h.
//
// The exact order statistic integrates the distribution of the maximum directly; the Monte
// Carlo estimate draws uniforms from a generator whose sequence the standard fixes and maps
// only each trial's largest one to a normal. Both are pure functions of their arguments.
#include "scalewall/model/straggler.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/policies/policy.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "scalewall/base/error.h"
#include "scalewall/model/scaling.h"

namespace scalewall {
namespace {

// Double precision throughout: Boost's default promotes double to long double inside erfc
// and the normal quantile, which costs time and buys nothing at the 1e-9 we promise.
using DoublePolicy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
using Normal = boost::math::normal_distribution<double, DoublePolicy>;

constexpr double kInvSqrt2 = 0.70710678118654752440;

// Q(x) = 1 - Phi(x) = erfc(x / sqrt 2) / 2, accurate in the upper tail.
double upper_tail(double x) { return 0.5 * boost::math::erfc(x * kInvSqrt2, DoublePolicy()); }

// Adaptive 31-point Gauss-Kronrod on [a, b]: bisects until the Kronrod-Gauss difference is
// below relative_tolerance times the segment's L1 norm (segments hold at most ~10, so at the
// default the absolute error stays far below 1e-9).
constexpr unsigned kMaxDepth = 15;
constexpr double kRelTol = 1e-12;

template <typename F>
double integrate(F f, double a, double b, double relative_tolerance = kRelTol) {
  if (!(b > a)) return 0.0;
  double error = 0.0;
  return boost::math::quadrature::gauss_kronrod<double, 31>::integrate(
      f, a, b, kMaxDepth, relative_tolerance, &error);
}

}  // namespace

double expected_max_standard_normal(std::int64_t n) {
  require_rank_count(n, "rank count");
  if (n == 1) return 0.0;  // E[Z] = 0; the two integrals below cancel exactly
  const auto count = static_cast<double>(n);  // exact: n <= 2^40

  // E[M_n] = int_0^inf (1 - Phi(x)^n) dx - int_-inf^0 Phi(x)^n dx.
  // Upper part: 1 - Phi^n = -expm1(n log1p(-Q)), which keeps full relative precision both
  // where Phi^n is tiny (integrand ~ 1) and where Q is tiny (integrand ~ n Q).
  const auto upper = [count](double x) {
    return -std::expm1(count * std::log1p(-upper_tail(x)));
  };
  // The integrand falls from 1 to 0 around x0 = Q^-1(1/n) (where n Q = 1, near
  // sqrt(2 ln n)), over a width of about 1/x0 (the Gumbel scale). Breakpoints at x0 and
  // x0 +- 5/x0 give the quadrature smooth pieces at every n. Below x0 - 5/x0 the integrand
  // is 1 to double precision once x0 is large (n Q > e^5, so Phi^n < e^-148).
  const double x0 = std::max(
      0.0, boost::math::quantile(boost::math::complement(Normal(), 1.0 / count)));
  const double width = 1.0 / std::max(x0, 1.0);
  // Beyond b = sqrt(x0^2 + 100) the integrand is below n Q(b) and its integral below
  // n phi(b) / b^2 = n phi(x0) e^-50 / b^2 < (x0 + 1/x0) e^-50 / b^2 < 1e-22 (Mills ratio:
  // n phi(x0) = phi(x0) / Q(x0) < x0 + 1/x0), so the range is cut there.
  const double end = std::sqrt(x0 * x0 + 100.0);
  std::array<double, 5> points = {0.0, std::max(0.0, x0 - 5.0 * width), x0, x0 + 5.0 * width,
                                  end};
  double positive = 0.0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    positive += integrate(upper, points[i], points[i + 1]);
  }

  // Lower part: Phi(x)^n = exp(n log Phi(x)) with Phi(x) = Q(-x) accurate in the lower tail.
  // Phi(x)^n <= Phi(x) 2^-(n-1) for x <= 0 and int_-inf^0 Phi = phi(0), so the part is below
  // bound = 0.4 * 2^-(n-1): under 5e-20 from n = 64 on, where it is skipped. Otherwise it is
  // integrated from x_lo = Phi^-1(1e-20^(1/n)), where Phi^n = 1e-20; what lies below is at
  // most Phi(x_lo)^(n-1) int_-inf^x_lo Phi <= Phi(x_lo)^n / |x_lo| = 1e-20 / |x_lo| (Mills),
  // under 3e-19 for every n < 64. The part needs only an absolute accuracy of 1e-13, so its
  // relative tolerance is loosened as the bound shrinks (else a part of 1e-19 would be
  // refined to 1e-31).
  double negative = 0.0;
  if (n < 64) {
    const auto lower = [count](double x) { return std::exp(count * std::log(upper_tail(-x))); };
    const double bound = 0.4 * std::ldexp(1.0, -static_cast<int>(n - 1));
    const double tolerance = std::clamp(1e-13 / bound, kRelTol, 1e-3);
    const double x_lo = boost::math::quantile(Normal(), std::pow(1e-20, 1.0 / count));
    negative = integrate(lower, x_lo, 0.5 * x_lo, tolerance) +
               integrate(lower, 0.5 * x_lo, 0.0, tolerance);
  }
  const double result = positive - negative;
  SCALEWALL_CHECK(std::isfinite(result) && result > 0.0);
  return result;
}

void require_sigma(double sigma) {
  if (!std::isfinite(sigma) || sigma < 0.0) {
    throw InputError(fmt::format(
        "sigma {} is not a relative standard deviation >= 0 (write 2% as 0.02 or 2%)", sigma));
  }
  if (sigma > kMaxSigma) {
    throw InputError(fmt::format(
        "sigma {} is above {} (100%): with that much jitter the normal model gives negative "
        "step times to one rank in six and no longer describes jitter",
        sigma, kMaxSigma));
  }
}

SlowestRank slowest_rank_exact(std::int64_t ranks, double sigma) {
  require_rank_count(ranks, "rank count");
  require_sigma(sigma);
  SlowestRank result;
  if (sigma == 0.0) return result;  // exactly 1 and 0
  const double slowest = 1.0 + sigma * expected_max_standard_normal(ranks);
  result.expected_slowest_over_mean = slowest;
  // 1 - 1/slowest written as (slowest - 1) / slowest keeps relative precision for small sigma.
  result.throughput_lost = (slowest - 1.0) / slowest;
  SCALEWALL_CHECK(result.expected_slowest_over_mean >= 1.0);
  SCALEWALL_CHECK(result.throughput_lost >= 0.0 && result.throughput_lost < 1.0);
  return result;
}

SlowestRankSimulation slowest_rank_monte_carlo(std::int64_t ranks, double sigma,
                                               std::int64_t trials, std::uint64_t seed) {
  require_rank_count(ranks, "rank count");
  require_sigma(sigma);
  if (trials < 1) {
    throw InputError(fmt::format("trial count {} is below 1", trials));
  }

  std::mt19937_64 generator(seed);
  const Normal normal;
  // Welford's running mean and sum of squared deviations: stable at any trial count.
  double mean = 0.0;
  double squares = 0.0;
  for (std::int64_t trial = 0; trial < trials; ++trial) {
    // The largest of the N uniforms: the shift to 53 bits is increasing, so it commutes with
    // the maximum and is applied once.
    std::uint64_t largest = 0;
    for (std::int64_t rank = 0; rank < ranks; ++rank) {
      largest = std::max(largest, generator());
    }
    const std::uint64_t cell = largest >> 11;  // u = (cell + 1/2) 2^-53
    // q = 1 - u = (2^54 - 2 cell - 1) 2^-54: an odd integer times a power of two, exact in a
    // double whenever q <= 1/2 (u >= 1/2, the usual case for a maximum) and correctly
    // rounded otherwise.
    const std::uint64_t odd = (std::uint64_t{1} << 54) - 2 * cell - 1;
    const double q = std::ldexp(static_cast<double>(odd), -54);
    const double z = boost::math::quantile(boost::math::complement(normal, q));
    const double slowest = 1.0 + sigma * z;
    const double delta = slowest - mean;
    mean += delta / static_cast<double>(trial + 1);
    squares += delta * (slowest - mean);
  }

  if (!(mean > 0.0)) {
    throw InputError(fmt::format(
        "the simulated slowest step time averaged {:.3g} of the mean (sigma {}, {} rank(s), "
        "{} trial(s)): not positive, so no throughput follows; use a smaller sigma or more "
        "trials",
        mean, sigma, ranks, trials));
  }
  SlowestRankSimulation result;
  result.expected_slowest_over_mean = mean;
  result.standard_error =
      trials > 1 ? std::sqrt(squares / static_cast<double>(trials - 1) /
                             static_cast<double>(trials))
                 : 0.0;
  result.throughput_lost = (mean - 1.0) / mean;
  result.trials = trials;
  result.seed = seed;
  SCALEWALL_CHECK(std::isfinite(result.expected_slowest_over_mean) &&
                  std::isfinite(result.standard_error) &&
                  std::isfinite(result.throughput_lost));
  return result;
}

BarrierStep barrier_step(std::span<const double> per_rank_s) {
  if (per_rank_s.empty()) {
    throw InputError("no per-rank times: a barrier step needs at least one rank's time");
  }
  for (std::size_t i = 0; i < per_rank_s.size(); ++i) {
    const double t = per_rank_s[i];
    if (!std::isfinite(t) || t < 0.0) {
      throw InputError(fmt::format(
          "per-rank time at index {} is {}: times must be finite and >= 0 seconds", i, t));
    }
  }
  const auto slowest = std::max_element(per_rank_s.begin(), per_rank_s.end());  // first on ties
  const double step = *slowest;
  if (step == 0.0) {
    throw InputError(fmt::format(
        "all {} per-rank times are 0: there is no step to divide the wait by", per_rank_s.size()));
  }

  BarrierStep result;
  result.ranks = static_cast<std::int64_t>(per_rank_s.size());
  result.step_s = step;
  result.slowest_rank = static_cast<std::int64_t>(slowest - per_rank_s.begin());
  result.min_s = *std::min_element(per_rank_s.begin(), per_rank_s.end());
  // The sums run on the times divided by a power of two near the step (exact: only the
  // exponent changes), so that they stay near the count and cannot overflow even when every
  // time is near the largest double; the mean is scaled back at the end.
  const int exponent = std::ilogb(step);
  double sum = 0.0;    // of t_i / 2^exponent, each in [0, 2)
  double waits = 0.0;  // of (step - t_i) / 2^exponent: each >= 0, so never negative
  for (const double t : per_rank_s) {
    sum += std::ldexp(t, -exponent);
    waits += std::ldexp(step - t, -exponent);
  }
  const auto count = static_cast<double>(per_rank_s.size());
  result.mean_s = std::clamp(std::ldexp(sum / count, exponent), result.min_s, step);
  result.wait_fraction = std::min(1.0, waits / (count * std::ldexp(step, -exponent)));
  result.throughput_lost = result.wait_fraction;
  return result;
}

}  // namespace scalewall
