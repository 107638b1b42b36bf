// Tests of scalewall/analysis/select_compare.h: the library's picks costed against the map.
#include "scalewall/analysis/select_compare.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "scalewall/io/fabric_file.h"
#include "test_support.h"

namespace scalewall {
namespace {

const Link kLink{2.5e-6, 25e9};

SelectionStudy ompi_study() {
  SelectionGrid grid = selection_grid(Op::kAllreduce, {1, 8, 64}, {1.0, 1024.0, 1048576.0}, {},
                                      flat_topology(1, kLink), false);
  return study_selection(std::move(grid), Selector::kOpenMpi);
}

TEST(SelectCompare, EachPickIsCostedAgainstTheBest) {
  const SelectionStudy s = ompi_study();
  ASSERT_TRUE(s.library);
  const LibraryComparison& c = *s.library;
  ASSERT_EQ(c.cells.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(c.cells[i].size(), 3u);
    for (std::size_t j = 0; j < 3; ++j) {
      const LibraryCell& cell = c.cells[i][j];
      const LibraryChoice expected =
          library_choice(Selector::kOpenMpi, Op::kAllreduce, s.grid.ranks[i], s.grid.bytes[j]);
      EXPECT_EQ(cell.choice.library_algorithm, expected.library_algorithm);
      if (!cell.choice.modelled) continue;
      const double cost = collective_cost(Op::kAllreduce, *cell.choice.modelled, s.grid.bytes[j],
                                          s.grid.topologies[i], {})
                              .total_s;
      EXPECT_DOUBLE_EQ(*cell.total_s, cost);
      const double best = s.map.rows[i].total_s[j];
      if (best > 0) {
        EXPECT_DOUBLE_EQ(*cell.ratio, cost / best);
        EXPECT_GE(*cell.ratio, 1.0 - 1e-12);  // the map's winner is the cheapest
      } else {
        EXPECT_FALSE(cell.ratio);  // one rank: every algorithm costs zero
      }
    }
  }
}

TEST(SelectCompare, CountsAndTheWorstCell) {
  const SelectionStudy s = ompi_study();
  const LibraryComparison& c = *s.library;
  std::size_t compared = 0, differs = 0, unmodelled = 0;
  double worst = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    for (const LibraryCell& cell : c.cells[i]) {
      if (!cell.choice.modelled) {
        ++unmodelled;
        continue;
      }
      if (s.grid.ranks[i] == 1) continue;
      ++compared;
      if (!is_best(cell)) ++differs;
      if (cell.ratio) worst = std::max(worst, *cell.ratio);
    }
  }
  EXPECT_EQ(c.compared, compared);
  EXPECT_EQ(c.differs, differs);
  EXPECT_EQ(c.unmodelled, unmodelled);
  ASSERT_TRUE(c.worst);
  EXPECT_DOUBLE_EQ(*c.cells[c.worst->first][c.worst->second].ratio, worst);
  EXPECT_FALSE(c.row_worst[0]);  // one rank: nothing compared
}

TEST(SelectCompare, TheGridRefusesARankCountTheFabricCannotHold) {
  const Topology fabric =
      load_fabric_file(std::string(SCALEWALL_SOURCE_DIR) + "/examples/fabrics/dgx-h100-ndr.toml");
  ASSERT_EQ(fabric.ranks_per_node, 8);
  EXPECT_FALSE(input_error_of([&] {
                 selection_grid(Op::kAllreduce, {12}, {1.0}, {}, fabric, true);
               }).empty());
}

TEST(SelectCompare, LegendHoldsEveryAlgorithmThatTookPart) {
  const SelectionStudy s = ompi_study();
  for (const Topology& t : s.grid.topologies) {
    for (const AlgorithmSpec& a : applicable_algorithms(Op::kAllreduce, t)) {
      EXPECT_NE(std::find(s.legend.begin(), s.legend.end(), a), s.legend.end());
    }
  }
  EXPECT_FALSE(study_selection(ompi_study().grid, std::nullopt).library);
}

}  // namespace
}  // namespace scalewall
