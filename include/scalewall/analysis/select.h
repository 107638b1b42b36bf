// scalewall/analysis/select.h: algorithm selection that explains itself.
//
// A selection map answers "which algorithm wins for this (ranks, bytes)?" over a grid, and
// for each rank count names the sizes where the winner changes: the exact tie of the two
// algorithms on either side of the change (collective.h's tie_bytes), not a grid point.
//
// The library selectors answer "what would MPICH or Open MPI pick for this call?", from their
// published decision rules, and map the pick onto the model's algorithms so that its cost can
// be laid beside the model's best. Sources and thresholds are in docs/models.md.
#ifndef SCALEWALL_SELECT_H_
#define SCALEWALL_SELECT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/model/collective.h"
#include "scalewall/model/nccl.h"
#include "scalewall/model/topology.h"

namespace scalewall {

// One rank count's row of a selection map.
struct SelectionRow {
  std::int64_t ranks = 1;
  std::vector<AlgorithmSpec> winner;  // one per size of the map, cheapest algorithm (on equal
                                      // costs, the first in candidate order)
  std::vector<double> total_s;        // the winner's cost at that size
  // Where the winner changes between two neighbouring grid sizes: the exact tie of the two
  // winners inside that interval (collective.h's interval tie_bytes: the size at which `to`
  // becomes strictly cheaper than `from`, to a relative 1e-12), not a grid point. When the
  // winner changes more than once between two grid sizes (a third algorithm wins a band
  // narrower than the grid step), the map records the tie of the two grid winners only; a
  // finer grid shows the band.
  struct Switch {
    AlgorithmSpec from;
    AlgorithmSpec to;
    double bytes = 0;  // the tie, bytes
  };
  std::vector<Switch> switches;  // ascending in bytes
};

struct SelectionMap {
  Op op = Op::kAllreduce;
  std::vector<double> bytes;  // the grid's sizes, ascending
  std::vector<SelectionRow> rows;  // one per rank count, in the order given
};

// The map over `ranks` x `bytes`. `topology_for(ranks)` gives the topology of each rank count
// (flat_topology for a flat link; scaled_topology for a fabric); it must have that many ranks.
// The candidates at each rank count are applicable_algorithms(op, topology), or, when
// `candidates` is not empty, those of `candidates` that are applicable there (so hierarchical
// ones drop out on a single node). Each cell ranks its candidates with rank_algorithms.
// REQUIRES (throws InputError naming the value): both grids non-empty and strictly ascending;
// every rank count in [1, 2^40]; every size finite and >= 0; every candidate implements `op`
// and at least one is applicable at every rank count; plus whatever the cost model and
// topology_for throw.
SelectionMap selection_map(Op op, std::span<const std::int64_t> ranks,
                           std::span<const double> bytes,
                           const std::function<Topology(std::int64_t)>& topology_for,
                           const CostOptions& options = {},
                           std::span<const AlgorithmSpec> candidates = {});

// NCCL's pick (nccl.h) over the same grid, for a GPU fabric: one row per rank count, one pick
// per size. `topology_for(ranks)` must give a fabric of GPU ranks with that many ranks.
// REQUIRES (throws InputError naming the value): grids as selection_map's; NCCL chooses for
// `op` (nccl_chooses); plus whatever nccl_fabric and topology_for throw.
struct NcclSelectionRow {
  std::int64_t ranks = 1;
  std::vector<NcclCost> picks;  // one per size of the grid
};
std::vector<NcclSelectionRow> nccl_selection_map(
    Op op, std::span<const std::int64_t> ranks, std::span<const double> bytes,
    const std::function<Topology(std::int64_t)>& topology_for);

enum class Selector { kMpich, kOpenMpi };

inline constexpr Selector kAllSelectors[] = {Selector::kMpich, Selector::kOpenMpi};

// "mpich", "ompi".
std::string_view selector_name(Selector selector);
// "MPICH 3.2 classic rules", "Open MPI 4.1 tuned fixed rules": the rule set, for reports.
std::string_view selector_description(Selector selector);
// The inverse of selector_name; also accepts "openmpi" and "open-mpi". Throws InputError
// naming the text.
Selector parse_selector(std::string_view text);

// What a library's fixed rules pick for one call.
struct LibraryChoice {
  std::string library_algorithm;          // what runs, in the library's own words: "recursive
                                          // doubling", "basic linear", "recursive doubling
                                          // (fallback from ring)"
  std::optional<AlgorithmSpec> modelled;  // the model's counterpart (implements the op); empty
                                          // when the model has none
  std::string rule;                       // the branch that fired, with its thresholds and any
                                          // run-time fallback
  // The work buffers the library's code allocates inside each call, one per separate
  // allocation, with the bytes the call writes into each, for the algorithm that runs
  // (CostOptions::alloc prices them; with_work_buffers adds them). Listed for all-reduce,
  // from the libraries' sources:
  //   Open MPI 4.1 (coll/base): recursive doubling m, all written (the input is copied in);
  //   ring m/p, and a second m/p when p > 2, each written whole; Rabenseifner
  //   (redscat_allgather) m, of which the halving steps write one half, m/2.
  //   MPICH 3.2 (MPIR_Allreduce_intra): recursive doubling m, all written (it receives the
  //   partner's whole vector); Rabenseifner m, of which the halving writes m/2.
  // Empty for every other op and pick, and at one rank.
  std::vector<WorkBuffer> work_buffers;
};

// The rules (docs/models.md, "Selection and library rules", has them with their sources):
//   kMpich:   MPICH 3.2's MPIR_<Op>_intra with the default CVARs (the classic rules, before
//             the 3.3 rewrite), builtin (commutative) operation, not MPI_IN_PLACE.
//   kOpenMpi: Open MPI 4.1's coll/tuned fixed decision tables, commutative operation, followed
//             by the run-time fallbacks of the algorithms they pick (ring with count < p runs
//             recursive doubling; Rabenseifner allreduce or reduce with count < pof2 runs basic
//             linear; recursive-doubling all-gather with p not a power of two runs Bruck;
//             neighbour exchange with odd p runs the ring; segmented ring with segment size 0,
//             the fixed rules' choice, runs the ring; scatter-allgather broadcast with
//             count < p runs basic linear).
// Each library compares its own size measure, derived from m (`bytes`, the nccl-tests buffer
// of collective.h): the whole vector m for all-reduce, reduce, broadcast and reduce-scatter;
// all-gather: MPICH the gathered total m, Open MPI one rank's block m/p; all-to-all: both the
// block per destination m/p. Element counts are whole elements: count = floor(m / element_bytes).
// REQUIRES: ranks in [1, 2^40], bytes finite and >= 0, element_bytes finite and > 0 (the
// element size the rules' count conditions use; default 4, a float). Throws InputError
// naming the value otherwise.
LibraryChoice library_choice(Selector selector, Op op, std::int64_t ranks, double bytes,
                             double element_bytes = 4.0);

}  // namespace scalewall

#endif  // SCALEWALL_SELECT_H_
