// Tests of scalewall/model/collective.h.
//
// The first part covers the seed's two all-reduce algorithms (seed D01 section 3.3, Lab 3,
// exercise 3). The rest covers every algorithm of every op against closed forms written out
// here from their sources (Thakur, Rabenseifner and Gropp 2005; Chan et al. 2007; Bruck et al.
// 1997; Sanders, Speck and Traff 2009 for the double binary tree as modelled; Patarasuk and
// Yuan 2009 for the lower bound), the invariants every cost keeps, the equivalence of the flat
// and the edge-level evaluators, and the topology rules (slowest edge, NIC sharing,
// oversubscription, LogGP gap, hierarchical m/g) checked against hand-computed figures.
#include "scalewall/model/collective.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/model/scaling.h"
#include "test_support.h"

namespace scalewall {
namespace {

constexpr Link kLink = kDefaultLink;  // 2.5 us, 25 GB/s
constexpr std::array<std::int64_t, 9> kRanks = {1, 2, 3, 5, 8, 13, 24, 64, 512};
constexpr std::array<double, 6> kBytes = {0, 1, 4097, 65536, 1e6 + 3, 1e12};

// floor(log2 n) and powers of two, for the expected values below (independent of the
// implementation's bit operations).
std::int64_t expected_floor_log2(std::int64_t n) {
  std::int64_t lg = 0;
  while ((std::int64_t{2} << lg) <= n) ++lg;
  return lg;
}
bool expected_power_of_two(std::int64_t n) {
  return (std::int64_t{1} << expected_floor_log2(n)) == n;
}

// The seed's two all-reduce algorithms (section 3.3), which the all-reduce shorthand tests
// below compare.
constexpr Algorithm kSeedAlgorithms[] = {Algorithm::kRing, Algorithm::kRecursiveDoubling};

TEST(AllreduceAlgorithm, NamesRoundTrip) {
  for (const Algorithm a : kSeedAlgorithms) {
    const AlgorithmSpec spec{a, Algorithm::kRing};
    EXPECT_EQ(parse_algorithm(algorithm_name(spec)), spec) << algorithm_name(spec);
  }
  EXPECT_EQ(algorithm_name(Algorithm::kRing), "ring");
  EXPECT_EQ(algorithm_name(Algorithm::kRecursiveDoubling), "recursive-doubling");
}

// The seed's table (section 3.3), power-of-two N:
//   recursive doubling  log2 N steps   m log2 N bytes per rank
//   ring                2(N-1) steps   2m(N-1)/N bytes per rank
TEST(AllreduceSeedTable, PowerOfTwoStepsAndBytes) {
  for (const std::int64_t n : {2, 4, 8, 64, 512, 1024}) {
    const std::int64_t lg = expected_floor_log2(n);
    for (const double m : kBytes) {
      const CollectiveCost ring = allreduce_cost(Algorithm::kRing, n, m, kLink);
      EXPECT_EQ(ring.steps, 2 * (n - 1)) << "N=" << n;
      EXPECT_DOUBLE_EQ(ring.bytes_per_rank,
                       2.0 * m * static_cast<double>(n - 1) / static_cast<double>(n))
          << "N=" << n << " m=" << m;
      const CollectiveCost rd = allreduce_cost(Algorithm::kRecursiveDoubling, n, m, kLink);
      EXPECT_EQ(rd.steps, lg) << "N=" << n;
      EXPECT_DOUBLE_EQ(rd.bytes_per_rank, m * static_cast<double>(lg)) << "N=" << n;
    }
  }
  // Exact small cases: N = 8, m = 1000 B.
  EXPECT_EQ(allreduce_cost(Algorithm::kRing, 8, 1000, kLink).bytes_per_rank, 1750.0);
  EXPECT_EQ(allreduce_cost(Algorithm::kRecursiveDoubling, 8, 1000, kLink).bytes_per_rank, 3000.0);
  // 2^40 ranks: 40 steps; ring 2^41 - 2 steps.
  const std::int64_t huge = std::int64_t{1} << 40;
  EXPECT_EQ(allreduce_cost(Algorithm::kRecursiveDoubling, huge, 8, kLink).steps, 40);
  EXPECT_EQ(allreduce_cost(Algorithm::kRing, huge, 8, kLink).steps, (std::int64_t{2} << 40) - 2);
}

// Non-power-of-two N, the fold-in: p = 2^floor(log2 N), steps log2 p + 2, bytes m (log2 p + 2),
// reduced m (log2 p + 1). The ring has no special case.
TEST(AllreduceSeedTable, NonPowerOfTwoFoldIn) {
  struct Case {
    std::int64_t n;
    std::int64_t lg_p;
  };
  for (const Case c : {Case{3, 1}, Case{5, 2}, Case{6, 2}, Case{7, 2}, Case{13, 3}, Case{24, 4},
                       Case{513, 9}, Case{1023, 9}}) {
    for (const double m : kBytes) {
      const CollectiveCost rd = allreduce_cost(Algorithm::kRecursiveDoubling, c.n, m, kLink);
      EXPECT_EQ(rd.steps, c.lg_p + 2) << "N=" << c.n;
      EXPECT_DOUBLE_EQ(rd.bytes_per_rank, m * static_cast<double>(c.lg_p + 2)) << "N=" << c.n;
      EXPECT_DOUBLE_EQ(rd.reduced_bytes_per_rank, m * static_cast<double>(c.lg_p + 1))
          << "N=" << c.n;
      const CollectiveCost ring = allreduce_cost(Algorithm::kRing, c.n, m, kLink);
      EXPECT_EQ(ring.steps, 2 * (c.n - 1));
    }
  }
  // N = 2^40 - 1, the largest fold-in: 39 + 2 steps.
  EXPECT_EQ(allreduce_cost(Algorithm::kRecursiveDoubling, kMaxRanks - 1, 1, kLink).steps, 41);
}

TEST(AllreduceSeedTable, StepsAndBytesForEveryAwkwardN) {
  for (const std::int64_t n : kRanks) {
    const std::int64_t lg = expected_floor_log2(n);
    const bool pow2 = expected_power_of_two(n);
    const CollectiveCost rd = allreduce_cost(Algorithm::kRecursiveDoubling, n, 7, kLink);
    EXPECT_EQ(rd.steps, pow2 ? lg : lg + 2) << "N=" << n;
    EXPECT_DOUBLE_EQ(rd.bytes_per_rank, 7.0 * static_cast<double>(pow2 ? lg : lg + 2));
    const CollectiveCost ring = allreduce_cost(Algorithm::kRing, n, 7, kLink);
    EXPECT_EQ(ring.steps, 2 * (n - 1)) << "N=" << n;
  }
}

TEST(AllreduceCost, HandComputed) {
  // Ring, N = 8, m = 1000 B: 14 steps x 2.5 us = 35 us; 1750 B / 25 GB/s = 70 ns.
  const CollectiveCost ring = allreduce_cost(Algorithm::kRing, 8, 1000, kLink);
  EXPECT_DOUBLE_EQ(ring.latency_s, 35e-6);
  EXPECT_DOUBLE_EQ(ring.bandwidth_s, 70e-9);
  EXPECT_EQ(ring.compute_s, 0.0);
  EXPECT_DOUBLE_EQ(ring.total_s, 35.07e-6);
  // Recursive doubling, same call: 3 steps = 7.5 us; 3000 B = 120 ns.
  const CollectiveCost rd = allreduce_cost(Algorithm::kRecursiveDoubling, 8, 1000, kLink);
  EXPECT_DOUBLE_EQ(rd.latency_s, 7.5e-6);
  EXPECT_DOUBLE_EQ(rd.bandwidth_s, 120e-9);
  EXPECT_DOUBLE_EQ(rd.total_s, 7.62e-6);
  // Recursive doubling, N = 5 (p = 4), m = 1 MB over 1 us / 10 GB/s: 4 steps = 4 us,
  // 4 MB / 10 GB/s = 400 us.
  const CollectiveCost rd5 =
      allreduce_cost(Algorithm::kRecursiveDoubling, 5, 1e6, Link{1e-6, 10e9});
  EXPECT_EQ(rd5.steps, 4);
  EXPECT_DOUBLE_EQ(rd5.total_s, 404e-6);
  // Ring, N = 3, m = 3 MB over the same link: 4 steps = 4 us; 2 x 3 MB x 2/3 = 4 MB = 400 us.
  const CollectiveCost ring3 = allreduce_cost(Algorithm::kRing, 3, 3e6, Link{1e-6, 10e9});
  EXPECT_DOUBLE_EQ(ring3.bytes_per_rank, 4e6);
  EXPECT_DOUBLE_EQ(ring3.total_s, 404e-6);
  // The call's inputs come back in the breakdown.
  EXPECT_EQ(ring3.algorithm.algorithm, Algorithm::kRing);
  EXPECT_EQ(ring3.ranks, 3);
  EXPECT_EQ(ring3.bytes, 3e6);
}

TEST(AllreduceCost, SumsItsTerms) {
  for (const Algorithm a : kSeedAlgorithms) {
    for (const std::int64_t n : kRanks) {
      for (const double m : kBytes) {
        const CollectiveCost c = allreduce_cost(a, n, m, kLink, 1e-10);
        EXPECT_EQ(c.latency_s, static_cast<double>(c.steps) * kLink.alpha_s);
        EXPECT_DOUBLE_EQ(c.bandwidth_s, c.bytes_per_rank / kLink.bandwidth_Bps);
        EXPECT_DOUBLE_EQ(c.compute_s, c.reduced_bytes_per_rank * 1e-10);
        EXPECT_DOUBLE_EQ(c.total_s, c.latency_s + c.bandwidth_s + c.compute_s);
        EXPECT_GE(c.latency_s, 0.0);
        EXPECT_GE(c.bandwidth_s, 0.0);
        EXPECT_GE(c.compute_s, 0.0);
      }
    }
  }
}

TEST(AllreduceCost, OneRankCostsExactlyZero) {
  for (const Algorithm a : kSeedAlgorithms) {
    for (const double m : kBytes) {
      const CollectiveCost c = allreduce_cost(a, 1, m, Link{1e-3, 1.0}, 1e-3);
      EXPECT_EQ(c.steps, 0) << algorithm_name(a);
      EXPECT_EQ(c.bytes_per_rank, 0.0);
      EXPECT_EQ(c.reduced_bytes_per_rank, 0.0);
      EXPECT_EQ(c.latency_s, 0.0);
      EXPECT_EQ(c.bandwidth_s, 0.0);
      EXPECT_EQ(c.compute_s, 0.0);
      EXPECT_EQ(c.total_s, 0.0);
      EXPECT_FALSE(std::signbit(c.total_s)) << "negative zero";
    }
  }
}

TEST(AllreduceCost, ZeroBytesCostsOnlyLatency) {
  for (const Algorithm a : kSeedAlgorithms) {
    for (const std::int64_t n : kRanks) {
      const CollectiveCost c = allreduce_cost(a, n, 0, kLink, 1e-9);
      EXPECT_EQ(c.bandwidth_s, 0.0);
      EXPECT_EQ(c.compute_s, 0.0);
      EXPECT_EQ(c.total_s, c.latency_s);
      EXPECT_EQ(c.total_s, static_cast<double>(c.steps) * kLink.alpha_s);
      if (n > 1) {
        EXPECT_GT(c.total_s, 0.0);
      }
    }
  }
}

TEST(AllreduceCost, RisesWithBytes) {
  for (const Algorithm a : kSeedAlgorithms) {
    for (const std::int64_t n : kRanks) {
      if (n == 1) continue;  // always free
      double previous = allreduce_cost(a, n, 0, kLink).total_s;
      for (double m = 1; m < 1e13; m *= 5.3) {
        const double cost = allreduce_cost(a, n, m, kLink).total_s;
        EXPECT_GT(cost, previous) << algorithm_name(a) << " N=" << n << " m=" << m;
        previous = cost;
      }
    }
  }
}

// Patarasuk and Yuan (2009): every all-reduce moves at least 2m(N-1)/N bytes through some
// rank, so its bandwidth term is at least 2m(N-1)/N * beta. The ring meets the bound.
TEST(AllreduceCost, PatarasukYuanLowerBound) {
  for (const Algorithm a : kSeedAlgorithms) {
    for (const std::int64_t n : kRanks) {
      for (const double m : kBytes) {
        const double bound = 2.0 * m * static_cast<double>(n - 1) / static_cast<double>(n) *
                             kLink.beta_s_per_byte();
        const CollectiveCost c = allreduce_cost(a, n, m, kLink);
        EXPECT_GE(c.bandwidth_s, bound * (1.0 - 1e-12))
            << algorithm_name(a) << " N=" << n << " m=" << m;
        if (a == Algorithm::kRing) {
          EXPECT_NEAR(c.bandwidth_s, bound, 1e-12 * bound);
        }
      }
    }
  }
}

TEST(AllreduceCost, GammaIsChargedOnReducedBytes) {
  const double gamma = 2e-10;  // 5 GB/s of reduction arithmetic
  // Ring, N = 64: reduces m (N-1)/N = 63/64 m.
  const double m = 1 << 20;
  const CollectiveCost ring = allreduce_cost(Algorithm::kRing, 64, m, kLink, gamma);
  EXPECT_DOUBLE_EQ(ring.reduced_bytes_per_rank, m * 63.0 / 64.0);
  EXPECT_DOUBLE_EQ(ring.compute_s, m * 63.0 / 64.0 * gamma);
  // Recursive doubling, N = 64: reduces m log2 N = 6 m.
  const CollectiveCost rd = allreduce_cost(Algorithm::kRecursiveDoubling, 64, m, kLink, gamma);
  EXPECT_DOUBLE_EQ(rd.reduced_bytes_per_rank, 6.0 * m);
  EXPECT_DOUBLE_EQ(rd.compute_s, 6.0 * m * gamma);
  // Fold-in, N = 24 (p = 16): reduces m (4 + 1) = 5 m.
  const CollectiveCost rd24 = allreduce_cost(Algorithm::kRecursiveDoubling, 24, m, kLink, gamma);
  EXPECT_DOUBLE_EQ(rd24.compute_s, 5.0 * m * gamma);
  // Gamma leaves the other terms alone.
  EXPECT_EQ(ring.latency_s, allreduce_cost(Algorithm::kRing, 64, m, kLink).latency_s);
  EXPECT_EQ(ring.bandwidth_s, allreduce_cost(Algorithm::kRing, 64, m, kLink).bandwidth_s);
}

// The input's local copy: an out-of-place all-reduce, reduce-scatter or reduce copies its
// whole input, an all-gather or all-to-all its own block, a broadcast nothing; at the copy's
// own regime, into compute_s, and the other terms untouched.
TEST(CopyCost, ChargesTheInputsCopyAtItsOwnRate) {
  const double m = 1 << 22;  // 4 MiB
  CostOptions options;
  options.copy.s_per_byte = 0.1e-9;              // 10 GB/s in cache
  options.copy.above.above[0] = {2097152, 0.4e-9};  // 2.5 GB/s from 2 MiB
  options.copy.above.count = 1;
  const auto cost = [&](Op op, Algorithm a, const CostOptions& o) {
    return collective_cost(op, {a}, 8, m, kLink, o);
  };
  const CollectiveCost plain = cost(Op::kAllreduce, Algorithm::kRing, {});
  const CollectiveCost copied = cost(Op::kAllreduce, Algorithm::kRing, options);
  EXPECT_DOUBLE_EQ(copied.copy_s, m * 0.4e-9);  // 4 MiB: the slow regime
  EXPECT_DOUBLE_EQ(copied.compute_s, plain.compute_s + copied.copy_s);
  EXPECT_DOUBLE_EQ(copied.total_s, plain.total_s + copied.copy_s);
  EXPECT_EQ(copied.latency_s, plain.latency_s);
  EXPECT_EQ(copied.bandwidth_s, plain.bandwidth_s);
  EXPECT_DOUBLE_EQ(copied.total_s, copied.latency_s + copied.bandwidth_s + copied.compute_s);
  // The all-gather copies its own block, m / 8 = 512 KiB: the fast regime.
  EXPECT_DOUBLE_EQ(cost(Op::kAllgather, Algorithm::kRing, options).copy_s, m / 8 * 0.1e-9);
  EXPECT_DOUBLE_EQ(cost(Op::kReduceScatter, Algorithm::kRing, options).copy_s, m * 0.4e-9);
  EXPECT_EQ(cost(Op::kBroadcast, Algorithm::kBinomialTree, options).copy_s, 0.0);
  // One rank costs nothing, copy or not.
  EXPECT_EQ(collective_cost(Op::kAllreduce, {Algorithm::kRing}, 1, m, kLink, options).total_s,
            0.0);
  EXPECT_EQ(local_copy_bytes(Op::kAlltoall, 4, 1000), 250.0);
  EXPECT_EQ(local_copy_bytes(Op::kReduce, 4, 1000), 1000.0);
  EXPECT_EQ(local_copy_bytes(Op::kBarrier, 4, 1000), 0.0);
  EXPECT_EQ(local_copy_bytes(Op::kAllreduce, 1, 1000), 0.0);
  // A bad rate is refused, naming it.
  CostOptions bad;
  bad.copy.s_per_byte = -1;
  EXPECT_THROW(cost(Op::kAllreduce, Algorithm::kRing, bad), InputError);
}

// The cost options a flat fabric gives when it holds `rate` as one of its local rates.
CostOptions options_of_fabric_with(CopyCost Topology::*field, const CopyCost& rate) {
  Topology fabric = flat_topology(8, kLink);
  fabric.*field = rate;
  CostOptions options;
  use_fabric_local_costs(options, fabric);
  return options;
}

// A reduction into the buffer a step has just sent: recursive doubling adds every step into the
// vector it sent, so its reductions pay sent_reduction (by the bytes one step reduces); the
// fold-in, the ring and Rabenseifner add into blocks they did not just send and pay gamma.
TEST(SentReduction, RecursiveDoublingPaysItTheOthersPayGamma) {
  const double m = 1 << 20;  // 1 MiB
  const double gamma = 0.05e-9;
  CostOptions options;
  options.gamma_s_per_byte = gamma;
  options.sent_reduction.s_per_byte = 0.1e-9;
  options.sent_reduction.above.above[0] = {524288, 0.2e-9};  // from 512 KiB
  options.sent_reduction.above.count = 1;
  CostOptions plain;
  plain.gamma_s_per_byte = gamma;
  const auto cost = [&](Algorithm a, std::int64_t n, const CostOptions& o) {
    return collective_cost(Op::kAllreduce, {a}, n, m, kLink, o);
  };
  // N = 8: three steps, each reducing m into the vector it sent; 1 MiB is in the second regime.
  const CollectiveCost rd = cost(Algorithm::kRecursiveDoubling, 8, options);
  EXPECT_DOUBLE_EQ(rd.compute_s, 3.0 * m * 0.2e-9);
  EXPECT_EQ(rd.latency_s, cost(Algorithm::kRecursiveDoubling, 8, plain).latency_s);
  EXPECT_EQ(rd.bandwidth_s, cost(Algorithm::kRecursiveDoubling, 8, plain).bandwidth_s);
  EXPECT_DOUBLE_EQ(rd.total_s, rd.latency_s + rd.bandwidth_s + rd.compute_s);
  // N = 12 (p = 8): the fold-in's m pays gamma, the three core steps sent_reduction.
  EXPECT_DOUBLE_EQ(cost(Algorithm::kRecursiveDoubling, 12, options).compute_s,
                   m * gamma + 3.0 * m * 0.2e-9);
  // The ring and Rabenseifner are priced as without it.
  for (const Algorithm a : {Algorithm::kRing, Algorithm::kRabenseifner}) {
    EXPECT_EQ(cost(a, 8, options).total_s, cost(a, 8, plain).total_s) << algorithm_name(a);
  }
  // Not given (free), recursive doubling pays gamma: today's closed form.
  EXPECT_DOUBLE_EQ(cost(Algorithm::kRecursiveDoubling, 8, plain).compute_s, 3.0 * m * gamma);
  // A bad rate is refused.
  CostOptions bad;
  bad.sent_reduction.s_per_byte = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(cost(Algorithm::kRecursiveDoubling, 8, bad), InputError);
  // The fabric's own rate is taken as a cost option.
  const CostOptions from_fabric =
      options_of_fabric_with(&Topology::sent_reduction, options.sent_reduction);
  EXPECT_DOUBLE_EQ(from_fabric.reduction_at(m, true), 0.2e-9);
  EXPECT_DOUBLE_EQ(from_fabric.reduction_at(m, false), 0.0);
}

// An exchange into a block sent earlier in the call: the ring all-reduce's all-gather half
// receives each block into the one it sent in the reduce-scatter half, Rabenseifner's doubling
// all-gather into the half it sent while halving. Their bandwidth term becomes the measured
// exchange (rate x bytes of one message, fitted through the origin) less the step's alpha, and
// never less than the link's own term; every other step, and every algorithm without such a
// step, is priced as before.
TEST(SentExchange, TheAllGatherHalvesPayItNeverBelowTheLink) {
  const double m = 1 << 20;  // 1 MiB
  const double alpha = kLink.alpha_s;
  const double beta = 1.0 / kLink.bandwidth_Bps;
  CostOptions options;
  options.sent_exchange.s_per_byte = 0.02e-9;                  // below the link's 0.04e-9
  options.sent_exchange.above.above[0] = {100000, 0.1e-9};  // 10 GB/s from 100 kB
  options.sent_exchange.above.count = 1;
  const CostOptions plain;
  const auto cost = [&](Algorithm a, std::int64_t n, const CostOptions& o) {
    return collective_cost(Op::kAllreduce, {a}, n, m, kLink, o);
  };
  // Ring, N = 4: 3 reduce-scatter steps on the link, 3 all-gather steps of m/4 = 256 KiB at
  // 0.1 ns/B less alpha.
  const CollectiveCost ring = cost(Algorithm::kRing, 4, options);
  EXPECT_NEAR(ring.bandwidth_s, 3.0 * (m / 4) * beta + 3.0 * ((m / 4) * 0.1e-9 - alpha), 1e-15);
  EXPECT_EQ(ring.latency_s, cost(Algorithm::kRing, 4, plain).latency_s);
  EXPECT_NEAR(ring.latency_s, 6.0 * alpha, 1e-15);
  // Rabenseifner, N = 8: halving on the link; the doubling all-gather's m/2, m/4 and m/8 =
  // 128 KiB messages all in the second regime.
  const CollectiveCost rab = cost(Algorithm::kRabenseifner, 8, options);
  const double halving = (m / 2 + m / 4 + m / 8) * beta;
  EXPECT_NEAR(rab.bandwidth_s, halving + (m / 2 + m / 4 + m / 8) * 0.1e-9 - 3.0 * alpha, 1e-15);
  // Below 100 kB the first regime's exchange is faster than the link: the link's term stands.
  const double small = 64.0 * 1024;
  EXPECT_EQ(collective_cost(Op::kAllreduce, {Algorithm::kRing}, 4, small, kLink, options).total_s,
            collective_cost(Op::kAllreduce, {Algorithm::kRing}, 4, small, kLink, plain).total_s);
  // Recursive doubling and the tree have no such step.
  for (const Algorithm a : {Algorithm::kRecursiveDoubling, Algorithm::kBinomialTree}) {
    EXPECT_EQ(cost(a, 8, options).total_s, cost(a, 8, plain).total_s) << algorithm_name(a);
  }
  // Not given (free): today's closed form, 2(N-1) alpha + 2(N-1)/N m beta.
  EXPECT_NEAR(cost(Algorithm::kRing, 4, plain).total_s, 6.0 * alpha + 1.5 * m * beta, 1e-15);
  // A bad rate is refused.
  CostOptions bad;
  bad.sent_exchange.s_per_byte = -1;
  EXPECT_THROW(cost(Algorithm::kRing, 4, bad), InputError);
  // The fabric's own rate is taken as a cost option.
  const CostOptions from_fabric =
      options_of_fabric_with(&Topology::sent_exchange, options.sent_exchange);
  EXPECT_DOUBLE_EQ(from_fabric.sent_exchange_at(m, true), 0.1e-9);
  EXPECT_DOUBLE_EQ(from_fabric.sent_exchange_at(m, false), 0.0);
}

// One node of two ranks on a two-regime link: 2 us + m / 10 GB/s below 2.1 MB, 1 ns + m / 5
// GB/s from there (the rate beyond a cache), with a copy of 0.02 ns/B below 2.1 MB and 0.1
// ns/B from there; the measurements ran `working_set_ranks` ranks at once.
Topology working_set_node(std::int64_t working_set_ranks) {
  const std::array<LinkRegime, 2> regimes = {LinkRegime{0, 2e-6, 10e9},
                                             LinkRegime{2.1e6, 1e-9, 5e9}};
  Topology t;
  t.nodes = 1;
  t.ranks_per_node = 2;
  t.intra = piecewise_link(regimes);
  t.inter = t.intra;
  t.copy.s_per_byte = 0.02e-9;
  t.copy.above.above[0] = {2.1e6, 0.1e-9};
  t.copy.above.count = 1;
  t.working_set_ranks = working_set_ranks;
  return t;
}

CostOptions options_of(const Topology& t) {
  CostOptions o;
  use_fabric_local_costs(o, t);
  return o;
}

// Recursive doubling of m = 2 MB on 2 ranks touches 3m per rank (input, output, the m it
// receives): as much as the measurement of 3 MB touched (2 ranks, twice the size each), so
// the working set is 2 x 6 MB / (2 x 2) = 3 MB, and the octave about it (2.12 .. 4.24 MB) lies
// in the slower regime. The exchange of 2 MB, bandwidth-bound, then takes 2 MB at 0.2 ns/B
// (its alpha inside that: 2 us + 398 us) instead of 2 us + 200 us, and the copy of 2 MB 0.1
// ns/B instead of 0.02 ns/B. Without the working set the step and the copy keep their own.
TEST(WorkingSet, ABandwidthBoundStepPaysTheRateWhereTheCallsMemoryWasMeasured) {
  const double m = 2e6;
  const Topology on = working_set_node(2);
  const Topology off = working_set_node(0);
  const CollectiveCost with =
      collective_cost(Op::kAllreduce, {Algorithm::kRecursiveDoubling}, m, on, options_of(on));
  const CollectiveCost without =
      collective_cost(Op::kAllreduce, {Algorithm::kRecursiveDoubling}, m, off, options_of(off));
  EXPECT_NEAR(without.latency_s, 2e-6, 1e-18);
  EXPECT_NEAR(without.bandwidth_s, 200e-6, 1e-15);
  EXPECT_NEAR(without.copy_s, 40e-6, 1e-15);
  EXPECT_NEAR(with.latency_s, 2e-6, 1e-18);
  // The 1 ns alpha of the slower regime adds 1 ns / 3 MB per byte, under 1 ns in all.
  EXPECT_NEAR(with.bandwidth_s, 398e-6, 1e-9);
  EXPECT_NEAR(with.copy_s, 200e-6, 1e-15);
  EXPECT_NEAR(with.total_s, 600e-6, 1e-9);
  // Measured by 4 ranks at once, 3 MB was touched at 1.5 MB: the faster regime, no change.
  const Topology four = working_set_node(4);
  EXPECT_EQ(collective_cost(Op::kAllreduce, {Algorithm::kRecursiveDoubling}, m, four,
                            options_of(four))
                .total_s,
            without.total_s);
  // The same cost through the edge-level evaluation.
  EXPECT_NEAR(detail::collective_cost_by_edges(Op::kAllreduce, {Algorithm::kRecursiveDoubling},
                                               m, on, options_of(on))
                  .total_s,
              with.total_s, 1e-15);
}

// A latency-bound step keeps its own price even where the working set's size falls in a
// regime with a larger alpha (a protocol's break, not a cache's), and a step whose working
// set is measured faster keeps its own too: the working set never makes a call cheaper.
TEST(WorkingSet, LatencyBoundStepsAndFasterRegimesKeepTheirOwn) {
  Topology t;
  t.nodes = 1;
  t.ranks_per_node = 2;
  const std::array<LinkRegime, 3> regimes = {
      LinkRegime{0, 2e-6, 10e9}, LinkRegime{10e3, 50e-6, 10e9}, LinkRegime{1.2e6, 1e-9, 20e9}};
  t.intra = piecewise_link(regimes);
  t.inter = t.intra;
  Topology off = t;
  t.working_set_ranks = 2;
  for (const double m : {8e3, 1e6}) {  // 8 kB: 0.8 us of bytes under 2 alpha; 1 MB: faster
    for (const Algorithm a : {Algorithm::kRecursiveDoubling, Algorithm::kRing}) {
      EXPECT_EQ(collective_cost(Op::kAllreduce, {a}, m, t, options_of(t)).total_s,
                collective_cost(Op::kAllreduce, {a}, m, off, options_of(off)).total_s)
          << algorithm_name(a) << " " << m;
    }
  }
}

// Invariants over every all-reduce algorithm, 8 B .. 64 MiB, on one node of 2, 4 and 8 ranks
// and on 2 nodes of 4: the working set never lowers a cost, leaves the latency terms alone,
// and one rank costs nothing.
TEST(WorkingSet, NeverCheaperLatencyUnchangedOneRankFree) {
  for (const auto& [nodes, per_node] :
       {std::pair{1, 2}, std::pair{1, 4}, std::pair{1, 8}, std::pair{2, 4}}) {
    Topology on = working_set_node(2);
    on.nodes = nodes;
    on.ranks_per_node = per_node;
    Topology off = on;
    off.working_set_ranks = 0;
    for (const AlgorithmSpec& spec : applicable_algorithms(Op::kAllreduce, on)) {
      for (double m = 8; m <= 64.0 * 1024 * 1024; m *= 4) {
        const CollectiveCost with = collective_cost(Op::kAllreduce, spec, m, on, options_of(on));
        const CollectiveCost without =
            collective_cost(Op::kAllreduce, spec, m, off, options_of(off));
        const std::string where =
            fmt::format("{} {} x {} {} B", algorithm_name(spec), nodes, per_node, m);
        EXPECT_GE(with.total_s, without.total_s) << where;
        EXPECT_EQ(with.latency_s, without.latency_s) << where;
      }
    }
  }
  const Topology one = scaled_topology(working_set_node(2), 1);
  EXPECT_EQ(collective_cost(Op::kAllreduce, {Algorithm::kRing}, 1e6, one, options_of(one)).total_s,
            0.0);
}

// What a call touches per rank, and the size whose measurement touched as much.
TEST(WorkingSet, FootprintAndEquivalentSizeClosedForms) {
  const double m = 1000;
  EXPECT_EQ(call_footprint_bytes(Op::kAllreduce, 4, m, 250), 2250.0);
  EXPECT_EQ(call_footprint_bytes(Op::kReduce, 4, m, 1000), 3000.0);
  EXPECT_EQ(call_footprint_bytes(Op::kReduceScatter, 4, m, 250), 1500.0);
  EXPECT_EQ(call_footprint_bytes(Op::kAllgather, 4, m, 250), 1250.0);
  EXPECT_EQ(call_footprint_bytes(Op::kAlltoall, 4, m, 250), 2000.0);
  EXPECT_EQ(call_footprint_bytes(Op::kBroadcast, 4, m, 1000), 1000.0);
  EXPECT_EQ(call_footprint_bytes(Op::kBarrier, 4, 0, 0), 0.0);
  // 8 ranks of a node touching 2250 B each, measured by 2 ranks touching 2 x each.
  EXPECT_EQ(call_working_set_bytes(2250, 8, 2), 4500.0);
  EXPECT_EQ(call_working_set_bytes(2250, 2, 2), 1125.0);
  EXPECT_EQ(call_working_set_bytes(2250, 8, 0), 0.0);
  CostOptions bad;
  bad.working_set_ranks = -1;
  EXPECT_THROW(collective_cost(Op::kAllreduce, {Algorithm::kRing}, 2, 1e6, kLink, bad),
               InputError);
}

// Whole elements: with CostOptions::element_bytes each step's message and reduction is
// rounded up to whole elements. A 2-rank ring all-reduce of one 8-byte element sends 8 B in
// each of its 2 steps (blocks of 1 and 0 elements) and reduces 8 B, not 4 B; 3 elements over
// 4 ranks send 8 B per step (blocks of 1, 1, 1, 0); a buffer of whole blocks is unchanged, as
// is every cost with element_bytes 0; a negative size is refused.
TEST(WholeElements, EachStepCarriesTheLargestBlockOfWholeElements) {
  const double alpha = kLink.alpha_s;
  const double beta = 1.0 / kLink.bandwidth_Bps;
  CostOptions options;
  options.gamma_s_per_byte = 1e-9;
  CostOptions elements = options;
  elements.element_bytes = 8;
  const auto ring = [&](std::int64_t n, double m, const CostOptions& o) {
    return collective_cost(Op::kAllreduce, {Algorithm::kRing}, n, m, kLink, o);
  };
  EXPECT_NEAR(ring(2, 8, options).total_s, 2 * (alpha + 4 * beta) + 4e-9, 1e-18);
  EXPECT_NEAR(ring(2, 8, elements).total_s, 2 * (alpha + 8 * beta) + 8e-9, 1e-18);
  EXPECT_EQ(ring(2, 8, elements).bytes_per_rank, 16.0);
  // 3 elements over 4 ranks: 6 steps of 8 B, 3 reduce-scatter steps reducing 8 B each.
  EXPECT_NEAR(ring(4, 24, elements).total_s, 6 * (alpha + 8 * beta) + 24e-9, 1e-18);
  // Whole blocks: the same cost either way, to the bit.
  for (const double m : {16.0, 64.0, 1048576.0}) {
    EXPECT_EQ(ring(2, m, elements).total_s, ring(2, m, options).total_s) << m;
    EXPECT_EQ(collective_cost(Op::kAllreduce, {Algorithm::kRabenseifner}, 4, m * 4, kLink,
                              elements)
                  .total_s,
              collective_cost(Op::kAllreduce, {Algorithm::kRabenseifner}, 4, m * 4, kLink,
                              options)
                  .total_s)
        << m;
  }
  // Rabenseifner of 2 elements over 4 ranks: halving steps of 1 element (m/2 = 8 B, m/4 =
  // 4 B rounded up to 8 B), the doubling gather the same.
  EXPECT_EQ(collective_cost(Op::kAllreduce, {Algorithm::kRabenseifner}, 4, 16, kLink, elements)
                .bytes_per_rank,
            32.0);
  CostOptions bad;
  bad.element_bytes = -8;
  EXPECT_THROW(ring(2, 8, bad), InputError);
}

// The smallest local size: a local pass (the copy, a reduction, a fresh buffer) over fewer
// bytes than local_min_bytes costs what that size cost; 0 bytes still cost nothing, and at
// or above the size every pass is at its rate as before.
TEST(LocalMinBytes, APassBelowTheSmallestMeasuredSizeCostsWhatThatSizeCost) {
  CostOptions options;
  options.gamma_s_per_byte = 0.05e-9;
  options.copy.s_per_byte = 0.04e-9;
  CostOptions floored = options;
  floored.local_min_bytes = 1024;
  const auto rd = [&](double m, const CostOptions& o) {
    return collective_cost(Op::kAllreduce, {Algorithm::kRecursiveDoubling}, 2, m, kLink, o);
  };
  // 8 B: the copy and the reduction each at 1 KiB's time.
  EXPECT_NEAR(rd(8, options).compute_s, 8 * 0.04e-9 + 8 * 0.05e-9, 1e-24);
  EXPECT_NEAR(rd(8, floored).compute_s, 1024 * 0.04e-9 + 1024 * 0.05e-9, 1e-24);
  EXPECT_NEAR(rd(8, floored).copy_s, 1024 * 0.04e-9, 1e-24);
  EXPECT_EQ(rd(8, floored).latency_s + rd(8, floored).bandwidth_s,
            rd(8, options).latency_s + rd(8, options).bandwidth_s);
  // At and above the floor, and at 0 B, nothing changes.
  for (const double m : {0.0, 1024.0, 65536.0}) {
    EXPECT_EQ(rd(m, floored).total_s, rd(m, options).total_s) << m;
  }
  // A fresh buffer of 8 B costs what 1 KiB cost; one of 0 B written costs nothing.
  CopyCost alloc;
  alloc.s_per_byte = 0.03e-9;
  const CollectiveCost plain = rd(8, options);
  const std::vector<WorkBuffer> small = {{8, 8}};
  EXPECT_NEAR(with_work_buffers(plain, small, alloc, 1024).alloc_s, 1024 * 0.03e-9, 1e-24);
  EXPECT_NEAR(with_work_buffers(plain, small, alloc).alloc_s, 8 * 0.03e-9, 1e-24);
  const std::vector<WorkBuffer> unwritten = {{8, 0}};
  EXPECT_EQ(with_work_buffers(plain, unwritten, alloc, 1024).alloc_s, 0.0);
  CostOptions bad;
  bad.local_min_bytes = -1;
  EXPECT_THROW(rd(8, bad), InputError);
}

TEST(WorkBuffers, EachAllocationAtTheRateOfItsOwnSize) {
  constexpr double kM = 64.0 * 1024 * 1024;
  CopyCost alloc;
  alloc.s_per_byte = 0.001e-9;                     // reused heap memory
  alloc.above.above[0] = {33554432, 0.5e-9};       // fresh pages from 32 MiB
  alloc.above.count = 1;
  const CollectiveCost plain = collective_cost(Op::kAllreduce, {Algorithm::kRing}, 2, kM, kLink);
  // Each buffer's size picks its rate; the bytes written pay it.
  const std::vector<WorkBuffer> buffers = {{kM / 2, kM / 4}, {kM / 4, kM / 4}};
  const CollectiveCost c = with_work_buffers(plain, buffers, alloc);
  const double expected = kM / 4 * 0.5e-9 + kM / 4 * 0.001e-9;
  EXPECT_DOUBLE_EQ(c.alloc_s, expected);
  EXPECT_DOUBLE_EQ(c.compute_s, plain.compute_s + expected);
  EXPECT_DOUBLE_EQ(c.total_s, plain.total_s + expected);
  EXPECT_DOUBLE_EQ(c.total_s, c.latency_s + c.bandwidth_s + c.compute_s);
  EXPECT_DOUBLE_EQ(*c.algbw_Bps, kM / c.total_s);
  EXPECT_DOUBLE_EQ(*c.busbw_Bps, *c.algbw_Bps * busbw_factor(Op::kAllreduce, 2));
  EXPECT_EQ(c.latency_s, plain.latency_s);
  // Free, or no buffers: unchanged.
  EXPECT_EQ(with_work_buffers(plain, buffers, {}).total_s, plain.total_s);
  EXPECT_EQ(with_work_buffers(plain, {}, alloc).total_s, plain.total_s);
  EXPECT_EQ(with_work_buffers(plain, {}, alloc).alloc_s, 0.0);
  // Bad input is refused, naming it.
  const std::vector<WorkBuffer> negative = {{-1, 0}};
  EXPECT_THROW(with_work_buffers(plain, negative, alloc), InputError);
  const std::vector<WorkBuffer> overwritten = {{1024, 2048}};
  EXPECT_THROW(with_work_buffers(plain, overwritten, alloc), InputError);
  CopyCost bad;
  bad.s_per_byte = -1;
  EXPECT_THROW(with_work_buffers(plain, buffers, bad), InputError);
  CostOptions options;
  options.alloc = bad;
  EXPECT_THROW(collective_cost(Op::kAllreduce, {Algorithm::kRing}, 2, kM, kLink, options),
               InputError);
}

TEST(RankAllreduce, CheapestFirstAndStable) {
  const std::vector<Algorithm> both(std::begin(kSeedAlgorithms), std::end(kSeedAlgorithms));
  for (const std::int64_t n : kRanks) {
    for (const double m : kBytes) {
      const auto ranked = rank_allreduce(both, n, m, kLink);
      ASSERT_EQ(ranked.size(), both.size());
      for (std::size_t i = 1; i < ranked.size(); ++i) {
        EXPECT_LE(ranked[i - 1].total_s, ranked[i].total_s);
      }
      for (const auto& c : ranked) {
        EXPECT_EQ(c.total_s, allreduce_cost(c.algorithm.algorithm, n, m, kLink).total_s);
      }
    }
  }
  // N = 1: both cost zero, so the given order is kept, either way round.
  const std::vector<Algorithm> reversed = {Algorithm::kRecursiveDoubling, Algorithm::kRing};
  EXPECT_EQ(rank_allreduce(both, 1, 1e6, kLink).front().algorithm.algorithm, Algorithm::kRing);
  EXPECT_EQ(rank_allreduce(reversed, 1, 1e6, kLink).front().algorithm.algorithm,
            Algorithm::kRecursiveDoubling);
  // One algorithm, and none.
  const std::vector<Algorithm> ring_only = {Algorithm::kRing};
  EXPECT_EQ(rank_allreduce(ring_only, 8, 1, kLink).size(), 1u);
  EXPECT_TRUE(rank_allreduce(std::span<const Algorithm>{}, 8, 1, kLink).empty());
}

// Lab 3: at 64 ranks a 4 KB all-reduce goes to recursive doubling (6 steps against 126) and a
// 1 GiB one to the ring (about 2m bytes against 6m).
TEST(Lab3Allreduce, WinnerFlipsWithSize) {
  const std::vector<Algorithm> both(std::begin(kSeedAlgorithms), std::end(kSeedAlgorithms));
  const auto small = rank_allreduce(both, 64, 4096, kLink);
  EXPECT_EQ(small.front().algorithm.algorithm, Algorithm::kRecursiveDoubling);
  // 6 x 2.5 us + 6 x 4096 B / 25 GB/s = 15 us + 0.98304 us.
  EXPECT_DOUBLE_EQ(small.front().total_s, 15e-6 + 6.0 * 4096 / 25e9);
  const auto large = rank_allreduce(both, 64, 1073741824, kLink);
  EXPECT_EQ(large.front().algorithm.algorithm, Algorithm::kRing);
  // 126 x 2.5 us + 2^30 x 126/64 B / 25 GB/s = 315 us + 84.56 ms.
  EXPECT_DOUBLE_EQ(large.front().total_s, 315e-6 + 1073741824.0 * 126.0 / 64.0 / 25e9);
}

// Ring and recursive doubling at N = 64 tie where 126 alpha + (126/64) m beta = 6 alpha + 6 m beta:
// m = 120 alpha / (beta (6 - 126/64)) = 7.5e6 / 4.03125 B, about 1.86 MB.
TEST(Lab3Allreduce, TieAt64RanksOnTheDefaultLink) {
  const auto tie =
      allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRecursiveDoubling, 64, kLink);
  ASSERT_TRUE(tie.has_value());
  const double expected = 120.0 * 2.5e-6 / (4e-11 * (6.0 - 126.0 / 64.0));
  EXPECT_NEAR(*tie, expected, 1e-9 * expected);
  EXPECT_NEAR(*tie, 1.86e6, 0.01e6);
  // Symmetric in its two algorithms.
  const auto back =
      allreduce_tie_bytes(Algorithm::kRecursiveDoubling, Algorithm::kRing, 64, kLink);
  ASSERT_TRUE(back.has_value());
  EXPECT_DOUBLE_EQ(*back, *tie);
}

TEST(Lab3Allreduce, TieGrowsFrom64To512Ranks) {
  const auto at64 = allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRecursiveDoubling, 64, kLink);
  const auto at512 =
      allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRecursiveDoubling, 512, kLink);
  ASSERT_TRUE(at64 && at512);
  EXPECT_GT(*at512, *at64);
  // 1013 alpha / (beta (9 - 1022/512)), about 9.04 MB.
  const double expected = 1013.0 * 2.5e-6 / (4e-11 * (9.0 - 1022.0 / 512.0));
  EXPECT_NEAR(*at512, expected, 1e-9 * expected);
}

