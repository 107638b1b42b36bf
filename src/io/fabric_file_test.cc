// Tests of scalewall/io/fabric_file.h: every example fabric loads, values come out in SI units,
// LogGP sections become alpha = L + 2o and bandwidth 1/G, and every malformed file is an
// InputError naming the file, the key and its line.
#include "scalewall/io/fabric_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scalewall/base/error.h"
#include "test_support.h"

namespace scalewall {
namespace {

std::string examples_dir() { return std::string(SCALEWALL_SOURCE_DIR) + "/examples/fabrics"; }

// A well-formed two-link fabric; tests put top-level lines before it.
constexpr const char* kLinks = R"(
[intra]
alpha = "2us"
bandwidth = "450GB/s"

[inter]
alpha = "3us"
bandwidth = "400Gb/s"
)";

std::string error_of(const std::string& text) {
  return input_error_of([&] { parse_fabric(text, "f.toml"); });
}

TEST(ExampleFabrics, EveryFileLoads) {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(examples_dir())) {
    if (entry.path().extension() != ".toml") continue;
    const Topology t = load_fabric_file(entry.path().string());
    EXPECT_NO_THROW(require_valid(t)) << entry.path();
    EXPECT_TRUE(t.nominal) << entry.path() << ": example figures are nominal";
    EXPECT_EQ(t.name, entry.path().stem().string());
    ++loaded;
  }
  EXPECT_GE(loaded, 4);
}

TEST(ExampleFabrics, DgxH100Ndr) {
  const Topology t = load_fabric_file(examples_dir() + "/dgx-h100-ndr.toml");
  EXPECT_EQ(t.nodes, 16);
  EXPECT_EQ(t.ranks_per_node, 8);
  EXPECT_EQ(t.ranks(), 128);
  EXPECT_EQ(t.nics_per_node, 8);
  EXPECT_EQ(t.oversubscription, 1.0);
  EXPECT_EQ(t.placement, Placement::kPacked);
  EXPECT_DOUBLE_EQ(t.intra.alpha_s, 2e-6);
  EXPECT_DOUBLE_EQ(t.intra.bandwidth_Bps, 450e9);
  EXPECT_DOUBLE_EQ(t.inter.alpha_s, 3e-6);
  EXPECT_DOUBLE_EQ(t.inter.bandwidth_Bps, 5e10);  // 400 Gb/s
  EXPECT_EQ(t.inter.gap_s, 0.0);
}

TEST(ExampleFabrics, TcpAndSharedMemory) {
  const Topology tcp = load_fabric_file(examples_dir() + "/tcp-100gbe.toml");
  EXPECT_EQ(tcp.nodes, 8);
  EXPECT_EQ(tcp.ranks_per_node, 16);
  EXPECT_EQ(tcp.nics_per_node, 1);
  EXPECT_DOUBLE_EQ(tcp.intra.alpha_s, 0.5e-6);
  EXPECT_DOUBLE_EQ(tcp.intra.bandwidth_Bps, 10e9);
  EXPECT_DOUBLE_EQ(tcp.inter.alpha_s, 25e-6);
  EXPECT_DOUBLE_EQ(tcp.inter.bandwidth_Bps, 12.5e9);  // 100 Gb/s
  const Topology shm = load_fabric_file(examples_dir() + "/shm-node.toml");
  EXPECT_EQ(shm.nodes, 1);
  EXPECT_EQ(shm.ranks_per_node, 32);
  EXPECT_DOUBLE_EQ(shm.intra.alpha_s, 0.5e-6);
}

// L = 15 us, o = 5 us, g = 8 us, 100 Gb/s, "2:1": alpha = L + 2o = 25 us.
TEST(ExampleFabrics, TcpLogGp) {
  const Topology t = load_fabric_file(examples_dir() + "/tcp-100gbe-loggp.toml");
  EXPECT_EQ(t.oversubscription, 2.0);
  EXPECT_DOUBLE_EQ(t.inter.alpha_s, 25e-6);
  EXPECT_DOUBLE_EQ(t.inter.overhead_s, 5e-6);
  EXPECT_DOUBLE_EQ(t.inter.gap_s, 8e-6);
  EXPECT_DOUBLE_EQ(t.inter.bandwidth_Bps, 12.5e9);
  EXPECT_EQ(t.intra.gap_s, 0.0);
}

