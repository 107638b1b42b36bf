// End-to-end tests of `scalewall predict --gpus` on a transformer scenario: the scaling curve of
// Llama 3.1 70B on H100s (examples/llama3.1-70b-h100.toml, tp 4 x pp 8) over 64 to 2048 GPUs,
// strong and weak; its JSON against its table; the figure; and --what-if's baseline against
// the split predict evaluates.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

std::string Llama() { return source_path("examples/llama3.1-70b-h100.toml"); }

const std::vector<std::string> kCurve = {"predict", Llama(), "--gpus", "64..2048"};

std::vector<std::string> With(std::vector<std::string> args,
                              const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// The Llama scenario with `line` added to [training].
std::string LlamaWith(const std::string& name, const std::string& line) {
  std::ifstream in(Llama());
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string training = "[training]\n";
  text.insert(text.find(training) + training.size(), line + "\n");
  return write_temp_file(name, text);
}

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

TEST(TransformerCurveCli, OneRowPerGpuCountWithTheScenariosSplitScaledInDataParallelism) {
  const auto j = run_json(kCurve);
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 6u);
  std::int64_t n = 64;
  for (const auto& row : rows) {
    EXPECT_EQ(row["gpus"], n);
    EXPECT_EQ(row["tp"], 4);
    EXPECT_EQ(row["pp"], 8);
    EXPECT_EQ(row["dp"], n / 32);
    EXPECT_EQ(row["global_batch"], 512);  // strong: the batch is the scenario's
    EXPECT_TRUE(row["fits"].is_boolean());
    EXPECT_FALSE(row["binding"].get<std::string>().empty());
    n *= 2;
  }
  EXPECT_EQ(j["scaling"], "strong");
  EXPECT_EQ(j["inputs"]["gpus"].size(), 6u);
  // At 64 GPUs (dp 2) ZeRO-1 shards the optimizer state over two ranks only: the first stage
  // does not fit, so the row shows no time and the base is 128.
  EXPECT_FALSE(rows[0]["fits"].get<bool>());
  EXPECT_EQ(rows[0]["binding"], "memory");
  EXPECT_TRUE(rows[0]["step_s"].is_null());
  EXPECT_EQ(j["base_gpus"], 128);
}

TEST(TransformerCurveCli, StrongSpeedupAndEfficiencyFollowFromTheStepTimes) {
  const auto j = run_json(kCurve);
  const auto& rows = j["rows"];
  const auto& base = rows[1];
  ASSERT_EQ(base["gpus"], 128);
  EXPECT_EQ(base["speedup"].get<double>(), 1.0);
  EXPECT_EQ(base["efficiency"].get<double>(), 1.0);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    ASSERT_TRUE(row["fits"].get<bool>()) << row.dump();
    const double step = row["step_s"].get<double>();
    const double n = row["gpus"].get<double>();
    EXPECT_DOUBLE_EQ(row["speedup"].get<double>(), base["step_s"].get<double>() / step);
    EXPECT_DOUBLE_EQ(row["efficiency"].get<double>(), row["speedup"].get<double>() * 128 / n);
    EXPECT_LE(row["efficiency"].get<double>(), 1.0);
    // tokens/s = B s / step with B = 512 sequences of 8192 tokens.
    EXPECT_NEAR(row["tokens_per_s"].get<double>(), 512.0 * 8192 / step, 1e-9 * 512 * 8192 / step);
    if (i > 1) {
      EXPECT_LT(step, rows[i - 1]["step_s"].get<double>());
    }
    // The lost time is what the binding weighs: the pipeline bubble stays (p - 1) of the
    // slowest stage's micro-batch time whatever dp is, so it binds once the rest shrinks.
    double lost = 0;
    for (const char* key : {"lost_bubble_s", "lost_latency_s", "lost_bandwidth_s",
                            "lost_variance_s", "lost_serial_s"}) {
      lost += row[key].get<double>();
    }
    EXPECT_LT(lost, step);
    EXPECT_DOUBLE_EQ(row["lost_bubble_s"].get<double>(), base["lost_bubble_s"].get<double>());
  }
  EXPECT_EQ(rows[5]["binding"], "pipeline bubble");
  EXPECT_EQ(j["binding_at_max"], rows[5]["binding"]);
  // The 128-GPU row is the scenario's own split, which predict alone evaluates.
  const auto one = run_json({"predict", Llama()});
  EXPECT_EQ(one["step_s"].get<double>(), base["step_s"].get<double>());
}

