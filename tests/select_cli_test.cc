// End-to-end tests of `scalewall select`: the real executable, its three formats, the switch
// points against `scalewall collective`'s ties, a fabric run, a selector run, and its exit
// codes.
#include <gtest/gtest.h>

#include <cmath>
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

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SelectCli, JsonEnvelopeAndMap) {
  const auto j = run_json({"select", "--ranks", "8..64", "--bytes", "1..1MiB"});
  EXPECT_EQ(j["tool"], "scalewall");
  EXPECT_EQ(j["command"], "select");
  EXPECT_EQ(j["kind"], "model");
  const auto& in = j["inputs"];
  EXPECT_EQ(in["op"], "allreduce");
  EXPECT_EQ(in["ranks"], nlohmann::json::parse("[8, 16, 32, 64]"));
  EXPECT_EQ(in["step"], 4);
  EXPECT_NEAR(in["alpha_s"].get<double>(), 2.5e-6, 1e-18);
  EXPECT_DOUBLE_EQ(in["bandwidth_Bps"].get<double>(), 25e9);
  EXPECT_EQ(j["op"], "allreduce");
  // 1, 4, 16, ..., 1 MiB: 11 sizes.
  ASSERT_EQ(j["bytes"].size(), 11u);
  EXPECT_DOUBLE_EQ(j["bytes"][0].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["bytes"][10].get<double>(), 1048576.0);
  ASSERT_EQ(j["rows"].size(), 4u);
  for (const auto& row : j["rows"]) {
    ASSERT_EQ(row["winners"].size(), 11u);
    ASSERT_EQ(row["total_s"].size(), 11u);
    EXPECT_TRUE(row["switches"].is_array());
    for (const auto& s : row["switches"]) {
      EXPECT_TRUE(s["from"].is_string());
      EXPECT_TRUE(s["to"].is_string());
      EXPECT_GT(s["bytes"].get<double>(), 0.0);
    }
    EXPECT_FALSE(row.contains("library"));
  }
  EXPECT_EQ(j["legend"]["RD"], "recursive-doubling");
  EXPECT_EQ(j["legend"]["RB"], "rabenseifner");
  EXPECT_EQ(j["legend"]["RG"], "ring");
  EXPECT_EQ(j["legend"]["DT"], "double-binary-tree");
}

// Issue 3: at 64 ranks on the default link, recursive doubling for small messages and
// Rabenseifner for large, switching at the tie that `scalewall collective` reports for the
// same pair (its "ties winner at" column).
TEST(SelectCli, BytesTakeAListAsRanksDo) {
  const auto j = run_json({"select", "--ranks", "8,64", "--bytes", "4,1,1MiB"});
  EXPECT_EQ(j["bytes"], nlohmann::json::parse("[1.0, 4.0, 1048576.0]"));
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["winners"].size(), 3u);
  expect_input_error({"select", "--bytes", "1,2,2"}, "--bytes: 2 B is listed twice in '1,2,2'");
  expect_input_error({"select", "--bytes", "1,4..16"},
                     "--bytes: '1,4..16' mixes a range and a list; give A..B or a list A,B,C");
  expect_input_error({"select", "--bytes", "1,,4"}, "--bytes: empty size");
}

TEST(SelectCli, SixtyFourRankSwitchMatchesCollectiveTie) {
  const auto j = run_json({"select", "--ranks", "64", "--bytes", "1..1GiB"});
  const auto& row = j["rows"][0];
  EXPECT_EQ(row["ranks"], 64);
  EXPECT_EQ(row["winners"][0], "recursive-doubling");
  EXPECT_EQ(row["winners"][row["winners"].size() - 1], "rabenseifner");
  ASSERT_EQ(row["switches"].size(), 1u);
  const auto& s = row["switches"][0];
  EXPECT_EQ(s["from"], "recursive-doubling");
  EXPECT_EQ(s["to"], "rabenseifner");
  const double at = s["bytes"].get<double>();
  EXPECT_NEAR(at, 93023.25581395349, 93023.26 * 1e-9);

  // `collective` at a size above the tie ranks Rabenseifner first and reports where recursive
  // doubling ties it.
  const auto c = run_json({"collective", "--ranks", "64", "--bytes", "1MiB", "--algorithms",
                           "rabenseifner,recursive-doubling"});
  EXPECT_EQ(c["winner"], "rabenseifner");
  const double tie = c["algorithms"][1]["tie_with_winner_bytes"].get<double>();
  EXPECT_NEAR(at, tie, tie * 1e-9);

  // The seed's pair: ring against recursive doubling, at collective's tie_bytes field.
  const auto ring_rd = run_json({"collective", "--ranks", "64", "--bytes", "4096"});
  const double ring_tie = ring_rd["tie_bytes"].get<double>();
  EXPECT_NEAR(ring_tie, 1860465.116, 1.0);
}