TEST(ParseFabric, DefaultsAndSiUnits) {
  const Topology t = parse_fabric(kLinks, "f.toml");
  EXPECT_EQ(t.name, "fabric");
  EXPECT_TRUE(t.nominal);
  EXPECT_EQ(t.nodes, 1);
  EXPECT_EQ(t.ranks_per_node, 1);
  EXPECT_EQ(t.nics_per_node, 1);
  EXPECT_EQ(t.oversubscription, 1.0);
  EXPECT_EQ(t.placement, Placement::kPacked);
  EXPECT_DOUBLE_EQ(t.inter.bandwidth_Bps, 5e10);

  // Bare numbers are SI base units; "latency" is a synonym of alpha.
  const Topology bare = parse_fabric(R"(
name = "bare"
nominal = false
nodes = 3
ranks_per_node = 2
nics_per_node = 2
oversubscription = "3:2"
placement = "scattered"
[intra]
latency = 5e-7
bandwidth = 10000000000
[inter]
alpha = 2.5e-6
bandwidth = 25e9
)",
                                     "bare.toml");
  EXPECT_EQ(bare.name, "bare");
  EXPECT_FALSE(bare.nominal);
  EXPECT_EQ(bare.ranks(), 6);
  EXPECT_EQ(bare.nics_per_node, 2);
  EXPECT_DOUBLE_EQ(bare.oversubscription, 1.5);
  EXPECT_EQ(bare.placement, Placement::kScattered);
  EXPECT_DOUBLE_EQ(bare.intra.alpha_s, 0.5e-6);
  EXPECT_DOUBLE_EQ(bare.intra.bandwidth_Bps, 1e10);
  EXPECT_DOUBLE_EQ(bare.inter.alpha_s, 2.5e-6);
  EXPECT_DOUBLE_EQ(bare.inter.bandwidth_Bps, 25e9);

  // Oversubscription as a plain number, an integer, or "2:1".
  for (const char* ratio : {"2", "2.0", "\"2:1\"", "\"4:2\"", "\"2\""}) {
    const Topology r =
        parse_fabric(std::string("oversubscription = ") + ratio + "\n" + kLinks, "f.toml");
    EXPECT_DOUBLE_EQ(r.oversubscription, 2.0) << ratio;
  }
}

// `ranks = "gpu"` with its generation, NVLS and CollNet; without it the ranks are CPUs.
TEST(ParseFabric, GpuRanks) {
  EXPECT_EQ(parse_fabric(kLinks, "f.toml").rank_kind, RankKind::kCpu);
  const Topology t = parse_fabric(
      std::string("ranks = \"gpu\"\ngpu = \"ampere\"\nnvls = true\ncollnet = true\n") + kLinks,
      "f.toml");
  EXPECT_EQ(t.rank_kind, RankKind::kGpu);
  EXPECT_EQ(t.gpu.generation, GpuGeneration::kAmpere);
  EXPECT_TRUE(t.gpu.nvls);
  EXPECT_TRUE(t.gpu.collnet);
  EXPECT_EQ(t.gpu.net_latency_s, 0.0);  // NCCL's own transports report none
  const Topology efa = parse_fabric(
      std::string("ranks = \"gpu\"\nnccl_net_latency = \"75us\"\n") + kLinks, "f.toml");
  EXPECT_DOUBLE_EQ(efa.gpu.net_latency_s, 75e-6);
  EXPECT_FALSE(efa.gpu.net_hop_s.has_value());
  const Topology hop = parse_fabric(
      std::string("ranks = \"gpu\"\nnccl_net_latency = \"75us\"\nnccl_net_hop = \"20us\"\n") +
          kLinks,
      "f.toml");
  EXPECT_EQ(hop.gpu.net_hop_s, std::optional<double>(20e-6));
  EXPECT_FALSE(hop.gpu.nccl_release.has_value());
  const Topology release = parse_fabric(
      std::string("ranks = \"gpu\"\nnccl_version = \"2.26.2\"\n") + kLinks, "f.toml");
  EXPECT_EQ(release.gpu.nccl_release, (std::optional<NcclRelease>(NcclRelease{2, 26, 2})));
  const Topology plain = parse_fabric(std::string("ranks = \"gpu\"\n") + kLinks, "f.toml");
  EXPECT_EQ(plain.gpu.generation, GpuGeneration::kHopper);
  EXPECT_FALSE(plain.gpu.nvls);
  EXPECT_EQ(parse_fabric(std::string("ranks = \"cpu\"\n") + kLinks, "f.toml").rank_kind,
            RankKind::kCpu);
}

