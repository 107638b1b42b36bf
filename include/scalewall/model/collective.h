// scalewall/model/collective.h: the cost of every classic collective algorithm under the
// alpha-beta (or LogGP) model, on a flat network or a two-level topology (seed D01 section 3.3;
// Thakur, Rabenseifner and Gropp 2005; Chan et al. 2007; Patarasuk and Yuan 2009).
//
// A collective's cost has two independently scaling parts: the number of sequential steps
// (each pays alpha) and the bytes each rank moves on its critical path (each byte pays beta).
// A reducing algorithm also pays gamma (seconds per byte) for the arithmetic on the bytes it
// reduces. Every cost is a pure function of (op, algorithm, ranks, bytes, link or topology,
// options).
//
// Sizes follow the nccl-tests convention: m (`bytes`) is the whole buffer per rank: the
// all-reduce vector, the reduce-scatter input, the all-gather output, the all-to-all send
// buffer, the broadcast or reduce buffer. A barrier moves no data (m is ignored).
//
// Flat closed forms, N ranks, p = 2^floor(log2 N), r = N - p, L = log2 p, C = ceil(log2 N),
// a fold (one extra step each way) when N is not a power of two. docs/models.md has each
// with its source; cost = steps * alpha + bytes_per_rank * beta + reduced * gamma.
//
//   op              algorithm            steps          bytes per rank (pow2 N)
//   allreduce       ring                 2(N-1)         2m(N-1)/N
//                   recursive-doubling   L (+2)         m L            (+2m with the fold)
//                   rabenseifner         2L (+2)        2m(p-1)/p      (+2m with the fold)
//                   binomial-tree        2C             2mC
//                   double-binary-tree   2h + k - 1     4c per step    (h = floor(log2 N);
//                                                       k = ceil(m / 2c) chunks of each half:
//                                                       k - 1 of c = chunk_bytes, one remainder)
//                   hierarchical-<alg>   intra-node ring reduce-scatter, <alg> across nodes on
//                                        m/g, intra-node ring all-gather (g ranks per node)
//   reduce-scatter  ring                 N-1            m(N-1)/N
//                   recursive-halving    L (+2)         m(p-1)/p       (+m + m/N)
//   all-gather      ring                 N-1            m(N-1)/N
//                   recursive-doubling   L (+2)         m(p-1)/p       (fold: see models.md)
//                   bruck                C              m(N-1)/N
//   broadcast       binomial-tree        C              mC
//                   scatter-allgather    C + N - 1      2m(N-1)/N
//   reduce          binomial-tree        C              mC
//                   rabenseifner         2L (+1)        2m(p-1)/p      (+m with the fold)
//   all-to-all      pairwise             N-1            m(N-1)/N
//                   bruck                C              about (m/2) C
//   barrier         dissemination        C              0
//
// Named variants (a library's own schedule; costed when named, never a selection candidate):
//   allreduce       rabenseifner-linear  L + 1 (+2)     2m(p-1)/p      (SMPI's rab1: halving,
//                                                       then one round of p - 1 blocks at once)
//
// N = 1 costs exactly zero; m = 0 costs only latency terms; no term is ever negative.
#ifndef SCALEWALL_COLLECTIVE_H_
#define SCALEWALL_COLLECTIVE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/model/link.h"
#include "scalewall/model/topology.h"

namespace scalewall {

enum class Op {
  kAllreduce,
  kReduceScatter,
  kAllgather,
  kBroadcast,
  kReduce,
  kAlltoall,
  kBarrier,
};

inline constexpr Op kAllOps[] = {Op::kAllreduce, Op::kReduceScatter, Op::kAllgather,
                                 Op::kBroadcast, Op::kReduce,        Op::kAlltoall,
                                 Op::kBarrier};

// "allreduce", "reduce-scatter", "all-gather", "broadcast", "reduce", "all-to-all", "barrier".
std::string_view op_name(Op op);
// The MPI library's function for `op`, as the harness and the MPI benchmarks call it:
// "MPI_Allreduce", "MPI_Reduce_scatter_block", "MPI_Allgather", "MPI_Bcast", "MPI_Reduce",
// "MPI_Alltoall", "MPI_Barrier".
std::string_view mpi_call_name(Op op);
// Every op's name, in kAllOps' order, joined by ", ".
std::string op_names();
// The inverse; also accepts "allgather", "alltoall", "reducescatter", "bcast". Throws
// InputError naming the text and listing the ops.
Op parse_op(std::string_view text);

enum class Algorithm {
  kRing,
  kRecursiveDoubling,
  kRecursiveHalving,
  kRabenseifner,
  kBinomialTree,
  kDoubleBinaryTree,
  kScatterAllgather,
  kPairwise,
  kBruck,
  kDissemination,
  kHierarchical,  // two-level: see AlgorithmSpec::inter
  kRabenseifnerLinear,  // a named variant (CatalogueEntry::variant)
};

// An algorithm as it is named and costed. For kHierarchical, `inter` is the flat algorithm
// run across nodes (any flat all-reduce algorithm); it is ignored otherwise.
struct AlgorithmSpec {
  Algorithm algorithm = Algorithm::kRing;
  Algorithm inter = Algorithm::kRing;

