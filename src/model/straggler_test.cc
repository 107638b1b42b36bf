// Tests of scalewall/model/straggler.h: the expected maximum of N standard normals against closed
// forms and high-precision references, seed D01 section 3.4's table, the seeded Monte Carlo
// estimate against the exact value, and the barrier step from per-rank times.
#include "scalewall/model/straggler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/model/scaling.h"

namespace scalewall {
namespace {

constexpr double kExactTol = 1e-9;  // the header's promise for expected_max_standard_normal

TEST(ExpectedMaxStandardNormal, ClosedForms) {
  // n = 1: E[Z] = 0. n = 2: E[max(Z1, Z2)] = E|Z1 - Z2| / 2 = 1/sqrt(pi).
  // n = 3: 3/(2 sqrt(pi)). n = 4: (6 / pi^1.5) atan(sqrt 2).
  // n = 5: 5/(4 sqrt(pi)) + (15 / (2 pi^1.5)) asin(1/3).
  const double pi = std::numbers::pi;
  const double sqrt_pi = std::sqrt(pi);
  EXPECT_EQ(expected_max_standard_normal(1), 0.0);
  EXPECT_NEAR(expected_max_standard_normal(2), 1.0 / sqrt_pi, kExactTol);
  EXPECT_NEAR(expected_max_standard_normal(3), 3.0 / (2.0 * sqrt_pi), kExactTol);
  EXPECT_NEAR(expected_max_standard_normal(4), 1.0293753730039641, kExactTol);
  EXPECT_NEAR(expected_max_standard_normal(5), 1.1629644736405196, kExactTol);
  EXPECT_NEAR(1.0293753730039641, 6.0 / (pi * sqrt_pi) * std::atan(std::numbers::sqrt2), 1e-15);
  EXPECT_NEAR(1.1629644736405196,
              5.0 / (4.0 * sqrt_pi) + 15.0 / (2.0 * pi * sqrt_pi) * std::asin(1.0 / 3.0), 1e-15);
}

TEST(ExpectedMaxStandardNormal, HighPrecisionReferences) {
  // The same integral evaluated in 40-digit arithmetic (mpmath.quad with breakpoints around
  // the transition), rounded to 16 significant digits. The range spans both sides of the
  // n = 64 cut of the negative half-line and the top of the accepted range, 2^40.
  struct Case {
    std::int64_t n;
    double expected;
  };
  const Case cases[] = {
      {7, 1.352178375606904},           {8, 1.423600306045278},
      {10, 1.538752730835173},          {13, 1.667990177049127},
      {24, 1.947674074225678},          {64, 2.343733465079440},
      {100, 2.507593636441684},         {1000, 3.241435769133441},
      {1024, 3.248239601375412},        {16384, 3.971350570280640},
      {1000000, 4.862897486196463},     {std::int64_t{1} << 20, 4.872293972500906},
      {std::int64_t{1} << 30, 6.099079942193323}, {std::int64_t{1} << 40, 7.125547743089896},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(expected_max_standard_normal(c.n), c.expected, kExactTol) << "n = " << c.n;
  }
}

TEST(ExpectedMaxStandardNormal, IncreasesWithN) {
  double previous = -1.0;
  for (std::int64_t n = 1; n <= 200; ++n) {
    const double value = expected_max_standard_normal(n);
    EXPECT_GT(value, previous) << "n = " << n;
    previous = value;
  }
  previous = -1.0;
  for (int exponent = 0; exponent <= 40; ++exponent) {
    const std::int64_t n = std::int64_t{1} << exponent;
    const double value = expected_max_standard_normal(n);
    EXPECT_GT(value, previous) << "n = 2^" << exponent;
    // The classical bound E[M_n] <= sqrt(2 ln n), which the maximum approaches from below.
    EXPECT_LE(value, std::sqrt(2.0 * std::log(static_cast<double>(n))) + 1e-12)
        << "n = 2^" << exponent;
    previous = value;
  }
}

TEST(ExpectedMaxStandardNormal, RejectsCountsOutOfRange) {
  EXPECT_THROW(expected_max_standard_normal(0), InputError);
  EXPECT_THROW(expected_max_standard_normal(-3), InputError);
  EXPECT_THROW(expected_max_standard_normal(kMaxRanks + 1), InputError);
  EXPECT_NO_THROW(expected_max_standard_normal(kMaxRanks));
}

// Seed D01 section 3.4: per-rank times Normal(1, 0.02). The seed prints rounded figures;
// each exact value is asserted to 1e-9 and compared with the seed's figure at the precision
// printed. Two of the eight figures disagree with the exact model by one unit in the last
// place:
//   * 64 ranks: the loss is 4.48%, which rounds to 4%; the seed prints ~5% (it matches
//     1 - 1/1.05 = 4.76%, the loss of the already-rounded ratio).
//   * 1,024 ranks: the ratio is 1.06496, which rounds to 1.06; the seed prints ~1.07.
// For those two the exact value is asserted to lie within one printed unit (0.01) of the
// seed's figure, and its own rounding is asserted too, so the disagreement stays on record.
TEST(SlowestRankExact, SeedTableAtTwoPercent) {
  struct Row {
    std::int64_t ranks;
    double ratio;          // exact 1 + 0.02 E[M_N]
    double lost;           // exact 1 - 1/ratio
    double seed_ratio;     // as printed, ~1.03x
    double seed_lost;      // as printed, ~3%
    double rounded_ratio;  // the exact ratio rounded to the seed's two decimals
    double rounded_lost;   // the exact loss rounded to whole percent
  };
  const Row rows[] = {
      {8, 1.028472006121, 0.027683792997, 1.03, 0.03, 1.03, 0.03},
      {64, 1.046874669302, 0.044775817656, 1.05, 0.05, 1.05, 0.04},
      {1024, 1.064964792028, 0.061001821388, 1.07, 0.06, 1.06, 0.06},
      {16384, 1.079427011406, 0.073582567942, 1.08, 0.07, 1.08, 0.07},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.ranks);
    const SlowestRank r = slowest_rank_exact(row.ranks, 0.02);
    EXPECT_NEAR(r.expected_slowest_over_mean, row.ratio, kExactTol);
    EXPECT_NEAR(r.throughput_lost, row.lost, kExactTol);
    EXPECT_NEAR(r.throughput_lost, 1.0 - 1.0 / r.expected_slowest_over_mean, 1e-15);
    EXPECT_DOUBLE_EQ(std::round(r.expected_slowest_over_mean * 100.0) / 100.0,
                     row.rounded_ratio);
    EXPECT_DOUBLE_EQ(std::round(r.throughput_lost * 100.0) / 100.0, row.rounded_lost);
    // Within the seed's rounding (half a printed unit) where it agrees, within one printed
    // unit where it does not (64 ranks' loss, 1,024 ranks' ratio; see above).
    const bool ratio_agrees = row.rounded_ratio == row.seed_ratio;
    const bool lost_agrees = row.rounded_lost == row.seed_lost;
    EXPECT_LE(std::fabs(r.expected_slowest_over_mean - row.seed_ratio),
              ratio_agrees ? 0.005 : 0.01);
    EXPECT_LE(std::fabs(r.throughput_lost - row.seed_lost), lost_agrees ? 0.005 : 0.01);
    EXPECT_EQ(ratio_agrees, row.ranks != 1024);
    EXPECT_EQ(lost_agrees, row.ranks != 64);
  }
}

TEST(SlowestRankExact, ZeroSigmaCostsNothing) {
  for (const std::int64_t ranks : {std::int64_t{1}, std::int64_t{2}, std::int64_t{13},
                                   std::int64_t{16384}, kMaxRanks}) {
    const SlowestRank r = slowest_rank_exact(ranks, 0.0);
    EXPECT_EQ(r.expected_slowest_over_mean, 1.0) << ranks;
    EXPECT_EQ(r.throughput_lost, 0.0) << ranks;
  }
}

TEST(SlowestRankExact, OneRankNeverWaits) {
  for (const double sigma : {0.0, 0.02, 0.5, 1.0}) {
    const SlowestRank r = slowest_rank_exact(1, sigma);
    EXPECT_EQ(r.expected_slowest_over_mean, 1.0) << sigma;
    EXPECT_EQ(r.throughput_lost, 0.0) << sigma;
  }
}

TEST(SlowestRankExact, ScalesLinearlyInSigma) {
  // 1 + sigma E[M_N]: at N = 2, 0.1 gives 1 + 0.1/sqrt(pi).
  const SlowestRank r = slowest_rank_exact(2, 0.1);
  EXPECT_NEAR(r.expected_slowest_over_mean, 1.0 + 0.1 / std::sqrt(std::numbers::pi), 1e-12);
  // The loss grows with N at a fixed sigma (seed D01 exercise 4's point).
  double previous = -1.0;
  for (const std::int64_t ranks : {1, 2, 3, 5, 8, 13, 24, 64, 1024, 16384, 1000000}) {
    const double lost = slowest_rank_exact(ranks, 0.02).throughput_lost;
    EXPECT_GT(lost, previous) << ranks;
    previous = lost;
  }
}

TEST(SlowestRankExact, RejectsBadInput) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THROW(slowest_rank_exact(0, 0.02), InputError);
  EXPECT_THROW(slowest_rank_exact(-1, 0.02), InputError);
  EXPECT_THROW(slowest_rank_exact(kMaxRanks + 1, 0.02), InputError);
  EXPECT_THROW(slowest_rank_exact(8, -0.01), InputError);
  EXPECT_THROW(slowest_rank_exact(8, nan), InputError);
  EXPECT_THROW(slowest_rank_exact(8, inf), InputError);
  EXPECT_THROW(slowest_rank_exact(8, kMaxSigma * 1.5), InputError);
  EXPECT_NO_THROW(slowest_rank_exact(8, kMaxSigma));
  EXPECT_THROW(require_sigma(-0.0001), InputError);
  EXPECT_NO_THROW(require_sigma(0.0));
}