// The knee is where exposed communication reaches the compute: not up to 2048 GPUs here, and
// the output says so in the fields, the JSON and the figure's subtitle.
TEST(TransformerCurveCli, TheKneeIsMarkedOrStatedAbsent) {
  const auto j = run_json(kCurve);
  EXPECT_TRUE(j["knee_gpus"].is_null());
  EXPECT_TRUE(j["cliff_rows"].empty());  // every count is 32 x 2^k: no count between
  const CliResult r = run_scalewall(kCurve);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("knee (exposed comm = compute):         not reached up to 2048 GPUs"),
            std::string::npos)
      << r.out;
  // A fabric 25 times slower between nodes brings the data-parallel traffic up to the
  // compute by 1024 GPUs: the row is marked, and the split alone there says why.
  const std::vector<std::string> slow = With(kCurve, {"--bandwidth", "2GB/s"});
  const auto j_slow = run_json(slow);
  ASSERT_EQ(j_slow["knee_gpus"], 1024) << j_slow.dump();
  const CliResult marked = run_scalewall(slow);
  EXPECT_NE(marked.out.find("<-- knee at 1024 GPUs"), std::string::npos) << marked.out;
  const auto exposed_over_compute = [&](const std::string& gpus) {
    const auto one = run_json({"predict", Llama(), "--gpus", gpus, "--bandwidth", "2GB/s"});
    return (one["tp_comm_s"].get<double>() + one["pp_transfer_s"].get<double>() +
            one["dp_comm_s"].get<double>()) /
           (one["compute_s"].get<double>() + one["recompute_s"].get<double>());
  };
  EXPECT_GE(exposed_over_compute("1024"), 1.0);
  EXPECT_LT(exposed_over_compute("512"), 1.0);
}

TEST(TransformerCurveCli, TheHeaderNamesTheRangeAndTheScaling) {
  const CliResult r = run_scalewall(kCurve);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string header = r.out.substr(0, r.out.find("\n\n"));
  EXPECT_NE(header.find("STRONG scaling over 64 to 2048 GPUs (6 counts): the global batch is "
                        "fixed at 512 sequences"),
            std::string::npos)
      << header;
  EXPECT_EQ(header.find("128 x"), std::string::npos) << header;
  // The terminal table has one line per count, each starting with it.
  for (const char* line : {"\n  64 ", "\n 128 ", "\n 256 ", "\n 512 ", "\n1024 ", "\n2048 "}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line;
  }
}

// JSON's rows are the table's: every cell of the CSV table (the same table, full precision)
// equals the JSON row's value, nulls as empty cells.
TEST(TransformerCurveCli, JsonRowsEqualTheTableRows) {
  const auto j = run_json(kCurve);
  const CliResult csv = run_scalewall(With(kCurve, {"--format", "csv"}));
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::stringstream in(csv.out);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = SplitCsv(line);
  std::size_t i = 0;
  while (std::getline(in, line) && !line.empty() && line[0] != '#') {
    const std::vector<std::string> cells = SplitCsv(line);
    ASSERT_EQ(cells.size(), header.size()) << line;
    ASSERT_LT(i, j["rows"].size());
    const auto& row = j["rows"][i++];
    ASSERT_EQ(row.size(), header.size());
    for (std::size_t k = 0; k < header.size(); ++k) {
      const auto& v = row[header[k]];
      if (v.is_null()) {
        EXPECT_EQ(cells[k], "") << header[k];
      } else if (v.is_number()) {
        EXPECT_EQ(std::strtod(cells[k].c_str(), nullptr), v.get<double>()) << header[k];
      } else if (v.is_boolean()) {
        EXPECT_EQ(cells[k], v.get<bool>() ? "true" : "false") << header[k];
      } else {
        EXPECT_EQ(cells[k], v.get<std::string>()) << header[k];
      }
    }
  }
  EXPECT_EQ(i, 6u);
}

