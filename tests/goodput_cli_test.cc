// End-to-end tests of a transformer run's time to train, cost and goodput (training.tokens,
// system.gpu_hour_cost, [checkpoint], [failures], a bad node): the Llama 3.1 405B example's
// figures against their closed forms, the three stages the text separates, plan's best split,
// and a scenario without those keys printing what it printed before.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

std::string Example(const std::string& name) { return source_path("examples/" + name + ".toml"); }

// The text of examples/<name>.toml with `extra` appended.
std::string example_with(const std::string& name, const std::string& extra) {
  std::ifstream in(Example(name));
  return std::string(std::istreambuf_iterator<char>(in), {}) + extra;
}

// Llama 3.1 405B, 15T tokens on 16,384 H100s with a GPU MTBF of 50,000 h, which is what the
// Llama 3 paper's 419 unexpected interruptions in 54 days on 16,384 GPUs give (16,384 x 54 x
// 24 h / 419 = 50,677 h; over 54 days the model expects 54 x 24 h / (50,000 h / 16,384) = 425).
TEST(GoodputCli, Llama405bFifteenTrillionTokens) {
  const auto j = run_json({"predict", Example("llama3.1-405b-15t-goodput")});
  ASSERT_TRUE(j["fits"].get<bool>());
  const double step = j["step_s"].get<double>();
  EXPECT_EQ(j["step_with_variance_s"].get<double>(), step);
  EXPECT_DOUBLE_EQ(j["step_ideal_s"].get<double>(), step - j["variance_s"].get<double>());
  // 15e12 / (2,048 x 8,192) = 894,069.8: 894,070 steps.
  EXPECT_EQ(j["steps"].get<double>(), 894070.0);
  // The checkpoint: 14 B per parameter, written at the file system's 2 TB/s.
  const double bytes = j["checkpoint_bytes"].get<double>();
  EXPECT_NEAR(bytes / 14.0, 405.85e9, 0.01e9);
  const double delta = bytes / 2e12;
  EXPECT_DOUBLE_EQ(j["checkpoint_write_s"].get<double>(), delta);
  EXPECT_DOUBLE_EQ(j["checkpoint_stall_s"].get<double>(), delta);
  // The job fails every 50,000 h / 16,384 = 10,986 s; Daly's interval for it.
  const double mtbf = 50000.0 * 3600.0 / 16384.0;
  EXPECT_DOUBLE_EQ(j["job_mtbf_s"].get<double>(), mtbf);
  const double x = delta / (2.0 * mtbf);
  const double daly = std::sqrt(2.0 * delta * mtbf) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - delta;
  EXPECT_NEAR(j["best_checkpoint_interval_s"].get<double>(), daly, 1e-9 * daly);
  EXPECT_NEAR(daly, 248.0, 1.0);
  // The interval used: Daly's in whole steps; the goodput at it in closed form.
  const double tau = j["checkpoint_interval_s"].get<double>();
  EXPECT_DOUBLE_EQ(tau, j["checkpoint_interval_steps"].get<double>() * step);
  EXPECT_LT(std::fabs(tau - daly), step);
  const double goodput = (1.0 - (600.0 + tau / 2.0) / mtbf) / (1.0 + delta / tau);
  EXPECT_NEAR(j["goodput"].get<double>(), goodput, 1e-12);
  EXPECT_NEAR(goodput, 0.924, 0.002);
  // days = steps x step / goodput / 86,400; GPU-hours and cost from them.
  const double days = 894070.0 * step / goodput / 86400.0;
  EXPECT_NEAR(j["days"].get<double>(), days, 1e-9 * days);
  EXPECT_NEAR(j["gpu_hours"].get<double>(), days * 24.0 * 16384.0, 1e-9 * days * 24.0 * 16384.0);
  EXPECT_NEAR(j["cost"].get<double>(), 2.0 * j["gpu_hours"].get<double>(), 1e-3);
  EXPECT_NEAR(j["expected_failures"].get<double>(), days * 86400.0 / mtbf, 1e-9 * days);
  // The table: the three stages, each as long again as the one before.
  const auto& run = j["run"];
  ASSERT_EQ(run.size(), 3u);
  EXPECT_EQ(run[0]["stage"], "ideal (no variance)");
  EXPECT_EQ(run[1]["stage"], "with variance");
  EXPECT_LT(run[0]["days"].get<double>(), run[1]["days"].get<double>());
  EXPECT_LT(run[1]["days"].get<double>(), run[2]["days"].get<double>());
  EXPECT_EQ(run[2]["days"].get<double>(), j["days"].get<double>());
  EXPECT_DOUBLE_EQ(run[1]["days"].get<double>(), 894070.0 * step / 86400.0);
  // What the scenario gave, among the inputs.
  EXPECT_EQ(j["inputs"]["model"]["run"]["tokens"].get<double>(), 15e12);
  EXPECT_EQ(j["inputs"]["model"]["run"]["failures"]["gpu_mtbf_s"].get<double>(), 1.8e8);
}

