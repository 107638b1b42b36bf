// Tests of scalewall/collective.h: all-reduce by ring and by recursive doubling (seed D01
// section 3.3, Lab 3, exercise 3; Thakur, Rabenseifner and Gropp 2005; Patarasuk and Yuan
// 2009).
#include "scalewall/collective.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "scalewall/error.h"
#include "scalewall/scaling.h"

namespace scalewall {
namespace {

template <typename F>
std::string input_error_of(F&& body) {
  try {
    body();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

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

TEST(AllreduceAlgorithm, NamesRoundTrip) {
  for (const Algorithm a : kAllAlgorithms) EXPECT_EQ(parse_algorithm(algorithm_name(a)).algorithm, a);
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
  for (const Algorithm a : kAllAlgorithms) {
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
  for (const Algorithm a : kAllAlgorithms) {
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
  for (const Algorithm a : kAllAlgorithms) {
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
  for (const Algorithm a : kAllAlgorithms) {
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
  for (const Algorithm a : kAllAlgorithms) {
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

TEST(RankAllreduce, CheapestFirstAndStable) {
  const std::vector<Algorithm> both(std::begin(kAllAlgorithms), std::end(kAllAlgorithms));
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
  const std::vector<Algorithm> both(std::begin(kAllAlgorithms), std::end(kAllAlgorithms));
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

  const std::vector<Algorithm> both(std::begin(kAllAlgorithms), std::end(kAllAlgorithms));
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

}  // namespace
}  // namespace scalewall