TEST(SlowestRankMonteCarlo, AgreesWithExactWithinThreeStandardErrors) {
  struct Case {
    std::int64_t ranks;
    double sigma;
    std::int64_t trials;
    std::uint64_t seed;
  };
  const Case cases[] = {
      {1, 0.02, 4000, 1},   {2, 0.1, 4000, 2},    {3, 0.02, 3000, 3},   {5, 0.25, 3000, 4},
      {8, 0.02, 2000, 42},  {13, 0.05, 2000, 7},  {64, 0.02, 1000, 42}, {1024, 0.02, 400, 42},
      {16384, 0.02, 60, 9},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "ranks " << c.ranks << ", sigma " << c.sigma);
    const SlowestRankSimulation mc = slowest_rank_monte_carlo(c.ranks, c.sigma, c.trials, c.seed);
    const SlowestRank exact = slowest_rank_exact(c.ranks, c.sigma);
    EXPECT_EQ(mc.trials, c.trials);
    EXPECT_EQ(mc.seed, c.seed);
    EXPECT_GT(mc.standard_error, 0.0);
    EXPECT_LE(std::fabs(mc.expected_slowest_over_mean - exact.expected_slowest_over_mean),
              3.0 * mc.standard_error);
    EXPECT_NEAR(mc.throughput_lost, 1.0 - 1.0 / mc.expected_slowest_over_mean, 1e-15);
  }
}