TEST(AllreduceTie, CostsEqualThereAndWinnerFlipsAcrossIt) {
  for (const double gamma : {0.0, 1e-10}) {
    for (const std::int64_t n : kRanks) {
      const auto tie =
          allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRecursiveDoubling, n, kLink, gamma);
      if (n <= 2) continue;  // covered below
      ASSERT_TRUE(tie.has_value()) << "N=" << n << " gamma=" << gamma;
      const double ring = allreduce_cost(Algorithm::kRing, n, *tie, kLink, gamma).total_s;
      const double rd =
          allreduce_cost(Algorithm::kRecursiveDoubling, n, *tie, kLink, gamma).total_s;
      EXPECT_NEAR(ring, rd, 1e-12 * ring) << "N=" << n;
      const double below = *tie * (1.0 - 1e-6);
      const double above = *tie * (1.0 + 1e-6);
      EXPECT_LT(allreduce_cost(Algorithm::kRecursiveDoubling, n, below, kLink, gamma).total_s,
                allreduce_cost(Algorithm::kRing, n, below, kLink, gamma).total_s)
          << "N=" << n;
      EXPECT_LT(allreduce_cost(Algorithm::kRing, n, above, kLink, gamma).total_s,
                allreduce_cost(Algorithm::kRecursiveDoubling, n, above, kLink, gamma).total_s)
          << "N=" << n;
    }
  }
}