TEST(GoodputCli, TheTextSeparatesTheIdealStepTheVarianceAndTheGoodput) {
  const CliResult r = run_scalewall({"predict", Example("llama3.1-405b-15t-goodput")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"[run]", "ideal (no variance)", "with variance",
        "with checkpoints and failures (goodput 92.", "ideal step (no variance):",
        "step with variance:", "goodput (useful time / wall time):", "days to train (wall clock):",
        "GPU-hours:", "cost (at 2 per GPU-hour):", "best checkpoint interval (Daly 2006):",
        "stall per checkpoint:", "expected failures:"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line;
  }
}

// Without the run's keys predict prints what it printed before: no run table, no run field.
TEST(GoodputCli, AScenarioWithoutTheKeysHasNoRun) {
  const auto j = run_json({"predict", Example("llama3.1-70b-h100")});
  for (const char* key : {"run", "goodput", "days", "gpu_hours", "cost", "step_ideal_s",
                          "best_checkpoint_interval_s", "checkpoint_stall_s",
                          "expected_failures"}) {
    EXPECT_FALSE(j.contains(key)) << key;
  }
  EXPECT_FALSE(j["inputs"]["model"].contains("run"));
}

// A bad node slows every step by its slowdown of the compute; checkpoints alone give goodput
// = 1 / (1 + stall / interval); plan prices its best split's run.
TEST(GoodputCli, ABadNodeAndCheckpointsOnPlansBestSplit) {
  const std::string path = write_temp_file(
      "slow-node.toml",
      example_with("llama3.1-70b-h100",
                   "[variance]\nbad_node_slowdown = 1.1\n"
                   "[checkpoint]\nwrite_bandwidth = \"5GB/s\"\ninterval = 100\n"));
  const std::string text = example_with("llama3.1-70b-h100", "");
  std::string with_tokens = text;
  with_tokens.replace(with_tokens.find("dtype = \"bf16\"\n"), 15,
                      "dtype = \"bf16\"\ntokens = \"1T\"\n");
  for (const char* command : {"predict", "plan"}) {
    SCOPED_TRACE(command);
    const auto j = run_json({command, path});
    const double compute = j["compute_s"].get<double>() + j["recompute_s"].get<double>();
    EXPECT_NEAR(j["step_s"].get<double>() - j["step_ideal_s"].get<double>(), 0.1 * compute,
                1e-9 * compute);
    // 16 nodes of 5 GB/s write 14 B x 70.55B parameters.
    const double write = j["checkpoint_bytes"].get<double>() / (16 * 5e9);
    EXPECT_NEAR(j["checkpoint_bytes"].get<double>() / 14.0, 70.55e9, 0.01e9);
    EXPECT_DOUBLE_EQ(j["checkpoint_stall_s"].get<double>(), write);
    EXPECT_DOUBLE_EQ(j["goodput"].get<double>(), 1.0 / (1.0 + write / (100 * j["step_s"].get<double>())));
    EXPECT_TRUE(j["days"].is_null());  // no training.tokens
    EXPECT_TRUE(j["best_checkpoint_interval_s"].is_null());  // no failures
  }
  const std::string tokens = write_temp_file(
      "tokens.toml", with_tokens + "[checkpoint]\nwrite_bandwidth = \"5GB/s\"\ninterval = \"1h\"\n");
  const auto j = run_json({"plan", tokens});
  EXPECT_EQ(j["steps"].get<double>(), std::ceil(1e12 / (512.0 * 8192.0)));
  EXPECT_DOUBLE_EQ(j["days"].get<double>(),
                   j["steps"].get<double>() * j["step_s"].get<double>() /
                       j["goodput"].get<double>() / 86400.0);
  EXPECT_FALSE(j.contains("cost"));
}

// A job that fails more often than it can get back to where it was never finishes: goodput 0,
// no days, and the text says why.
TEST(GoodputCli, ARunThatCannotCatchUpNeverFinishes) {
  std::string text = example_with("llama3.1-70b-h100",
                                  "[checkpoint]\nwrite_bandwidth = \"1GB/s\"\ninterval = 1000\n"
                                  "[failures]\ngpu_mtbf = \"100h\"\nrestart = \"10min\"\n");
  text.replace(text.find("dtype = \"bf16\"\n"), 15, "dtype = \"bf16\"\ntokens = \"1T\"\n");
  const std::string path = write_temp_file("never.toml", text);
  const auto j = run_json({"predict", path});
  EXPECT_EQ(j["goodput"].get<double>(), 0.0);
  EXPECT_TRUE(j["days"].is_null());
  EXPECT_TRUE(j["expected_failures"].is_null());
  EXPECT_FALSE(j["run"][1]["days"].is_null());
  const CliResult r = run_scalewall({"predict", path});
  EXPECT_NE(r.out.find("with checkpoints and failures (never finishes)"), std::string::npos);
  EXPECT_NE(r.out.find("never: a failure loses its restart and half an interval, more than the "
                       "job's MTBF"),
            std::string::npos);
}

TEST(GoodputCli, BadKeysAreRefusedNamingThem) {
  const std::string base = example_with("llama3.1-70b-h100", "");
  std::string tokens = base;
  tokens.replace(tokens.find("dtype = \"bf16\"\n"), 15, "dtype = \"bf16\"\ntokens = \"15 tokens\"\n");
  expect_input_error({"predict", write_temp_file("t.toml", tokens)},
                     "training.tokens = '15 tokens' (line 20): unknown unit 'tokens' in count");
  expect_input_error(
      {"plan", write_temp_file("f.toml", base + "[failures]\ngpu_mtbf = \"50000h\"\nrestart = 600\n")},
      "[failures] (line 36): needs [checkpoint]");
  expect_input_error({"predict", write_temp_file("c.toml", base + "[checkpoint]\nbytes = \"1TB\"\n"
                                                                   "write_bandwidth = \"1GB/s\"\n")},
                     "checkpoint.interval is missing");
  expect_input_error(
      {"predict", write_temp_file("m.toml", base + "[checkpoint]\nwrite_bandwidth = \"1GB/s\"\n"
                                                   "[failures]\ngpu_mtbf = \"soon\"\n"
                                                   "restart = \"10min\"\n")},
      "failures.gpu_mtbf = 'soon' (line 39): cannot read a time from 'soon'");
}

}  // namespace
}  // namespace scalewall::testing
