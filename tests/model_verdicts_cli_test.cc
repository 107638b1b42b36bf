// End-to-end tests of the verdicts `predict` and `plan` give where a careless model would
// mislead: checkpoints against the one-rank baseline, the binding mechanism of a job that
// scales well, cliffs of counts that are not powers of two, LogGP's o under overlap, and how
// much of a prediction rides on the algorithm.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

std::string Fabric(const std::string& name) {
  return source_path("examples/fabrics/" + name + ".toml");
}

// A 13e9-parameter bf16 model, 1.2 s of compute per rank, weak scaling, overlap on, on the
// DGX H100 example fabric, with a 182 GB checkpoint every 50 steps at 2 GB/s.
std::string CheckpointScenario(const std::string& name, bool shared, bool async) {
  return write_temp_file(name + ".toml", "name = \"" + name + "\"\n"
                         "[workload]\nparameters = 13e9\ngradient_dtype = \"bf16\"\n"
                         "compute = \"1.2s\"\nscaling = \"weak\"\n"
                         "[network]\nfabric = \"" + Fabric("dgx-h100-ndr") + "\"\n"
                         "[remedies]\noverlap = true\n"
                         "[checkpoint]\nbytes = \"182GB\"\nwrite_bandwidth = \"2GB/s\"\n"
                         "shared = " + (shared ? "true" : "false") + "\n"
                         "interval_steps = 50\nasync = " + (async ? "true" : "false") + "\n");
}

// Writes a copy of the DGX fabric with `nodes` nodes and `nics` NICs per node.
std::string DgxFabric(const std::string& name, int nodes, int nics) {
  return write_temp_file(name + ".toml",
                         "name = \"" + name + "\"\nnominal = true\nnodes = " +
                             std::to_string(nodes) + "\nranks_per_node = 8\nnics_per_node = " +
                             std::to_string(nics) + "\nplacement = \"packed\"\n"
                             "[intra]\nalpha = \"2us\"\nbandwidth = \"450GB/s\"\n"
                             "[inter]\nalpha = \"3us\"\nbandwidth = \"400Gb/s\"\n");
}

// 13e9 bf16 parameters, 1.2 s at 256 ranks, strong scaling, overlap on.
std::string LlmOn(const std::string& name, const std::string& fabric) {
  return write_temp_file(name + ".toml", "name = \"" + name + "\"\n"
                         "[workload]\nparameters = 13e9\ngradient_dtype = \"bf16\"\n"
                         "compute = \"1.2s\"\nscaling = \"strong\"\nreference_ranks = 256\n"
                         "[network]\nfabric = \"" + fabric + "\"\n"
                         "[remedies]\noverlap = true\n");
}

// Issue case: one writer per node used to give 143% and 230% efficiency, a negative loss and
// negative idle accelerator-hours.
TEST(ModelVerdictsCli, PerNodeCheckpointsKeepEfficiencyAtMostOne) {
  const std::string scenario = CheckpointScenario("ckpt-per-node", false, false);
  const auto j = run_json({"predict", scenario, "--ranks", "8,16,128"});
  for (const auto& row : j["rows"]) {
    EXPECT_LE(row["efficiency"].get<double>(), 1.0) << row["ranks"];
    EXPECT_GE(row["checkpoint_s"].get<double>(), 0.0);
  }
  const auto& lost = j["lost_time_at_max"];
  EXPECT_GE(lost["lost_s"].get<double>(), 0.0);
  EXPECT_GE(lost["checkpoint_s"].get<double>(), 0.0);
  // 16 nodes write 182 GB at 2 GB/s each, every 50 steps.
  EXPECT_NEAR(lost["checkpoint_s"].get<double>(), 182e9 / (16 * 2e9) / 50, 1e-9);
  const auto plan = run_json({"plan", scenario, "--ranks", "128"});
  EXPECT_GE(plan["idle_accelerator_hours_per_1000_steps"].get<double>(), 0.0);
  EXPECT_LE(plan["efficiency"].get<double>(), 1.0);
}