TEST(SelectCli, FabricRunScalesTheFabricPerRankCount) {
  const auto j = run_json({"select", "--fabric", source_path("examples/fabrics/dgx-h100-ndr.toml"),
                           "--ranks", "4,8,24,40,64", "--bytes", "1KiB..1GiB"});
  EXPECT_EQ(j["inputs"]["fabric"]["ranks_per_node"], 8);
  // 4 ranks: one node; 8: one full node; 24, 40, 64: 3, 5 and 8 nodes of 8. On 3 and 5 nodes
  // (not powers of two) a hierarchical all-reduce wins the large messages.
  ASSERT_EQ(j["rows"].size(), 5u);
  bool hierarchical = false;
  for (const auto& row : j["rows"]) {
    for (const auto& w : row["winners"]) {
      hierarchical = hierarchical || w.get<std::string>().rfind("hierarchical-", 0) == 0;
    }
    // Each switch lies between two neighbouring grid sizes, where the winners change.
    const auto& winners = row["winners"];
    const auto& sizes = j["bytes"];
    std::size_t k = 0;
    for (std::size_t i = 0; i + 1 < winners.size(); ++i) {
      if (winners[i] == winners[i + 1]) continue;
      ASSERT_LT(k, row["switches"].size());
      const auto& s = row["switches"][k++];
      EXPECT_EQ(s["from"], winners[i]);
      EXPECT_EQ(s["to"], winners[i + 1]);
      EXPECT_GE(s["bytes"].get<double>(), sizes[i].get<double>());
      EXPECT_LE(s["bytes"].get<double>(), sizes[i + 1].get<double>());
    }
    EXPECT_EQ(k, row["switches"].size());
  }
  EXPECT_TRUE(hierarchical);
  // 4 ranks fit in one node: no hierarchical candidate in its row.
  for (const auto& w : j["rows"][0]["winners"]) {
    EXPECT_NE(w.get<std::string>().rfind("hierarchical-", 0), 0u);
  }
  const auto table = run_scalewall({"select", "--fabric",
                                    source_path("examples/fabrics/dgx-h100-ndr.toml"), "--ranks",
                                    "24,40"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(contains(table.out, "fabric dgx-h100-ndr")) << table.out;
  EXPECT_TRUE(contains(table.out, "  H-RG")) << table.out;
  EXPECT_TRUE(contains(table.out, "nominal")) << table.out;
}

TEST(SelectCli, SelectorRun) {
  const auto j = run_json({"select", "--ranks", "64", "--bytes", "1KiB..1MiB", "--step", "2",
                           "--selector", "ompi"});
  EXPECT_EQ(j["inputs"]["selector"], "ompi");
  EXPECT_EQ(j["selector"], "ompi");
  const auto& row = j["rows"][0];
  ASSERT_EQ(row["library"].size(), j["bytes"].size());
  for (std::size_t i = 0; i < j["bytes"].size(); ++i) {
    const auto& pick = row["library"][i];
    const double m = j["bytes"][i].get<double>();
    // Open MPI 4.1, 64 <= p < 128: m < 262144 -> recursive doubling (3), else Rabenseifner.
    EXPECT_EQ(pick["modelled"], m < 262144 ? "recursive-doubling" : "rabenseifner") << m;
    EXPECT_TRUE(contains(pick["rule"].get<std::string>(), "64 <= p < 128"));
    const double ratio = pick["cost_ratio"].get<double>();
    EXPECT_GE(ratio, 1.0);
    // Where the model's winner is the same algorithm, the ratio is exactly 1.
    if (row["winners"][i] == pick["modelled"]) {
      EXPECT_EQ(ratio, 1.0);
    }
  }
  // Between the model's tie (about 93 KB) and Open MPI's threshold (256 KiB) Open MPI keeps
  // recursive doubling while the model has switched: those cells cost more.
  bool dearer = false;
  for (std::size_t i = 0; i < j["bytes"].size(); ++i) {
    const double m = j["bytes"][i].get<double>();
    if (m > 93024 && m < 262144) {
      EXPECT_GT(row["library"][i]["cost_ratio"].get<double>(), 1.0) << m;
      dearer = true;
    }
  }
  EXPECT_TRUE(dearer);

  const auto table = run_scalewall({"select", "--ranks", "16..64", "--bytes", "1KiB..1MiB",
                                    "--selector", "mpich"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(contains(table.out, "[library]")) << table.out;
  EXPECT_TRUE(contains(table.out, "MPICH 3.2")) << table.out;
  EXPECT_TRUE(contains(table.out, "worst ratio:")) << table.out;

  const auto csv = run_scalewall({"select", "--ranks", "64", "--bytes", "1..64", "--selector",
                                  "mpich", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const auto lines = lines_of(csv.out);
  ASSERT_EQ(lines.size(), 5u);  // header + 1, 4, 16, 64
  EXPECT_EQ(lines[0],
            "ranks,bytes,winner,total_s,library_algorithm,library_modelled,library_total_s,"
            "cost_ratio");
  EXPECT_EQ(lines[1].rfind("64,1,recursive-doubling,", 0), 0u) << lines[1];
  EXPECT_TRUE(contains(lines[1], ",recursive doubling,recursive-doubling,")) << lines[1];
}

TEST(SelectCli, CsvOneLinePerCell) {
  const auto r = run_scalewall({"select", "--ranks", "2,3,5", "--bytes", "1..256", "--format",
                                "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 1u + 3u * 5u);
  EXPECT_EQ(lines[0], "ranks,bytes,winner,total_s");
  EXPECT_EQ(lines[1].rfind("2,1,", 0), 0u) << lines[1];
  EXPECT_EQ(lines.back().rfind("5,256,", 0), 0u) << lines.back();
}

TEST(SelectCli, TableIsAMapWithLegendAndSwitches) {
  const auto r = run_scalewall({"select", "--ranks", "1..64", "--bytes", "1..1GiB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 10u);
  EXPECT_EQ(lines[0], "# MODEL: analytic prediction, not a measurement");
  EXPECT_TRUE(contains(r.out, "[winners]"));
  EXPECT_TRUE(contains(r.out, "[switches]"));
  EXPECT_TRUE(contains(r.out, "Legend: RG ring, RD recursive-doubling, RB rabenseifner"));
  EXPECT_TRUE(contains(r.out, "1Gi"));
  EXPECT_TRUE(contains(r.out, "N = 1"));
  // The 64-rank row: RD up to 64 Ki, RB from 256 Ki.
  bool found = false;
  for (const auto& line : lines) {
    if (line.rfind("   64  RD", 0) == 0 || line.rfind("64  RD", 0) == 0) {
      found = true;
      EXPECT_TRUE(contains(line, "RD    RB")) << line;
    }
  }
  EXPECT_TRUE(found) << r.out;
  EXPECT_TRUE(contains(r.out, "recursive-doubling  rabenseifner")) << r.out;
  EXPECT_TRUE(contains(r.out, "93023")) << r.out;
}

// A fabric of 256 nodes of 8 ranks placed by an explicit rank_to_node list (packed order).
std::string explicit_2048() {
  std::string list;
  for (int r = 0; r < 2048; ++r) list += (r == 0 ? "" : ",") + std::to_string(r / 8);
  return write_temp_file("explicit-2048.toml",
                         "name = \"explicit\"\nnodes = 256\nranks_per_node = 8\n"
                         "nics_per_node = 8\nrank_to_node = [" + list + "]\n"
                         "[intra]\nalpha = \"2us\"\nbandwidth = \"450GB/s\"\n"
                         "[inter]\nalpha = \"3us\"\nbandwidth = \"50GB/s\"\n");
}

TEST(SelectCli, BadInputExitsTwoNamingTheValue) {
  struct BadCase {
    std::vector<std::string> args;
    std::string named;
  };
  const std::vector<BadCase> cases = {
      {{"select", "--ranks", "64..8"}, "64..8"},
      {{"select", "--ranks", "abc"}, "abc"},
      {{"select", "--ranks", "0..8"}, "--ranks"},
      {{"select", "--ranks", "8,8"}, "8 is listed twice"},
      {{"select", "--ranks", "15..9"}, "15..9"},
      {{"select", "--bytes", "1MiB..1KiB"}, "1MiB..1KiB"},
      {{"select", "--bytes", "0..1KiB"}, "0..1KiB"},
      {{"select", "--bytes", "x..1KiB"}, "--bytes"},
      {{"select", "--bytes", "1..1e300", "--step", "2"}, "more than 64 sizes"},
      {{"select", "--ranks", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,"
                  "26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,"
                  "51,52,53,54,55,56,57,58,59,60,61,62,63,64,65"},
       "at most 64"},
      {{"select", "--step", "3"}, "--step: 3"},
      {{"select", "--step", "two"}, "two"},
      {{"select", "--op", "scan"}, "scan"},
      {{"select", "--selector", "intel"}, "intel"},
      {{"select", "--gamma", "-1ns"}, "--gamma"},
      {{"select", "--format", "yaml"}, "yaml"},
      {{"select", "--alpha", "0"}, "--alpha"},
      {{"select", "--nodes", "2"}, "--nodes"},
      {{"select", "--ranks", "4..64", "--fabric", "no/such/fabric.toml"}, "no/such/fabric.toml"},
      {{"select", "--ranks", "12", "--fabric", source_path("examples/fabrics/dgx-h100-ndr.toml")},
       "12 ranks"},
      // An explicit rank_to_node list is costed edge by edge: pairwise all-to-all on 2048
      // ranks is beyond its limit (a packed fabric of any size is costed in closed form).
      {{"select", "--op", "all-to-all", "--ranks", "2048", "--fabric", explicit_2048()},
       "2048 ranks"},
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

TEST(SelectCli, EveryOpMaps) {
  for (const char* op : {"allreduce", "reduce-scatter", "all-gather", "broadcast", "reduce",
                         "all-to-all", "barrier"}) {
    for (const char* selector : {"mpich", "ompi"}) {
      const auto j = run_json({"select", "--op", op, "--ranks", "2..256", "--bytes", "1..16MiB",
                               "--selector", selector});
      EXPECT_EQ(j["rows"].size(), 8u) << op;
      EXPECT_EQ(j["rows"][0]["library"].size(), j["bytes"].size()) << op;
    }
  }
}


// The DGX fabric from 8 to 2^20 ranks (up to 131,072 nodes): every row is costed in closed
// form and the map comes back whole, its largest row included, on both placements.
TEST(SelectCli, MillionRankFabricMapAnswers) {
  for (const std::string placement : {"packed", "scattered"}) {
    const auto j =
        run_json({"select", "--fabric", source_path("examples/fabrics/dgx-h100-ndr.toml"),
                  "--ranks", "8..1048576", "--placement", placement});
    ASSERT_EQ(j["rows"].size(), 18u);
    EXPECT_EQ(j["rows"].back()["ranks"], 1048576);
    EXPECT_FALSE(j["rows"].back()["winners"].empty());
  }
}

}  // namespace
// On a GPU fabric the map is NCCL's pick per (rank count, size).
TEST(SelectCli, GpuFabricMapsNcclsPicks) {
  const auto j = run_json({"select", "--fabric", "dgx-a100", "--ranks", "8,16", "--bytes",
                           "1KiB..1GiB"});
  EXPECT_EQ(j["inputs"]["selector"], "nccl");
  const auto& picks = j["picks"];
  ASSERT_EQ(picks.size(), 2u * 11u);
  EXPECT_EQ(picks[0]["ranks"], 8);
  EXPECT_EQ(picks[0]["algorithm"], "Ring");
  EXPECT_EQ(picks[0]["protocol"], "LL");
  EXPECT_EQ(picks[10]["algorithm"], "Ring");  // 1 GiB on one node
  EXPECT_EQ(picks[10]["protocol"], "Simple");
  EXPECT_EQ(picks[11]["ranks"], 16);
  EXPECT_EQ(picks[11]["algorithm"], "Tree");  // 1 KiB across two nodes: the tree's log hops
  const CliResult csv = run_scalewall({"select", "--fabric", "dgx-a100", "--ranks", "8",
                                       "--bytes", "1GiB", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("ranks,bytes,algorithm,protocol,channels,total_s,busbw_Bps"),
            std::string::npos);
  EXPECT_NE(csv.out.find("8,1073741824,Ring,Simple,12,"), std::string::npos) << csv.out;
  const auto mpi = run_json({"select", "--fabric", "dgx-a100", "--ranks", "8", "--bytes",
                             "1..1MiB", "--selector", "mpi"});
  EXPECT_FALSE(mpi.contains("picks"));
  expect_input_error({"select", "--fabric", "ib-hdr", "--ranks", "2", "--selector", "nccl"},
                     "ranks = \"gpu\"");
}

// --nccl-version: that release's tables pick every cell. Two DGX H100 nodes at 1-2 MiB:
// 2.26.2 takes NVLSTree, 2.30.7 Tree LL128; both take NVLSTree at 4 MiB and Tree LL128 at
// 512 KiB. The map says which release picked.
TEST(SelectCli, NcclVersionPicksTheMap) {
  const std::vector<std::string> call = {"select", "--fabric", "dgx-h100", "--ranks", "16",
                                         "--bytes", "512KiB..4MiB", "--step", "2"};
  const auto latest = run_json(call);
  std::vector<std::string> old_call = call;
  old_call.insert(old_call.end(), {"--nccl-version", "2.26.2"});
  const auto old = run_json(old_call);
  EXPECT_EQ(latest["nccl_version"], "2.30.7");
  EXPECT_EQ(old["nccl_version"], "2.26.2");
  const std::vector<std::string> latest_algos = {"Tree", "Tree", "Tree", "NVLSTree"};
  const std::vector<std::string> old_algos = {"Tree", "NVLSTree", "NVLSTree", "NVLSTree"};
  ASSERT_EQ(latest["picks"].size(), 4u);
  ASSERT_EQ(old["picks"].size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(latest["picks"][i]["algorithm"], latest_algos[i]) << i;
    EXPECT_EQ(old["picks"][i]["algorithm"], old_algos[i]) << i;
  }
  EXPECT_EQ(latest["picks"][3]["total_s"], old["picks"][3]["total_s"]);  // 2.30.7's price
}

// A costing error names a flag only when the user gave it; otherwise the input at fault.
TEST(SelectCli, ACostingErrorBlamesTheFlagGivenElseTheFabric) {
  const std::string three = write_temp_file(
      "three-per-node.toml",
      "name = \"three\"\nnodes = 4\nranks_per_node = 3\n[intra]\nalpha = \"2us\"\n"
      "bandwidth = \"450GB/s\"\n[inter]\nalpha = \"3us\"\nbandwidth = \"50GB/s\"\n");
  const std::string fits = "4 ranks do not fill whole nodes of 3 ranks each";
  // The default rank counts 2..1024 were not given: the fabric is named, not --ranks.
  expect_input_error({"select", "--fabric", three},
                     "error: fabric '" + three + "': " + fits);
  expect_input_error({"select", "--fabric", three, "--ranks", "2..8"}, "error: --ranks: " + fits);
  // validate on a log of 36 ranks against a preset of nodes of 8: the preset, not --selector.
  const std::string log =
      source_path("tests/data/real-logs/osu_alltoall_v7.5_36proc_oracle-japan_ocitutorials.txt");
  expect_input_error({"validate", log, "--fabric", "dgx-h100"},
                     "error: fabric 'dgx-h100': no measured collective point left to validate");
  const CliResult r = run_scalewall({"validate", log, "--fabric", "dgx-h100"});
  EXPECT_EQ(r.err.find("--selector"), std::string::npos) << r.err;
}

}  // namespace scalewall::testing
