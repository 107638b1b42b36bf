// Implementation of scalewall/analysis/select.h.
//
// The selection map ranks every candidate at every grid cell (collective.h's rank_algorithms)
// and places each change of winner at the exact tie of the two winners inside the grid
// interval (collective.h's interval tie_bytes), so a switch point never depends on the grid.
//
// The library selectors are the libraries' decision code transcribed as data: MPICH 3.2's
// threshold tests on its default CVARs, and Open MPI 4.1's coll/tuned fixed decision tables
// (one band per range of communicator sizes, one algorithm per range of message sizes),
// followed by the run-time fallbacks inside the algorithms they pick. docs/models.md lists
// the sources, files and versions.
#include "scalewall/analysis/select.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <utility>

#include "scalewall/base/error.h"
#include "scalewall/model/scaling.h"

namespace scalewall {
namespace {

// ---------------------------------------------------------------------------------------
// Selection map.

void require_grids(std::span<const std::int64_t> ranks, std::span<const double> bytes) {
  if (ranks.empty()) throw InputError("selection map: the list of rank counts is empty");
  if (bytes.empty()) throw InputError("selection map: the list of sizes is empty");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    require_rank_count(ranks[i], "selection map: rank count");
    if (i > 0 && ranks[i] <= ranks[i - 1]) {
      throw InputError(fmt::format(
          "selection map: rank counts must be strictly ascending ({} follows {})", ranks[i],
          ranks[i - 1]));
    }
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (!std::isfinite(bytes[i]) || !(bytes[i] >= 0.0)) {
      throw InputError(
          fmt::format("selection map: size {} B is negative or not a finite number", bytes[i]));
    }
    if (i > 0 && bytes[i] <= bytes[i - 1]) {
      throw InputError(fmt::format(
          "selection map: sizes must be strictly ascending ({} B follows {} B)", bytes[i],
          bytes[i - 1]));
    }
  }
}

std::vector<AlgorithmSpec> candidates_at(Op op, const Topology& topology,
                                         std::span<const AlgorithmSpec> wanted) {
  std::vector<AlgorithmSpec> applicable = applicable_algorithms(op, topology);
  if (wanted.empty()) return applicable;
  std::vector<AlgorithmSpec> chosen;
  for (const AlgorithmSpec& s : wanted) {
    if (std::find(applicable.begin(), applicable.end(), s) != applicable.end() &&
        std::find(chosen.begin(), chosen.end(), s) == chosen.end()) {
      chosen.push_back(s);
    }
  }
  if (chosen.empty()) {
    throw InputError(fmt::format(
        "selection map: none of the candidate algorithms applies to {} at {} ranks", op_name(op),
        topology.ranks()));
  }
  return chosen;
}

}  // namespace

SelectionMap selection_map(Op op, std::span<const std::int64_t> ranks,
                           std::span<const double> bytes,
                           const std::function<Topology(std::int64_t)>& topology_for,
                           const CostOptions& options,
                           std::span<const AlgorithmSpec> candidates) {
  require_grids(ranks, bytes);
  for (const AlgorithmSpec& s : candidates) {
    if (!implements(op, s)) {
      throw InputError(fmt::format("selection map: algorithm '{}' does not implement {}",
                                   algorithm_name(s), op_name(op)));
    }
  }
  SelectionMap map;
  map.op = op;
  map.bytes.assign(bytes.begin(), bytes.end());
  for (const std::int64_t n : ranks) {
    const Topology topology = topology_for(n);
    if (topology.ranks() != n) {
      throw InputError(fmt::format("selection map: the topology for {} ranks has {} ranks", n,
                                   topology.ranks()));
    }
    const std::vector<AlgorithmSpec> specs = candidates_at(op, topology, candidates);
    SelectionRow row;
    row.ranks = n;
    for (const double m : bytes) {
      const std::vector<CollectiveCost> ranked = rank_algorithms(op, specs, m, topology, options);
      row.winner.push_back(ranked.front().algorithm);
      row.total_s.push_back(ranked.front().total_s);
    }
    for (std::size_t j = 0; j + 1 < bytes.size(); ++j) {
      const AlgorithmSpec& from = row.winner[j];
      const AlgorithmSpec& to = row.winner[j + 1];
      if (from == to) continue;
      // `from` is no dearer at bytes[j] and `to` is at bytes[j + 1] (strictly, or equal and
      // earlier in candidate order), so the difference brackets a change.
      const std::optional<double> tie =
          tie_bytes(op, from, to, bytes[j], bytes[j + 1], topology, options);
      SCALEWALL_CHECK(tie.has_value());
      row.switches.push_back({from, to, *tie});
    }
    map.rows.push_back(std::move(row));
  }
  return map;
}

