// scalewall/select.h: algorithm selection that explains itself.
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

#include "scalewall/collective.h"
#include "scalewall/topology.h"

namespace scalewall {

// One rank count's row of a selection map.
struct SelectionRow {
  std::int64_t ranks = 1;
  std::vector<AlgorithmSpec> winner;  // one per size of the map, cheapest algorithm
  std::vector<double> total_s;        // the winner's cost at that size
  // Where the winner changes between two neighbouring grid sizes: the exact tie of the
  // two winners inside that interval.
  struct Switch {
    AlgorithmSpec from;
    AlgorithmSpec to;
    double bytes = 0;  // the tie, bytes
  };
  std::vector<Switch> switches;
};

struct SelectionMap {
  Op op = Op::kAllreduce;
  std::vector<double> bytes;  // the grid's sizes, ascending
  std::vector<SelectionRow> rows;
};

// The map over `ranks` x `bytes` (both ascending, bytes >= 0). `topology_for(ranks)` gives the
// topology of each rank count (flat_topology for a flat link; scaled_topology for a fabric).
// The candidates at each rank count are applicable_algorithms(op, topology).
// REQUIRES: non-empty grids; throws InputError from the cost model for bad values.
SelectionMap selection_map(Op op, std::span<const std::int64_t> ranks,
                           std::span<const double> bytes,
                           const std::function<Topology(std::int64_t)>& topology_for,
                           const CostOptions& options = {});

enum class Selector { kMpich, kOpenMpi };

// "mpich", "ompi".
std::string_view selector_name(Selector selector);
// The inverse; also accepts "openmpi" and "open-mpi". Throws InputError naming the text.
Selector parse_selector(std::string_view text);

// What a library's fixed rules pick for one call.
struct LibraryChoice {
  std::string library_algorithm;          // the library's own name: "recursive doubling",
                                          // "segmented ring", "basic linear"
  std::optional<AlgorithmSpec> modelled;  // the model's counterpart; empty when not modelled
  std::string rule;                       // the branch that fired, with its thresholds
};

// REQUIRES: ranks >= 1, bytes >= 0 (m in the nccl-tests convention of collective.h; the
// rules' own size measures are derived from it), element_bytes > 0 (the element size the
// rules' count conditions use; default 4, a float). Throws InputError otherwise.
LibraryChoice library_choice(Selector selector, Op op, std::int64_t ranks, double bytes,
                             double element_bytes = 4.0);

}  // namespace scalewall

#endif  // SCALEWALL_SELECT_H_
