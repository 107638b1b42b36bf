// Tests of scalewall/io/measurement.h: every sample log under tests/data is read by content into
// the same records, with the tools' units converted (us -> s, MB/s -> B/s); every malformed
// file is an InputError naming the file and the line.
#include "scalewall/io/measurement.h"

#include "scalewall/io/file_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "scalewall/analysis/calibrate.h"
#include "scalewall/base/error.h"
#include "io/json_input.h"
#include "test_support.h"

namespace scalewall {
namespace {

std::string data(const std::string& name) {
  return std::string(SCALEWALL_SOURCE_DIR) + "/tests/data/" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh file under the test's temporary directory holding `text`.
std::string temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "scalewall_measurement_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return path;
}

MeasurementSet read(const std::string& path) {
  MeasurementSet set;
  read_measurement_file(path, set);
  return set;
}

std::string error_reading(const std::string& path) {
  return input_error_of([&] { read(path); });
}

constexpr double kUs = 1e-6;

// ---- each sample format ----

TEST(MeasurementFile, ScalewallMpiPingPong) {
  const MeasurementSet set = read(data("scalewall_pingpong.jsonl"));
  ASSERT_EQ(set.pingpong.size(), 10u);
  EXPECT_TRUE(set.collectives.empty());
  EXPECT_TRUE(set.warnings.empty());
  ASSERT_EQ(set.sources.size(), 1u);
  EXPECT_TRUE(contains(set.sources[0], "(scalewall-mpi pingpong)")) << set.sources[0];
  const PingPongPoint& p = set.pingpong[2];
  EXPECT_EQ(p.from, 0);
  EXPECT_EQ(p.to, 1);
  EXPECT_EQ(p.bytes, 8.0);
  EXPECT_EQ(p.iterations, 1000);
  EXPECT_DOUBLE_EQ(p.one_way_median_s, 8.061e-07);
  EXPECT_DOUBLE_EQ(p.one_way_min_s, 7.497e-07);
  EXPECT_DOUBLE_EQ(p.one_way_max_s, 1.056e-06);
  EXPECT_EQ(set.pingpong.back().bytes, 4194304.0);
}

// Each file's run identity: scalewall-mpi's envelope context, or only the file for a log.
TEST(MeasurementFile, EachFileRecordsItsRun) {
  MeasurementSet set;
  parse_measurement_text(read_text(data("scalewall_pingpong.jsonl")), "pp.jsonl", set);
  parse_measurement_text(read_text(data("osu_latency.txt")), "lat.txt", set);
  ASSERT_EQ(set.runs.size(), 2u);
  const MeasurementRun& mpi = set.runs[0];
  EXPECT_EQ(mpi.source, set.sources[0]);
  EXPECT_EQ(mpi.command, "pingpong");
  EXPECT_EQ(mpi.ranks, 2);
  EXPECT_EQ(mpi.ranks_per_host, 2);
  EXPECT_EQ(mpi.hosts, std::vector<std::string>{"node1"});
  EXPECT_EQ(mpi.date, "2026-11-30T05:00:00Z");
  const MeasurementRun& log = set.runs[1];
  EXPECT_EQ(log.source, set.sources[1]);
  EXPECT_TRUE(log.command.empty());
  EXPECT_FALSE(log.ranks.has_value());
  EXPECT_TRUE(log.hosts.empty());
}

TEST(MeasurementFile, ScalewallMpiCollective) {
  const MeasurementSet set = read(data("scalewall_collective.jsonl"));
  ASSERT_EQ(set.collectives.size(), 15u);
  EXPECT_TRUE(set.warnings.empty());
  for (const auto& c : set.collectives) {
    EXPECT_EQ(c.op, Op::kAllreduce);
    EXPECT_EQ(c.ranks, 4);
    EXPECT_TRUE(c.verified);
    EXPECT_LE(c.time_min_s, c.time_median_s);
    EXPECT_LE(c.time_median_s, c.time_max_s);
  }
  EXPECT_EQ(set.collectives[0].algorithm.name(), "ring");
  EXPECT_EQ(set.collectives[5].algorithm.name(), "recursive-doubling");
  EXPECT_EQ(set.collectives[10].algorithm.name(), "library");
  EXPECT_EQ(set.collectives[0].algorithm.spec(),
            (AlgorithmSpec{Algorithm::kRing, Algorithm::kRing}));
  EXPECT_TRUE(set.collectives[10].algorithm.is_library());
}

TEST(MeasuredAlgorithm, LibraryModelAndUnknownNames) {
  const MeasuredAlgorithm library = parse_measured_algorithm("library");
  EXPECT_TRUE(library.is_library());
  EXPECT_FALSE(library.spec().has_value());
  EXPECT_EQ(library, MeasuredAlgorithm::library());
  EXPECT_EQ(library.name(), kLibraryAlgorithmName);

  const AlgorithmSpec h_rd{Algorithm::kHierarchical, Algorithm::kRecursiveDoubling};
  const MeasuredAlgorithm model = parse_measured_algorithm("hierarchical-recursive-doubling");
  EXPECT_FALSE(model.is_library());
  EXPECT_EQ(model.spec(), h_rd);
  EXPECT_EQ(model, MeasuredAlgorithm::model(h_rd));
  EXPECT_EQ(model.name(), "hierarchical-recursive-doubling");

  // A name the model does not know stays as written, and is neither of the others.
  const MeasuredAlgorithm other = parse_measured_algorithm("bine-tree");
  EXPECT_FALSE(other.is_library());
  EXPECT_FALSE(other.spec().has_value());
  EXPECT_EQ(other.name(), "bine-tree");
  EXPECT_EQ(other, MeasuredAlgorithm::unknown("bine-tree"));
  EXPECT_FALSE(other == library);
  EXPECT_FALSE(other == model);
  // A strict order (for map keys): exactly one of a < b, b < a for distinct values.
  EXPECT_NE(other < model, model < other);
  EXPECT_FALSE(library < library);
}

// Each log's element size, as the libraries' rules count elements: nccl-tests' type column
// (float), OSU 7's "# Datatype:" line (MPI_INT), IMB's datatype for reductions (MPI_FLOAT), a
// scalewall-mpi record's element_bytes (int64); 0 where the file does not say.
TEST(MeasurementFile, EachLogsElementSize) {
  const auto elements = [](const MeasurementSet& set) {
    std::set<double> sizes;
    for (const auto& c : set.collectives) sizes.insert(c.element_bytes);
    return sizes;
  };
  EXPECT_EQ(elements(read(data("nccl_all_reduce_perf.txt"))), std::set<double>{4.0});
  EXPECT_EQ(elements(read(data("osu_allreduce.txt"))), std::set<double>{4.0});
  EXPECT_EQ(elements(read(data("imb_allreduce.txt"))), std::set<double>{4.0});
  // A recorded file of before the field: unknown.
  EXPECT_EQ(elements(read(data("scalewall_collective.jsonl"))), std::set<double>{0.0});
  const std::string head =
      R"({"tool":"scalewall-mpi","version":"0.1.0","command":"collective","kind":"measurement","format":"jsonl","inputs":{},"context":{"ranks":2}})";
  const std::string record =
      R"({"record":"collective","op":"allreduce","algorithm":"ring","ranks":2,"bytes":64,"element_bytes":8,"iterations":1,"time_min_s":1e-6,"time_median_s":1e-6,"time_max_s":1e-6,"algbw_Bps":6.4e7,"busbw_Bps":6.4e7,"verified":true})";
  const MeasurementSet set =
      read(temp_file("element_bytes.jsonl", head + "\n" + record + "\n" +
                                                R"({"record":"end","status":"complete","records":1})" "\n"));
  ASSERT_EQ(set.collectives.size(), 1u);
  EXPECT_EQ(set.collectives[0].element_bytes, 8.0);
  // The mixed-precision and double types of nccl-tests' -d.
  for (const auto& [type, bytes] :
       {std::pair{"double", 8.0}, std::pair{"bfloat16", 2.0}, std::pair{"int8", 1.0}}) {
    std::ifstream in(data("nccl_all_reduce_perf.txt"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::size_t at = text.find(" float "); at != std::string::npos;
         at = text.find(" float ", at + 1)) {
      text.replace(at + 1, 5, type);
    }
    const MeasurementSet typed = read(temp_file(std::string("typed_") + type + ".txt", text));
    EXPECT_EQ(elements(typed), std::set<double>{bytes}) << type;
  }
}

TEST(MeasurementFile, ACollectiveOfAnAlgorithmTheModelDoesNotHaveIsRead) {
  const std::string text =
      "{\"tool\":\"scalewall-mpi\",\"version\":\"0.1.0\",\"command\":\"collective\","
      "\"kind\":\"measurement\",\"format\":\"jsonl\",\"inputs\":{},\"context\":{\"ranks\":4}}\n"
      "{\"record\":\"collective\",\"op\":\"allgather\",\"algorithm\":\"bine-tree\","
      "\"ranks\":4,\"bytes\":64,\"iterations\":1,\"time_min_s\":1e-6,"
      "\"time_median_s\":1e-6,\"time_max_s\":1e-6,\"algbw_Bps\":6.4e7,"
      "\"busbw_Bps\":4.8e7,\"verified\":true}\n"
      "{\"record\":\"end\",\"status\":\"complete\",\"records\":1}\n";
  MeasurementSet set;
  parse_measurement_text(text, "own.jsonl", set);
  ASSERT_EQ(set.collectives.size(), 1u);
  EXPECT_EQ(set.collectives[0].op, Op::kAllgather);  // "allgather" read as all-gather
  EXPECT_EQ(set.collectives[0].algorithm, MeasuredAlgorithm::unknown("bine-tree"));
}

TEST(MeasurementFile, ACheckedCollectiveCarriesItsWrongCount) {
  const std::string head =
      "{\"tool\":\"scalewall-mpi\",\"version\":\"0.1.0\",\"command\":\"collective\","
      "\"kind\":\"measurement\",\"format\":\"jsonl\",\"inputs\":{},\"context\":{\"ranks\":4}}\n";
  const auto record = [](const std::string& tail) {
    return "{\"record\":\"collective\",\"op\":\"allreduce\",\"algorithm\":\"ring\","
           "\"ranks\":4,\"bytes\":64,\"iterations\":1,\"time_min_s\":1e-6,"
           "\"time_median_s\":1e-6,\"time_max_s\":1e-6,\"algbw_Bps\":6.4e7,"
           "\"busbw_Bps\":9.6e7,\"verified\":true" + tail + "}\n";
  };
  MeasurementSet set;
  parse_measurement_text(head + record(",\"wrong\":7") + record(",\"wrong\":0") + record(""),
                         "checked.jsonl", set);
  ASSERT_EQ(set.collectives.size(), 3u);
  ASSERT_TRUE(set.collectives[0].wrong.has_value());
  EXPECT_EQ(*set.collectives[0].wrong, 7);
  EXPECT_TRUE(set.collectives[0].verified);  // matched the library's; wrong against the sum
  ASSERT_TRUE(set.collectives[1].wrong.has_value());
  EXPECT_EQ(*set.collectives[1].wrong, 0);
  EXPECT_FALSE(set.collectives[2].wrong.has_value());  // -c 0: not checked

  MeasurementSet bad;
  const std::string e = input_error_of(
      [&] { parse_measurement_text(head + record(",\"wrong\":-1"), "bad.jsonl", bad); });
  EXPECT_TRUE(contains(e, "bad.jsonl:2")) << e;
  EXPECT_TRUE(contains(e, "\"wrong\" = -1 is outside")) << e;
}

TEST(MeasurementFile, NcclTestsAllReducePerf) {
  const MeasurementSet set = read(data("nccl_all_reduce_perf.txt"));
  ASSERT_EQ(set.collectives.size(), 13u);
  EXPECT_TRUE(set.pingpong.empty());
  // Its one warning: nGpus 8, eight GPUs driven by one thread (-g 8).
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_TRUE(contains(set.warnings[0], "nGpus 8: each thread of the run drives 8 GPUs"))
      << set.warnings[0];
  EXPECT_TRUE(contains(set.warnings[0], "adds 7 launches of 4 us")) << set.warnings[0];
  EXPECT_EQ(set.series.at(0).gpus_per_thread, 8);
  EXPECT_TRUE(contains(set.sources[0], "nccl-tests all_reduce_perf")) << set.sources[0];
  const CollectivePoint& first = set.collectives.front();
  EXPECT_EQ(first.op, Op::kAllreduce);
  EXPECT_TRUE(first.algorithm.is_library());
  EXPECT_EQ(first.ranks, 8);  // eight "#  Rank" lines
  EXPECT_EQ(first.iterations, 20);
  EXPECT_EQ(first.bytes, 8.0);
  // Out-of-place 11.94 us and in-place 11.55 us: two samples.
  EXPECT_NEAR(first.time_min_s, 11.55 * kUs, 1e-15);
  EXPECT_NEAR(first.time_max_s, 11.94 * kUs, 1e-15);
  EXPECT_NEAR(first.time_median_s, (11.94 + 11.55) / 2 * kUs, 1e-15);
  const CollectivePoint& last = set.collectives.back();
  EXPECT_EQ(last.bytes, 134217728.0);
  EXPECT_NEAR(last.time_median_s, (533.0 + 526.2) / 2 * kUs, 1e-15);
  EXPECT_NEAR(last.algbw_Bps, 134217728.0 / last.time_median_s, 1.0);
  EXPECT_NEAR(last.busbw_Bps, last.algbw_Bps * 2.0 * 7.0 / 8.0, 1.0);
  EXPECT_TRUE(last.verified);
}

TEST(MeasurementFile, OsuLatency) {
  const MeasurementSet set = read(data("osu_latency.txt"));
  ASSERT_EQ(set.pingpong.size(), 23u);
  EXPECT_EQ(set.pingpong[0].bytes, 1.0);
  EXPECT_NEAR(set.pingpong[0].one_way_median_s, 1.62 * kUs, 1e-15);
  EXPECT_EQ(set.pingpong[0].one_way_min_s, set.pingpong[0].one_way_median_s);
  EXPECT_EQ(set.pingpong.back().bytes, 4194304.0);
  EXPECT_TRUE(contains(set.sources[0], "(osu_latency)"));
}

TEST(MeasurementFile, OsuBandwidthIsStreamingData) {
  const MeasurementSet set = read(data("osu_bw.txt"));
  EXPECT_TRUE(set.pingpong.empty());
  EXPECT_TRUE(set.collectives.empty());
  ASSERT_EQ(set.sources.size(), 1u);
  EXPECT_TRUE(contains(set.sources[0], "osu_bw: streaming bandwidth")) << set.sources[0];
  const auto stream = read_stream_points(data("osu_bw.txt"));
  ASSERT_EQ(stream.size(), 23u);
  EXPECT_EQ(stream[0].bytes, 1.0);
  EXPECT_NEAR(stream[0].bandwidth_Bps, 4.49e6, 1e-3);  // "4.49" MB/s, decimal MB
  // Any other file has no stream points.
  EXPECT_TRUE(read_stream_points(data("osu_latency.txt")).empty());
  EXPECT_TRUE(read_stream_points(data("scalewall_pingpong.jsonl")).empty());
  // The text readers read the same, naming the source they are given.
  const auto from_text = parse_stream_points(read_text(data("osu_bw.txt")), "bw.txt");
  ASSERT_EQ(from_text.size(), 23u);
  EXPECT_EQ(from_text[22].bytes, stream[22].bytes);
  EXPECT_EQ(from_text[22].bandwidth_Bps, stream[22].bandwidth_Bps);
  MeasurementSet text_set;
  parse_measurement_text(read_text(data("osu_bw.txt")), "bw.txt", text_set);
  ASSERT_EQ(text_set.sources.size(), 1u);
  EXPECT_EQ(text_set.sources[0].rfind("bw.txt", 0), 0u) << text_set.sources[0];
}

TEST(MeasurementFile, OsuAllreduceTakesRanksFromTheCommandLine) {
  const MeasurementSet set = read(data("osu_allreduce.txt"));
  ASSERT_EQ(set.collectives.size(), 19u);
  EXPECT_TRUE(set.warnings.empty());
  const CollectivePoint& p = set.collectives.front();
  EXPECT_EQ(p.op, Op::kAllreduce);
  EXPECT_EQ(p.ranks, 4);  // "mpirun -np 4" above the table
  EXPECT_EQ(p.bytes, 4.0);
  EXPECT_NEAR(p.time_median_s, 3.58 * kUs, 1e-15);
  EXPECT_NEAR(p.busbw_Bps, 4.0 / p.time_median_s * 1.5, 1e-6);
}

TEST(MeasurementFile, OsuCollectiveWithoutRanksWarns) {
  std::string text = read_text(data("osu_allreduce.txt"));
  text = text.substr(text.find("# OSU"));  // drop the mpirun line
  const MeasurementSet set = read(temp_file("osu_allreduce_bare.txt", text));
  ASSERT_EQ(set.collectives.size(), 19u);
  EXPECT_EQ(set.collectives[0].ranks, 0);
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_TRUE(contains(set.warnings[0], "give the rank count")) << set.warnings[0];

  MeasurementSet copy = set;
  EXPECT_EQ(assign_unknown_ranks(copy, 8), 19);
  EXPECT_EQ(copy.collectives[0].ranks, 8);
  EXPECT_NEAR(copy.collectives[0].busbw_Bps, copy.collectives[0].algbw_Bps * 1.75, 1e-9);
  EXPECT_EQ(assign_unknown_ranks(copy, 8), 0);
}

TEST(MeasurementFile, OsuFullFormatAndValidation) {
  const std::string path = temp_file("osu_allreduce_full.txt",
                                     "# OSU MPI Allreduce Latency Test v7.3\n"
                                     "# Datatype: MPI_INT.\n"
                                     "# Size       Avg Latency(us)   Min Latency(us)   Max "
                                     "Latency(us)  Iterations  Validation\n"
                                     "4                       3.50              3.10              "
                                     "4.20        1000        Pass\n"
                                     "8                       3.60              3.20              "
                                     "4.30        1000        Fail\n");
  MeasurementSet set = read(path);
  ASSERT_EQ(set.collectives.size(), 2u);
  EXPECT_NEAR(set.collectives[0].time_min_s, 3.10 * kUs, 1e-15);
  EXPECT_NEAR(set.collectives[0].time_median_s, 3.50 * kUs, 1e-15);
  EXPECT_NEAR(set.collectives[0].time_max_s, 4.20 * kUs, 1e-15);
  EXPECT_EQ(set.collectives[0].iterations, 1000);
  EXPECT_TRUE(set.collectives[0].verified);
  EXPECT_FALSE(set.collectives[1].verified);
}

TEST(MeasurementFile, OsuVersion2Header) {
  const MeasurementSet set = read(temp_file("osu_v2.txt",
                                            "# OSU MPI Latency Test (Version 2.0)\n"
                                            "# Size Latency (us)\n"
                                            "0 1.06\n1 1.06\n2 1.06\n"));
  ASSERT_EQ(set.pingpong.size(), 3u);
  EXPECT_EQ(set.pingpong[0].bytes, 0.0);
  EXPECT_NEAR(set.pingpong[0].one_way_median_s, 1.06 * kUs, 1e-15);
}

TEST(MeasurementFile, ImbPingPong) {
  const MeasurementSet set = read(data("imb_pingpong.txt"));
  ASSERT_EQ(set.pingpong.size(), 24u);
  EXPECT_TRUE(set.warnings.empty());
  EXPECT_EQ(set.pingpong[0].bytes, 0.0);
  EXPECT_EQ(set.pingpong[0].iterations, 1000);
  EXPECT_NEAR(set.pingpong[0].one_way_median_s, 1.72 * kUs, 1e-15);
  EXPECT_EQ(set.pingpong.back().bytes, 4194304.0);
  EXPECT_EQ(set.pingpong.back().iterations, 10);
  EXPECT_TRUE(contains(set.sources[0], "(IMB PingPong)")) << set.sources[0];
}

TEST(MeasurementFile, ImbAllreduceSections) {
  const MeasurementSet set = read(data("imb_allreduce.txt"));
  ASSERT_EQ(set.collectives.size(), 44u);
  int two = 0;
  int four = 0;
  for (const auto& c : set.collectives) {
    EXPECT_EQ(c.op, Op::kAllreduce);
    two += c.ranks == 2 ? 1 : 0;
    four += c.ranks == 4 ? 1 : 0;
  }
  EXPECT_EQ(two, 22);
  EXPECT_EQ(four, 22);
  const CollectivePoint& zero = set.collectives[0];
  EXPECT_EQ(zero.bytes, 0.0);
  EXPECT_NEAR(zero.time_min_s, 0.02 * kUs, 1e-16);
  EXPECT_NEAR(zero.time_median_s, 0.03 * kUs, 1e-16);
  EXPECT_NEAR(zero.time_max_s, 0.04 * kUs, 1e-16);
}

TEST(MeasurementFile, ImbSkipsSectionsItDoesNotModelAndReadsBarrier) {
  const MeasurementSet set = read(temp_file("imb_mixed.txt",
                                            "#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part\n"
                                            "# Benchmarking Sendrecv\n"
                                            "# #processes = 2\n"
                                            "       #bytes #repetitions  t_min[usec]  "
                                            "t_max[usec]  t_avg[usec]   Mbytes/sec\n"
                                            "            0         1000         4.38         "
                                            "4.38         4.38         0.00\n"
                                            "# Benchmarking Barrier\n"
                                            "# #processes = 4\n"
                                            " #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n"
                                            "         1000         2.10         2.30         "
                                            "2.20\n"));
  ASSERT_EQ(set.collectives.size(), 1u);
  EXPECT_EQ(set.collectives[0].op, Op::kBarrier);
  EXPECT_EQ(set.collectives[0].ranks, 4);
  EXPECT_EQ(set.collectives[0].bytes, 0.0);
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_TRUE(contains(set.warnings[0], "Sendrecv")) << set.warnings[0];
}

// ---- detection is by content, and tag-output prefixes are removed ----

TEST(MeasurementFile, DetectionIgnoresTheFileName) {
  const MeasurementSet set =
      read(temp_file("looks_like.jsonl", read_text(data("nccl_all_reduce_perf.txt"))));
  EXPECT_EQ(set.collectives.size(), 13u);
}

TEST(MeasurementFile, OpenMpiTagOutputPrefixIsRemoved) {
  std::istringstream in(read_text(data("nccl_all_reduce_perf.txt")));
  std::string tagged;
  for (std::string line; std::getline(in, line);) tagged += "[1,0]<stdout>:" + line + "\n";
  const MeasurementSet set = read(temp_file("tagged.txt", tagged));
  ASSERT_EQ(set.collectives.size(), 13u);
  EXPECT_EQ(set.collectives[0].ranks, 8);
}

TEST(MeasurementFile, NcclWithoutProgramOrRankLinesInfersBoth) {
  std::istringstream in(read_text(data("nccl_all_reduce_perf.txt")));
  std::string bare;
  for (std::string line; std::getline(in, line);) {
    if (line.find("Collective test starting") != std::string::npos) continue;
    if (line.find("#  Rank") != std::string::npos) continue;
    bare += line + "\n";
  }
  const MeasurementSet set = read(temp_file("nccl_bare.txt", bare));
  ASSERT_EQ(set.collectives.size(), 13u);
  EXPECT_EQ(set.collectives[0].op, Op::kAllreduce);  // redop sum, root -1, busbw/algbw 1.75
  EXPECT_EQ(set.collectives[0].ranks, 8);         // 2(N-1)/N = 1.75
  ASSERT_EQ(set.warnings.size(), 2u);  // and the nGpus 8 one
  EXPECT_TRUE(contains(set.warnings[0], "8 ranks inferred")) << set.warnings[0];
}

TEST(MeasurementFile, NcclWrongResultsAreNotVerified) {
  std::string text = read_text(data("nccl_all_reduce_perf.txt"));
  const std::string row = "      0    11.55    0.00    0.00       0";
  const auto at = text.find(row);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, row.size(), "      3    11.55    0.00    0.00       0");
  const MeasurementSet set = read(temp_file("nccl_wrong.txt", text));
  EXPECT_FALSE(set.collectives[0].verified);
  EXPECT_TRUE(set.collectives[1].verified);
}

// ---- warnings ----

TEST(MeasurementFile, JsonLinesWithoutEndRecordIsIncomplete) {
  std::string text = read_text(data("scalewall_pingpong.jsonl"));
  text = text.substr(0, text.find("{\"record\":\"end\""));
  const MeasurementSet set = read(temp_file("no_end.jsonl", text));
  EXPECT_EQ(set.pingpong.size(), 10u);
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_TRUE(contains(set.warnings[0], "incomplete")) << set.warnings[0];
}

TEST(MeasurementFile, FailedRunIsAWarning) {
  std::string text = read_text(data("scalewall_pingpong.jsonl"));
  text = text.substr(0, text.find("{\"record\":\"end\""));
  text += R"({"record":"end","status":"failed","error":"rank 1 aborted","records":10})" "\n";
  const MeasurementSet set = read(temp_file("failed.jsonl", text));
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_TRUE(contains(set.warnings[0], "rank 1 aborted")) << set.warnings[0];
}

TEST(MeasurementFile, ArrivalAndStepRecords) {
  const std::string envelope =
      R"({"tool":"scalewall-mpi","version":"0.1.0","command":"step","kind":"measurement"})";
  const MeasurementSet set = read(temp_file(
      "step.jsonl",
      envelope + "\n" +
          R"({"record":"arrival","iteration":0,"rank":1,"host":"n1","arrival_s":1e-5,"injected_s":0,"collective_s":2e-5})"
          "\n"
          R"({"record":"step","step":0,"rank":1,"host":"n1","compute_s":0.1,"communication_s":0.02,"wait_s":0.01,"step_s":0.13})"
          "\n"
          R"({"record":"end","status":"complete","records":2})"
          "\n"));
  ASSERT_EQ(set.arrivals.size(), 1u);
  ASSERT_EQ(set.steps.size(), 1u);
  EXPECT_EQ(set.arrivals[0].host, "n1");
  EXPECT_DOUBLE_EQ(set.steps[0].step_s, 0.13);
  EXPECT_TRUE(set.warnings.empty());
}

TEST(MeasurementFile, ExchangeRecordsAreKeptApartFromPingPongs) {
  MeasurementSet set;
  parse_measurement_text(
      R"({"tool":"scalewall-mpi","version":"0.1.0","command":"exchange","kind":"measurement"})"
      "\n"
      R"({"record":"exchange","from":0,"to":1,"from_host":"a","to_host":"a","bytes":4096,"iterations":20,"exchange_min_s":3e-6,"exchange_median_s":3.5e-6,"exchange_max_s":9e-6})"
      "\n"
      R"({"record":"end","status":"complete","records":1})"
      "\n",
      "ex.jsonl", set);
  EXPECT_TRUE(set.pingpong.empty());
  ASSERT_EQ(set.exchanges.size(), 1u);
  EXPECT_EQ(set.exchanges[0].bytes, 4096.0);
  EXPECT_EQ(set.exchanges[0].from_host, "a");
  EXPECT_DOUBLE_EQ(set.exchanges[0].one_way_min_s, 3e-6);
  EXPECT_DOUBLE_EQ(set.exchanges[0].one_way_median_s, 3.5e-6);
  EXPECT_DOUBLE_EQ(set.exchanges[0].one_way_max_s, 9e-6);
  EXPECT_EQ(series_label(set, set.exchanges[0].series), "ex.jsonl: scalewall-mpi exchange");
  EXPECT_TRUE(set.warnings.empty());
}

TEST(MeasurementFile, ReductionRecords) {
  MeasurementSet set;
  parse_measurement_text(
      R"({"tool":"scalewall-mpi","version":"0.1.0","command":"reduce","kind":"measurement"})"
      "\n"
      R"({"record":"reduction","bytes":1048576,"ranks":2,"iterations":20,"time_min_s":4e-4,"time_median_s":5e-4,"time_max_s":7e-4,"slowest_rank_median_s":6e-4})"
      "\n"
      R"({"record":"end","status":"complete","records":1})"
      "\n",
      "reduce.jsonl", set);
  ASSERT_EQ(set.reductions.size(), 1u);
  EXPECT_EQ(set.reductions[0].bytes, 1048576.0);
  EXPECT_EQ(set.reductions[0].ranks, 2);
  EXPECT_DOUBLE_EQ(set.reductions[0].time_median_s, 5e-4);
  EXPECT_DOUBLE_EQ(set.reductions[0].slowest_rank_median_s, 6e-4);
  EXPECT_TRUE(set.warnings.empty());
  // min <= median <= max, as for every timed record.
  MeasurementSet bad;
  EXPECT_THROW(parse_measurement_text(
                   R"({"tool":"scalewall-mpi","command":"reduce","kind":"measurement"})"
                   "\n"
                   R"({"record":"reduction","bytes":8,"ranks":1,"iterations":1,"time_min_s":2e-4,"time_median_s":1e-4,"time_max_s":3e-4,"slowest_rank_median_s":1e-4})"
                   "\n",
                   "bad.jsonl", bad),
               InputError);
}

// reduce's copy records go to set.copies; the envelope's mpi_library names the series'
// library.
TEST(MeasurementFile, CopyAndAllocRecordsAndTheLibrary) {
  MeasurementSet set;
  parse_measurement_text(
      R"({"tool":"scalewall-mpi","version":"0.1.0","command":"reduce","kind":"measurement","context":{"mpi_library":"Open MPI v4.1.4, package: Debian OpenMPI","ranks":2}})"
      "\n"
      R"({"record":"reduction","bytes":4096,"ranks":2,"iterations":20,"time_min_s":4e-7,"time_median_s":5e-7,"time_max_s":7e-7,"slowest_rank_median_s":6e-7})"
      "\n"
      R"({"record":"copy","bytes":4096,"ranks":2,"iterations":20,"time_min_s":1e-7,"time_median_s":2e-7,"time_max_s":3e-7,"slowest_rank_median_s":2.5e-7})"
      "\n"
      R"({"record":"alloc","bytes":4096,"ranks":2,"iterations":20,"time_min_s":1e-8,"time_median_s":3e-8,"time_max_s":9e-8,"slowest_rank_median_s":4e-8})"
      "\n"
      R"({"record":"sent_reduction","bytes":4096,"ranks":2,"iterations":20,"time_min_s":1.5e-6,"time_median_s":1.6e-6,"time_max_s":2e-6,"slowest_rank_median_s":1.7e-6})"
      "\n"
      R"({"record":"sent_exchange","bytes":4096,"ranks":2,"iterations":20,"time_min_s":2.5e-6,"time_median_s":2.6e-6,"time_max_s":3e-6,"slowest_rank_median_s":2.7e-6})"
      "\n"
      R"({"record":"end","status":"complete","records":5})"
      "\n",
      "reduce.jsonl", set);
  ASSERT_EQ(set.reductions.size(), 1u);
  ASSERT_EQ(set.copies.size(), 1u);
  ASSERT_EQ(set.allocs.size(), 1u);
  ASSERT_EQ(set.sent_reductions.size(), 1u);
  EXPECT_DOUBLE_EQ(set.sent_reductions[0].time_median_s, 1.6e-6);
  EXPECT_DOUBLE_EQ(set.sent_reductions[0].slowest_rank_median_s, 1.7e-6);
  ASSERT_EQ(set.sent_exchanges.size(), 1u);
  EXPECT_DOUBLE_EQ(set.sent_exchanges[0].time_median_s, 2.6e-6);
  EXPECT_DOUBLE_EQ(set.sent_exchanges[0].slowest_rank_median_s, 2.7e-6);
  EXPECT_DOUBLE_EQ(set.allocs[0].time_median_s, 3e-8);
  EXPECT_DOUBLE_EQ(set.allocs[0].slowest_rank_median_s, 4e-8);
  EXPECT_EQ(set.copies[0].bytes, 4096.0);
  EXPECT_DOUBLE_EQ(set.copies[0].time_median_s, 2e-7);
  EXPECT_DOUBLE_EQ(set.copies[0].slowest_rank_median_s, 2.5e-7);
  ASSERT_EQ(set.series.size(), 1u);
  EXPECT_EQ(set.series[0].mpi_library, "Open MPI v4.1.4, package: Debian OpenMPI");
  EXPECT_EQ(set.runs[0].mpi_library, set.series[0].mpi_library);
  EXPECT_TRUE(set.warnings.empty());
}

// ---- errors name the file and the line ----

TEST(MeasurementFileErrors, MissingEmptyAndDirectory) {
  const std::string missing = data("no_such_file.txt");
  EXPECT_TRUE(contains(error_reading(missing), "'" + missing + "': no such file"));
  const std::string empty = temp_file("empty.txt", "");
  EXPECT_TRUE(contains(error_reading(empty), "'" + empty + "' is empty"));
  const std::string blank = temp_file("blank.txt", "\n  \n\t\n");
  EXPECT_TRUE(contains(error_reading(blank), "is empty"));
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_TRUE(contains(error_reading(dir), "is a directory"));
}

TEST(MeasurementFileErrors, ForeignFileIsUnknownFormat) {
  const std::string path = data("foreign.txt");
  const std::string e = error_reading(path);
  EXPECT_TRUE(contains(e, path + ":1: unknown measurement format")) << e;
}

TEST(MeasurementFileErrors, TruncatedNcclRow) {
  const std::string path = data("truncated_nccl_all_reduce_perf.txt");
  const std::string e = error_reading(path);
  EXPECT_TRUE(contains(e, path + ":24: truncated table row: 6 field(s), expected 13")) << e;
}

TEST(MeasurementFileErrors, TruncatedJsonRecord) {
  const std::string path = data("truncated_scalewall_pingpong.jsonl");
  const std::string e = error_reading(path);
  EXPECT_TRUE(contains(e, path + ":5: not a JSON object")) << e;
}

TEST(MeasurementFileErrors, NonNumericFields) {
  const std::string osu = temp_file("osu_bad.txt",
                                    "# OSU MPI Latency Test v7.3\n# Size       Latency (us)\n"
                                    "1                       1.60\n"
                                    "2                       1.6x\n");
  EXPECT_TRUE(contains(error_reading(osu),
                       osu + ":4: '1.6x' in the Latency (us) column is not a number"))
      << error_reading(osu);
  const std::string imb = temp_file("imb_bad.txt",
                                    "# Benchmarking PingPong\n# #processes = 2\n"
                                    "       #bytes #repetitions      t[usec]   Mbytes/sec\n"
                                    "            0         1000         abc         0.00\n");
  EXPECT_TRUE(contains(error_reading(imb), imb + ":4: 'abc' in the t[usec] column"))
      << error_reading(imb);
  const std::string json = temp_file(
      "bad.jsonl",
      R"({"tool":"scalewall-mpi","command":"pingpong","kind":"measurement"})"
      "\n"
      R"({"record":"pingpong","from":0,"to":1,"bytes":"8","iterations":10,"one_way_min_s":1e-6,"one_way_median_s":1e-6,"one_way_max_s":1e-6})"
      "\n");
  EXPECT_TRUE(contains(error_reading(json), json + ":2: field \"bytes\" must be a number, not a string"))
      << error_reading(json);
}

TEST(MeasurementFileErrors, MalformedRecords) {
  const std::string head =
      R"({"tool":"scalewall-mpi","command":"pingpong","kind":"measurement"})"
      "\n";
  const std::string missing = temp_file(
      "missing_field.jsonl",
      head + R"({"record":"pingpong","from":0,"to":1,"bytes":8,"iterations":10})" "\n");
  EXPECT_TRUE(contains(error_reading(missing), ":2: pingpong record lacks \"one_way_min_s\""))
      << error_reading(missing);
  const std::string disordered = temp_file(
      "disordered.jsonl",
      head +
          R"({"record":"pingpong","from":0,"to":1,"bytes":8,"iterations":10,"one_way_min_s":2e-6,"one_way_median_s":1e-6,"one_way_max_s":3e-6})"
          "\n");
  EXPECT_TRUE(contains(error_reading(disordered), ":2: expected one_way_min_s <= one_way_median_s"))
      << error_reading(disordered);
  const std::string after_end = temp_file(
      "after_end.jsonl", head + R"({"record":"end","status":"complete","records":0})" "\n" +
                             R"({"record":"end","status":"complete","records":0})" "\n");
  EXPECT_TRUE(contains(error_reading(after_end), ":3: a record after the end record"));
  const std::string bad_op = temp_file(
      "bad_op.jsonl",
      head +
          R"({"record":"collective","op":"allsum","algorithm":"ring","ranks":4,"bytes":8,"iterations":1,"time_min_s":1e-6,"time_median_s":1e-6,"time_max_s":1e-6,"algbw_Bps":1,"busbw_Bps":1,"verified":true})"
          "\n");
  EXPECT_TRUE(contains(error_reading(bad_op), ":2: ")) << error_reading(bad_op);
  EXPECT_TRUE(contains(error_reading(bad_op), "allsum")) << error_reading(bad_op);
}

std::string text_error(const std::string& text) {
  return input_error_of([&] {
    MeasurementSet set;
    parse_measurement_text(text, "x.jsonl", set);
  });
}

TEST(MeasurementFileErrors, JsonErrorsNameFileLineAndField) {
  const std::string head =
      R"({"tool":"scalewall-mpi","command":"collective","kind":"measurement"})" "\n";
  EXPECT_EQ(text_error(R"({"tool":"scalewall-mpi","command":{"a":1},"kind":"measurement"})"),
            "x.jsonl:1: field \"command\" must be a string, not an object");
  EXPECT_EQ(text_error(R"({"tool":"scalewall-mpi","command":"step","kind":"measurement","x":1e400})"),
            "x.jsonl:1: field \"x\": number 1e400 is out of range");
  EXPECT_EQ(
      text_error(head + "\n" +
                 R"({"record":"collective","op":"allreduce","algorithm":"ring","ranks":4,"bytes":8,"iterations":1,"time_min_s":1e-6,"time_median_s":-1e999,"time_max_s":1e-6})"),
      "x.jsonl:3: field \"time_median_s\": number -1e999 is out of range");
  EXPECT_EQ(text_error(head + R"({"record":"end","status":"failed","error":[1]})"),
            "x.jsonl:2: field \"error\" must be a string, not an array");
  EXPECT_EQ(text_error(head + R"({"record":"arrival","iteration":0,"rank":0,"host":5})"),
            "x.jsonl:2: field \"host\" must be a string, not a number");
  EXPECT_EQ(
      text_error(head + R"({"record":"step","step":18446744073709551615,"rank":0})"),
      "x.jsonl:2: field \"step\" is not a whole number: 18446744073709551615");
  // Nesting is bounded: a record of a million nested arrays is refused, not a stack overflow.
  EXPECT_EQ(text_error(head + std::string(1000000, '[') + std::string(1000000, ']')),
            "x.jsonl:2: JSON arrays and objects nested more than 64 deep");
  EXPECT_EQ(text_error(head + "[[1]]"), "x.jsonl:2: expected a JSON object, found an array of 1 element");
  for (const std::string& text :
       {std::string(R"({"tool":"scalewall-mpi","command":{"a":1}})"),
        head + R"({"record":"pingpong","from":0,"to":1,"bytes":1e400})",
        head + R"({"record":"end","status":"failed","error":{}})"}) {
    EXPECT_EQ(text_error(text).find("json.exception"), std::string::npos) << text_error(text);
  }
}

TEST(MeasurementFileErrors, JsonFromAnotherTool) {
  const std::string path = temp_file(
      "report.json", R"({"tool":"scalewall","version":"0.1.0","command":"collective"})" "\n");
  const std::string e = error_reading(path);
  EXPECT_TRUE(contains(e, path + ":1: a JSON object from \"scalewall\"")) << e;
}

TEST(MeasurementFileErrors, UnmodelledBenchmarks) {
  const std::string nccl =
      temp_file("sendrecv.txt",
                "# Collective test starting: sendrecv_perf\n"
                "#       size         count      type   redop    root     time   algbw   busbw "
                "#wrong     time   algbw   busbw #wrong\n"
                "           8             2     float     sum      -1    11.94    0.00    0.00  "
                "     0    11.55    0.00    0.00       0\n");
  EXPECT_TRUE(contains(error_reading(nccl), nccl + ":1: nccl-tests program 'sendrecv_perf'"))
      << error_reading(nccl);
  const std::string osu = temp_file("put.txt",
                                    "# OSU MPI_Put Latency Test v7.3\n"
                                    "# Size          Latency (us)\n1 3.2\n");
  EXPECT_TRUE(contains(error_reading(osu), osu + ":1: 'OSU MPI_Put Latency Test v7.3' is an OSU"))
      << error_reading(osu);
}

TEST(MeasurementFileErrors, NcclAllGatherWithoutProgramLineIsAmbiguous) {
  const std::string path =
      temp_file("ag.txt",
                "#  Rank  0 Group  0 Pid  1 on h device  0 [0x18] GPU\n"
                "#  Rank  1 Group  0 Pid  1 on h device  1 [0x19] GPU\n"
                "#       size         count      type   redop    root     time   algbw   busbw "
                "#wrong     time   algbw   busbw #wrong\n"
                "        1024           256     float    none      -1    11.94    0.09    0.04  "
                "     0    11.55    0.09    0.04       0\n");
  EXPECT_TRUE(contains(error_reading(path), "cannot tell all_gather_perf from alltoall_perf"))
      << error_reading(path);
}

TEST(MeasurementFileErrors, TableWithoutRows) {
  const std::string path = temp_file("norows.txt",
                                     "# OSU MPI Latency Test v7.3\n# Size       Latency (us)\n");
  EXPECT_TRUE(contains(error_reading(path), "no result rows")) << error_reading(path);
}

}  // namespace
}  // namespace scalewall