TEST(FabricErrors, GpuKeys) {
  EXPECT_NE(error_of(std::string("ranks = \"tpu\"\n") + kLinks).find("ranks (line 1)"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("nvls = true\n") + kLinks).find("only a fabric of GPU ranks"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("ranks = \"gpu\"\ngpu = \"pascal\"\n") + kLinks)
                .find("unknown GPU generation 'pascal'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("ranks = \"gpu\"\nnvls = 1\n") + kLinks)
                .find("expected true or false"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("nccl_net_latency = \"75us\"\n") + kLinks)
                .find("only a fabric of GPU ranks"),
            std::string::npos);
  const std::string negative =
      error_of(std::string("ranks = \"gpu\"\nnccl_net_latency = \"-1us\"\n") + kLinks);
  EXPECT_NE(negative.find("nccl_net_latency"), std::string::npos) << negative;
  EXPECT_NE(error_of(std::string("nccl_net_hop = \"20us\"\n") + kLinks)
                .find("only a fabric of GPU ranks"),
            std::string::npos);
  const std::string hop =
      error_of(std::string("ranks = \"gpu\"\nnccl_net_hop = \"-2us\"\n") + kLinks);
  EXPECT_NE(hop.find("nccl_net_hop"), std::string::npos) << hop;
  EXPECT_NE(hop.find("negative time '-2us'"), std::string::npos) << hop;
  EXPECT_NE(error_of(std::string("nccl_version = \"2.26.2\"\n") + kLinks)
                .find("only a fabric of GPU ranks"),
            std::string::npos);
  const std::string number =
      error_of(std::string("ranks = \"gpu\"\nnccl_version = 2.26\n") + kLinks);
  EXPECT_NE(number.find("nccl_version (line 2)"), std::string::npos) << number;
  EXPECT_NE(number.find("expected a quoted release"), std::string::npos) << number;
  const std::string bad =
      error_of(std::string("ranks = \"gpu\"\nnccl_version = \"3.1\"\n") + kLinks);
  EXPECT_NE(bad.find("NCCL release '3.1'"), std::string::npos) << bad;
}

// working_set_ranks: a whole number of CPU ranks, 0 (off) by default; a GPU fabric refuses
// it (NCCL's model prices GPU ranks), as it does a negative count or a fraction.
TEST(ParseFabric, WorkingSetRanks) {
  EXPECT_EQ(parse_fabric(kLinks, "f.toml").working_set_ranks, 0);
  EXPECT_EQ(parse_fabric(std::string("working_set_ranks = 2\n") + kLinks, "f.toml")
                .working_set_ranks,
            2);
  const std::string gpu =
      error_of(std::string("ranks = \"gpu\"\nworking_set_ranks = 2\n") + kLinks);
  EXPECT_NE(gpu.find("working_set_ranks (line 2): only a fabric of CPU ranks"),
            std::string::npos)
      << gpu;
  const std::string negative = error_of(std::string("working_set_ranks = -1\n") + kLinks);
  EXPECT_NE(negative.find("working_set_ranks (line 1): -1 is below 0"), std::string::npos)
      << negative;
  const std::string fraction = error_of(std::string("working_set_ranks = 1.5\n") + kLinks);
  EXPECT_NE(fraction.find("working_set_ranks (line 1): 1.5 is a float, not a whole number"),
            std::string::npos)
      << fraction;
  // local_min_bytes: a size, 0 by default.
  EXPECT_EQ(parse_fabric(kLinks, "f.toml").local_min_bytes, 0.0);
  EXPECT_EQ(parse_fabric(std::string("local_min_bytes = \"1KiB\"\n") + kLinks, "f.toml")
                .local_min_bytes,
            1024.0);
  const std::string size = error_of(std::string("local_min_bytes = \"-1KiB\"\n") + kLinks);
  EXPECT_NE(size.find("local_min_bytes (line 1)"), std::string::npos) << size;
}

TEST(ParseFabric, LogGpSection) {
  // alpha = L + 2o = 1.5 + 1 = 2.5 us; G = 0.02 ns/B is 50 GB/s.
  const Topology t = parse_fabric(R"(
[intra]
alpha = "1us"
bandwidth = "100GB/s"
[inter]
L = "1.5us"
o = "0.5us"
g = "1us"
G = "0.02ns"
)",
                                  "f.toml");
  EXPECT_DOUBLE_EQ(t.inter.alpha_s, 2.5e-6);
  EXPECT_DOUBLE_EQ(t.inter.overhead_s, 0.5e-6);
  EXPECT_DOUBLE_EQ(t.inter.gap_s, 1e-6);
  EXPECT_DOUBLE_EQ(t.inter.bandwidth_Bps, 5e10);
  // bandwidth instead of G.
  const Topology b = parse_fabric(R"(
[intra]
L = 0
o = "0.25us"
g = 0
bandwidth = "10GB/s"
[inter]
alpha = "3us"
bandwidth = "50GB/s"
)",
                                  "f.toml");
  EXPECT_DOUBLE_EQ(b.intra.alpha_s, 0.5e-6);
  EXPECT_EQ(b.intra.gap_s, 0.0);
  EXPECT_DOUBLE_EQ(b.intra.bandwidth_Bps, 1e10);
}

