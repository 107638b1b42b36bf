// Tests of scalewall/present/split_plots.h: the figures' data are the evaluated splits' JSON
// values (add_split_fields), bar for bar and key for key.
#include "scalewall/present/split_plots.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "scalewall/analysis/split_search.h"
#include "scalewall/base/error.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/present/split_tables.h"

namespace scalewall {
namespace {

// GPT-3 175B on 1024 A100 80 GB in DGX A100 nodes, as examples/gpt3-175b-a100-plan.toml.
TransformerJob gpt3_job() {
  TransformerJob job;
  job.framework = framework_preset("megatron-lm-2021");
  job.model = {12288, 4 * 12288, 96, 96, 96, 2048, 51200};
  job.training.global_batch = 2048;
  job.gpu = accelerator_preset("a100-80gb");
  job.fabric = load_fabric("dgx-a100");
  return job;
}

SplitSearch gpt3_search() {
  SplitConstraints c;
  c.dp_overlap = false;
  return search_splits(gpt3_job(), 1024, c, 5);
}

// The rows of datablock `name`: the header's column names mapped to each row's numbers (the
// first, quoted column is the bar's label, the last the text over it).
std::vector<std::map<std::string, double>> rows_of(const std::string& data,
                                                   const std::string& name) {
  std::istringstream in(data);
  std::string line;
  std::vector<std::string> keys;
  std::vector<std::map<std::string, double>> rows;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "$" + name + " << EOD") {
      inside = true;
    } else if (inside && line == "EOD") {
      break;
    } else if (inside && line.rfind("# ", 0) == 0) {
      std::istringstream h(line.substr(2));
      for (std::string k; h >> k;) keys.push_back(k);
    } else if (inside) {
      // Skip the quoted label, then read the numbers in the header's order.
      const std::size_t close = line.find('"', 1);
      std::istringstream v(line.substr(close + 1));
      std::map<std::string, double> row;
      double x = 0;
      for (std::size_t k = 1; k < keys.size() && v >> x; ++k) row[keys[k]] = x;
      rows.push_back(row);
    }
  }
  return rows;
}

TEST(SplitPlots, BreakdownDataAreTheSplitsJsonKeys) {
  const SplitSearch search = gpt3_search();
  ASSERT_EQ(search.ranked.size(), 5u);
  const Plot plot = split_breakdown_plot(search.ranked, "gpt3", "dgx-a100");
  EXPECT_EQ(plot.name, "split-breakdown");
  EXPECT_EQ(plot.title, "MODEL: step time by mechanism of the best splits of gpt3");
  const auto rows = rows_of(plot.data, "split_breakdown");
  ASSERT_EQ(rows.size(), 5u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Report r = model_report("plan");
    add_split_fields(r, search.ranked[i]);
    const nlohmann::ordered_json j = to_json(r);
    double sum = 0;
    for (const char* key : {"compute_s", "recompute_s", "tp_comm_s", "pp_bubble_s",
                            "pp_transfer_s", "dp_comm_s", "optimizer_s", "variance_s",
                            "serial_s"}) {
      ASSERT_EQ(rows[i].count(key), 1u) << key;
      EXPECT_EQ(rows[i].at(key), j[key].get<double>()) << "split " << i + 1 << " " << key;
      sum += rows[i].at(key);
    }
    EXPECT_EQ(rows[i].at("step_s"), j["step_s"].get<double>());
    EXPECT_NEAR(sum, rows[i].at("step_s"), 1e-9 * sum);  // the bar's height is the step
  }
  // Each bar is labelled with its rank and degrees; the best is the papers' kind (TP inside
  // the 8-GPU node, PP across nodes).
  const ParallelSplit& b = search.ranked.front().split;
  EXPECT_NE(plot.data.find(fmt::format("\"#1 tp {} pp {} dp {}\"", b.tp, b.pp, b.dp)),
            std::string::npos)
      << plot.data;
  EXPECT_GT(b.tp, 1);
  EXPECT_LE(b.tp, 8);
  EXPECT_GT(b.pp, 1);
  EXPECT_NE(plot.commands.find("title 'pp bubble'"), std::string::npos);
}

TEST(SplitPlots, MemoryDataAreTheSplitsBytesAndTheLimitIsDrawn) {
  const SplitSearch search = gpt3_search();
  const Plot plot = split_memory_plot(search.ranked, "gpt3", "dgx-a100");
  const auto rows = rows_of(plot.data, "memory");
  ASSERT_EQ(rows.size(), search.ranked.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SplitStep& s = search.ranked[i];
    Report r = model_report("plan");
    add_split_fields(r, s);
    const nlohmann::ordered_json j = to_json(r);
    EXPECT_EQ(rows[i].at("memory_per_gpu_bytes"), j["memory_per_gpu_bytes"].get<double>());
    EXPECT_EQ(rows[i].at("memory_limit_bytes"), j["memory_limit_bytes"].get<double>());
    // The a100-80gb preset's HBM less the default reserve of 10%.
    EXPECT_EQ(rows[i].at("memory_limit_bytes"), 0.9 * 80e9);
    EXPECT_EQ(rows[i].at("weights_bytes"), s.memory.weights_bytes);
    EXPECT_EQ(rows[i].at("optimizer_bytes"), s.memory.optimizer_bytes);
    EXPECT_EQ(rows[i].at("activations_bytes"), s.memory.activations_bytes);
    EXPECT_NEAR(rows[i].at("weights_bytes") + rows[i].at("gradients_bytes") +
                    rows[i].at("optimizer_bytes") + rows[i].at("activations_bytes") +
                    rows[i].at("buffers_bytes"),
                rows[i].at("memory_per_gpu_bytes"), 1.0);
    EXPECT_LE(rows[i].at("memory_per_gpu_bytes"), 72e9);  // the best five all fit
  }
  // The capacity line at 72 GB.
  EXPECT_NE(plot.commands.find("first 72 to graph 1, first 72 nohead"), std::string::npos)
      << plot.commands;
}

TEST(SplitPlots, ASplitThatDoesNotFitSaysWhatItLacks) {
  SplitStep s = evaluate_split(gpt3_job(), ParallelSplit{1, 1, 1024, 2, 1, false,
                                                         Recompute::kFull, 0, false, true});
  ASSERT_FALSE(s.fits);  // pure DP: 16 B per parameter of 175B on every GPU
  const std::vector<SplitStep> one = {s};
  const Plot plot = split_memory_plot(one, "gpt3", "dgx-a100");
  EXPECT_NE(plot.data.find(", lacks "), std::string::npos) << plot.data;
  const auto rows = rows_of(plot.data, "memory");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("memory_per_gpu_bytes"), s.memory.total());
  EXPECT_GT(rows[0].at("memory_per_gpu_bytes"), 2.8e12);
}

TEST(SplitPlots, RefuseNoSplitsAndSplitsThatCannotRun) {
  EXPECT_THROW(split_breakdown_plot({}, "x", "y"), InputError);
  SplitStep bad;
  bad.problem = SplitProblem::kLayers;
  const std::vector<SplitStep> one = {bad};
  EXPECT_THROW(split_memory_plot(one, "x", "y"), InputError);
}

}  // namespace
}  // namespace scalewall