  friend bool operator==(const AlgorithmSpec& a, const AlgorithmSpec& b) {
    return a.algorithm == b.algorithm &&
           (a.algorithm != Algorithm::kHierarchical || a.inter == b.inter);
  }
};

// ---- The catalogue: every (op, algorithm) the model costs, once ----
//
// Every list of algorithms (the names parse_algorithm knows, what implements() accepts,
// applicable_algorithms, kAllAlgorithms, the scenario file's all-reduce names, the MPI
// harness's hand-written set) is derived from kCatalogue; a new algorithm is one entry here
// and its schedule builder in collective.cc.

namespace detail {
// A flat schedule under construction (collective.cc): the facts of N, the buffer m, and the
// phases added so far. Each builder below appends one algorithm's phases for one op.
struct ScheduleDraft;
using ScheduleBuilder = void (*)(ScheduleDraft&);
void schedule_allreduce_ring(ScheduleDraft& draft);
void schedule_allreduce_recursive_doubling(ScheduleDraft& draft);
void schedule_allreduce_rabenseifner(ScheduleDraft& draft);
void schedule_allreduce_rabenseifner_linear(ScheduleDraft& draft);
void schedule_allreduce_binomial_tree(ScheduleDraft& draft);
void schedule_reduce_scatter_ring(ScheduleDraft& draft);
void schedule_reduce_scatter_recursive_halving(ScheduleDraft& draft);
void schedule_allgather_ring(ScheduleDraft& draft);
void schedule_allgather_recursive_doubling(ScheduleDraft& draft);
void schedule_allgather_bruck(ScheduleDraft& draft);
void schedule_broadcast_binomial_tree(ScheduleDraft& draft);
void schedule_broadcast_scatter_allgather(ScheduleDraft& draft);
void schedule_reduce_binomial_tree(ScheduleDraft& draft);
void schedule_reduce_rabenseifner(ScheduleDraft& draft);
void schedule_alltoall_pairwise(ScheduleDraft& draft);
void schedule_alltoall_bruck(ScheduleDraft& draft);
void schedule_barrier_dissemination(ScheduleDraft& draft);
}  // namespace detail

struct CatalogueEntry {
  Op op;
  Algorithm algorithm;
  std::string_view name;  // algorithm_name(algorithm): the same under every op
  std::string_view help;  // one line: its steps and bytes per rank (power-of-two N)
  // Its flat schedule. Null for the two entries with a cost model of their own: the double
  // binary tree (a pipeline of chunks, not a fixed list of steps) and hierarchical (a ring
  // inside each node around any flat all-reduce entry across nodes).
  detail::ScheduleBuilder schedule;
  // A named variant: one library's implementation that departs from the textbook schedule
  // (SimGrid SMPI's allreduce rab1 for rabenseifner-linear). It is costed where it is named
  // (--algorithm, a scenario, a measurement that records it) and is never one of the
  // candidates a selection ranks (applicable_algorithms, algorithms_of).
  bool variant = false;
};

// In the order of the header table above: by op, then the order the algorithms are listed,
// compared and ranked in (a tie between two algorithms keeps this order).
inline constexpr CatalogueEntry kCatalogue[] = {
    {Op::kAllreduce, Algorithm::kRing, "ring", "2(N-1) steps, 2m(N-1)/N bytes per rank",
     &detail::schedule_allreduce_ring},
    {Op::kAllreduce, Algorithm::kRecursiveDoubling, "recursive-doubling",
     "log2 N steps, m log2 N bytes per rank", &detail::schedule_allreduce_recursive_doubling},
    {Op::kAllreduce, Algorithm::kRabenseifner, "rabenseifner",
     "2 log2 N steps, 2m(N-1)/N bytes per rank (recursive halving, then doubling)",
     &detail::schedule_allreduce_rabenseifner},
    {Op::kAllreduce, Algorithm::kBinomialTree, "binomial-tree",
     "2 ceil(log2 N) steps, 2m ceil(log2 N) bytes per rank (reduce, then broadcast)",
     &detail::schedule_allreduce_binomial_tree},
    {Op::kAllreduce, Algorithm::kDoubleBinaryTree, "double-binary-tree",
     "2 floor(log2 N) + k - 1 steps of 4 chunks (two pipelined trees, k chunks each)", nullptr},
    {Op::kReduceScatter, Algorithm::kRing, "ring", "N-1 steps, m(N-1)/N bytes per rank",
     &detail::schedule_reduce_scatter_ring},
    {Op::kReduceScatter, Algorithm::kRecursiveHalving, "recursive-halving",
     "log2 N steps, m(N-1)/N bytes per rank", &detail::schedule_reduce_scatter_recursive_halving},
    {Op::kAllgather, Algorithm::kRing, "ring", "N-1 steps, m(N-1)/N bytes per rank",
     &detail::schedule_allgather_ring},
    {Op::kAllgather, Algorithm::kRecursiveDoubling, "recursive-doubling",
     "log2 N steps, m(N-1)/N bytes per rank", &detail::schedule_allgather_recursive_doubling},
    {Op::kAllgather, Algorithm::kBruck, "bruck", "ceil(log2 N) steps, m(N-1)/N bytes per rank",
     &detail::schedule_allgather_bruck},
    {Op::kBroadcast, Algorithm::kBinomialTree, "binomial-tree",
     "ceil(log2 N) steps, m ceil(log2 N) bytes per rank",
     &detail::schedule_broadcast_binomial_tree},
    {Op::kBroadcast, Algorithm::kScatterAllgather, "scatter-allgather",
     "ceil(log2 N) + N - 1 steps, 2m(N-1)/N bytes per rank (binomial scatter, ring all-gather)",
     &detail::schedule_broadcast_scatter_allgather},
    {Op::kReduce, Algorithm::kBinomialTree, "binomial-tree",
     "ceil(log2 N) steps, m ceil(log2 N) bytes per rank", &detail::schedule_reduce_binomial_tree},
    {Op::kReduce, Algorithm::kRabenseifner, "rabenseifner",
     "2 log2 N steps, 2m(N-1)/N bytes per rank (recursive halving, then binomial gather)",
     &detail::schedule_reduce_rabenseifner},
    {Op::kAlltoall, Algorithm::kPairwise, "pairwise", "N-1 steps, m(N-1)/N bytes per rank",
     &detail::schedule_alltoall_pairwise},
    {Op::kAlltoall, Algorithm::kBruck, "bruck",
     "ceil(log2 N) steps, about (m/2) ceil(log2 N) bytes per rank",
     &detail::schedule_alltoall_bruck},
    {Op::kBarrier, Algorithm::kDissemination, "dissemination", "ceil(log2 N) steps, no bytes",
     &detail::schedule_barrier_dissemination},
    {Op::kAllreduce, Algorithm::kHierarchical, "hierarchical",
     "ring reduce-scatter in each node, a flat all-reduce of m/g across nodes, ring all-gather",
     nullptr},
    {Op::kAllreduce, Algorithm::kRabenseifnerLinear, "rabenseifner-linear",
     "log2 N + 1 steps, 2m(N-1)/N bytes per rank (recursive halving, then every block sent to "
     "every rank in one round: SMPI's rab1)",
     &detail::schedule_allreduce_rabenseifner_linear, true},
};

// The catalogue's entry for (op, algorithm); null when the algorithm does not implement op.
const CatalogueEntry* catalogue_entry(Op op, Algorithm algorithm);

namespace detail {
// How many distinct algorithms the catalogue holds, and those algorithms in order of first
// appearance (kAllAlgorithms below).
constexpr std::size_t distinct_algorithm_count() {
  std::size_t count = 0;
  for (std::size_t i = 0; i < std::size(kCatalogue); ++i) {
    bool first = true;
    for (std::size_t j = 0; j < i; ++j) {
      if (kCatalogue[j].algorithm == kCatalogue[i].algorithm) first = false;
    }
    if (first) ++count;
  }
  return count;
}

template <std::size_t kCount>
constexpr std::array<Algorithm, kCount> distinct_algorithms() {
  std::array<Algorithm, kCount> out{};
  std::size_t filled = 0;
  for (const CatalogueEntry& e : kCatalogue) {
    bool seen = false;
    for (std::size_t j = 0; j < filled; ++j) seen = seen || out[j] == e.algorithm;
    if (!seen) out[filled++] = e.algorithm;
  }
  return out;
}
}  // namespace detail

// Every algorithm of the catalogue, each once, in order of first appearance.
inline constexpr auto kAllAlgorithms =
    detail::distinct_algorithms<detail::distinct_algorithm_count()>();

// Stable kebab-case names: "ring", "recursive-doubling", "hierarchical-ring", ...
std::string algorithm_name(AlgorithmSpec spec);
std::string algorithm_name(Algorithm algorithm);
// The inverse of algorithm_name. Throws InputError naming the text and listing the names.
AlgorithmSpec parse_algorithm(std::string_view name);

// Every spec that implements `op`, in the catalogue's order: the flat ones, then (all-reduce)
// hierarchical-<each flat all-reduce algorithm>.
std::vector<AlgorithmSpec> algorithms_of(Op op);

// Whether `spec` implements `op` (hierarchical: all-reduce only, with a flat all-reduce
// algorithm across nodes).
bool implements(Op op, AlgorithmSpec spec);

// Every algorithm that implements `op` and makes sense on `topology`, in a stable order:
// the flat ones always; the hierarchical all-reduce variants only when the topology has more
// than one node and more than one rank per node.
std::vector<AlgorithmSpec> applicable_algorithms(Op op, const Topology& topology);

// Options of the cost model.
struct CostOptions {
  double gamma_s_per_byte = 0.0;  // reduction arithmetic, seconds per byte. Default: 0.
  double tree_chunk_bytes = 524288;  // pipeline chunk of the double binary tree. Default:
                                     // 512 KiB (NCCL's default buffer of 4 MiB in 8 steps).
  ReductionRegimes gamma_above;   // further gamma regimes by the bytes one step reduces
                                  // (link.h); none by default
  CopyCost copy;                  // the local copy of the input an out-of-place call makes
                                  // (link.h; local_copy_bytes); free by default
  CopyCost alloc;                 // a work buffer a library allocates inside a call, seconds
                                  // per byte by the buffer's size (malloc, the first touch of
                                  // each page, free, and a slower first read after a receive
                                  // fills it; with_work_buffers); free by default
  CopyCost sent_reduction;        // the reduction of a step that adds into the very buffer it
                                  // has just sent (recursive doubling's whole vector), seconds
                                  // per byte by the bytes reduced. On shared memory the partner
                                  // has just read those lines, so every write first takes them
                                  // back from its cache. Free by default: such a step pays gamma
  CopyCost sent_exchange;         // the exchange of a step that receives into blocks the rank
                                  // sent earlier in the call (a ring all-reduce's or
                                  // Rabenseifner's all-gather half), seconds per byte received,
                                  // by the bytes of one message. On shared memory another rank
                                  // has read those lines, so the receive first takes them back
                                  // from its cache. Where given it replaces the step's bytes /
                                  // bandwidth (its alpha stays); free by default
  // The working set. On shared memory a step's rate depends on how much memory the whole call
  // touches, not only on its own message: a 2-rank ring all-reduce of 8 MiB sends 4 MiB
  // messages but touches 20 MiB per rank (input, output, a receive block), more than the 4 MiB
  // exchange that measured that message's rate (8 MiB per rank), and beyond a cache that held
  // the exchange. When working_set_ranks is above 0 (the ranks of one node that ran the
  // fabric's measurements at once, each touching twice the measured size: a send and a receive
  // buffer, a source and a destination), collective_cost sets working_set_bytes for each call:
  // the size whose measurement touched as much memory as the call touches on one node
  // (call_working_set_bytes). Each bandwidth-bound step then pays the slower of the rate of its
  // own size and the rate per byte measured at that size (latency-bound steps keep their own:
  // their breaks are the protocol's, not the cache's). 0 (the default): every rate at its own
  // size.
  std::int64_t working_set_ranks = 0;
  double working_set_bytes = 0;   // set per call by collective_cost; 0: none
  // The size of one element of the call's datatype, bytes: each step's message and reduction
  // is rounded up to whole elements (a library splits m over N ranks into blocks of whole
  // elements, and the largest paces a step; a 2-rank ring of one 8-byte element sends 8 B per
  // step, not 4 B). 0 (the default): bytes divide freely, as the closed forms have them.
  double element_bytes = 0;
  // The smallest size the local passes (copy, reduction, sent-buffer reduction, allocation)
  // were measured at. Each is fitted as a rate through the origin, which prices a pass over
  // 8 B at a fraction of a nanosecond, while the smallest measured pass (1 KiB) took tens of
  // nanoseconds, nearly all of it the call's own: a pass over fewer bytes (above 0) costs what
  // this size cost (local_pass_s). 0 (the default): every size at its rate.
  double local_min_bytes = 0;