// ---------------------------------------------------------------------------------------
// Library selectors.

namespace {

std::int64_t floor_pow2(std::int64_t p) {
  return std::int64_t{1} << (std::bit_width(static_cast<std::uint64_t>(p)) - 1);
}
bool is_pow2(std::int64_t p) { return std::has_single_bit(static_cast<std::uint64_t>(p)); }

// A number as the libraries' integer thresholds read: 4096, 93023.25.
std::string num(double v) { return fmt::format("{}", v); }

AlgorithmSpec spec(Algorithm a) { return {a, Algorithm::kRing}; }

// What a rule picked, before and after the algorithm's own run-time fallbacks.
struct Pick {
  std::string name;                       // the library's name of what runs
  std::optional<AlgorithmSpec> modelled;  // the model's counterpart
  std::string modelled_note;              // "" when modelled is the same algorithm
};

LibraryChoice finish_choice(const Pick& pick, std::string rule) {
  LibraryChoice c;
  c.library_algorithm = pick.name;
  if (!pick.modelled_note.empty()) c.library_algorithm += " (" + pick.modelled_note + ")";
  c.modelled = pick.modelled;
  c.rule = std::move(rule);
  return c;
}

// ---- MPICH 3.2 classic (MPIR_<Op>_intra, default CVARs) ----

constexpr double kMpichAllreduceShort = 2048;      // MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
constexpr double kMpichBcastShort = 12288;         // MPIR_CVAR_BCAST_SHORT_MSG_SIZE
constexpr double kMpichBcastLong = 524288;         // MPIR_CVAR_BCAST_LONG_MSG_SIZE
constexpr std::int64_t kMpichBcastMinProcs = 8;    // MPIR_CVAR_BCAST_MIN_PROCS
constexpr double kMpichReduceShort = 2048;         // MPIR_CVAR_REDUCE_SHORT_MSG_SIZE
constexpr double kMpichRedscatLong = 524288;       // MPIR_CVAR_REDSCAT_COMMUTATIVE_LONG_MSG_SIZE
constexpr double kMpichAllgatherShort = 81920;     // MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE
constexpr double kMpichAllgatherLong = 524288;     // MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE
constexpr double kMpichAlltoallShort = 256;        // MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE
constexpr double kMpichAlltoallMedium = 32768;     // MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE

// One MPICH call: the rule text's start, p, nbytes, the element count and the largest power of
// two <= p.
struct MpichCall {
  std::string head;
  std::int64_t p;
  double m;
  double count;
  std::int64_t pof2;
};

LibraryChoice mpich_allreduce(const MpichCall& call) {
  const auto& [head, p, m, count, pof2] = call;
  const Pick rd{"recursive doubling", spec(Algorithm::kRecursiveDoubling), ""};
  const Pick rb{"Rabenseifner reduce-scatter + allgather", spec(Algorithm::kRabenseifner),
                ""};
  if (m <= kMpichAllreduceShort) {
    return finish_choice(rd, head + fmt::format("nbytes = {} B <= {} (SHORT_MSG_SIZE) -> "
                                                "recursive doubling",
                                                num(m), num(kMpichAllreduceShort)));
  }
  if (count < static_cast<double>(pof2)) {
    return finish_choice(rd, head + fmt::format("nbytes = {} B > {} but count {} < pof2 {} "
                                                "-> recursive doubling",
                                                num(m), num(kMpichAllreduceShort),
                                                num(count), pof2));
  }
  return finish_choice(rb, head + fmt::format("nbytes = {} B > {} (SHORT_MSG_SIZE) and "
                                              "count {} >= pof2 {} -> Rabenseifner",
                                              num(m), num(kMpichAllreduceShort), num(count),
                                              pof2));
}

LibraryChoice mpich_broadcast(const MpichCall& call) {
  const auto& [head, p, m, count, pof2] = call;
  if (m < kMpichBcastShort || p < kMpichBcastMinProcs) {
    return finish_choice(
        {"binomial tree", spec(Algorithm::kBinomialTree), ""},
        head + fmt::format("nbytes = {} B {} {} (SHORT_MSG_SIZE) or p {} {} {} (MIN_PROCS) "
                           "-> binomial",
                           num(m), m < kMpichBcastShort ? "<" : ">=",
                           num(kMpichBcastShort), p, p < kMpichBcastMinProcs ? "<" : ">=",
                           kMpichBcastMinProcs));
  }
  if (m < kMpichBcastLong && is_pow2(p)) {
    return finish_choice(
        {"scatter + recursive-doubling allgather", spec(Algorithm::kScatterAllgather),
         "modelled as scatter-allgather, whose all-gather is a ring"},
        head + fmt::format("{} <= nbytes = {} B < {} (LONG_MSG_SIZE), p >= {}, p a power "
                           "of two -> scatter + recursive-doubling allgather",
                           num(kMpichBcastShort), num(m), num(kMpichBcastLong),
                           kMpichBcastMinProcs));
  }
  return finish_choice(
      {"scatter + ring allgather", spec(Algorithm::kScatterAllgather), ""},
      head + fmt::format("nbytes = {} B >= {}, p >= {}, and nbytes >= {} (LONG_MSG_SIZE) "
                         "or p not a power of two -> scatter + ring allgather",
                         num(m), num(kMpichBcastShort), kMpichBcastMinProcs,
                         num(kMpichBcastLong)));
}

LibraryChoice mpich_reduce(const MpichCall& call) {
  const auto& [head, p, m, count, pof2] = call;
  if (m > kMpichReduceShort && count >= static_cast<double>(pof2)) {
    return finish_choice(
        {"Rabenseifner reduce-scatter + binomial gather", spec(Algorithm::kRabenseifner),
         ""},
        head + fmt::format("nbytes = {} B > {} (SHORT_MSG_SIZE) and count {} >= pof2 {} "
                           "-> reduce-scatter + gather",
                           num(m), num(kMpichReduceShort), num(count), pof2));
  }
  return finish_choice(
      {"binomial tree", spec(Algorithm::kBinomialTree), ""},
      head + (m <= kMpichReduceShort
                  ? fmt::format("nbytes = {} B <= {} (SHORT_MSG_SIZE) -> binomial", num(m),
                                num(kMpichReduceShort))
                  : fmt::format("nbytes = {} B > {} but count {} < pof2 {} -> binomial",
                                num(m), num(kMpichReduceShort), num(count), pof2)));
}

LibraryChoice mpich_reduce_scatter(const MpichCall& call) {
  const auto& [head, p, m, count, pof2] = call;
  if (m < kMpichRedscatLong) {
    return finish_choice(
        {"recursive halving", spec(Algorithm::kRecursiveHalving), ""},
        head + fmt::format("commutative, nbytes = {} B < {} (COMMUTATIVE_LONG_MSG_SIZE) -> "
                           "recursive halving",
                           num(m), num(kMpichRedscatLong)));
  }
  return finish_choice(
      {"pairwise exchange", spec(Algorithm::kRing),
       "modelled as ring: the same N-1 steps of m/N, to a different partner each step"},
      head + fmt::format("commutative, nbytes = {} B >= {} (COMMUTATIVE_LONG_MSG_SIZE) -> "
                         "pairwise",
                         num(m), num(kMpichRedscatLong)));
}

LibraryChoice mpich_allgather(const MpichCall& call) {
  const auto& [head, p, m, count, pof2] = call;
  if (m < kMpichAllgatherLong && is_pow2(p)) {
    return finish_choice(
        {"recursive doubling", spec(Algorithm::kRecursiveDoubling), ""},
        head + fmt::format("total = {} B < {} (LONG_MSG_SIZE), p a power of two -> "
                           "recursive doubling",
                           num(m), num(kMpichAllgatherLong)));
  }
  if (m < kMpichAllgatherShort) {
    return finish_choice(
        {"Bruck", spec(Algorithm::kBruck), ""},
        head + fmt::format("total = {} B < {} (SHORT_MSG_SIZE), p not a power of two -> "
                           "Bruck",
                           num(m), num(kMpichAllgatherShort)));
  }
  return finish_choice(
      {"ring", spec(Algorithm::kRing), ""},
      head + (is_pow2(p) ? fmt::format("total = {} B >= {} (LONG_MSG_SIZE) -> ring", num(m),
                                       num(kMpichAllgatherLong))
                         : fmt::format("total = {} B >= {} (SHORT_MSG_SIZE), p not a power "
                                       "of two -> ring",
                                       num(m), num(kMpichAllgatherShort))));
}

LibraryChoice mpich_alltoall(const MpichCall& call) {
  const auto& [head, p, m, count, pof2] = call;
  const double block = m / static_cast<double>(p);
  if (block <= kMpichAlltoallShort && p >= 8) {
    return finish_choice(
        {"Bruck", spec(Algorithm::kBruck), ""},
        head + fmt::format("per destination {} B <= {} (SHORT_MSG_SIZE) and p >= 8 -> "
                           "Bruck",
                           num(block), num(kMpichAlltoallShort)));
  }
  if (block <= kMpichAlltoallMedium) {
    return finish_choice(
        {"scattered isend/irecv", std::nullopt, ""},
        head + fmt::format("per destination {} B <= {} (MEDIUM_MSG_SIZE){} -> scattered "
                           "isend/irecv",
                           num(block), num(kMpichAlltoallMedium),
                           block <= kMpichAlltoallShort ? ", p < 8" : ""));
  }
  return finish_choice({"pairwise exchange", spec(Algorithm::kPairwise), ""},
                       head + fmt::format("per destination {} B > {} (MEDIUM_MSG_SIZE) -> "
                                          "pairwise",
                                          num(block), num(kMpichAlltoallMedium)));
}

LibraryChoice mpich_barrier(const MpichCall& call) {
  const auto& [head, p, m, count, pof2] = call;
  return finish_choice({"dissemination", spec(Algorithm::kDissemination), ""},
                       fmt::format("MPICH 3.2 classic: barrier, p = {} -> dissemination "
                                   "(the only algorithm)",
                                   p));
}

LibraryChoice mpich_choice(Op op, std::int64_t p, double m, double count) {
  const MpichCall call{fmt::format("MPICH 3.2 classic: {}, p = {}, ", op_name(op), p), p, m,
                       count, floor_pow2(p)};
  switch (op) {
    case Op::kAllreduce:
      return mpich_allreduce(call);
    case Op::kBroadcast:
      return mpich_broadcast(call);
    case Op::kReduce:
      return mpich_reduce(call);
    case Op::kReduceScatter:
      return mpich_reduce_scatter(call);
    case Op::kAllgather:
      return mpich_allgather(call);
    case Op::kAlltoall:
      return mpich_alltoall(call);
    case Op::kBarrier:
      return mpich_barrier(call);
  }
  SCALEWALL_CHECK(false && "unknown Op");
  return {};
}

// ---- Open MPI 4.1 coll/tuned fixed decision tables (commutative operation) ----

// size < below -> alg, first match; none matching -> Band::otherwise.
struct SizeStep {
  double below;
  int alg;
};

// A band of communicator sizes: p < p_below (after the earlier bands), p == p_below when
// `exact`, or every p left when p_below is 0.
struct Band {
  std::int64_t p_below;
  bool exact;
  std::vector<SizeStep> steps;
  int otherwise;
};

using DecisionTable = std::vector<Band>;

// ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, v4.1.x, commutative branches: one table
// per operation.

const DecisionTable& ompi_allreduce_table() {
  static const DecisionTable table = {
      {4, false, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}}, 6},
      {8, false, {{16, 4}, {8192, 3}}, 6},
      {16, false, {{8192, 3}}, 6},
      {32, false, {{64, 5}, {4096, 3}}, 6},
      {64, false, {{128, 5}}, 6},
      {128, false, {{262144, 3}}, 6},
      {256, false, {{131072, 2}, {262144, 3}}, 6},
      {512, false, {{4096, 2}}, 6},
      {2048, false, {{2048, 2}, {16384, 3}}, 6},
      {4096, false, {{2048, 2}, {4096, 5}, {16384, 3}}, 6},
      {0, false, {{2048, 2}, {16384, 5}, {32768, 3}}, 6},
  };
  return table;
}

