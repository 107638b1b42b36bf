// Tests of scalewall/io/file_format.h: every file the project ships is told by its content.
#include "scalewall/io/file_format.h"
#include "scalewall/io/calibration_report.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

std::string file_text(const std::string& relative) {
  std::ifstream in(std::string(SCALEWALL_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in) << relative;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

FileFormat of_file(const std::string& relative) { return detect_file_format(file_text(relative)); }

TEST(FileFormat, TheTestDataFiles) {
  EXPECT_EQ(of_file("tests/data/scalewall_collective.jsonl"), FileFormat::kScalewallMpi);
  EXPECT_EQ(of_file("tests/data/scalewall_pingpong.jsonl"), FileFormat::kScalewallMpi);
  EXPECT_EQ(of_file("tests/data/truncated_scalewall_pingpong.jsonl"), FileFormat::kScalewallMpi);
  EXPECT_EQ(of_file("tests/data/nccl_all_reduce_perf.txt"), FileFormat::kNcclTests);
  EXPECT_EQ(of_file("tests/data/truncated_nccl_all_reduce_perf.txt"), FileFormat::kNcclTests);
  EXPECT_EQ(of_file("tests/data/osu_latency.txt"), FileFormat::kOsu);
  EXPECT_EQ(of_file("tests/data/osu_bw.txt"), FileFormat::kOsu);
  EXPECT_EQ(of_file("tests/data/osu_allreduce.txt"), FileFormat::kOsu);
  EXPECT_EQ(of_file("tests/data/imb_pingpong.txt"), FileFormat::kImb);
  EXPECT_EQ(of_file("tests/data/imb_allreduce.txt"), FileFormat::kImb);
  // "rank,step_s": a per-rank table, not a scaling table (its column is not `ranks`).
  EXPECT_EQ(of_file("tests/data/foreign.txt"), FileFormat::kUnknown);
}

TEST(FileFormat, ScenariosAndFabrics) {
  for (const char* s : {"examples/seed-7b-bf16.toml", "examples/dgx-llm-weak.toml",
                        "examples/bandwidth-bound-1.3b-100gbe.toml"}) {
    EXPECT_EQ(of_file(s), FileFormat::kScenario) << s;
  }
  for (const char* f : {"examples/fabrics/dgx-h100-ndr.toml", "examples/fabrics/tcp-100gbe.toml",
                        "examples/fabrics/shm-node.toml"}) {
    EXPECT_EQ(of_file(f), FileFormat::kFabric) << f;
  }
}

TEST(FileFormat, ScalingTables) {
  EXPECT_EQ(detect_file_format("# measured\nranks,step_s\n8,1.0\n"), FileFormat::kScalingTableCsv);
  EXPECT_EQ(detect_file_format("problem_size,ranks\n1,8\n"), FileFormat::kScalingTableCsv);
  EXPECT_EQ(detect_file_format("ranks\n8\n"), FileFormat::kScalingTableCsv);
  EXPECT_EQ(detect_file_format("[{\"ranks\": 8, \"step_s\": 1}]"), FileFormat::kScalingTableJson);
  EXPECT_EQ(detect_file_format("{\"rows\": []}"), FileFormat::kScalingTableJson);
  // A JSON object naming scalewall-mpi is its envelope, not a table.
  EXPECT_EQ(detect_file_format("{\"tool\":\"scalewall-mpi\",\"version\":\"0.1.0\"}\n"),
            FileFormat::kScalewallMpi);
}

TEST(FileFormat, TagOutputPrefixesAndBlanksAreIgnored) {
  EXPECT_EQ(detect_file_format("\n\n[1,0]<stdout>:{\"tool\":\"scalewall-mpi\"}\n"),
            FileFormat::kScalewallMpi);
  EXPECT_EQ(detect_file_format("\xEF\xBB\xBF# OSU MPI Latency Test v7.3\n0 1.5\n"),
            FileFormat::kOsu);
  EXPECT_EQ(detect_file_format(""), FileFormat::kUnknown);
  EXPECT_EQ(detect_file_format(" \n\t\n"), FileFormat::kUnknown);
  EXPECT_EQ(detect_file_format("hello\n"), FileFormat::kUnknown);
}

TEST(FileFormat, NamesAndLogs) {
  EXPECT_EQ(file_format_name(FileFormat::kNcclTests), "nccl-tests");
  EXPECT_EQ(file_format_name(FileFormat::kScalingTableCsv), "scaling table (CSV)");
  EXPECT_TRUE(is_measurement_log(FileFormat::kImb));
  EXPECT_FALSE(is_measurement_log(FileFormat::kScalingTableJson));
  EXPECT_FALSE(is_measurement_log(FileFormat::kUnknown));
}

// calibrate's JSON report read back as a fabric carries its working-set ranks (null: off) and
// refuses a count that is not one.
TEST(CalibrationReport, WorkingSetRanks) {
  const std::string base =
      R"({"tool":"scalewall","command":"calibrate","alpha_s":1e-6,"bandwidth_Bps":5e9)";
  EXPECT_EQ(parse_calibration_report(base + "}", "r.json").working_set_ranks, 0);
  EXPECT_EQ(parse_calibration_report(base + R"(,"working_set_ranks":null})", "r.json")
                .working_set_ranks,
            0);
  EXPECT_EQ(parse_calibration_report(base + R"(,"working_set_ranks":2})", "r.json")
                .working_set_ranks,
            2);
  for (const char* bad : {"-1", "1.5", "\"two\""}) {
    try {
      parse_calibration_report(base + R"(,"working_set_ranks":)" + bad + "}", "r.json");
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("working_set_ranks"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace scalewall
