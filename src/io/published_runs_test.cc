// Tests of scalewall/io/csv_table.h and scalewall/io/published_runs.h: the shipped tables of
// published runs read in full, cell by cell where a source states a value, and bad cells refused
// naming the file, the line, the column and the cell.
#include "scalewall/io/published_runs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "scalewall/base/error.h"
#include "scalewall/io/csv_table.h"

namespace scalewall {
namespace {

using ::testing::HasSubstr;

const std::string kDir = std::string(SCALEWALL_SOURCE_DIR) + "/tests/data/published/";

TEST(CsvTable, QuotedCellsKeepCommasAndDoubledQuotes) {
  const CsvTable t = parse_csv_table("# source\na,b,c\n1,\"x, y\",\"say \"\"hi\"\"\"\n", "t.csv");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.cell(t.rows[0], "b"), "x, y");
  EXPECT_EQ(t.cell(t.rows[0], "c"), "say \"hi\"");
  EXPECT_EQ(t.cell(t.rows[0], "d"), "");
  EXPECT_EQ(t.rows[0].line, 3);
}

TEST(CsvTable, ARowOfTheWrongWidthOrAnOpenQuoteNamesItsLine) {
  try {
    parse_csv_table("a,b\n1,2\n3\n", "t.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("t.csv:3: 1 fields, but the header has 2"));
  }
  EXPECT_THROW(parse_csv_table("a,b\n1,\"2\n", "t.csv"), InputError);
  EXPECT_THROW(parse_csv_table("# only a comment\n", "t.csv"), InputError);
}

TEST(PublishedRuns, TheShippedTablesReadInFull) {
  EXPECT_EQ(read_published_runs(kDir + "megatron_bridge_performance_summary.csv").size(), 293u);
  EXPECT_EQ(read_published_runs(kDir + "megatron_lm_readme_h100_scaling_2024.csv").size(), 11u);
  EXPECT_EQ(read_published_runs(kDir + "megatron_lm_examples_llama_fp8.csv").size(), 3u);
}

TEST(PublishedRuns, ARowKeepsWhatItsSourceStates) {
  // Megatron-LM README, GPT 175B-class row: 96 layers, h 12288, 96 heads, 2,304 H100s,
  // TP 8, PP 6, DP 48, batch 1152, 432.8 TFLOP/s per GPU; no tokens/s, no micro-batch.
  const auto runs = read_published_runs(kDir + "megatron_lm_readme_h100_scaling_2024.csv");
  const PublishedRun& r = runs[6];
  EXPECT_EQ(r.model, "GPT 177B");
  EXPECT_EQ(r.layers, 96);
  EXPECT_EQ(r.hidden, 12288);
  EXPECT_EQ(r.gpus, 2304);
  EXPECT_EQ(r.tp, 8);
  EXPECT_EQ(r.pp, 6);
  EXPECT_EQ(r.dp, 48);
  EXPECT_EQ(r.global_batch, 1152);
  EXPECT_DOUBLE_EQ(*r.tflops_per_gpu, 432.8);
  EXPECT_FALSE(r.tokens_per_s_per_gpu.has_value());
  EXPECT_FALSE(r.micro_batch.has_value());
  EXPECT_EQ(r.source, "megatron_lm_readme_h100_scaling_2024.csv");
}

// A mixture of experts' routing columns: Megatron-Bridge's DeepSeek-V3 row on 256 GB300s,
// 256 experts, top-8, expert FFN 2048, one shared expert, EP 32.
TEST(PublishedRuns, AMixtureOfExpertsKeepsItsRoutingColumns) {
  const auto runs = read_published_runs(kDir + "megatron_bridge_performance_summary.csv");
  const PublishedRun& r = runs[0];
  EXPECT_EQ(r.model, "DeepSeekV3");
  EXPECT_EQ(r.experts, 256);
  EXPECT_EQ(r.topk, 8);
  EXPECT_EQ(r.moe_ffn, 2048);
  EXPECT_EQ(r.shared_experts, 1);
  EXPECT_EQ(r.ep, 32);
  EXPECT_FALSE(runs[4].shared_experts.has_value());  // GPT OSS 120B: none stated
}

TEST(PublishedRuns, NotAvailableIsNotStated) {
  const auto runs = parse_published_runs("model,gpus,vp\nx,8,n/a\n", "t.csv");
  EXPECT_FALSE(runs[0].vp.has_value());
  EXPECT_EQ(runs[0].gpus, 8);
}

TEST(PublishedRuns, ABadCellNamesFileLineColumnAndCell) {
  try {
    parse_published_runs("model,gpus\nx,eight\n", "t.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("t.csv:2: gpus = 'eight'"));
  }
  EXPECT_THROW(parse_published_runs("model,tp\nx,0\n", "t.csv"), InputError);
  EXPECT_THROW(parse_published_runs("model,tokens_per_s_per_gpu\nx,-5\n", "t.csv"), InputError);
  EXPECT_THROW(parse_published_runs("model,tflops_per_gpu\nx,nan\n", "t.csv"), InputError);
}

}  // namespace
}  // namespace scalewall