TEST(AllreduceTie, NoneForOneOrTwoRanks) {
  // N = 1: both free at every size.
  EXPECT_FALSE(allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRecursiveDoubling, 1, kLink));
  // N = 2: ring 2 alpha + m beta, recursive doubling alpha + m beta: parallel lines.
  EXPECT_FALSE(allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRecursiveDoubling, 2, kLink));
  for (const double m : kBytes) {
    EXPECT_LT(allreduce_cost(Algorithm::kRecursiveDoubling, 2, m, kLink).total_s,
              allreduce_cost(Algorithm::kRing, 2, m, kLink).total_s);
  }
  // An algorithm against itself never has a single tie.
  EXPECT_FALSE(allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRing, 64, kLink));
  // With gamma > 0 the ring's halved reduction gives N = 2 a tie at m = 2 alpha / gamma.
  const auto tie2 =
      allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRecursiveDoubling, 2, kLink, 1e-10);
  ASSERT_TRUE(tie2.has_value());
  EXPECT_NEAR(*tie2, 2.0 * 2.5e-6 / 1e-10, 1e-6);
}

TEST(AllreduceErrors, NameTheBadValue) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Algorithm ring = Algorithm::kRing;
  EXPECT_TRUE(contains(input_error_of([&] { allreduce_cost(ring, 0, 1, kLink); }), "rank count 0"));
  EXPECT_TRUE(
      contains(input_error_of([&] { allreduce_cost(ring, -3, 1, kLink); }), "rank count -3"));
  EXPECT_TRUE(contains(input_error_of([&] { allreduce_cost(ring, kMaxRanks + 1, 1, kLink); }),
                       "1099511627777"));
  EXPECT_NO_THROW(allreduce_cost(ring, kMaxRanks, 1, kLink));
  EXPECT_TRUE(contains(input_error_of([&] { allreduce_cost(ring, 8, -1, kLink); }), "-1 B"));
  EXPECT_TRUE(contains(input_error_of([&] { allreduce_cost(ring, 8, nan, kLink); }), "nan"));
  EXPECT_TRUE(contains(input_error_of([&] { allreduce_cost(ring, 8, inf, kLink); }), "inf"));
  EXPECT_TRUE(contains(input_error_of([&] { allreduce_cost(ring, 8, 1, Link{0.0, 1e9}); }),
                       "alpha = 0"));
  EXPECT_TRUE(contains(input_error_of([&] { allreduce_cost(ring, 8, 1, Link{1e-6, -1.0}); }),
                       "bandwidth = -1"));
  EXPECT_TRUE(
      contains(input_error_of([&] { allreduce_cost(ring, 8, 1, kLink, -1e-9); }), "-1e-09"));
  EXPECT_TRUE(contains(input_error_of([&] { allreduce_cost(ring, 8, 1, kLink, nan); }), "nan"));
  EXPECT_TRUE(contains(input_error_of([&] { allreduce_cost(ring, 8, 1, kLink, inf); }), "inf"));
  EXPECT_TRUE(contains(input_error_of([] { parse_algorithm("tree"); }), "'tree'"));
  EXPECT_TRUE(contains(input_error_of([] { parse_algorithm(""); }), "ring, recursive-doubling"));
  EXPECT_TRUE(contains(input_error_of([] { parse_algorithm("Ring"); }), "'Ring'"));

  const std::vector<Algorithm> both(std::begin(kSeedAlgorithms), std::end(kSeedAlgorithms));
  EXPECT_TRUE(contains(input_error_of([&] { rank_allreduce(both, 0, 1, kLink); }), "rank count"));
  EXPECT_TRUE(contains(input_error_of([&] { rank_allreduce(both, 8, -2, kLink); }), "-2 B"));
  EXPECT_TRUE(contains(
      input_error_of([&] { allreduce_tie_bytes(ring, Algorithm::kRecursiveDoubling, 0, kLink); }),
      "rank count 0"));
  EXPECT_TRUE(contains(input_error_of([&] {
                         allreduce_tie_bytes(ring, Algorithm::kRecursiveDoubling, 8,
                                             Link{-1.0, 1.0});
                       }),
                       "alpha"));
  EXPECT_TRUE(contains(input_error_of([&] {
                         allreduce_tie_bytes(ring, Algorithm::kRecursiveDoubling, 8, kLink, -1.0);
                       }),
                       "gamma"));
  // A cost too large for a double is reported, never printed as infinity.
  EXPECT_TRUE(contains(
      input_error_of([&] { allreduce_cost(Algorithm::kRecursiveDoubling, 64, 1e308, kLink); }),
      "1e+308"));
}

// ---------------------------------------------------------------------------------------
// Every algorithm of every op.

constexpr double kChunk = 524288;  // CostOptions' default tree chunk, 512 KiB
constexpr std::array<std::int64_t, 8> kAwkwardRanks = {1, 2, 3, 5, 8, 13, 24, 64};
constexpr std::array<double, 4> kAwkwardBytes = {0, 1, 7, 1e9};

struct OpAlgorithm {
  Op op;
  Algorithm algorithm;
};

// The table in collective.h's header comment, row by row.
constexpr OpAlgorithm kFlatTable[] = {
    {Op::kAllreduce, Algorithm::kRing},
    {Op::kAllreduce, Algorithm::kRecursiveDoubling},
    {Op::kAllreduce, Algorithm::kRabenseifner},
    {Op::kAllreduce, Algorithm::kBinomialTree},
    {Op::kAllreduce, Algorithm::kDoubleBinaryTree},
    {Op::kReduceScatter, Algorithm::kRing},
    {Op::kReduceScatter, Algorithm::kRecursiveHalving},
    {Op::kAllgather, Algorithm::kRing},
    {Op::kAllgather, Algorithm::kRecursiveDoubling},
    {Op::kAllgather, Algorithm::kBruck},
    {Op::kBroadcast, Algorithm::kBinomialTree},
    {Op::kBroadcast, Algorithm::kScatterAllgather},
    {Op::kReduce, Algorithm::kBinomialTree},
    {Op::kReduce, Algorithm::kRabenseifner},
    {Op::kAlltoall, Algorithm::kPairwise},
    {Op::kAlltoall, Algorithm::kBruck},
    {Op::kBarrier, Algorithm::kDissemination},
};

constexpr Algorithm kFlatAllreduceAlgorithms[] = {
    Algorithm::kRing, Algorithm::kRecursiveDoubling, Algorithm::kRabenseifner,
    Algorithm::kBinomialTree, Algorithm::kDoubleBinaryTree};

AlgorithmSpec flat(Algorithm a) { return {a, Algorithm::kRing}; }
AlgorithmSpec hierarchical(Algorithm inter) { return {Algorithm::kHierarchical, inter}; }

// Every (op, spec) the library knows: the flat table and hierarchical-<flat all-reduce>.
std::vector<std::pair<Op, AlgorithmSpec>> every_op_algorithm() {
  std::vector<std::pair<Op, AlgorithmSpec>> v;
  for (const OpAlgorithm& oa : kFlatTable) v.emplace_back(oa.op, flat(oa.algorithm));
  for (const Algorithm inter : kFlatAllreduceAlgorithms) {
    v.emplace_back(Op::kAllreduce, hierarchical(inter));
  }
  return v;
}

std::string describe(Op op, AlgorithmSpec spec, std::int64_t n, double m) {
  return std::string(op_name(op)) + " " + algorithm_name(spec) + " N=" + std::to_string(n) +
         " m=" + std::to_string(m);
}

// |actual - expected| <= rel |expected|; exact when expected is 0.
void expect_rel(double actual, double expected, double rel, const std::string& what) {
  if (expected == 0.0) {
    EXPECT_EQ(actual, 0.0) << what;
  } else {
    EXPECT_NEAR(actual, expected, rel * std::abs(expected)) << what;
  }
}

// The facts of N the closed forms use, computed by counting (not by the library's bit tricks):
// p = 2^floor(log2 N), L = log2 p, r = N - p, C = ceil(log2 N), fold = 1 when r > 0.
struct RankFacts {
  std::int64_t n = 1;
  std::int64_t p = 1;
  std::int64_t lg = 0;
  std::int64_t extra = 0;
  std::int64_t clg = 0;
  std::int64_t fold = 0;
};

RankFacts facts(std::int64_t n) {
  RankFacts f;
  f.n = n;
  while (2 * f.p <= n) {
    f.p *= 2;
    ++f.lg;
  }
  f.extra = n - f.p;
  std::int64_t reach = 1;
  while (reach < n) {
    reach *= 2;
    ++f.clg;
  }
  f.fold = f.extra > 0 ? 1 : 0;
  return f;
}

struct Shape {
  std::int64_t steps = 0;
  double bytes = 0;    // bytes per rank on the critical path
  double reduced = 0;  // bytes reduced on the critical path
};

