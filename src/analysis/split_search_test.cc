// The split model and its search against Megatron-LM's published weak-scaling table
// (Narayanan et al. 2021, Table 1; tests/data/megatron/SOURCES.md): every row's TFLOP/s per GPU
// reproduced from the model's dimensions, the a100-80gb preset and the dgx-a100 fabric preset,
// with one set of constants for every row. The search holds each row's TP and PP (the paper's)
// and chooses what the table does not give (micro-batch, interleave), as the paper's authors
// did; recomputation is full and ZeRO and sequence parallelism are off, as in the paper.
#include "scalewall/analysis/split_search.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "scalewall/base/stats.h"
#include "scalewall/io/fabric_presets.h"
#include "test_support.h"

namespace scalewall {
namespace {

// Issue 14's bound: within 10% of the published TFLOP/s per GPU on every row.
constexpr double kRowBound = 0.10;

struct TableRow {
  double params_b = 0;
  std::int64_t heads = 0, hidden = 0, layers = 0, tp = 0, pp = 0, gpus = 0, batch = 0;
  double tflops = 0;
};

std::vector<TableRow> read_table() {
  std::ifstream in(std::string(SCALEWALL_SOURCE_DIR) +
                   "/tests/data/megatron/narayanan2021_table1.csv");
  std::vector<TableRow> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream f(line);
    TableRow r;
    f >> r.params_b >> r.heads >> r.hidden >> r.layers >> r.tp >> r.pp >> r.gpus >> r.batch >>
        r.tflops;
    rows.push_back(r);
  }
  return rows;
}

TransformerJob megatron_job(const TableRow& r) {
  TransformerJob job;
  job.model = {r.hidden, 4 * r.hidden, r.heads, r.heads, r.layers, 2048, 51200};
  job.training = {r.batch, 1, DType::kFp16};
  job.gpu = accelerator_preset("a100-80gb");
  job.fabric = load_fabric("dgx-a100");
  return job;
}

SplitConstraints megatron_constraints(const TableRow& r) {
  SplitConstraints c;
  c.tp = r.tp;
  c.pp = r.pp;
  c.recompute = Recompute::kFull;
  c.zero = 0;
  c.sequence_parallel = false;
  c.dp_overlap = false;  // Megatron-LM 2021 reduced the gradients after the backward pass
  return c;
}

TEST(MegatronTable, EveryRowWithinTenPercent) {
  const std::vector<TableRow> rows = read_table();
  ASSERT_EQ(rows.size(), 10u);
  std::vector<double> errors;
  for (const TableRow& r : rows) {
    const TransformerJob job = megatron_job(r);
    // The table rounds to two or three significant digits (1.65 billion is its "1.7").
    EXPECT_NEAR(model_parameters(job.model) / 1e9, r.params_b, 0.03 * r.params_b);
    const SplitSearch s = search_splits(job, r.gpus, megatron_constraints(r), 1);
    ASSERT_FALSE(s.ranked.empty());
    const SplitStep& best = s.ranked.front();
    EXPECT_TRUE(best.fits) << r.params_b;
    const double error = best.tflops_per_gpu / r.tflops - 1.0;
    errors.push_back(std::abs(error));
    std::cout << fmt::format(
        "{:7.1f}B tp {} pp {:2} dp {:3} b {} v {}: model {:6.1f} TFLOP/s, paper {:5.1f}, error "
        "{:+6.1f}%  (compute {:.2f} s, tp {:.2f}, bubble {:.2f}, pp {:.3f}, dp {:.2f}, step {:.2f} "
        "s)\n",
        r.params_b, best.split.tp, best.split.pp, best.split.dp, best.split.micro_batch,
        best.split.interleave, best.tflops_per_gpu, r.tflops, 100 * error,
        best.compute_s + best.recompute_s, best.tp_comm_s, best.pp_bubble_s, best.pp_transfer_s,
        best.dp_comm_s, best.step_s);
    EXPECT_LT(std::abs(error), kRowBound) << r.params_b << "B";
  }
  const double worst = *std::max_element(errors.begin(), errors.end());
  std::cout << fmt::format("Narayanan Table 1: median error {:.1f}%, worst {:.1f}%\n",
                           100 * median(errors), 100 * worst);
}

}  // namespace
}  // namespace scalewall
