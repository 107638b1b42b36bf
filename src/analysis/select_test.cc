// Tests of scalewall/analysis/select.h.
//
// The selection map: at 64 ranks on the default link recursive doubling wins small messages
// and Rabenseifner large ones, switching exactly at their analytic tie (issue 3's "done
// when"); every switch equals the tie of its two winners; rows for awkward rank counts on a
// flat link and on a two-level fabric.
//
// The library selectors: one table of (op, ranks, bytes) cases per library, each expectation
// derived by hand from the decision code as written (MPICH 3.2 MPIR_<Op>_intra with default
// CVARs; Open MPI 4.1 coll_tuned_decision_fixed.c, commutative), with values at and on either
// side of the thresholds, and the run-time fallbacks of the picked algorithms.
#include "scalewall/analysis/select.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "scalewall/model/collective.h"
#include "scalewall/base/error.h"
#include "scalewall/model/topology.h"
#include "test_support.h"

namespace scalewall {
namespace {

AlgorithmSpec flat(Algorithm a) { return {a, Algorithm::kRing}; }
const AlgorithmSpec kRing = flat(Algorithm::kRing);
const AlgorithmSpec kRd = flat(Algorithm::kRecursiveDoubling);
const AlgorithmSpec kRh = flat(Algorithm::kRecursiveHalving);
const AlgorithmSpec kRab = flat(Algorithm::kRabenseifner);
const AlgorithmSpec kBinomial = flat(Algorithm::kBinomialTree);
const AlgorithmSpec kScatterAllgather = flat(Algorithm::kScatterAllgather);
const AlgorithmSpec kPairwise = flat(Algorithm::kPairwise);
const AlgorithmSpec kBruck = flat(Algorithm::kBruck);
const AlgorithmSpec kDissemination = flat(Algorithm::kDissemination);

// Powers of two from 2^lo to 2^hi bytes.
std::vector<double> pow2_sizes(int lo, int hi, int step = 1) {
  std::vector<double> v;
  for (int i = lo; i <= hi; i += step) v.push_back(std::ldexp(1.0, i));
  return v;
}

auto flat_default() {
  return [](std::int64_t n) { return flat_topology(n, kDefaultLink); };
}

// Two-level fabric shaped like examples/fabrics/dgx-h100-ndr.toml: 8 ranks per node, 8 NICs,
// NVLink-class intra-node link, NDR-class inter-node link.
Topology dgx_like() {
  Topology t;
  t.name = "dgx-like";
  t.nodes = 16;
  t.ranks_per_node = 8;
  t.intra = Link{2e-6, 450e9};
  t.inter = Link{3e-6, 50e9};
  t.nics_per_node = 8;
  return t;
}

void expect_relative(double actual, double expected, double tolerance, const std::string& what) {
  EXPECT_LE(std::abs(actual - expected), tolerance * std::abs(expected))
      << what << ": " << actual << " against " << expected;
}

// ---------------------------------------------------------------------------------------
// Selection map.

// Issue 3, done when: at 64 ranks on the default link, recursive doubling for small messages,
// a bandwidth-optimal algorithm for large ones, the switch at the analytic tie. With every
// all-reduce algorithm as a candidate the large-message winner is Rabenseifner (the same
// 2m(N-1)/N bytes as the ring in 2 log2 N = 12 steps instead of 2(N-1) = 126): a single switch
// where 6 alpha + 6 m beta = 12 alpha + (126/64) m beta, m = 6 alpha / (beta (6 - 126/64)) =
// 1.5e-5 s / (4.03125 x 4e-11 s/B) = 93,023.2558 B.
TEST(SelectionMap, SixtyFourRanksDefaultLinkAllAlgorithms) {
  const std::vector<std::int64_t> ranks = {64};
  const std::vector<double> bytes = pow2_sizes(0, 30);
  const SelectionMap map = selection_map(Op::kAllreduce, ranks, bytes, flat_default());
  ASSERT_EQ(map.rows.size(), 1u);
  const SelectionRow& row = map.rows[0];
  EXPECT_EQ(row.ranks, 64);
  ASSERT_EQ(row.winner.size(), bytes.size());
  for (std::size_t j = 0; j < bytes.size(); ++j) {
    const AlgorithmSpec expected = bytes[j] < 93023.2558 ? kRd : kRab;
    EXPECT_EQ(algorithm_name(row.winner[j]), algorithm_name(expected)) << bytes[j] << " B";
  }
  ASSERT_EQ(row.switches.size(), 1u);
  const auto& s = row.switches[0];
  EXPECT_EQ(s.from, kRd);
  EXPECT_EQ(s.to, kRab);
  const double hand = 6 * 2.5e-6 / ((6.0 - 126.0 / 64.0) / 25e9);
  expect_relative(s.bytes, hand, 1e-9, "hand-computed tie");
  expect_relative(s.bytes, 93023.25581395349, 1e-9, "tie in bytes");
  const auto analytic = allreduce_tie_bytes(Algorithm::kRecursiveDoubling,
                                            Algorithm::kRabenseifner, 64, kDefaultLink);
  ASSERT_TRUE(analytic);
  expect_relative(s.bytes, *analytic, 1e-9, "allreduce_tie_bytes");
  const auto scanned = tie_bytes(Op::kAllreduce, kRd, kRab, flat_topology(64, kDefaultLink));
  ASSERT_TRUE(scanned);
  expect_relative(s.bytes, *scanned, 1e-9, "tie_bytes");
  // The winner's cost is the cheapest of all five at every size.
  const auto all = applicable_algorithms(Op::kAllreduce, flat_topology(64, kDefaultLink));
  for (std::size_t j = 0; j < bytes.size(); ++j) {
    for (const AlgorithmSpec& a : all) {
      EXPECT_LE(row.total_s[j],
                collective_cost(Op::kAllreduce, a, 64, bytes[j], kDefaultLink).total_s);
    }
  }
}

// The seed's two algorithms only: recursive doubling, then the ring above the Lab 3 tie
// 120 alpha / (beta (6 - 126/64)) = 1,860,465.116 B.
TEST(SelectionMap, SixtyFourRanksRingAgainstRecursiveDoubling) {
  const std::vector<std::int64_t> ranks = {64};
  const std::vector<double> bytes = pow2_sizes(0, 30, 2);
  const std::vector<AlgorithmSpec> two = {kRing, kRd};
  const SelectionMap map =
      selection_map(Op::kAllreduce, ranks, bytes, flat_default(), {}, two);
  const SelectionRow& row = map.rows[0];
  for (std::size_t j = 0; j < bytes.size(); ++j) {
    EXPECT_EQ(row.winner[j], bytes[j] < 1860465.116 ? kRd : kRing) << bytes[j];
  }
  ASSERT_EQ(row.switches.size(), 1u);
  EXPECT_EQ(row.switches[0].from, kRd);
  EXPECT_EQ(row.switches[0].to, kRing);
  expect_relative(row.switches[0].bytes, 120 * 2.5e-6 * 25e9 / (6.0 - 126.0 / 64.0), 1e-9,
                  "hand");
  const auto analytic =
      allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRecursiveDoubling, 64, kDefaultLink);
  ASSERT_TRUE(analytic);
  expect_relative(row.switches[0].bytes, *analytic, 1e-9, "allreduce_tie_bytes");
}

// Awkward rank counts on the flat link, ring against recursive doubling: each row's single
// switch is the closed-form tie, with the fold for N not a power of two (log2 p + 2 steps,
// m (log2 p + 2) bytes), and with gamma charged.
TEST(SelectionMap, AwkwardRankCountsMatchClosedFormTies) {
  const std::vector<std::int64_t> ranks = {3, 5, 13, 24, 64, 100, 513};
  const std::vector<double> bytes = pow2_sizes(0, 34);
  const std::vector<AlgorithmSpec> two = {kRing, kRd};
  for (const double gamma : {0.0, 1e-10}) {
    CostOptions options;
    options.gamma_s_per_byte = gamma;
    const SelectionMap map =
        selection_map(Op::kAllreduce, ranks, bytes, flat_default(), options, two);
    ASSERT_EQ(map.rows.size(), ranks.size());
    for (const SelectionRow& row : map.rows) {
      const auto tie = allreduce_tie_bytes(Algorithm::kRing, Algorithm::kRecursiveDoubling,
                                           row.ranks, kDefaultLink, gamma);
      ASSERT_TRUE(tie) << row.ranks;
      ASSERT_EQ(row.switches.size(), 1u) << row.ranks;
      expect_relative(row.switches[0].bytes, *tie, 1e-9,
                      "N = " + std::to_string(row.ranks) + ", gamma " + std::to_string(gamma));
    }
  }
  // N = 3 by hand, gamma 0: ring 4 alpha + (4/3) m beta; recursive doubling with the fold
  // (p = 2) 3 alpha + 3 m beta; tie at alpha / ((3 - 4/3) beta) = 0.6 alpha / beta.
  const std::vector<std::int64_t> three = {3};
  const SelectionMap map = selection_map(Op::kAllreduce, three, bytes, flat_default(), {}, two);
  ASSERT_EQ(map.rows[0].switches.size(), 1u);
  expect_relative(map.rows[0].switches[0].bytes, 0.6 * 2.5e-6 * 25e9, 1e-9, "N = 3 by hand");
}

// On a two-level fabric, for rank counts that fill whole nodes or fit in one, every switch
// lies inside its grid interval, equals the interval tie of its two winners, and the two
// winners swap order across it; every winner is the cheapest candidate at its cell.
TEST(SelectionMap, FabricRowsSwitchAtTheTieOfTheirWinners) {
  const Topology base = dgx_like();
  const std::vector<std::int64_t> ranks = {2, 3, 5, 8, 24, 40, 64, 128};
  const std::vector<double> bytes = pow2_sizes(0, 32, 2);
  const auto topology_for = [&](std::int64_t n) { return scaled_topology(base, n); };
  const SelectionMap map = selection_map(Op::kAllreduce, ranks, bytes, topology_for);
  ASSERT_EQ(map.rows.size(), ranks.size());
  bool saw_hierarchical = false;
  for (const SelectionRow& row : map.rows) {
    const Topology t = topology_for(row.ranks);
    const auto candidates = applicable_algorithms(Op::kAllreduce, t);
    for (std::size_t j = 0; j < bytes.size(); ++j) {
      const auto ranked = rank_algorithms(Op::kAllreduce, candidates, bytes[j], t);
      EXPECT_EQ(row.winner[j], ranked.front().algorithm) << row.ranks << " ranks, " << bytes[j];
      EXPECT_EQ(row.total_s[j], ranked.front().total_s);
      saw_hierarchical = saw_hierarchical || row.winner[j].algorithm == Algorithm::kHierarchical;
    }
    std::size_t k = 0;
    for (std::size_t j = 0; j + 1 < bytes.size(); ++j) {
      if (row.winner[j] == row.winner[j + 1]) continue;
      ASSERT_LT(k, row.switches.size());
      const auto& s = row.switches[k++];
      EXPECT_EQ(s.from, row.winner[j]);
      EXPECT_EQ(s.to, row.winner[j + 1]);
      EXPECT_GE(s.bytes, bytes[j]);
      EXPECT_LE(s.bytes, bytes[j + 1]);
      const auto tie = tie_bytes(Op::kAllreduce, s.from, s.to, bytes[j], bytes[j + 1], t);
      ASSERT_TRUE(tie);
      EXPECT_EQ(s.bytes, *tie);
      const auto cost = [&](AlgorithmSpec a, double m) {
        return collective_cost(Op::kAllreduce, a, m, t).total_s;
      };
      EXPECT_LE(cost(s.from, s.bytes * (1 - 1e-9)), cost(s.to, s.bytes * (1 - 1e-9)));
      EXPECT_GE(cost(s.from, s.bytes * (1 + 1e-9)), cost(s.to, s.bytes * (1 + 1e-9)));
    }
    EXPECT_EQ(k, row.switches.size());
  }
  EXPECT_TRUE(saw_hierarchical) << "a multi-node row should pick a hierarchical algorithm";
}

// A flat single tie, where it is the only change between two far-apart grid points, is found
// to 1e-12 whatever the grid: a coarse grid and a fine one give the same switch.
TEST(SelectionMap, SwitchDoesNotDependOnTheGrid) {
  const std::vector<std::int64_t> ranks = {24};
  const std::vector<double> coarse = {1.0, 1e12};
  const std::vector<double> fine = pow2_sizes(0, 39);
  const std::vector<AlgorithmSpec> two = {kRing, kRd};
  const auto a = selection_map(Op::kAllreduce, ranks, coarse, flat_default(), {}, two);
  const auto b = selection_map(Op::kAllreduce, ranks, fine, flat_default(), {}, two);
  ASSERT_EQ(a.rows[0].switches.size(), 1u);
  ASSERT_EQ(b.rows[0].switches.size(), 1u);
  expect_relative(a.rows[0].switches[0].bytes, b.rows[0].switches[0].bytes, 1e-11, "grids");
}

// When a third algorithm wins only between two grid points, the map records the tie of the
// two grid winners (the documented behaviour), and a finer grid shows the band. At 13 ranks
// with every algorithm: recursive doubling, then Rabenseifner (from about 150 KB), then the
// ring (from about 525 KB).
TEST(SelectionMap, ABandNarrowerThanTheGridIsSkipped) {
  const std::vector<std::int64_t> ranks = {13};
  const std::vector<double> coarse = {1024, 1048576};
  const auto map = selection_map(Op::kAllreduce, ranks, coarse, flat_default());
  ASSERT_EQ(map.rows[0].switches.size(), 1u);
  EXPECT_EQ(map.rows[0].switches[0].from, kRd);
  EXPECT_EQ(map.rows[0].switches[0].to, kRing);
  const auto direct = tie_bytes(Op::kAllreduce, kRd, kRing, flat_topology(13, kDefaultLink));
  ASSERT_TRUE(direct);
  expect_relative(map.rows[0].switches[0].bytes, *direct, 1e-9, "rd-ring tie");

  const auto fine = selection_map(Op::kAllreduce, ranks, pow2_sizes(10, 20), flat_default());
  ASSERT_EQ(fine.rows[0].switches.size(), 2u);
  EXPECT_EQ(fine.rows[0].switches[0].to, kRab);
  EXPECT_EQ(fine.rows[0].switches[1].from, kRab);
  EXPECT_EQ(fine.rows[0].switches[1].to, kRing);
}

TEST(SelectionMap, OneRankIsFreeAndNeverSwitches) {
  const std::vector<std::int64_t> ranks = {1};
  const std::vector<double> bytes = {0, 1, 4096, 1e9};
  for (const Op op : kAllOps) {
    const auto map = selection_map(op, ranks, bytes, flat_default());
    EXPECT_EQ(map.op, op);
    EXPECT_TRUE(map.rows[0].switches.empty()) << op_name(op);
    for (const double t : map.rows[0].total_s) EXPECT_EQ(t, 0.0);
  }
}

TEST(SelectionMap, EveryOpOnAwkwardRankCounts) {
  const std::vector<std::int64_t> ranks = {1, 2, 3, 5, 8, 13, 24, 64};
  const std::vector<double> bytes = {0, 1, 4097, 65536, 1e6 + 3, 1e9};
  for (const Op op : kAllOps) {
    const auto map = selection_map(op, ranks, bytes, flat_default());
    EXPECT_EQ(map.bytes, bytes);
    for (const SelectionRow& row : map.rows) {
      ASSERT_EQ(row.winner.size(), bytes.size());
      for (const auto& s : row.switches) {
        EXPECT_TRUE(implements(op, s.from) && implements(op, s.to));
        EXPECT_GE(s.bytes, 0.0);
      }
      for (std::size_t j = 1; j < row.total_s.size(); ++j) {
        EXPECT_GE(row.total_s[j], row.total_s[j - 1]) << op_name(op) << " " << row.ranks;
      }
    }
  }
}

TEST(SelectionMap, CandidatesFilterAndHierarchicalDropOutOnOneNode) {
  const Topology base = dgx_like();
  const std::vector<std::int64_t> ranks = {4, 64};
  const std::vector<double> bytes = {1024, 1e9};
  const std::vector<AlgorithmSpec> specs = {kRing, {Algorithm::kHierarchical, Algorithm::kRing}};
  const auto map = selection_map(Op::kAllreduce, ranks, bytes,
                                 [&](std::int64_t n) { return scaled_topology(base, n); }, {},
                                 specs);
  EXPECT_EQ(map.rows[0].winner[0], kRing);  // 4 ranks: one node, only the ring applies
  EXPECT_EQ(map.rows[0].winner[1], kRing);
  EXPECT_EQ(map.rows[1].winner[1].algorithm, Algorithm::kHierarchical);
  const std::vector<AlgorithmSpec> only_hierarchical = {
      {Algorithm::kHierarchical, Algorithm::kRing}};
  EXPECT_TRUE(contains(input_error_of([&] {
                         selection_map(Op::kAllreduce, ranks, bytes,
                                       [&](std::int64_t n) { return scaled_topology(base, n); },
                                       {}, only_hierarchical);
                       }),
                       "4 ranks"));
}

TEST(SelectionMap, BadInput) {
  const std::vector<std::int64_t> good_ranks = {8};
  const std::vector<double> good_bytes = {1, 2};
  const std::vector<std::int64_t> none_ranks;
  const std::vector<double> none_bytes;
  const auto map_of = [](std::vector<std::int64_t> r, std::vector<double> b) {
    return input_error_of([&] { selection_map(Op::kAllreduce, r, b, flat_default()); });
  };
  EXPECT_TRUE(contains(map_of(none_ranks, good_bytes), "rank counts is empty"));
  EXPECT_TRUE(contains(map_of(good_ranks, none_bytes), "sizes is empty"));
  EXPECT_TRUE(contains(map_of({0}, good_bytes), "rank count 0"));
  EXPECT_TRUE(contains(map_of({-5}, good_bytes), "rank count -5"));
  EXPECT_TRUE(contains(map_of({8, 4}, good_bytes), "4 follows 8"));
  EXPECT_TRUE(contains(map_of(good_ranks, {-1.0}), "-1 B"));
  EXPECT_TRUE(contains(map_of(good_ranks, {std::numeric_limits<double>::quiet_NaN()}), "nan"));
  EXPECT_TRUE(contains(map_of(good_ranks, {4, 4}), "4 B follows 4 B"));
  const std::vector<AlgorithmSpec> wrong = {kPairwise};
  EXPECT_TRUE(contains(input_error_of([&] {
                         selection_map(Op::kAllreduce, good_ranks, good_bytes, flat_default(),
                                       {}, wrong);
                       }),
                       "'pairwise' does not implement allreduce"));
  EXPECT_TRUE(contains(input_error_of([&] {
                         selection_map(Op::kAllreduce, good_ranks, good_bytes,
                                       [](std::int64_t) { return flat_topology(7, kDefaultLink); });
                       }),
                       "for 8 ranks has 7"));
}

// ---------------------------------------------------------------------------------------
// tie_bytes inside an interval (collective.h).

TEST(TieBytesInInterval, EqualsTheClosedFormAndRespectsTheInterval) {
  const Topology t = flat_topology(64, kDefaultLink);
  const double tie = 120 * 2.5e-6 * 25e9 / (6.0 - 126.0 / 64.0);
  for (const auto& [lo, hi] : {std::pair{1.0, 1e12}, std::pair{1e6, 2e6}, std::pair{0.0, 1e7}}) {
    const auto a = tie_bytes(Op::kAllreduce, kRd, kRing, lo, hi, t);
    ASSERT_TRUE(a);
    expect_relative(*a, tie, 1e-12 * 2, "rd, ring");
    const auto b = tie_bytes(Op::kAllreduce, kRing, kRd, lo, hi, t);  // either order
    ASSERT_TRUE(b);
    expect_relative(*b, tie, 1e-12 * 2, "ring, rd");
  }
  EXPECT_FALSE(tie_bytes(Op::kAllreduce, kRd, kRing, 1.0, 1e6, t));   // below the tie
  EXPECT_FALSE(tie_bytes(Op::kAllreduce, kRd, kRing, 2e6, 1e12, t));  // above it
  // Equal at both ends (the same algorithm): the low end.
  EXPECT_EQ(tie_bytes(Op::kAllreduce, kRing, kRing, 8.0, 16.0, t), 8.0);
  // A degenerate interval at the tie itself holds it.
  const auto at = tie_bytes(Op::kAllreduce, kRd, kRing, tie, tie, t);
  EXPECT_TRUE(!at || std::abs(*at - tie) <= 1e-9 * tie);
  EXPECT_TRUE(contains(input_error_of([&] { tie_bytes(Op::kAllreduce, kRd, kRing, 5, 4, t); }),
                       "[5, 4]"));
  EXPECT_TRUE(contains(input_error_of([&] { tie_bytes(Op::kAllreduce, kRd, kRing, -1, 4, t); }),
                       "[-1, 4]"));
}

// ---------------------------------------------------------------------------------------
// Library selectors.

struct Case {
  Op op;
  std::int64_t ranks;
  double bytes;
  std::string algorithm;  // the start of library_algorithm
  std::optional<AlgorithmSpec> modelled;
  std::string rule_part;  // a piece of the rule text: the branch that fired
  double element_bytes = 4.0;
};

std::string fmt_case(Selector selector, const Case& c) {
  return std::string(selector_name(selector)) + " " + std::string(op_name(c.op)) + " p=" +
         std::to_string(c.ranks) + " m=" + std::to_string(c.bytes) +
         " e=" + std::to_string(c.element_bytes);
}

void check_cases(Selector selector, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    const LibraryChoice choice =
        library_choice(selector, c.op, c.ranks, c.bytes, c.element_bytes);
    const std::string where = fmt_case(selector, c);
    EXPECT_EQ(choice.library_algorithm.substr(0, c.algorithm.size()), c.algorithm)
        << where << ": " << choice.library_algorithm;
    EXPECT_EQ(choice.modelled.has_value(), c.modelled.has_value()) << where;
    if (choice.modelled && c.modelled) {
      EXPECT_EQ(algorithm_name(*choice.modelled), algorithm_name(*c.modelled)) << where;
      EXPECT_TRUE(implements(c.op, *choice.modelled)) << where;
    }
    EXPECT_TRUE(contains(choice.rule, c.rule_part)) << where << ": " << choice.rule;
  }
}