TEST(ParseFabric, ExplicitRankToNode) {
  const Topology t = parse_fabric(std::string(R"(
nodes = 2
ranks_per_node = 2
rank_to_node = [1, 0, 0, 1]
)") + kLinks,
                                  "f.toml");
  EXPECT_EQ(t.placement, Placement::kExplicit);
  EXPECT_EQ(t.rank_to_node, (std::vector<std::int64_t>{1, 0, 0, 1}));
  EXPECT_EQ(t.node_of(0), 1);
  EXPECT_EQ(t.node_of(1), 0);
}

TEST(FabricErrors, UnknownKeysNameTheKeyAndLine) {
  // Line 1 is empty, line 2 holds the typo.
  std::string message = error_of(std::string("\nnodez = 4\n") + kLinks);
  EXPECT_TRUE(contains(message, "f.toml")) << message;
  EXPECT_TRUE(contains(message, "nodez")) << message;
  EXPECT_TRUE(contains(message, "(line 2)")) << message;
  EXPECT_TRUE(contains(message, "unknown key")) << message;
  EXPECT_TRUE(contains(message, "ranks_per_node")) << message;  // the list of known keys
  message = error_of(R"(
[intra]
alpha = "2us"
bandwidth = "450GB/s"
[inter]
alpha = "3us"
bandwith = "400Gb/s"
)");
  EXPECT_TRUE(contains(message, "[inter] bandwith (line 7)")) << message;
}

TEST(FabricErrors, SectionsAndLinkModels) {
  const struct {
    std::string text;
    std::string must_mention;
  } cases[] = {
      {"[intra]\nalpha = \"2us\"\nbandwidth = \"1GB/s\"\n", "missing section [inter]"},
      {"[inter]\nalpha = \"2us\"\nbandwidth = \"1GB/s\"\n", "missing section [intra]"},
      {"inter = 5\n[intra]\nalpha = \"2us\"\nbandwidth = \"1GB/s\"\n", "[inter] must be a table"},
      {"[intra]\nalpha = \"2us\"\nbandwidth = \"1GB/s\"\n[inter]\nalpha = \"3us\"\nL = \"1us\"\n"
       "o = \"1us\"\ng = \"1us\"\nbandwidth = \"1GB/s\"\n",
       "[inter] mixes alpha-beta (alpha) and LogGP"},
      {"[intra]\nlatency = \"2us\"\nalpha = \"2us\"\nbandwidth = \"1GB/s\"\n"
       "[inter]\nalpha = \"3us\"\nbandwidth = \"1GB/s\"\n",
       "[intra] gives both alpha and latency"},
      {"[intra]\nalpha = \"2us\"\n[inter]\nalpha = \"3us\"\nbandwidth = \"1GB/s\"\n",
       "[intra] needs alpha and bandwidth"},
      {"[intra]\nalpha = \"2us\"\nbandwidth = \"1GB/s\"\n[inter]\nL = \"1us\"\no = \"1us\"\n"
       "bandwidth = \"1GB/s\"\n",
       "'g' is missing"},
      {"[intra]\nalpha = \"2us\"\nbandwidth = \"1GB/s\"\n[inter]\nL = \"1us\"\no = \"1us\"\n"
       "g = \"1us\"\nG = \"1ns\"\nbandwidth = \"1GB/s\"\n",
       "exactly one of G (seconds per byte) and bandwidth"},
      {"[intra]\nalpha = \"2us\"\nbandwidth = \"1GB/s\"\n[inter]\nL = \"1us\"\no = \"1us\"\n"
       "g = \"1us\"\nG = 0\n",
       "[inter] G (line 8): 0 is outside the range 1e-15 s/B to 1 s/B"},
      {"[intra]\nalpha = \"2 parsecs\"\nbandwidth = \"1GB/s\"\n[inter]\nalpha = \"3us\"\n"
       "bandwidth = \"1GB/s\"\n",
       "[intra] alpha (line 2)"},
      {"[intra]\nalpha = true\nbandwidth = \"1GB/s\"\n[inter]\nalpha = \"3us\"\n"
       "bandwidth = \"1GB/s\"\n",
       "expected a number or a string with a unit"},
      {"[intra]\nalpha = 0\nbandwidth = \"1GB/s\"\n[inter]\nalpha = \"3us\"\n"
       "bandwidth = \"1GB/s\"\n",
       "[intra] alpha (line 2): 0 is outside the range 1e-12 s to 1e+06 s"},
      {"[intra]\nalpha = \"1us\"\nbandwidth = \"1GB/s\"\n[inter]\nL = 0\no = 0\ng = 0\n"
       "bandwidth = \"1GB/s\"\n",
       "[inter] LogGP L + 2o must be above 0"},
  };
  for (const auto& c : cases) {
    const std::string message = error_of(c.text);
    EXPECT_TRUE(contains(message, c.must_mention))
        << "'" << message << "' does not mention '" << c.must_mention << "'";
    EXPECT_TRUE(contains(message, "f.toml")) << message;
  }
}

