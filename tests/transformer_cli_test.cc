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
  EXPECT_NE(dp.find("does not fit, needs 2.8 TB per GPU of 72 GB"), std::string::npos) << dp;
  EXPECT_NE(zero.find("pure ZeRO-3"), std::string::npos);
  EXPECT_NE(zero.find("slower than the best"), std::string::npos) << zero;
  EXPECT_NE(zero.find("dp comm"), std::string::npos) << zero;
  EXPECT_EQ(j["runners_up"].size(), 4u);
}

TEST(TransformerCli, PredictWithoutASplitDrawsTheBestSplitCurve) {
  const auto j = run_json({"predict", Example("gpt3-175b-a100-plan"), "--ranks", "256,512,1024"});
  const auto& curve = j["rows"];
  ASSERT_EQ(curve.size(), 3u);
  EXPECT_EQ(curve[0]["gpus"], 256);
  EXPECT_FALSE(curve[0].contains("regime"));
  for (const auto& row : curve) EXPECT_TRUE(row["fits"].get<bool>());
  // The global batch is fixed, so more GPUs shorten the step.
  EXPECT_GT(curve[0]["step_s"].get<double>(), curve[2]["step_s"].get<double>());
  // On 8 GPUs 175B fits no split: the row says so and shows no throughput.
  const auto small = run_json({"predict", Example("gpt3-175b-a100-plan"), "--ranks", "8"});
  EXPECT_FALSE(small["rows"][0]["fits"].get<bool>());
  EXPECT_TRUE(small["rows"][0]["step_s"].is_null());
  EXPECT_TRUE(small["rows"][0]["tokens_per_s"].is_null());
  EXPECT_TRUE(small["rows"][0]["efficiency"].is_null());
  EXPECT_EQ(small["rows"][0]["binding"], "memory");
  EXPECT_EQ(small["rows"][0]["problem"].get<std::string>().rfind("does not fit: lacks ", 0), 0u);
  EXPECT_TRUE(small["base_gpus"].is_null());
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
  // The scaling curve and the step at each of its counts come first
  // (TransformerCurveCli.ReportDrawsTheCurve).
  ASSERT_EQ(j["figures"].size(), 4u);
  EXPECT_EQ(j["figures"][2]["svg"], "gpt3-175b-a100-plan-split-breakdown.svg");
  EXPECT_EQ(j["figures"][2]["title"],
            "MODEL: step time by mechanism of the best splits of gpt3-175b-a100-plan");
  EXPECT_EQ(j["figures"][3]["svg"], "gpt3-175b-a100-plan-memory.svg");
  EXPECT_EQ(j["figures"][3]["kind"], "model");
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
  EXPECT_EQ(rows[2]["name"], "pure ZeRO-3 (as deepspeed-zero runs it)");
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

// A transformer scenario with the given [model], [training] and [parallel] bodies on
// dgx-a100 nodes; `system` adds lines to [system] (gpus, a GPU other than a100-80gb).
std::string Scenario(const std::string& name, const std::string& model,
                     const std::string& training, const std::string& parallel,
                     const std::string& system = "") {
  return write_temp_file(name, "name = \"t\"\n[model]\n" + model + "\n[training]\n" + training +
                                   "\n[parallel]\n" + parallel +
                                   "\n[system]\nfabric = \"dgx-a100\"\n" +
                                   (system.find("gpu =") == std::string::npos
                                        ? "gpu = \"a100-80gb\"\n"
                                        : "") +
                                   system + "\n");
}

const char* const kGpt3 = "hidden = 12288\nheads = 96\nlayers = 96\nseq = 2048\nvocab = 51200";

// dp 2^24 x micro-batch 2^40 is 2^64, and pp 2^40 x interleave 2^40 is 2^80: every value is
// within 1..2^40, and neither product may wrap to 0 and be divided by.
TEST(TransformerCli, DegreeProductsPastTheLargestCountNameTheSplit) {
  expect_input_error(
      {"predict", Scenario("dp_mb.toml", kGpt3,
                           "global_batch = 1536\nmicro_batch = 1099511627776",
                           "tp = 1\npp = 1\ndp = 16777216")},
      "dp_mb.toml: the split tp 1, pp 1, dp 16777216, micro-batch 1099511627776, interleave 1, "
      "recompute none, zero 1, sequence parallel off, dp overlap on cannot run: dp x "
      "micro-batch does not divide the global batch (16777216 x 1099511627776 is past 2^63; "
      "global batch 1536)");
  const std::string pp_v = Scenario("pp_v.toml", kGpt3, "global_batch = 1536",
                                    "tp = 1\npp = 1099511627776\ndp = 1\n"
                                    "interleave = 1099511627776");
  for (const char* command : {"predict", "plan"}) {
    expect_input_error({command, pp_v},
                       "pp x interleave does not divide the layers (1099511627776 x "
                       "1099511627776 is past 2^63; 96 layers)");
  }
}

// tp 2^40 x pp 16,777,217 is 2^64 + 2^40: wrapped, it would equal system.gpus = 2^40.
TEST(TransformerCli, TpPpDpAboveTwoToTheFortyIsRefusedNamingTheDegrees) {
  expect_input_error(
      {"predict", Scenario("wrap.toml",
                           "hidden = 1099511627776\nheads = 1099511627776\nlayers = 16777217\n"
                           "seq = 2048\nvocab = 51200",
                           "global_batch = 1536", "tp = 1099511627776\npp = 16777217\ndp = 1",
                           "gpus = 1099511627776")},
      "wrap.toml: parallel.tp x pp x dp = 1099511627776 x 16777217 x 1 = 1.845e+19 GPUs is "
      "more than 2^40");
  // Without system.gpus the product is the GPU count: it is refused the same way, not taken
  // for a missing system.gpus.
  expect_input_error({"plan", Scenario("no_gpus.toml", kGpt3, "global_batch = 1536",
                                       "tp = 4294967296\npp = 4294967296\ndp = 1")},
                     "no_gpus.toml: parallel.tp x pp x dp = 4294967296 x 4294967296 x 1 = "
                     "1.845e+19 GPUs is more than 2^40");
  expect_input_error({"plan", Example("gpt3-175b-a100"), "--tp", "1099511627776"},
                     "--tp: tp x pp x dp = 1099511627776 x 8 x 16 = 140737488355328 GPUs is "
                     "more than 2^40");
}

// 963,761,198,400 GPUs (6,720 divisors) with every dimension divisible by it: millions of
// candidate splits. The search counts them first and refuses before evaluating any.
TEST(TransformerCli, ASplitSearchTooLargeIsRefusedAtOnce) {
  const std::string model =
      "hidden = 963761198400\nheads = 963761198400\nlayers = 963761198400\nseq = 2048\n"
      "vocab = 51200";
  const std::string huge = Scenario("huge.toml", model, "global_batch = 963761198400",
                                    "dp_overlap = false", "gpus = 963761198400");
  // predict without a split searches the curve's 41 GPU counts, 1 to N, in one budget.
  expect_input_error({"predict", huge}, "the 41 GPU counts (1 to 963761198400) leave more than "
                                        "500000 candidate splits to evaluate");
  for (const char* command : {"plan", "report"}) {
    std::vector<std::string> args = {command, huge};
    if (std::string(command) == "report") {
      args.insert(args.end(), {"-o", (std::filesystem::path(::testing::TempDir()) /
                                      "huge-report").string()});
    }
    expect_input_error(args, "963761198400 GPUs leave more than 500000 candidate splits to "
                             "evaluate");
  }
  expect_input_error({"predict", Scenario("list.toml", model, "global_batch = 963761198400",
                                          "dp_overlap = false", "gpus = 8"),
                      "--ranks", "720720,1441440,2162160,2882880,3603600"},
                     "the 5 GPU counts (720720 to 3603600) leave more than 500000 candidate "
                     "splits to evaluate");
  // Fixing the choices narrows it to what one search takes: interleave 1, 2 or 4 with
  // sequence parallelism on or off.
  const auto j = run_json({"plan", huge, "--tp", "8", "--pp", "8", "--micro-batch", "1",
                           "--recompute", "full", "--zero", "1"});
  EXPECT_EQ(j["evaluated"], 6);
}

// The last pipeline stage holds the logits, 4 s b V / t: 33.6 GB for a 256,000-token
// vocabulary, 8,192-token sequences and micro-batch 4. With the stage's 6.5 GB of parameters
// and states it does not fit an A100 40 GB, although the first stage would.
TEST(TransformerCli, TheLastStagesLogitsCountAgainstTheMemory) {
  const std::string path = Scenario(
      "logits.toml",
      "hidden = 2048\nheads = 8\nkv_heads = 1\nlayers = 18\nseq = 8192\nvocab = 256000",
      "global_batch = 64\nmicro_batch = 4",
      "tp = 1\npp = 2\ndp = 4\nrecompute = \"full\"\nzero = 1\nsequence_parallel = false\n"
      "dp_overlap = false",
      "gpu = \"a100-40gb\"\ngpus = 8");
  // 3 x 928,197,120 x 2 B + 12 B / 4 of states, 9 x 2 s b h + 4 s b V of activations, two
  // buckets of Megatron-Core's 40,000,000 parameters (2 B each) and the pipeline's two
  // buffers; the limit is the 40 GB less the default reserve of 10%.
  const double sbh = 8192.0 * 4 * 2048;
  const double expected = 7 * 928197120.0 + 9 * 2 * sbh + 4.0 * 8192 * 4 * 256000 + 160e6 +
                          4 * sbh;
  const auto j = run_json({"predict", path});
  EXPECT_FALSE(j["fits"].get<bool>());
  EXPECT_EQ(j["memory_stage"], "last stage");
  EXPECT_DOUBLE_EQ(j["memory_per_gpu_bytes"].get<double>(), expected);
  EXPECT_NEAR(j["lacks_bytes"].get<double>(), expected - 36e9, 1);
  // plan may also lay the stages out unevenly (Megatron-Core's first/last stage layers): the
  // logits of a 256,000 vocabulary cost more than a layer, and its best moves layers off the
  // last stage, which then holds less than the even layout's.
  const auto p = run_json({"plan", path});
  EXPECT_FALSE(p["fits"].get<bool>());
  EXPECT_EQ(p["memory_stage"], "last stage");
  EXPECT_LT(p["memory_per_gpu_bytes"].get<double>(), expected);
  EXPECT_EQ(p["stage_layers"], "12 first, 6 last");
  EXPECT_NE(p["split"].get<std::string>().find("first stage layers 12, last stage layers 6"),
            std::string::npos);
  const CliResult r = run_scalewall({"predict", path});
  EXPECT_NE(r.out.find("memory per GPU (last stage):"), std::string::npos) << r.out;
}

// --sigma takes what variance.sigma takes, a fraction in [0, 1], on both kinds of scenario.
TEST(TransformerCli, SigmaIsAFractionInZeroToOneAtTheFlag) {
  for (const std::string& scenario : {Example("gpt3-175b-a100"), Example("seed-7b-bf16")}) {
    expect_input_error({"predict", scenario, "--sigma", "1.5"},
                       "--sigma: jitter sigma '1.5' (1.5) is outside [0, 1]");
    expect_input_error({"predict", scenario, "--sigma", "150%"},
                       "--sigma: jitter sigma '150%' (1.5) is outside [0, 1]");
    expect_input_error({"plan", scenario, "--sigma", "1e308", "--ranks", "1024"},
                       "--sigma: jitter sigma '1e308' (1e+308) is outside [0, 1]");
  }
  const auto j = run_json({"predict", Example("gpt3-175b-a100"), "--sigma", "100%"});
  EXPECT_GT(j["variance_s"].get<double>(), 0.0);
}

TEST(TransformerCli, AnFp8RunOnAPartWithoutFp8NamesWhereEachCameFrom) {
  const std::string fp8 = Scenario("fp8.toml", kGpt3, "global_batch = 1536\ndtype = \"fp8\"",
                                   "tp = 8\npp = 8\ndp = 16");
  expect_input_error({"predict", fp8},
                     "fp8.toml: training.dtype = 'fp8' (line 10): system.gpu a100-80gb has no "
                     "fp8 tensor cores (use bf16 or fp16)");
  expect_input_error({"predict", Example("gpt3-175b-a100"), "--dtype", "fp8"},
                     "--dtype: 'fp8' needs fp8 tensor cores, and a100-80gb (system.gpu in ");
  expect_input_error({"plan", Example("gpt3-175b-a100"), "--gpu", "a100-40gb", "--dtype", "fp8"},
                     "--dtype: 'fp8' needs fp8 tensor cores, and a100-40gb (--gpu) has none");
  const std::string h100 = Scenario("fp8-h100.toml", kGpt3,
                                    "global_batch = 1536\ndtype = \"fp8\"",
                                    "tp = 8\npp = 8\ndp = 16", "gpu = \"h100-sxm\"");
  expect_input_error({"predict", h100, "--gpu", "a100-80gb"},
                     "--gpu: a100-80gb has no fp8 tensor cores, which training.dtype in ");
  EXPECT_EQ(run_scalewall({"predict", h100}).exit_code, 0);
}

// plan says why no split can run: the fixed split's own reason with its numbers, the GPUs
// that fill no whole node, or how many splits fail for each reason.
TEST(TransformerCli, PlanSaysWhyNoSplitCanRun) {
  expect_input_error({"plan", Example("gpt3-175b-a100"), "--micro-batch", "5"},
                     "no split of 1024 GPUs can run this model: its one split, tp 8 pp 8 dp 16, "
                     "cannot run: dp x micro-batch does not divide the global batch (16 x 5 = "
                     "80; global batch 1536)");
  expect_input_error({"plan", Example("gpt3-175b-a100"), "--interleave", "5"},
                     "pp x interleave does not divide the layers (8 x 5 = 40; 96 layers)");
  expect_input_error({"plan", Example("gpt3-175b-a100-plan"), "--gpus", "12"},
                     "no split of 12 GPUs can run this model: the 12 GPUs do not fill whole "
                     "nodes of 8");
  // 8,648,640 = 2^6 3^3 5 7 11 13: 22,680 ways to make tp x pp x dp, none with pp dividing
  // 96 layers, tp the 96 heads and dp the batch of 2048 at once.
  expect_input_error({"plan", Example("gpt3-175b-a100-plan"), "--gpus", "8648640"},
                     "no split of 8648640 GPUs can run this model: of the 22680 ways to make "
                     "them tp x pp x dp (at micro-batch 1, interleave 1), 19656 fail because pp "
                     "x interleave does not divide the 96 layers, 2920 fail because tp does not "
                     "divide the 96 heads or is neither a divisor nor a multiple of the 96 KV "
                     "heads, 104 fail because dp x micro-batch does not divide the global batch "
                     "2048");
}

TEST(TransformerCli, CommandsThatTakeADataParallelScenarioSaySo) {
  expect_input_error({"diagnose", source_path("examples/runs.csv"), "--scenario",
                      source_path("examples/gpt3-175b-a100.toml")},
                     "is a transformer scenario ([model]); diagnose compares a data-parallel one");
}

}  // namespace
}  // namespace scalewall::testing