  // The time of a local pass over `bytes` at rate(size) seconds per byte, with the floor of
  // local_min_bytes; 0 for 0 bytes.
  template <typename Rate>
  double local_pass_s(double bytes, Rate&& rate) const {
    if (!(bytes > 0)) return 0.0;
    const double b = bytes < local_min_bytes ? local_min_bytes : bytes;
    return b * rate(b);
  }

  // The gamma of a step that reduces `bytes`.
  double gamma_at(double bytes) const { return gamma_above.at(gamma_s_per_byte, bytes); }
  // The cost per byte of a step that reduces `bytes`, into the buffer it has just sent when
  // `into_sent`: sent_reduction where it is given, else gamma.
  double reduction_at(double bytes, bool into_sent) const {
    return into_sent && !sent_reduction.free() ? sent_reduction.at(bytes) : gamma_at(bytes);
  }
  // The seconds per byte of a step's messages of `bytes` that land in blocks sent earlier in
  // the call: sent_exchange where given; 0 means the link prices them.
  double sent_exchange_at(double bytes, bool into_sent) const {
    return into_sent && !sent_exchange.free() ? sent_exchange.at(bytes) : 0.0;
  }
};

// The memory one rank of a call touches: its input, its output and its largest receive block
// (`largest_message`, the largest message of the algorithm's schedule), in bytes; m is the
// call's buffer per rank as collective_cost takes it. All-reduce and reduce 2m + the block,
// reduce-scatter m + m/N + the block, all-gather m/N + m, all-to-all 2m, broadcast m (in
// place), barrier 0.
double call_footprint_bytes(Op op, std::int64_t ranks, double m, double largest_message);

// The size whose measurement touched as much memory as a call touching `footprint_bytes` per
// rank, `ranks_per_node` ranks at once, when the measurements ran `working_set_ranks` ranks at
// once, each touching twice the measured size: ranks_per_node x footprint / (2
// working_set_ranks). 0 when working_set_ranks is 0.
double call_working_set_bytes(double footprint_bytes, std::int64_t ranks_per_node,
                              std::int64_t working_set_ranks);

// `options` with the fabric's own local costs: its gamma and gamma regimes, its copy,
// allocation, sent-buffer reduction and sent-buffer exchange costs, and its working_set_ranks
// (the defaults of every command's cost options; the other fields are left as they are).
void use_fabric_local_costs(CostOptions& options, const Topology& fabric);

// The cost breakdown of one collective call.
struct CollectiveCost {
  Op op = Op::kAllreduce;
  AlgorithmSpec algorithm;
  std::int64_t ranks = 1;
  double bytes = 0;                   // m, the buffer per rank, bytes
  std::int64_t steps = 0;             // sequential communication steps (each pays alpha)
  double bytes_per_rank = 0;          // bytes on the critical path (each pays beta)
  double reduced_bytes_per_rank = 0;  // bytes reduced on the critical path (each pays gamma)
  double latency_s = 0;               // alpha terms (plus LogGP injection gaps)
  double overhead_s = 0;              // of latency_s, the LogGP o: 2o per step, CPU time of
                                      // sending and receiving that overlap cannot hide
  double bandwidth_s = 0;             // beta terms, on the link each step actually uses
  double compute_s = 0;               // local work: gamma terms and copy_s
  double copy_s = 0;                  // of compute_s, the input's local copy (CostOptions::copy)
  double alloc_s = 0;                 // of compute_s, the library's work buffers
                                      // (CostOptions::alloc; with_work_buffers)
  double total_s = 0;                 // latency_s + bandwidth_s + compute_s
  // nccl-tests convention: algbw = m / total; busbw = algbw * busbw_factor(op, N). Empty when
  // the call takes no time (N = 1) or moves no data (barrier, m = 0).
  std::optional<double> algbw_Bps;
  std::optional<double> busbw_Bps;
};

// The nccl-tests bus-bandwidth factor: all-reduce 2(N-1)/N; reduce-scatter, all-gather,
// all-to-all (N-1)/N; broadcast, reduce 1; barrier 0.
double busbw_factor(Op op, std::int64_t ranks);

// The bytes an out-of-place MPI call of `op` copies locally before it communicates (what
// CostOptions::copy prices): its whole input for all-reduce, reduce-scatter and reduce (into
// the output or a work buffer), its own block m/N for all-gather and all-to-all, nothing for
// broadcast and barrier, and nothing at one rank (a call on one rank costs nothing).
double local_copy_bytes(Op op, std::int64_t ranks, double bytes);

// A work buffer a library allocates inside a call: its size, which decides whether the
// allocator reuses memory or maps fresh pages, and the bytes of it the call writes, each page
// of which pays its first touch.
struct WorkBuffer {
  double bytes = 0;    // allocated
  double touched = 0;  // written by the call, <= bytes
  bool operator==(const WorkBuffer&) const = default;
};

// `cost` with the work buffers a library allocates inside the call (LibraryChoice::
// work_buffers): each costs touched * alloc.at(bytes), added to alloc_s, compute_s and
// total_s, and algbw and busbw follow; a buffer below `min_bytes` (CostOptions::
// local_min_bytes; above 0 written) costs what min_bytes cost. A free `alloc`, or no
// buffers, leaves `cost` as it is. REQUIRES (throws InputError naming the value): every size
// finite, 0 <= touched <= bytes; alloc's rates as CostOptions requires them.
CollectiveCost with_work_buffers(CollectiveCost cost, std::span<const WorkBuffer> buffers,
                                 const CopyCost& alloc, double min_bytes = 0);

// An all-reduce priced at a given bus bandwidth (a scenario without a fabric, nccl-tests'
// convention): 2(N-1) latency terms of alpha, and busbw_factor(all-reduce, N) m = 2(N-1)/N m
// bytes at busbw.
struct BusBandwidthAllreduce {
  double latency_s = 0;       // 2(N-1) alpha
  double bytes_factor = 0;    // 2(N-1)/N
  double busbw_Bps = 0;
  // The same cost as one Hockney line T(m) = latency_s + m / line_bandwidth_Bps, with
  // line_bandwidth_Bps = N busbw / (2(N-1)); 0 at one rank, which moves nothing.
  double line_bandwidth_Bps = 0;
  // latency_s + 2(N-1)/N m / busbw.
  double time_s(double bytes) const { return latency_s + bytes_factor * bytes / busbw_Bps; }
};
// REQUIRES: 1 <= ranks; busbw_Bps > 0.
BusBandwidthAllreduce busbw_allreduce(std::int64_t ranks, double busbw_Bps, double alpha_s);

// The least time in which `op` can move its bytes over links of `bandwidth_Bps`: every rank
// must send or receive busbw_factor(op, N) m bytes (2(N-1)/N m for an all-reduce, after
// Patarasuk and Yuan), so no algorithm's bandwidth term falls below busbw_factor m / bandwidth.
double bandwidth_lower_bound_s(Op op, std::int64_t ranks, double bytes, double bandwidth_Bps);

// Cost on a flat network: every pair of the `ranks` ranks joined by `link`, no sharing.
// REQUIRES (throws InputError): implements(op, spec); 1 <= ranks <= 2^40; bytes finite and
// >= 0; valid link; gamma >= 0; tree chunk > 0.
CollectiveCost collective_cost(Op op, AlgorithmSpec spec, std::int64_t ranks, double bytes,
                               const Link& link, const CostOptions& options = {});

// Cost on a topology of topology.ranks() ranks. Each step is paced by the slowest link it
// actually uses: an edge inside a node uses the intra-node link; an edge across nodes uses
// the inter-node link, shared by the node's ranks that cross in the same step when they
// outnumber its NICs, and slowed by the oversubscription ratio; with LogGP links the k-th
// message through one NIC also waits (k - 1) g. Hierarchical algorithms move m/g per rank
// across nodes. On flat_topology(N, link) this equals the flat cost exactly.
// On a packed or scattered topology of up to 4096 ranks per node each step's crossings are
// counted in closed form (O(g) per step at most), so any rank count up to 2^40 costs in well
// under a millisecond. An explicit placement, or more ranks per node, is evaluated edge by
// edge, about one visit per rank per distinct step (N (N - 1) for pairwise all-to-all).
// REQUIRES: as above; for the edge-level evaluation at most 1e6 edge visits (1,000 ranks for
// pairwise all-to-all, 500,000 for a ring, about 58,000 for recursive doubling), so that a
// command costing thousands of sizes still answers in seconds; throws InputError beyond it,
// before any work, naming the rank count and the limit.
CollectiveCost collective_cost(Op op, AlgorithmSpec spec, double bytes, const Topology& topology,
                               const CostOptions& options = {});

namespace detail {
// The same cost, always evaluated edge by edge (the reference the closed form is tested
// against). Same REQUIRES, with the 1e6 edge-visit limit for every placement.
CollectiveCost collective_cost_by_edges(Op op, AlgorithmSpec spec, double bytes,
                                        const Topology& topology, const CostOptions& options = {});
}  // namespace detail

// The costs of `specs` for one call, cheapest first (ties keep the given order).
std::vector<CollectiveCost> rank_algorithms(Op op, std::span<const AlgorithmSpec> specs,
                                            double bytes, const Topology& topology,
                                            const CostOptions& options = {});

// The smallest message size in [1 B, 1 PB] at which a and b cost the same on this topology,
// found by a log-spaced scan for a change of sign of cost(a) - cost(b) and bisection to a
// relative 1e-12; empty when one is cheaper (or they are equal) across the whole range.
std::optional<double> tie_bytes(Op op, AlgorithmSpec a, AlgorithmSpec b, const Topology& topology,
                                const CostOptions& options = {});

// The same inside [lo_bytes, hi_bytes]: where the one of a and b that is strictly cheaper at
// hi_bytes stops costing more or the same, i.e. the boundary between the sizes where it does
// not yet win and those where it does, found by bisection of cost(a) - cost(b) to a relative
// 1e-12. When they cost the same at hi_bytes, the first size where the difference reaches
// zero. Returns lo_bytes when they cost the same at both ends; empty when one is strictly
// cheaper at both ends. If the difference changes sign more than once inside the interval,
// one of the crossings is returned (a finer interval finds the others).
// REQUIRES (throws InputError): 0 <= lo_bytes <= hi_bytes, both finite; as collective_cost.
std::optional<double> tie_bytes(Op op, AlgorithmSpec a, AlgorithmSpec b, double lo_bytes,
                                double hi_bytes, const Topology& topology,
                                const CostOptions& options = {});

// Patarasuk and Yuan's lower bound on an all-reduce's bandwidth term: every rank must move
// at least 2m(N-1)/N bytes, so no algorithm's bandwidth_s falls below 2m(N-1)/N / bandwidth
// (bandwidth_lower_bound_s for the all-reduce on `link`).
double allreduce_bandwidth_lower_bound_s(std::int64_t ranks, double bytes, const Link& link);

// ---- All-reduce shorthands (on a flat link) ----

// collective_cost(Op::kAllreduce, {algorithm}, ranks, bytes, link, {gamma}).
CollectiveCost allreduce_cost(Algorithm algorithm, std::int64_t ranks, double bytes,
                              const Link& link, double gamma_s_per_byte = 0.0);

// The all-reduce costs of `algorithms` on a flat link, cheapest first (stable).
std::vector<CollectiveCost> rank_allreduce(std::span<const Algorithm> algorithms,
                                           std::int64_t ranks, double bytes, const Link& link,
                                           double gamma_s_per_byte = 0.0);

// The exact tie of two flat all-reduce algorithms whose costs are affine in m (c0 + c1 m):
// m = (a.c0 - b.c0) / (b.c1 - a.c1). Empty when there is no positive tie. REQUIRES: neither
// is the double binary tree (whose cost is piecewise in m; use tie_bytes) nor hierarchical;
// a one-regime link (throws InputError for a piecewise one).
std::optional<double> allreduce_tie_bytes(Algorithm a, Algorithm b, std::int64_t ranks,
                                          const Link& link, double gamma_s_per_byte = 0.0);

}  // namespace scalewall

#endif  // SCALEWALL_COLLECTIVE_H_