TEST(FabricErrors, TopLevelValues) {
  const struct {
    std::string lines;
    std::string must_mention;
  } cases[] = {
      {"nodes = 0\n", "nodes (line 1): 0 is below 1"},
      {"nodes = 2.5\n", "nodes (line 1): 2.5 is a float, not a whole number"},
      {"nodes = 2.0\n", "nodes (line 1): 2.0 is a float; write a whole number (2)"},
      {"nodes = \"4\"\n", "nodes (line 1): '4' is a string; write a whole number without quotes (4)"},
      {"ranks_per_node = -1\n", "ranks_per_node (line 1): -1 is below 1"},
      {"nics_per_node = 0\n", "nics_per_node (line 1): 0 is below 1"},
      {"oversubscription = \"1:0\"\n", "'1:0' divides by zero"},
      {"oversubscription = \"two\"\n", "oversubscription (line 1)"},
      {"oversubscription = 0.5\n",
       "oversubscription (line 1): 0.5 is outside the range 1 to 1e+06"},
      {"oversubscription = [2]\n", "expected a number or a ratio"},
      {"placement = \"random\"\n", "unknown placement 'random'"},
      {"placement = 3\n", "placement (line 1): expected \"packed\" or \"scattered\""},
      {"nominal = \"yes\"\n", "nominal (line 1): expected true or false"},
      {"name = 5\n", "name (line 1): expected a string"},
      {"nodes = 1048576\nranks_per_node = 2097152\n", "above the limit of 2^40 ranks"},
  };
  for (const auto& c : cases) {
    const std::string message = error_of(c.lines + kLinks);
    EXPECT_TRUE(contains(message, c.must_mention))
        << "'" << message << "' does not mention '" << c.must_mention << "'";
  }
}

