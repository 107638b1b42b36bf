// Tests of scalewall/model/topology.h: where ranks sit (packed, scattered, explicit), how ranks of a
// node share its NICs and an oversubscribed fabric, scaling a fabric to another rank count, and
// validation that names the bad field.
#include "scalewall/model/topology.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/model/scaling.h"
#include "test_support.h"

namespace scalewall {
namespace {

constexpr Link kIntra{2e-6, 450e9};
constexpr Link kInter{3e-6, 50e9};

Topology fabric(std::int64_t nodes, std::int64_t ranks_per_node,
                Placement placement = Placement::kPacked) {
  Topology t;
  t.name = "test";
  t.nodes = nodes;
  t.ranks_per_node = ranks_per_node;
  t.intra = kIntra;
  t.inter = kInter;
  t.nics_per_node = 1;
  t.placement = placement;
  return t;
}

TEST(Placement, NamesRoundTrip) {
  EXPECT_EQ(placement_name(Placement::kPacked), "packed");
  EXPECT_EQ(placement_name(Placement::kScattered), "scattered");
  EXPECT_EQ(placement_name(Placement::kExplicit), "explicit");
  EXPECT_EQ(parse_placement("packed"), Placement::kPacked);
  EXPECT_EQ(parse_placement("scattered"), Placement::kScattered);
  // An explicit placement is a list, not a word.
  for (const char* bad : {"explicit", "Packed", "round-robin", ""}) {
    const std::string message = input_error_of([&] { parse_placement(bad); });
    EXPECT_TRUE(contains(message, std::string("'") + bad + "'")) << message;
  }
}

TEST(NodeOf, PackedScatteredExplicit) {
  // 3 nodes x 4 ranks.
  const Topology packed = fabric(3, 4);
  EXPECT_EQ(packed.ranks(), 12);
  const std::vector<std::int64_t> packed_nodes = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2};
  const Topology scattered = fabric(3, 4, Placement::kScattered);
  const std::vector<std::int64_t> scattered_nodes = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2};
  Topology listed = fabric(3, 4, Placement::kExplicit);
  listed.rank_to_node = {2, 0, 1, 1, 0, 2, 2, 1, 0, 0, 1, 2};
  EXPECT_NO_THROW(require_valid(listed));
  for (std::int64_t r = 0; r < 12; ++r) {
    const auto i = static_cast<std::size_t>(r);
    EXPECT_EQ(packed.node_of(r), packed_nodes[i]) << r;
    EXPECT_EQ(scattered.node_of(r), scattered_nodes[i]) << r;
    EXPECT_EQ(listed.node_of(r), listed.rank_to_node[i]) << r;
  }
  // One node: everyone on node 0; one rank per node: rank r on node r, either placement.
  for (const Placement p : {Placement::kPacked, Placement::kScattered}) {
    const Topology one_node = fabric(1, 5, p);
    const Topology one_each = fabric(5, 1, p);
    for (std::int64_t r = 0; r < 5; ++r) {
      EXPECT_EQ(one_node.node_of(r), 0);
      EXPECT_EQ(one_each.node_of(r), r);
    }
  }
}

// bandwidth = inter * min(1, nics / streams) / oversubscription; alpha, o and g unchanged.
TEST(SharedInter, Arithmetic) {
  Topology t = fabric(4, 8);
  t.inter = link_from_loggp(2e-6, 0.5e-6, 1e-6, 50e9);
  t.nics_per_node = 2;
  t.oversubscription = 2.0;
  const struct {
    std::int64_t streams;
    double bandwidth_Bps;
  } cases[] = {
      {1, 25e9},                    // one stream on one of two NICs, halved by 2:1
      {2, 25e9},                    // one NIC each
      {3, 50e9 * 2 / 3 / 2},        // two NICs among three streams
      {8, 6.25e9},                  // 50 x 2/8 / 2
      {1000, 50e9 * 2 / 1000 / 2},  // many streams
  };
  for (const auto& c : cases) {
    const Link l = t.shared_inter(c.streams);
    EXPECT_DOUBLE_EQ(l.bandwidth_Bps, c.bandwidth_Bps) << c.streams;
    EXPECT_EQ(l.alpha_s, 3e-6);
    EXPECT_EQ(l.overhead_s, 0.5e-6);
    EXPECT_EQ(l.gap_s, 1e-6);
  }
  // A NIC per stream and a non-blocking fabric: the inter link itself, exactly.
  t.nics_per_node = 8;
  t.oversubscription = 1.0;
  for (const std::int64_t streams : {1, 5, 8}) {
    EXPECT_EQ(t.shared_inter(streams).bandwidth_Bps, 50e9);
  }
  EXPECT_EQ(t.shared_inter(16).bandwidth_Bps, 25e9);
}

TEST(FlatTopology, OneRankPerNodeOneNic) {
  const Link link{1e-6, 10e9};
  const Topology t = flat_topology(5, link);
  EXPECT_EQ(t.name, "flat");
  EXPECT_EQ(t.kind, TopologyKind::kFlatLink);
  EXPECT_EQ(scaled_topology(t, 9).kind, TopologyKind::kFlatLink);
  EXPECT_EQ(Topology{}.kind, TopologyKind::kFabric);
  EXPECT_EQ(t.nodes, 5);
  EXPECT_EQ(t.ranks_per_node, 1);
  EXPECT_EQ(t.ranks(), 5);
  EXPECT_EQ(t.nics_per_node, 1);
  EXPECT_EQ(t.oversubscription, 1.0);
  EXPECT_EQ(t.placement, Placement::kPacked);
  EXPECT_EQ(t.intra.alpha_s, 1e-6);
  EXPECT_EQ(t.inter.bandwidth_Bps, 10e9);
  EXPECT_EQ(t.shared_inter(1).bandwidth_Bps, 10e9);
  EXPECT_NO_THROW(require_valid(t));
  EXPECT_EQ(flat_topology(kMaxRanks, link).ranks(), kMaxRanks);
  EXPECT_TRUE(contains(input_error_of([&] { flat_topology(0, link); }), "0"));
  EXPECT_TRUE(contains(input_error_of([&] { flat_topology(4, Link{0.0, 1e9}); }), "alpha = 0"));
}