TEST(SlowestRankMonteCarlo, StandardErrorMatchesTheSpreadOfOneRank) {
  // With one rank each trial is 1 + sigma z: the sample sd is sigma, so the standard error
  // is close to sigma / sqrt(trials) (the sd's own relative error is about 1/sqrt(2 T)).
  const std::int64_t trials = 10000;
  const SlowestRankSimulation mc = slowest_rank_monte_carlo(1, 0.5, trials, 11);
  const double expected = 0.5 / std::sqrt(static_cast<double>(trials));
  EXPECT_NEAR(mc.standard_error, expected, 0.05 * expected);
}

TEST(SlowestRankMonteCarlo, GeneratorIsTheStandardOne) {
  // The C++ standard fixes mt19937_64's sequence: the 10000th output of a default-seeded
  // generator is 9981545732273789042. The simulation's portability rests on it.
  std::mt19937_64 generator;
  generator.discard(9999);
  EXPECT_EQ(generator(), 9981545732273789042ULL);
}

TEST(SlowestRankMonteCarlo, GoldenValue) {
  // The estimate for (8 ranks, 2%, 1000 trials, seed 42), as `scalewall straggler --method
  // monte-carlo` prints it. A change of generator, uniform mapping or transform moves it by
  // far more than the 1e-12 allowed here for an inverse normal that differs in the last bit.
  const SlowestRankSimulation mc = slowest_rank_monte_carlo(8, 0.02, 1000, 42);
  EXPECT_NEAR(mc.expected_slowest_over_mean, 1.0281762900748457, 1e-12);
  EXPECT_NEAR(mc.standard_error, 0.0003774431086084732, 1e-12);
}

