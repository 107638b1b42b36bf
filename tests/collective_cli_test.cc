// End-to-end tests of `scalewall collective` (seed D01 Lab 3): the real executable, its output
// formats and its exit codes.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(CollectiveCli, JsonEnvelopeAndInputs) {
  const auto j = run_json({"collective", "--ranks", "64", "--bytes", "4096"});
  EXPECT_EQ(j["tool"], "scalewall");
  EXPECT_TRUE(j["version"].is_string());
  EXPECT_EQ(j["command"], "collective");
  EXPECT_EQ(j["kind"], "model");
  const auto& in = j["inputs"];
  EXPECT_EQ(in["op"], "allreduce");
  EXPECT_EQ(in["ranks"], 64);
  EXPECT_DOUBLE_EQ(in["bytes"].get<double>(), 4096.0);
  EXPECT_NEAR(in["alpha_s"].get<double>(), 2.5e-6, 1e-18);
  EXPECT_DOUBLE_EQ(in["bandwidth_Bps"].get<double>(), 25e9);
  EXPECT_EQ(in["gamma_s_per_byte"].get<double>(), 0.0);
  // --algorithms all (the default) on a flat link: every flat all-reduce algorithm.
  EXPECT_EQ(in["algorithms"],
            nlohmann::json::parse(R"(["ring","recursive-doubling","rabenseifner",
                                      "binomial-tree","double-binary-tree"])"));

  const auto& algorithms = j["algorithms"];
  ASSERT_EQ(algorithms.size(), 5u);
  for (const auto& a : algorithms) {
    for (const char* key : {"name", "steps", "bytes_per_rank", "latency_s", "bandwidth_s",
                            "compute_s", "total_s", "busbw_Bps", "tie_with_winner_bytes"}) {
      EXPECT_TRUE(a.contains(key)) << key;
    }
  }
  for (std::size_t i = 1; i < algorithms.size(); ++i) {
    EXPECT_LE(algorithms[i - 1]["total_s"].get<double>(), algorithms[i]["total_s"].get<double>());
  }
  // busbw in the nccl-tests convention: m / total x 2(N-1)/N.
  const auto& best = algorithms[0];
  EXPECT_NEAR(best["busbw_Bps"].get<double>(),
              4096.0 / best["total_s"].get<double>() * 2.0 * 63.0 / 64.0, 1e-3);
  EXPECT_TRUE(best["tie_with_winner_bytes"].is_null());
}

// Lab 3: at 64 ranks the two invocations pick different winners, between the seed's two
// algorithms and among all of them (where Rabenseifner's halving-doubling moves the ring's
// bytes in 2 log2 N steps instead of 2(N-1)).
TEST(CollectiveCli, Lab3WinnersDiffer) {
  const auto small = run_json({"collective", "--ranks", "64", "--bytes", "4096", "--algorithms",
                               "ring,recursive-doubling"});
  const auto large = run_json({"collective", "--ranks", "64", "--bytes", "1073741824",
                               "--algorithms", "ring,recursive-doubling"});
  EXPECT_EQ(small["winner"], "recursive-doubling");
  EXPECT_EQ(large["winner"], "ring");
  const auto small_all = run_json({"collective", "--ranks", "64", "--bytes", "4096"});
  const auto large_all = run_json({"collective", "--ranks", "64", "--bytes", "1073741824"});
  EXPECT_EQ(small_all["winner"], "recursive-doubling");
  EXPECT_EQ(large_all["winner"], "rabenseifner");
  EXPECT_DOUBLE_EQ(large_all["algorithms"][0]["bytes_per_rank"].get<double>(),
                   1073741824.0 * 126.0 / 64.0);
  EXPECT_EQ(large_all["algorithms"][0]["steps"], 12);
  EXPECT_EQ(small["algorithms"][0]["name"], "recursive-doubling");
  EXPECT_EQ(small["algorithms"][0]["steps"], 6);
  EXPECT_DOUBLE_EQ(small["algorithms"][0]["bytes_per_rank"].get<double>(), 6.0 * 4096);
  EXPECT_EQ(large["algorithms"][0]["name"], "ring");
  EXPECT_EQ(large["algorithms"][0]["steps"], 126);
  EXPECT_DOUBLE_EQ(large["algorithms"][0]["bytes_per_rank"].get<double>(),
                   1073741824.0 * 126.0 / 64.0);
}