namespace scalewall {
namespace {

// An OSU log whose second '# Size' header has more columns than the rows read before it: the
// header starts a table of its own, so the rows are never read against the new columns (that
// read past the end of a row); the second table, of osu_bw's title, has no bandwidth column.
TEST(MeasurementFileErrors, SecondOsuHeaderWithOtherColumnsStartsATable) {
  const std::string text =
      "# OSU MPI Bandwidth Test v6.3\n"
      "# Size      Bandwidth (MB/s)\n"
      "1                       4.49\n"
      "2                       9.03\n"
      "# Size          Avg Latency(us)    Min Latency(us)    Max Latency(us)  Iterations\n"
      "4                       1.0   1.0   1.0   100\n";
  try {
    parse_stream_points(text, "two.txt");
    ADD_FAILURE() << "a second table was read into the first";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("two.txt:5: the '# Size' header has no bandwidth(mb/s) "
                                         "or mb/s column"),
              std::string::npos)
        << e.what();
  }
  MeasurementSet set;
  parse_measurement_text(text, "two.txt", set);
  ASSERT_EQ(set.series.size(), 2u);
  EXPECT_EQ(set.series[0].label, "two.txt, table 1: osu_bw");
  EXPECT_EQ(set.series[1].label, "two.txt, table 2: osu_bw");
  EXPECT_EQ(set.series[1].first_line, 5);
}

// ---- series: every table of every file its own ----

std::string real_log(const std::string& name) { return read_text(data("real-logs/" + name)); }

// A Slurm output with osu_latency then osu_bw: two series, the second header never read as a
// row of the first.
TEST(MeasurementSeries, OsuLatencyThenBandwidthInOneFile) {
  MeasurementSet set;
  parse_measurement_text(real_log("osu_latency+bw_v7.5_onefile_singlenode_course-guide.txt"),
                         "slurm.out", set);
  ASSERT_EQ(set.series.size(), 2u);
  EXPECT_EQ(set.series[0].label, "slurm.out, table 1: osu_latency");
  EXPECT_EQ(set.series[1].label, "slurm.out, table 2: osu_bw");
  ASSERT_FALSE(set.pingpong.empty());
  for (const PingPongPoint& p : set.pingpong) EXPECT_EQ(p.series, 0u);
  EXPECT_DOUBLE_EQ(set.pingpong.front().one_way_median_s, 0.35 * kUs);
}

// A launcher log of five OSU runs whose first is a test scalewall does not read: that table is
// skipped with a note naming it, the others read, each with its own launcher line's layout.
TEST(MeasurementSeries, OsuLauncherLogSkipsTheTestsItDoesNotRead) {
  MeasurementSet set;
  read_measurement_file(data("constructed/osu_launcher_five_tables.txt"), set);
  ASSERT_EQ(set.series.size(), 4u);
  EXPECT_TRUE(contains(set.series[0].label, "table 1: osu_allreduce")) << set.series[0].label;
  EXPECT_TRUE(contains(set.series[1].label, "table 2: osu_latency"));
  EXPECT_TRUE(contains(set.series[2].label, "table 3: osu_bibw"));
  EXPECT_TRUE(contains(set.series[3].label, "table 4: osu_bw"));
  EXPECT_EQ(set.series[0].ranks, 4);
  EXPECT_EQ(set.series[0].ranks_per_node, 2);
  EXPECT_EQ(set.series[0].nodes, 2);
  EXPECT_EQ(set.series[1].ranks_per_node, 1);
  bool noted = false;
  for (const std::string& w : set.warnings) {
    noted = noted || contains(w, "OSU test(s) 'OSU MPI_Put Latency Test v5.6.2' (line 2) skipped");
  }
  EXPECT_TRUE(noted);
  EXPECT_EQ(set.collectives.size(), 4u);
  EXPECT_EQ(set.pingpong.size(), 4u);
}

// A log of only a test scalewall does not read is refused, naming it and what is read.
TEST(MeasurementSeries, OsuLogOfOnlyAnUnreadTestIsRefused) {
  const std::string error = input_error_of([] {
    MeasurementSet set;
    parse_measurement_text("# OSU MPI_Get Bandwidth Test v5.6.2\n# Size      Bandwidth (MB/s)\n"
                           "1                       0.41\n",
                           "get.txt", set);
  });
  EXPECT_TRUE(contains(error, "get.txt:1: 'OSU MPI_Get Bandwidth Test v5.6.2' is an OSU benchmark "
                              "scalewall does not read (it reads osu_latency, osu_multi_lat"))
      << error;
}

// Two runs of all_reduce_perf on 8 ranks in one file: two series, each with its own bus
// bandwidth, never one median over both.
TEST(MeasurementSeries, TwoNcclRunsOfOneOpAndRankCountInOneFile) {
  MeasurementSet set;
  read_measurement_file(data("constructed/nccl_two_runs_8rank_cscs+rccl.txt"), set);
  ASSERT_EQ(set.series.size(), 2u);
  EXPECT_TRUE(contains(set.series[0].label, ", table 1: all_reduce_perf"));
  EXPECT_TRUE(contains(set.series[1].label, ", table 2: all_reduce_perf"));
  EXPECT_EQ(set.series[0].ranks, 8);
  EXPECT_EQ(set.series[1].ranks, 8);
  EXPECT_EQ(set.series[0].nodes, 2);
  EXPECT_EQ(set.series[1].nodes, 1);
  std::vector<BusBandwidthFit> fits = fit_bus_bandwidth(set.collectives, {}, nullptr);
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_NEAR(fits[0].points.back().busbw_Bps / 1e9, 122.57, 1.0);
  EXPECT_NEAR(fits[1].points.back().busbw_Bps / 1e9, 315.69, 3.0);
  ASSERT_EQ(series_overlaps(set).size(), 1u);
  EXPECT_TRUE(contains(series_overlaps(set)[0], "both time allreduce at 8 ranks: kept apart"))
      << series_overlaps(set)[0];
  // Pooling asks that the layouts agree: 2 nodes x 4 and 1 node x 8 stay apart.
  EXPECT_TRUE(pool_series(set).empty());
  EXPECT_EQ(fit_bus_bandwidth(set.collectives, {}, nullptr).size(), 2u);
}

// Two files given together: two series, labelled by file; pooled on request when they agree.
TEST(MeasurementSeries, TwoFilesStayApartUnlessPooled) {
  MeasurementSet set;
  const std::string text = read_text(data("nccl/a100_2node_16gpu_oci-hpc-oke.txt"));
  parse_measurement_text(text, "a.txt", set);
  parse_measurement_text(text, "b.txt", set);
  ASSERT_EQ(set.series.size(), 2u);
  EXPECT_EQ(set.series[0].label, "a.txt: all_reduce_perf");
  EXPECT_EQ(set.series[1].label, "b.txt: all_reduce_perf");
  EXPECT_EQ(fit_bus_bandwidth(set.collectives, {}, nullptr).size(), 2u);
  const std::vector<std::string> pooled = pool_series(set);
  ASSERT_EQ(pooled.size(), 1u);
  EXPECT_EQ(pooled[0], "'b.txt: all_reduce_perf' pooled with 'a.txt: all_reduce_perf' "
                       "(allreduce at 16 ranks)");
  const std::vector<BusBandwidthFit> fits = fit_bus_bandwidth(set.collectives, {}, nullptr);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].points.back().samples, 2);
  EXPECT_EQ(set.series[0].label, "a.txt: all_reduce_perf + b.txt: all_reduce_perf");
}