TEST(MpichSelector, ClassicRulesAsWritten) {
  const std::vector<Case> cases = {
      // allreduce: nbytes <= 2048 or count < pof2 -> recursive doubling, else Rabenseifner.
      {Op::kAllreduce, 64, 256, "recursive doubling", kRd, "256 B <= 2048"},
      {Op::kAllreduce, 64, 2048, "recursive doubling", kRd, "2048 B <= 2048"},
      {Op::kAllreduce, 64, 2049, "Rabenseifner", kRab, "count 512 >= pof2 64"},
      {Op::kAllreduce, 64, 1 << 30, "Rabenseifner", kRab, "> 2048"},
      {Op::kAllreduce, 1024, 4096, "Rabenseifner", kRab, "count 1024 >= pof2 1024"},
      {Op::kAllreduce, 1024, 4092, "recursive doubling", kRd, "count 1023 < pof2 1024"},
      {Op::kAllreduce, 1000, 2052, "Rabenseifner", kRab, "count 513 >= pof2 512"},
      {Op::kAllreduce, 1000, 2049, "Rabenseifner", kRab, "count 512 >= pof2 512"},
      {Op::kAllreduce, 1000, 4096, "Rabenseifner", kRab, "count 512 >= pof2 512", 8.0},
      {Op::kAllreduce, 1000, 4096, "recursive doubling", kRd, "count 256 < pof2 512", 16.0},
      {Op::kAllreduce, 1, 0, "recursive doubling", kRd, "0 B <= 2048"},
      // bcast: < 12288 or p < 8 binomial; < 524288 and p a power of two: scatter +
      // recursive-doubling allgather; else scatter + ring allgather.
      {Op::kBroadcast, 8, 12287, "binomial tree", kBinomial, "12287 B < 12288"},
      {Op::kBroadcast, 8, 12288, "scatter + recursive-doubling allgather", kScatterAllgather,
       "p a power of two"},
      {Op::kBroadcast, 7, 1 << 20, "binomial tree", kBinomial, "or p 7 < 8 (MIN_PROCS)"},
      {Op::kBroadcast, 12, 12288, "scatter + ring allgather", kScatterAllgather,
       "not a power of two"},
      {Op::kBroadcast, 64, 524287, "scatter + recursive-doubling allgather", kScatterAllgather,
       "524287 B < 524288"},
      {Op::kBroadcast, 64, 524288, "scatter + ring allgather", kScatterAllgather,
       "nbytes = 524288 B >= 12288"},
      // reduce: > 2048 and count >= pof2 -> Rabenseifner (reduce-scatter + gather).
      {Op::kReduce, 64, 2048, "binomial tree", kBinomial, "2048 B <= 2048"},
      {Op::kReduce, 64, 2052, "Rabenseifner", kRab, "count 513 >= pof2 64"},
      {Op::kReduce, 1024, 2052, "binomial tree", kBinomial, "count 513 < pof2 1024"},
      // reduce-scatter (commutative): < 524288 recursive halving, else pairwise.
      {Op::kReduceScatter, 64, 524287, "recursive halving", kRh, "524287 B < 524288"},
      {Op::kReduceScatter, 64, 524288, "pairwise exchange (modelled as ring", kRing,
       "524288 B >= 524288"},
      {Op::kReduceScatter, 5, 100, "recursive halving", kRh, "100 B < 524288"},
      // allgather (total m): < 524288 and p a power of two -> recursive doubling; < 81920 ->
      // Bruck; else ring.
      {Op::kAllgather, 64, 524287, "recursive doubling", kRd, "524287 B < 524288"},
      {Op::kAllgather, 64, 524288, "ring", kRing, "524288 B >= 524288"},
      {Op::kAllgather, 64, 100, "recursive doubling", kRd, "100 B < 524288"},
      {Op::kAllgather, 24, 81919, "Bruck", kBruck, "81919 B < 81920"},
      {Op::kAllgather, 24, 81920, "ring", kRing, "81920 B >= 81920"},
      // alltoall (per destination m/p): <= 256 and p >= 8 -> Bruck; <= 32768 -> scattered
      // (not modelled); else pairwise.
      {Op::kAlltoall, 8, 2048, "Bruck", kBruck, "per destination 256 B <= 256"},
      {Op::kAlltoall, 8, 2056, "scattered isend/irecv", std::nullopt, "257 B <= 32768"},
      {Op::kAlltoall, 4, 64, "scattered isend/irecv", std::nullopt, "p < 8"},
      {Op::kAlltoall, 8, 262144, "scattered isend/irecv", std::nullopt, "32768 B <= 32768"},
      {Op::kAlltoall, 8, 262152, "pairwise exchange", kPairwise, "32769 B > 32768"},
      // barrier: dissemination.
      {Op::kBarrier, 13, 0, "dissemination", kDissemination, "p = 13"},
      {Op::kBarrier, 64, 4096, "dissemination", kDissemination, "dissemination"},
  };
  check_cases(Selector::kMpich, cases);
  EXPECT_TRUE(contains(library_choice(Selector::kMpich, Op::kAllreduce, 64, 4096).rule,
                       "MPICH 3.2"));
}