TEST(SlowestRankMonteCarlo, SeedDeterminesTheResult) {
  const SlowestRankSimulation a = slowest_rank_monte_carlo(64, 0.02, 500, 42);
  const SlowestRankSimulation b = slowest_rank_monte_carlo(64, 0.02, 500, 42);
  const SlowestRankSimulation c = slowest_rank_monte_carlo(64, 0.02, 500, 43);
  // Bitwise identical for the same seed: EXPECT_EQ, not NEAR.
  EXPECT_EQ(a.expected_slowest_over_mean, b.expected_slowest_over_mean);
  EXPECT_EQ(a.standard_error, b.standard_error);
  EXPECT_EQ(a.throughput_lost, b.throughput_lost);
  EXPECT_NE(a.expected_slowest_over_mean, c.expected_slowest_over_mean);
  EXPECT_NE(a.standard_error, c.standard_error);
}

TEST(SlowestRankMonteCarlo, EdgeCases) {
  // sigma = 0: every time is exactly 1, no spread, no loss.
  const SlowestRankSimulation flat = slowest_rank_monte_carlo(13, 0.0, 50, 5);
  EXPECT_EQ(flat.expected_slowest_over_mean, 1.0);
  EXPECT_EQ(flat.standard_error, 0.0);
  EXPECT_EQ(flat.throughput_lost, 0.0);
  // One trial: no spread to estimate, so the standard error is 0 by definition.
  const SlowestRankSimulation single = slowest_rank_monte_carlo(8, 0.02, 1, 5);
  EXPECT_EQ(single.standard_error, 0.0);
  EXPECT_EQ(single.trials, 1);
  // The largest seed is a seed like any other.
  EXPECT_NO_THROW(slowest_rank_monte_carlo(2, 0.02, 3, std::numeric_limits<std::uint64_t>::max()));
}

TEST(SlowestRankMonteCarlo, RejectsBadInput) {
  EXPECT_THROW(slowest_rank_monte_carlo(0, 0.02, 10, 1), InputError);
  EXPECT_THROW(slowest_rank_monte_carlo(kMaxRanks + 1, 0.02, 10, 1), InputError);
  EXPECT_THROW(slowest_rank_monte_carlo(8, -0.02, 10, 1), InputError);
  EXPECT_THROW(slowest_rank_monte_carlo(8, std::numeric_limits<double>::quiet_NaN(), 10, 1),
               InputError);
  EXPECT_THROW(slowest_rank_monte_carlo(8, 0.02, 0, 1), InputError);
  EXPECT_THROW(slowest_rank_monte_carlo(8, 0.02, -5, 1), InputError);
}