namespace scalewall::testing {
namespace {

// BLOOM-176B (examples/bloom-176b.toml): 70 layers on 12 stages, laid out by DeepSpeed's
// type:transformer|embedding partition as BigScience's README shows it ([embed | 5], 10 x [6],
// [5 | embed]). BigScience reports about 150 TFLOP/s per GPU (with the recomputation counted)
// and about 60 GB used per GPU. The model, untuned, predicts 164 TFLOP/s (9% above) and 29.9
// GB: its memory leaves out the allocator's cache and fragmentation, NCCL's buffers and the
// CUDA context (the reserve), and BF16_Optimizer's fp32 gradient copies.
TEST(TransformerCli, Bloom176bRunsOnDeepSpeedsUnevenStages) {
  const auto j = run_json({"predict", Example("bloom-176b")});
  EXPECT_TRUE(j["fits"].get<bool>());
  EXPECT_EQ(j["stage_layers"], "5 first, 10 x 6 middle, 5 last");
  EXPECT_EQ(j["memory_stage"], "first stage");
  EXPECT_NEAR(j["tflops_per_gpu"].get<double>(), 164.1, 0.5);
  EXPECT_NEAR(j["tflops_per_gpu"].get<double>() / 150.0, 1.0, 0.15);
  const CliResult r = run_scalewall({"predict", Example("bloom-176b")});
  EXPECT_NE(r.out.find("layers per stage:"), std::string::npos) << r.out;
  // DeepSpeed's pipeline engine has no interleaved schedule.
  expect_input_error({"predict", Example("bloom-176b"), "--interleave", "2"},
                     "cannot run: DeepSpeed's pipeline engine runs one model chunk per stage "
                     "(interleave 2)");
}

// parallel.first_stage_layers and last_stage_layers: Megatron-Core's uneven stages (80
// layers, first 9, last 7 on pp 10: 8 on each middle stage); refused naming the framework
// elsewhere, and a split they do not lay out names its numbers.
TEST(TransformerCli, FirstAndLastStageLayersAreMegatronCores) {
  const std::string model = "hidden = 8192\nheads = 64\nlayers = 80\nseq = 4096\nvocab = 128256";
  const std::string core = Scenario("uneven.toml", model, "global_batch = 128",
                                    "tp = 8\npp = 10\ndp = 1\nfirst_stage_layers = 9\n"
                                    "last_stage_layers = 7",
                                    "gpus = 80");
  const auto j = run_json({"predict", core});
  EXPECT_EQ(j["stage_layers"], "9 first, 8 x 8 middle, 7 last");
  // The inputs echo the layout as written and the framework's defaults as the scenario left
  // them: open choices are null.
  const auto& in = j["inputs"]["model"];
  EXPECT_EQ(in["parallel"]["first_stage_layers"], 9);
  EXPECT_EQ(in["parallel"]["last_stage_layers"], 7);
  EXPECT_TRUE(in["parallel"]["embedding_in_split"].is_null());
  EXPECT_TRUE(in["parallel"]["tp_overlap"].is_null());
  EXPECT_EQ(in["system"]["framework"], "megatron-core");
  EXPECT_EQ(in["system"]["memory_reserve"], 0.1);
  EXPECT_EQ(in["system"]["gpus_per_node"], 8);
  // First 9 only: under megatron-lm-2021, and under megatron-core.
  const auto first_nine = [&](const std::string& name, const std::string& system) {
    return Scenario(name, model, "global_batch = 128",
                    "tp = 8\npp = 10\ndp = 1\nfirst_stage_layers = 9", "gpus = 80" + system);
  };
  expect_input_error({"predict", first_nine("uneven_2021.toml",
                                            "\nframework = \"megatron-lm-2021\"")},
                     "parallel.first_stage_layers = 9 (line 14): system.framework "
                     "megatron-lm-2021 lays the layers out evenly only");
  expect_input_error({"predict", first_nine("uneven_odd.toml", "")},
                     "cannot run: the 71 layers left after the first and last stages' do not "
                     "divide evenly over the 9 other stages");
}

// parallel.embedding_in_split and loss_in_split: Megatron-Core's
// --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split (126
// layers + 2 on pp 16 x interleave 4: 8 counted a stage, 7 on each end); refused naming the
// framework elsewhere; without them the refusal names them.
TEST(TransformerCli, EmbeddingAndLossInSplitAreMegatronCores) {
  const std::string model = "hidden = 4096\nheads = 32\nlayers = 126\nseq = 4096\nvocab = 128256";
  const auto scenario = [&](const std::string& name, const std::string& keys,
                            const std::string& system) {
    return Scenario(name, model, "global_batch = 128",
                    "tp = 8\npp = 16\ndp = 1\ninterleave = 4" + keys, "gpus = 128" + system);
  };
  const std::string both = "\nembedding_in_split = true\nloss_in_split = true";
  const auto j = run_json({"predict", scenario("counted.toml", both, "")});
  EXPECT_EQ(j["stage_layers"], "7 first, 14 x 8 middle, 7 last");
  expect_input_error({"predict", scenario("counted_2021.toml", both,
                                          "\nframework = \"megatron-lm-2021\"")},
                     "system.framework megatron-lm-2021 lays the layers out evenly only");
  expect_input_error({"predict", scenario("counted_none.toml", "", "")},
                     "pp x interleave divides the layers + 2: parallel.embedding_in_split and "
                     "parallel.loss_in_split");
  expect_input_error({"predict", scenario("counted_one.toml", "\nloss_in_split = true", "")},
                     "pp x interleave does not divide the layers with the loss counted (16 x 4 "
                     "= 64; 126 + 1 = 127 layers)");
}

// A 128K-token Llama 3.1 70B on 256 H100s (examples/llama3.1-70b-128k-cp.toml):
// plan splits the sequence and says why its cp beats the others, the best split at each cp
// beside its own.
TEST(TransformerCli, PlanSplitsALongSequenceAndSaysWhyItsCp) {
  const std::string example = source_path("examples/llama3.1-70b-128k-cp.toml");
  const auto j = run_json({"plan", example});
  const std::int64_t cp = j["cp"].get<std::int64_t>();
  EXPECT_GT(cp, 1);
  EXPECT_EQ(j["cp_comm"], "p2p");
  EXPECT_TRUE(j.contains("cp_comm_s"));
  ASSERT_EQ(j["cp_choices"].size(), 6u);  // cp 1, 2, 4, 8, 16, 32
  const std::string at_one = j["cp_choices"][0].get<std::string>();
  EXPECT_EQ(at_one.rfind("best at cp 1 (tp ", 0), 0u) << at_one;
  EXPECT_NE(at_one.find("slower than the best (+"), std::string::npos) << at_one;
  EXPECT_NE(at_one.find(" recompute"), std::string::npos) << at_one;  // what costs it more
  bool own = false;
  for (const auto& line : j["cp_choices"]) {
    const std::string head = "cp " + std::to_string(cp) + ", the best split's";
    own = own || line.get<std::string>().rfind(head, 0) == 0;
  }
  EXPECT_TRUE(own);
  const CliResult r = run_scalewall({"plan", example});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# cp: best at cp 1 ("), std::string::npos);
  EXPECT_NE(r.out.find("\ncp comm "), std::string::npos);  // the breakdown's row
}

TEST(TransformerCli, ContextParallelFlagsAreCheckedAsTheKeysAre) {
  const std::string example = source_path("examples/llama3.1-70b-128k-cp.toml");
  const auto j = run_json({"predict", example, "--tp", "8", "--cp", "16", "--pp", "1", "--dp",
                           "2"});
  EXPECT_EQ(j["cp"], 16);
  EXPECT_EQ(j["inputs"]["model"]["parallel"]["cp"], 16);
  EXPECT_NE(j["split"].get<std::string>().find("tp 8, cp 16 (p2p), pp 1, dp 2"),
            std::string::npos);
  expect_input_error({"predict", example, "--tp", "8", "--cp", "3", "--pp", "1", "--dp", "1",
                      "--gpus", "24"},
                     "2 x cp does not divide the sequence (Megatron's causal load balancing "
                     "splits it into 2 cp chunks) (2 x 3 = 6; seq 131072)");
  expect_input_error({"predict", example, "--tp", "8", "--cp", "16", "--pp", "1", "--dp", "2",
                      "--cp-comm", "a2a"},
                     "the all-to-all's cp ranks do not divide the heads or the KV heads of a TP "
                     "rank (cp_comm a2a, 16 all-to-all ranks; 8 heads and 1 KV heads per TP rank "
                     "(tp 8))");
  expect_input_error({"predict", example, "--tp", "8", "--cp", "16", "--pp", "1", "--dp", "1"},
                     "tp x cp x pp x dp = 8 x 16 x 1 x 1 = 128 is not the 256 GPUs");
  expect_input_error({"predict", Example("llama3.1-8b-torch-fsdp2"), "--cp", "2"},
                     "--cp: system.framework torch-fsdp2 runs context parallelism as PyTorch's "
                     "context_parallel does");
  expect_input_error({"predict", example, "--cp-comm", "ring"},
                     "--cp-comm: unknown cp_comm 'ring' (expected p2p, a2a or a2a+p2p)");
}

// Mixtral 8x7B on 64 H100s (examples/mixtral-8x7b.toml, EP 8 as NeMo's recipe runs it):
// --ep and --etp set the experts' grid as the keys do, are refused as the keys are, and plan,
// with ep open, says at each ep what the best split there gives.
TEST(TransformerCli, MixtralWithExpertParallelismOn64H100s) {
  const std::string example = Example("mixtral-8x7b");
  const CliResult r = run_scalewall({"predict", example});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nep comm "), std::string::npos);  // the breakdown's row
  EXPECT_NE(r.out.find("tp 1, pp 4, dp 16, ep 8 (etp 1), micro-batch 1, interleave 8"),
            std::string::npos);
  const auto j = run_json({"predict", example, "--ep", "4"});
  EXPECT_EQ(j["ep"], 4);
  EXPECT_EQ(j["inputs"]["model"]["parallel"]["ep"], 4);
  double sum = 0;
  for (const auto& row : j["breakdown"]) {
    if (row["mechanism"] != "step") sum += row["time_s"].get<double>();
  }
  EXPECT_NEAR(sum, j["step_s"].get<double>(), 1e-9 * sum);
  expect_input_error({"predict", example, "--ep", "3"},
                     "--ep: 3 does not divide model.experts 8 in " + example);
  expect_input_error({"predict", example, "--tp", "2", "--pp", "8", "--dp", "4", "--interleave",
                      "1"},
                     "ep does not divide the experts, or etp x ep does not divide tp x cp x dp "
                     "(ep 8, etp 2; 8 experts, tp x cp x dp = 2 x 1 x 4 = 8)");
  expect_input_error({"predict", Example("gpt3-175b-a100"), "--ep", "2"},
                     "--ep: needs a mixture of experts (model.experts is 0 in " +
                         Example("gpt3-175b-a100") + ")");
  expect_input_error({"predict", example, "--tp", "2", "--dp", "8", "--etp", "1", "--zero", "3"},
                     "parallel.zero 3 with parallel.ep 8 and etp 1: ZeRO-3 (Megatron-FSDP) of "
                     "expert-parallel experts is not priced (zero 0 to 2)");
  // plan with the experts' grid open (the example's split without its ep, on the helper's
  // DGX A100 nodes): ep 1, 2, 4, 8 each have a best split.
  const std::string open_ep = Scenario(
      "mixtral_open.toml", "preset = \"mixtral-8x7b\"\nseq = 4096\ncapacity_factor = 1.0",
      "global_batch = 256\nmicro_batch = 1",
      "tp = 1\npp = 4\ndp = 16\ninterleave = 8\nrecompute = \"none\"\nzero = 1",
      "gpu = \"h100-sxm\"\ngpus = 64");
  const auto open = run_json({"plan", open_ep});
  ASSERT_TRUE(open.contains("ep_choices"));
  EXPECT_EQ(open["ep_choices"].size(), 4u);  // ep 1, 2, 4, 8
}

}  // namespace
}  // namespace scalewall::testing