// The closed forms of docs/models.md (m the whole buffer per rank, nccl-tests convention):
//   Thakur, Rabenseifner and Gropp 2005 (ring, recursive doubling/halving, Rabenseifner,
//   binomial, scatter + all-gather, pairwise, the fold for N not a power of two), Chan et al.
//   2007 (the same costs for the ring and bucket algorithms), Bruck et al. 1997 (all-gather and
//   all-to-all), Hensgen, Finkel and Manber 1988 (dissemination barrier), and the pipelined
//   double binary tree as modelled (Sanders, Speck and Traff 2009; NCCL).
Shape closed_form(Op op, Algorithm a, std::int64_t n, double m, double chunk = kChunk) {
  const RankFacts f = facts(n);
  const double nd = static_cast<double>(n);
  const double pd = static_cast<double>(f.p);
  const double L = static_cast<double>(f.lg);
  const double C = static_cast<double>(f.clg);
  const double fold = static_cast<double>(f.fold);
  const double share = m * (nd - 1.0) / nd;   // m (N-1)/N
  const double pshare = m * (pd - 1.0) / pd;  // m (p-1)/p
  switch (op) {
    case Op::kAllreduce:
      switch (a) {
        case Algorithm::kRing:
          return {2 * (n - 1), 2.0 * share, share};
        case Algorithm::kRecursiveDoubling:
          return {f.lg + 2 * f.fold, m * (L + 2.0 * fold), m * (L + fold)};
        case Algorithm::kRabenseifner:
          return {2 * f.lg + 2 * f.fold, 2.0 * pshare + 2.0 * fold * m, pshare + fold * m};
        case Algorithm::kBinomialTree:
          return {2 * f.clg, 2.0 * m * C, m * C};
        case Algorithm::kDoubleBinaryTree: {
          // h = floor(log2 N); the two halves of m go down two trees in k = ceil(m / 2c)
          // chunks of c (the last one holds the remainder): 2h + k - 1 pipelined steps, each
          // moving 4 chunks through a rank.
          if (n == 1) return {};
          const std::int64_t h = f.lg;
          const double half = m / 2.0;
          const auto k = half > 0 ? static_cast<std::int64_t>(std::ceil(half / chunk)) : 1;
          const double full = std::min(chunk, half);
          const double last = half - static_cast<double>(k - 1) * full;
          return {2 * h + k - 1, 4.0 * (static_cast<double>(2 * h + k - 2) * full + last), m};
        }
        default:
          break;
      }
      break;
    case Op::kReduceScatter:
      switch (a) {
        case Algorithm::kRing:
          return {n - 1, share, share};
        case Algorithm::kRecursiveHalving:
          return {f.lg + 2 * f.fold, pshare + fold * (m + m / nd), pshare + fold * m};
        default:
          break;
      }
      break;
    case Op::kAllgather:
      switch (a) {
        case Algorithm::kRing:
        case Algorithm::kBruck:
          return {a == Algorithm::kRing ? n - 1 : f.clg, share, 0.0};
        case Algorithm::kRecursiveDoubling: {
          // Power of two: p - 1 blocks of m/N. With the fold, the partner of an extra rank
          // receives its block (1), sends in step j its 2^j core blocks plus min(r, 2^j)
          // extra ones (sum S = 2^q - 1 + r (L - q), q = floor(log2 r) + 1), and finally
          // sends N - 1 blocks back.
          double extra_blocks = 0;
          if (f.extra > 0) {
            const RankFacts fr = facts(f.extra);
            const std::int64_t q = fr.lg + 1;
            extra_blocks = static_cast<double>((std::int64_t{1} << q) - 1 + f.extra * (f.lg - q));
          }
          return {f.lg + 2 * f.fold,
                  m / nd * ((pd - 1.0) + extra_blocks + fold * (1.0 + (nd - 1.0))), 0.0};
        }
        default:
          break;
      }
      break;
    case Op::kBroadcast:
      switch (a) {
        case Algorithm::kBinomialTree:
          return {f.clg, m * C, 0.0};
        case Algorithm::kScatterAllgather:
          return {f.clg + n - 1, 2.0 * share, 0.0};
        default:
          break;
      }
      break;
    case Op::kReduce:
      switch (a) {
        case Algorithm::kBinomialTree:
          return {f.clg, m * C, m * C};
        case Algorithm::kRabenseifner:
          return {2 * f.lg + f.fold, 2.0 * pshare + fold * m, pshare + fold * m};
        default:
          break;
      }
      break;
    case Op::kAlltoall:
      switch (a) {
        case Algorithm::kPairwise:
          return {n - 1, share, 0.0};
        case Algorithm::kBruck: {
          // Step j sends every block whose index has bit j set: over the C steps, the total
          // number of one bits in 0..N-1, each block m/N.
          std::int64_t ones = 0;
          for (std::int64_t i = 0; i < n; ++i) {
            ones += std::popcount(static_cast<std::uint64_t>(i));
          }
          return {f.clg, m / nd * static_cast<double>(ones), 0.0};
        }
        default:
          break;
      }
      break;
    case Op::kBarrier:
      return {f.clg, 0.0, 0.0};
  }
  ADD_FAILURE() << "no closed form for " << op_name(op) << " " << algorithm_name(a);
  return {};
}

// The closed forms' step, byte and reduction counts and the alpha, beta, gamma terms on a
// flat link, for every algorithm, awkward N and awkward m.
TEST(ClosedForms, EveryAlgorithmAwkwardRanksAndSizes) {
  const Link link{3e-6, 7e9};
  CostOptions options;
  options.gamma_s_per_byte = 2e-10;
  for (const OpAlgorithm& oa : kFlatTable) {
    for (const std::int64_t n : kAwkwardRanks) {
      for (const double m : kAwkwardBytes) {
        const std::string what = describe(oa.op, flat(oa.algorithm), n, m);
        const Shape want = closed_form(oa.op, oa.algorithm, n, m);
        const CollectiveCost c = collective_cost(oa.op, flat(oa.algorithm), n, m, link, options);
        EXPECT_EQ(c.steps, want.steps) << what;
        expect_rel(c.bytes_per_rank, want.bytes, 1e-12, what + " bytes");
        expect_rel(c.reduced_bytes_per_rank, want.reduced, 1e-12, what + " reduced");
        expect_rel(c.latency_s, static_cast<double>(want.steps) * 3e-6, 1e-15, what + " latency");
        expect_rel(c.bandwidth_s, want.bytes / 7e9, 1e-12, what + " bandwidth");
        expect_rel(c.compute_s, want.reduced * 2e-10, 1e-12, what + " compute");
        EXPECT_EQ(c.total_s, c.latency_s + c.bandwidth_s + c.compute_s) << what;
        EXPECT_EQ(c.op, oa.op);
        EXPECT_EQ(c.ranks, n);
        EXPECT_EQ(c.bytes, oa.op == Op::kBarrier ? 0.0 : m);
      }
    }
  }
}

struct Literal {
  Op op;
  Algorithm algorithm;
  std::int64_t steps;
  double bytes;
  double reduced;
};

// N = 13 (p = 8, L = 3, r = 5, C = 4), m = 7 B, worked out by hand from the closed forms.
TEST(ClosedForms, HandWorkedThirteenRanksSevenBytes) {
  const Literal table[] = {
      {Op::kAllreduce, Algorithm::kRing, 24, 2 * 7 * 12 / 13.0, 7 * 12 / 13.0},
      {Op::kAllreduce, Algorithm::kRecursiveDoubling, 5, 35, 28},    // 7 x (3 + 2), 7 x 4
      {Op::kAllreduce, Algorithm::kRabenseifner, 8, 26.25, 13.125},  // 2 x 7 x 7/8 + 14
      // fold, 3 halving steps, one round of 7 blocks of 7/8, fold: the bytes of rabenseifner
      {Op::kAllreduce, Algorithm::kRabenseifnerLinear, 6, 26.25, 13.125},
      {Op::kAllreduce, Algorithm::kBinomialTree, 8, 56, 28},         // 2 x 7 x 4
      {Op::kAllreduce, Algorithm::kDoubleBinaryTree, 6, 84, 7},      // one chunk: 4 h m
      {Op::kReduceScatter, Algorithm::kRing, 12, 84 / 13.0, 84 / 13.0},
      {Op::kReduceScatter, Algorithm::kRecursiveHalving, 5, 7 + 6.125 + 7 / 13.0, 13.125},
      {Op::kAllgather, Algorithm::kRing, 12, 84 / 13.0, 0},
      {Op::kAllgather, Algorithm::kRecursiveDoubling, 5, 27 * 7 / 13.0, 0},  // 1+7+7+12 blocks
      {Op::kAllgather, Algorithm::kBruck, 4, 84 / 13.0, 0},
      {Op::kBroadcast, Algorithm::kBinomialTree, 4, 28, 0},
      {Op::kBroadcast, Algorithm::kScatterAllgather, 16, 2 * 84 / 13.0, 0},
      {Op::kReduce, Algorithm::kBinomialTree, 4, 28, 28},
      {Op::kReduce, Algorithm::kRabenseifner, 7, 19.25, 13.125},  // 2 x 6.125 + 7
      {Op::kAlltoall, Algorithm::kPairwise, 12, 84 / 13.0, 0},
      {Op::kAlltoall, Algorithm::kBruck, 4, 22 * 7 / 13.0, 0},  // 22 one bits in 0..12
      {Op::kBarrier, Algorithm::kDissemination, 4, 0, 0},
  };
  // 1 us, 1 GB/s, gamma 1 ns/B: latency = steps us, bandwidth = bytes ns, compute = reduced ns.
  const Link link{1e-6, 1e9};
  CostOptions options;
  options.gamma_s_per_byte = 1e-9;
  for (const Literal& t : table) {
    const std::string what = describe(t.op, flat(t.algorithm), 13, 7);
    const CollectiveCost c = collective_cost(t.op, flat(t.algorithm), 13, 7, link, options);
    EXPECT_EQ(c.steps, t.steps) << what;
    expect_rel(c.bytes_per_rank, t.bytes, 1e-14, what);
    expect_rel(c.reduced_bytes_per_rank, t.reduced, 1e-14, what);
    expect_rel(c.total_s, static_cast<double>(t.steps) * 1e-6 + t.bytes * 1e-9 + t.reduced * 1e-9,
               1e-14, what);
  }
  // Rabenseifner all-reduce in seconds: 8 us + 26.25 ns + 13.125 ns.
  const CollectiveCost rab =
      collective_cost(Op::kAllreduce, flat(Algorithm::kRabenseifner), 13, 7, link, options);
  EXPECT_DOUBLE_EQ(rab.latency_s, 8e-6);
  EXPECT_DOUBLE_EQ(rab.bandwidth_s, 26.25e-9);
  EXPECT_DOUBLE_EQ(rab.compute_s, 13.125e-9);
  EXPECT_DOUBLE_EQ(rab.total_s, 8.039375e-6);
}

// N = 24 (p = 16, L = 4, r = 8, C = 5), m = 1 GB.
TEST(ClosedForms, HandWorkedTwentyFourRanksOneGigabyte) {
  const Literal table[] = {
      {Op::kAllreduce, Algorithm::kRing, 46, 2e9 * 23 / 24, 1e9 * 23 / 24},
      {Op::kAllreduce, Algorithm::kRecursiveDoubling, 6, 6e9, 5e9},
      {Op::kAllreduce, Algorithm::kRabenseifner, 10, 3.875e9, 1.9375e9},
      {Op::kAllreduce, Algorithm::kRabenseifnerLinear, 7, 3.875e9, 1.9375e9},
      {Op::kAllreduce, Algorithm::kBinomialTree, 10, 10e9, 5e9},
      // h = 4, 5e8 B per tree in k = 954 chunks (953 of 524288 B, the last 353536 B):
      // 8 + 953 = 961 steps, 4 (960 x 524288 + 353536) B.
      {Op::kAllreduce, Algorithm::kDoubleBinaryTree, 961, 2014680064, 1e9},
      {Op::kReduceScatter, Algorithm::kRing, 23, 1e9 * 23 / 24, 1e9 * 23 / 24},
      {Op::kReduceScatter, Algorithm::kRecursiveHalving, 6, 0.9375e9 + 1e9 + 1e9 / 24, 1.9375e9},
      {Op::kAllgather, Algorithm::kRing, 23, 1e9 * 23 / 24, 0},
      {Op::kAllgather, Algorithm::kRecursiveDoubling, 6, 2.25e9, 0},  // 1+15+15+23 = 54 blocks
      {Op::kAllgather, Algorithm::kBruck, 5, 1e9 * 23 / 24, 0},
      {Op::kBroadcast, Algorithm::kBinomialTree, 5, 5e9, 0},
      {Op::kBroadcast, Algorithm::kScatterAllgather, 28, 2e9 * 23 / 24, 0},
      {Op::kReduce, Algorithm::kBinomialTree, 5, 5e9, 5e9},
      {Op::kReduce, Algorithm::kRabenseifner, 9, 2.875e9, 1.9375e9},
      {Op::kAlltoall, Algorithm::kPairwise, 23, 1e9 * 23 / 24, 0},
      {Op::kAlltoall, Algorithm::kBruck, 5, 52e9 / 24, 0},  // 32 + 20 one bits in 0..23
      {Op::kBarrier, Algorithm::kDissemination, 5, 0, 0},
  };
  for (const Literal& t : table) {
    const std::string what = describe(t.op, flat(t.algorithm), 24, 1e9);
    const CollectiveCost c = collective_cost(t.op, flat(t.algorithm), 24, 1e9, kLink);
    EXPECT_EQ(c.steps, t.steps) << what;
    expect_rel(c.bytes_per_rank, t.bytes, 1e-14, what);
    expect_rel(c.reduced_bytes_per_rank, t.reduced, 1e-14, what);
    expect_rel(c.bandwidth_s, t.bytes / 25e9, 1e-14, what);
  }
}

// The pipelined double binary tree: the chunk count and the remainder chunk.
TEST(ClosedForms, DoubleBinaryTreePipeline) {
  const AlgorithmSpec tree = flat(Algorithm::kDoubleBinaryTree);
  // N = 2 (h = 1), 1 GB: 5e8 B per tree is 953 chunks of 524288 B and one of 353536 B, so
  // k = 954 and 2 + 953 = 955 steps; 954 of them move 4 full chunks and the last 4 x 353536 B:
  // 4 (954 x 524288 + 353536) = 2,002,097,152 B = 2 m + 4 c, every byte of each half through
  // a rank once up and once down, plus one step of pipeline fill.
  const CollectiveCost two = collective_cost(Op::kAllreduce, tree, 2, 1e9, kLink);
  EXPECT_EQ(two.steps, 955);
  EXPECT_EQ(two.bytes_per_rank, 2002097152.0);
  EXPECT_EQ(two.bytes_per_rank, 2e9 + 4 * kChunk);
  // N = 64 (h = 6), 1 GB: 12 + 953 = 965 steps, 4 (964 x 524288 + 353536) = 2,023,068,672 B.
  const CollectiveCost big = collective_cost(Op::kAllreduce, tree, 64, 1e9, kLink);
  EXPECT_EQ(big.steps, 965);
  EXPECT_EQ(big.bytes_per_rank, 2023068672.0);
  EXPECT_DOUBLE_EQ(big.latency_s, 965 * 2.5e-6);
  EXPECT_DOUBLE_EQ(big.bandwidth_s, 2023068672.0 / 25e9);
  // Exactly two full chunks (m = 2 MiB): 12 + 1 steps of 4 x 512 KiB.
  const CollectiveCost exact = collective_cost(Op::kAllreduce, tree, 64, 2097152, kLink);
  EXPECT_EQ(exact.steps, 13);
  EXPECT_EQ(exact.bytes_per_rank, 13.0 * 2097152);
  // Chunk size is an option: m = 1000 B in chunks of 100 B per tree: k = 5, 2h + 4 steps.
  CostOptions small;
  small.tree_chunk_bytes = 100;
  const CollectiveCost five = collective_cost(Op::kAllreduce, tree, 8, 1000, kLink, small);
  EXPECT_EQ(five.steps, 10);
  EXPECT_DOUBLE_EQ(five.bytes_per_rank, 4000.0);
  // 1050 B: k = 6 (5 chunks of 100 B and one of 25 B): 11 steps, 4 (10 x 100 + 25) B.
  const CollectiveCost six = collective_cost(Op::kAllreduce, tree, 8, 1050, kLink, small);
  EXPECT_EQ(six.steps, 11);
  EXPECT_DOUBLE_EQ(six.bytes_per_rank, 4100.0);
  EXPECT_DOUBLE_EQ(six.reduced_bytes_per_rank, 1050.0);
  // The chunk must be a positive size.
  CostOptions bad;
  bad.tree_chunk_bytes = 0;
  EXPECT_TRUE(
      contains(input_error_of([&] { collective_cost(Op::kAllreduce, tree, 8, 1, kLink, bad); }),
               "tree chunk 0 B"));
}