// One link is fitted to one ping-pong series: two are refused, naming them and --pool.
TEST(MeasurementSeries, TwoPingPongSeriesNeedPooling) {
  MeasurementSet set;
  read_measurement_file(data("osu_latency.txt"), set);
  read_measurement_file(data("imb_pingpong.txt"), set);
  const std::string error = input_error_of([&] { link_points(set); });
  EXPECT_TRUE(contains(error, "2 ping-pong series")) << error;
  EXPECT_TRUE(contains(error, "--pool")) << error;
  pool_series(set);
  EXPECT_EQ(link_points(set).size(), set.pingpong.size());
}

// ---- the formats of the issue ----

// osu_alltoall's Size is per peer: nccl-tests' size is Size x ranks, with the rank count from
// the mpirun line, or once --ranks gives it.
TEST(MeasurementFormats, OsuAlltoallSizeIsPerPeer) {
  const std::string text = real_log("osu_alltoall_v7.5_36proc_oracle-japan_ocitutorials.txt");
  MeasurementSet set;
  parse_measurement_text(text, "a2a.txt", set);
  ASSERT_FALSE(set.collectives.empty());
  const CollectivePoint& first = set.collectives.front();
  EXPECT_EQ(first.op, Op::kAlltoall);
  EXPECT_EQ(first.ranks, 36);
  EXPECT_DOUBLE_EQ(first.bytes, 36.0);
  EXPECT_DOUBLE_EQ(first.time_median_s, 10.29 * kUs);
  EXPECT_NEAR(first.busbw_Bps, 36.0 / (10.29 * kUs) * 35.0 / 36.0, 1e-6);
  MeasurementSet bare;
  parse_measurement_text(text.substr(text.find("# OSU")), "bare.txt", bare);
  EXPECT_EQ(bare.collectives.front().ranks, 0);
  EXPECT_TRUE(bare.collectives.front().bytes_per_peer);
  EXPECT_DOUBLE_EQ(bare.collectives.front().bytes, 1.0);
  assign_unknown_ranks(bare, 36);
  EXPECT_DOUBLE_EQ(bare.collectives.front().bytes, 36.0);
  EXPECT_DOUBLE_EQ(bare.collectives.front().busbw_Bps, first.busbw_Bps);
  EXPECT_EQ(bare.series.front().ranks, 36);
}

