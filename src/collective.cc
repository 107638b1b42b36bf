// Implementation of scalewall/collective.h. Each algorithm is described once, by its "shape"
// for a rank count: the step count and the bytes moved and reduced per byte of buffer. Every
// cost, and the tie between two algorithms, is computed from that one description, so the
// cost table and the tie point cannot disagree.
#include "scalewall/collective.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "scalewall/error.h"
#include "scalewall/scaling.h"

namespace scalewall {

namespace {

// An algorithm's cost for N ranks, per byte of buffer m:
//   cost(m) = steps * alpha + byte_factor * m * beta + reduced_factor * m * gamma
struct Shape {
  std::int64_t steps = 0;
  double byte_factor = 0;     // bytes_per_rank / m
  double reduced_factor = 0;  // reduced_bytes_per_rank / m
};

// floor(log2 n) for n >= 1, from the bit width: exact for every int64, no floating log.
std::int64_t floor_log2(std::int64_t n) {
  SCALEWALL_CHECK(n >= 1);
  return static_cast<std::int64_t>(std::bit_width(static_cast<std::uint64_t>(n))) - 1;
}

bool is_power_of_two(std::int64_t n) {
  return n >= 1 && std::has_single_bit(static_cast<std::uint64_t>(n));
}

Shape allreduce_shape(Algorithm algorithm, std::int64_t ranks) {
  SCALEWALL_CHECK(ranks >= 1);
  const auto n = static_cast<double>(ranks);
  switch (algorithm) {
    case Algorithm::kRing: {
      // Reduce-scatter then all-gather, each N-1 steps of m/N bytes; the reduce-scatter
      // reduces each of its N-1 incoming chunks. N = 1: zero steps, zero bytes.
      const double fraction = (n - 1.0) / n;  // (N-1)/N, exactly 0 at N = 1
      return Shape{2 * (ranks - 1), 2.0 * fraction, fraction};
    }
    case Algorithm::kRecursiveDoubling: {
      const std::int64_t lg = floor_log2(ranks);  // log2 p, p = 2^floor(log2 N)
      if (is_power_of_two(ranks)) {
        // log2 N exchanges of the whole vector, each reduced on arrival.
        const auto steps = static_cast<double>(lg);
        return Shape{lg, steps, steps};
      }
      // Fold-in: one receive of m (reduced), log2 p exchanges of m (reduced), one send of m.
      const auto exchanges = static_cast<double>(lg);
      return Shape{lg + 2, exchanges + 2.0, exchanges + 1.0};
    }
  }
  SCALEWALL_CHECK(false && "unknown Algorithm");
  return {};
}

void require_ranks_in_range(std::int64_t ranks) {
  if (ranks < 1) {
    throw InputError(fmt::format("rank count {} is below 1", ranks));
  }
  if (ranks > kMaxRanks) {
    throw InputError(fmt::format("rank count {} is above the limit of 2^40", ranks));
  }
}

void require_buffer_bytes(double bytes) {
  if (std::isnan(bytes) || bytes < 0.0) {
    throw InputError(fmt::format("buffer size {} B is negative or not a number", bytes));
  }
  if (!std::isfinite(bytes)) {
    throw InputError(fmt::format("buffer size {} B is not finite", bytes));
  }
}

void require_gamma(double gamma_s_per_byte) {
  if (std::isnan(gamma_s_per_byte) || gamma_s_per_byte < 0.0 ||
      !std::isfinite(gamma_s_per_byte)) {
    throw InputError(fmt::format(
        "reduction cost gamma = {} s/B must be a finite time per byte, zero or more",
        gamma_s_per_byte));
  }
}

void require_inputs(std::int64_t ranks, double bytes, const Link& link, double gamma_s_per_byte) {
  require_ranks_in_range(ranks);
  require_buffer_bytes(bytes);
  require_valid(link);
  require_gamma(gamma_s_per_byte);
}

CollectiveCost cost_from_shape(Algorithm algorithm, std::int64_t ranks, double bytes,
                               const Link& link, double gamma_s_per_byte, const Shape& shape) {
  CollectiveCost cost;
  cost.algorithm = algorithm;
  cost.ranks = ranks;
  cost.bytes = bytes;
  cost.steps = shape.steps;
  cost.bytes_per_rank = shape.byte_factor * bytes;
  cost.reduced_bytes_per_rank = shape.reduced_factor * bytes;
  cost.latency_s = static_cast<double>(shape.steps) * link.alpha_s;
  cost.bandwidth_s = cost.bytes_per_rank / link.bandwidth_Bps;
  cost.compute_s = cost.reduced_bytes_per_rank * gamma_s_per_byte;
  cost.total_s = cost.latency_s + cost.bandwidth_s + cost.compute_s;
  if (!std::isfinite(cost.total_s)) {
    throw InputError(fmt::format(
        "{} all-reduce of {} B over {} ranks takes longer than a double can hold",
        algorithm_name(algorithm), bytes, ranks));
  }
  SCALEWALL_CHECK(cost.latency_s >= 0.0 && cost.bandwidth_s >= 0.0 && cost.compute_s >= 0.0);
  return cost;
}

}  // namespace

std::string_view algorithm_name(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kRecursiveDoubling:
      return "recursive-doubling";
  }
  SCALEWALL_CHECK(false && "unknown Algorithm");
  return {};
}

