// scalewall/analysis/select_compare.h: the selection map of one collective on a grid of rank
// counts x message sizes, with the algorithms that took part and, for an MPI library's fixed
// rules, what the library picks at each cell, what that costs under the model against the
// model's best, and where it differs most.
#ifndef SCALEWALL_SELECT_COMPARE_H_
#define SCALEWALL_SELECT_COMPARE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scalewall/analysis/select.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/topology.h"

namespace scalewall {

// The grid and the network of a selection map: a flat link, or a fabric scaled to each rank
// count.
struct SelectionGrid {
  Op op = Op::kAllreduce;
  std::vector<std::int64_t> ranks;  // ascending, no repeats
  std::vector<double> bytes;        // ascending
  CostOptions options;
  Topology base;                    // the flat link (at one rank) or the fabric as given
  bool on_fabric = false;
  std::vector<Topology> topologies; // one per rank count
};

// The grid's topologies, each rank count's candidates costed once, largest first, so that a
// rank count the fabric cannot hold or too large for the edge-level evaluator is refused at
// once. Throws InputError (naming the rank count) otherwise.
SelectionGrid selection_grid(Op op, std::vector<std::int64_t> ranks, std::vector<double> bytes,
                             const CostOptions& options, const Topology& base, bool on_fabric);

// One cell's library pick, costed under the model.
struct LibraryCell {
  LibraryChoice choice;
  std::optional<double> total_s;  // the pick's cost, when the model has it
  std::optional<double> ratio;    // total_s / the model's best, when that best is above zero
};

// Whether a pick is the model's best (costs no more than it): a cell without a ratio is not.
inline bool is_best(const LibraryCell& cell) { return cell.ratio && *cell.ratio <= 1.0; }

// The library's picks on the grid against the model's best.
struct LibraryComparison {
  Selector selector = Selector::kMpich;
  std::vector<std::vector<LibraryCell>> cells;  // [rank count][size]
  std::size_t compared = 0;    // modelled cells at more than one rank
  std::size_t differs = 0;     // of those, the ones dearer than the model's best
  std::size_t unmodelled = 0;  // cells whose pick the model cannot cost
  std::set<std::string> unmodelled_names;  // their picks, in the library's words
  // The dearest pick against the best, per rank count and overall ([rank count, size]),
  // among the compared cells; empty where there is none.
  std::vector<std::optional<std::size_t>> row_worst;
  std::optional<std::pair<std::size_t, std::size_t>> worst;
};

struct SelectionStudy {
  SelectionGrid grid;
  SelectionMap map;
  std::vector<AlgorithmSpec> legend;  // every algorithm that took part, in a stable order
  std::optional<LibraryComparison> library;
};

// The map on `grid`, and with a selector the library's picks compared with it.
SelectionStudy study_selection(SelectionGrid grid, std::optional<Selector> selector);

}  // namespace scalewall

#endif  // SCALEWALL_SELECT_COMPARE_H_