// IMB Alltoall: #bytes per peer too, x #processes.
TEST(MeasurementFormats, ImbAlltoall) {
  const std::string text =
      "#    Intel(R) MPI Benchmarks 2019 Update 5, MPI-1 part\n"
      "# Benchmarking Alltoall\n"
      "# #processes = 4\n"
      "#----------------------------------------------------------------\n"
      "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n"
      "            0         1000         0.04         0.05         0.04\n"
      "         1024         1000         2.00         2.40         2.20\n";
  MeasurementSet set;
  parse_measurement_text(text, "imb.txt", set);
  ASSERT_EQ(set.collectives.size(), 2u);
  EXPECT_EQ(set.collectives[1].op, Op::kAlltoall);
  EXPECT_EQ(set.collectives[1].ranks, 4);
  EXPECT_DOUBLE_EQ(set.collectives[1].bytes, 4096.0);
  EXPECT_DOUBLE_EQ(set.collectives[1].time_median_s, 2.20 * kUs);
  EXPECT_EQ(set.series.at(0).label, "imb.txt: IMB Alltoall");
}

// osu_multi_lat has osu_latency's columns; osu_mbw_mr's streams are MB/s and messages/s.
TEST(MeasurementFormats, OsuMultiLatAndMbwMr) {
  MeasurementSet set;
  parse_measurement_text("# OSU MPI Multi Latency Test v5.6.2\n# Size          Latency (us)\n"
                         "0                       1.20\n8                       1.31\n",
                         "multi.txt", set);
  ASSERT_EQ(set.pingpong.size(), 2u);
  EXPECT_DOUBLE_EQ(set.pingpong[1].one_way_median_s, 1.31 * kUs);
  EXPECT_EQ(set.series.at(0).benchmark, "osu_multi_lat");
  const std::vector<StreamPoint> mbw = parse_stream_points(
      "# OSU MPI Multiple Bandwidth / Message Rate Test v5.6.2\n"
      "# [ pairs: 1 ] [ window size: 64 ]\n"
      "# Size                  MB/s        Messages/s\n"
      "1                       2.91        2907196.12\n"
      "4194304             12228.34           2915.47\n",
      "mbw.txt");
  ASSERT_EQ(mbw.size(), 2u);
  EXPECT_EQ(mbw[1].benchmark, "osu_mbw_mr");
  EXPECT_DOUBLE_EQ(mbw[1].bandwidth_Bps, 12228.34e6);
}

