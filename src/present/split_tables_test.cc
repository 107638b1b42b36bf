// Tests of scalewall/present/split_tables.h: the contract's keys, the breakdown's shares, and
// the words that say why a runner-up loses.
#include "scalewall/present/split_tables.h"

#include <gtest/gtest.h>

#include <string>

namespace scalewall {
namespace {

SplitStep step_of(double compute, double bubble, double dp, bool fits) {
  SplitStep s;
  s.split.tp = 8;
  s.split.pp = 4;
  s.split.dp = 2;
  s.compute_s = compute;
  s.pp_bubble_s = bubble;
  s.dp_comm_s = dp;
  s.step_s = compute + bubble + dp;
  s.fits = fits;
  s.memory.weights_bytes = 10e9;
  s.memory.activations_bytes = fits ? 30e9 : 75e9;  // 40 GB, or 85 GB: 5 GB over 80
  s.memory_limit_bytes = 80e9;
  s.lacks_bytes = fits ? 0 : 5e9;
  return s;
}

TEST(SplitTables, FieldsCarryTheContractKeys) {
  Report r = model_report("predict");
  add_split_fields(r, step_of(8, 1, 1, true));
  const nlohmann::ordered_json j = to_json(r);
  for (const char* key : {"step_s", "fits", "memory_per_gpu_bytes", "tflops_per_gpu", "mfu",
                          "tokens_per_s", "compute_s", "recompute_s", "tp_comm_s", "pp_bubble_s",
                          "pp_transfer_s", "dp_comm_s", "optimizer_s", "variance_s", "serial_s",
                          "tp", "pp", "dp", "binding"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_DOUBLE_EQ(j["memory_per_gpu_bytes"].get<double>(), 40e9);
  EXPECT_DOUBLE_EQ(j["step_s"].get<double>(), 10.0);
  EXPECT_EQ(j["split"], "tp 8, pp 4, dp 2, micro-batch 1, interleave 1, recompute none, zero 0, "
                        "sequence parallel off, dp overlap off");
}

TEST(SplitTables, BreakdownSharesSumToTheStep) {
  const Table t = split_breakdown_table(step_of(8, 1, 1, true));
  ASSERT_EQ(t.rows.size(), 10u);
  double share = 0;
  for (std::size_t i = 0; i + 1 < t.rows.size(); ++i) share += std::get<double>(t.rows[i][2]);
  EXPECT_DOUBLE_EQ(share, 1.0);
  EXPECT_EQ(std::get<std::string>(t.rows[3][0]), "pp bubble");
  EXPECT_DOUBLE_EQ(std::get<double>(t.rows[3][2]), 0.1);
}

TEST(SplitTables, RunnersUpSayWhatGrewAndWhatDoesNotFit) {
  const SplitStep best = step_of(8, 1, 1, true);
  EXPECT_EQ(alternative_line("#2", step_of(8, 3, 1.5, true), best),
            "#2 (tp 8, pp 4, dp 2, micro-batch 1, interleave 1, recompute none, zero 0, sequence "
            "parallel off, dp overlap off): step 12.5 s, 25% slower than the best (+2 s pp "
            "bubble, +500 ms dp comm)");
  EXPECT_EQ(alternative_line("pure data parallel", step_of(8, 0, 1, false), best),
            "pure data parallel (tp 8, pp 4, dp 2, micro-batch 1, interleave 1, recompute none, "
            "zero 0, sequence parallel off, dp overlap off): does not fit, needs 85 GB per GPU of "
            "80 GB (lacks 5 GB)");
  SplitSearch s;
  s.ranked = {best, step_of(9, 1, 1, true)};
  ASSERT_EQ(runner_up_lines(s).size(), 1u);
  EXPECT_NE(runner_up_lines(s)[0].find("+1 s compute"), std::string::npos);
}

}  // namespace
}  // namespace scalewall
