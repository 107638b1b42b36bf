// End-to-end tests of `scalewall predict` and `scalewall plan` on transformer scenarios
// ([model], [training], [parallel], [system]): the contract's JSON keys, the flags that set
// the split, and the search's answer for 175B on 1024 A100s.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

std::string Example(const std::string& name) { return source_path("examples/" + name + ".toml"); }

TEST(TransformerCli, PredictWithAFixedSplitGivesTheBreakdownUnderTheContractKeys) {
  const auto j = run_json({"predict", Example("gpt3-175b-a100")});
  EXPECT_EQ(j["kind"], "model");
  EXPECT_EQ(j["tp"], 8);
  EXPECT_EQ(j["pp"], 8);
  EXPECT_EQ(j["dp"], 16);
  EXPECT_EQ(j["micro_batches"], 96);  // 1536 / (16 x 1)
  EXPECT_TRUE(j["fits"].get<bool>());
  double sum = 0;
  for (const char* key : {"compute_s", "recompute_s", "tp_comm_s", "pp_bubble_s",
                          "pp_transfer_s", "dp_comm_s", "optimizer_s", "variance_s", "serial_s"}) {
    ASSERT_TRUE(j.contains(key)) << key;
    sum += j[key].get<double>();
  }
  const double step = j["step_s"].get<double>();
  EXPECT_NEAR(sum, step, 1e-9 * step);
  // Full recomputation repeats the layers' forward, a third of forward + backward; the logits
  // are not recomputed, so the share is a little under a third.
  EXPECT_NEAR(j["recompute_s"].get<double>() / j["compute_s"].get<double>(), 1.0 / 3, 0.02);
  // 1F1B: bubble = (p - 1)/m of the pipelined time, 7/96.
  const double pipelined = j["compute_s"].get<double>() + j["recompute_s"].get<double>() +
                           j["tp_comm_s"].get<double>() + j["pp_transfer_s"].get<double>();
  EXPECT_NEAR(j["pp_bubble_s"].get<double>(), pipelined * 7 / 96, 1e-9 * step);
  // tokens/s = B s / step; MFU and TFLOP/s within what an A100 can do.
  EXPECT_NEAR(j["tokens_per_s"].get<double>(), 1536.0 * 2048 / step, 1e-6);
  EXPECT_GT(j["tflops_per_gpu"].get<double>(), 120);
  EXPECT_LT(j["tflops_per_gpu"].get<double>(), 312 * 0.68);
  EXPECT_GT(j["memory_per_gpu_bytes"].get<double>(), 40e9);
  EXPECT_EQ(j["inputs"]["model"]["system"]["gpu"], "a100-80gb");
  EXPECT_EQ(j["breakdown"].size(), 10u);  // nine mechanisms and the step
}