// Every figure lies in the range a scenario's does (step_model.h), so that no call costed on
// any fabric overflows: beyond it, the key, its line, the value as written and the range.
TEST(FabricErrors, EveryFigureLiesInItsRange) {
  const std::string gpu = "ranks = \"gpu\"\n";
  const struct {
    std::string text;
    std::string must_mention;
  } cases[] = {
      {gpu + "nccl_net_latency = \"1e308s\"\n" + kLinks,
       "f.toml: nccl_net_latency (line 2): '1e308s' is outside the range 1e-12 s to 1e+06 s "
       "(or 0)"},
      {gpu + "nccl_net_latency = \"1e7s\"\n" + kLinks, "nccl_net_latency (line 2): '1e7s'"},
      {gpu + "nccl_net_hop = \"1e300s\"\n" + kLinks,
       "f.toml: nccl_net_hop (line 2): '1e300s' is outside the range 1e-12 s to 1e+06 s"},
      {gpu + "nccl_net_hop = 5e-324\n" + kLinks, "nccl_net_hop (line 2): 5e-324 is outside"},
      {"[intra]\nalpha = \"5e-324s\"\nbandwidth = \"1GB/s\"\n[inter]\nalpha = \"3us\"\n"
       "bandwidth = \"1GB/s\"\n",
       "f.toml: [intra] alpha (line 2): '5e-324s' is outside the range 1e-12 s to 1e+06 s"},
      {"[intra]\nlatency = \"1e308s\"\nbandwidth = \"1GB/s\"\n[inter]\nalpha = \"3us\"\n"
       "bandwidth = \"1GB/s\"\n",
       "[intra] latency (line 2): '1e308s' is outside the range 1e-12 s to 1e+06 s"},
      {"[intra]\nalpha = \"1us\"\nbandwidth = \"2PB/s\"\n[inter]\nalpha = \"3us\"\n"
       "bandwidth = \"1GB/s\"\n",
       "[intra] bandwidth (line 3): '2PB/s' is outside the range 1 B/s to 1 PB/s"},
      {"[intra]\nalpha = \"1us\"\nbandwidth = \"1GB/s\"\n[inter]\nL = \"1e308s\"\n"
       "o = \"1e308s\"\ng = 0\nbandwidth = \"1GB/s\"\n",
       "[inter] L (line 5): '1e308s' is outside the range 1e-12 s to 1e+06 s (or 0)"},
      {"[intra]\nalpha = \"1us\"\nbandwidth = \"1GB/s\"\n[inter]\nL = \"1us\"\n"
       "o = \"2e6s\"\ng = 0\nbandwidth = \"1GB/s\"\n",
       "[inter] o (line 6): '2e6s' is outside"},
      {"[intra]\nalpha = \"1us\"\nbandwidth = \"1GB/s\"\n[inter]\nL = \"1us\"\n"
       "o = 0\ng = \"1e9s\"\nbandwidth = \"1GB/s\"\n",
       "[inter] g (line 7): '1e9s' is outside"},
      {"[intra]\nalpha = \"1us\"\nbandwidth = \"1GB/s\"\n[inter]\nL = \"1us\"\n"
       "o = 0\ng = 0\nG = 1e-300\n",
       "[inter] G (line 8): 1e-300 is outside the range 1e-15 s/B to 1 s/B"},
      {std::string(kLinks) + "[[inter.regimes]]\nfrom = \"1e19B\"\nalpha = \"1us\"\n"
                             "bandwidth = \"1GB/s\"\n",
       "[inter.regimes[1]] from (line 10): '1e19B' is outside the range 1 B to 1 EB (or 0)"},
      {std::string(kLinks) + "[[inter.regimes]]\nfrom = \"1KiB\"\nalpha = \"1e308s\"\n"
                             "bandwidth = \"1GB/s\"\n",
       "[inter.regimes[1]] alpha (line 11): '1e308s' is outside"},
      {std::string(kLinks) + "[inter.exchange]\nalpha = \"1e308s\"\nbandwidth = \"1GB/s\"\n",
       "[inter.exchange] alpha (line 10): '1e308s' is outside the range 1e-12 s to 1e+06 s"},
      {"gamma = \"1e-320s\"\n" + std::string(kLinks),
       "gamma (line 1): '1e-320s' is outside the range 1e-15 s/B to 1 s/B (or 0)"},
      {"copy = 2\n" + std::string(kLinks), "copy (line 1): 2 is outside the range"},
      {"alloc = 5e-324\n" + std::string(kLinks), "alloc (line 1): 5e-324 is outside"},
      {"sent_reduction = 1e-16\n" + std::string(kLinks), "sent_reduction (line 1): 1e-16"},
      {"sent_exchange = 3\n" + std::string(kLinks), "sent_exchange (line 1): 3 is outside"},
      {"[[gamma_regimes]]\nfrom = \"1KiB\"\ngamma = 5e-324\n" + std::string(kLinks),
       "[gamma_regimes[1]] gamma (line 3): 5e-324 is outside the range 1e-15 s/B to 1 s/B"},
      {"[[copy_regimes]]\nfrom = 1e300\ncopy = 1e-9\n" + std::string(kLinks),
       "[copy_regimes[1]] from (line 2): 1e+300 is outside the range 1 B to 1 EB"},
      {"local_min_bytes = 2e18\n" + std::string(kLinks),
       "local_min_bytes (line 1): 2e+18 is outside the range 1 B to 1 EB (or 0)"},
      {"oversubscription = 1e300\n" + std::string(kLinks),
       "oversubscription (line 1): 1e+300 is outside the range 1 to 1e+06"},
      {"oversubscription = \"1e7:1\"\n" + std::string(kLinks),
       "oversubscription (line 1): '1e7:1' is outside the range 1 to 1e+06"},
  };
  for (const auto& c : cases) {
    const std::string message = error_of(c.text);
    EXPECT_TRUE(contains(message, c.must_mention))
        << "'" << message << "' does not mention '" << c.must_mention << "'";
  }
  // The ends of the ranges are figures of a fabric.
  const Topology t = parse_fabric(
      "ranks = \"gpu\"\nnccl_net_latency = \"1e6s\"\nnccl_net_hop = 1e-12\n"
      "oversubscription = \"1e6:1\"\n[intra]\nalpha = \"1e-12s\"\nbandwidth = \"1PB/s\"\n"
      "[inter]\nalpha = \"1e6s\"\nbandwidth = \"1B/s\"\n",
      "f.toml");
  EXPECT_EQ(t.gpu.net_latency_s, 1e6);
  EXPECT_EQ(t.gpu.net_hop_s, 1e-12);
  EXPECT_EQ(t.oversubscription, 1e6);
  EXPECT_EQ(t.intra.alpha_s, 1e-12);
  EXPECT_EQ(t.intra.bandwidth_Bps, 1e15);
  EXPECT_EQ(t.inter.alpha_s, 1e6);
}

