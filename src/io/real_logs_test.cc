// Every log under tests/data (the public logs of real-logs/ and nccl/, the constructed ones of
// constructed/, the samples beside them) is either read with the figures it prints itself (bus
// bandwidth or time at the largest size, the rank count, the one-way time at the smallest
// size and the alpha fitted from the smallest sizes, the streamed bandwidth at the largest
// size) or refused with an error that says why and what to pass. A log found in those
// directories without a row here fails the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scalewall/analysis/calibrate.h"
#include "scalewall/base/error.h"
#include "scalewall/io/measurement.h"
#include "test_support.h"

namespace scalewall {
namespace {

// What the first collective series' figure at its largest size is: the bus bandwidth the log
// prints there (GB/s, out-of-place, within the rounding of its two decimals and the in-place
// run averaged in), or the time it prints (us).
enum class Printed { kNone, kBusbwGBps, kTimeUs };

struct RealLog {
  const char* file;       // under tests/data
  const char* refused;    // a part of the error; nullptr when the log is read
  std::size_t series;     // tables read
  Printed printed = Printed::kNone;
  double largest_bytes = 0;  // nccl-tests' size at the largest row
  double figure = 0;         // the printed busbw (GB/s) or time (us) there
  std::int64_t ranks = 0;    // of the first collective series; 0 when the log does not say
  std::optional<std::int64_t> nodes = std::nullopt;
  std::optional<std::int64_t> ranks_per_node = std::nullopt;
  double smallest_us = 0;    // ping-pong: the one-way time printed at the smallest size
  double largest_MBps = 0;   // streaming: the bandwidth printed at the largest size
};

// The printed busbw is out-of-place; the reader's is from the mean of the two runs' times:
// they differ by the spread between the runs, a few percent at most in these logs.
constexpr double kBusbwTolerance = 0.04;
// The alpha fitted from a sweep lies near the one-way time at its smallest sizes: within
// this fraction of it on every log here (a fit through the smallest sizes' times).
constexpr double kAlphaTolerance = 0.35;

const std::vector<RealLog>& real_logs() {
  static const std::vector<RealLog> logs = {
      // IMB Alltoall's #bytes is per peer too: nccl-tests' size is 192 times it.
      {"real-logs/imb_alltoall_2021.7_192proc_openmpi_oracle-japan_ocitutorials.txt", nullptr, 1,
       Printed::kTimeUs, 8388608.0 * 192, 1426296.45, 192},
      {"real-logs/imb_alltoallv_2017u2_macos_BlueBrain_hpcbench.txt",
       "section(s) Alltoallv skipped (scalewall reads PingPong", 0},
      {"real-logs/imb_pingpong_2017u2_macos_BlueBrain_hpcbench.txt", nullptr, 1, Printed::kNone,
       0, 0, 0, std::nullopt, std::nullopt, 0.18},
      {"real-logs/imb_pingpong_2019u5_alaska_ib_ukri-excalibur_excalibur-tests.txt", nullptr, 1,
       Printed::kNone, 0, 0, 0, std::nullopt, std::nullopt, 1.12},
      {"real-logs/imb_pingpong_2021.2_impi_lustre_Azure_azurehpc.txt", nullptr, 1,
       Printed::kNone, 0, 0, 0, std::nullopt, std::nullopt, 1.73},
      {"real-logs/nccl_allgather_oldformat_microsoft_superbenchmark.txt", nullptr, 1,
       Printed::kBusbwGBps, 8589934592, 223.39, 8, 1, 8},
      {"real-logs/nccl_allreduce_128rank_32node_v100_ucxnoise_aistabci_abci2.0benchmark.txt",
       nullptr, 1, Printed::kBusbwGBps, 33554432, 13.23, 128, 32, 4},
      {"real-logs/nccl_allreduce_oldformat_tagoutput_ncclinfo_16rank_p4d_aws-samples_aws-efa-eks.txt",
       nullptr, 1, Printed::kBusbwGBps, 4294967296, 43.81, 16, 2, 8},
      {"real-logs/nccl_allreduce_tagoutput_noheader_awsbatch_aws-samples_awsome-distributed-training.txt",
       nullptr, 1, Printed::kBusbwGBps, 17179869184, 483.05, 8},
      {"real-logs/nccl_allreduce_v2.17.1_gh200_8rank_indented_eth-cscs_cscs-docs.txt", nullptr,
       1, Printed::kBusbwGBps, 134217728, 122.57, 8, 2, 4},
      {"real-logs/nccl_allreduce_v2.18.2_gh200_2node_eth-cscs_cscs-docs.txt", nullptr, 1,
       Printed::kBusbwGBps, 134217728, 22.86, 2, 2, 1},
      {"real-logs/nccl_broadcast_16node_a100_aistabci_abci2.0benchmark.txt", nullptr, 1,
       Printed::kBusbwGBps, 33554432, 11.81, 128, 16, 8},
      {"real-logs/nccl_broadcast_oldformat_microsoft_superbenchmark.txt", nullptr, 1,
       Printed::kBusbwGBps, 8589934592, 232.81, 8, 1, 8},
      {"real-logs/nccl_reduce_oldformat_microsoft_superbenchmark.txt", nullptr, 1,
       Printed::kBusbwGBps, 8589934592, 228.38, 8, 1, 8},
      {"real-logs/nccl_reducescatter_oldformat_microsoft_superbenchmark.txt", nullptr, 1,
       Printed::kBusbwGBps, 8589934592, 231.52, 8, 1, 8},
      // No rank count in the file: read, and calibrate asks for --ranks (calibrate_cli_test).
      {"real-logs/osu_allreduce_v5.7_f_128rank_cpu_aistabci_abci2.0benchmark.txt", nullptr, 1,
       Printed::kTimeUs, 33554432, 149651.38, 0},
      {"real-logs/osu_allreduce_v7.5_144proc_mpirun-n_oracle-japan_ocitutorials.txt", nullptr, 1,
       Printed::kTimeUs, 268435456, 496306.98, 144, 4, 36},
      // osu_alltoall's Size is per peer: nccl-tests' size is 36 times it.
      {"real-logs/osu_alltoall_v7.5_36proc_oracle-japan_ocitutorials.txt", nullptr, 1,
       Printed::kTimeUs, 67108864.0 * 36, 747888.64, 36},
      {"real-logs/osu_bibw_v5.3.2_mvapich2_ib_hpc-cofc_generic-benchmarks.txt", nullptr, 1,
       Printed::kNone, 0, 0, 0, std::nullopt, std::nullopt, 0, 24320.34},
      {"real-logs/osu_bw_v7.5_validation_indented_eth-cscs_cscs-docs.txt", nullptr, 1,
       Printed::kNone, 0, 0, 0, std::nullopt, std::nullopt, 0, 23982.18},
      {"real-logs/osu_latency+bw_v7.5_onefile_singlenode_course-guide.txt", nullptr, 2,
       Printed::kNone, 0, 0, 0, std::nullopt, std::nullopt, 0.35, 6508.68},
      {"real-logs/osu_latency_v5.3.2_mvapich2_ib_hpc-cofc_generic-benchmarks.txt", nullptr, 1,
       Printed::kNone, 0, 0, 0, std::nullopt, std::nullopt, 1.07},
      {"real-logs/rccl_allreduce_mi300x_8rank_hisohara_ai-scripts.txt", nullptr, 1,
       Printed::kBusbwGBps, 8589934592, 315.69, 8, 1, 8},
      {"nccl/a100_1node_8gpu_ocitutorials.txt", nullptr, 1, Printed::kBusbwGBps, 8589934592,
       235.14, 8, 1, 8},
      {"nccl/a100_2node_16gpu_oci-hpc-oke.txt", nullptr, 1, Printed::kBusbwGBps, 8589934592,
       237.94, 16, 2, 8},
      {"nccl/h100_2node_16gpu_ocitutorials.txt", nullptr, 1, Printed::kBusbwGBps, 17179869184,
       464.57, 16, 2, 8},
      {"nccl/h100_1node_8gpu_nccl-tests-issue290.txt", nullptr, 1, Printed::kBusbwGBps,
       4294967296, 473.60, 8, 1, 8},
      // Two Open MPI help-message lines inside the table of the first.
      {"nccl/a100_1node_8gpu_np8_thanos.txt", nullptr, 1, Printed::kBusbwGBps, 4294967296,
       232.81, 8, 1, 8},
      {"nccl/a100_1node_8gpu_g8_thanos.txt", nullptr, 1, Printed::kBusbwGBps, 4294967296,
       232.44, 8, 1, 8},
      // nccl-tests 2.19.4's layout (wider #wrong, unalign in the nThread line).
      {"nccl/a100_1node_8gpu_g8_dkh.txt", nullptr, 1, Printed::kBusbwGBps, 134217728, 181.32, 8,
       1, 8},
      {"nccl/a100_1node_8gpu_g8_galvatron.txt", nullptr, 1, Printed::kBusbwGBps, 1073741824,
       230.84, 8, 1, 8},
      // NCCL INFO lines, '...' lines and a "some output truncated" line before the header.
      {"nccl/a100_2node_16gpu_aws-p4d_dlami.txt", nullptr, 1, Printed::kBusbwGBps, 1073741824,
       76.21, 16, 2, 8},
      // Two Open MPI help-message lines among the Rank lines, an "NCCL version" line after.
      {"nccl/h100_2node_16gpu_ib_nccl-tests-issue309_xe9680.txt", nullptr, 1,
       Printed::kBusbwGBps, 17179869184, 469.21, 16, 2, 8},
      {"nccl/h100_2node_16gpu_ib_nccl-tests-issue309_second-cluster.txt", nullptr, 1,
       Printed::kBusbwGBps, 8589934592, 466.73, 16, 2, 8},
      // Every row with srun's "0: " prefix, no nThread line and no device list: 16 ranks by
      // busbw / algbw (2 x 15/16), nodes unknown.
      {"nccl/h100_2node_16gpu_aws-p5_efa_awsome-distributed-training.txt", nullptr, 1,
       Printed::kBusbwGBps, 17179869184, 487.09, 16},
      // A newer nccl-tests header (side_work, work_sms, direction in the nThread line).
      {"nccl/h100_1node_8gpu_dgxc-benchmarking.txt", nullptr, 1, Printed::kBusbwGBps,
       17179869184, 479.90, 8, 1, 8},
      // Constructed from the public logs above (tests/data/constructed/README.md).
      {"constructed/nccl_allreduce_json_2node_from_cscs-docs.json", nullptr, 1,
       Printed::kBusbwGBps, 134217728, 22.86, 2, 2, 1},
      {"constructed/nccl_allreduce_srun-l_from_cscs-docs.txt", nullptr, 1, Printed::kBusbwGBps,
       134217728, 122.57, 8, 2, 4},
      {"constructed/nccl_two_runs_8rank_cscs+rccl.txt", nullptr, 2, Printed::kBusbwGBps,
       134217728, 122.57, 8, 2, 4},
      {"constructed/osu_launcher_five_tables.txt", nullptr, 4, Printed::kTimeUs, 32, 3.41, 4, 2,
       2, 1.07, 3.80},
      // The samples beside them.
      {"imb_allreduce.txt", nullptr, 2, Printed::kTimeUs, 4194304, 412.36, 2},
      {"imb_pingpong.txt", nullptr, 1, Printed::kNone, 0, 0, 0, std::nullopt, std::nullopt, 1.72},
      {"nccl_all_reduce_perf.txt", nullptr, 1, Printed::kBusbwGBps, 134217728, 440.68, 8, 1, 8},
      {"osu_allreduce.txt", nullptr, 1, Printed::kTimeUs, 1048576, 153.04, 4, 4, 1},
      {"osu_bw.txt", nullptr, 1, Printed::kNone, 0, 0, 0, std::nullopt, std::nullopt, 0,
       12019.77},
      {"osu_latency.txt", nullptr, 1, Printed::kNone, 0, 0, 0, std::nullopt, std::nullopt, 1.62},
      {"foreign.txt", "unknown measurement format", 0},
      {"truncated_nccl_all_reduce_perf.txt", "truncated table row", 0},
  };
  return logs;
}

std::string data(const std::string& name) {
  return std::string(SCALEWALL_SOURCE_DIR) + "/tests/data/" + name;
}

// The first series that holds collective points, and its points at their largest size.
std::vector<const CollectivePoint*> largest_of_first_series(const MeasurementSet& set) {
  if (set.collectives.empty()) return {};
  const std::size_t series = set.collectives.front().series;
  double largest = 0;
  for (const CollectivePoint& p : set.collectives) {
    if (p.series == series) largest = std::max(largest, p.bytes);
  }
  std::vector<const CollectivePoint*> at;
  for (const CollectivePoint& p : set.collectives) {
    if (p.series == series && p.bytes == largest) at.push_back(&p);
  }
  return at;
}

void check_collectives(const RealLog& log, const MeasurementSet& set) {
  const std::vector<const CollectivePoint*> at = largest_of_first_series(set);
  if (log.printed == Printed::kNone) {
    EXPECT_TRUE(at.empty()) << log.file;
    return;
  }
  ASSERT_FALSE(at.empty()) << log.file;
  const CollectivePoint& p = *at.front();
  const MeasurementSeries& s = set.series.at(p.series);
  EXPECT_DOUBLE_EQ(p.bytes, log.largest_bytes) << log.file;
  EXPECT_EQ(p.ranks, log.ranks) << log.file;
  EXPECT_EQ(s.ranks, log.ranks) << log.file;
  EXPECT_EQ(s.nodes, log.nodes) << log.file;
  EXPECT_EQ(s.ranks_per_node, log.ranks_per_node) << log.file;
  if (log.printed == Printed::kBusbwGBps) {
    EXPECT_NEAR(p.busbw_Bps / 1e9, log.figure, kBusbwTolerance * log.figure) << log.file;
  } else {
    EXPECT_NEAR(p.time_median_s * 1e6, log.figure, 1e-9 * log.figure) << log.file;
  }
}

void check_pingpong(const RealLog& log, const MeasurementSet& set) {
  if (log.smallest_us == 0) {
    EXPECT_TRUE(set.pingpong.empty()) << log.file;
    return;
  }
  ASSERT_FALSE(set.pingpong.empty()) << log.file;
  const auto smallest = std::min_element(
      set.pingpong.begin(), set.pingpong.end(),
      [](const PingPongPoint& a, const PingPongPoint& b) { return a.bytes < b.bytes; });
  EXPECT_NEAR(smallest->one_way_median_s * 1e6, log.smallest_us, 1e-9) << log.file;
  const PiecewiseFit fit = fit_piecewise(link_points(set), {}, std::nullopt);
  const double alpha_us = fit.regimes.front().fit.alpha_s * 1e6;
  EXPECT_NEAR(alpha_us, log.smallest_us, kAlphaTolerance * log.smallest_us) << log.file;
}

void check_streams(const RealLog& log) {
  const std::vector<StreamPoint> stream = read_stream_points(data(log.file));
  if (log.largest_MBps == 0) {
    EXPECT_TRUE(stream.empty()) << log.file;
    return;
  }
  ASSERT_FALSE(stream.empty()) << log.file;
  // osu_bw's points when the log has them (the gap is fitted to those), else the log's.
  std::vector<StreamPoint> bw;
  for (const StreamPoint& p : stream) {
    if (p.benchmark == "osu_bw") bw.push_back(p);
  }
  if (bw.empty()) bw = stream;
  const auto largest = std::max_element(
      bw.begin(), bw.end(),
      [](const StreamPoint& a, const StreamPoint& b) { return a.bytes < b.bytes; });
  EXPECT_NEAR(largest->bandwidth_Bps / 1e6, log.largest_MBps, 1e-6 * log.largest_MBps)
      << log.file;
}

TEST(RealLogs, EachIsReadWithItsOwnFiguresOrRefusedSayingWhy) {
  for (const RealLog& log : real_logs()) {
    SCOPED_TRACE(log.file);
    if (log.refused != nullptr) {
      const std::string error = input_error_of([&] {
        MeasurementSet set;
        read_measurement_file(data(log.file), set);
      });
      EXPECT_TRUE(contains(error, log.refused)) << error;
      continue;
    }
    MeasurementSet set;
    read_measurement_file(data(log.file), set);
    EXPECT_EQ(set.series.size(), log.series);
    for (const MeasurementSeries& s : set.series) {
      EXPECT_TRUE(contains(s.label, data(log.file))) << s.label;
    }
    check_collectives(log, set);
    check_pingpong(log, set);
    check_streams(log);
  }
}

// Every log file of the directories has its row: none is left untested.
TEST(RealLogs, EveryLogOfTestsDataHasARow) {
  std::set<std::string> listed;
  for (const RealLog& log : real_logs()) listed.insert(log.file);
  namespace fs = std::filesystem;
  const fs::path root = data("");
  for (const char* dir : {"real-logs", "nccl", "constructed", "."}) {
    for (const auto& entry : fs::directory_iterator(root / dir)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".txt" && ext != ".json")) continue;
      const std::string name = fs::relative(entry.path(), root).generic_string();
      EXPECT_TRUE(listed.count(name) == 1) << name << " has no row in real_logs()";
    }
  }
}

}  // namespace
}  // namespace scalewall
