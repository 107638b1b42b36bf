// Tests of scalewall/present/select_report.h: the codes, the size titles, and one report per
// format from the same study.
#include "scalewall/present/select_report.h"

#include <gtest/gtest.h>

namespace scalewall {
namespace {

TEST(SelectReport, CodesAndSizeLabels) {
  EXPECT_EQ(algorithm_code({Algorithm::kRing}), "RG");
  EXPECT_EQ(algorithm_code({Algorithm::kRabenseifner}), "RB");
  AlgorithmSpec h{Algorithm::kHierarchical};
  h.inter = Algorithm::kRing;
  EXPECT_EQ(algorithm_code(h), "H-RG");
  EXPECT_EQ(size_label(64), "64");
  EXPECT_EQ(size_label(4096), "4Ki");
  EXPECT_EQ(size_label(16.0 * 1048576), "16Mi");
  EXPECT_EQ(size_label(1073741824.0), "1Gi");
  EXPECT_EQ(size_label(1000), "1000");
}

TEST(SelectReport, EachFormatGetsItsShape) {
  const Link link{2.5e-6, 25e9};
  const SelectionStudy s = study_selection(
      selection_grid(Op::kAllreduce, {8, 64}, {1.0, 1048576.0}, {}, flat_topology(1, link), false),
      Selector::kMpich);
  SelectionCall call;
  call.network = "flat link";
  const Report json = selection_report(s, Format::kJson, call);
  EXPECT_TRUE(json.tables.empty());
  ASSERT_EQ(json.extra["rows"].size(), 2u);
  EXPECT_EQ(json.extra["rows"][1]["ranks"], 64);
  EXPECT_EQ(json.extra["rows"][1]["library"].size(), 2u);
  EXPECT_EQ(json.extra["selector"], "mpich");
  EXPECT_EQ(json.inputs["step"], 4);

  const Report csv = selection_report(s, Format::kCsv, call);
  ASSERT_EQ(csv.tables.size(), 1u);
  EXPECT_EQ(csv.tables[0].rows.size(), 4u);  // one per cell
  EXPECT_EQ(csv.tables[0].columns.size(), 8u);

  const Report table = selection_report(s, Format::kTable, call);
  ASSERT_GE(table.tables.size(), 2u);
  EXPECT_EQ(table.tables.front().key, "winners");
  EXPECT_EQ(table.tables.back().key, "library");
  EXPECT_EQ(std::get<std::string>(table.tables.front().rows[0][1]),
            algorithm_code(s.map.rows[0].winner[0]));
  EXPECT_EQ(table.fields[1].key, "differs");
  EXPECT_EQ(std::get<std::string>(table.fields[1].value),
            std::to_string(s.library->differs) + " of " + std::to_string(s.library->compared) +
                " modelled cells");
  EXPECT_EQ(table.title.rfind("allreduce selection map: 2 rank counts x 2 sizes (x4 apart); flat link", 0), 0u)
      << table.title;
}

}  // namespace
}  // namespace scalewall