TEST(OpenMpiSelector, AllreduceTableBucketsAndFallbacks) {
  const std::vector<Case> cases = {
      // p < 4: <8 ring, <4096 rd, <8192 ring, <16384 rd, <65536 ring, <262144 seg ring, else
      // Rabenseifner. Ring with count < p runs recursive doubling.
      {Op::kAllreduce, 2, 7, "recursive doubling (fallback from ring)", kRd,
       "count 1 < p = 2"},
      {Op::kAllreduce, 2, 8, "recursive doubling", kRd, "8 <= m < 4096) -> recursive doubling (3)"},
      {Op::kAllreduce, 2, 4095, "recursive doubling", kRd, "(3)"},
      {Op::kAllreduce, 2, 4096, "ring", kRing, "4096 <= m < 8192) -> ring (4)"},
      {Op::kAllreduce, 2, 8191, "ring", kRing, "(4)"},
      {Op::kAllreduce, 2, 8192, "recursive doubling", kRd, "(3)"},
      {Op::kAllreduce, 2, 16384, "ring", kRing, "16384 <= m < 65536"},
      {Op::kAllreduce, 2, 65536, "ring (fallback from segmented ring)", kRing,
       "segment size 0 runs ring"},
      {Op::kAllreduce, 2, 262144, "Rabenseifner", kRab, "m >= 262144) -> Rabenseifner (6)"},
      {Op::kAllreduce, 3, 262143, "ring (fallback from segmented ring)", kRing, "(5)"},
      // 4 <= p < 8: <16 ring, <8192 rd, else Rabenseifner.
      {Op::kAllreduce, 4, 15, "recursive doubling (fallback from ring)", kRd, "count 3 < p = 4"},
      {Op::kAllreduce, 4, 16, "recursive doubling", kRd, "p = 4 (4 <= p < 8)"},
      {Op::kAllreduce, 4, 8192, "Rabenseifner", kRab, "(6)"},
      // 16 <= p < 32: <64 seg ring, <4096 rd, else Rabenseifner.
      {Op::kAllreduce, 24, 63, "recursive doubling (fallback from segmented ring)", kRd,
       "count 15 < p = 24"},
      {Op::kAllreduce, 24, 64, "recursive doubling", kRd, "64 <= m < 4096"},
      {Op::kAllreduce, 24, 4096, "Rabenseifner", kRab, "m >= 4096) -> Rabenseifner (6)"},
      // 32 <= p < 64: <128 seg ring, else Rabenseifner.
      {Op::kAllreduce, 32, 127, "recursive doubling (fallback from segmented ring)", kRd,
       "count 31 < p = 32"},
      {Op::kAllreduce, 32, 128, "Rabenseifner", kRab, "p = 32 (32 <= p < 64)"},
      {Op::kAllreduce, 48, 124, "recursive doubling (fallback from segmented ring)", kRd,
       "count 31 < p = 48"},
      // 64 <= p < 128: <262144 rd, else Rabenseifner.
      {Op::kAllreduce, 64, 4096, "recursive doubling", kRd,
       "p = 64 (64 <= p < 128), m = 4096 B (m < 262144) -> recursive doubling (3)"},
      {Op::kAllreduce, 64, 262143, "recursive doubling", kRd, "(3)"},
      {Op::kAllreduce, 64, 262144, "Rabenseifner", kRab, "m >= 262144"},
      // 128 <= p < 256: <131072 nonoverlapping, <262144 rd, else Rabenseifner.
      {Op::kAllreduce, 200, 131071, "nonoverlapping", std::nullopt, "(2)"},
      {Op::kAllreduce, 200, 131072, "recursive doubling", kRd, "131072 <= m < 262144"},
      {Op::kAllreduce, 200, 262144, "Rabenseifner", kRab, "(6)"},
      // 256 <= p < 512: <4096 nonoverlapping, else Rabenseifner (count < pof2 -> linear).
      {Op::kAllreduce, 300, 4095, "nonoverlapping", std::nullopt, "256 <= p < 512"},
      {Op::kAllreduce, 300, 4096, "Rabenseifner", kRab, "(6)"},
      {Op::kAllreduce, 300, 4096, "Rabenseifner", kRab, "(6)", 8.0},  // count 512 >= 256
      {Op::kAllreduce, 300, 4096, "basic linear (fallback from Rabenseifner)", std::nullopt,
       "count 128 < pof2 = 256", 32.0},
      // 512 <= p < 2048: <2048 nonoverlapping, <16384 rd, else Rabenseifner.
      {Op::kAllreduce, 1000, 2047, "nonoverlapping", std::nullopt, "512 <= p < 2048"},
      {Op::kAllreduce, 1000, 2048, "recursive doubling", kRd, "2048 <= m < 16384"},
      {Op::kAllreduce, 1000, 16384, "Rabenseifner", kRab, "m >= 16384"},
      // 2048 <= p < 4096: <2048 nonoverlapping, <4096 seg ring, <16384 rd, else Rabenseifner.
      {Op::kAllreduce, 3000, 2048, "recursive doubling (fallback from segmented ring)", kRd,
       "count 512 < p = 3000"},
      {Op::kAllreduce, 3000, 4096, "recursive doubling", kRd, "(3)"},
      {Op::kAllreduce, 3000, 16384, "Rabenseifner", kRab, "(6)"},
      // p >= 4096: <2048 nonoverlapping, <16384 seg ring, <32768 rd, else Rabenseifner.
      {Op::kAllreduce, 5000, 2048, "recursive doubling (fallback from segmented ring)", kRd,
       "p = 5000 (p >= 4096)"},
      {Op::kAllreduce, 5000, 16384, "recursive doubling", kRd, "16384 <= m < 32768"},
      {Op::kAllreduce, 5000, 32768, "Rabenseifner", kRab, "m >= 32768) -> Rabenseifner (6)"},
      {Op::kAllreduce, 5000, 32768, "basic linear (fallback from Rabenseifner)", std::nullopt,
       "count 2048 < pof2 = 4096", 16.0},
  };
  check_cases(Selector::kOpenMpi, cases);
  // No fallback text when none fires: count 1024 >= pof2 16 at 24 ranks.
  const auto at24 = library_choice(Selector::kOpenMpi, Op::kAllreduce, 24, 4096);
  EXPECT_EQ(at24.library_algorithm, "Rabenseifner");
  EXPECT_FALSE(contains(at24.rule, ";")) << at24.rule;
  // The 4096-byte element case: count 1 < p = 2, so even the ring falls back.
  const auto big = library_choice(Selector::kOpenMpi, Op::kAllreduce, 2, 4096, 4096);
  EXPECT_EQ(big.library_algorithm, "recursive doubling (fallback from ring)");
}

