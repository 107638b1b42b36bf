// scalewall/model/straggler.h: variance amplification, the fourth mechanism (seed D01, section 3.4).
//
// A collective is a barrier: every rank leaves it when the slowest arrives, so a step costs
// the maximum of the N per-rank times, not their mean. With per-rank step times drawn
// independently from Normal(mean 1, sd sigma):
//   E[slowest] / mean = 1 + sigma * E[M_N],   M_N = the largest of N standard normals
//   throughput lost   = 1 - mean / E[slowest] = 1 - 1 / (1 + sigma * E[M_N])
// E[M_N] = integral_0^inf (1 - Phi(x)^N) dx - integral_-inf^0 Phi(x)^N dx, which is what
// expected_max_standard_normal integrates (adaptive Gauss-Kronrod, absolute error < 1e-9).
// Known values: E[M_1] = 0, E[M_2] = 1/sqrt(pi), E[M_3] = 3/(2 sqrt(pi)).
//
// The normal model can give a negative time when sigma is large (about 1 rank in 3e4 at
// sigma = 0.25); the expectation above is still the model's, and the docs say so.
#ifndef SCALEWALL_STRAGGLER_H_
#define SCALEWALL_STRAGGLER_H_

#include <cstdint>
#include <span>

namespace scalewall {

// E[max of n independent standard normals]. REQUIRES: 1 <= n <= 2^40 (throws InputError).
// Accurate to better than 1e-9 absolute for every n in range (in practice to a few 1e-15);
// n = 1 returns exactly 0. At most about 250 integrand evaluations (some 10 us) at any n.
double expected_max_standard_normal(std::int64_t n);

// The largest relative jitter any function here accepts. At sigma = 1 one rank in six would
// already draw a negative step time: the normal model has stopped describing jitter.
inline constexpr double kMaxSigma = 1.0;

// Throws InputError unless sigma is finite and 0 <= sigma <= kMaxSigma.
void require_sigma(double sigma);

// The expected slowest rank relative to the mean, and the throughput it costs.
struct SlowestRank {
  double expected_slowest_over_mean = 1;  // E[max] / mean, >= 1
  double throughput_lost = 0;             // 1 - mean / E[max], in [0, 1)
};

// Exact (numerically integrated) order statistic for `ranks` ranks with relative jitter sigma.
// sigma = 0 gives exactly 1 and 0.
// REQUIRES: 1 <= ranks <= 2^40, 0 <= sigma <= kMaxSigma (throws InputError).
SlowestRank slowest_rank_exact(std::int64_t ranks, double sigma);

// A seeded Monte Carlo estimate of the same quantity.
struct SlowestRankSimulation {
  double expected_slowest_over_mean = 1;  // sample mean of max_i t_i over the trials
  double standard_error = 0;              // sample standard deviation (n - 1 divisor) /
                                          // sqrt(trials); 0 when trials == 1
  double throughput_lost = 0;             // 1 - 1 / expected_slowest_over_mean; an estimate,
                                          // so it can come out slightly below 0 at 1 rank
  std::int64_t trials = 0;
  std::uint64_t seed = 0;
};

// Each trial draws `ranks` per-rank times t_i = 1 + sigma * z_i and keeps the largest. The
// uniform draws come from std::mt19937_64 (whose sequence the C++ standard fixes) and are
// mapped to normals by the inverse normal CDF, not by std::normal_distribution (whose
// algorithm differs between standard libraries): the same seed gives the same draws on any
// conforming platform, and results that differ at most in the last bits of the inverse
// normal's floating-point arithmetic. Since the inverse CDF is increasing, the largest of N
// normals is the transform of the largest of N uniforms, so each trial draws N uniforms and
// transforms one.
// A draw x (64 bits) becomes u = ((x >> 11) + 1/2) * 2^-53, the midpoint of one of 2^53
// equal cells, so u is never 0 or 1 and |z| < 8.3. The largest u is mapped through its
// complement q = 1 - u, formed from the integer (exactly whenever u >= 1/2), as
// z = Phi^-1(1 - q): no precision is lost in the upper tail, where the maximum lives. Each
// call starts the generator afresh from `seed`, so a result depends only on (ranks, sigma,
// trials, seed).
// REQUIRES: 1 <= ranks <= 2^40, 0 <= sigma <= kMaxSigma, trials >= 1 (throws InputError).
// Throws InputError when the sample mean of the slowest time is not positive (possible only
// with few ranks, few trials and a sigma near kMaxSigma), since no throughput follows from it.
// Cost: ranks * trials uniform draws, a few nanoseconds each; callers bound it.
SlowestRankSimulation slowest_rank_monte_carlo(std::int64_t ranks, double sigma,
                                               std::int64_t trials, std::uint64_t seed);

// What a barrier does to measured per-rank step times.
struct BarrierStep {
  std::int64_t ranks = 0;
  double step_s = 0;             // barrier-synchronised step time: the slowest rank's time
  double mean_s = 0;             // mean per-rank time
  double min_s = 0;              // fastest rank's time
  std::int64_t slowest_rank = 0; // index (0-based) of the slowest rank; the first on ties
  double wait_fraction = 0;      // sum_i (step - t_i) / (N * step): rank-time spent waiting
  double throughput_lost = 0;    // 1 - mean / step (equals wait_fraction)
};

// REQUIRES: at least one time, every time finite and >= 0, not all zero (throws InputError
// naming the offending index). mean_s is clamped to [min_s, step_s] against rounding in the
// sum, and wait_fraction is summed from the per-rank waits, so it is never negative.
BarrierStep barrier_step(std::span<const double> per_rank_s);

}  // namespace scalewall

#endif  // SCALEWALL_STRAGGLER_H_