const DecisionTable& ompi_reduce_scatter_table() {
  static const DecisionTable table = {
      {4, false, {{65536, 3}, {131072, 4}}, 3},
      {8, false, {{8, 1}, {262144, 2}}, 3},
      {32, false, {{262144, 2}}, 3},
      {64, false, {{64, 1}, {2048, 2}, {524288, 4}}, 3},
      {128, false, {{256, 1}, {512, 2}, {2048, 4}, {4096, 2}}, 4},
      {256, false, {{256, 1}, {512, 2}}, 4},
      {512, false, {{256, 1}, {1024, 2}}, 4},
      {1024, false, {{512, 1}, {2048, 2}, {8192, 4}, {16384, 2}}, 4},
      {2048, false, {{512, 1}, {4096, 2}, {16384, 4}, {32768, 2}}, 4},
      {4096, false, {{512, 1}, {4096, 2}}, 4},
      {0, false, {{1024, 1}, {8192, 2}}, 4},
  };
  return table;
}

const DecisionTable& ompi_allgather_table() {
  static const DecisionTable table = {
      {2, true, {}, 6},
      {32, false, {}, 3},
      {64, false, {{1024, 3}, {65536, 5}}, 4},
      {128, false, {{512, 3}, {65536, 5}}, 4},
      {256, false, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
      {512, false, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}}, 4},
      {1024, false, {{64, 3}, {256, 2}, {2048, 3}}, 5},
      {2048, false, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}}, 5},
      {4096, false, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}}, 5},
      {0, false, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}}, 5},
  };
  return table;
}

