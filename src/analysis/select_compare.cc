// Implementation of scalewall/analysis/select_compare.h.
#include "scalewall/analysis/select_compare.h"

#include <algorithm>

namespace scalewall {

namespace {

Topology topology_at(const SelectionGrid& grid, std::int64_t ranks) {
  return grid.on_fabric ? scaled_topology(grid.base, ranks) : flat_topology(ranks, grid.base.inter);
}

std::vector<AlgorithmSpec> legend_of(const SelectionGrid& grid) {
  std::vector<AlgorithmSpec> legend;
  for (const Topology& t : grid.topologies) {
    for (const AlgorithmSpec& s : applicable_algorithms(grid.op, t)) {
      if (std::find(legend.begin(), legend.end(), s) == legend.end()) legend.push_back(s);
    }
  }
  return legend;
}

LibraryCell library_cell(const SelectionGrid& grid, const SelectionMap& map, Selector selector,
                         std::size_t i, std::size_t j) {
  LibraryCell cell;
  cell.choice = library_choice(selector, grid.op, grid.ranks[i], grid.bytes[j]);
  if (cell.choice.modelled) {
    cell.total_s = collective_cost(grid.op, *cell.choice.modelled, grid.bytes[j],
                                   grid.topologies[i], grid.options)
                       .total_s;
    const double best = map.rows[i].total_s[j];
    if (best > 0) cell.ratio = *cell.total_s / best;
  }
  return cell;
}

// Counts the cells, and finds the dearest per row and overall.
void tally(const SelectionGrid& grid, LibraryComparison& c) {
  const auto ratio_at = [&](std::size_t i, std::size_t j) { return *c.cells[i][j].ratio; };
  c.row_worst.assign(grid.ranks.size(), std::nullopt);
  for (std::size_t i = 0; i < grid.ranks.size(); ++i) {
    for (std::size_t j = 0; j < grid.bytes.size(); ++j) {
      const LibraryCell& cell = c.cells[i][j];
      if (!cell.choice.modelled) {
        ++c.unmodelled;
        c.unmodelled_names.insert(cell.choice.library_algorithm);
        continue;
      }
      if (grid.ranks[i] == 1) continue;  // a single rank exchanges nothing: no comparison
      ++c.compared;
      if (!is_best(cell)) ++c.differs;
      if (!cell.ratio) continue;
      if (!c.row_worst[i] || *cell.ratio > ratio_at(i, *c.row_worst[i])) c.row_worst[i] = j;
      if (!c.worst || *cell.ratio > ratio_at(c.worst->first, c.worst->second)) {
        c.worst = std::pair{i, j};
      }
    }
  }
}

}  // namespace

SelectionGrid selection_grid(Op op, std::vector<std::int64_t> ranks, std::vector<double> bytes,
                             const CostOptions& options, const Topology& base, bool on_fabric) {
  SelectionGrid grid;
  grid.op = op;
  grid.ranks = std::move(ranks);
  grid.bytes = std::move(bytes);
  grid.options = options;
  grid.base = base;
  grid.on_fabric = on_fabric;
  for (const std::int64_t n : grid.ranks) grid.topologies.push_back(topology_at(grid, n));
  for (std::size_t i = grid.ranks.size(); i-- > 0;) {
    for (const AlgorithmSpec& s : applicable_algorithms(op, grid.topologies[i])) {
      collective_cost(op, s, grid.bytes.front(), grid.topologies[i], options);
    }
  }
  return grid;
}

SelectionStudy study_selection(SelectionGrid grid, std::optional<Selector> selector) {
  SelectionStudy study;
  study.map = selection_map(
      grid.op, grid.ranks, grid.bytes,
      [&](std::int64_t n) { return topology_at(grid, n); }, grid.options);
  study.legend = legend_of(grid);
  if (selector) {
    LibraryComparison c;
    c.selector = *selector;
    c.cells.resize(grid.ranks.size());
    for (std::size_t i = 0; i < grid.ranks.size(); ++i) {
      for (std::size_t j = 0; j < grid.bytes.size(); ++j) {
        c.cells[i].push_back(library_cell(grid, study.map, *selector, i, j));
      }
    }
    tally(grid, c);
    study.library = std::move(c);
  }
  study.grid = std::move(grid);
  return study;
}

}  // namespace scalewall