TEST(FabricErrors, PlacementAndRankToNode) {
  const struct {
    std::string lines;
    std::string must_mention;
  } cases[] = {
      {"nodes = 2\nranks_per_node = 1\nplacement = \"packed\"\nrank_to_node = [0, 1]\n",
       "give either placement or rank_to_node, not both"},
      {"nodes = 2\nranks_per_node = 1\nrank_to_node = 1\n", "expected a list of node indices"},
      {"nodes = 2\nranks_per_node = 1\nrank_to_node = [0, \"1\"]\n",
       "entry 1, '1', is a string; write a whole number without quotes (1)"},
      {"nodes = 2\nranks_per_node = 1\nrank_to_node = [0, 1.0]\n",
       "entry 1, 1.0, is a float; write a whole number (1)"},
      {"nodes = 2\nranks_per_node = 2\nrank_to_node = [0, 0, 1]\n",
       "rank_to_node lists 3 ranks, but 2 nodes x 2 ranks per node is 4"},
      {"nodes = 2\nranks_per_node = 2\nrank_to_node = [0, 0, 1, 2]\n",
       "rank_to_node[3] = 2 is not a node in [0, 2)"},
      {"nodes = 2\nranks_per_node = 2\nrank_to_node = [0, 0, 0, 1]\n",
       "rank_to_node puts 3 ranks on node 0, expected 2"},
  };
  for (const auto& c : cases) {
    const std::string message = error_of(c.lines + kLinks);
    EXPECT_TRUE(contains(message, c.must_mention))
        << "'" << message << "' does not mention '" << c.must_mention << "'";
  }
}

TEST(FabricErrors, MalformedTomlNamesTheLine) {
  const std::string message = error_of("nodes = 4\nranks_per_node = = 2\n");
  EXPECT_TRUE(contains(message, "f.toml: line 2")) << message;
  const std::string unclosed = error_of("nodes = 4\n\n[intra\n");
  EXPECT_TRUE(contains(unclosed, "line 3")) << unclosed;
}

TEST(FabricErrors, EmptyAndMissingFiles) {
  const std::string dir = ::testing::TempDir();
  const std::string empty = dir + "/scalewall_empty_fabric.toml";
  {
    std::ofstream out(empty);
    out << "  \n\t\n";
  }
  std::string message = input_error_of([&] { load_fabric_file(empty); });
  EXPECT_TRUE(contains(message, "'" + empty + "' is empty")) << message;
  std::filesystem::remove(empty);

  const std::string missing = dir + "/scalewall_no_such_fabric.toml";
  message = input_error_of([&] { load_fabric_file(missing); });
  EXPECT_TRUE(contains(message, "cannot open fabric file '" + missing + "'")) << message;

  // A file's errors name the file by its path.
  const std::string bad = dir + "/scalewall_bad_fabric.toml";
  {
    std::ofstream out(bad);
    out << "nodes = 0\n" << kLinks;
  }
  message = input_error_of([&] { load_fabric_file(bad); });
  EXPECT_TRUE(contains(message, bad + ": nodes (line 1)")) << message;
  std::filesystem::remove(bad);
}


TEST(ParseFabric, SizeRegimes) {
  const Topology t = parse_fabric(R"(
[intra]
alpha = "0.5us"
bandwidth = "10GB/s"
[[intra.regimes]]
from = "4KiB"
alpha = "2us"
bandwidth = "12GB/s"
[[intra.regimes]]
from = 4194304
L = "3us"
o = "1us"
g = "0.5us"
bandwidth = "3GB/s"
[inter]
alpha = "2us"
bandwidth = "25GB/s"
)", "f.toml");
  ASSERT_EQ(t.intra.regime_count(), 3u);
  EXPECT_FALSE(t.inter.piecewise());
  EXPECT_EQ(t.intra.regime(0), (LinkRegime{0, 0.5e-6, 10e9, 0, 0}));
  EXPECT_EQ(t.intra.regime(1), (LinkRegime{4096, 2e-6, 12e9, 0, 0}));
  EXPECT_EQ(t.intra.regime(2).from_bytes, 4194304);
  EXPECT_DOUBLE_EQ(t.intra.regime(2).alpha_s, 5e-6);  // L + 2o
  EXPECT_EQ(t.intra.regime(2).overhead_s, 1e-6);
  EXPECT_EQ(t.intra.regime(2).gap_s, 0.5e-6);
}

