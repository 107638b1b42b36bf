// End-to-end tests of `scalewall accuracy`: the shipped tables priced and summarised per GPU and
// precision, every run accounted for (priced or counted by its reason), a table of one's own,
// and refused tables.
#include <gtest/gtest.h>

#include <string>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

TEST(AccuracyCli, TheShippedRunsAreEachPricedOrCountedByReason) {
  const auto j = run_json({"accuracy"});
  ASSERT_TRUE(j.contains("groups"));
  const auto& groups = j["groups"];
  ASSERT_FALSE(groups.empty());
  EXPECT_EQ(groups.back()["group"], "all");
  // The dense runs' "all" and the mixtures of experts' "all MoE" make the runs priced.
  ASSERT_TRUE(j.contains("mixture_of_experts"));
  const auto& moe = j["mixture_of_experts"];
  EXPECT_EQ(moe.back()["group"], "all MoE");
  EXPECT_EQ(groups.back()["runs"].get<std::int64_t>() + moe.back()["runs"].get<std::int64_t>(),
            j["priced"].get<std::int64_t>());
  // 293 + 11 + 3 rows in the three tables.
  EXPECT_EQ(j["runs"], 307);
  std::int64_t counted = j["priced"].get<std::int64_t>();
  for (const auto& reason : j["not_priced_reasons"]) {
    const std::string text = reason.get<std::string>();
    counted += std::stoll(text.substr(text.rfind('(') + 1));
  }
  EXPECT_EQ(counted, 307);
  for (const auto& g : groups) {
    EXPECT_LE(g["median_abs_error"].get<double>(), g["p90_abs_error"].get<double>());
    EXPECT_LE(g["p90_abs_error"].get<double>(), g["worst_abs_error"].get<double>());
  }
}

TEST(AccuracyCli, RowsListEveryPricedRunWithItsSplit) {
  const auto j = run_json({"accuracy", "--rows"});
  ASSERT_EQ(j["rows"].size(), j["priced"].get<std::size_t>());
  for (const auto& r : j["rows"]) {
    EXPECT_GT(r["measured_step_s"].get<double>(), 0.0);
    EXPECT_GT(r["predicted_step_s"].get<double>(), 0.0);
    EXPECT_NE(r["split"].get<std::string>().find("tp "), std::string::npos);
  }
  EXPECT_EQ(j["not_priced"].size() + j["rows"].size(), 307u);
}

// One run of one's own: Llama 3 8B on 8 H100 in BF16 (shape from the Llama 3 paper, Table 3);
// the throughput is a made-up figure, so only the arithmetic of the measured step is checked:
// 128 x 8192 / (10000 x 8) = 13.1072 s.
TEST(AccuracyCli, ATableOfOnesOwnIsPriced) {
  const std::string path = write_temp_file(
      "runs.csv",
      "# made-up throughput\n"
      "model,layers,hidden,ffn_hidden,heads,kv_heads,vocab,system,gpu,gpus,precision,seq_len,"
      "global_batch,micro_batch,tp,pp,tokens_per_s_per_gpu\n"
      "LLAMA3_8B,32,4096,14336,32,8,128256,DGX-H100,H100,8,BF16,8192,128,1,1,1,10000\n");
  const auto j = run_json({"accuracy", path, "--rows"});
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_NEAR(j["rows"][0]["measured_step_s"].get<double>(), 13.1072, 1e-9);
  EXPECT_EQ(j["rows"][0]["group"], "H100 BF16");
}

TEST(AccuracyCli, ABadTableIsRefusedNamingFileLineAndCell) {
  const std::string path =
      write_temp_file("bad.csv", "model,gpus,tp\nx,eight,1\n");
  expect_input_error({"accuracy", path}, "bad.csv:2: gpus = 'eight'");
  expect_input_error({"accuracy", "no-such-table.csv"}, "no-such-table.csv");
}

}  // namespace
}  // namespace scalewall::testing