TEST(ScaledTopology, MultiplesFewerThanANodeAndErrors) {
  Topology base = fabric(4, 8);
  base.nics_per_node = 8;
  base.oversubscription = 2.0;
  // A multiple of the node size: whole nodes.
  const Topology bigger = scaled_topology(base, 64);
  EXPECT_EQ(bigger.nodes, 8);
  EXPECT_EQ(bigger.ranks_per_node, 8);
  EXPECT_EQ(bigger.nics_per_node, 8);
  EXPECT_EQ(bigger.oversubscription, 2.0);
  EXPECT_EQ(bigger.inter.bandwidth_Bps, 50e9);
  EXPECT_EQ(scaled_topology(base, 8).nodes, 1);
  EXPECT_EQ(scaled_topology(base, 32).nodes, 4);
  EXPECT_EQ(scaled_topology(base, 8 * 1000).ranks(), 8000);
  // Fewer than a node: a single node of that many ranks.
  for (const std::int64_t n : {1, 3, 7}) {
    const Topology small = scaled_topology(base, n);
    EXPECT_EQ(small.nodes, 1) << n;
    EXPECT_EQ(small.ranks_per_node, n) << n;
    EXPECT_EQ(small.ranks(), n);
  }
  // Neither: an error naming the count and the node size.
  for (const std::int64_t n : {12, 9, 65}) {
    const std::string message = input_error_of([&] { scaled_topology(base, n); });
    EXPECT_TRUE(contains(message, std::to_string(n) + " ranks")) << message;
    EXPECT_TRUE(contains(message, "nodes of 8 ranks")) << message;
  }
  EXPECT_FALSE(input_error_of([&] { scaled_topology(base, 0); }).empty());
  EXPECT_FALSE(input_error_of([&] { scaled_topology(base, -8); }).empty());
  // An explicit list fixes the count.
  Topology listed = fabric(2, 2, Placement::kExplicit);
  listed.rank_to_node = {1, 0, 0, 1};
  EXPECT_EQ(scaled_topology(listed, 4).rank_to_node, listed.rank_to_node);
  const std::string message = input_error_of([&] { scaled_topology(listed, 8); });
  EXPECT_TRUE(contains(message, "8 ranks requested")) << message;
  EXPECT_TRUE(contains(message, "places 4")) << message;
}

TEST(RequireValid, NamesTheField) {
  EXPECT_NO_THROW(require_valid(fabric(4, 8)));
  struct Case {
    Topology topology;
    std::string must_mention;
  };
  std::vector<Case> cases;
  {
    Topology t = fabric(0, 8);
    cases.push_back({t, "nodes 0 is below 1"});
    t = fabric(4, 0);
    cases.push_back({t, "ranks per node 0 is below 1"});
    t = fabric(4, -2);
    cases.push_back({t, "ranks per node -2"});
    t = fabric(4, 8);
    t.nics_per_node = 0;
    cases.push_back({t, "NICs per node 0"});
    t = fabric(4, 8);
    t.oversubscription = 0.5;
    cases.push_back({t, "oversubscription 0.5"});
    t.oversubscription = std::numeric_limits<double>::quiet_NaN();
    cases.push_back({t, "oversubscription nan"});
    t.oversubscription = std::numeric_limits<double>::infinity();
    cases.push_back({t, "oversubscription inf is not a finite number"});  // not "below 1"
    t.oversubscription = -std::numeric_limits<double>::infinity();
    cases.push_back({t, "oversubscription -inf is not a finite number"});
    t = fabric(std::int64_t{1} << 21, std::int64_t{1} << 20);
    cases.push_back({t, "2097152 nodes x 1048576 ranks per node"});
    t = fabric(4, 8);
    t.intra = Link{0.0, 1e9};
    cases.push_back({t, "intra-node link: link latency alpha = 0"});
    t = fabric(4, 8);
    t.inter = Link{1e-6, -1.0};
    cases.push_back({t, "inter-node link: link bandwidth = -1"});
    t = fabric(2, 2, Placement::kExplicit);
    t.rank_to_node = {0, 1, 1};
    cases.push_back({t, "rank_to_node lists 3 ranks, but 2 nodes x 2 ranks per node is 4"});
    t.rank_to_node = {0, 5, 1, 1};
    cases.push_back({t, "rank_to_node[1] = 5 is not a node in [0, 2)"});
    t.rank_to_node = {0, 1, -1, 1};
    cases.push_back({t, "rank_to_node[2] = -1"});
    t.rank_to_node = {0, 0, 0, 1};
    cases.push_back({t, "rank_to_node puts 3 ranks on node 0, expected 2"});
    t = fabric(2, 2);
    t.rank_to_node = {0, 0, 1, 1};
    cases.push_back({t, "rank_to_node is given, but placement is packed"});
  }
  for (const Case& c : cases) {
    const std::string message = input_error_of([&] { require_valid(c.topology); });
    EXPECT_TRUE(contains(message, c.must_mention))
        << "'" << message << "' does not mention '" << c.must_mention << "'";
  }
  // 2^40 ranks exactly is allowed.
  EXPECT_NO_THROW(require_valid(fabric(std::int64_t{1} << 20, std::int64_t{1} << 20)));
}

}  // namespace
}  // namespace scalewall