const DecisionTable& ompi_bcast_table() {
  static const DecisionTable table = {
      {4, false,
       {{32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5}, {262144, 2},
        {524288, 1}, {1048576, 6}},
       5},
      {8, false, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}}, 2},
      {16, false, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}}, 1},
      {32, false, {{4096, 7}, {1048576, 6}}, 8},
      {64, false, {{2048, 6}}, 7},
      {128, false, {}, 7},
      {256, false, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}}, 7},
      {1024, false, {{16384, 7}, {32768, 4}}, 7},
      {2048, false, {{524288, 7}}, 8},
      {4096, false, {{262144, 7}}, 8},
      {0, false, {{8192, 7}, {16384, 5}, {262144, 7}}, 8},
  };
  return table;
}

const DecisionTable& ompi_reduce_table() {
  static const DecisionTable table = {
      {4, false,
       {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}},
       3},
      {8, false, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}}, 1},
      {16, false, {{8192, 4}}, 5},
      {32, false, {{4096, 4}}, 5},
      {256, false, {}, 5},
      {512, false, {{8192, 5}, {16384, 6}}, 5},
      {2048, false, {}, 5},
      {4096, false, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}}, 5},
      {0, false, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}}, 5},
  };
  return table;
}

const DecisionTable& ompi_alltoall_table() {
  static const DecisionTable table = {
      {2, true,
       {{2, 2}, {4, 5}, {16, 2}, {64, 5}, {256, 2}, {4096, 5}, {32768, 2}, {262144, 4},
        {1048576, 5}},
       2},
      {8, false, {{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}}, 1},
      {16, false, {{262144, 4}}, 1},
      {32, false,
       {{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}},
       4},
      {64, false, {{512, 3}, {524288, 1}}, 4},
      {128, false, {{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}}, 2},
      {256, false, {{1024, 3}, {2048, 4}, {262144, 1}}, 2},
      {512, false, {{1024, 3}, {8192, 4}, {32768, 1}}, 2},
      {1024, false, {{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}}, 2},
      {2048, false, {{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}}, 4},
      {4096, false, {{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}}, 1},
      {0, false, {{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}}, 4},
  };
  return table;
}