// training.scaling = "weak" (or --scaling weak) holds the batch per data-parallel rank: the
// global batch grows with dp, 512 / 4 = 128 sequences a rank.
TEST(TransformerCurveCli, WeakScalingGrowsTheGlobalBatchWithDataParallelism) {
  const std::string weak = LlamaWith("llama-weak.toml", "scaling = \"weak\"");
  const auto j = run_json({"predict", weak, "--gpus", "64..2048"});
  EXPECT_EQ(j["scaling"], "weak");
  EXPECT_EQ(j["inputs"]["model"]["training"]["scaling"], "weak");
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 6u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i]["global_batch"].get<std::int64_t>(), 128 * rows[i]["dp"].get<std::int64_t>());
    if (i > 0) {
      EXPECT_GT(rows[i]["global_batch"].get<std::int64_t>(),
                rows[i - 1]["global_batch"].get<std::int64_t>());
    }
  }
  const auto& base = rows[1];
  ASSERT_EQ(j["base_gpus"], 128);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    // Each rank does the same work: the step stays near the base's, and the speedup is the
    // throughput's.
    EXPECT_NEAR(row["step_s"].get<double>() / base["step_s"].get<double>(), 1.0, 0.01);
    EXPECT_DOUBLE_EQ(row["speedup"].get<double>(),
                     row["tokens_per_s"].get<double>() / base["tokens_per_s"].get<double>());
    EXPECT_DOUBLE_EQ(row["efficiency"].get<double>(),
                     row["speedup"].get<double>() * 128 / row["gpus"].get<double>());
  }
  const auto flag = run_json({"predict", Llama(), "--gpus", "64..2048", "--scaling", "weak"});
  EXPECT_EQ(flag["rows"], rows);
  const CliResult r = run_scalewall({"predict", weak, "--gpus", "64..2048"});
  EXPECT_NE(r.out.find("WEAK scaling over 64 to 2048 GPUs"), std::string::npos) << r.out;
  expect_input_error({"predict", LlamaWith("llama-medium.toml", "scaling = \"medium\"")},
                     "training.scaling = 'medium' (line 17): expected \"strong\" (global batch "
                     "fixed) or \"weak\" (batch per data-parallel rank fixed)");
}

// A count where no split runs is a row that says why; no count that runs at all is an error.
TEST(TransformerCurveCli, CountsWhereNoSplitRunsSayWhy) {
  const auto j = run_json({"predict", Llama(), "--gpus", "80,128,160"});
  const auto& rows = j["rows"];
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["problem"], "no split runs: tp x pp = 4 x 8 = 32 does not divide 80 GPUs");
  EXPECT_TRUE(rows[0]["tp"].is_null());
  EXPECT_TRUE(rows[1]["fits"].get<bool>());
  EXPECT_EQ(rows[1]["efficiency"], 1.0);
  // 160 GPUs: dp 5 does not divide the 512 sequences.
  EXPECT_NE(rows[2]["problem"].get<std::string>().find("dp x micro-batch does not divide the "
                                                       "global batch"),
            std::string::npos);
  expect_input_error({"predict", Llama(), "--gpus", "80,160"},
                     "--gpus: no split runs at any of the 2 GPU counts (80 to 160); at 80 GPUs: "
                     "tp x pp = 4 x 8 = 32 does not divide 80 GPUs");
  expect_input_error({"predict", source_path("examples/seed-7b-bf16.toml"), "--gpus", "8..64"},
                     "--gpus: applies to a transformer scenario");
  expect_input_error({"predict", Llama(), "--gpus", "256,128"},
                     "--gpus: GPU counts must ascend: 128 follows 256");
  // A curve where no count fits has nothing to draw.
  expect_input_error({"predict", Llama(), "--gpus", "64", "--plot", "none.svg"},
                     "--plot: scaling plot: no GPU count of the curve fits");
}

// One count is the scenario at that count: its split scaled in data parallelism, as the
// curve's row, with its breakdown.
TEST(TransformerCurveCli, OneCountIsTheScenarioAtThatCount) {
  const auto one = run_json({"predict", Llama(), "--gpus", "512"});
  EXPECT_EQ(one["dp"], 16);
  EXPECT_EQ(one["breakdown"].size(), 10u);
  const auto curve = run_json(kCurve);
  EXPECT_EQ(one["step_s"].get<double>(), curve["rows"][3]["step_s"].get<double>());
  expect_input_error({"predict", Llama(), "--gpus", "100"},
                     "--gpus: 100 GPUs is not a whole multiple of tp x pp = 4 x 8 = 32");
  // With --dp given the product must still be the count.
  expect_input_error({"predict", Llama(), "--gpus", "512", "--dp", "4"},
                     "tp x pp x dp = 4 x 8 x 4 = 128 is not the 512 GPUs");
}

// What the binding says is never contradicted by a seed-table regime beside it.
TEST(TransformerCurveCli, NoScaleRegimeContradictsTheBinding) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"predict", Llama()}, kCurve,
        std::vector<std::string>{"plan", Llama()}}) {
    const CliResult r = run_scalewall(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("regime"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("binds first"), std::string::npos) << r.out;
  }
  EXPECT_FALSE(run_json({"predict", Llama()}).contains("regime"));
  const CliResult r = run_scalewall(kCurve);
  EXPECT_NE(r.out.find("binding at 2048 GPUs:                  pipeline bubble"),
            std::string::npos)
      << r.out;
}