TEST(TransformerCli, FlagsSetTheSplitAndTheTableSaysModel) {
  const CliResult r = run_scalewall({"predict", Example("gpt3-175b-a100"), "--tp", "8", "--pp",
                                     "16", "--dp", "8", "--recompute", "selective",
                                     "--sequence-parallel", "on"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# MODEL: analytic prediction, not a measurement"), std::string::npos);
  EXPECT_NE(r.out.find("tp 8, pp 16, dp 8, micro-batch 1, interleave 1, recompute selective"),
            std::string::npos);
  const auto j = run_json({"predict", Example("gpt3-175b-a100"), "--tp", "8", "--pp", "16",
                           "--dp", "8", "--recompute", "selective"});
  EXPECT_EQ(j["micro_batches"], 192);
  // Pure data parallelism of 175B does not fit: it says so and by how much.
  const auto dp = run_json({"predict", Example("gpt3-175b-a100"), "--tp", "1", "--pp", "1",
                            "--dp", "1024", "--global-batch", "2048"});
  EXPECT_FALSE(dp["fits"].get<bool>());
  EXPECT_EQ(dp["binding"], "memory");
  EXPECT_GT(dp["lacks_bytes"].get<double>(), 2.6e12);  // 16 B x 175e9 is 2.8 TB
}

TEST(TransformerCli, BadSplitsAndMisplacedFlagsAreNamed) {
  expect_input_error({"predict", Example("gpt3-175b-a100"), "--tp", "8", "--pp", "8", "--dp", "8"},
                     "tp x pp x dp = 8 x 8 x 8 = 512 is not the 1024 GPUs");
  expect_input_error({"predict", Example("gpt3-175b-a100"), "--recompute", "most"},
                     "unknown recompute 'most'");
  expect_input_error({"predict", Example("gpt3-175b-a100"), "--overlap", "on"},
                     "--overlap: applies to a data-parallel scenario");
  expect_input_error({"predict", Example("seed-7b-bf16"), "--tp", "8"},
                     "--tp: applies to a transformer scenario");
  expect_input_error({"predict", Example("gpt3-175b-a100"), "--pp", "5", "--dp", "25",
                      "--gpus", "1000"},
                     "cannot run: pp x interleave does not divide the layers");
}

TEST(TransformerCli, PlanFindsTensorInsideThePipelineAcrossAndSaysWhyTheOthersLose) {
  const auto j = run_json({"plan", Example("gpt3-175b-a100-plan")});
  const auto& splits = j["splits"];
  ASSERT_EQ(splits.size(), 5u);
  const auto& best = splits[0];
  EXPECT_EQ(best["rank"], 1);
  EXPECT_TRUE(best["fits"].get<bool>());
  // TP inside the node (at most 8 GPUs), PP across nodes (a stage's neighbour is tp x dp >= 8
  // ranks away).
  EXPECT_LE(best["tp"].get<int>(), 8);
  EXPECT_GT(best["tp"].get<int>(), 1);
  EXPECT_GT(best["pp"].get<int>(), 1);
  EXPECT_GE(best["tp"].get<int>() * best["dp"].get<int>(), 8);
  for (std::size_t i = 1; i < splits.size(); ++i) {
    EXPECT_GE(splits[i]["step_s"].get<double>(), splits[i - 1]["step_s"].get<double>());
    EXPECT_TRUE(splits[i].contains("memory_per_gpu_bytes"));
  }
  ASSERT_EQ(j["alternatives"].size(), 2u);
  const std::string dp = j["alternatives"][0];
  const std::string zero = j["alternatives"][1];
  EXPECT_NE(dp.find("pure data parallel"), std::string::npos);
  EXPECT_NE(dp.find("does not fit, needs 2.8 TB per GPU of 80 GB"), std::string::npos) << dp;
  EXPECT_NE(zero.find("pure ZeRO-3"), std::string::npos);
  EXPECT_NE(zero.find("slower than the best"), std::string::npos) << zero;
  EXPECT_NE(zero.find("dp comm"), std::string::npos) << zero;
  EXPECT_EQ(j["runners_up"].size(), 4u);
}

TEST(TransformerCli, PredictWithoutASplitDrawsTheBestSplitCurve) {
  const auto j = run_json({"predict", Example("gpt3-175b-a100-plan"), "--ranks", "256,512,1024"});
  const auto& curve = j["curve"];
  ASSERT_EQ(curve.size(), 3u);
  EXPECT_EQ(curve[0]["gpus"], 256);
  EXPECT_EQ(curve[0]["regime"], "64-1k");
  for (const auto& row : curve) EXPECT_TRUE(row["fits"].get<bool>());
  // The global batch is fixed, so more GPUs shorten the step.
  EXPECT_GT(curve[0]["step_s"].get<double>(), curve[2]["step_s"].get<double>());
  // On 8 GPUs 175B fits no split: the row says so and shows no throughput.
  const auto small = run_json({"predict", Example("gpt3-175b-a100-plan"), "--ranks", "8"});
  EXPECT_FALSE(small["curve"][0]["fits"].get<bool>());
  EXPECT_TRUE(small["curve"][0]["step_s"].is_null());
  EXPECT_TRUE(small["curve"][0]["tflops_per_gpu"].is_null());
  EXPECT_EQ(small["curve"][0]["binding"], "memory");
}

}  // namespace
}  // namespace scalewall::testing

namespace scalewall::testing {
namespace {

bool HasGnuplot() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"}) {
    if (std::filesystem::exists(std::filesystem::path(dir) / "gnuplot")) return true;
  }
  return false;
}

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// report on a transformer scenario: the step time by mechanism and the memory per GPU of the
// best splits (and of pure DP and pure ZeRO-3), with the search's table; the bars are the
// splits plan ranks, in its order.
TEST(TransformerCli, ReportDrawsTheBestSplitsBreakdownAndMemory) {
  if (!HasGnuplot()) GTEST_SKIP() << "gnuplot is not installed (Debian: gnuplot-nox)";
  namespace fs = std::filesystem;
  const fs::path out = fs::temp_directory_path() /
                       ("scalewall-transformer-report-" + std::to_string(::getpid()));
  fs::remove_all(out);
  const auto j = run_json({"report", Example("gpt3-175b-a100-plan"), "-o", out.string()});
  ASSERT_EQ(j["figures"].size(), 2u);
  EXPECT_EQ(j["figures"][0]["svg"], "gpt3-175b-a100-plan-split-breakdown.svg");
  EXPECT_EQ(j["figures"][0]["title"],
            "MODEL: step time by mechanism of the best splits of gpt3-175b-a100-plan");
  EXPECT_EQ(j["figures"][1]["svg"], "gpt3-175b-a100-plan-memory.svg");
  EXPECT_EQ(j["figures"][1]["kind"], "model");
  const auto plan = run_json({"plan", Example("gpt3-175b-a100-plan")});
  const std::string breakdown = ReadText(out / "gpt3-175b-a100-plan-split-breakdown.svg");
  const std::string memory = ReadText(out / "gpt3-175b-a100-plan-memory.svg");
  for (std::size_t i = 0; i < plan["splits"].size(); ++i) {
    const auto& s = plan["splits"][i];
    const std::string label = "#" + std::to_string(i + 1) + " tp " + s["tp"].dump() + " pp " +
                              s["pp"].dump() + " dp " + s["dp"].dump();
    EXPECT_NE(breakdown.find(label), std::string::npos) << label;
    EXPECT_NE(memory.find(label), std::string::npos) << label;
  }
  EXPECT_NE(memory.find("pure data parallel (tp 1 pp 1 dp 1024)"), std::string::npos);
  EXPECT_NE(memory.find("lacks"), std::string::npos);  // pure DP does not fit
  const std::string html = ReadText(out / "index.html");
  EXPECT_NE(html.find("The best splits of 1024 GPUs"), std::string::npos);
  EXPECT_NE(html.find("<img src=\"gpt3-175b-a100-plan-memory.svg\""), std::string::npos);
  fs::remove_all(out);
}