const DecisionTable& ompi_barrier_table() {
  static const DecisionTable table = {
      {4, false, {}, 3},   {8, false, {}, 1},    {64, false, {}, 3},   {256, false, {}, 4},
      {512, false, {}, 6}, {1024, false, {}, 4}, {4096, false, {}, 6}, {0, false, {}, 4},
  };
  return table;
}

const DecisionTable& ompi_table(Op op) {
  switch (op) {
    case Op::kAllreduce:
      return ompi_allreduce_table();
    case Op::kReduceScatter:
      return ompi_reduce_scatter_table();
    case Op::kAllgather:
      return ompi_allgather_table();
    case Op::kBroadcast:
      return ompi_bcast_table();
    case Op::kReduce:
      return ompi_reduce_table();
    case Op::kAlltoall:
      return ompi_alltoall_table();
    case Op::kBarrier:
      return ompi_barrier_table();
  }
  SCALEWALL_CHECK(false && "unknown Op");
  return ompi_barrier_table();
}

// The table's pick for (p, size), with the branch that fired in words.
struct TableHit {
  int alg = 0;
  std::string branch;  // "p = 64 (64 <= p < 128), m = 4096 B (m < 262144)"
};

TableHit look_up(const DecisionTable& table, std::int64_t p, double size, std::string_view sym) {
  std::int64_t p_lower = 0;  // the previous band's bound, for the text
  for (const Band& band : table) {
    const bool last = band.p_below == 0;
    const bool hit = last || (band.exact ? p == band.p_below : p < band.p_below);
    if (!hit) {
      if (!band.exact) p_lower = band.p_below;
      continue;
    }
    TableHit h;
    if (band.exact) {
      h.branch = fmt::format("p = {}", p);
    } else if (last) {
      h.branch = fmt::format("p = {} (p >= {})", p, p_lower);
    } else if (p_lower == 0) {
      h.branch = fmt::format("p = {} (p < {})", p, band.p_below);
    } else {
      h.branch = fmt::format("p = {} ({} <= p < {})", p, p_lower, band.p_below);
    }
    if (sym.empty()) {
      h.alg = band.otherwise;
      return h;
    }
    double s_lower = -1;
    for (const SizeStep& step : band.steps) {
      if (size < step.below) {
        h.alg = step.alg;
        h.branch += s_lower < 0 ? fmt::format(", {} = {} B ({} < {})", sym, num(size), sym,
                                              num(step.below))
                                : fmt::format(", {} = {} B ({} <= {} < {})", sym, num(size),
                                              num(s_lower), sym, num(step.below));
        return h;
      }
      s_lower = step.below;
    }
    h.alg = band.otherwise;
    h.branch += s_lower < 0 ? fmt::format(", {} = {} B (any size)", sym, num(size))
                            : fmt::format(", {} = {} B ({} >= {})", sym, num(size), sym,
                                          num(s_lower));
    return h;
  }
  SCALEWALL_CHECK(false && "decision table without a final band");
  return {};
}