Algorithm parse_algorithm(std::string_view name) {
  std::string known;
  for (const Algorithm a : kAllAlgorithms) {
    if (algorithm_name(a) == name) return a;
    if (!known.empty()) known += ", ";
    known += algorithm_name(a);
  }
  throw InputError(fmt::format("unknown algorithm '{}' (known: {})", name, known));
}

CollectiveCost allreduce_cost(Algorithm algorithm, std::int64_t ranks, double bytes,
                              const Link& link, double gamma_s_per_byte) {
  require_inputs(ranks, bytes, link, gamma_s_per_byte);
  return cost_from_shape(algorithm, ranks, bytes, link, gamma_s_per_byte,
                         allreduce_shape(algorithm, ranks));
}

std::vector<CollectiveCost> rank_allreduce(std::span<const Algorithm> algorithms,
                                           std::int64_t ranks, double bytes, const Link& link,
                                           double gamma_s_per_byte) {
  require_inputs(ranks, bytes, link, gamma_s_per_byte);
  std::vector<CollectiveCost> costs;
  costs.reserve(algorithms.size());
  for (const Algorithm a : algorithms) {
    costs.push_back(
        cost_from_shape(a, ranks, bytes, link, gamma_s_per_byte, allreduce_shape(a, ranks)));
  }
  std::stable_sort(costs.begin(), costs.end(),
                   [](const CollectiveCost& x, const CollectiveCost& y) {
                     return x.total_s < y.total_s;
                   });
  return costs;
}

std::optional<double> allreduce_tie_bytes(Algorithm a, Algorithm b, std::int64_t ranks,
                                          const Link& link, double gamma_s_per_byte) {
  require_ranks_in_range(ranks);
  require_valid(link);
  require_gamma(gamma_s_per_byte);
  const Shape sa = allreduce_shape(a, ranks);
  const Shape sb = allreduce_shape(b, ranks);
  // cost(m) = c0 + c1 m with c0 = steps * alpha and c1 = byte_factor / bandwidth +
  // reduced_factor * gamma, the same terms cost_from_shape adds up.
  const double a_c0 = static_cast<double>(sa.steps) * link.alpha_s;
  const double b_c0 = static_cast<double>(sb.steps) * link.alpha_s;
  const double a_c1 = sa.byte_factor / link.bandwidth_Bps + sa.reduced_factor * gamma_s_per_byte;
  const double b_c1 = sb.byte_factor / link.bandwidth_Bps + sb.reduced_factor * gamma_s_per_byte;
  const double slope_gap = b_c1 - a_c1;
  if (slope_gap == 0.0) return std::nullopt;  // parallel or identical: no single tie
  const double tie = (a_c0 - b_c0) / slope_gap;
  if (!std::isfinite(tie) || !(tie > 0.0)) return std::nullopt;
  return tie;
}

}  // namespace scalewall
