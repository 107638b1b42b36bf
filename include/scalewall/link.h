// scalewall/link.h: the cost of one point-to-point message (seed D01, section 3.1).
//
// Hockney's alpha-beta model: sending m bytes costs
//   T(m) = alpha + m * beta,   beta = 1 / bandwidth
// alpha is the start-up latency in seconds (software stack, handshake, flight time); beta the
// inverse bandwidth in seconds per byte. The two terms are equal at the crossover size
//   m* = alpha / beta = alpha * bandwidth
// below which a message pays mostly for being sent at all (latency-bound) and above which
// only bandwidth matters (bandwidth-bound). A message within 2x of m* either way is
// "balanced": m*/2 <= m <= 2 m*.
#ifndef SCALEWALL_LINK_H_
#define SCALEWALL_LINK_H_

#include <string_view>

namespace scalewall {

// An alpha-beta link.
struct Link {
  double alpha_s = 2.5e-6;          // start-up latency, seconds. Default: 2.5 us.
  double bandwidth_Bps = 25e9;      // sustained bandwidth, bytes per second. Default: 25 GB/s.

  double beta_s_per_byte() const { return 1.0 / bandwidth_Bps; }
};

// The default link of every command that needs one and is given none: 2.5 us, 25 GB/s
// (the seed's Lab 2 link, an inter-node RDMA-class fabric).
inline constexpr Link kDefaultLink{};

// Throws InputError unless alpha > 0 and bandwidth > 0, both finite. The message names the
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