// Old alltoall_perf leaves its redop field blank: the row is one field short, and the op is
// all-to-all; old all_gather_perf prints no redop column at all.
TEST(MeasurementFormats, OldNcclAlltoallWithABlankRedop) {
  const std::string text =
      "# nThread 1 nGpus 4 minBytes 1024 maxBytes 4096 step: 2(factor) warmup iters: 5 iters: 20 "
      "validation: 1\n"
      "#   Rank  0 Pid 1 on node1 device  0 [0x07] Tesla V100\n"
      "#   Rank  1 Pid 1 on node1 device  1 [0x08] Tesla V100\n"
      "#   Rank  2 Pid 1 on node1 device  2 [0x09] Tesla V100\n"
      "#   Rank  3 Pid 1 on node1 device  3 [0x0a] Tesla V100\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw"
      "   busbw  error\n"
      "        1024            64   float            28.05    0.04    0.03  0e+00    27.73    0.04"
      "    0.03  0e+00\n"
      "        4096           256   float            30.00    0.14    0.10  0e+00    30.00    0.14"
      "    0.10  0e+00\n";
  MeasurementSet set;
  parse_measurement_text(text, "a2a.log", set);
  ASSERT_EQ(set.collectives.size(), 2u);
  EXPECT_EQ(set.collectives[0].op, Op::kAlltoall);
  EXPECT_EQ(set.collectives[0].ranks, 4);
  EXPECT_DOUBLE_EQ(set.collectives[1].time_median_s, 30.0 * kUs);
  EXPECT_TRUE(contains(set.sources.at(0), "alltoall_perf, op read from its columns"))
      << set.sources.at(0);
  // nGpus 4: one thread drives the four GPUs; the series records it for the NCCL model.
  EXPECT_EQ(set.series.at(0).gpus_per_thread, 4);
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_TRUE(contains(set.warnings[0], "a2a.log: nGpus 4: each thread of the run drives 4 GPUs"))
      << set.warnings[0];
}