// Costs never fall as m grows, also where the tree's chunk count steps up (a larger call
// must never be predicted faster than a smaller one).
TEST(ClosedForms, DoubleBinaryTreeRisesAcrossChunkBoundaries) {
  const AlgorithmSpec tree = flat(Algorithm::kDoubleBinaryTree);
  for (const std::int64_t n : {2, 3, 13, 64, 1024}) {
    for (int k = 1; k <= 6; ++k) {
      const double boundary = 2.0 * kChunk * k;
      const double below = collective_cost(Op::kAllreduce, tree, n, boundary - 1, kLink).total_s;
      const double at = collective_cost(Op::kAllreduce, tree, n, boundary, kLink).total_s;
      const double above = collective_cost(Op::kAllreduce, tree, n, boundary + 1, kLink).total_s;
      EXPECT_LT(below, at) << "N=" << n << " k=" << k;
      EXPECT_LT(at, above) << "N=" << n << " k=" << k;
      // One more chunk costs one more alpha and almost nothing more.
      EXPECT_NEAR(above - at, 2.5e-6, 1e-9) << "N=" << n << " k=" << k;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Invariants of every (op, algorithm).

double busbw_factor_by_hand(Op op, std::int64_t n) {
  const auto nd = static_cast<double>(n);
  switch (op) {
    case Op::kAllreduce:
      return 2.0 * (nd - 1.0) / nd;
    case Op::kReduceScatter:
    case Op::kAllgather:
    case Op::kAlltoall:
      return (nd - 1.0) / nd;
    case Op::kBroadcast:
    case Op::kReduce:
      return 1.0;
    case Op::kBarrier:
      return 0.0;
  }
  return -1.0;
}

void expect_invariants(const CollectiveCost& c, double m, const std::string& what) {
  EXPECT_GE(c.latency_s, 0.0) << what;
  EXPECT_GE(c.bandwidth_s, 0.0) << what;
  EXPECT_GE(c.compute_s, 0.0) << what;
  EXPECT_GE(c.steps, 0) << what;
  EXPECT_EQ(c.total_s, c.latency_s + c.bandwidth_s + c.compute_s) << what;
  const double bytes = c.op == Op::kBarrier ? 0.0 : m;
  if (c.total_s > 0.0 && bytes > 0.0) {
    ASSERT_TRUE(c.algbw_Bps.has_value()) << what;
    ASSERT_TRUE(c.busbw_Bps.has_value()) << what;
    EXPECT_DOUBLE_EQ(*c.algbw_Bps, m / c.total_s) << what;
    EXPECT_DOUBLE_EQ(*c.busbw_Bps, m / c.total_s * busbw_factor_by_hand(c.op, c.ranks)) << what;
  } else {
    EXPECT_FALSE(c.algbw_Bps.has_value()) << what;
    EXPECT_FALSE(c.busbw_Bps.has_value()) << what;
  }
}

TEST(Invariants, OneRankCostsExactlyZeroForEveryAlgorithm) {
  CostOptions options;
  options.gamma_s_per_byte = 1e-3;
  for (const auto& [op, spec] : every_op_algorithm()) {
    for (const double m : {0.0, 1.0, 7.0, 1e9, 1e15}) {
      const CollectiveCost c = collective_cost(op, spec, 1, m, Link{1e-3, 1.0}, options);
      const std::string what = describe(op, spec, 1, m);
      EXPECT_EQ(c.steps, 0) << what;
      EXPECT_EQ(c.bytes_per_rank, 0.0) << what;
      EXPECT_EQ(c.reduced_bytes_per_rank, 0.0) << what;
      EXPECT_EQ(c.total_s, 0.0) << what;
      EXPECT_FALSE(std::signbit(c.total_s)) << what;
      expect_invariants(c, m, what);
    }
  }
}

TEST(Invariants, ZeroBytesCostOnlyLatency) {
  CostOptions options;
  options.gamma_s_per_byte = 1e-9;
  for (const auto& [op, spec] : every_op_algorithm()) {
    for (const std::int64_t n : kAwkwardRanks) {
      const CollectiveCost c = collective_cost(op, spec, n, 0, kLink, options);
      const std::string what = describe(op, spec, n, 0);
      EXPECT_EQ(c.bytes_per_rank, 0.0) << what;
      EXPECT_EQ(c.bandwidth_s, 0.0) << what;
      EXPECT_EQ(c.compute_s, 0.0) << what;
      EXPECT_EQ(c.total_s, c.latency_s) << what;
      if (n > 1) {
        EXPECT_GT(c.total_s, 0.0) << what;
      }
      expect_invariants(c, 0, what);
    }
  }
}

TEST(Invariants, CostsRiseWithBytes) {
  CostOptions options;
  options.gamma_s_per_byte = 1e-10;
  std::vector<double> sizes = {0, 1, 7};
  for (double m = 10; m < 1e13; m *= 5.3) sizes.push_back(m);
  for (const auto& [op, spec] : every_op_algorithm()) {
    for (const std::int64_t n : kAwkwardRanks) {
      if (n == 1) continue;  // always free
      double previous = -1.0;
      for (const double m : sizes) {
        const CollectiveCost c = collective_cost(op, spec, n, m, kLink, options);
        expect_invariants(c, m, describe(op, spec, n, m));
        if (op == Op::kBarrier) {
          EXPECT_TRUE(previous < 0.0 || c.total_s == previous) << "a barrier moves no data";
        } else {
          EXPECT_GT(c.total_s, previous) << describe(op, spec, n, m);
        }
        previous = c.total_s;
      }
    }
  }
}

TEST(Invariants, GammaChargedOnlyOnReducedBytes) {
  for (const auto& [op, spec] : every_op_algorithm()) {
    for (const std::int64_t n : {3, 8, 13}) {
      CostOptions with;
      with.gamma_s_per_byte = 3e-10;
      const CollectiveCost g = collective_cost(op, spec, n, 1e6, kLink, with);
      const CollectiveCost z = collective_cost(op, spec, n, 1e6, kLink);
      const std::string what = describe(op, spec, n, 1e6);
      EXPECT_EQ(g.latency_s, z.latency_s) << what;
      EXPECT_EQ(g.bandwidth_s, z.bandwidth_s) << what;
      EXPECT_DOUBLE_EQ(g.compute_s, g.reduced_bytes_per_rank * 3e-10) << what;
      const bool reducing = op == Op::kAllreduce || op == Op::kReduceScatter || op == Op::kReduce;
      EXPECT_EQ(g.reduced_bytes_per_rank > 0.0, reducing) << what;
    }
  }
}

TEST(Invariants, BusBandwidthFactorsOfNcclTests) {
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllreduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllgather, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAlltoall, 8), 0.875);
  EXPECT_EQ(busbw_factor(Op::kBroadcast, 8), 1.0);
  EXPECT_EQ(busbw_factor(Op::kReduce, 8), 1.0);
  EXPECT_EQ(busbw_factor(Op::kBarrier, 8), 0.0);
  EXPECT_EQ(busbw_factor(Op::kAllreduce, 1), 0.0);
  // Ring all-reduce, N = 8, 1 GB on 2.5 us / 25 GB/s: total 14 x 2.5 us + 1.75 GB / 25 GB/s
  // = 35 us + 70 ms; busbw = 1e9 / 0.070035 x 1.75 = 24.987 GB/s, just under the link.
  const CollectiveCost c = collective_cost(Op::kAllreduce, flat(Algorithm::kRing), 8, 1e9, kLink);
  ASSERT_TRUE(c.busbw_Bps.has_value());
  EXPECT_DOUBLE_EQ(*c.algbw_Bps, 1e9 / 0.070035);
  EXPECT_DOUBLE_EQ(*c.busbw_Bps, 1e9 / 0.070035 * 1.75);
  EXPECT_LT(*c.busbw_Bps, 25e9);
  // A barrier has no bandwidth to report, whatever m.
  const CollectiveCost b =
      collective_cost(Op::kBarrier, flat(Algorithm::kDissemination), 8, 1e9, kLink);
  EXPECT_FALSE(b.busbw_Bps.has_value());
  EXPECT_EQ(b.bytes, 0.0);
}

// ---------------------------------------------------------------------------------------
// Patarasuk and Yuan's lower bound, for every all-reduce algorithm.

Topology two_level(std::int64_t nodes, std::int64_t ranks_per_node, const Link& intra,
                   const Link& inter, std::int64_t nics, double oversubscription = 1.0,
                   Placement placement = Placement::kPacked) {
  Topology t;
  t.name = "test";
  t.nodes = nodes;
  t.ranks_per_node = ranks_per_node;
  t.intra = intra;
  t.inter = inter;
  t.nics_per_node = nics;
  t.oversubscription = oversubscription;
  t.placement = placement;
  return t;
}

constexpr Link kNvlink{2e-6, 450e9};  // 2 us, 450 GB/s
constexpr Link kNdr{3e-6, 50e9};      // 3 us, 400 Gb/s
constexpr Link kShm{0.5e-6, 10e9};    // 0.5 us, 10 GB/s
constexpr Link kTcp{25e-6, 12.5e9};   // 25 us, 100 Gb/s

TEST(LowerBound, EveryAllreduceAlgorithmOnAFlatLink) {
  for (const Algorithm a : kFlatAllreduceAlgorithms) {
    for (const AlgorithmSpec spec : {flat(a), hierarchical(a)}) {
      for (const std::int64_t n : kAwkwardRanks) {
        for (const double m : {0.0, 1.0, 7.0, 4097.0, 1e6 + 3, 1e9, 1e12}) {
          const double bound = allreduce_bandwidth_lower_bound_s(n, m, kLink);
          // By hand: 2 m (N-1)/N / 25 GB/s.
          expect_rel(bound, 2.0 * m * static_cast<double>(n - 1) / static_cast<double>(n) / 25e9,
                     1e-15, "bound");
          const CollectiveCost c =
              collective_cost(Op::kAllreduce, spec, m, flat_topology(n, kLink));
          const std::string what = describe(Op::kAllreduce, spec, n, m);
          EXPECT_GE(c.bandwidth_s, bound * (1.0 - 1e-12)) << what;
          const bool meets =
              a == Algorithm::kRing || (a == Algorithm::kRabenseifner && facts(n).extra == 0);
          if (meets) {
            EXPECT_NEAR(c.bandwidth_s, bound, 1e-12 * bound) << what;
          }
        }
      }
    }
  }
}

TEST(LowerBound, EveryAllreduceAlgorithmOnFabricsWithTheFastestLink) {
  const std::vector<Topology> fabrics = {
      two_level(16, 8, kNvlink, kNdr, 8),
      two_level(5, 3, kNvlink, kNdr, 1),
      two_level(8, 16, kShm, kTcp, 1),
      two_level(3, 8, kShm, kTcp, 2, 2.0, Placement::kScattered),
      two_level(4, 6, kTcp, kShm, 6),  // inter faster than intra
      two_level(13, 2, kNdr, link_from_loggp(1e-6, 1e-6, 2e-6, 20e9), 1),
  };
  for (const Topology& t : fabrics) {
    const Link fastest = t.intra.bandwidth_Bps >= t.inter.bandwidth_Bps ? t.intra : t.inter;
    for (const AlgorithmSpec& spec : applicable_algorithms(Op::kAllreduce, t)) {
      for (const double m : {1.0, 7.0, 1e6 + 3, 1e9}) {
        const double bound = allreduce_bandwidth_lower_bound_s(t.ranks(), m, fastest);
        const CollectiveCost c = collective_cost(Op::kAllreduce, spec, m, t);
        EXPECT_GE(c.bandwidth_s, bound * (1.0 - 1e-12))
            << describe(Op::kAllreduce, spec, t.ranks(), m) << " nodes=" << t.nodes;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// The topology evaluator against the flat closed forms.

void expect_same_cost(const CollectiveCost& a, const CollectiveCost& b, double rel,
                      const std::string& what) {
  EXPECT_EQ(a.steps, b.steps) << what;
  if (rel == 0.0) {
    EXPECT_EQ(a.bytes_per_rank, b.bytes_per_rank) << what;
    EXPECT_EQ(a.reduced_bytes_per_rank, b.reduced_bytes_per_rank) << what;
    EXPECT_EQ(a.latency_s, b.latency_s) << what;
    EXPECT_EQ(a.bandwidth_s, b.bandwidth_s) << what;
    EXPECT_EQ(a.compute_s, b.compute_s) << what;
    EXPECT_EQ(a.total_s, b.total_s) << what;
    EXPECT_EQ(a.busbw_Bps, b.busbw_Bps) << what;
  } else {
    // The edge-level evaluator adds step by step, the closed form multiplies once.
    expect_rel(a.bytes_per_rank, b.bytes_per_rank, rel, what + " bytes");
    expect_rel(a.reduced_bytes_per_rank, b.reduced_bytes_per_rank, rel, what + " reduced");
    expect_rel(a.latency_s, b.latency_s, rel, what + " latency");
    expect_rel(a.bandwidth_s, b.bandwidth_s, rel, what + " bandwidth");
    expect_rel(a.compute_s, b.compute_s, rel, what + " compute");
    expect_rel(a.total_s, b.total_s, rel, what + " total");
  }
}

TEST(TopologyEquivalence, FlatTopologyEqualsFlatCostExactly) {
  CostOptions options;
  options.gamma_s_per_byte = 1e-10;
  const Link loggp = link_from_loggp(2e-6, 0.5e-6, 4e-6, 20e9);
  for (const Link& link : {kLink, loggp}) {
    for (const auto& [op, spec] : every_op_algorithm()) {
      for (const std::int64_t n : kAwkwardRanks) {
        for (const double m : kAwkwardBytes) {
          const CollectiveCost a = collective_cost(op, spec, n, m, link, options);
          const CollectiveCost b = collective_cost(op, spec, m, flat_topology(n, link), options);
          expect_same_cost(a, b, 0.0, describe(op, spec, n, m));
        }
      }
    }
  }
}

// On a flat topology, hierarchical-<alg> has one rank per node: it is <alg> across the nodes.
// On a single node it is the intra-node ring.
TEST(TopologyEquivalence, HierarchicalDegeneratesToItsParts) {
  for (const Algorithm inter : kFlatAllreduceAlgorithms) {
    for (const std::int64_t n : kAwkwardRanks) {
      for (const double m : kAwkwardBytes) {
        const CollectiveCost h = collective_cost(Op::kAllreduce, hierarchical(inter), n, m, kLink);
        const CollectiveCost f = collective_cost(Op::kAllreduce, flat(inter), n, m, kLink);
        expect_same_cost(h, f, 0.0, describe(Op::kAllreduce, hierarchical(inter), n, m));
        Topology one_node = two_level(1, n, kShm, kTcp, 1);
        const CollectiveCost h1 = collective_cost(Op::kAllreduce, hierarchical(inter), m, one_node);
        const CollectiveCost ring =
            collective_cost(Op::kAllreduce, flat(Algorithm::kRing), n, m, kShm);
        expect_same_cost(h1, ring, 0.0,
                         "one node " + describe(Op::kAllreduce, hierarchical(inter), n, m));
      }
    }
  }
}

// A two-level topology whose two links are the same, with a NIC for every rank and no
// oversubscription, is flat: the edge-level evaluator must give the closed form, whatever the
// placement.
TEST(TopologyEquivalence, IdenticalLinksOnTwoLevelsEqualFlat) {
  CostOptions options;
  options.gamma_s_per_byte = 1e-10;
  const Link loggp = link_from_loggp(2e-6, 0.5e-6, 4e-6, 20e9);
  std::mt19937_64 rng(20260511);
  struct Shape2 {
    std::int64_t nodes;
    std::int64_t per_node;
  };
  for (const Link& link : {kLink, loggp}) {
    for (const Shape2 s : {Shape2{2, 2}, Shape2{3, 4}, Shape2{5, 3}, Shape2{4, 6}, Shape2{8, 8},
                           Shape2{2, 32}, Shape2{13, 2}}) {
      for (const Placement placement :
           {Placement::kPacked, Placement::kScattered, Placement::kExplicit}) {
        Topology t =
            two_level(s.nodes, s.per_node, link, link, s.per_node + (s.nodes % 2), 1.0, placement);
        if (placement == Placement::kExplicit) {
          for (std::int64_t node = 0; node < s.nodes; ++node) {
            for (std::int64_t i = 0; i < s.per_node; ++i) t.rank_to_node.push_back(node);
          }
          std::shuffle(t.rank_to_node.begin(), t.rank_to_node.end(), rng);
        }
        const std::int64_t n = t.ranks();
        for (const OpAlgorithm& oa : kFlatTable) {
          for (const double m : {0.0, 1.0, 7.0, 1e9}) {
            const CollectiveCost a =
                collective_cost(oa.op, flat(oa.algorithm), n, m, link, options);
            const CollectiveCost b = collective_cost(oa.op, flat(oa.algorithm), m, t, options);
            expect_same_cost(a, b, 1e-12,
                             describe(oa.op, flat(oa.algorithm), n, m) + " " +
                                 std::string(placement_name(placement)));
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Topology rules, hand-computed.

// Ring all-reduce over 4 nodes x 8 ranks, NVLink inside (2 us, 450 GB/s), NDR across
// (3 us, 50 GB/s); m = 1 GB, so each of the 62 steps moves m/32 = 31.25 MB.
//   intra step  2 us + 31.25 MB / 450 GB/s = 2 us + 69.4 us
//   inter step  3 us + 31.25 MB / 50 GB/s  = 3 us + 625 us   (paces every step)
TEST(TopologyRules, RingIsPacedByItsSlowestEdge) {
  const double m = 1e9;
  const AlgorithmSpec ring = flat(Algorithm::kRing);
  // Packed: one ring edge leaves each node, so one stream per NIC.
  for (const std::int64_t nics : {1, 8}) {
    const CollectiveCost c =
        collective_cost(Op::kAllreduce, ring, m, two_level(4, 8, kNvlink, kNdr, nics));
    EXPECT_EQ(c.steps, 62);
    EXPECT_DOUBLE_EQ(c.latency_s, 62 * 3e-6) << "nics=" << nics;
    EXPECT_DOUBLE_EQ(c.bandwidth_s, 62 * 625e-6) << "nics=" << nics;
    EXPECT_DOUBLE_EQ(c.bytes_per_rank, 2e9 * 31 / 32);
  }
  // The same ring inside one node would take 62 x (2 + 69.4) us: the fabric is what costs.
  const CollectiveCost inside = collective_cost(Op::kAllreduce, ring, 32, m, kNvlink);
  EXPECT_DOUBLE_EQ(inside.total_s, 62 * (2e-6 + 31.25e6 / 450e9));
  // Zero bytes: each step still waits for the slower alpha, 3 us.
  EXPECT_DOUBLE_EQ(
      collective_cost(Op::kAllreduce, ring, 0, two_level(4, 8, kNvlink, kNdr, 8)).total_s,
      62 * 3e-6);
}

TEST(TopologyRules, ScatteredRingSharesTheNic) {
  const double m = 1e9;
  const AlgorithmSpec ring = flat(Algorithm::kRing);
  // Scattered: every ring edge crosses nodes, so all 8 ranks of a node send across at once.
  // One NIC: each stream gets 50/8 = 6.25 GB/s, 31.25 MB takes 5 ms.
  const CollectiveCost one = collective_cost(
      Op::kAllreduce, ring, m, two_level(4, 8, kNvlink, kNdr, 1, 1.0, Placement::kScattered));
  EXPECT_DOUBLE_EQ(one.latency_s, 62 * 3e-6);
  EXPECT_DOUBLE_EQ(one.bandwidth_s, 62 * 5e-3);
  // Two NICs: 12.5 GB/s per stream, 2.5 ms.
  const CollectiveCost two = collective_cost(
      Op::kAllreduce, ring, m, two_level(4, 8, kNvlink, kNdr, 2, 1.0, Placement::kScattered));
  EXPECT_DOUBLE_EQ(two.bandwidth_s, 62 * 2.5e-3);
  // A NIC per rank: no sharing, the packed cost.
  const CollectiveCost eight = collective_cost(
      Op::kAllreduce, ring, m, two_level(4, 8, kNvlink, kNdr, 8, 1.0, Placement::kScattered));
  EXPECT_DOUBLE_EQ(eight.total_s, 62 * (3e-6 + 625e-6));
}

TEST(TopologyRules, OversubscriptionDividesTheInterNodeBandwidth) {
  const AlgorithmSpec ring = flat(Algorithm::kRing);
  // 2:1 halves 50 GB/s: 31.25 MB per step takes 1.25 ms.
  const CollectiveCost c =
      collective_cost(Op::kAllreduce, ring, 1e9, two_level(4, 8, kNvlink, kNdr, 8, 2.0));
  EXPECT_DOUBLE_EQ(c.latency_s, 62 * 3e-6);
  EXPECT_DOUBLE_EQ(c.bandwidth_s, 62 * 1.25e-3);
  // And on one rank per node (the uniform path) too: pairwise all-to-all over 4 nodes, 1 MB:
  // 3 steps of 250 kB at 25 GB/s.
  const CollectiveCost a2a = collective_cost(Op::kAlltoall, flat(Algorithm::kPairwise), 1e6,
                                             two_level(4, 1, kNvlink, kNdr, 1, 2.0));
  EXPECT_DOUBLE_EQ(a2a.total_s, 3 * (3e-6 + 250e3 / 25e9));
}

// 16 nodes x 8 ranks with a 400 Gb/s NIC per rank (a DGX H100 cluster), m = 1 GB.
//   flat ring: 254 steps paced by the inter edge, 3 us + 7.8125 MB / 50 GB/s = 3 + 156.25 us
//   hierarchical-ring: intra ring over 8 ranks (14 steps, 2 m 7/8 = 1.75 GB at 450 GB/s), then
//   a ring over the 16 nodes on m/8 = 125 MB (30 steps, 2 x 125 MB x 15/16 = 234.375 MB at
//   50 GB/s: the 8 local groups use the 8 NICs at once, one each).
TEST(TopologyRules, HierarchicalBeatsTheFlatRingOnAMultiNicFabric) {
  const Topology dgx = two_level(16, 8, kNvlink, kNdr, 8);
  const double m = 1e9;
  const CollectiveCost ring = collective_cost(Op::kAllreduce, flat(Algorithm::kRing), m, dgx);
  EXPECT_DOUBLE_EQ(ring.total_s, 254 * (3e-6 + 156.25e-6));
  const CollectiveCost hier =
      collective_cost(Op::kAllreduce, hierarchical(Algorithm::kRing), m, dgx);
  EXPECT_EQ(hier.steps, 14 + 30);
  EXPECT_DOUBLE_EQ(hier.latency_s, 14 * 2e-6 + 30 * 3e-6);
  EXPECT_DOUBLE_EQ(hier.bandwidth_s, 1.75e9 / 450e9 + 234.375e6 / 50e9);
  EXPECT_DOUBLE_EQ(hier.bytes_per_rank, 1.75e9 + 234.375e6);
  EXPECT_DOUBLE_EQ(hier.reduced_bytes_per_rank, 0.875e9 + 125e6 * 15 / 16);
  EXPECT_LT(hier.total_s, ring.total_s / 4);
  for (const double big : {1e7, 1e8, 1e9, 1e10}) {
    EXPECT_LT(collective_cost(Op::kAllreduce, hierarchical(Algorithm::kRing), big, dgx).total_s,
              collective_cost(Op::kAllreduce, flat(Algorithm::kRing), big, dgx).total_s)
        << big;
  }
  // Flat Rabenseifner is hierarchical by construction on a packed fabric: its first three
  // halving steps (partners 1, 2, 4 apart) stay inside the node and move m/2 + m/4 + m/8; the
  // last four (8..64 apart) cross, every rank at once through its own NIC, and move
  // m (1/16 + ... + 1/128) = 15 m / 128, the same inter-node bytes as hierarchical-ring in 8
  // steps instead of 30. Mirrored by the all-gather: 2 (3 x 2 us + 4 x 3 us) = 36 us.
  const CollectiveCost rab =
      collective_cost(Op::kAllreduce, flat(Algorithm::kRabenseifner), m, dgx);
  EXPECT_DOUBLE_EQ(rab.latency_s, 36e-6);
  EXPECT_DOUBLE_EQ(rab.bandwidth_s, 2 * (0.875e9 / 450e9 + 1e9 * 15 / 128 / 50e9));
  EXPECT_NEAR(rab.bandwidth_s, hier.bandwidth_s, 1e-12);
  const auto specs = applicable_algorithms(Op::kAllreduce, dgx);
  EXPECT_EQ(algorithm_name(rank_algorithms(Op::kAllreduce, specs, m, dgx).front().algorithm),
            "rabenseifner");
}

// Only m/g per rank crosses nodes. 5 nodes x 4 ranks, 2 NICs per node (intra 1 us, 100 GB/s;
// inter 5 us, 10 GB/s), hierarchical-recursive-doubling, m = 1 GB:
//   intra ring over 4: 6 steps, 1.5 GB (reduced 0.75 GB) at 100 GB/s
//   across 5 nodes (p = 4, fold): 4 steps of the m/4 = 250 MB share = 1 GB (reduced 750 MB);
//   4 streams share 2 NICs, so 5 GB/s each.
TEST(TopologyRules, HierarchicalMovesOneGthAcrossNodes) {
  const Link intra{1e-6, 100e9};
  const Link inter{5e-6, 10e9};
  const Topology t = two_level(5, 4, intra, inter, 2);
  const CollectiveCost c =
      collective_cost(Op::kAllreduce, hierarchical(Algorithm::kRecursiveDoubling), 1e9, t);
  EXPECT_EQ(c.steps, 10);
  EXPECT_DOUBLE_EQ(c.bytes_per_rank, 2.5e9);
  EXPECT_DOUBLE_EQ(c.reduced_bytes_per_rank, 1.5e9);
  EXPECT_DOUBLE_EQ(c.latency_s, 6e-6 + 4 * 5e-6);
  EXPECT_DOUBLE_EQ(c.bandwidth_s, 1.5e9 / 100e9 + 1e9 / 5e9);
  // Placement does not matter to it.
  Topology scattered = t;
  scattered.placement = Placement::kScattered;
  EXPECT_EQ(
      collective_cost(Op::kAllreduce, hierarchical(Algorithm::kRecursiveDoubling), 1e9, scattered)
          .total_s,
      c.total_s);
  // With one NIC, the four groups share it: the ring across 5 nodes moves 2 x 250 MB x 4/5
  // = 400 MB per rank at 10/4 = 2.5 GB/s.
  const CollectiveCost one = collective_cost(Op::kAllreduce, hierarchical(Algorithm::kRing), 1e9,
                                             two_level(5, 4, intra, inter, 1));
  EXPECT_DOUBLE_EQ(one.bandwidth_s, 1.5e9 / 100e9 + 400e6 / 2.5e9);
  EXPECT_DOUBLE_EQ(one.latency_s, 6e-6 + 8 * 5e-6);
}

// LogGP: 8 nodes x 16 ranks, one NIC, 2:1 oversubscribed; inter L = 15 us, o = 5 us, g = 8 us,
// 100 Gb/s (alpha = L + 2o = 25 us); intra 0.5 us, 10 GB/s. m = 128 MB, 1 MB per ring step.
TEST(TopologyRules, LogGpGapIsPaidByTheNthMessageThroughOneNic) {
  const Link inter = link_from_loggp(15e-6, 5e-6, 8e-6, 12.5e9);
  EXPECT_DOUBLE_EQ(inter.alpha_s, 25e-6);
  const AlgorithmSpec ring = flat(Algorithm::kRing);
  // Scattered: all 16 ranks of a node cross at once through one NIC. The 16th message waits
  // 15 gaps: alpha = 25 + 15 x 8 = 145 us; bandwidth 12.5 GB/s / 16 / 2 = 390.625 MB/s.
  const Topology scattered = two_level(8, 16, kShm, inter, 1, 2.0, Placement::kScattered);
  const CollectiveCost s = collective_cost(Op::kAllreduce, ring, 128e6, scattered);
  EXPECT_EQ(s.steps, 254);
  EXPECT_DOUBLE_EQ(s.latency_s, 254 * 145e-6);
  EXPECT_DOUBLE_EQ(s.bandwidth_s, 254 * (1e6 / 390.625e6));
  EXPECT_DOUBLE_EQ(collective_cost(Op::kAllreduce, ring, 0, scattered).total_s, 254 * 145e-6);
  // Packed: one stream per NIC, no gap: 25 us + 1 MB / 6.25 GB/s = 25 + 160 us, slower than
  // the intra step (0.5 + 100 us).
  const Topology packed = two_level(8, 16, kShm, inter, 1, 2.0);
  const CollectiveCost p = collective_cost(Op::kAllreduce, ring, 128e6, packed);
  EXPECT_DOUBLE_EQ(p.latency_s, 254 * 25e-6);
  EXPECT_DOUBLE_EQ(p.bandwidth_s, 254 * 160e-6);
  // Hierarchical: the 16 groups cross together, each inter step pays 145 us; the intra ring
  // over 16 ranks pays 0.5 us per step: 30 x 0.5 + 14 x 145 us at m = 0.
  EXPECT_DOUBLE_EQ(
      collective_cost(Op::kAllreduce, hierarchical(Algorithm::kRing), 0, packed).latency_s,
      30 * 0.5e-6 + 14 * 145e-6);
  // Two NICs for 4 ranks: ceil(4/2) - 1 = 1 gap per inter step. 5 x 4 hierarchical recursive
  // doubling at m = 0: 6 intra steps of 1 us, 4 inter steps of 5 + 4 us.
  const Link gapped = link_from_loggp(3e-6, 1e-6, 4e-6, 10e9);
  const CollectiveCost two =
      collective_cost(Op::kAllreduce, hierarchical(Algorithm::kRecursiveDoubling), 0,
                      two_level(5, 4, Link{1e-6, 100e9}, gapped, 2));
  EXPECT_DOUBLE_EQ(two.latency_s, 6e-6 + 4 * 9e-6);
  // An alpha-beta link has no gap: the same fabric without g pays 5 us per inter step.
  EXPECT_DOUBLE_EQ(collective_cost(Op::kAllreduce, hierarchical(Algorithm::kRecursiveDoubling), 0,
                                   two_level(5, 4, Link{1e-6, 100e9}, Link{5e-6, 10e9}, 2))
                       .latency_s,
                   6e-6 + 4 * 5e-6);
}

TEST(TopologyRules, ExplicitPackedPlacementCostsTheSameAsPacked) {
  for (const Topology& packed :
       {two_level(4, 8, kNvlink, kNdr, 8), two_level(3, 5, kShm, kTcp, 1, 2.0),
        two_level(8, 16, kShm, link_from_loggp(15e-6, 5e-6, 8e-6, 12.5e9), 1, 2.0)}) {
    Topology listed = packed;
    listed.placement = Placement::kExplicit;
    for (std::int64_t r = 0; r < packed.ranks(); ++r) {
      listed.rank_to_node.push_back(r / packed.ranks_per_node);
    }
    for (const AlgorithmSpec& spec : applicable_algorithms(Op::kAllreduce, packed)) {
      for (const double m : {0.0, 7.0, 1e9}) {
        expect_same_cost(collective_cost(Op::kAllreduce, spec, m, listed),
                         collective_cost(Op::kAllreduce, spec, m, packed), 0.0,
                         describe(Op::kAllreduce, spec, packed.ranks(), m));
      }
    }
    for (const OpAlgorithm& oa : kFlatTable) {
      expect_same_cost(collective_cost(oa.op, flat(oa.algorithm), 1e6 + 3, listed),
                       collective_cost(oa.op, flat(oa.algorithm), 1e6 + 3, packed), 0.0,
                       describe(oa.op, flat(oa.algorithm), packed.ranks(), 1e6 + 3));
    }
  }
}

TEST(TopologyRules, InvariantsHoldOnFabrics) {
  CostOptions options;
  options.gamma_s_per_byte = 1e-10;
  for (const Topology& t :
       {two_level(4, 8, kNvlink, kNdr, 8),
        two_level(3, 5, kShm, kTcp, 1, 2.0, Placement::kScattered),
        two_level(8, 16, kShm, link_from_loggp(15e-6, 5e-6, 8e-6, 12.5e9), 1, 2.0)}) {
    for (const Op op : kAllOps) {
      for (const AlgorithmSpec& spec : applicable_algorithms(op, t)) {
        double previous = -1.0;
        for (const double m : {0.0, 1.0, 7.0, 4097.0, 1e6 + 3, 1048577.0, 1e9}) {
          const CollectiveCost c = collective_cost(op, spec, m, t, options);
          const std::string what = describe(op, spec, t.ranks(), m);
          expect_invariants(c, m, what);
          EXPECT_GT(c.total_s, 0.0) << what;
          if (op != Op::kBarrier) {
            EXPECT_GT(c.total_s, previous) << what;
          }
          previous = c.total_s;
        }
        // One rank of the same fabric costs nothing.
        const CollectiveCost one = collective_cost(op, spec, 1e9, scaled_topology(t, 1), options);
        EXPECT_EQ(one.total_s, 0.0) << describe(op, spec, 1, 1e9);
        EXPECT_EQ(one.steps, 0);
      }
    }
  }
}

// A packed topology of 16,384 ranks costs pairwise all-to-all in closed form (the edge-level
// evaluation would visit N (N - 1) edges); so does a flat link.
TEST(TopologyRules, LargePackedTopologyNeedsNoEdgeVisits) {
  const Topology huge = two_level(2048, 8, kNvlink, kNdr, 1);
  EXPECT_NO_THROW(collective_cost(Op::kAlltoall, flat(Algorithm::kPairwise), 1e6, huge));
  EXPECT_NO_THROW(collective_cost(Op::kAlltoall, flat(Algorithm::kBruck), 1e6, huge));
  EXPECT_NO_THROW(
      collective_cost(Op::kAlltoall, flat(Algorithm::kPairwise), 1e6, flat_topology(16384, kLink)));
  // The edge-level reference still refuses it.
  EXPECT_TRUE(contains(input_error_of([&] {
                         detail::collective_cost_by_edges(Op::kAlltoall,
                                                          flat(Algorithm::kPairwise), 1e6, huge);
                       }),
                       "16384 ranks"));
}

// ---------------------------------------------------------------------------------------
// Tie points.

TEST(TieBytes, MatchesTheAffineTieOnAFlatLink) {
  const Algorithm affine[] = {Algorithm::kRing, Algorithm::kRecursiveDoubling,
                              Algorithm::kRabenseifner, Algorithm::kBinomialTree};
  int compared = 0;
  for (const double gamma : {0.0, 1e-10}) {
    CostOptions options;
    options.gamma_s_per_byte = gamma;
    for (const std::int64_t n : kAwkwardRanks) {
      const Topology t = flat_topology(n, kLink);
      for (const Algorithm a : affine) {
        for (const Algorithm b : affine) {
          const auto exact = allreduce_tie_bytes(a, b, n, kLink, gamma);
          const auto scanned = tie_bytes(Op::kAllreduce, flat(a), flat(b), t, options);
          const std::string what = algorithm_name(a) + " vs " + algorithm_name(b) +
                                   " N=" + std::to_string(n) + " gamma=" + std::to_string(gamma);
          if (exact && *exact >= 1.0 && *exact <= 1e15) {
            ASSERT_TRUE(scanned.has_value()) << what;
            EXPECT_NEAR(*scanned, *exact, 1e-9 * *exact) << what;
            const double ca =
                collective_cost(Op::kAllreduce, flat(a), *scanned, t, options).total_s;
            const double cb =
                collective_cost(Op::kAllreduce, flat(b), *scanned, t, options).total_s;
            EXPECT_NEAR(ca, cb, 1e-9 * ca) << what;
            ++compared;
          } else {
            EXPECT_FALSE(scanned.has_value()) << what << " at " << scanned.value_or(0);
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 20);
  // By hand: Rabenseifner against recursive doubling at N = 5 (p = 4): 6 alpha + 3.5 m beta
  // against 4 alpha + 4 m beta, tie at 2 alpha / (0.5 beta) = 250 kB.
  const auto tie = tie_bytes(Op::kAllreduce, flat(Algorithm::kRabenseifner),
                             flat(Algorithm::kRecursiveDoubling), flat_topology(5, kLink));
  ASSERT_TRUE(tie.has_value());
  EXPECT_NEAR(*tie, 250e3, 250e3 * 1e-9);
}

TEST(TieBytes, EmptyForIdenticalAlgorithms) {
  const Topology dgx = two_level(4, 8, kNvlink, kNdr, 8);
  for (const auto& [op, spec] : every_op_algorithm()) {
    EXPECT_FALSE(tie_bytes(op, spec, spec, dgx)) << describe(op, spec, 32, 0);
    EXPECT_FALSE(tie_bytes(op, spec, spec, flat_topology(13, kLink))) << describe(op, spec, 13, 0);
  }
}

// On the TCP cluster (8 x 16 ranks, one 100 Gb/s NIC, shared memory inside), the hierarchical
// ring needs fewer slow steps (14 at 25 us, against the flat ring's 254) but its inter-node
// share is slower per byte (the 16 groups share one NIC): it wins small, the ring wins large.
TEST(TieBytes, OnATopologyCostsAreEqualThereAndFlipAcross) {
  const Topology tcp = two_level(8, 16, kShm, kTcp, 1);
  const AlgorithmSpec ring = flat(Algorithm::kRing);
  const AlgorithmSpec hier = hierarchical(Algorithm::kRing);
  const auto tie = tie_bytes(Op::kAllreduce, ring, hier, tcp);
  ASSERT_TRUE(tie.has_value());
  const double r = collective_cost(Op::kAllreduce, ring, *tie, tcp).total_s;
  const double h = collective_cost(Op::kAllreduce, hier, *tie, tcp).total_s;
  EXPECT_NEAR(r, h, 1e-9 * r);
  EXPECT_LT(collective_cost(Op::kAllreduce, hier, *tie * 0.99, tcp).total_s,
            collective_cost(Op::kAllreduce, ring, *tie * 0.99, tcp).total_s);
  EXPECT_GT(collective_cost(Op::kAllreduce, hier, *tie * 1.01, tcp).total_s,
            collective_cost(Op::kAllreduce, ring, *tie * 1.01, tcp).total_s);
  // By hand. The ring moves s = m/128 per step; its inter edge (25 us + s / 12.5 GB/s, one
  // stream per NIC) is the slower one while 24.5 us > s (1/10 - 1/12.5) ns/B, s < 1.225 MB:
  //   ring = 254 (25 us + (m/128) / 12.5 GB/s)
  //   hier = 30 (0.5 us + (m/16) / 10 GB/s) + 14 (25 us + (m/128) / (12.5 GB/s / 16))
  //        = 365 us + m (1.875e-10 + 1.4e-10) s/B
  //   tie:  (6350 - 365) us = m (3.275e-10 - 1.5875e-10) s/B,  m = 35,466,667 B
  const double ring_slope = 254.0 / 128.0 / 12.5e9;
  const double hier_slope = 30.0 / 16.0 / 10e9 + 14.0 / 128.0 / (12.5e9 / 16.0);
  const double expected = (254 * 25e-6 - (30 * 0.5e-6 + 14 * 25e-6)) / (hier_slope - ring_slope);
  EXPECT_NEAR(expected, 5.985e-3 / 1.6875e-10, 1e-9 * expected);
  ASSERT_LT(expected / 128.0, 1.225e6);  // inside the inter-paced range
  EXPECT_NEAR(*tie, expected, 1e-9 * expected);
}

// ---------------------------------------------------------------------------------------
// Names, applicability, parsing.

TEST(Names, EveryOpRoundTrips) {
  const char* names[] = {"allreduce", "reduce-scatter", "all-gather", "broadcast",
                         "reduce",    "all-to-all",     "barrier"};
  int i = 0;
  for (const Op op : kAllOps) {
    EXPECT_EQ(op_name(op), names[i++]);
    EXPECT_EQ(parse_op(op_name(op)), op);
  }
  EXPECT_EQ(parse_op("allgather"), Op::kAllgather);
  EXPECT_EQ(parse_op("alltoall"), Op::kAlltoall);
  EXPECT_EQ(parse_op("reducescatter"), Op::kReduceScatter);
  EXPECT_EQ(parse_op("bcast"), Op::kBroadcast);
  for (const char* bad : {"all_reduce", "", "Allreduce", "scan"}) {
    const std::string message = input_error_of([&] { parse_op(bad); });
    EXPECT_TRUE(contains(message, std::string("'") + bad + "'")) << message;
    EXPECT_TRUE(contains(message, "allreduce, reduce-scatter, all-gather")) << message;
  }
}

TEST(Names, EveryAlgorithmRoundTripsAndImplementsItsOps) {
  const Topology t = two_level(2, 2, kNvlink, kNdr, 1);
  const std::vector<std::vector<std::string>> expected = {
      {"ring", "recursive-doubling", "rabenseifner", "binomial-tree", "double-binary-tree",
       "hierarchical-ring", "hierarchical-recursive-doubling", "hierarchical-rabenseifner",
       "hierarchical-binomial-tree", "hierarchical-double-binary-tree"},
      {"ring", "recursive-halving"},
      {"ring", "recursive-doubling", "bruck"},
      {"binomial-tree", "scatter-allgather"},
      {"binomial-tree", "rabenseifner"},
      {"pairwise", "bruck"},
      {"dissemination"},
  };
  std::size_t i = 0;
  for (const Op op : kAllOps) {
    std::vector<std::string> names;
    for (const AlgorithmSpec& spec : applicable_algorithms(op, t)) {
      names.push_back(algorithm_name(spec));
      EXPECT_TRUE(implements(op, spec)) << algorithm_name(spec);
      EXPECT_EQ(parse_algorithm(algorithm_name(spec)), spec) << algorithm_name(spec);
    }
    EXPECT_EQ(names, expected[i++]) << op_name(op);
  }
  // The flat table and applicable_algorithms agree, and nothing else implements an op.
  const Algorithm all[] = {Algorithm::kRing,
                           Algorithm::kRecursiveDoubling,
                           Algorithm::kRecursiveHalving,
                           Algorithm::kRabenseifner,
                           Algorithm::kBinomialTree,
                           Algorithm::kDoubleBinaryTree,
                           Algorithm::kScatterAllgather,
                           Algorithm::kPairwise,
                           Algorithm::kBruck,
                           Algorithm::kDissemination};
  for (const Op op : kAllOps) {
    for (const Algorithm a : all) {
      const bool listed =
          std::any_of(std::begin(kFlatTable), std::end(kFlatTable),
                      [&](const OpAlgorithm& oa) { return oa.op == op && oa.algorithm == a; });
      EXPECT_EQ(implements(op, flat(a)), listed) << op_name(op) << " " << algorithm_name(a);
      if (!listed) {
        const std::string message =
            input_error_of([&] { collective_cost(op, flat(a), 8, 1, kLink); });
        EXPECT_TRUE(contains(message, fmt::format("'{}' does not implement {}",
                                                  algorithm_name(a), op_name(op))))
            << message;
      }
    }
    // Hierarchical is an all-reduce whose inter-node part is a flat all-reduce.
    for (const Algorithm inter : all) {
      const bool flat_allreduce =
          std::find(std::begin(kFlatAllreduceAlgorithms), std::end(kFlatAllreduceAlgorithms),
                    inter) != std::end(kFlatAllreduceAlgorithms);
      EXPECT_EQ(implements(op, hierarchical(inter)), op == Op::kAllreduce && flat_allreduce)
          << op_name(op) << " hierarchical-" << algorithm_name(inter);
    }
    EXPECT_FALSE(implements(op, hierarchical(Algorithm::kHierarchical)));
  }
  // The inter-node algorithm only matters for hierarchical specs.
  EXPECT_EQ((AlgorithmSpec{Algorithm::kRing, Algorithm::kBruck}), flat(Algorithm::kRing));
  EXPECT_FALSE(hierarchical(Algorithm::kRing) == hierarchical(Algorithm::kBinomialTree));
  for (const char* bad : {"hierarchical", "hierarchical-pairwise", "Ring", "tree", ""}) {
    const std::string message = input_error_of([&] { parse_algorithm(bad); });
    EXPECT_TRUE(contains(message, std::string("'") + bad + "'")) << message;
    EXPECT_TRUE(contains(message, "hierarchical-double-binary-tree")) << message;
  }
}

// The catalogue is the header table, row by row, then hierarchical; every list of
// algorithms is derived from it.
TEST(Catalogue, HoldsTheHeaderTableOnce) {
  // The flat table, hierarchical, then the one named variant.
  ASSERT_EQ(std::size(kCatalogue), std::size(kFlatTable) + 2);
  for (std::size_t i = 0; i < std::size(kFlatTable); ++i) {
    EXPECT_EQ(kCatalogue[i].op, kFlatTable[i].op) << i;
    EXPECT_EQ(kCatalogue[i].algorithm, kFlatTable[i].algorithm) << i;
    EXPECT_FALSE(kCatalogue[i].variant) << i;
  }
  const CatalogueEntry& hier = kCatalogue[std::size(kFlatTable)];
  EXPECT_EQ(hier.op, Op::kAllreduce);
  EXPECT_EQ(hier.algorithm, Algorithm::kHierarchical);
  EXPECT_EQ(hier.name, "hierarchical");
  const CatalogueEntry& variant = kCatalogue[std::size(kCatalogue) - 1];
  EXPECT_EQ(variant.algorithm, Algorithm::kRabenseifnerLinear);
  EXPECT_TRUE(variant.variant);
  for (const CatalogueEntry& e : kCatalogue) {
    const std::string what = std::string(op_name(e.op)) + " " + std::string(e.name);
    EXPECT_EQ(algorithm_name(e.algorithm), e.name) << what;
    EXPECT_EQ(catalogue_entry(e.op, e.algorithm), &e) << what;
    EXPECT_TRUE(contains(std::string(e.help), "steps") || e.algorithm == Algorithm::kHierarchical)
        << what << ": " << e.help;
    // Only the pipelined tree and the two-level composition have no flat schedule.
    EXPECT_EQ(e.schedule == nullptr, e.algorithm == Algorithm::kDoubleBinaryTree ||
                                         e.algorithm == Algorithm::kHierarchical)
        << what;
  }
  EXPECT_EQ(catalogue_entry(Op::kBarrier, Algorithm::kRing), nullptr);
  EXPECT_EQ(catalogue_entry(Op::kReduceScatter, Algorithm::kHierarchical), nullptr);
  EXPECT_EQ(catalogue_entry(Op::kAlltoall, Algorithm::kBruck)->help,
            "ceil(log2 N) steps, about (m/2) ceil(log2 N) bytes per rank");
}

TEST(Catalogue, EveryAlgorithmOnceInOrderOfFirstAppearance) {
  const std::vector<std::string> expected = {
      "ring",      "recursive-doubling", "rabenseifner",  "binomial-tree",
      "double-binary-tree", "recursive-halving", "bruck", "scatter-allgather",
      "pairwise",  "dissemination",      "hierarchical", "rabenseifner-linear"};
  std::vector<std::string> names;
  for (const Algorithm a : kAllAlgorithms) names.push_back(algorithm_name(a));
  EXPECT_EQ(names, expected);
  // Every value of the enum, kRing .. kRabenseifnerLinear, is there.
  for (int v = static_cast<int>(Algorithm::kRing);
       v <= static_cast<int>(Algorithm::kRabenseifnerLinear);
       ++v) {
    EXPECT_EQ(std::count(kAllAlgorithms.begin(), kAllAlgorithms.end(), static_cast<Algorithm>(v)),
              1)
        << v;
  }
}

TEST(Names, OpNames) {
  EXPECT_EQ(op_names(),
            "allreduce, reduce-scatter, all-gather, broadcast, reduce, all-to-all, barrier");
  EXPECT_TRUE(contains(input_error_of([] { parse_op("gather"); }), "(known: " + op_names() + ")"));
}

TEST(Catalogue, AlgorithmsOfAnOp) {
  std::vector<std::string> allreduce;
  for (const AlgorithmSpec& s : algorithms_of(Op::kAllreduce)) {
    allreduce.push_back(algorithm_name(s));
    EXPECT_TRUE(implements(Op::kAllreduce, s));
  }
  EXPECT_EQ(allreduce, (std::vector<std::string>{
                           "ring", "recursive-doubling", "rabenseifner", "binomial-tree",
                           "double-binary-tree", "rabenseifner-linear", "hierarchical-ring",
                           "hierarchical-recursive-doubling", "hierarchical-rabenseifner",
                           "hierarchical-binomial-tree", "hierarchical-double-binary-tree"}));
  const auto reduce = algorithms_of(Op::kReduce);
  ASSERT_EQ(reduce.size(), 2u);
  EXPECT_EQ(reduce[0], flat(Algorithm::kBinomialTree));
  EXPECT_EQ(reduce[1], flat(Algorithm::kRabenseifner));
  // On a fabric of several nodes of several ranks, applicable_algorithms is algorithms_of
  // without the named variants.
  const Topology t = two_level(2, 2, kNvlink, kNdr, 1);
  for (const Op op : kAllOps) {
    std::vector<AlgorithmSpec> candidates = algorithms_of(op);
    std::erase(candidates, flat(Algorithm::kRabenseifnerLinear));
    EXPECT_EQ(applicable_algorithms(op, t), candidates);
  }
}

TEST(Names, HierarchicalOnlyWhereThereAreTwoLevels) {
  const auto count_hierarchical = [](const Topology& t) {
    const auto specs = applicable_algorithms(Op::kAllreduce, t);
    return std::count_if(specs.begin(), specs.end(), [](const AlgorithmSpec& s) {
      return s.algorithm == Algorithm::kHierarchical;
    });
  };
  EXPECT_EQ(count_hierarchical(flat_topology(64, kLink)), 0);
  EXPECT_EQ(count_hierarchical(two_level(1, 8, kNvlink, kNdr, 1)), 0);
  EXPECT_EQ(count_hierarchical(two_level(8, 1, kNvlink, kNdr, 1)), 0);
  EXPECT_EQ(count_hierarchical(two_level(2, 2, kNvlink, kNdr, 1)), 5);
  for (const Op op : kAllOps) {
    if (op == Op::kAllreduce) continue;
    EXPECT_EQ(applicable_algorithms(op, two_level(4, 8, kNvlink, kNdr, 8)).size(),
              applicable_algorithms(op, flat_topology(32, kLink)).size());
  }
}

TEST(CollectiveErrors, TopologyAndOptionsAreValidated) {
  const AlgorithmSpec ring = flat(Algorithm::kRing);
  Topology bad = two_level(4, 8, kNvlink, kNdr, 0);
  EXPECT_TRUE(contains(input_error_of([&] { collective_cost(Op::kAllreduce, ring, 1, bad); }),
                       "NICs per node 0"));
  bad = two_level(4, 8, kNvlink, Link{3e-6, 0.0}, 1);
  EXPECT_TRUE(contains(input_error_of([&] { collective_cost(Op::kAllreduce, ring, 1, bad); }),
                       "inter-node link"));
  const Topology good = two_level(4, 8, kNvlink, kNdr, 1);
  EXPECT_TRUE(
      contains(input_error_of([&] { collective_cost(Op::kAllreduce, ring, -5, good); }), "-5 B"));
  CostOptions nan_chunk;
  nan_chunk.tree_chunk_bytes = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(contains(input_error_of([&] {
                         collective_cost(Op::kAllreduce, flat(Algorithm::kDoubleBinaryTree), 1,
                                         good, nan_chunk);
                       }),
                       "tree chunk nan B"));
  // Too many tree chunks for the step count to hold.
  CostOptions tiny;
  tiny.tree_chunk_bytes = 1e-9;
  EXPECT_TRUE(contains(input_error_of([&] {
                         collective_cost(Op::kAllreduce, flat(Algorithm::kDoubleBinaryTree), 8, 1e9,
                                         kLink, tiny);
                       }),
                       "too many chunks"));
  // A barrier ignores m but still rejects a bad one.
  EXPECT_TRUE(contains(input_error_of([&] {
                         collective_cost(Op::kBarrier, flat(Algorithm::kDissemination), 8, -1,
                                         kLink);
                       }),
                       "-1 B"));
}

// ---------------------------------------------------------------------------------------
// The closed form of a packed or scattered two-level topology against the edge-level
// evaluation: the same numbers wherever both run.

TEST(ClosedForm, EqualsTheEdgeLevelEvaluation) {
  constexpr std::int64_t kRankCounts[] = {1,   2,   3,   5,   8,   13,  24,  31,  48,  64,
                                          96,  100, 127, 128, 129, 192, 255, 256, 257, 384,
                                          500, 512, 640, 729, 768, 1000};
  constexpr std::int64_t kPerNode[] = {1, 2, 3, 5, 8, 12};
  const Link loggp = link_from_loggp(4e-6, 0.5e-6, 1.5e-6, 25e9);
  struct Fabric {
    Link inter;
    std::int64_t nics;
    double oversubscription;
  };
  const Fabric fabrics[] = {{kNdr, 1, 1.0}, {loggp, 2, 2.5}, {kTcp, 8, 1.0}};
  CostOptions options;
  options.gamma_s_per_byte = 1e-10;
  int compared = 0;
  for (const std::int64_t n : kRankCounts) {
    for (const std::int64_t g : kPerNode) {
      if (n % g != 0) continue;
      for (const Placement placement : {Placement::kPacked, Placement::kScattered}) {
        for (const Fabric& f : fabrics) {
          const Topology t =
              two_level(n / g, g, kNvlink, f.inter, f.nics, f.oversubscription, placement);
          for (const auto& [op, spec] : every_op_algorithm()) {
            for (const double m : {0.0, 4097.0, 1e6 + 3, 1e10}) {
              const std::string what = describe(op, spec, n, m) + " g=" + std::to_string(g) +
                                       " " + std::string(placement_name(placement)) +
                                       " nics=" + std::to_string(f.nics);
              const CollectiveCost fast = collective_cost(op, spec, m, t, options);
              const CollectiveCost edges =
                  detail::collective_cost_by_edges(op, spec, m, t, options);
              expect_same_cost(fast, edges, 1e-12, what);
              ++compared;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 20000);
}

// The same on random explicit-free fabrics: a few odd shapes with an intra-node link slower
// than the inter-node one, so that either link can pace a step.
TEST(ClosedForm, EqualsTheEdgeLevelEvaluationWhenEitherLinkPaces) {
  std::mt19937_64 rng(20261201);
  std::uniform_int_distribution<std::int64_t> nodes_of(2, 90);
  std::uniform_int_distribution<std::int64_t> per_node_of(2, 11);
  std::uniform_int_distribution<std::int64_t> nics_of(1, 4);
  const Link slow_intra{1e-6, 20e9};
  const Link fast_inter{6e-6, 100e9};
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const std::int64_t nodes = nodes_of(rng);
    const std::int64_t g = per_node_of(rng);
    const Placement placement = trial % 2 == 0 ? Placement::kPacked : Placement::kScattered;
    const Topology t = two_level(nodes, g, slow_intra, fast_inter, nics_of(rng), 1.0, placement);
    for (const auto& [op, spec] : every_op_algorithm()) {
      for (const double m : {1.0, 65536.0, 3e7}) {
        const std::string what = describe(op, spec, t.ranks(), m) + " g=" + std::to_string(g) +
                                 " " + std::string(placement_name(placement));
        expect_same_cost(collective_cost(op, spec, m, t),
                         detail::collective_cost_by_edges(op, spec, m, t), 1e-12, what);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 3000);
}

// At 2^30 and 2^40 ranks every op and algorithm answers with a finite cost on both
// placements (the edge-level evaluation would visit trillions of edges).
TEST(ClosedForm, AnswersAtEveryRankCount) {
  for (const std::int64_t n : {std::int64_t{1} << 30, kMaxRanks}) {
    for (const Placement placement : {Placement::kPacked, Placement::kScattered}) {
      const Topology t = two_level(n / 8, 8, kNvlink, kNdr, 8, 1.0, placement);
      for (const auto& [op, spec] : every_op_algorithm()) {
        const CollectiveCost c = collective_cost(op, spec, 1e9, t);
        EXPECT_TRUE(std::isfinite(c.total_s) && c.total_s > 0) << describe(op, spec, n, 1e9);
      }
    }
  }
}

// By hand at 2^30 ranks, packed on nodes of 8 ranks with 8 NICs: every ring step sends one
// message across each node boundary (one stream, a NIC of its own) and 7 inside; the inter
// edge, 3 us + s / 50 GB/s, is slower than NVLink's 2 us + s / 450 GB/s.
TEST(ClosedForm, RingOnABillionRanksByHand) {
  const std::int64_t n = std::int64_t{1} << 30;
  const Topology t = two_level(n / 8, 8, kNvlink, kNdr, 8);
  const double m = 1e12;
  const CollectiveCost c = collective_cost(Op::kAllreduce, flat(Algorithm::kRing), m, t);
  const double steps = 2.0 * static_cast<double>(n - 1);
  const double s = m / static_cast<double>(n);
  EXPECT_EQ(c.steps, 2 * (n - 1));
  expect_rel(c.latency_s, steps * 3e-6, 1e-12, "latency");
  expect_rel(c.bandwidth_s, steps * s / 50e9, 1e-12, "bandwidth");
  // Pairwise all-to-all, packed, 2 nodes of 2 ranks, one NIC: shift 1 sends one message
  // across each boundary, shift 2 all four (two per NIC), shift 3 one again.
  const Topology small = two_level(2, 2, kNvlink, kNdr, 1);
  const CollectiveCost a = collective_cost(Op::kAlltoall, flat(Algorithm::kPairwise), 4e6, small);
  const double block = 1e6;
  expect_rel(a.latency_s, 3 * 3e-6, 1e-12, "pairwise latency");
  expect_rel(a.bandwidth_s, 2 * block / 50e9 + block / 25e9, 1e-12, "pairwise bandwidth");
}

// An explicit placement is costed edge by edge; beyond the edge-visit limit it is refused
// before any work, naming the rank count and the limit.
TEST(ClosedForm, ExplicitPlacementRefusesAtOnceBeyondTheEdgeLimit) {
  Topology t = two_level(2048, 8, kNvlink, kNdr, 1, 1.0, Placement::kExplicit);
  for (std::int64_t r = 0; r < t.ranks(); ++r) t.rank_to_node.push_back(r / 8);
  const std::string message = input_error_of(
      [&] { collective_cost(Op::kAlltoall, flat(Algorithm::kPairwise), 1e6, t); });
  EXPECT_TRUE(contains(message, "16384 ranks")) << message;
  EXPECT_TRUE(contains(message, "limit of 1e+06")) << message;
  EXPECT_TRUE(contains(message, "pairwise all-to-all")) << message;
  // The same placement given as packed is costed in closed form, to the same figure as the
  // explicit list gives where the edge-level evaluation runs.
  Topology packed = t;
  packed.placement = Placement::kPacked;
  packed.rank_to_node.clear();
  EXPECT_NO_THROW(collective_cost(Op::kAlltoall, flat(Algorithm::kPairwise), 1e6, packed));
  expect_same_cost(collective_cost(Op::kAllreduce, flat(Algorithm::kRabenseifner), 1e6, t),
                   collective_cost(Op::kAllreduce, flat(Algorithm::kRabenseifner), 1e6, packed),
                   1e-12, "explicit list = packed");
}

TEST(BusBandwidthAllreduce, IsTwoNMinusOneAlphasAndTheBusFactorOfTheBytes) {
  // 8 ranks at 50 GB/s with alpha 5 us: latency 14 alpha = 70 us; 14 GB costs 1.75 x 14 GB /
  // 50 GB/s = 490 ms on top.
  const BusBandwidthAllreduce c = busbw_allreduce(8, 50e9, 5e-6);
  EXPECT_DOUBLE_EQ(c.latency_s, 70e-6);
  EXPECT_DOUBLE_EQ(c.bytes_factor, 1.75);
  EXPECT_DOUBLE_EQ(c.time_s(14e9), 70e-6 + 0.49);
  // The same cost as a Hockney line: bandwidth 8 x 50 GB/s / 14.
  EXPECT_DOUBLE_EQ(c.line_bandwidth_Bps, 8 * 50e9 / 14);
  EXPECT_DOUBLE_EQ(c.latency_s + 14e9 / c.line_bandwidth_Bps, c.time_s(14e9));
  // One rank moves nothing and waits for no one.
  const BusBandwidthAllreduce one = busbw_allreduce(1, 50e9, 5e-6);
  EXPECT_EQ(one.time_s(14e9), 0.0);
  EXPECT_EQ(one.line_bandwidth_Bps, 0.0);
}

TEST(LowerBound, EveryOpMovesItsBusFactorOfTheBytes) {
  // 1 GB at 10 GB/s over 4 ranks: all-reduce 2 x 3/4, all-gather 3/4, broadcast 1, barrier 0.
  EXPECT_DOUBLE_EQ(bandwidth_lower_bound_s(Op::kAllreduce, 4, 1e9, 10e9), 0.15);
  EXPECT_DOUBLE_EQ(bandwidth_lower_bound_s(Op::kAllgather, 4, 1e9, 10e9), 0.075);
  EXPECT_DOUBLE_EQ(bandwidth_lower_bound_s(Op::kBroadcast, 4, 1e9, 10e9), 0.1);
  EXPECT_EQ(bandwidth_lower_bound_s(Op::kBarrier, 4, 1e9, 10e9), 0.0);
  EXPECT_DOUBLE_EQ(allreduce_bandwidth_lower_bound_s(4, 1e9, Link{1e-6, 10e9}), 0.15);
}


// ---------------------------------------------------------------------------------------
// Piecewise links: every message priced in the regime of its own size.

// Eager below 8 KiB (1 us, 4 GB/s), rendezvous from 8 KiB (5 us, 20 GB/s).
Link eager_rendezvous() {
  const LinkRegime regimes[] = {{0, 1e-6, 4e9, 0, 0}, {8192, 5e-6, 20e9, 0, 0}};
  return piecewise_link(regimes);
}

TEST(PiecewiseCollective, RingChunksFallInTheRegimeOfTheChunk) {
  const Link link = eager_rendezvous();
  // 128 KiB over 32 ranks: 4 KiB chunks, eager, although the buffer is far above 8 KiB.
  const double m = 131072;
  const CollectiveCost c = allreduce_cost(Algorithm::kRing, 32, m, link);
  EXPECT_EQ(c.steps, 62);
  EXPECT_DOUBLE_EQ(c.latency_s, 62 * 1e-6);
  EXPECT_DOUBLE_EQ(c.bandwidth_s, 62 * 4096 / 4e9);
  // 1 MiB over 32 ranks: 32 KiB chunks, rendezvous.
  const CollectiveCost big = allreduce_cost(Algorithm::kRing, 32, 1048576, link);
  EXPECT_DOUBLE_EQ(big.latency_s, 62 * 5e-6);
  EXPECT_DOUBLE_EQ(big.bandwidth_s, 62 * 32768 / 20e9);
  // The same buffer on each one-regime link alone gives the costs of those regimes.
  EXPECT_DOUBLE_EQ(c.total_s, allreduce_cost(Algorithm::kRing, 32, m, link.at(4096)).total_s);
  EXPECT_DOUBLE_EQ(big.total_s,
                   allreduce_cost(Algorithm::kRing, 32, 1048576, link.at(32768)).total_s);
}

TEST(PiecewiseCollective, RabenseifnerStepsChangeRegimeAsChunksHalve) {
  const Link link = eager_rendezvous();
  // 64 KiB over 16 ranks: halving sends 32, 16, 8, 4 KiB; doubling 4, 8, 16, 32 KiB. The
  // 32, 16 and 8 KiB steps (6 of 8) are rendezvous, the two 4 KiB steps eager.
  const CollectiveCost c = allreduce_cost(Algorithm::kRabenseifner, 16, 65536, link);
  EXPECT_EQ(c.steps, 8);
  EXPECT_DOUBLE_EQ(c.latency_s, 6 * 5e-6 + 2 * 1e-6);
  EXPECT_DOUBLE_EQ(c.bandwidth_s, 2 * (32768 + 16384 + 8192) / 20e9 + 2 * 4096 / 4e9);
  EXPECT_DOUBLE_EQ(c.total_s, c.latency_s + c.bandwidth_s);
  // Recursive doubling sends the whole buffer every step: all rendezvous.
  const CollectiveCost rd = allreduce_cost(Algorithm::kRecursiveDoubling, 16, 65536, link);
  EXPECT_DOUBLE_EQ(rd.latency_s, 4 * 5e-6);
  EXPECT_DOUBLE_EQ(rd.bandwidth_s, 4 * 65536 / 20e9);
}

TEST(PiecewiseCollective, DoubleBinaryTreeChunksUseTheChunkRegime) {
  const Link link = eager_rendezvous();
  CostOptions options;
  options.tree_chunk_bytes = 4096;  // eager chunks
  const double m = 65536;           // two halves of 8 chunks each: k = 8
  const CollectiveCost c =
      collective_cost(Op::kAllreduce, {Algorithm::kDoubleBinaryTree}, 8, m, link, options);
  const CollectiveCost eager = collective_cost(Op::kAllreduce, {Algorithm::kDoubleBinaryTree}, 8,
                                               m, link.at(0), options);
  EXPECT_DOUBLE_EQ(c.total_s, eager.total_s);
  EXPECT_EQ(c.steps, 2 * 3 + 8 - 1);
  EXPECT_DOUBLE_EQ(c.latency_s, 13 * 1e-6);
}

TEST(PiecewiseCollective, TopologyEvaluationsAgreeAndShareEveryRegime) {
  const LinkRegime nic[] = {{0, 2e-6, 10e9, 0, 0}, {65536, 6e-6, 50e9, 0, 0}};
  const Topology t = two_level(4, 8, kNvlink, piecewise_link(nic), 2);
  for (const auto& [op, spec] : every_op_algorithm()) {
    for (const double m : {1024.0, 65536.0, 1e6 + 3, 3e8}) {
      expect_same_cost(collective_cost(op, spec, m, t),
                       detail::collective_cost_by_edges(op, spec, m, t), 1e-12,
                       describe(op, spec, t.ranks(), m));
    }
  }
  // Eight ranks behind two NICs: each stream gets a quarter of either regime's rate.
  const Link shared = t.shared_inter(8);
  EXPECT_DOUBLE_EQ(shared.regime(0).bandwidth_Bps, 2.5e9);
  EXPECT_DOUBLE_EQ(shared.regime(1).bandwidth_Bps, 12.5e9);
  EXPECT_EQ(shared.regime(1).from_bytes, 65536);
}

TEST(PiecewiseCollective, AOneRegimeLinkCostsExactlyAsBefore) {
  const LinkRegime one[] = {{0, kLink.alpha_s, kLink.bandwidth_Bps, 0, 0}};
  const Link same = piecewise_link(one);
  for (const std::int64_t n : kRanks) {
    for (const double m : kBytes) {
      EXPECT_EQ(allreduce_cost(Algorithm::kRabenseifner, n, m, same).total_s,
                allreduce_cost(Algorithm::kRabenseifner, n, m, kLink).total_s);
    }
  }
  EXPECT_TRUE(contains(input_error_of([] {
    allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRecursiveDoubling, 8, eager_rendezvous());
  }), "one-regime link"));
}


// ---------------------------------------------------------------------------------------
// Contention between the two directions of a link.

TEST(Duplex, ReverseTrafficSlowsOnlyStepsThatSendAndReceive) {
  Link link = kLink;
  link.reverse_traffic = 0.05;
  // Ring: every step sends and receives: the bandwidth term is 1.05 times the plain one.
  const CollectiveCost plain = allreduce_cost(Algorithm::kRing, 8, 1e6, kLink);
  const CollectiveCost crossed = allreduce_cost(Algorithm::kRing, 8, 1e6, link);
  EXPECT_DOUBLE_EQ(crossed.latency_s, plain.latency_s);
  EXPECT_DOUBLE_EQ(crossed.bandwidth_s, 1.05 * plain.bandwidth_s);
  // A binomial broadcast gives each rank one role per step: no contention.
  const auto bcast = [](const Link& l) {
    return collective_cost(Op::kBroadcast, {Algorithm::kBinomialTree}, 8, 1e6, l).total_s;
  };
  EXPECT_DOUBLE_EQ(bcast(link), bcast(kLink));
  // Recursive doubling on 3 ranks: the fold in and out are one-way (2 m / bandwidth), the
  // exchange (m) pays 1.05.
  const CollectiveCost rd = allreduce_cost(Algorithm::kRecursiveDoubling, 3, 1e6, link);
  EXPECT_DOUBLE_EQ(rd.bandwidth_s, (2 * 1e6 + 1.05 * 1e6) / kLink.bandwidth_Bps);
}

// Measured exchanges price the steps where every rank sends and receives, each message in
// the exchange regime of its size, with no duplex factor on top; one-way steps keep the
// link's own regimes.
TEST(Duplex, MeasuredExchangesPriceTheStepsThatSendAndReceive) {
  const LinkRegime exchange[] = {{0, 3e-6, 2e9, 0, 0}, {65536, 9e-6, 6e9, 0, 0}};
  Link link = kLink;
  link.half_duplex = true;  // not applied where the exchanges price a step
  link = with_exchange(link, exchange);
  EXPECT_TRUE(link.has_exchange());
  EXPECT_EQ(link.both_ways_at(1000).alpha_s, 3e-6);
  EXPECT_EQ(link.both_ways_at(65536).bandwidth_Bps, 6e9);
  EXPECT_EQ(link.both_ways_at(65536).bidirectional_factor(), 1.0);
  EXPECT_EQ(link.at(65536).alpha_s, kLink.alpha_s);
  // Ring on 2 ranks: two exchanges of m/2 (the reduce-scatter's and the all-gather's).
  const double m = 1e6;
  const CollectiveCost ring = allreduce_cost(Algorithm::kRing, 2, m, link);
  EXPECT_EQ(ring.steps, 2);
  EXPECT_DOUBLE_EQ(ring.latency_s, 2 * 9e-6);
  EXPECT_DOUBLE_EQ(ring.bandwidth_s, 2 * (m / 2) / 6e9);
  // Recursive doubling on 8 ranks: three exchanges of m; on 3 ranks the fold in and out are
  // one-way, on the link's own figures (half duplex does not touch a one-way step).
  const CollectiveCost rd = allreduce_cost(Algorithm::kRecursiveDoubling, 8, m, link);
  EXPECT_DOUBLE_EQ(rd.latency_s, 3 * 9e-6);
  EXPECT_DOUBLE_EQ(rd.bandwidth_s, 3 * m / 6e9);
  const CollectiveCost rd3 = allreduce_cost(Algorithm::kRecursiveDoubling, 3, 1000, link);
  EXPECT_DOUBLE_EQ(rd3.latency_s, 2 * kLink.alpha_s + 3e-6);
  EXPECT_DOUBLE_EQ(rd3.bandwidth_s, 2 * 1000 / kLink.bandwidth_Bps + 1000 / 2e9);
  // A binomial broadcast has no step that sends and receives: the exchanges change nothing.
  const auto bcast = [m](const Link& l) {
    return collective_cost(Op::kBroadcast, {Algorithm::kBinomialTree}, 8, m, l).total_s;
  };
  EXPECT_DOUBLE_EQ(bcast(link), bcast(kLink));
  // A shared NIC scales the exchanges with the link; both evaluations still agree.
  const Topology t = two_level(4, 4, link, link, 2);
  EXPECT_DOUBLE_EQ(t.shared_inter(4).both_ways_at(1e6).bandwidth_Bps, 3e9);
  for (const auto& [op, spec] : every_op_algorithm()) {
    for (const double bytes : {4096.0, 3e7}) {
      expect_same_cost(collective_cost(op, spec, bytes, t),
                       detail::collective_cost_by_edges(op, spec, bytes, t), 1e-12,
                       describe(op, spec, t.ranks(), bytes));
    }
  }
  // Exchange regimes are checked as a link's are.
  const LinkRegime descending[] = {{0, 3e-6, 2e9, 0, 0}, {0, 9e-6, 6e9, 0, 0}};
  EXPECT_TRUE(contains(input_error_of([&] { with_exchange(kLink, descending); }),
                       "ascending"));
}

TEST(Duplex, AHalfDuplexLinkSharesOneRateBetweenTheDirections) {
  Link half = kLink;
  half.half_duplex = true;
  const CollectiveCost ring = allreduce_cost(Algorithm::kRing, 4, 4e6, half);
  EXPECT_DOUBLE_EQ(ring.bandwidth_s, 2 * allreduce_cost(Algorithm::kRing, 4, 4e6, kLink).bandwidth_s);
  EXPECT_DOUBLE_EQ(half.bidirectional_factor(), 2.0);
  // The tree's steady state sends and receives too.
  const auto tree = [](const Link& l) {
    return collective_cost(Op::kAllreduce, {Algorithm::kDoubleBinaryTree}, 8, 64e6, l).bandwidth_s;
  };
  EXPECT_DOUBLE_EQ(tree(half), 2 * tree(kLink));
  // On a two-level fabric the closed form and the edge-level evaluation still agree.
  const Topology t = two_level(4, 4, half, half, 2);
  for (const auto& [op, spec] : every_op_algorithm()) {
    for (const double m : {4096.0, 3e7}) {
      expect_same_cost(collective_cost(op, spec, m, t),
                       detail::collective_cost_by_edges(op, spec, m, t), 1e-12,
                       describe(op, spec, t.ranks(), m));
    }
  }
  Link bad = kLink;
  bad.reverse_traffic = 1.0;
  EXPECT_TRUE(contains(input_error_of([&] { require_valid(bad); }), "reverse traffic 1"));
}

// rabenseifner-linear (SMPI's rab1) is costed when named and never ranked among the candidates.
TEST(NamedVariants, RabenseifnerLinearIsNamedButNeverACandidate) {
  EXPECT_EQ(parse_algorithm("rabenseifner-linear"), flat(Algorithm::kRabenseifnerLinear));
  EXPECT_TRUE(implements(Op::kAllreduce, flat(Algorithm::kRabenseifnerLinear)));
  EXPECT_FALSE(implements(Op::kReduce, flat(Algorithm::kRabenseifnerLinear)));
  for (const Topology& t : {Topology{}, two_level(16, 8, kNvlink, kNdr, 8)}) {
    for (const AlgorithmSpec& s : applicable_algorithms(Op::kAllreduce, t)) {
      EXPECT_NE(s.algorithm, Algorithm::kRabenseifnerLinear) << algorithm_name(s);
      EXPECT_NE(s.inter, Algorithm::kRabenseifnerLinear) << algorithm_name(s);
    }
  }
}

// At a power of two it pays log2 N + 1 latencies where rabenseifner pays 2 log2 N, for the
// same bytes: on 64 ranks 7 against 12.
TEST(NamedVariants, RabenseifnerLinearPaysOneLatencyForItsAllGather) {
  const Link link{10e-6, 1e9};
  for (const std::int64_t n : {2, 4, 8, 64, 1024}) {
    const double m = 1e6;
    const CollectiveCost lin =
        collective_cost(Op::kAllreduce, flat(Algorithm::kRabenseifnerLinear), n, m, link);
    const CollectiveCost rab =
        collective_cost(Op::kAllreduce, flat(Algorithm::kRabenseifner), n, m, link);
    const auto lg = static_cast<std::int64_t>(std::log2(static_cast<double>(n)));
    EXPECT_EQ(lin.steps, lg + 1) << n;
    EXPECT_EQ(rab.steps, 2 * lg) << n;
    expect_rel(lin.bandwidth_s, rab.bandwidth_s, 1e-14, std::to_string(n));
    expect_rel(lin.latency_s, static_cast<double>(lg + 1) * 10e-6, 1e-14, std::to_string(n));
  }
}

}  // namespace
}  // namespace scalewall