// The tie at 64 ranks is 120 alpha / (beta (6 - 126/64)), about 1.86 MB; at 512 ranks it is
// larger (about 9.04 MB), so the choice cannot be a constant.
TEST(CollectiveCli, TieMovesWithRankCount) {
  const auto at64 = run_json({"collective", "--ranks", "64", "--bytes", "1MB"});
  const auto at512 = run_json({"collective", "--ranks", "512", "--bytes", "1MB"});
  ASSERT_TRUE(at64["tie_bytes"].is_number());
  ASSERT_TRUE(at512["tie_bytes"].is_number());
  const double tie64 = at64["tie_bytes"].get<double>();
  EXPECT_NEAR(tie64, 120.0 * 2.5e-6 * 25e9 / (6.0 - 126.0 / 64.0), 1e-3);
  EXPECT_LT(tie64, at512["tie_bytes"].get<double>());
  // Either side of the printed tie, the winner differs.
  const auto below = run_json({"collective", "--ranks", "64", "--bytes", "1860000",
                               "--algorithms", "ring,recursive-doubling"});
  const auto above = run_json({"collective", "--ranks", "64", "--bytes", "1861000",
                               "--algorithms", "ring,recursive-doubling"});
  EXPECT_EQ(below["winner"], "recursive-doubling");
  EXPECT_EQ(above["winner"], "ring");
}