// A row whose out-of-place and in-place times differ by more than 1.5x had one run disturbed:
// its typical time is the faster one, named in a warning. The XE9680 log of nccl-tests issue
// 309 takes 24.7-28.2 us at every size from 8 B to 2 KiB, but 68.5 us out of place at 8 B and
// 94.4 us at 256 B; other rows keep the mean of the two.
TEST(MeasurementFormats, ADisturbedNcclRunTakesTheFasterTime) {
  MeasurementSet set;
  read_measurement_file(data("nccl/h100_2node_16gpu_ib_nccl-tests-issue309_xe9680.txt"), set);
  std::map<double, const CollectivePoint*> at;
  for (const CollectivePoint& p : set.collectives) at[p.bytes] = &p;
  ASSERT_TRUE(at.count(8) && at.count(256) && at.count(128));
  EXPECT_DOUBLE_EQ(at[8]->time_median_s, 24.70 * kUs);
  EXPECT_DOUBLE_EQ(at[8]->time_max_s, 68.52 * kUs);
  EXPECT_DOUBLE_EQ(at[256]->time_median_s, 25.90 * kUs);
  EXPECT_DOUBLE_EQ(at[128]->time_median_s, (25.68 + 25.62) / 2 * kUs);
  int named = 0;
  for (const std::string& w : set.warnings) {
    if (!contains(w, "differ by more than 1.5x")) continue;
    ++named;
    EXPECT_TRUE(contains(w, "at 8 B (line 27: 68.5 us and 24.7 us), 256 B (line 32: 94.4 us "
                            "and 25.9 us): one run was disturbed"))
        << w;
  }
  EXPECT_EQ(named, 1);
}

