// scalewall/collective.h: the cost of a collective algorithm under the alpha-beta model
// (seed D01, section 3.3; Thakur, Rabenseifner and Gropp 2005).
//
// A collective's cost has two independently scaling parts: the number of sequential steps
// (each pays alpha) and the bytes each rank moves on its critical path (each byte pays beta).
// A reducing algorithm also pays gamma (seconds per byte) for the arithmetic on the bytes it
// reduces. Every cost is a pure function of (algorithm, ranks, bytes, link, gamma).
//
// Sizes follow the nccl-tests convention: `bytes` (m) is the whole buffer per rank, here the
// all-reduce vector.
//
// All-reduce of m bytes over N ranks, p = 2^floor(log2 N):
//   ring                steps 2(N-1)          bytes/rank 2m(N-1)/N     reduced m(N-1)/N
//   recursive-doubling  N a power of two:     steps log2 N,  bytes/rank m log2 N, reduced m log2 N
//                       otherwise (fold-in):  steps log2 p + 2, bytes/rank m (log2 p + 2),
//                                             reduced m (log2 p + 1)
// The fold-in (Thakur, Rabenseifner and Gropp 2005, their allreduce for non-power-of-two N;
// Rabenseifner 2004): the r = N - p extra ranks first send their whole vector to a partner,
// which reduces it; the p remaining ranks run recursive doubling; the partners then send the
// result back. The partner's critical path is one receive of m, log2 p exchanges of m, one
// send of m. log2 is computed from the bit width of N, never with a floating-point log.
//
// cost = steps * alpha + bytes_per_rank * beta + reduced_bytes_per_rank * gamma
// N = 1 costs exactly zero; m = 0 costs only the latency term; no term is ever negative.
#ifndef SCALEWALL_COLLECTIVE_H_
#define SCALEWALL_COLLECTIVE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "scalewall/link.h"

namespace scalewall {

enum class Algorithm {
  kRing,
  kRecursiveDoubling,
};

// Every algorithm, in a stable order.
inline constexpr Algorithm kAllAlgorithms[] = {Algorithm::kRing, Algorithm::kRecursiveDoubling};

// Stable kebab-case names used in output and on the command line: "ring",
// "recursive-doubling".
std::string_view algorithm_name(Algorithm algorithm);

// The inverse of algorithm_name; throws InputError naming the text (and listing the known
// names) when it matches none.
Algorithm parse_algorithm(std::string_view name);

// The cost breakdown of one collective call.
struct CollectiveCost {
  Algorithm algorithm = Algorithm::kRing;
  std::int64_t ranks = 1;
  double bytes = 0;                   // m, the buffer per rank, bytes
  std::int64_t steps = 0;             // sequential communication steps (each pays alpha)
  double bytes_per_rank = 0;          // bytes on one rank's critical path (each pays beta)
  double reduced_bytes_per_rank = 0;  // bytes that rank reduces (each pays gamma)
  double latency_s = 0;               // steps * alpha
  double bandwidth_s = 0;             // bytes_per_rank * beta
  double compute_s = 0;               // reduced_bytes_per_rank * gamma
  double total_s = 0;                 // latency_s + bandwidth_s + compute_s
};

// Cost of one all-reduce of `bytes` bytes per rank over `ranks` ranks.
// REQUIRES (throws InputError): 1 <= ranks <= 2^40, bytes >= 0 and finite, valid link,
// gamma_s_per_byte >= 0. Default gamma: 0 (reduction arithmetic free).
CollectiveCost allreduce_cost(Algorithm algorithm, std::int64_t ranks, double bytes,
                              const Link& link, double gamma_s_per_byte = 0.0);

// The costs of `algorithms` for one call, cheapest first (ties keep the given order). Same
// requirements as allreduce_cost; an empty list gives an empty result.
std::vector<CollectiveCost> rank_allreduce(std::span<const Algorithm> algorithms,
                                           std::int64_t ranks, double bytes, const Link& link,
                                           double gamma_s_per_byte = 0.0);

// The message size at which algorithms a and b cost the same for this rank count, in bytes.
// Each cost is affine in m (c0 + c1 m), so the tie is m = (a.c0 - b.c0) / (b.c1 - a.c1).
// Empty when there is no positive tie: the costs are identical, parallel, or one algorithm
// is cheaper at every size (for example N = 1, or N = 2 with gamma = 0, where recursive
// doubling always wins). REQUIRES (throws InputError): ranks, link and gamma as for
// allreduce_cost.
std::optional<double> allreduce_tie_bytes(Algorithm a, Algorithm b, std::int64_t ranks,
                                          const Link& link, double gamma_s_per_byte = 0.0);

}  // namespace scalewall

#endif  // SCALEWALL_COLLECTIVE_H_