// The work buffers each library's all-reduce code allocates per call, for what runs.
TEST(LibrarySelectors, AllreduceWorkBuffers) {
  using V = std::vector<WorkBuffer>;
  constexpr double kM = 32.0 * 1024 * 1024;
  // Open MPI: Rabenseifner (redscat_allgather) one buffer of m, half of it written; ring one
  // of m/p at p = 2 and two at p > 2; recursive doubling m, all written.
  EXPECT_EQ(library_choice(Selector::kOpenMpi, Op::kAllreduce, 2, kM).work_buffers,
            (V{{kM, kM / 2}}));
  EXPECT_EQ(library_choice(Selector::kOpenMpi, Op::kAllreduce, 2, 4096).work_buffers,
            (V{{2048, 2048}}));
  const double third = 262143.0 / 3;
  EXPECT_EQ(library_choice(Selector::kOpenMpi, Op::kAllreduce, 3, 262143).work_buffers,
            (V{{third, third}, {third, third}}));
  EXPECT_EQ(library_choice(Selector::kOpenMpi, Op::kAllreduce, 2, 8).work_buffers, (V{{8, 8}}));
  // A pick the model has no counterpart for is not priced, so it lists none.
  EXPECT_TRUE(library_choice(Selector::kOpenMpi, Op::kAllreduce, 200, 131071).work_buffers.empty());
  // MPICH: recursive doubling m, all written; Rabenseifner m, half written.
  EXPECT_EQ(library_choice(Selector::kMpich, Op::kAllreduce, 8, 1024).work_buffers,
            (V{{1024, 1024}}));
  EXPECT_EQ(library_choice(Selector::kMpich, Op::kAllreduce, 8, kM).work_buffers,
            (V{{kM, kM / 2}}));
  // Other ops, and one rank: none.
  for (const Selector s : kAllSelectors) {
    EXPECT_TRUE(library_choice(s, Op::kAllreduce, 1, kM).work_buffers.empty());
    EXPECT_TRUE(library_choice(s, Op::kAllgather, 8, kM).work_buffers.empty());
    EXPECT_TRUE(library_choice(s, Op::kBroadcast, 8, kM).work_buffers.empty());
  }
}