// srun -l prefixes every line with its task: "0: ".
TEST(MeasurementFormats, SrunTaskPrefixIsRemoved) {
  MeasurementSet set;
  read_measurement_file(data("constructed/nccl_allreduce_srun-l_from_cscs-docs.txt"), set);
  ASSERT_EQ(set.series.size(), 1u);
  EXPECT_EQ(set.series[0].ranks, 8);
  EXPECT_EQ(set.series[0].ranks_per_node, 4);
  EXPECT_EQ(set.collectives.back().bytes, 134217728.0);
}

// Open MPI prints its aggregated help notices between a program's lines, even inside a table
// (an 8-process nccl-tests run whose OFI transport failed to start): they are not table rows.
TEST(MeasurementFormats, OpenMpiHelpNoticesInsideATableAreSkipped) {
  MeasurementSet plain;
  read_measurement_file(data("nccl/a100_1node_8gpu_ocitutorials.txt"), plain);
  std::ifstream in(data("nccl/a100_1node_8gpu_ocitutorials.txt"));
  std::string text(std::istreambuf_iterator<char>(in), {});
  const std::string first_row = "          64            16     float";
  ASSERT_NE(text.find(first_row), std::string::npos);
  text.insert(text.find(first_row),
              "8 more processes have sent help message help-mtl-ofi.txt / OFI call fail\n"
              "Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error "
              "messages\n");
  const std::string last_row = "  8589934592";
  text.insert(text.find(last_row),
              "1 more process has sent help message help-mtl-ofi.txt / OFI call fail\n");
  MeasurementSet set;
  parse_measurement_text(text, "noticed.txt", set);
  ASSERT_EQ(set.collectives.size(), plain.collectives.size());
  EXPECT_EQ(set.series.size(), 1u);
  for (std::size_t i = 0; i < set.collectives.size(); ++i) {
    EXPECT_EQ(set.collectives[i].bytes, plain.collectives[i].bytes) << i;
    EXPECT_EQ(set.collectives[i].time_median_s, plain.collectives[i].time_median_s) << i;
  }
  // A line that only looks like one is still refused as a row.
  std::string other = text;
  other.insert(other.find(last_row), "8 more bytes were sent\n");
  MeasurementSet refused;
  EXPECT_TRUE(contains(input_error_of([&] { parse_measurement_text(other, "x.txt", refused); }),
                       "x.txt:"));
}

// A Rank line that lost its '#' is not counted; the bus-bandwidth factor, computed by
// nccl-tests from the true count, gives 16 and says so.
TEST(MeasurementFormats, RankCountIsCheckedAgainstTheBusBandwidthFactor) {
  std::string text = real_log(
      "nccl_allreduce_oldformat_tagoutput_ncclinfo_16rank_p4d_aws-samples_aws-efa-eks.txt");
  const std::string rank0 = "[1,0]<stdout>:#   Rank  0";
  ASSERT_NE(text.find(rank0), std::string::npos);
  text.replace(text.find(rank0), rank0.size(), "[1,0]<stdout>:   Rank  0");
  MeasurementSet set;
  parse_measurement_text(text, "aws.txt", set);
  EXPECT_EQ(set.series.at(0).ranks, 16);
  EXPECT_EQ(set.collectives.front().ranks, 16);
  bool warned = false;
  for (const std::string& w : set.warnings) {
    warned = warned || contains(w, "aws.txt: 15 '#  Rank' line(s), but busbw/algbw");
  }
  EXPECT_TRUE(warned);
}

// nccl-tests -J: one JSON document, read as the text log it was built from.
TEST(MeasurementFormats, NcclTestsJson) {
  MeasurementSet json;
  read_measurement_file(data("constructed/nccl_allreduce_json_2node_from_cscs-docs.json"), json);
  MeasurementSet text;
  read_measurement_file(data("real-logs/nccl_allreduce_v2.18.2_gh200_2node_eth-cscs_cscs-docs.txt"),
                        text);
  ASSERT_EQ(json.collectives.size(), text.collectives.size());
  for (std::size_t i = 0; i < json.collectives.size(); ++i) {
    EXPECT_DOUBLE_EQ(json.collectives[i].bytes, text.collectives[i].bytes);
    EXPECT_NEAR(json.collectives[i].time_median_s, text.collectives[i].time_median_s, 1e-12);
  }
  EXPECT_EQ(json.series.at(0).nodes, 2);
  EXPECT_EQ(json.series.at(0).gpus_per_thread, 1);
  EXPECT_TRUE(json.warnings.empty());
  EXPECT_TRUE(contains(json.sources.at(0), "(nccl-tests all_reduce_perf, JSON)"));
  EXPECT_EQ(detect_file_format(read_text(
                data("constructed/nccl_allreduce_json_2node_from_cscs-docs.json"))),
            FileFormat::kNcclTests);
}

// A -J document's iterations are a count: one past what a 64-bit count holds (or a fraction)
// is refused naming the field, never cast.
TEST(MeasurementFileErrors, AnNcclTestsJsonIterationCountThatIsNoCountIsRefused) {
  const std::string doc =
      read_text(data("constructed/nccl_allreduce_json_2node_from_cscs-docs.json"));
  const std::size_t at = doc.find("\"iterations\":");
  ASSERT_NE(at, std::string::npos);
  const std::size_t end = doc.find(',', at);
  for (const char* bad : {"5e84", "20.5"}) {
    std::string text = doc;
    text.replace(at, end - at, std::string("\"iterations\":") + bad);
    MeasurementSet set;
    EXPECT_TRUE(contains(input_error_of([&] { parse_measurement_text(text, "j.json", set); }),
                         "\"iterations\" = "))
        << bad;
  }
}

// A -J document past the limits of a JSON file is refused naming the limit, before the JSON
// library builds it (it was read whole, twice, in 4 GB for 256 MB), not taken for another
// document.
TEST(MeasurementFileErrors, AnNcclTestsJsonDocumentPastTheValueLimitIsRefused) {
  std::string doc = read_text(data("constructed/nccl_allreduce_json_2node_from_cscs-docs.json"));
  const std::size_t config = doc.find("\"config\":{");
  ASSERT_NE(config, std::string::npos);
  std::string pad = "\"pad\":[0";
  for (std::int64_t i = 1; i < kMaxJsonValues; ++i) pad += ",0";
  doc.insert(config + std::string("\"config\":{").size(), pad + "],");
  MeasurementSet set;
  EXPECT_EQ(input_error_of([&] { parse_measurement_text(doc, "big.json", set); }),
            "big.json:1: more than 2097152 JSON values (the limit for a JSON file or JSON Lines "
            "record)");
}

// The document's config.ngpus (nccl-tests -g) is the series' GPUs per thread, with the
// warning the text log's nGpus gives.
TEST(MeasurementFormats, NcclTestsJsonGpusPerThread) {
  std::string doc = read_text(data("constructed/nccl_allreduce_json_2node_from_cscs-docs.json"));
  const std::size_t at = doc.find("\"ngpus\":1");
  ASSERT_NE(at, std::string::npos);
  doc.replace(at, std::string("\"ngpus\":1").size(), "\"ngpus\":2");
  MeasurementSet set;
  parse_measurement_text(doc, "g2.json", set);
  EXPECT_EQ(set.series.at(0).gpus_per_thread, 2);
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_TRUE(contains(set.warnings[0], "g2.json: nGpus 2: each thread of the run drives 2 GPUs"))
      << set.warnings[0];
}

// Launcher lines: -ppn, Open MPI's -N (per node) and --map-by ppr:K:node, srun's -N (nodes).
TEST(MeasurementFormats, LayoutFromTheLauncherLine) {
  const auto layout = [](const std::string& launcher) {
    MeasurementSet set;
    parse_measurement_text(launcher + "\n# OSU MPI Allreduce Latency Test v7.5\n"
                                      "# Size       Avg Latency(us)\n4   11.69\n8   15.34\n",
                           "l.txt", set);
    const MeasurementSeries& s = set.series.at(0);
    return std::tuple{s.ranks, s.nodes.value_or(0), s.ranks_per_node.value_or(0)};
  };
  EXPECT_EQ(layout("mpirun -np 64 -ppn 32 ./osu_allreduce"), std::tuple(64, 2, 32));
  EXPECT_EQ(layout("mpirun -n 144 -N 36 ./osu_allreduce"), std::tuple(144, 4, 36));
  EXPECT_EQ(layout("mpirun -np 64 --map-by ppr:32:node ./osu_allreduce"), std::tuple(64, 2, 32));
  EXPECT_EQ(layout("srun -N 2 --ntasks=64 ./osu_allreduce"), std::tuple(64, 2, 32));
  EXPECT_EQ(layout("srun -N2 -n 64 ./osu_allreduce"), std::tuple(64, 2, 32));
  EXPECT_EQ(layout("mpirun -np 64 ./osu_allreduce"), std::tuple(64, 0, 0));
}

