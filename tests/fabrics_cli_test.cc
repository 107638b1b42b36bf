// End-to-end tests of `scalewall fabrics` and of preset names wherever a fabric is taken.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

TEST(FabricsCli, ListsEveryPresetAsJson) {
  const auto j = run_json({"fabrics"});
  ASSERT_EQ(j["fabrics"].size(), 14u);
  EXPECT_EQ(j["fabrics"][1]["name"], "dgx-h100");
  EXPECT_EQ(j["fabrics"][1]["ranks_per_node"], 8);
  EXPECT_DOUBLE_EQ(j["fabrics"][1]["intra_bandwidth_Bps"].get<double>(), 450e9);
  EXPECT_DOUBLE_EQ(j["fabrics"][1]["inter_bandwidth_Bps"].get<double>(), 50e9);
  for (const auto& f : j["fabrics"]) EXPECT_FALSE(f["description"].get<std::string>().empty());
  EXPECT_EQ(j["fabrics"][1]["gpu"], "hopper");
  EXPECT_EQ(j["fabrics"][1]["nccl_net_latency_s"].get<double>(), 0.0);
  for (const auto& f : j["fabrics"]) {
    if (f["name"] == "aws-p4d" || f["name"] == "aws-p5") {
      EXPECT_DOUBLE_EQ(f["nccl_net_latency_s"].get<double>(), 75e-6) << f;
    }
    if (f["name"] == "ib-ndr") {
      EXPECT_TRUE(f["gpu"].is_null()) << f;
    }
  }
  const auto one = run_json({"fabrics", "gb200-nvl72"});
  ASSERT_EQ(one["fabrics"].size(), 1u);
  EXPECT_EQ(one["fabrics"][0]["ranks_per_node"], 72);
  expect_input_error({"fabrics", "dgx-h200"}, "dgx-h200");
}

// The TOML a preset prints is a fabric file that costs exactly as the preset does.
TEST(FabricsCli, ThePrintedTomlIsTheSameFabric) {
  const CliResult toml = run_scalewall({"fabrics", "dgx-a100", "--toml"});
  ASSERT_EQ(toml.exit_code, 0) << toml.err;
  const std::string file = write_temp_file("my-a100.toml", toml.out);
  const auto from_file =
      run_json({"collective", "--fabric", file, "--ranks", "64", "--bytes", "1GB"});
  const auto from_name =
      run_json({"collective", "--fabric", "dgx-a100", "--ranks", "64", "--bytes", "1GB"});
  ASSERT_FALSE(from_name["nccl"].empty());  // a GPU preset: NCCL's choice by default
  EXPECT_EQ(from_file["nccl"], from_name["nccl"]);
  // 64 ranks of an 8-GPU node type: 8 nodes.
  EXPECT_EQ(from_name["inputs"]["fabric"]["nodes"], 8);
}

TEST(FabricsCli, AScenarioNamesAPreset) {
  const std::string scenario = write_temp_file(
      "on-preset.toml",
      "name = \"on-preset\"\n[workload]\nparameters = 7e9\ngradient_dtype = \"bf16\"\n"
      "compute = \"300ms\"\nscaling = \"weak\"\n[network]\nfabric = \"dgx-h100\"\n");
  const auto j = run_json({"predict", scenario, "--ranks", "8,64"});
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_GT(j["rows"][1]["communication_s"].get<double>(), 0.0);
  // A GPU preset: the step's all-reduce is priced by NCCL's choice, and the report says so.
  EXPECT_EQ(j["inputs"]["model"]["network"]["selector_used"], "nccl");
  EXPECT_EQ(j["selector"].get<std::string>().rfind("nccl", 0), 0u);
  const auto mpi = run_json({"predict", scenario, "--ranks", "8,64", "--selector", "mpi"});
  EXPECT_EQ(mpi["inputs"]["model"]["network"]["selector_used"], "mpi");
  EXPECT_NE(mpi["rows"][1]["communication_s"], j["rows"][1]["communication_s"]);
  // --what-if lays the two selectors side by side; the baseline is NCCL's.
  const auto w = run_json({"predict", scenario, "--what-if", "--at", "64"});
  std::vector<std::string> names;
  double nccl_step = 0;
  for (const auto& row : w["remedies"]) {
    names.push_back(row["name"].get<std::string>());
    if (row["name"] == "selector nccl") nccl_step = row["step_s"].get<double>();
  }
  EXPECT_NE(std::find(names.begin(), names.end(), "selector mpi"), names.end());
  EXPECT_DOUBLE_EQ(nccl_step, w["baseline_step_s"].get<double>());
  // A path with a slash is a file, even when its last part is a preset's name.
  const std::string missing = write_temp_file(
      "on-missing.toml",
      "name = \"x\"\n[workload]\ngradient_bytes = \"1GB\"\ncompute = \"1s\"\nscaling = \"weak\"\n"
      "[network]\nfabric = \"./dgx-h100\"\n");
  expect_input_error({"predict", missing}, "dgx-h100");
}

}  // namespace
}  // namespace scalewall::testing