TEST(CollectiveCli, OneRankCostsZero) {
  const auto j = run_json({"collective", "--ranks", "1", "--bytes", "1GB"});
  for (const auto& a : j["algorithms"]) {
    EXPECT_EQ(a["steps"], 0);
    EXPECT_EQ(a["total_s"].get<double>(), 0.0);
    EXPECT_EQ(a["latency_s"].get<double>(), 0.0);
    EXPECT_EQ(a["bandwidth_s"].get<double>(), 0.0);
  }
  EXPECT_TRUE(j["tie_bytes"].is_null());
  const CliResult table = run_scalewall({"collective", "--ranks", "1", "--bytes", "1GB"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("none (N = 1"), std::string::npos) << table.out;
}

TEST(CollectiveCli, TwoRanksHaveNoTie) {
  const auto j = run_json({"collective", "--ranks", "2", "--bytes", "1GB"});
  EXPECT_TRUE(j["tie_bytes"].is_null());
  EXPECT_EQ(j["winner"], "recursive-doubling");
}

TEST(CollectiveCli, AlgorithmListAndGamma) {
  const auto ring = run_json({"collective", "--ranks", "13", "--bytes", "4096", "--algorithms",
                              "ring"});
  ASSERT_EQ(ring["algorithms"].size(), 1u);
  EXPECT_EQ(ring["winner"], "ring");
  EXPECT_EQ(ring["algorithms"][0]["steps"], 24);
  EXPECT_EQ(ring["inputs"]["algorithms"], nlohmann::json::parse(R"(["ring"])"));

  // N = 13 folds in to p = 8: 3 + 2 steps; gamma charged on m (3 + 1) reduced bytes.
  const auto rd = run_json({"collective", "--ranks", "13", "--bytes", "1000", "--algorithms",
                            "recursive-doubling", "--gamma", "1ns"});
  EXPECT_EQ(rd["algorithms"][0]["steps"], 5);
  EXPECT_DOUBLE_EQ(rd["algorithms"][0]["bytes_per_rank"].get<double>(), 5000.0);
  EXPECT_NEAR(rd["algorithms"][0]["compute_s"].get<double>(), 4000 * 1e-9, 1e-18);
  EXPECT_NEAR(rd["inputs"]["gamma_s_per_byte"].get<double>(), 1e-9, 1e-24);
}

TEST(CollectiveCli, TableShowsWinnerAndTie) {
  const CliResult r = run_scalewall({"collective", "--ranks", "64", "--bytes", "4096"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[0], "# MODEL: analytic prediction, not a measurement");
  bool winner_marked = false;
  for (const std::string& line : lines) {
    if (line.rfind("recursive-doubling", 0) == 0 &&
        line.find("<-- winner") != std::string::npos) {
      winner_marked = true;
    }
  }
  EXPECT_TRUE(winner_marked) << r.out;
  EXPECT_NE(r.out.find("1.86 MB"), std::string::npos) << r.out;
}

TEST(CollectiveCli, CsvHasAHeaderRowOfKeys) {
  const CliResult r = run_scalewall({"collective", "--ranks", "8", "--bytes", "1000",
                                     "--algorithms", "ring,recursive-doubling", "--format",
                                     "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0],
            "name,steps,bytes_per_rank,latency_s,bandwidth_s,compute_s,total_s,busbw_Bps,"
            "tie_with_winner_bytes");
  EXPECT_EQ(lines[1].rfind("recursive-doubling,3,3000,", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("ring,14,1750,", 0), 0u) << lines[2];
}

TEST(CollectiveCli, HelpTeachesWithLab3) {
  const CliResult r = run_scalewall({"collective", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--ranks 64 --bytes 4096"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--ranks 64 --bytes 1GiB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--fabric"), std::string::npos) << r.out;
}

struct BadCase {
  std::vector<std::string> args;
  std::string named;  // text the error message must contain
};

TEST(CollectiveCli, BadInputExitsTwoNamingTheValue) {
  const std::vector<BadCase> cases = {
      {{"collective", "--bytes", "4096"}, "--ranks"},
      {{"collective", "--ranks", "64"}, "--bytes"},
      {{"collective", "--ranks", "0", "--bytes", "4096"}, "--ranks"},
      {{"collective", "--ranks", "-4", "--bytes", "4096"}, "--ranks"},
      {{"collective", "--ranks", "1099511627777", "--bytes", "4096"}, "--ranks"},
      {{"collective", "--ranks", "6.5", "--bytes", "4096"}, "6.5"},
      {{"collective", "--ranks", "64", "--bytes", "-1"}, "--bytes"},
      {{"collective", "--ranks", "64", "--bytes", "1e999"}, "--bytes"},
      {{"collective", "--ranks", "64", "--bytes", "1e308"}, "--bytes"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--alpha", "0"}, "--alpha"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--bandwidth", "0"}, "--bandwidth"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--gamma", "-1ns"}, "--gamma"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--algorithms", "tree"}, "tree"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--algorithms", "ring,ring"},
       "--algorithms"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--algorithms", "ring,"},
       "--algorithms"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--op", "scan"}, "scan"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--op", "broadcast", "--algorithms",
        "ring"},
       "'ring' does not implement broadcast"},
      {{"collective", "--ranks", "64", "--op", "all-to-all"}, "--bytes"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--chunk", "0"}, "--chunk"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--selector", "intel"}, "intel"},
      {{"collective", "--bytes", "4096", "--fabric", "no/such/fabric.toml"}, "no/such/fabric.toml"},
      {{"collective", "--ranks", "12", "--bytes", "4096", "--fabric",
        source_path("examples/fabrics/dgx-h100-ndr.toml")},
       "12 ranks"},
      {{"collective", "--bytes", "4096", "--fabric",
        source_path("examples/fabrics/dgx-h100-ndr.toml"), "--placement", "diagonal"},
       "diagonal"},
      {{"collective", "--bytes", "4096", "--fabric",
        source_path("examples/fabrics/dgx-h100-ndr.toml"), "--oversubscription", "0.5"},
       "oversubscription"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--format", "yaml"}, "yaml"},
      {{"collective", "--ranks", "64", "--bytes", "4096", "--nodes", "2"}, "--nodes"},
  };
  for (const BadCase& c : cases) {
    const CliResult r = run_scalewall(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += " " + a;
    EXPECT_EQ(r.exit_code, 2) << joined << "\nstderr: " << r.err;
    EXPECT_EQ(r.err.rfind("error:", 0), 0u) << joined << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(c.named), std::string::npos) << joined << "\nstderr: " << r.err;
    EXPECT_TRUE(r.out.empty()) << joined << "\nstdout: " << r.out;
  }
}

TEST(CollectiveCli, EveryOpHasAWinner) {
  for (const char* op : {"allreduce", "reduce-scatter", "all-gather", "broadcast", "reduce",
                         "all-to-all", "barrier", "allgather", "alltoall", "bcast"}) {
    const auto j = run_json({"collective", "--op", op, "--ranks", "24", "--bytes", "1MB"});
    EXPECT_TRUE(j["winner"].is_string()) << op;
    EXPECT_GE(j["algorithms"].size(), 1u) << op;
  }
  // The barrier moves nothing: latency only, and no bus bandwidth.
  const auto barrier = run_json({"collective", "--op", "barrier", "--ranks", "24"});
  EXPECT_EQ(barrier["winner"], "dissemination");
  EXPECT_EQ(barrier["algorithms"][0]["steps"], 5);  // ceil(log2 24)
  EXPECT_DOUBLE_EQ(barrier["algorithms"][0]["total_s"].get<double>(), 5 * 2.5e-6);
  EXPECT_TRUE(barrier["algorithms"][0]["busbw_Bps"].is_null());
  EXPECT_TRUE(barrier.contains("tie_bytes") == false);
}

TEST(CollectiveCli, FabricFileAndOverrides) {
  const std::string dgx = source_path("examples/fabrics/dgx-h100-ndr.toml");
  const auto j = run_json({"collective", "--fabric", dgx, "--bytes", "1GB"});
  EXPECT_EQ(j["inputs"]["ranks"], 128);  // 16 nodes x 8
  const auto& fabric = j["inputs"]["fabric"];
  EXPECT_EQ(fabric["name"], "dgx-h100-ndr");
  EXPECT_EQ(fabric["nominal"], true);
  EXPECT_DOUBLE_EQ(fabric["inter"]["bandwidth_Bps"].get<double>(), 50e9);  // 400 Gb/s
  EXPECT_DOUBLE_EQ(fabric["intra"]["bandwidth_Bps"].get<double>(), 450e9);
  // Hierarchical variants appear on a multi-node fabric, and beat the flat ring at 1 GB:
  // the flat ring is paced by its inter-node edges, the hierarchical one moves m/8 across.
  double flat_ring = 0;
  double hier_ring = 0;
  for (const auto& a : j["algorithms"]) {
    if (a["name"] == "ring") flat_ring = a["total_s"].get<double>();
    if (a["name"] == "hierarchical-ring") hier_ring = a["total_s"].get<double>();
  }
  ASSERT_GT(flat_ring, 0);
  ASSERT_GT(hier_ring, 0);
  EXPECT_LT(hier_ring, flat_ring / 3);
  // Flat ring: 2(N-1) steps, each paced by an inter-node edge: 3 us + (1 GB/128) / 50 GB/s.
  EXPECT_NEAR(flat_ring, 254 * (3e-6 + 1e9 / 128 / 50e9), 1e-9);

  // --ranks scales the fabric to whole nodes; flags override the file.
  const auto small = run_json({"collective", "--fabric", dgx, "--ranks", "32", "--bytes", "1GB",
                               "--algorithms", "ring", "--bandwidth", "100Gb/s"});
  EXPECT_EQ(small["inputs"]["fabric"]["nodes"], 4);
  EXPECT_DOUBLE_EQ(small["inputs"]["fabric"]["inter"]["bandwidth_Bps"].get<double>(), 12.5e9);
  EXPECT_NEAR(small["algorithms"][0]["total_s"].get<double>(),
              62 * (3e-6 + 1e9 / 32 / 12.5e9), 1e-9);

  // Scattered placement with one NIC: every ring edge crosses nodes and the node's 8 ranks
  // share one NIC, so each step's inter-node bandwidth is 50 GB/s / 8.
  const auto scattered =
      run_json({"collective", "--fabric", dgx, "--ranks", "32", "--bytes", "1GB", "--algorithms",
                "ring", "--placement", "scattered", "--nics-per-node", "1"});
  EXPECT_EQ(scattered["inputs"]["fabric"]["placement"], "scattered");
  EXPECT_NEAR(scattered["algorithms"][0]["total_s"].get<double>(),
              62 * (3e-6 + 1e9 / 32 / (50e9 / 8)), 1e-9);
}

// A fabric file may be called anything: one named "flat" is still a two-level fabric in the
// inputs, the title and the notes, not a flat link.
TEST(CollectiveCli, AFabricNamedFlatIsAFabric) {
  const std::string fabric = write_temp_file(
      "named-flat.toml",
      "name = \"flat\"\nnodes = 2\nranks_per_node = 4\nnics_per_node = 4\n"
      "[intra]\nalpha = \"2us\"\nbandwidth = \"450GB/s\"\n"
      "[inter]\nalpha = \"3us\"\nbandwidth = \"50GB/s\"\n");
  const auto j = run_json({"collective", "--fabric", fabric, "--bytes", "1MB"});
  EXPECT_FALSE(j["inputs"].contains("alpha_s")) << j["inputs"].dump();
  EXPECT_EQ(j["inputs"]["fabric"]["name"], "flat");
  EXPECT_EQ(j["inputs"]["fabric"]["ranks_per_node"], 4);
  const CliResult table = run_scalewall({"collective", "--fabric", fabric, "--bytes", "1MB"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("fabric flat (nominal figures): 2 nodes x 4 ranks"), std::string::npos)
      << table.out;
  EXPECT_EQ(table.out.find("flat link:"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("link figures are nominal"), std::string::npos) << table.out;
}

// A calibrated CPU fabric with working_set_ranks prices a step at the memory the call touches
// (docs/models.md, "The working set"): one node of 2 ranks, 2 us + m / 10 GB/s below 2.1 MB
// and m / 5 GB/s from there, a copy of 0.02 ns/B below 2.1 MB and 0.1 ns/B from there.
// Recursive doubling of 2 MB touches 6 MB per rank, a working set of 3 MB: 400 us of
// exchange and 200 us of copy, against 202 us and 40 us without the key; the note says so.
TEST(CollectiveCli, WorkingSetRanksPriceTheMemoryTheCallTouches) {
  const std::string links =
      "nodes = 1\nranks_per_node = 2\ncopy = \"0.02ns\"\n"
      "[[copy_regimes]]\nfrom = \"2.1MB\"\ncopy = \"0.1ns\"\n"
      "[intra]\nalpha = \"2us\"\nbandwidth = \"10GB/s\"\n"
      "[[intra.regimes]]\nfrom = \"2.1MB\"\nalpha = \"1ns\"\nbandwidth = \"5GB/s\"\n"
      "[inter]\nalpha = \"2us\"\nbandwidth = \"10GB/s\"\n";
  const std::string on = write_temp_file("working-set-on.toml", "working_set_ranks = 2\n" + links);
  const std::string off = write_temp_file("working-set-off.toml", links);
  const std::vector<std::string> args = {"--bytes", "2MB", "--algorithms", "recursive-doubling"};
  std::vector<std::string> with = {"collective", "--fabric", on};
  std::vector<std::string> without = {"collective", "--fabric", off};
  with.insert(with.end(), args.begin(), args.end());
  without.insert(without.end(), args.begin(), args.end());
  const auto j = run_json(with);
  const auto k = run_json(without);
  EXPECT_NEAR(j["algorithms"][0]["total_s"].get<double>(), 600e-6, 1e-9) << j.dump();
  EXPECT_NEAR(k["algorithms"][0]["total_s"].get<double>(), 242e-6, 1e-12) << k.dump();
  EXPECT_EQ(j["inputs"]["fabric"]["working_set_ranks"], 2) << j["inputs"].dump();
  EXPECT_FALSE(k["inputs"]["fabric"].contains("working_set_ranks")) << k["inputs"].dump();
  const CliResult table = run_scalewall(with);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("# The working set (working_set_ranks = 2"), std::string::npos)
      << table.out;
  const CliResult plain = run_scalewall(without);
  EXPECT_EQ(plain.out.find("working set"), std::string::npos) << plain.out;
}

TEST(CollectiveCli, LogGPFabricChargesTheGap) {
  const auto j = run_json({"collective", "--fabric",
                           source_path("examples/fabrics/tcp-100gbe-loggp.toml"), "--bytes",
                           "0", "--algorithms", "ring", "--placement", "scattered"});
  // Scattered: all 16 ranks of a node cross at once through 1 NIC, so each step waits 15
  // gaps of 8 us on top of alpha = L + 2o = 25 us.
  const double step = 25e-6 + 15 * 8e-6;
  EXPECT_NEAR(j["algorithms"][0]["latency_s"].get<double>(), 254 * step, 1e-12);
  EXPECT_NEAR(j["inputs"]["fabric"]["inter"]["gap_s"].get<double>(), 8e-6, 1e-18);
}


// A large fabric is costed in closed form: a million and 2^40 ranks answer with a finite cost
// for every algorithm (all-to-all's pairwise too), on both placements.
TEST(CollectiveCli, LargeFabricAnswers) {
  const std::string dgx = source_path("examples/fabrics/dgx-h100-ndr.toml");
  for (const std::string ranks : {"1048576", "1099511627776"}) {
    for (const std::string op : {"allreduce", "all-to-all", "broadcast"}) {
      for (const std::string placement : {"packed", "scattered"}) {
        const auto j = run_json({"collective", "--fabric", dgx, "--ranks", ranks, "--bytes",
                                 "1GB", "--op", op, "--placement", placement});
        EXPECT_EQ(j["inputs"]["ranks"].dump(), ranks);
        ASSERT_GE(j["algorithms"].size(), 2u) << op;
        for (const auto& a : j["algorithms"]) {
          EXPECT_GT(a["total_s"].get<double>(), 0.0) << op << " " << a["name"];
        }
      }
    }
  }
}

// An explicit rank_to_node list is costed edge by edge; pairwise all-to-all on 8192 ranks
// would visit 6.7e7 edges, beyond the limit: refused at once, naming the count and the limit.
TEST(CollectiveCli, ExplicitPlacementBeyondTheEdgeLimitIsRefused) {
  std::string list;
  for (int r = 0; r < 8192; ++r) list += (r == 0 ? "" : ",") + std::to_string(r / 8);
  const std::string fabric = write_temp_file(
      "explicit-8192.toml",
      "name = \"explicit\"\nnodes = 1024\nranks_per_node = 8\nnics_per_node = 8\n"
      "rank_to_node = [" + list + "]\n"
      "[intra]\nalpha = \"2us\"\nbandwidth = \"450GB/s\"\n"
      "[inter]\nalpha = \"3us\"\nbandwidth = \"50GB/s\"\n");
  const CliResult r = run_scalewall({"collective", "--fabric", fabric, "--bytes", "1MB", "--op",
                                     "all-to-all", "--algorithms", "pairwise"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("8192 ranks"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("limit of 1e+06"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  // The ranks are the fabric's: it is named, not --bytes, which was given but is not the
  // cause; with --ranks given, --ranks is.
  EXPECT_EQ(r.err.rfind("error: fabric '" + fabric + "': 8192 ranks", 0), 0U) << r.err;
  const CliResult n = run_scalewall({"collective", "--fabric", fabric, "--ranks", "8192",
                                     "--bytes", "1MB", "--op", "all-to-all", "--algorithms",
                                     "pairwise"});
  EXPECT_EQ(n.err.rfind("error: --ranks: 8192 ranks", 0), 0U) << n.err;
  // Bruck visits only C N edges: it answers on the same list.
  const CliResult b = run_scalewall({"collective", "--fabric", fabric, "--bytes", "1MB", "--op",
                                     "all-to-all", "--algorithms", "bruck"});
  EXPECT_EQ(b.exit_code, 0) << b.err;
}

}  // namespace
// On a GPU fabric NCCL's choice is the default: every (NCCL_ALGO, NCCL_PROTO) it considers,
// cheapest first. Two DGX H100 nodes at 1 GiB: NVLSTree/Simple (nccl_test.cc has the figures).
// Two p5 nodes: the 32 EFA NICs are priced as NCCL sees them (8 devices of 50 GB/s), which a
// note says, and a hop at the 20 us of aws-ofi-nccl's tuner: at 8 B, Tree LL, 2 hops of 20 us
// in place of the reported 75 us, -110 us. One node has no network: neither.
TEST(CollectiveCli, P5NicsAndHopsAsNcclSeesThem) {
  const std::string grouped = "# NCCL sees the node's 32 NICs of 12.5 GB/s as 8 network devices "
                              "of 50 GB/s, one per GPU";
  const CliResult table =
      run_scalewall({"collective", "--fabric", "aws-p5", "--ranks", "16", "--bytes", "8"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(grouped), std::string::npos) << table.out;
  const auto two = run_json({"collective", "--fabric", "aws-p5", "--ranks", "16", "--bytes", "8"});
  EXPECT_EQ(two["nccl_algorithm"], "Tree");
  EXPECT_EQ(two["nccl_protocol"], "LL");
  EXPECT_NEAR(two["nccl"][0]["net_hop_s"].get<double>(), -110e-6, 1e-12);
  const CliResult one_table =
      run_scalewall({"collective", "--fabric", "aws-p5", "--ranks", "8", "--bytes", "8"});
  EXPECT_EQ(one_table.out.find("NCCL sees the node's"), std::string::npos) << one_table.out;
  const auto one = run_json({"collective", "--fabric", "aws-p5", "--ranks", "8", "--bytes", "8"});
  EXPECT_EQ(one["nccl"][0]["net_hop_s"].get<double>(), 0.0);
}

TEST(CollectiveCli, GpuFabricShowsNcclsPick) {
  const auto j = run_json({"collective", "--fabric", "dgx-h100", "--ranks", "16", "--bytes",
                           "1GiB"});
  EXPECT_EQ(j["inputs"]["selector"], "nccl");
  EXPECT_EQ(j["nccl_algorithm"], "NVLSTree");
  EXPECT_EQ(j["nccl_protocol"], "Simple");
  const auto& rows = j["nccl"];
  ASSERT_EQ(rows.size(), 7u);  // NVLSTree/Simple, Ring and Tree x LL, LL128, Simple
  EXPECT_EQ(rows[0]["algorithm"], "NVLSTree");
  EXPECT_EQ(rows[0]["channels"], 8);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_GE(rows[i]["nccl_estimate_s"].get<double>(),
              rows[i - 1]["nccl_estimate_s"].get<double>());
  }
  for (const auto& r : rows) {
    EXPECT_NEAR(r["total_s"].get<double>(),
                r["nccl_estimate_s"].get<double>() + r["fill_s"].get<double>(), 1e-12);
    EXPECT_EQ(r["launch_s"].get<double>(), 0.0);
    EXPECT_EQ(r["slice_sync_s"].get<double>(), 0.0);  // two nodes: no slice syncs
    EXPECT_EQ(r["peer_write_s"].get<double>(), 0.0);  // nor peer writes (and Hopper)
  }
  // 8 bytes on one DGX A100: Ring/LL, 15 us (NCCL's 6.6 us base + 14 NVLink hops of 0.6 us).
  const auto small =
      run_json({"collective", "--fabric", "dgx-a100", "--bytes", "8"});
  EXPECT_EQ(small["nccl_algorithm"], "Ring");
  EXPECT_EQ(small["nccl_protocol"], "LL");
  EXPECT_NEAR(small["nccl"][0]["latency_s"].get<double>(), 15e-6, 1e-12);
  const CliResult csv = run_scalewall(
      {"collective", "--fabric", "dgx-a100", "--bytes", "1GiB", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(lines_of(csv.out).at(0),
            "algorithm,protocol,channels,latency_s,bandwidth_Bps,bandwidth_s,nccl_estimate_s,"
            "fill_s,slice_sync_s,peer_write_s,launch_s,net_hop_s,total_s,busbw_Bps");
  EXPECT_EQ(lines_of(csv.out).at(1).rfind("Ring,Simple,12,", 0), 0u) << csv.out;
  // One node, 1 GiB: the ring's three loops of two slices pay 5 x 14 x 3.4 us beyond NCCL's
  // latency (nccl_test.cc).
  const auto one_node = run_json({"collective", "--fabric", "dgx-a100", "--bytes", "1GiB"});
  const auto& pick = one_node["nccl"][0];
  EXPECT_NEAR(pick["slice_sync_s"].get<double>(), 238e-6, 1e-12);
  EXPECT_NEAR(pick["total_s"].get<double>(),
              pick["nccl_estimate_s"].get<double>() + pick["slice_sync_s"].get<double>(), 1e-12);
  EXPECT_EQ(pick["peer_write_s"].get<double>(), 0.0);  // Simple reads its peer
  // 16 MiB there is Ring LL128, whose lines are written into the peer at 0.77 x 240 x 120/128
  // GB/s of bus bandwidth where NCCL prices 220.8 (nccl_test.cc).
  const auto ll128 = run_json({"collective", "--fabric", "dgx-a100", "--bytes", "16MiB"});
  EXPECT_EQ(ll128["nccl_protocol"], "LL128");
  EXPECT_NEAR(ll128["nccl"][0]["peer_write_s"].get<double>(),
              16 * 1048576.0 * 14 / 8 * (1 / (0.77 * 240e9 * 120 / 128) - 1 / 220.8e9), 1e-12);
  const CliResult table =
      run_scalewall({"collective", "--fabric", "dgx-a100", "--bytes", "1GiB"});
  EXPECT_NE(table.out.find("NCCL_ALGO"), std::string::npos);
  EXPECT_NE(table.out.find("<-- NCCL's pick"), std::string::npos);
}

// --gpus-per-thread 8 (nccl-tests -g 8): every candidate pays 7 launches of 4 us; the pick is
// NCCL's own; more GPUs per thread than ranks, or an MPI selector, is an error naming the flag.
TEST(CollectiveCli, GpusPerThreadAddsTheLaunches) {
  const auto plain = run_json({"collective", "--fabric", "dgx-a100", "--bytes", "1MiB"});
  const auto grouped = run_json(
      {"collective", "--fabric", "dgx-a100", "--bytes", "1MiB", "--gpus-per-thread", "8"});
  EXPECT_EQ(grouped["inputs"]["gpus_per_thread"], 8);
  EXPECT_EQ(grouped["nccl_algorithm"], plain["nccl_algorithm"]);
  EXPECT_NEAR(grouped["total_s"].get<double>(), plain["total_s"].get<double>() + 28e-6, 1e-12);
  for (const auto& r : grouped["nccl"]) EXPECT_NEAR(r["launch_s"].get<double>(), 28e-6, 1e-15);
  const CliResult many = run_scalewall(
      {"collective", "--fabric", "dgx-a100", "--bytes", "1MiB", "--gpus-per-thread", "9"});
  EXPECT_NE(many.exit_code, 0);
  EXPECT_NE(many.err.find("--gpus-per-thread"), std::string::npos) << many.err;
  const CliResult mpi = run_scalewall({"collective", "--fabric", "dgx-a100", "--bytes", "1MiB",
                                       "--gpus-per-thread", "8", "--selector", "mpi"});
  EXPECT_NE(mpi.exit_code, 0);
  EXPECT_NE(mpi.err.find("--gpus-per-thread 8"), std::string::npos) << mpi.err;
  const CliResult zero = run_scalewall(
      {"collective", "--fabric", "dgx-a100", "--bytes", "1MiB", "--gpus-per-thread", "0"});
  EXPECT_NE(zero.exit_code, 0);
  EXPECT_NE(zero.err.find("--gpus-per-thread"), std::string::npos) << zero.err;
}

// --nccl-version: that release's tables pick, their estimate in a column of its own that
// orders the rows; the price is 2.30.7's. Two DGX H100 at 1 MiB: 2.26.2 picks NVLSTree (53 us
// + m / 300 GB/s), 2.30.7 Tree LL128. A release the model holds no tables for picks as the
// nearest it holds, and says so; a CPU fabric or an unreadable release is an error.
TEST(CollectiveCli, NcclVersionPicksByItsOwnTables) {
  const std::vector<std::string> call = {"collective", "--fabric", "dgx-h100", "--ranks", "16",
                                         "--bytes", "1MiB"};
  const auto latest = run_json(call);
  EXPECT_EQ(latest["nccl_algorithm"], "Tree");
  EXPECT_EQ(latest["nccl_version"], "2.30.7");
  EXPECT_FALSE(latest["nccl"][0].contains("pick_s"));
  std::vector<std::string> old_call = call;
  old_call.insert(old_call.end(), {"--nccl-version", "2.26.2"});
  const auto old = run_json(old_call);
  EXPECT_EQ(old["nccl_algorithm"], "NVLSTree");
  EXPECT_EQ(old["nccl_version"], "2.26.2");
  EXPECT_EQ(old["inputs"]["fabric"]["nccl_version"], "2.26.2");
  EXPECT_NEAR(old["nccl"][0]["pick_s"].get<double>(), 53e-6 + 1048576 / 300e9, 1e-12);
  for (const auto& r : latest["nccl"]) {
    if (r["algorithm"] == "NVLSTree") {
      EXPECT_EQ(r["total_s"], old["total_s"]);
    }
  }
  const CliResult table = run_scalewall(old_call);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("NCCL 2.26.2's time"), std::string::npos) << table.out;
  std::vector<std::string> oldest_call = call;
  oldest_call.insert(oldest_call.end(), {"--nccl-version", "2.9.9"});
  const CliResult oldest = run_scalewall(oldest_call);
  ASSERT_EQ(oldest.exit_code, 0) << oldest.err;
  EXPECT_NE(oldest.out.find("NCCL 2.9.9 picks as 2.19.0 does"), std::string::npos) << oldest.out;
  const CliResult cpu = run_scalewall({"collective", "--fabric", "ib-ndr", "--ranks", "16",
                                       "--bytes", "1MiB", "--nccl-version", "2.26.2"});
  EXPECT_NE(cpu.exit_code, 0);
  EXPECT_NE(cpu.err.find("--nccl-version 2.26.2"), std::string::npos) << cpu.err;
  std::vector<std::string> bad_call = call;
  bad_call.insert(bad_call.end(), {"--nccl-version", "2.26.x"});
  const CliResult bad = run_scalewall(bad_call);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("NCCL release '2.26.x'"), std::string::npos) << bad.err;
  const CliResult flat =
      run_scalewall({"collective", "--ranks", "16", "--bytes", "1MiB", "--nccl-version", "2.26.2"});
  EXPECT_NE(flat.exit_code, 0);
  EXPECT_NE(flat.err.find("--nccl-version"), std::string::npos) << flat.err;
}

TEST(CollectiveCli, SelectorMpiAndErrors) {
  const auto mpi = run_json({"collective", "--fabric", "dgx-h100", "--ranks", "16", "--bytes",
                             "1GiB", "--selector", "mpi"});
  EXPECT_FALSE(mpi["algorithms"].empty());
  EXPECT_FALSE(mpi.contains("nccl"));
  // --algorithms names MPI algorithms: the MPI catalogue prices them.
  const auto named = run_json({"collective", "--fabric", "dgx-h100", "--ranks", "16", "--bytes",
                               "1GiB", "--algorithms", "ring"});
  EXPECT_EQ(named["algorithms"].size(), 1u);
  // A CPU fabric has no NCCL; all-to-all is no NCCL choice.
  expect_input_error({"collective", "--fabric", "ib-hdr", "--ranks", "4", "--bytes", "1MB",
                      "--selector", "nccl"},
                     "ranks = \"gpu\"");
  expect_input_error({"collective", "--fabric", "dgx-h100", "--op", "all-to-all", "--bytes",
                      "1MB", "--selector", "nccl"},
                     "all-to-all");
  const auto a2a = run_json({"collective", "--fabric", "dgx-h100", "--op", "all-to-all",
                             "--bytes", "1MB"});
  EXPECT_FALSE(a2a["algorithms"].empty());  // no NCCL choice: the MPI catalogue
}

}  // namespace scalewall::testing