// predict --what-if on a transformer scenario: "change the decomposition" against the
// scenario's split, and against pure DP where nothing is fixed (which does not fit 175B).
TEST(TransformerCli, WhatIfRanksChangingTheDecomposition) {
  const auto j = run_json({"predict", Example("gpt3-175b-a100"), "--what-if"});
  const auto& rows = j["remedies"];
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0]["name"], "baseline: the scenario's split");
  EXPECT_EQ(rows[0]["tp"], 8);
  EXPECT_EQ(rows[1]["name"], "pure data parallel");
  EXPECT_FALSE(rows[1]["fits"].get<bool>());
  EXPECT_TRUE(rows[1]["gain"].is_null());  // it cannot run: no gain to compare
  EXPECT_EQ(rows[2]["name"], "pure ZeRO-3");
  EXPECT_EQ(rows[3]["name"], "change the decomposition");
  EXPECT_TRUE(rows[3]["fits"].get<bool>());
  EXPECT_EQ(j["baseline_step_s"], rows[0]["step_s"]);
  EXPECT_EQ(j["best_step_s"], rows[3]["step_s"]);
  EXPECT_DOUBLE_EQ(rows[3]["gain"].get<double>(),
                   j["baseline_step_s"].get<double>() / j["best_step_s"].get<double>());
  EXPECT_EQ(j["gain"], rows[3]["gain"]);
  EXPECT_EQ(j["step_s"], j["best_step_s"]);  // the best split's own keys follow
  EXPECT_EQ(j["ranks"], 1024);
  const auto open = run_json({"predict", Example("gpt3-175b-a100-plan"), "--what-if"});
  EXPECT_EQ(open["remedies"][0]["name"], "baseline: pure data parallel");
  EXPECT_FALSE(open["remedies"][0]["fits"].get<bool>());
  EXPECT_TRUE(open["gain"].is_null());
  EXPECT_EQ(open["top_remedy"], "change the decomposition");
  EXPECT_EQ(open["remedies"].size(), 3u);  // baseline, pure ZeRO-3, the best split
  // --at sets the GPU count.
  const auto at = run_json({"predict", Example("gpt3-175b-a100-plan"), "--what-if", "--at",
                            "512"});
  EXPECT_EQ(at["ranks"], 512);
}

// A data-parallel scenario has no shape or GPU for the search: the remedy says what to add,
// and the seed's remedies keep their numbers and order.
TEST(TransformerCli, DataParallelWhatIfSaysWhatTheDecompositionNeeds) {
  const auto j = run_json({"predict", source_path("examples/seed-7b-bf16.toml"), "--what-if",
                           "--at", "512"});
  const auto& rows = j["remedies"];
  const auto& last = rows[rows.size() - 1];
  EXPECT_EQ(last["name"], "change the decomposition");
  EXPECT_FALSE(last["applicable"].get<bool>());
  const std::string change = last["change"];
  EXPECT_NE(change.find("a transformer scenario"), std::string::npos) << change;
  // The table's notes say which sections such a scenario has.
  const CliResult table = run_scalewall({"predict", source_path("examples/seed-7b-bf16.toml"),
                                         "--what-if", "--at", "512"});
  EXPECT_NE(table.out.find("[model] hidden, heads, layers, seq, vocab"), std::string::npos)
      << table.out;
  EXPECT_EQ(rows[1]["name"], "accumulation");  // the seed's first remedy, as before
  EXPECT_EQ(j["top_remedy"], "accumulation");
}

TEST(TransformerCli, CommandsThatTakeADataParallelScenarioSaySo) {
  expect_input_error({"diagnose", source_path("examples/runs.csv"), "--scenario",
                      source_path("examples/gpt3-175b-a100.toml")},
                     "is a transformer scenario ([model]); diagnose compares a data-parallel one");
}

}  // namespace
}  // namespace scalewall::testing