// Issue case: a synchronous shared checkpoint is 60% of the step; it used to show as 99.99%
// efficiency, binding compute, checkpoint loss 0 s.
TEST(ModelVerdictsCli, SynchronousCheckpointStallIsNamedAtEveryRankCount) {
  const auto j = run_json({"predict", CheckpointScenario("ckpt-sync", true, false), "--ranks",
                           "8,128"});
  for (const auto& row : j["rows"]) {
    EXPECT_NEAR(row["checkpoint_s"].get<double>(), 1.82, 1e-9);
    EXPECT_EQ(row["binding"], "checkpoint") << row["ranks"];
    EXPECT_LT(row["efficiency"].get<double>(), 0.41);  // 1.2 s of 3.02 s
  }
  EXPECT_NEAR(j["lost_time_at_max"]["checkpoint_s"].get<double>(), 1.82, 1e-9);
  EXPECT_EQ(j["binding_at_max"], "checkpoint");
  // Asynchronous: the overrun is a loss, never a negative one.
  const auto a = run_json({"predict", CheckpointScenario("ckpt-async", true, true), "--ranks",
                           "8,128"});
  const auto& lost = a["lost_time_at_max"];
  EXPECT_GE(lost["checkpoint_s"].get<double>(), 0.0);
  EXPECT_NEAR(lost["checkpoint_s"].get<double>(), a["rows"][1]["checkpoint_s"].get<double>(),
              1e-12);
}

// Issue case: a row at 90% or more was labelled compute even where variance was 99.5% of the
// time lost.
TEST(ModelVerdictsCli, BindingIsTheLargestLossAndScalingWellIsSaidApart) {
  const std::string scenario = write_temp_file(
      "jitter.toml",
      "name = \"jitter\"\n[workload]\ngradient_bytes = \"1KB\"\ncompute = \"300ms\"\n"
      "scaling = \"weak\"\n[network]\nbusbw = \"50GB/s\"\n[variance]\nsigma = \"2%\"\n");
  const auto j = run_json({"predict", scenario, "--ranks", "65536"});
  const auto& row = j["rows"][0];
  EXPECT_GE(row["efficiency"].get<double>(), 0.9);
  EXPECT_EQ(row["binding"], "variance");
  EXPECT_EQ(j["binding_at_max"], "variance");
  EXPECT_EQ(j["scales_well_at_max"], "yes");
  const auto& lost = j["lost_time_at_max"];
  EXPECT_GT(lost["variance_s"].get<double>(), 0.99 * lost["lost_s"].get<double>());
  const auto plan = run_json({"plan", scenario, "--ranks", "65536"});
  EXPECT_EQ(plan["binding"], "variance");
  EXPECT_EQ(plan["scales_well"], "yes");
}

// Issue case: a count that is not a power of two makes the algorithm fold; the knee used to
// land on that cliff (2056 ranks; with one NIC per node, 520).
TEST(ModelVerdictsCli, AFoldCliffIsFlaggedAndIsNotTheKnee) {
  const auto wide = run_json({"predict", LlmOn("llm-8nic", DgxFabric("dgx-32", 32, 8)),
                              "--ranks", "2048,2056,4096"});
  EXPECT_NE(wide["knee_ranks"], 2056);
  ASSERT_EQ(wide["cliff_rows"].size(), 1u);
  EXPECT_EQ(wide["cliff_rows"][0]["ranks"], 2056);
  EXPECT_EQ(wide["cliff_rows"][0]["regular_ranks"], 4096);
  EXPECT_LT(wide["cliff_rows"][0]["efficiency"].get<double>(),
            wide["cliff_rows"][0]["regular_efficiency"].get<double>());
  ASSERT_EQ(wide["cliffs"].size(), 1u);
  EXPECT_NE(wide["cliffs"][0].get<std::string>().find("2056 ranks"), std::string::npos);

  const auto one_nic = run_json({"predict", LlmOn("llm-1nic", DgxFabric("dgx-1nic", 32, 1)),
                                 "--ranks", "256,512,520,1024"});
  ASSERT_FALSE(one_nic["knee_ranks"].is_null());
  EXPECT_NE(one_nic["knee_ranks"], 520);
  // Between 256 and 512 every count folds: the knee is no cliff, so it is 512 itself.
  EXPECT_EQ(one_nic["knee_ranks"], 512);
  ASSERT_EQ(one_nic["cliff_rows"].size(), 1u);
  EXPECT_EQ(one_nic["cliff_rows"][0]["ranks"], 520);
  // Powers of two are never cliffs: no cliff on the default grid.
  const auto grid = run_json({"predict", LlmOn("llm-grid", DgxFabric("dgx-grid", 32, 8)),
                              "--max-ranks", "4096"});
  EXPECT_TRUE(grid["cliff_rows"].empty());
  EXPECT_TRUE(grid["cliffs"].empty());
}

