// Implementation of scalewall/model/topology.h.
#include "scalewall/model/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "scalewall/base/error.h"
#include "scalewall/model/scaling.h"

namespace scalewall {

std::string_view placement_name(Placement placement) {
  switch (placement) {
    case Placement::kPacked:
      return "packed";
    case Placement::kScattered:
      return "scattered";
    case Placement::kExplicit:
      return "explicit";
  }
  SCALEWALL_CHECK(false && "unknown Placement");
  return {};
}

Placement parse_placement(std::string_view text) {
  if (text == "packed") return Placement::kPacked;
  if (text == "scattered") return Placement::kScattered;
  throw InputError(fmt::format(
      "unknown placement '{}' (expected packed or scattered; an explicit placement is a "
      "rank_to_node list in a fabric file)",
      text));
}

std::int64_t Topology::node_of(std::int64_t rank) const {
  SCALEWALL_CHECK(rank >= 0 && rank < ranks());
  switch (placement) {
    case Placement::kPacked:
      return rank / ranks_per_node;
    case Placement::kScattered:
      return rank % nodes;
    case Placement::kExplicit:
      return rank_to_node[static_cast<std::size_t>(rank)];
  }
  SCALEWALL_CHECK(false && "unknown Placement");
  return 0;
}

Link Topology::shared_inter(std::int64_t streams) const {
  SCALEWALL_CHECK(streams >= 1);
  const double share =
      std::min(1.0, static_cast<double>(nics_per_node) / static_cast<double>(streams));
  const double over = oversubscription;
  return inter.each_regime([&](LinkRegime& r) { r.bandwidth_Bps = r.bandwidth_Bps * share / over; });
}

Topology flat_topology(std::int64_t ranks, const Link& link) {
  require_ranks(static_cast<double>(ranks));
  require_valid(link);
  Topology t;
  t.name = "flat";
  t.kind = TopologyKind::kFlatLink;
  t.nodes = ranks;
  t.ranks_per_node = 1;
  t.intra = link;
  t.inter = link;
  t.nics_per_node = 1;
  t.oversubscription = 1.0;
  t.placement = Placement::kPacked;
  return t;
}

Topology scaled_topology(const Topology& topology, std::int64_t ranks) {
  require_ranks(static_cast<double>(ranks));
  Topology t = topology;
  if (ranks == topology.ranks()) return t;
  if (topology.placement == Placement::kExplicit) {
    throw InputError(fmt::format(
        "{} ranks requested, but the fabric's explicit rank_to_node list places {}", ranks,
        topology.ranks()));
  }
  if (ranks < topology.ranks_per_node) {
    t.nodes = 1;
    t.ranks_per_node = ranks;
  } else if (ranks % topology.ranks_per_node == 0) {
    t.nodes = ranks / topology.ranks_per_node;
  } else {
    throw InputError(fmt::format(
        "{} ranks do not fill whole nodes of {} ranks each (use a multiple of {}, or fewer "
        "than {})",
        ranks, topology.ranks_per_node, topology.ranks_per_node, topology.ranks_per_node));
  }
  return t;
}

void require_valid(const Topology& t) {
  if (t.nodes < 1) throw InputError(fmt::format("nodes {} is below 1", t.nodes));
  if (t.ranks_per_node < 1) {
    throw InputError(fmt::format("ranks per node {} is below 1", t.ranks_per_node));
  }
  if (t.nodes > kMaxRanks / t.ranks_per_node) {
    throw InputError(fmt::format("{} nodes x {} ranks per node is above the limit of 2^40 ranks",
                                 t.nodes, t.ranks_per_node));
  }
  if (t.nics_per_node < 1) {
    throw InputError(fmt::format("NICs per node {} is below 1", t.nics_per_node));
  }
  // The local costs: seconds per byte, from 0 to 1 s.
  const auto local_rate = [](double s_per_byte, std::string_view key, std::string_view what) {
    if (!(s_per_byte >= 0) || !std::isfinite(s_per_byte) || s_per_byte > 1.0) {
      throw InputError(
          fmt::format("{} {} s/B is not {} per byte in [0, 1 s]", key, s_per_byte, what));
    }
  };
  local_rate(t.gamma_s_per_byte, "gamma", "a reduction cost");
  local_rate(t.copy.s_per_byte, "copy", "a copy cost");
  local_rate(t.alloc.s_per_byte, "alloc", "an allocation cost");
  local_rate(t.sent_reduction.s_per_byte, "sent_reduction", "a reduction cost");
  local_rate(t.sent_exchange.s_per_byte, "sent_exchange", "an exchange cost");
  if (!(t.local_min_bytes >= 0) || !std::isfinite(t.local_min_bytes)) {
    throw InputError(fmt::format("local_min_bytes {} B is not a size (0: none)",
                                 t.local_min_bytes));
  }
  if (t.working_set_ranks < 0 || t.working_set_ranks > kMaxRanks) {
    throw InputError(fmt::format(
        "working_set_ranks {} is not a rank count (0: every step priced at its own size)",
        t.working_set_ranks));
  }
  if (!std::isfinite(t.oversubscription)) {
    throw InputError(fmt::format(
        "oversubscription {} is not a finite number (1 is a non-blocking fabric, 2 is 2:1)",
        t.oversubscription));
  }
  if (!(t.oversubscription >= 1.0)) {
    throw InputError(fmt::format(
        "oversubscription {} is below 1 (1 is a non-blocking fabric, 2 is 2:1)",
        t.oversubscription));
  }
  try {
    require_valid(t.intra);
  } catch (const InputError& e) {
    throw InputError(std::string("intra-node link: ") + e.what());
  }
  try {
    require_valid(t.inter);
  } catch (const InputError& e) {
    throw InputError(std::string("inter-node link: ") + e.what());
  }
  if (t.placement == Placement::kExplicit) {
    if (static_cast<std::int64_t>(t.rank_to_node.size()) != t.ranks()) {
      throw InputError(fmt::format("rank_to_node lists {} ranks, but {} nodes x {} ranks per node "
                                   "is {}",
                                   t.rank_to_node.size(), t.nodes, t.ranks_per_node, t.ranks()));
    }
    std::vector<std::int64_t> count(static_cast<std::size_t>(t.nodes), 0);
    for (std::size_t r = 0; r < t.rank_to_node.size(); ++r) {
      const std::int64_t node = t.rank_to_node[r];
      if (node < 0 || node >= t.nodes) {
        throw InputError(fmt::format("rank_to_node[{}] = {} is not a node in [0, {})", r, node,
                                     t.nodes));
      }
      ++count[static_cast<std::size_t>(node)];
    }
    for (std::size_t n = 0; n < count.size(); ++n) {
      if (count[n] != t.ranks_per_node) {
        throw InputError(fmt::format("rank_to_node puts {} ranks on node {}, expected {}",
                                     count[n], n, t.ranks_per_node));
      }
    }
  } else if (!t.rank_to_node.empty()) {
    throw InputError(fmt::format("rank_to_node is given, but placement is {}",
                                 placement_name(t.placement)));
  }
}

}  // namespace scalewall