TEST(OpenMpiSelector, OtherCollectives) {
  const std::vector<Case> cases = {
      // reduce_scatter (total m).
      {Op::kReduceScatter, 2, 65535, "ring", kRing, "m < 65536) -> ring (3)"},
      {Op::kReduceScatter, 2, 65536, "butterfly (modelled as recursive-halving", kRh, "(4)"},
      {Op::kReduceScatter, 2, 131072, "ring", kRing, "m >= 131072"},
      {Op::kReduceScatter, 4, 7, "nonoverlapping", std::nullopt, "(1)"},
      {Op::kReduceScatter, 4, 8, "recursive halving", kRh, "8 <= m < 262144"},
      {Op::kReduceScatter, 4, 262144, "ring", kRing, "(3)"},
      {Op::kReduceScatter, 48, 63, "nonoverlapping", std::nullopt, "32 <= p < 64"},
      {Op::kReduceScatter, 48, 64, "recursive halving", kRh, "(2)"},
      {Op::kReduceScatter, 48, 2048, "butterfly", kRh, "2048 <= m < 524288"},
      {Op::kReduceScatter, 48, 524288, "ring", kRing, "(3)"},
      {Op::kReduceScatter, 100, 4096, "butterfly", kRh, "m >= 4096"},
      // allgather (one rank's block m/p).
      {Op::kAllgather, 2, 1 << 20, "two-process exchange (modelled as ring", kRing,
       "p = 2, m/p = 524288 B (any size) -> two-process exchange (6)"},
      {Op::kAllgather, 16, 1 << 30, "recursive doubling", kRd, "p = 16 (p < 32), m/p = 67108864 B (any size)"},
      {Op::kAllgather, 24, 2400, "Bruck (fallback from recursive doubling)", kBruck,
       "p = 24 not a power of two"},
      {Op::kAllgather, 32, 32 * 1023.0, "recursive doubling", kRd, "m/p = 1023 B (m/p < 1024)"},
      {Op::kAllgather, 32, 32 * 1024.0, "neighbor exchange", std::nullopt, "(5)"},
      {Op::kAllgather, 32, 32 * 65536.0, "ring", kRing, "m/p >= 65536"},
      {Op::kAllgather, 33, 33 * 2000.0, "ring (fallback from neighbor exchange)", kRing,
       "odd p = 33"},
      {Op::kAllgather, 33, 33 * 100.0, "Bruck (fallback from recursive doubling)", kBruck,
       "(3)"},
      {Op::kAllgather, 256, 256 * 31.0, "recursive doubling", kRd, "256 <= p < 512"},
      {Op::kAllgather, 256, 256 * 32.0, "Bruck", kBruck, "32 <= m/p < 128"},
      {Op::kAllgather, 600, 600 * 64.0, "Bruck", kBruck, "64 <= m/p < 256) -> Bruck (2)"},
      {Op::kAllgather, 600, 600 * 256.0, "Bruck (fallback from recursive doubling)", kBruck,
       "(3)"},
      {Op::kAllgather, 600, 600 * 2048.0, "neighbor exchange", std::nullopt, "m/p >= 2048"},
      // bcast (whole m); scatter-allgather with count < p runs basic linear.
      {Op::kBroadcast, 2, 31, "pipeline", std::nullopt, "m < 32) -> pipeline (3)"},
      {Op::kBroadcast, 2, 524288, "binomial tree", kBinomial, "(6)"},
      {Op::kBroadcast, 2, 1 << 20, "binary tree", std::nullopt, "m >= 1048576"},
      {Op::kBroadcast, 4, 63, "binary tree", std::nullopt, "(5)"},
      {Op::kBroadcast, 4, 64, "binomial tree", kBinomial, "64 <= m < 128"},
      {Op::kBroadcast, 16, 4096, "binomial tree", kBinomial, "(6)"},
      {Op::kBroadcast, 16, 1 << 20, "scatter + recursive-doubling allgather", kScatterAllgather,
       "m >= 1048576) -> scatter + recursive-doubling allgather (8)"},
      {Op::kBroadcast, 32, 2047, "binomial tree", kBinomial, "32 <= p < 64"},
      {Op::kBroadcast, 32, 2048, "knomial tree", std::nullopt, "(7)"},
      {Op::kBroadcast, 100, 1, "knomial tree", std::nullopt, "any size"},
      {Op::kBroadcast, 1500, 524287, "knomial tree", std::nullopt, "m < 524288"},
      {Op::kBroadcast, 1500, 524288, "scatter + recursive-doubling allgather",
       kScatterAllgather, "(8)"},
      {Op::kBroadcast, 5000, 262144, "scatter + recursive-doubling allgather",
       kScatterAllgather, "p >= 4096"},
      {Op::kBroadcast, 5000, 262144, "basic linear (fallback from scatter", std::nullopt,
       "count 4096 < p = 5000", 64.0},
      // reduce (commutative); Rabenseifner with count < pof2 runs basic linear.
      {Op::kReduce, 2, 7, "basic linear (fallback from Rabenseifner", std::nullopt,
       "count 1 < pof2 = 2"},
      {Op::kReduce, 2, 7, "Rabenseifner", kRab, "m < 8) -> Rabenseifner", 1.0},
      {Op::kReduce, 2, 8, "binary tree", std::nullopt, "8 <= m < 16"},
      {Op::kReduce, 12, 8191, "binary tree", std::nullopt, "8 <= p < 16"},
      {Op::kReduce, 12, 8192, "binomial tree", kBinomial, "m >= 8192"},
      {Op::kReduce, 16, 4095, "binary tree", std::nullopt, "16 <= p < 32"},
      {Op::kReduce, 16, 4096, "binomial tree", kBinomial, "m >= 4096"},
      {Op::kReduce, 100, 1 << 20, "binomial tree", kBinomial, "any size"},
      {Op::kReduce, 300, 8192, "in-order binary tree", std::nullopt, "8192 <= m < 16384"},
      // alltoall (block per destination m/p).
      {Op::kAlltoall, 2, 2, "pairwise exchange", kPairwise, "m/p = 1 B (m/p < 2)"},
      {Op::kAlltoall, 2, 4, "two-process exchange (modelled as pairwise", kPairwise, "(5)"},
      {Op::kAlltoall, 2, 8, "pairwise exchange", kPairwise, "4 <= m/p < 16"},
      {Op::kAlltoall, 4, 4 * 8191.0, "linear with synchronisation", std::nullopt, "(4)"},
      {Op::kAlltoall, 4, 4 * 524288.0, "pairwise exchange", kPairwise, "(2)"},
      {Op::kAlltoall, 20, 20 * 3.0, "linear with synchronisation", std::nullopt, "m/p < 4"},
      {Op::kAlltoall, 20, 20 * 4.0, "modified Bruck", kBruck, "4 <= m/p < 512"},
      {Op::kAlltoall, 64, 64 * 1023.0, "modified Bruck", kBruck, "64 <= p < 128"},
      {Op::kAlltoall, 64, 64 * 1024.0, "basic linear", std::nullopt, "1024 <= m/p < 2048"},
      {Op::kAlltoall, 64, 64 * 262144.0, "pairwise exchange", kPairwise, "m/p >= 262144"},
      {Op::kAlltoall, 5000, 5000 * 65536.0, "linear with synchronisation", std::nullopt,
       "p >= 4096"},
      // barrier (communicator size only).
      {Op::kBarrier, 2, 0, "recursive doubling", std::nullopt, "p = 2 (p < 4) -> recursive doubling (3)"},
      {Op::kBarrier, 5, 0, "basic linear", std::nullopt, "(1)"},
      {Op::kBarrier, 8, 0, "recursive doubling", std::nullopt, "8 <= p < 64"},
      {Op::kBarrier, 64, 0, "Bruck (modelled as dissemination", kDissemination, "(4)"},
      {Op::kBarrier, 256, 0, "tree", std::nullopt, "256 <= p < 512"},
      {Op::kBarrier, 512, 0, "Bruck", kDissemination, "512 <= p < 1024"},
      {Op::kBarrier, 1024, 0, "tree", std::nullopt, "(6)"},
      {Op::kBarrier, 4096, 0, "Bruck", kDissemination, "p >= 4096"},
  };
  check_cases(Selector::kOpenMpi, cases);
}