// --what-if's baseline is the split predict evaluates: the same choices and the same step to
// the bit, at the scenario's count and at another.
TEST(TransformerCurveCli, WhatIfsBaselineIsTheSplitPredictEvaluates) {
  const auto predicted = run_json({"predict", Llama()});
  const auto what_if = run_json({"predict", Llama(), "--what-if"});
  EXPECT_EQ(what_if["baseline_step_s"].get<double>(), predicted["step_s"].get<double>());
  const auto& baseline = what_if["remedies"][0];
  EXPECT_EQ(baseline["name"], "baseline: the scenario's split");
  EXPECT_EQ(baseline["change"], predicted["split"]);
  const auto at = run_json({"predict", Llama(), "--what-if", "--at", "512"});
  const auto curve = run_json(kCurve);
  EXPECT_EQ(at["baseline_step_s"].get<double>(), curve["rows"][3]["step_s"].get<double>());
  EXPECT_EQ(at["remedies"][0]["dp"], 16);
  const std::string gpt3 = source_path("examples/gpt3-175b-a100.toml");
  EXPECT_EQ(run_json({"predict", gpt3, "--what-if"})["baseline_step_s"].get<double>(),
            run_json({"predict", gpt3})["step_s"].get<double>());
}

bool HasGnuplot() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"}) {
    if (std::filesystem::exists(std::filesystem::path(dir) / "gnuplot")) return true;
  }
  return false;
}

TEST(TransformerCurveCli, PlotDrawsTheCurve) {
  // Refused before anything is drawn, gnuplot or not.
  expect_input_error(With(kCurve, {"--plot", "curve.txt"}), "--plot");
  if (!HasGnuplot()) GTEST_SKIP() << "gnuplot is not installed (Debian: gnuplot-nox)";
  namespace fs = std::filesystem;
  const fs::path svg = fs::path(::testing::TempDir()) / "llama-curve.svg";
  fs::remove(svg);
  const CliResult r = run_scalewall(With(kCurve, {"--plot", svg.string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(svg);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_EQ(text.rfind("<?xml", 0), 0u);
  EXPECT_NE(text.find("MODEL: STRONG scaling of llama3.1-70b-h100"), std::string::npos);
  EXPECT_NE(text.find("no knee up to 2048 GPUs"), std::string::npos);
  EXPECT_NE(text.find("against N0 = 128 GPUs"), std::string::npos);
}

// report on a transformer scenario draws its curve up to --max-ranks (1024 by default) from tp
// x pp = 32 GPUs, and the step by mechanism at each count that fits, before the splits.
TEST(TransformerCurveCli, ReportDrawsTheCurve) {
  if (!HasGnuplot()) GTEST_SKIP() << "gnuplot is not installed (Debian: gnuplot-nox)";
  namespace fs = std::filesystem;
  const fs::path out = fs::path(::testing::TempDir()) / "llama-report";
  fs::remove_all(out);
  const auto j = run_json({"report", Llama(), "-o", out.string()});
  ASSERT_EQ(j["figures"].size(), 4u);
  EXPECT_EQ(j["figures"][0]["svg"], "llama3-1-70b-h100-scaling.svg");
  EXPECT_EQ(j["figures"][0]["title"], "MODEL: STRONG scaling of llama3.1-70b-h100");
  EXPECT_EQ(j["figures"][1]["svg"], "llama3-1-70b-h100-curve-breakdown.svg");
  std::ifstream in(out / "llama3-1-70b-h100-curve-breakdown.svg");
  const std::string bars{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  for (const char* label : {"128 GPUs (tp 4 pp 8 dp 4)", "1024 GPUs (tp 4 pp 8 dp 32)"}) {
    EXPECT_NE(bars.find(label), std::string::npos) << label;
  }
  EXPECT_EQ(bars.find("64 GPUs (tp 4 pp 8 dp 2)"), std::string::npos);  // does not fit
  std::ifstream page(out / "index.html");
  const std::string html{std::istreambuf_iterator<char>(page), std::istreambuf_iterator<char>()};
  EXPECT_NE(html.find("STRONG scaling over 32 to 1024 GPUs (6 counts)"), std::string::npos);
  fs::remove_all(out);
}

}  // namespace
}  // namespace scalewall::testing
