// scalewall/model/link.h: the cost of one point-to-point message (seed D01, section 3.1).
//
// Hockney's alpha-beta model: sending m bytes costs
//   T(m) = alpha + m * beta,   beta = 1 / bandwidth
// alpha is the start-up latency in seconds (software stack, handshake, flight time); beta the
// inverse bandwidth in seconds per byte. The two terms are equal at the crossover size
//   m* = alpha / beta = alpha * bandwidth
// below which a message pays mostly for being sent at all (latency-bound) and above which
// only bandwidth matters (bandwidth-bound). A message within 2x of m* either way is
// "balanced": m*/2 <= m <= 2 m*.
//
// LogGP (Culler et al. 1993; Alexandrov et al. 1995; seed D01 section 3.2) refines alpha into
// L (wire latency) and o (the CPU overhead each of sender and receiver pays per message, which
// nothing can overlap), and adds g, the gap: the least interval between two injections from
// one NIC. A message then costs L + 2o + m G, so alpha = L + 2o and bandwidth = 1/G. The gap
// matters when several messages leave one NIC at once: the k-th waits (k - 1) g before it can
// start. link_from_loggp keeps o and g so that collective costs can charge them.
#ifndef SCALEWALL_LINK_H_
#define SCALEWALL_LINK_H_

#include <string_view>

namespace scalewall {

// An alpha-beta link.
struct Link {
  double alpha_s = 2.5e-6;          // start-up latency, seconds. Default: 2.5 us.
  double bandwidth_Bps = 25e9;      // sustained bandwidth, bytes per second. Default: 25 GB/s.
  double overhead_s = 0.0;          // LogGP o, already inside alpha_s (0 for alpha-beta links)
  double gap_s = 0.0;               // LogGP g, the least interval between injections from one
                                    // NIC (0 for alpha-beta links: no injection limit)

  double beta_s_per_byte() const { return 1.0 / bandwidth_Bps; }
};

// The default link of every command that needs one and is given none: 2.5 us, 25 GB/s
// (the seed's Lab 2 link, an inter-node RDMA-class fabric).
inline constexpr Link kDefaultLink{};

// A link from LogGP parameters: alpha = L + 2o, the given bandwidth (1/G), o and g kept.
// REQUIRES: L, o, g >= 0 and finite, bandwidth > 0 (throws InputError naming the value).
Link link_from_loggp(double L_s, double o_s, double g_s, double bandwidth_Bps);

// Throws InputError unless alpha > 0 and bandwidth > 0, both finite, and overhead and gap are
// finite and >= 0 (overhead at most alpha / 2). The message names the
// bad value.
void require_valid(const Link& link);

// The two terms of one message's cost.
struct MessageCost {
  double bytes = 0;        // message size, bytes
  double latency_s = 0;    // alpha
  double bandwidth_s = 0;  // bytes * beta
  double total_s = 0;      // latency_s + bandwidth_s
};

// Hockney cost of one message of `bytes` bytes. REQUIRES: valid link, bytes >= 0 (throws
// InputError otherwise). A zero-byte message costs alpha.
MessageCost message_cost(const Link& link, double bytes);

// m* = alpha * bandwidth, in bytes. REQUIRES: valid link.
double crossover_bytes(const Link& link);

enum class Regime { kLatencyBound, kBalanced, kBandwidthBound };

// "latency-bound", "balanced" or "bandwidth-bound".
std::string_view regime_name(Regime regime);

// latency-bound when bytes < m*/2, bandwidth-bound when bytes > 2 m*, balanced otherwise.
// A size within a relative 1e-12 of a boundary counts as on it (balanced), so that decimal
// inputs that meet a boundary exactly (2.5 us x 25 GB/s / 2 = 31,250 B) are not pushed off it
// by binary rounding. REQUIRES: valid link, bytes >= 0 (throws InputError otherwise).
Regime classify_message(const Link& link, double bytes);

}  // namespace scalewall

#endif  // SCALEWALL_LINK_H_