TEST(SlowestRankMonteCarlo, NonPositiveMeanIsAnInputError) {
  // One rank, one trial, sigma 1: the single time is 1 + z, below 0 whenever z < -1 (about
  // one seed in six). Find such a seed and check it is refused rather than turned into a
  // throughput above 100% or an infinity.
  bool found = false;
  for (std::uint64_t seed = 0; seed < 200 && !found; ++seed) {
    try {
      const SlowestRankSimulation r = slowest_rank_monte_carlo(1, 1.0, 1, seed);
      EXPECT_GT(r.expected_slowest_over_mean, 0.0);
    } catch (const InputError&) {
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(BarrierStep, HandComputed) {
  // {1, 1, 1, 2}: the step is the slowest, 2; the mean 1.25; the waits 1 + 1 + 1 + 0 = 3 of
  // 4 * 2 = 8 rank-seconds, 0.375; 1 - 1.25/2 = 0.375 too.
  const std::vector<double> times = {1, 1, 1, 2};
  const BarrierStep b = barrier_step(times);
  EXPECT_EQ(b.ranks, 4);
  EXPECT_EQ(b.step_s, 2.0);
  EXPECT_EQ(b.mean_s, 1.25);
  EXPECT_EQ(b.min_s, 1.0);
  EXPECT_EQ(b.slowest_rank, 3);
  EXPECT_EQ(b.wait_fraction, 0.375);
  EXPECT_EQ(b.throughput_lost, 0.375);
}

TEST(BarrierStep, MoreHandComputedCases) {
  {
    // One rank never waits.
    const std::vector<double> times = {0.7};
    const BarrierStep b = barrier_step(times);
    EXPECT_EQ(b.step_s, 0.7);
    EXPECT_EQ(b.mean_s, 0.7);
    EXPECT_EQ(b.slowest_rank, 0);
    EXPECT_EQ(b.wait_fraction, 0.0);
  }
  {
    // Ties: the first slowest rank is reported. {3, 1, 3, 0, 2}: step 3, mean 9/5 = 1.8,
    // waits 0 + 2 + 0 + 3 + 1 = 6 of 15, 0.4.
    const std::vector<double> times = {3, 1, 3, 0, 2};
    const BarrierStep b = barrier_step(times);
    EXPECT_EQ(b.step_s, 3.0);
    EXPECT_DOUBLE_EQ(b.mean_s, 1.8);
    EXPECT_EQ(b.min_s, 0.0);
    EXPECT_EQ(b.slowest_rank, 0);
    EXPECT_DOUBLE_EQ(b.wait_fraction, 0.4);
    EXPECT_DOUBLE_EQ(b.throughput_lost, 1.0 - b.mean_s / b.step_s);
  }
  {
    // Equal times: no wait, and rounding in the sum never makes the mean exceed the step.
    const std::vector<double> times(7, 0.1);
    const BarrierStep b = barrier_step(times);
    EXPECT_EQ(b.wait_fraction, 0.0);
    EXPECT_EQ(b.throughput_lost, 0.0);
    EXPECT_LE(b.mean_s, b.step_s);
    EXPECT_GE(b.mean_s, b.min_s);
  }
}

TEST(BarrierStep, NormalSamplesLoseMoreAtScale) {
  // Seed D01 exercise 4: feed normally distributed samples and see the loss grow with the
  // rank count though the distribution is unchanged. Times are 1 + 0.02 z with z from a
  // fixed table of quantiles (the midpoints of N equal-probability cells), so the test is
  // deterministic and the samples' spread is the same at every N.
  const auto quantile_times = [](std::int64_t n) {
    std::vector<double> t;
    for (std::int64_t i = 0; i < n; ++i) {
      const double p = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
      // Inverse normal by bisection on erfc: slow, simple and independent of the library.
      double lo = -10.0;
      double hi = 10.0;
      for (int k = 0; k < 100; ++k) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::numbers::sqrt2) < p ? lo : hi) = mid;
      }
      t.push_back(1.0 + 0.02 * 0.5 * (lo + hi));
    }
    return t;
  };
  double previous = -1.0;
  for (const std::int64_t n : {2, 8, 64, 1024}) {
    const std::vector<double> times = quantile_times(n);
    const BarrierStep b = barrier_step(times);
    EXPECT_GT(b.wait_fraction, previous) << n;
    EXPECT_EQ(b.slowest_rank, n - 1) << n;
    EXPECT_NEAR(b.mean_s, 1.0, 1e-12) << n;
    previous = b.wait_fraction;
  }
}

TEST(BarrierStep, HugeTimesDoNotOverflowTheSums) {
  // The sum 1 + 1e308 + 1e308 is past the largest double; the mean and the wait are not.
  const std::vector<double> times = {1, 1e308, 1e308};
  const BarrierStep b = barrier_step(times);
  EXPECT_EQ(b.step_s, 1e308);
  EXPECT_NEAR(b.mean_s / 6.666666666666667e307, 1.0, 1e-15);
  EXPECT_NEAR(b.mean_s, 6.67e307, 1e305);
  EXPECT_NEAR(b.wait_fraction, 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(b.throughput_lost, 1.0 / 3.0, 1e-15);
  const std::vector<double> largest(5, std::numeric_limits<double>::max());
  const BarrierStep all = barrier_step(largest);
  EXPECT_EQ(all.mean_s, std::numeric_limits<double>::max());
  EXPECT_EQ(all.wait_fraction, 0.0);
  // Denormal times are scaled up, not lost.
  const std::vector<double> tiny = {4.9e-324, 0.0};
  EXPECT_EQ(barrier_step(tiny).wait_fraction, 0.5);
}

TEST(BarrierStep, RejectsBadTimes) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THROW(barrier_step(std::vector<double>{}), InputError);
  EXPECT_THROW(barrier_step(std::vector<double>{0.0, 0.0, 0.0}), InputError);
  const std::vector<std::vector<double>> bad = {{1.0, -0.5, 1.0}, {1.0, 1.0, nan}, {inf, 1.0}};
  const std::size_t bad_index[] = {1, 2, 0};
  for (std::size_t i = 0; i < bad.size(); ++i) {
    try {
      barrier_step(bad[i]);
      ADD_FAILURE() << "no InputError for case " << i;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("index " + std::to_string(bad_index[i])),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace scalewall