std::optional<Pick> ompi_allreduce_algorithm(int alg) {
  const std::optional<AlgorithmSpec> none;
  switch (alg) {
    case 1: return Pick{"basic linear", none, ""};
    case 2: return Pick{"nonoverlapping (reduce, then broadcast)", none, ""};
    case 3: return Pick{"recursive doubling", spec(Algorithm::kRecursiveDoubling), ""};
    case 4: return Pick{"ring", spec(Algorithm::kRing), ""};
    case 5: return Pick{"segmented ring", spec(Algorithm::kRing), ""};
    case 6: return Pick{"Rabenseifner", spec(Algorithm::kRabenseifner), ""};
    default: break;
  }
  return std::nullopt;
}

std::optional<Pick> ompi_reduce_scatter_algorithm(int alg) {
  const std::optional<AlgorithmSpec> none;
  switch (alg) {
    case 1: return Pick{"nonoverlapping (reduce, then scatterv)", none, ""};
    case 2: return Pick{"recursive halving", spec(Algorithm::kRecursiveHalving), ""};
    case 3: return Pick{"ring", spec(Algorithm::kRing), ""};
    case 4:
      return Pick{"butterfly", spec(Algorithm::kRecursiveHalving),
              "modelled as recursive-halving, the closest"};
    default: break;
  }
  return std::nullopt;
}

std::optional<Pick> ompi_allgather_algorithm(int alg) {
  const std::optional<AlgorithmSpec> none;
  switch (alg) {
    case 1: return Pick{"basic linear", none, ""};
    case 2: return Pick{"Bruck", spec(Algorithm::kBruck), ""};
    case 3: return Pick{"recursive doubling", spec(Algorithm::kRecursiveDoubling), ""};
    case 4: return Pick{"ring", spec(Algorithm::kRing), ""};
    case 5: return Pick{"neighbor exchange", none, ""};
    case 6:
      return Pick{"two-process exchange", spec(Algorithm::kRing),
              "modelled as ring: for 2 ranks the same single exchange of m/2"};
    default: break;
  }
  return std::nullopt;
}

std::optional<Pick> ompi_broadcast_algorithm(int alg) {
  const std::optional<AlgorithmSpec> none;
  switch (alg) {
    case 1: return Pick{"basic linear", none, ""};
    case 2: return Pick{"chain", none, ""};
    case 3: return Pick{"pipeline", none, ""};
    case 4: return Pick{"split binary tree", none, ""};
    case 5: return Pick{"binary tree", none, ""};
    case 6: return Pick{"binomial tree", spec(Algorithm::kBinomialTree), ""};
    case 7: return Pick{"knomial tree", none, ""};
    case 8:
      return Pick{"scatter + recursive-doubling allgather", spec(Algorithm::kScatterAllgather),
              "modelled as scatter-allgather, whose all-gather is a ring"};
    case 9: return Pick{"scatter + ring allgather", spec(Algorithm::kScatterAllgather), ""};
    default: break;
  }
  return std::nullopt;
}

std::optional<Pick> ompi_reduce_algorithm(int alg) {
  const std::optional<AlgorithmSpec> none;
  switch (alg) {
    case 1: return Pick{"basic linear", none, ""};
    case 2: return Pick{"chain", none, ""};
    case 3: return Pick{"pipeline", none, ""};
    case 4: return Pick{"binary tree", none, ""};
    case 5: return Pick{"binomial tree", spec(Algorithm::kBinomialTree), ""};
    case 6: return Pick{"in-order binary tree", none, ""};
    case 7:
      return Pick{"Rabenseifner reduce-scatter + gather", spec(Algorithm::kRabenseifner), ""};
    default: break;
  }
  return std::nullopt;
}