// The NCCL a run used, where its log states it: an NCCL_DEBUG=INFO line (with or without
// Open MPI's rank tag), the header's nccl-library code (major x 10000 + minor x 100 + patch
// from 2.9, major x 1000 + minor x 100 + patch before) or -J's nccl_version. Empty otherwise.
TEST(MeasurementFormats, NcclVersionWhereTheLogStatesIt) {
  const auto version_of = [](const std::string& name) {
    return read(data(name)).series.at(0).nccl_version;
  };
  EXPECT_EQ(version_of("nccl/a100_2node_16gpu_aws-p4d_dlami.txt"), "2.23.4");
  EXPECT_EQ(version_of("nccl/h100_2node_16gpu_ib_nccl-tests-issue309_xe9680.txt"), "2.26.2");
  EXPECT_EQ(version_of("real-logs/"
                       "nccl_allreduce_oldformat_tagoutput_ncclinfo_16rank_p4d_aws-samples_aws-"
                       "efa-eks.txt"),
            "2.9.9");
  EXPECT_EQ(version_of("real-logs/nccl_allreduce_v2.18.2_gh200_2node_eth-cscs_cscs-docs.txt"),
            "2.30.7");
  EXPECT_EQ(version_of("constructed/nccl_allreduce_json_2node_from_cscs-docs.json"), "2.30.7");
  EXPECT_EQ(version_of("nccl/a100_1node_8gpu_ocitutorials.txt"), "");
  const auto from_text = [](const std::string& first_line) {
    MeasurementSet set;
    parse_measurement_text(
        first_line +
            "\n# Collective test starting: all_reduce_perf\n# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 "
            "iters: 20 validation: 1\n#  Rank  0 Pid 1 on a device  0 [0x07] A100\n#  Rank  1 "
            "Pid 2 on a device  1 [0x0a] A100\n#\n#                                                "
            "     out-of-place                       in-place\n#       size         count      "
            "type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
            "           8             2   float     sum    10.00    0.00    0.00  0e+00    "
            "10.00    0.00    0.00  0e+00\n",
        "v.txt", set);
    return set.series.at(0).nccl_version;
  };
  EXPECT_EQ(from_text("# nccl-tests version 2.13.6 nccl-headers=2708 nccl-library=2708"),
            "2.7.8");
  EXPECT_EQ(from_text("# nccl-tests version 2.19.4 nccl-headers=21903 nccl-library=21903"),
            "2.19.3");
  EXPECT_EQ(from_text("host:1:1 [0] NCCL INFO NCCL version 2.18.5+cuda12.2"), "2.18.5");
  EXPECT_EQ(from_text("# nccl-tests version 2.19.4 nccl-headers=1 nccl-library=1"), "");
  EXPECT_EQ(from_text("NCCL version 2.x"), "");
}

// ---- bounds of a log: its rows, its last line, the values of its fields ----

// `text` with the first word of its first table row (the size) replaced by `size`; `line` is
// set to that row's line.
std::string with_first_size(const std::string& text, const std::string& size, int& line) {
  std::istringstream in(text);
  std::string out;
  std::string l;
  line = 0;
  int number = 0;
  bool done = false;
  while (std::getline(in, l)) {
    ++number;
    const auto start = l.find_first_not_of(' ');
    if (!done && start != std::string::npos && l[start] >= '0' && l[start] <= '9') {
      const auto end = l.find(' ', start);
      l = l.substr(0, start) + size + l.substr(end);
      line = number;
      done = true;
    }
    out += l + "\n";
  }
  return out;
}

TEST(MeasurementFileErrors, ASizeThatIsNotAWholeNumberInRangeIsAnErrorInEveryLog) {
  for (const std::string log : {"nccl_all_reduce_perf.txt", "osu_latency.txt",
                                "osu_allreduce.txt", "imb_pingpong.txt", "imb_allreduce.txt"}) {
    for (const std::string size : {"nan", "1e308", "1e19", "1.5", "0x10", "1,000"}) {
      int line = 0;
      const std::string path =
          temp_file("size_" + log, with_first_size(read_text(data(log)), size, line));
      const std::string e = error_reading(path);
      const std::string expected =
          size == "1e308" || size == "1e19"
              ? "B is above the limit of 1 EB (1e18 B)"
              : "'" + size + "' in the ";
      EXPECT_TRUE(contains(e, path + ":" + std::to_string(line) + ": ")) << log << " " << e;
      EXPECT_TRUE(contains(e, expected)) << log << " " << size << ": " << e;
    }
  }
}

TEST(MeasurementFile, AnIncompleteLastLineIsLeftOutWithAWarning) {
  // The OSU log cut in its last row's time (351.67 written as 35), and nccl-tests' in a row.
  const std::string osu = temp_file(
      "osu_cut.txt", "# OSU MPI Latency Test v7.3\n# Size       Latency (us)\n"
                     "1                       1.60\n2                       1.62\n"
                     "4194304               35");
  const MeasurementSet set = read(osu);
  ASSERT_EQ(set.pingpong.size(), 2u);
  EXPECT_EQ(set.pingpong.back().bytes, 2.0);
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_EQ(set.warnings[0], osu + ":5: incomplete last line '4194304               35' (no "
                                   "line break at its end: the log was cut off while it was "
                                   "written); left out");
  std::string text = read_text(data("nccl_all_reduce_perf.txt"));
  text = text.substr(0, text.find("    33554432"));
  text += "    33554432       8388608     float     sum      -1    140";
  const std::string nccl = temp_file("nccl_cut.txt", text);
  const MeasurementSet n = read(nccl);
  EXPECT_EQ(n.collectives.size(), 11u);
  EXPECT_TRUE(std::any_of(n.warnings.begin(), n.warnings.end(), [&](const std::string& w) {
    return w.rfind(nccl + ":29: incomplete last line", 0) == 0;
  }));
  // A last comment without a line break holds no data: no warning.
  const std::string quiet = temp_file("osu_quiet.txt", read_text(data("osu_latency.txt")) + "# end");
  EXPECT_TRUE(read(quiet).warnings.empty());
}

TEST(MeasurementFileErrors, MeasuredValuesOutsideTheirRangesAreErrors) {
  std::string text = read_text(data("nccl_all_reduce_perf.txt"));
  const auto row = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return temp_file("nccl_range.txt", t);
  };
  const std::string first = "11.94    0.00    0.00";
  std::string path = row(first, "1e-320    0.00    0.00");
  EXPECT_EQ(error_reading(path), path + ":18: out-of-place time of 1e-320 us is outside the range "
                                        "of a measured time (0, or 1e-12 s to 1e6 s)");
  path = row(first, "11.94    1e308    0.00");
  EXPECT_EQ(error_reading(path), path + ":18: algbw of 1e308 GB/s is above the limit of 1e18 B/s");
  path = row(first, "11.94    0.00    2e9");
  EXPECT_EQ(error_reading(path), path + ":18: busbw of 2e9 GB/s is above the limit of 1e18 B/s");
}

TEST(MeasurementFileErrors, NcclGpusPerThreadIsACountWithinTheRanks) {
  const std::string text = read_text(data("nccl_all_reduce_perf.txt"));
  for (const std::string gpus : {"1000", "9", "0", "-1", "nan"}) {
    std::string t = text;
    t.replace(t.find("nGpus 8"), 7, "nGpus " + gpus);
    const std::string path = temp_file("nccl_gpus.txt", t);
    const std::string expected =
        gpus == "1000" || gpus == "9"
            ? path + ":3: nGpus " + gpus + " is more than the run's 8 ranks (every GPU of a "
                                           "thread is a rank)"
            : path + ":3: nGpus " + gpus + " is not a number of GPUs (a whole number from 1 to "
                                           "2^40)";
    EXPECT_EQ(error_reading(path), expected);
  }
}

TEST(MeasurementFileErrors, AnotherToolsRowInATableSaysItDoesNotBelong) {
  const std::string path = temp_file(
      "osu_mixed.txt", "# OSU MPI Latency Test v7.3\n# Size       Latency (us)\n1  1.60\n"
                       "8  2  float  sum  -1  11.73  0.00  0.00  0  11.69  0.00  0.00  0\n");
  EXPECT_EQ(error_reading(path),
            path + ":4: a row of 13 fields does not belong to this OSU table of 2 columns (size, "
                   "latency(us)): is another benchmark's output mixed into the log?");
}

TEST(MeasurementFileErrors, ALogOfMoreThanAMillionRowsIsRefused) {
  std::string text = "# OSU MPI Latency Test v7.3\n# Size       Latency (us)\n";
  text.reserve(12'000'000);
  for (int i = 0; i <= 1'000'000; ++i) text += "8 1.60\n";
  const std::string path = temp_file("osu_many.txt", text);
  EXPECT_EQ(error_reading(path),
            path + ":1000003: more than 1000000 table rows (the limit for a measurement log)");
  text.resize(text.size() - 7);
  EXPECT_EQ(read(temp_file("osu_many.txt", text)).pingpong.size(), 1'000'000u);
}

// A JSON Lines log holds at most 1,000,000 records, as a text log holds table rows (its end
// record is not one of them); every record is counted, a kind scalewall skips too.
TEST(MeasurementFileErrors, AJsonLinesLogOfMoreThanAMillionRecordsIsRefused) {
  std::string text =
      R"({"tool":"scalewall-mpi","command":"pingpong","kind":"measurement"})" "\n";
  text.reserve(20'000'000);
  for (int i = 0; i < 1'000'000; ++i) text += "{\"record\":\"note\"}\n";
  MeasurementSet set;
  parse_measurement_text(text + R"({"record":"end","status":"complete","records":1000000})" "\n",
                         "x.jsonl", set);
  ASSERT_EQ(set.warnings.size(), 1u);  // the kind skipped; the end record's count agrees
  EXPECT_TRUE(contains(set.warnings[0], "record kind \"note\" is not one scalewall reads"));
  text += "{\"record\":\"note\"}\n";
  EXPECT_EQ(text_error(text),
            "x.jsonl:1000002: more than 1000000 records (the limit for a measurement log)");
}

}  // namespace
}  // namespace scalewall