// Seed D01 section 3.2: o "cannot be overlapped with anything". Three fabrics with L + 2o =
// 25 us and o = 0, 5, 12 us used to give identical collective costs and identical exposed
// communication under overlap.
TEST(ModelVerdictsCli, LogGpOverheadShowsInCollectiveAndStaysExposedUnderOverlap) {
  std::vector<double> overhead;
  std::vector<double> exposed;
  for (const int o : {0, 5, 12}) {
    const std::string name = "loggp-o" + std::to_string(o);
    const std::string fabric = write_temp_file(
        name + ".toml", "name = \"" + name + "\"\nnodes = 64\nranks_per_node = 1\n"
                        "[intra]\nalpha = \"1us\"\nbandwidth = \"10GB/s\"\n"
                        "[inter]\nL = \"" + std::to_string(25 - 2 * o) + "us\"\no = \"" +
                        std::to_string(o) + "us\"\ng = \"0us\"\nbandwidth = \"100Gb/s\"\n");
    const auto c = run_json({"collective", "--fabric", fabric, "--bytes", "8"});
    const auto& winner = c["algorithms"][0];
    overhead.push_back(winner.contains("overhead_s") ? winner["overhead_s"].get<double>() : 0.0);
    const std::string scenario = write_temp_file(
        name + "-job.toml", "name = \"" + name + "-job\"\n[workload]\ngradient_bytes = \"1GB\"\n"
                            "compute = \"1s\"\nscaling = \"weak\"\n[network]\nfabric = \"" +
                            fabric + "\"\n[remedies]\noverlap = true\nbucket = \"1MB\"\n");
    const auto p = run_json({"predict", scenario, "--ranks", "64"});
    exposed.push_back(p["rows"][0]["exposed_communication_s"].get<double>());
  }
  EXPECT_EQ(overhead[0], 0.0);
  EXPECT_LT(overhead[0], overhead[1]);
  EXPECT_LT(overhead[1], overhead[2]);
  EXPECT_LT(exposed[0], exposed[1]);
  EXPECT_LT(exposed[1], exposed[2]);
}

// Issue case: 97% with the automatic choice, 50% with the ring, 67% with the double binary
// tree, and the output showed one of them.
TEST(ModelVerdictsCli, TheSpreadAcrossAlgorithmsIsPrinted) {
  const std::string scenario = LlmOn("llm-spread", DgxFabric("dgx-spread", 32, 8));
  const auto j = run_json({"predict", scenario, "--ranks", "256"});
  const auto& spread = j["algorithm_spread"];
  ASSERT_GE(spread.size(), 3u);
  int chosen = 0;
  for (std::size_t i = 0; i < spread.size(); ++i) {
    if (spread[i]["chosen"].get<bool>()) {
      ++chosen;
      EXPECT_EQ(spread[i]["algorithm"], j["rows"][0]["algorithm"]);
      EXPECT_DOUBLE_EQ(spread[i]["efficiency"].get<double>(),
                       j["rows"][0]["efficiency"].get<double>());
    }
    if (i > 0) {
      EXPECT_LE(spread[i]["efficiency"].get<double>(),
                spread[i - 1]["efficiency"].get<double>());
    }
  }
  EXPECT_EQ(chosen, 1);
  // Each entry is what --algorithm gives.
  for (const auto& entry : spread) {
    const auto fixed = run_json({"predict", scenario, "--ranks", "256", "--algorithm",
                                 entry["algorithm"].get<std::string>()});
    EXPECT_DOUBLE_EQ(fixed["rows"][0]["efficiency"].get<double>(),
                     entry["efficiency"].get<double>())
        << entry["algorithm"];
  }
  const CliResult table = run_scalewall({"predict", scenario, "--ranks", "256"});
  EXPECT_NE(table.out.find("efficiency by algorithm at 256 ranks:"), std::string::npos);
  EXPECT_NE(table.out.find("(chosen)"), std::string::npos);
}

}  // namespace
}  // namespace scalewall::testing
