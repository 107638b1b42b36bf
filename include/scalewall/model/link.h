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
//
// A piecewise link (seed D01 section 3.1's "protocol switch"; SimGrid's piecewise network
// factors) is a short list of size regimes: messages from `from_bytes` up to the next regime's
// start cost that regime's alpha + m / bandwidth (and carry its o and g). An MPI library's
// eager protocol below a few KiB and its rendezvous protocol above, or a cache that holds small
// buffers, are two regimes with their own line. A message is always priced in the regime of
// its own size: a ring all-reduce of m bytes over N ranks sends m/N-byte chunks, priced in the
// regime of m/N, not of m. A one-regime link is the plain Hockney line.
#ifndef SCALEWALL_LINK_H_
#define SCALEWALL_LINK_H_

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace scalewall {

// One size regime of a link: messages of at least `from_bytes` (up to the next regime's start).
struct LinkRegime {
  double from_bytes = 0;      // where the regime starts, bytes (0 for the first)
  double alpha_s = 0;         // start-up latency, seconds
  double bandwidth_Bps = 0;   // bytes per second
  double overhead_s = 0;      // LogGP o, inside alpha_s
  double gap_s = 0;           // LogGP g
  friend bool operator==(const LinkRegime&, const LinkRegime&) = default;
};

// At most this many regimes per link: SimGrid's default network model has nine segments, an
// MPI library two or three protocols; a fit is allowed no more (calibrate.h).
inline constexpr std::size_t kMaxLinkRegimes = 10;

// The reduction cost (gamma, seconds per byte reduced) by the size of what one step reduces:
// on a CPU the rate falls when the buffers leave the caches. `gamma` fields elsewhere hold the
// first regime (from 0 B); these are the regimes above it, ascending.
struct ReductionRegime {
  double from_bytes = 0;
  double gamma_s_per_byte = 0;
  friend bool operator==(const ReductionRegime&, const ReductionRegime&) = default;
};
struct ReductionRegimes {
  std::array<ReductionRegime, kMaxLinkRegimes - 1> above{};
  std::size_t count = 0;
  // The gamma of a step reducing `bytes`: the last regime starting at most there, else
  // `first` (the gamma from 0 B).
  double at(double first, double bytes) const {
    double g = first;
    for (std::size_t i = 0; i < count && above[i].from_bytes <= bytes; ++i) {
      g = above[i].gamma_s_per_byte;
    }
    return g;
  }
};

// The local copy an out-of-place MPI call makes of its input before it communicates (the
// input into the output buffer, or into a work buffer): seconds per byte copied, by the size
// of the copy. Like gamma, a memory-bandwidth question on a CPU; 0 (free) unless measured
// (scalewall-mpi reduce times it). `above` holds the regimes above the first, ascending; their
// gamma_s_per_byte field is the copy's seconds per byte.
struct CopyCost {
  double s_per_byte = 0;
  ReductionRegimes above;
  double at(double bytes) const { return above.at(s_per_byte, bytes); }
  bool free() const { return s_per_byte == 0 && above.count == 0; }
};

// An alpha-beta link. Its own fields are the first regime (messages from 0 B); `above` holds
// the further regimes, if any, in ascending order of from_bytes. Fixed capacity, so that a link
// stays a value that is cheap to copy.
struct Link {
  double alpha_s = 2.5e-6;          // start-up latency, seconds. Default: 2.5 us.
  double bandwidth_Bps = 25e9;      // sustained bandwidth, bytes per second. Default: 25 GB/s.
  double overhead_s = 0.0;          // LogGP o, already inside alpha_s (0 for alpha-beta links)
  double gap_s = 0.0;               // LogGP g, the least interval between injections from one
                                    // NIC (0 for alpha-beta links: no injection limit)
  std::array<LinkRegime, kMaxLinkRegimes - 1> above{};  // regimes 2.. (above_count of them)
  std::size_t above_count = 0;
  // Contention between the two directions, in a step where every rank both sends and
  // receives (a ring step, a recursive-doubling exchange): on a half-duplex link the two
  // share one rate; on a full-duplex link each runs at the full rate, less the reverse
  // traffic that each message also puts on the other direction (TCP acknowledgements;
  // SimGrid's cross-traffic, 5% by default), a fraction of its bytes. Such a step's bytes
  // cost bidirectional_factor() times their one-way time.
  bool half_duplex = false;     // default: full duplex
  double reverse_traffic = 0;   // >= 0, below 1. Default: 0
  // Measured exchanges (scalewall-mpi exchange: both ranks of a pair send m bytes to each
  // other at once), as size regimes of their own, the first from 0 B. When there are any, a
  // step where every rank both sends and receives prices its messages here, in the regime of
  // their size, and bidirectional_factor() does not apply to it: the measurement already holds
  // whatever the two directions cost each other (a shared memory bus, a half-duplex wire, the
  // progress engine serving both). None (the default): one-way regimes x bidirectional_factor().
  std::array<LinkRegime, kMaxLinkRegimes> exchange{};
  std::size_t exchange_count = 0;

  double beta_s_per_byte() const { return 1.0 / bandwidth_Bps; }
  // (1 + reverse_traffic), doubled on a half-duplex link: 1 for a plain full-duplex link.
  double bidirectional_factor() const {
    return (half_duplex ? 2.0 : 1.0) * (1.0 + reverse_traffic);
  }

  // How many size regimes the link has (1 for a plain Hockney link).
  std::size_t regime_count() const { return 1 + above_count; }
  bool piecewise() const { return above_count > 0; }
  // Regime i (0: the link's own fields, from 0 B). REQUIRES: i < regime_count().
  LinkRegime regime(std::size_t i) const;
  // The index of the regime that prices a message of `bytes` bytes: the last one whose
  // from_bytes is at most `bytes`.
  std::size_t regime_index(double bytes) const;
  // The one-regime link that prices a message of `bytes` bytes.
  Link at(double bytes) const;
  // The one-regime link that prices a message of `bytes` bytes in a step where every rank
  // both sends and receives: the exchange regime of that size (full duplex, no reverse
  // traffic: bidirectional_factor() is 1) when the link has exchange regimes, else at(bytes).
  Link both_ways_at(double bytes) const;
  bool has_exchange() const { return exchange_count > 0; }
  // The same link with fn(LinkRegime&) applied to every regime (a NIC shared by several
  // streams, an injection gap added to alpha, a degraded link): from_bytes must not change.
  template <typename Fn>
  Link each_regime(Fn&& fn) const;
};

// The default link of every command that needs one and is given none: 2.5 us, 25 GB/s
// (the seed's Lab 2 link, an inter-node RDMA-class fabric).
inline constexpr Link kDefaultLink{};

// A link from LogGP parameters: alpha = L + 2o, the given bandwidth (1/G), o and g kept.
// REQUIRES: L, o, g >= 0 and finite, bandwidth > 0 (throws InputError naming the value).
Link link_from_loggp(double L_s, double o_s, double g_s, double bandwidth_Bps);

// A link of the given regimes. REQUIRES (throws InputError naming the value): 1 to
// kMaxLinkRegimes regimes, the first from 0 B, the others strictly ascending and finite, each
// valid as below.
Link piecewise_link(std::span<const LinkRegime> regimes);

// `link` with the exchange regimes of `exchange` (its own regimes, as piecewise_link takes
// them: 1 to kMaxLinkRegimes, the first from 0 B, ascending). REQUIRES as piecewise_link.
Link with_exchange(Link link, std::span<const LinkRegime> exchange);
// The same with the regimes of `measured`, a valid link (its duplex keys are not used).
Link with_exchange(Link link, const Link& measured);

// The exchange regimes of `link` as a link of their own (the one-way regimes when it has none).
Link exchange_link(const Link& link);

// Throws InputError unless, in every regime, alpha > 0 and bandwidth > 0, both finite, and
// overhead and gap are finite and >= 0 (overhead at most alpha / 2), and the regimes start
// at strictly ascending finite sizes above 0. The message names the bad value (and the regime
// when the link has several).
void require_valid(const Link& link);

// The two terms of one message's cost.
struct MessageCost {
  double bytes = 0;        // message size, bytes
  double latency_s = 0;    // alpha
  double bandwidth_s = 0;  // bytes * beta
  double total_s = 0;      // latency_s + bandwidth_s
};

// Hockney cost of one message of `bytes` bytes, in the regime of its size. REQUIRES: valid
// link, bytes >= 0 (throws InputError otherwise). A zero-byte message costs alpha.
MessageCost message_cost(const Link& link, double bytes);

// m* = alpha * bandwidth, in bytes. REQUIRES: valid link. On a piecewise link, the m* of the
// first regime that holds its own m* (alpha_r bandwidth_r inside the regime's sizes); when
// none does, the start of the first regime whose messages are all bandwidth-bound (m* below
// its start), or the last regime's m* when every regime is latency-bound.
double crossover_bytes(const Link& link);

enum class Regime { kLatencyBound, kBalanced, kBandwidthBound };

// "latency-bound", "balanced" or "bandwidth-bound".
std::string_view regime_name(Regime regime);

// latency-bound when bytes < m*/2, bandwidth-bound when bytes > 2 m*, balanced otherwise, m*
// being that of the message's own regime.
// A size within a relative 1e-12 of a boundary counts as on it (balanced), so that decimal
// inputs that meet a boundary exactly (2.5 us x 25 GB/s / 2 = 31,250 B) are not pushed off it
// by binary rounding. REQUIRES: valid link, bytes >= 0 (throws InputError otherwise).
Regime classify_message(const Link& link, double bytes);

template <typename Fn>
Link Link::each_regime(Fn&& fn) const {
  Link out = *this;
  LinkRegime first = regime(0);
  fn(first);
  out.alpha_s = first.alpha_s;
  out.bandwidth_Bps = first.bandwidth_Bps;
  out.overhead_s = first.overhead_s;
  out.gap_s = first.gap_s;
  for (std::size_t i = 0; i < above_count; ++i) {
    const double from = out.above[i].from_bytes;
    fn(out.above[i]);
    out.above[i].from_bytes = from;
  }
  for (std::size_t i = 0; i < exchange_count; ++i) {
    const double from = out.exchange[i].from_bytes;
    fn(out.exchange[i]);
    out.exchange[i].from_bytes = from;
  }
  return out;
}

}  // namespace scalewall

#endif  // SCALEWALL_LINK_H_