std::optional<Pick> ompi_alltoall_algorithm(int alg) {
  const std::optional<AlgorithmSpec> none;
  switch (alg) {
    case 1: return Pick{"basic linear", none, ""};
    case 2: return Pick{"pairwise exchange", spec(Algorithm::kPairwise), ""};
    case 3: return Pick{"modified Bruck", spec(Algorithm::kBruck), ""};
    case 4: return Pick{"linear with synchronisation", none, ""};
    case 5:
      return Pick{"two-process exchange", spec(Algorithm::kPairwise),
              "modelled as pairwise: for 2 ranks the same single exchange of m/2"};
    default: break;
  }
  return std::nullopt;
}

std::optional<Pick> ompi_barrier_algorithm(int alg) {
  const std::optional<AlgorithmSpec> none;
  switch (alg) {
    case 1: return Pick{"basic linear", none, ""};
    case 2: return Pick{"double ring", none, ""};
    case 3:
      return Pick{"recursive doubling", none,
              "not modelled: the model's barrier is dissemination"};
    case 4:
      return Pick{"Bruck", spec(Algorithm::kDissemination),
              "modelled as dissemination, which it is"};
    case 5: return Pick{"two-process exchange", none, ""};
    case 6: return Pick{"tree", none, ""};
    default: break;
  }
  return std::nullopt;
}

// The table's algorithm number as Open MPI names it (coll_tuned_<op>_algorithm), mapped to
// the model.
Pick ompi_algorithm(Op op, int alg) {
  std::optional<Pick> pick;
  switch (op) {
    case Op::kAllreduce:
      pick = ompi_allreduce_algorithm(alg);
      break;
    case Op::kReduceScatter:
      pick = ompi_reduce_scatter_algorithm(alg);
      break;
    case Op::kAllgather:
      pick = ompi_allgather_algorithm(alg);
      break;
    case Op::kBroadcast:
      pick = ompi_broadcast_algorithm(alg);
      break;
    case Op::kReduce:
      pick = ompi_reduce_algorithm(alg);
      break;
    case Op::kAlltoall:
      pick = ompi_alltoall_algorithm(alg);
      break;
    case Op::kBarrier:
      pick = ompi_barrier_algorithm(alg);
      break;
  }
  SCALEWALL_CHECK(pick.has_value() && "Open MPI algorithm number outside its table");
  return *pick;
}

// Where Open MPI's own code runs another algorithm than its table names (its fallbacks):
// `pick` becomes that algorithm and `rule` says why.
void ompi_fallbacks(Op op, int alg, std::int64_t p, double count, Pick& pick, std::string& rule) {
  const std::int64_t pof2 = floor_pow2(p);
  const std::string picked = pick.name;
  const auto fall_back = [&](Pick to, const std::string& why) {
    rule += "; " + why;
    to.name += fmt::format(" (fallback from {})", picked);
    pick = std::move(to);
  };
  switch (op) {
    case Op::kAllreduce:
      if (alg == 5) {
        fall_back({"ring", spec(Algorithm::kRing), ""},
                  "segmented ring with the fixed rules' segment size 0 runs ring");
      }
      if ((alg == 4 || alg == 5) && count < static_cast<double>(p)) {
        fall_back({"recursive doubling", spec(Algorithm::kRecursiveDoubling), ""},
                  fmt::format("ring with count {} < p = {} runs recursive doubling", num(count),
                              p));
      }
      if (alg == 6 && count < static_cast<double>(pof2)) {
        fall_back({"basic linear", std::nullopt, ""},
                  fmt::format("Rabenseifner with count {} < pof2 = {} runs basic linear",
                              num(count), pof2));
      }
      break;
    case Op::kReduce:
      if (alg == 7 && (pof2 < 2 || count < static_cast<double>(pof2))) {
        fall_back({"basic linear", std::nullopt, ""},
                  fmt::format("Rabenseifner with count {} < pof2 = {}{} runs basic linear",
                              num(count), pof2, pof2 < 2 ? " (or pof2 < 2)" : ""));
      }
      break;
    case Op::kAllgather:
      if (alg == 3 && !is_pow2(p)) {
        fall_back({"Bruck", spec(Algorithm::kBruck), ""},
                  fmt::format("recursive doubling with p = {} not a power of two runs Bruck", p));
      }
      if (alg == 5 && p % 2 != 0) {
        fall_back({"ring", spec(Algorithm::kRing), ""},
                  fmt::format("neighbor exchange with odd p = {} runs ring", p));
      }
      break;
    case Op::kBroadcast:
      if ((alg == 8 || alg == 9) && count < static_cast<double>(p)) {
        fall_back({"basic linear", std::nullopt, ""},
                  fmt::format("scatter-allgather with count {} < p = {} runs basic linear",
                              num(count), p));
      }
      break;
    case Op::kReduceScatter:
    case Op::kAlltoall:
    case Op::kBarrier:
      break;
  }
}