TEST(Selectors, NamesAndBadInput) {
  for (const Selector s : kAllSelectors) {
    EXPECT_EQ(parse_selector(selector_name(s)), s);
    EXPECT_FALSE(selector_description(s).empty());
  }
  EXPECT_EQ(parse_selector("openmpi"), Selector::kOpenMpi);
  EXPECT_EQ(parse_selector("open-mpi"), Selector::kOpenMpi);
  const std::string bad = input_error_of([] { parse_selector("intel"); });
  EXPECT_TRUE(contains(bad, "'intel'")) << bad;
  EXPECT_TRUE(contains(bad, "mpich, ompi")) << bad;
  for (const Selector s : kAllSelectors) {
    EXPECT_TRUE(contains(input_error_of([&] { library_choice(s, Op::kAllreduce, 0, 8); }),
                         "rank count 0"));
    EXPECT_TRUE(contains(input_error_of([&] { library_choice(s, Op::kAllreduce, -2, 8); }),
                         "rank count -2"));
    EXPECT_TRUE(contains(input_error_of([&] { library_choice(s, Op::kAllreduce, 8, -1); }),
                         "-1 B"));
    EXPECT_TRUE(contains(input_error_of([&] {
                           library_choice(s, Op::kAllreduce, 8,
                                          std::numeric_limits<double>::infinity());
                         }),
                         "inf"));
    EXPECT_TRUE(contains(input_error_of([&] { library_choice(s, Op::kAllreduce, 8, 8, 0); }),
                         "element size 0"));
    EXPECT_TRUE(contains(input_error_of([&] { library_choice(s, Op::kAllreduce, 8, 8, -4); }),
                         "element size -4"));
  }
}

// Every (selector, op, ranks, bytes) yields a rule and, when modelled, an algorithm the model
// can cost for that op.
TEST(Selectors, EveryCallHasAnExplainedChoice) {
  for (const Selector s : kAllSelectors) {
    for (const Op op : kAllOps) {
      for (const std::int64_t p : {1, 2, 3, 5, 8, 13, 24, 64, 100, 513, 2048, 5000}) {
        for (const double m : {0.0, 1.0, 7.0, 4097.0, 65536.0, 1e6 + 3, 1e9}) {
          const LibraryChoice c = library_choice(s, op, p, m);
          EXPECT_FALSE(c.library_algorithm.empty());
          EXPECT_FALSE(c.rule.empty());
          if (c.modelled) {
            EXPECT_TRUE(implements(op, *c.modelled))
                << selector_name(s) << " " << op_name(op) << " " << c.library_algorithm;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace scalewall