TEST(FabricErrors, SizeRegimesNameTheRegime) {
  const std::string head = "[intra]\nalpha = \"1us\"\nbandwidth = \"1GB/s\"\n";
  const std::string tail = "[inter]\nalpha = \"1us\"\nbandwidth = \"1GB/s\"\n";
  const auto error_of = [&](const std::string& regimes) {
    return input_error_of([&] { parse_fabric(head + regimes + tail, "f.toml"); });
  };
  const std::string no_from = error_of("[[intra.regimes]]\nalpha = \"2us\"\nbandwidth = \"2GB/s\"\n");
  EXPECT_TRUE(contains(no_from, "[intra.regimes[1]] needs from")) << no_from;
  const std::string typo =
      error_of("[[intra.regimes]]\nfrom = \"1KiB\"\nalpah = \"2us\"\nbandwidth = \"2GB/s\"\n");
  EXPECT_TRUE(contains(typo, "[intra.regimes[1]] alpah")) << typo;
  const std::string order = error_of(
      "[[intra.regimes]]\nfrom = \"8KiB\"\nalpha = \"2us\"\nbandwidth = \"2GB/s\"\n"
      "[[intra.regimes]]\nfrom = \"1KiB\"\nalpha = \"2us\"\nbandwidth = \"2GB/s\"\n");
  EXPECT_TRUE(contains(order, "f.toml: [intra] link size regime 3 starts at 1024 B")) << order;
  const std::string rate =
      error_of("[[intra.regimes]]\nfrom = \"1KiB\"\nalpha = \"2us\"\nbandwidth = 0\n");
  EXPECT_TRUE(contains(rate, "[intra.regimes[1]] bandwidth (line 7): 0 is outside the range 1 B/s "
                             "to 1 PB/s"))
      << rate;
  const std::string not_tables = error_of("regimes = 3\n");
  EXPECT_TRUE(contains(not_tables, "expected [[intra.regimes]] tables")) << not_tables;
}


TEST(ParseFabric, DuplexAndReverseTraffic) {
  const Topology t = parse_fabric(R"(
[intra]
alpha = "1us"
bandwidth = "10GB/s"
duplex = "half"
[[intra.regimes]]
from = "64KiB"
alpha = "3us"
bandwidth = "12GB/s"
[inter]
alpha = "2us"
bandwidth = "25GB/s"
reverse_traffic = 0.05
)", "f.toml");
  EXPECT_TRUE(t.intra.half_duplex);
  EXPECT_EQ(t.intra.regime_count(), 2u);
  EXPECT_TRUE(t.intra.at(1e6).half_duplex);
  EXPECT_EQ(t.intra.reverse_traffic, 0.0);
  EXPECT_FALSE(t.inter.half_duplex);
  EXPECT_EQ(t.inter.reverse_traffic, 0.05);
  EXPECT_TRUE(contains(error_of("[intra]\nalpha = 1\nbandwidth = 1\nduplex = \"simplex\"\n"
                                "[inter]\nalpha = 1\nbandwidth = 1\n"),
                       "[intra] duplex (line 4): expected \"full\" or \"half\""));
  EXPECT_TRUE(contains(error_of("[intra]\nalpha = 1\nbandwidth = 1\n"
                                "[inter]\nalpha = 1\nbandwidth = 1\nreverse_traffic = 1.5\n"),
                       "1.5 is not a fraction"));
}

TEST(ParseFabric, MeasuredExchangesWithTheirOwnRegimes) {
  const Topology t = parse_fabric(R"(
[intra]
alpha = "1us"
bandwidth = "10GB/s"
[intra.exchange]
alpha = "2us"
bandwidth = "8GB/s"
[[intra.exchange.regimes]]
from = "64KiB"
alpha = "6us"
bandwidth = "5GB/s"
[inter]
alpha = "2us"
bandwidth = "25GB/s"
)", "f.toml");
  ASSERT_EQ(t.intra.exchange_count, 2u);
  EXPECT_EQ(t.intra.exchange[0], (LinkRegime{0, 2e-6, 8e9, 0, 0}));
  EXPECT_EQ(t.intra.exchange[1], (LinkRegime{65536, 6e-6, 5e9, 0, 0}));
  EXPECT_EQ(t.intra.regime_count(), 1u);
  EXPECT_FALSE(t.inter.has_exchange());
  EXPECT_TRUE(contains(error_of("[intra]\nalpha = 1\nbandwidth = 1\n[intra.exchange]\nalpha = 1\n"
                                "bandwidth = 1\nduplex = \"half\"\n[inter]\nalpha = 1\nbandwidth = 1\n"),
                       "intra.exchange"));
  EXPECT_TRUE(contains(error_of("[intra]\nalpha = 1\nbandwidth = 1\nexchange = 3\n"
                                "[inter]\nalpha = 1\nbandwidth = 1\n"),
                       "[intra.exchange]"));
  EXPECT_TRUE(contains(error_of("[intra]\nalpha = 1\nbandwidth = 1\n[intra.exchange]\nalpha = 1\n"
                                "[inter]\nalpha = 1\nbandwidth = 1\n"),
                       "intra.exchange"));
}

}  // namespace
}  // namespace scalewall