LibraryChoice ompi_choice(Op op, std::int64_t p, double m, double count) {
  const double block = m / static_cast<double>(p);
  std::string_view sym;
  double size = m;
  switch (op) {
    case Op::kAllreduce:
    case Op::kReduceScatter:
    case Op::kBroadcast:
    case Op::kReduce:
      sym = "m";
      break;
    case Op::kAllgather:
    case Op::kAlltoall:
      sym = "m/p";  // one rank's block; the block per destination
      size = block;
      break;
    case Op::kBarrier:
      break;
  }
  const TableHit hit = look_up(ompi_table(op), p, size, sym);
  Pick pick = ompi_algorithm(op, hit.alg);
  std::string rule = fmt::format("Open MPI 4.1 tuned: {}{}, {} -> {} ({})", op_name(op),
                                 op == Op::kAllreduce || op == Op::kReduce ||
                                         op == Op::kReduceScatter
                                     ? " (commutative)"
                                     : "",
                                 hit.branch, pick.name, hit.alg);
  ompi_fallbacks(op, hit.alg, p, count, pick, rule);
  return finish_choice(pick, std::move(rule));
}

}  // namespace

std::string_view selector_name(Selector selector) {
  switch (selector) {
    case Selector::kMpich:
      return "mpich";
    case Selector::kOpenMpi:
      return "ompi";
  }
  SCALEWALL_CHECK(false && "unknown Selector");
  return {};
}

std::string_view selector_description(Selector selector) {
  switch (selector) {
    case Selector::kMpich:
      return "MPICH 3.2 classic rules";
    case Selector::kOpenMpi:
      return "Open MPI 4.1 tuned fixed rules";
  }
  SCALEWALL_CHECK(false && "unknown Selector");
  return {};
}

std::vector<NcclSelectionRow> nccl_selection_map(
    Op op, std::span<const std::int64_t> ranks, std::span<const double> bytes,
    const std::function<Topology(std::int64_t)>& topology_for) {
  if (ranks.empty() || bytes.empty()) {
    throw InputError("a selection map needs at least one rank count and one size");
  }
  std::vector<NcclSelectionRow> out;
  out.reserve(ranks.size());
  for (const std::int64_t r : ranks) {
    const NcclFabric fabric = nccl_fabric(topology_for(r));
    NcclSelectionRow row;
    row.ranks = r;
    row.picks.reserve(bytes.size());
    for (const double m : bytes) row.picks.push_back(nccl_choice(op, m, fabric));
    out.push_back(std::move(row));
  }
  return out;
}

Selector parse_selector(std::string_view text) {
  if (text == "openmpi" || text == "open-mpi") return Selector::kOpenMpi;
  std::string known;
  for (const Selector s : kAllSelectors) {
    if (selector_name(s) == text) return s;
    known += (known.empty() ? "" : ", ") + std::string(selector_name(s));
  }
  throw InputError(fmt::format("unknown selector '{}' (known: {})", text, known));
}

namespace {

// LibraryChoice::work_buffers of the all-reduce algorithm that runs.
std::vector<WorkBuffer> allreduce_work_buffers(Selector selector, const LibraryChoice& choice,
                                               std::int64_t p, double m) {
  if (p < 2 || !choice.modelled) return {};
  const Algorithm a = choice.modelled->algorithm;
  if (a == Algorithm::kRecursiveDoubling) return {{m, m}};
  if (a == Algorithm::kRabenseifner) return {{m, m / 2}};
  if (selector == Selector::kOpenMpi && a == Algorithm::kRing) {
    const double block = m / static_cast<double>(p);
    if (p == 2) return {{block, block}};
    return {{block, block}, {block, block}};
  }
  return {};
}

}  // namespace

LibraryChoice library_choice(Selector selector, Op op, std::int64_t ranks, double bytes,
                             double element_bytes) {
  require_rank_count(ranks, "rank count");
  if (!std::isfinite(bytes) || !(bytes >= 0.0)) {
    throw InputError(fmt::format("buffer size {} B is negative or not a finite number", bytes));
  }
  if (!std::isfinite(element_bytes) || !(element_bytes > 0.0)) {
    throw InputError(
        fmt::format("element size {} B must be a positive finite size", element_bytes));
  }
  const double m = op == Op::kBarrier ? 0.0 : bytes;
  const double count = std::floor(m / element_bytes);
  LibraryChoice choice = selector == Selector::kMpich ? mpich_choice(op, ranks, m, count)
                                                      : ompi_choice(op, ranks, m, count);
  if (op == Op::kAllreduce) choice.work_buffers = allreduce_work_buffers(selector, choice, ranks, m);
  return choice;
}

}  // namespace scalewall
