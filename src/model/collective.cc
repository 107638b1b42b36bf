// Implementation of scalewall/model/collective.h.
//
// Every flat algorithm is written once, as a schedule: a list of phases, each a communication
// pattern (who sends to whom), how many identical steps it repeats, and the bytes each sender
// moves and each receiver reduces per step. Each (op, algorithm) has its builder, reached
// through its entry in kCatalogue (collective.h). One evaluator turns a schedule into a cost on a
// uniform link (closed form: steps * alpha + bytes * beta), another on a two-level topology
// (each step paced by its slowest edge). The cost table, the ranking, the tie points and the
// topology costs all come from the same schedules, so they cannot disagree.
#include "scalewall/model/collective.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "scalewall/base/error.h"
#include "scalewall/model/scaling.h"

namespace scalewall {
namespace {

// floor(log2 n) for n >= 1, from the bit width: exact for every int64, no floating log.
std::int64_t floor_log2(std::int64_t n) {
  SCALEWALL_CHECK(n >= 1);
  return static_cast<std::int64_t>(std::bit_width(static_cast<std::uint64_t>(n))) - 1;
}

// ceil(log2 n) for n >= 1.
std::int64_t ceil_log2(std::int64_t n) {
  SCALEWALL_CHECK(n >= 1);
  return n == 1 ? 0
                : static_cast<std::int64_t>(std::bit_width(static_cast<std::uint64_t>(n - 1)));
}

std::int64_t pow2(std::int64_t k) { return std::int64_t{1} << k; }

// ---------------------------------------------------------------------------------------
// Schedules.

enum class Pattern {
  kShift,         // every rank r sends to (r + distance) mod N
  kShiftRange,    // step k = 1..repeat: every rank r sends to (r + k) mod N
  kXor,           // ranks r < p exchange with r XOR distance (p = 2^floor(log2 N))
  kFoldIn,        // extra rank p + i sends to rank i, i < N - p
  kFoldOut,       // rank i sends to extra rank p + i
  kBinomialUp,    // ranks r < limit with r mod 2d == d send to r - d (toward rank 0)
  kBinomialDown,  // rank r - d sends to r, for the same r (away from rank 0)
};

struct Phase {
  Pattern pattern = Pattern::kShift;
  std::int64_t distance = 1;  // shift, xor mask, or binomial distance d
  std::int64_t repeat = 1;    // identical steps (kShiftRange: steps with shifts 1..repeat)
  double bytes = 0;           // bytes each sender sends in one step
  double reduced = 0;         // bytes each receiver reduces in one step
  std::int64_t limit = 0;     // kBinomial*: ranks taking part
  bool at_once = false;       // kShiftRange: the repeat steps run at once, as one step (one
                              // latency; their bytes share each rank's link)
  bool into_sent = false;     // each receiver reduces into the buffer it has just sent
                              // (CostOptions::sent_reduction)
  bool receive_into_sent = false;  // each receiver receives into a block it sent earlier in
                                   // the call (CostOptions::sent_exchange)
};

using Schedule = std::vector<Phase>;

// Whether every rank both sends and receives in a step of the pattern (so that the two
// directions of its link contend: Link::bidirectional_factor). A fold or a binomial step gives
// each rank one role.
bool both_ways(Pattern pattern) {
  return pattern == Pattern::kShift || pattern == Pattern::kShiftRange || pattern == Pattern::kXor;
}

// The facts every schedule needs about N.
struct Ranks {
  std::int64_t n;      // N
  std::int64_t p;      // 2^floor(log2 N)
  std::int64_t lg;     // floor(log2 N)
  std::int64_t clg;    // ceil(log2 N)
  std::int64_t extra;  // N - p
  explicit Ranks(std::int64_t ranks)
      : n(ranks), p(pow2(floor_log2(ranks))), lg(floor_log2(ranks)), clg(ceil_log2(ranks)),
        extra(ranks - pow2(floor_log2(ranks))) {}
  double nd() const { return static_cast<double>(n); }
  double pd() const { return static_cast<double>(p); }
};

void add(Schedule& s, Phase phase) {
  if (phase.repeat > 0) s.push_back(phase);
}

// Ring: N-1 steps to the right neighbour, m/N each (Patarasuk and Yuan 2009).
// `into_sent`: each step receives into a block this rank sent earlier in the call (the
// all-gather half of a ring all-reduce: rank r receives block r - s in step s, the block it
// sent in step s of the reduce-scatter half).
void ring_steps(Schedule& s, const Ranks& r, double m, bool reduce, bool into_sent = false) {
  add(s, {Pattern::kShift, 1, r.n - 1, m / r.nd(), reduce ? m / r.nd() : 0.0, 0, false, false,
          into_sent});
}

// Recursive halving over the p core ranks: step j exchanges m / 2^(j+1) with rank XOR 2^j and
// reduces what arrives (nearest partner first, as MPICH's Rabenseifner code does).
void halving_steps(Schedule& s, const Ranks& r, double m) {
  for (std::int64_t j = 0; j < r.lg; ++j) {
    const double chunk = m / static_cast<double>(pow2(j + 1));
    add(s, {Pattern::kXor, pow2(j), 1, chunk, chunk, 0});
  }
}

// Recursive doubling of the gathered blocks, the mirror of halving_steps. `into_sent`: each
// step receives into the half that this rank sent in the halving step of the same partner
// (Rabenseifner's all-gather).
void doubling_gather_steps(Schedule& s, const Ranks& r, double m, bool into_sent = false) {
  for (std::int64_t j = r.lg - 1; j >= 0; --j) {
    add(s, {Pattern::kXor, pow2(j), 1, m / static_cast<double>(pow2(j + 1)), 0.0, 0, false,
            false, into_sent});
  }
}

// The fold for N not a power of two (Rabenseifner 2004; Thakur et al. 2005): the N - p extra
// ranks hand their data to a partner among the first N - p core ranks before the core runs
// the power-of-two algorithm, and get the result back after it.
void fold_in(Schedule& s, const Ranks& r, double bytes, double reduced) {
  if (r.extra > 0) add(s, {Pattern::kFoldIn, 0, 1, bytes, reduced, 0});
}
void fold_out(Schedule& s, const Ranks& r, double bytes) {
  if (r.extra > 0) add(s, {Pattern::kFoldOut, 0, 1, bytes, 0.0, 0});
}

// Binomial tree toward rank 0 (reduce, gather) over `limit` ranks; step j pairs ranks 2^j
// apart. `bytes_at(j)` is what a sender moves in step j.
template <typename BytesAt>
void binomial_up(Schedule& s, std::int64_t steps, std::int64_t limit, BytesAt bytes_at,
                 bool reduce) {
  for (std::int64_t j = 0; j < steps; ++j) {
    const double b = bytes_at(j);
    add(s, {Pattern::kBinomialUp, pow2(j), 1, b, reduce ? b : 0.0, limit});
  }
}
// Binomial tree away from rank 0 (broadcast, scatter), farthest partner first.
template <typename BytesAt>
void binomial_down(Schedule& s, std::int64_t steps, std::int64_t limit, BytesAt bytes_at) {
  for (std::int64_t j = steps - 1; j >= 0; --j) {
    add(s, {Pattern::kBinomialDown, pow2(j), 1, bytes_at(j), 0.0, limit});
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------
// The catalogue's schedule builders, one per flat (op, algorithm).

namespace detail {

struct ScheduleDraft {
  ScheduleDraft(std::int64_t ranks, double bytes) : r(ranks), m(bytes), block(bytes / r.nd()) {}
  Ranks r;
  double m;      // the buffer per rank
  double block;  // m / N
  Schedule s;
};

void schedule_allreduce_ring(ScheduleDraft& d) {
  ring_steps(d.s, d.r, d.m, true);         // reduce-scatter
  ring_steps(d.s, d.r, d.m, false, true);  // all-gather, into the blocks sent above
}

void schedule_allreduce_recursive_doubling(ScheduleDraft& d) {
  fold_in(d.s, d.r, d.m, d.m);
  // Each step sends the whole vector and adds what arrives into that same vector.
  for (std::int64_t j = 0; j < d.r.lg; ++j) {
    add(d.s, {Pattern::kXor, pow2(j), 1, d.m, d.m, 0, false, true});
  }
  fold_out(d.s, d.r, d.m);
}

void schedule_allreduce_rabenseifner(ScheduleDraft& d) {
  fold_in(d.s, d.r, d.m, d.m);
  halving_steps(d.s, d.r, d.m);
  doubling_gather_steps(d.s, d.r, d.m, true);
  fold_out(d.s, d.r, d.m);
}

// SMPI's rab1: recursive halving, farthest partner first (step k exchanges m / 2^k with rank
// XOR p / 2^k), then one round in which every core rank sends its block m/p to each of the
// other p - 1 at once (its all-gather is a nonblocking all-to-all of sends). N not a power of
// two folds first, as rabenseifner does (SMPI's rab1 refuses such N).
void schedule_allreduce_rabenseifner_linear(ScheduleDraft& d) {
  fold_in(d.s, d.r, d.m, d.m);
  for (std::int64_t j = d.r.lg - 1; j >= 0; --j) {
    const double chunk = d.m / static_cast<double>(pow2(d.r.lg - j));
    add(d.s, {Pattern::kXor, pow2(j), 1, chunk, chunk, 0});
  }
  if (d.r.p > 1) {
    add(d.s, {Pattern::kShiftRange, 1, d.r.p - 1, d.m / d.r.pd(), 0.0, 0, true});
  }
  fold_out(d.s, d.r, d.m);
}

void schedule_allreduce_binomial_tree(ScheduleDraft& d) {
  const auto whole = [&](std::int64_t) { return d.m; };
  binomial_up(d.s, d.r.clg, d.r.n, whole, true);  // reduce to rank 0
  binomial_down(d.s, d.r.clg, d.r.n, whole);      // broadcast from rank 0
}

void schedule_reduce_scatter_ring(ScheduleDraft& d) { ring_steps(d.s, d.r, d.m, true); }

void schedule_reduce_scatter_recursive_halving(ScheduleDraft& d) {
  fold_in(d.s, d.r, d.m, d.m);
  halving_steps(d.s, d.r, d.m);
  fold_out(d.s, d.r, d.block);  // the extra rank's own block of the result
}

void schedule_allgather_ring(ScheduleDraft& d) { ring_steps(d.s, d.r, d.m, false); }

// Power of two: step j sends the 2^j blocks gathered so far. Otherwise each extra rank first
// hands its block to its partner, so a core rank holds up to two blocks: in step j the
// heaviest sender holds 2^j + min(N - p, 2^j) blocks. The partners finally send the extra
// ranks everything but their own block.
void schedule_allgather_recursive_doubling(ScheduleDraft& d) {
  fold_in(d.s, d.r, d.block, 0.0);
  for (std::int64_t j = 0; j < d.r.lg; ++j) {
    const double blocks = static_cast<double>(pow2(j) + std::min(d.r.extra, pow2(j)));
    add(d.s, {Pattern::kXor, pow2(j), 1, blocks * d.block, 0.0, 0});
  }
  fold_out(d.s, d.r, d.block * (d.r.nd() - 1.0));
}

// Step j sends the min(2^j, N - 2^j) blocks gathered so far to rank r - 2^j.
void schedule_allgather_bruck(ScheduleDraft& d) {
  for (std::int64_t j = 0; j < d.r.clg; ++j) {
    const double blocks = static_cast<double>(std::min(pow2(j), d.r.n - pow2(j)));
    add(d.s, {Pattern::kShift, d.r.n - pow2(j), 1, blocks * d.block, 0.0, 0});
  }
}

void schedule_broadcast_binomial_tree(ScheduleDraft& d) {
  binomial_down(d.s, d.r.clg, d.r.n, [&](std::int64_t) { return d.m; });
}

// Binomial scatter (the sender of step j hands over the blocks of a subtree of at most
// min(2^j, N - 2^j) ranks), then a ring all-gather (van de Geijn; Thakur et al. 2005
// section 3).
void schedule_broadcast_scatter_allgather(ScheduleDraft& d) {
  binomial_down(d.s, d.r.clg, d.r.n, [&](std::int64_t j) {
    return static_cast<double>(std::min(pow2(j), d.r.n - pow2(j))) * d.block;
  });
  ring_steps(d.s, d.r, d.m, false);
}

void schedule_reduce_binomial_tree(ScheduleDraft& d) {
  binomial_up(d.s, d.r.clg, d.r.n, [&](std::int64_t) { return d.m; }, true);
}

// Reduce-scatter by recursive halving, then a binomial gather of the p blocks to rank 0
// (Rabenseifner 2004).
void schedule_reduce_rabenseifner(ScheduleDraft& d) {
  fold_in(d.s, d.r, d.m, d.m);
  halving_steps(d.s, d.r, d.m);
  binomial_up(
      d.s, d.r.lg, d.r.p,
      [&](std::int64_t j) { return static_cast<double>(pow2(j)) * d.m / d.r.pd(); }, false);
}

void schedule_alltoall_pairwise(ScheduleDraft& d) {
  add(d.s, {Pattern::kShiftRange, 0, d.r.n - 1, d.block, 0.0, 0});
}

// Step j sends to r + 2^j every block whose index has bit j set (Bruck et al. 1997); the
// local rotations before and after are memory copies, not charged.
void schedule_alltoall_bruck(ScheduleDraft& d) {
  for (std::int64_t j = 0; j < d.r.clg; ++j) {
    const std::int64_t period = pow2(j + 1);
    const std::int64_t with_bit =
        (d.r.n / period) * pow2(j) + std::max<std::int64_t>(0, d.r.n % period - pow2(j));
    add(d.s, {Pattern::kShift, pow2(j) % d.r.n, 1, static_cast<double>(with_bit) * d.block,
              0.0, 0});
  }
}

// Round j: signal rank r + 2^j, wait for rank r - 2^j (Hensgen, Finkel and Manber 1988).
// Zero bytes: only alpha.
void schedule_barrier_dissemination(ScheduleDraft& d) {
  for (std::int64_t j = 0; j < d.r.clg; ++j) {
    add(d.s, {Pattern::kShift, pow2(j) % d.r.n, 1, 0.0, 0.0, 0});
  }
}

}  // namespace detail

namespace {

// The flat schedule of (op, algorithm) from its catalogue entry. REQUIRES: the entry exists
// and has a schedule.
Schedule flat_schedule(Op op, Algorithm algorithm, std::int64_t ranks, double m) {
  const CatalogueEntry* entry = catalogue_entry(op, algorithm);
  SCALEWALL_CHECK(entry != nullptr && entry->schedule != nullptr);
  detail::ScheduleDraft draft(ranks, m);
  entry->schedule(draft);
  return std::move(draft.s);
}

// ---------------------------------------------------------------------------------------
// Evaluation.

struct Totals {
  std::int64_t steps = 0;
  double bytes = 0;
  double reduced = 0;
  double latency_s = 0;
  double overhead_s = 0;  // of latency_s, the LogGP o: 2o per step (one send, one receive)
  double bandwidth_s = 0;
  double compute_s = 0;

  void add(const Totals& o) {
    steps += o.steps;
    bytes += o.bytes;
    reduced += o.reduced;
    latency_s += o.latency_s;
    overhead_s += o.overhead_s;
    bandwidth_s += o.bandwidth_s;
    compute_s += o.compute_s;
  }
};

// The bandwidth term of a step whose messages land in blocks sent earlier in the call: the
// measured exchange into a sent buffer (`sent_s`, its whole time, latency included: its rate
// is fitted through the origin) less the step's latency, and never below the link's own
// `bandwidth_s`. Without such a measurement (`sent_s` 0) the link's term.
double sent_bandwidth_s(double bandwidth_s, double latency_s, double sent_s) {
  return std::max(bandwidth_s, sent_s - latency_s);
}

// A rate per byte at the working set's size `bytes`: the geometric mean of rate() over the
// octave about it (bytes / sqrt 2 .. bytes x sqrt 2, kWorkingSetSamples points). A measured
// sweep steps in octaves and a fitted regime changes at the geometric middle between two
// measured sizes, while a cache fills over a range of sizes: at a measured size the mean is
// close to that size's own rate, and between two measured sizes it moves from one to the
// other instead of jumping where the regimes meet. REQUIRES: rate() > 0.
constexpr int kWorkingSetSamples = 8;
template <typename Rate>
double octave_rate(double bytes, Rate&& rate) {
  double log_sum = 0;
  for (int i = 0; i < kWorkingSetSamples; ++i) {
    const double t = (i + 0.5) / kWorkingSetSamples - 0.5;
    log_sum += std::log(rate(bytes * std::exp2(t)));
  }
  return std::exp(log_sum / kWorkingSetSamples);
}

// The terms of one step: alpha, the LogGP overhead inside it (2o), and bytes x beta;
// `working_set` when the step's bytes are priced at the call's working set (terms_on).
struct StepTerms {
  double latency_s = 0;
  double overhead_s = 0;
  double bandwidth_s = 0;
  bool working_set = false;
  friend bool operator==(const StepTerms&, const StepTerms&) = default;
};

// The terms of one step of `bytes` per message on `piecewise`, in the regime of its size.
// When the call's working set (CostOptions::working_set_bytes, `working_set`) is larger than
// the message and the step is bandwidth-bound (bytes x beta above 2 alpha, as
// classify_message has it), the step takes the slower of its own time and `bytes` at the
// working set's time per byte (a message's whole cost over its bytes, octave_rate about the
// working set's size); the latency stays the step's own.
StepTerms terms_on(const Link& piecewise, double bytes, bool both, double working_set) {
  const auto priced = [&](double size) {
    const Link link = both ? piecewise.both_ways_at(size) : piecewise.at(size);
    const double f = both ? link.bidirectional_factor() : 1.0;
    return StepTerms{link.alpha_s, 2.0 * link.overhead_s, size * f / link.bandwidth_Bps};
  };
  StepTerms t = priced(bytes);
  if (working_set > bytes && t.bandwidth_s > 2.0 * t.latency_s) {
    const double per_byte = octave_rate(working_set, [&](double size) {
      const StepTerms at = priced(size);
      return (at.latency_s + at.bandwidth_s) / size;
    });
    t.bandwidth_s = std::max(t.bandwidth_s, bytes * per_byte - t.latency_s);
    t.working_set = true;
  }
  return t;
}

// A local rate per byte (`own`, that of `bytes`) for a step priced at the call's working set:
// the slower of it and rate() about working_set_bytes (octave_rate). 0 (the link prices the
// bytes, or the pass is free) stays 0.
template <typename Rate>
double working_set_rate(const CostOptions& options, double bytes, double own, Rate&& rate) {
  if (own == 0.0 || !(options.working_set_bytes > bytes)) return own;
  return std::max(own, octave_rate(options.working_set_bytes, rate));
}

// The reduction rate of a phase's steps (CostOptions::reduction_at), by the bytes one step
// reduces.
auto reduction_rate(const CostOptions& options, const Phase& phase) {
  return [&options, &phase](double b) { return options.reduction_at(b, phase.into_sent); };
}

// The time of a local pass over `bytes` at rate() seconds per byte in a call priced at its
// working set: the slower of the pass at its own size (CostOptions::local_pass_s, with the
// floor of the smallest local size) and `bytes` at the working set's rate.
template <typename Rate>
double working_set_pass_s(const CostOptions& options, double bytes, Rate&& rate) {
  return std::max(options.local_pass_s(bytes, rate),
                  bytes * working_set_rate(options, bytes, rate(bytes), rate));
}

// Calls fn(src, dst) for every message of one step of `ph` (step index `step`, 0-based).
template <typename Fn>
void for_each_edge(const Phase& ph, std::int64_t step, const Ranks& r, Fn&& fn) {
  switch (ph.pattern) {
    case Pattern::kShift:
    case Pattern::kShiftRange: {
      const std::int64_t d = ph.pattern == Pattern::kShift ? ph.distance : step + 1;
      for (std::int64_t src = 0; src < r.n; ++src) fn(src, (src + d) % r.n);
      return;
    }
    case Pattern::kXor:
      for (std::int64_t src = 0; src < r.p; ++src) fn(src, src ^ ph.distance);
      return;
    case Pattern::kFoldIn:
      for (std::int64_t i = 0; i < r.extra; ++i) fn(r.p + i, i);
      return;
    case Pattern::kFoldOut:
      for (std::int64_t i = 0; i < r.extra; ++i) fn(i, r.p + i);
      return;
    case Pattern::kBinomialUp:
    case Pattern::kBinomialDown: {
      const std::int64_t d = ph.distance;
      for (std::int64_t far = d; far < ph.limit; far += 2 * d) {
        if (ph.pattern == Pattern::kBinomialUp) {
          fn(far, far - d);
        } else {
          fn(far - d, far);
        }
      }
      return;
    }
  }
  SCALEWALL_CHECK(false && "unknown Pattern");
}

// The effective link of an inter-node edge when `streams` messages leave (or enter) one node
// in the same step: bandwidth shared among its NICs and cut by oversubscription; with LogGP,
// the last of them also waits for ceil(streams / NICs) - 1 injection gaps.
Link crossing_link(const Topology& t, std::int64_t streams) {
  const std::int64_t waves = (streams + t.nics_per_node - 1) / t.nics_per_node;
  if (waves == 1) return t.shared_inter(streams);
  const auto waits = static_cast<double>(waves - 1);
  return t.shared_inter(streams).each_regime([&](LinkRegime& r) { r.alpha_s += waits * r.gap_s; });
}

// What one step of a schedule does on a two-level topology, as far as its cost goes: whether
// some message stays inside a node, and the most messages that leave or enter one node
// (0 when none crosses). Every message of a step carries the same bytes, so the step is paced
// by the slower of the intra-node link (if used) and the inter-node link shared by that many
// streams (crossing_link is monotone in the stream count).
struct StepShape {
  bool intra = false;
  std::int64_t streams = 0;
};

// The terms of one step of `bytes` per message. On a tie the inter-node link paces the step.
StepTerms step_terms(const Topology& topo, const StepShape& shape, double bytes, bool both,
                     double working_set) {
  SCALEWALL_CHECK(shape.intra || shape.streams > 0);
  if (shape.streams == 0) return terms_on(topo.intra, bytes, both, working_set);
  const StepTerms across =
      terms_on(crossing_link(topo, shape.streams), bytes, both, working_set);
  if (shape.intra) {
    const StepTerms intra = terms_on(topo.intra, bytes, both, working_set);
    if (intra.latency_s + intra.bandwidth_s > across.latency_s + across.bandwidth_s) {
      return intra;
    }
  }
  return across;
}

// Adds a phase's steps to the totals. Consecutive steps with the same terms are added as one
// run (count times the terms), so that the edge-level and the closed-form evaluation, which
// produce the same steps in the same order, add exactly the same numbers.
class PhaseSum {
 public:
  PhaseSum(Totals& totals, const Phase& phase, const CostOptions& options)
      : t_(totals),
        ph_(phase),
        sent_(options.sent_exchange_at(phase.bytes, phase.receive_into_sent)),
        working_set_sent_(working_set_rate(options, phase.bytes, sent_, [&](double b) {
          return options.sent_exchange_at(b, phase.receive_into_sent);
        })),
        reduce_s_(options.local_pass_s(phase.reduced, reduction_rate(options, phase))),
        working_set_reduce_s_(
            working_set_pass_s(options, phase.reduced, reduction_rate(options, phase))) {}
  PhaseSum(const PhaseSum&) = delete;
  PhaseSum& operator=(const PhaseSum&) = delete;
  ~PhaseSum() {
    flush();
    if (!ph_.at_once || !any_) return;
    // The steps run at once: one step, paced by the slowest message's latency.
    t_.steps += 1;
    t_.latency_s += at_once_.latency_s;
    t_.overhead_s += at_once_.overhead_s;
  }

  void add(const StepTerms& terms, std::int64_t count) {
    if (count <= 0) return;
    if (count_ > 0 && terms == terms_) {
      count_ += count;
      return;
    }
    flush();
    terms_ = terms;
    count_ = count;
  }

 private:
  void flush() {
    if (count_ == 0) return;
    const auto k = static_cast<double>(count_);
    t_.bytes += k * ph_.bytes;
    t_.reduced += k * ph_.reduced;
    if (ph_.at_once) {
      any_ = true;
      at_once_.latency_s = std::max(at_once_.latency_s, terms_.latency_s);
      at_once_.overhead_s = std::max(at_once_.overhead_s, terms_.overhead_s);
    } else {
      t_.steps += count_;
      t_.latency_s += k * terms_.latency_s;
      t_.overhead_s += k * terms_.overhead_s;
    }
    const bool ws = terms_.working_set;
    t_.bandwidth_s += k * sent_bandwidth_s(terms_.bandwidth_s, terms_.latency_s,
                                           ph_.bytes * (ws ? working_set_sent_ : sent_));
    t_.compute_s += k * (ws ? working_set_reduce_s_ : reduce_s_);
    count_ = 0;
  }

  Totals& t_;
  const Phase& ph_;
  double sent_;  // CostOptions::sent_exchange_at for the phase: 0, the link prices the bytes
  double working_set_sent_;      // sent_ for a step priced at the working set
  double reduce_s_;              // one step's reduction (CostOptions::local_pass_s)
  double working_set_reduce_s_;  // the same, priced at the working set (working_set_pass_s)
  StepTerms terms_;
  std::int64_t count_ = 0;
  bool any_ = false;    // at_once: some step was added
  StepTerms at_once_;   // at_once: the largest latency and overhead of its steps
};

// A schedule on a piecewise link that every edge uses alike: each phase's messages priced in
// the regime of their own size (and the call's working set, terms_on).
Totals evaluate_uniform_piecewise(const Schedule& schedule, const Link& link,
                                  const CostOptions& options) {
  Totals t;
  for (const Phase& ph : schedule) {
    PhaseSum sum(t, ph, options);
    sum.add(terms_on(link, ph.bytes, both_ways(ph.pattern), options.working_set_bytes),
            ph.repeat);
  }
  return t;
}

// A schedule on one link that every edge uses alike: the closed form.
Totals evaluate_uniform(const Schedule& schedule, const Link& link, const CostOptions& options) {
  const bool into_sent = std::any_of(schedule.begin(), schedule.end(),
                                     [](const Phase& ph) { return ph.into_sent; });
  const bool receive_into_sent = std::any_of(
      schedule.begin(), schedule.end(), [](const Phase& ph) { return ph.receive_into_sent; });
  if (link.piecewise() || link.bidirectional_factor() != 1.0 || link.has_exchange() ||
      options.gamma_above.count > 0 || options.working_set_bytes > 0 ||
      options.local_min_bytes > 0 ||
      (into_sent && !options.sent_reduction.free()) ||
      (receive_into_sent && !options.sent_exchange.free())) {
    return evaluate_uniform_piecewise(schedule, link, options);
  }
  const double gamma = options.gamma_s_per_byte;
  Totals t;
  for (const Phase& ph : schedule) {
    const auto k = static_cast<double>(ph.repeat);
    t.steps += ph.at_once ? 1 : ph.repeat;
    t.bytes += k * ph.bytes;
    t.reduced += k * ph.reduced;
  }
  // Every step pays the same alpha and every byte the same beta: multiply once, so that the
  // terms are exactly steps * alpha, bytes / bandwidth and reduced * gamma.
  t.latency_s = static_cast<double>(t.steps) * link.alpha_s;
  t.overhead_s = static_cast<double>(t.steps) * 2.0 * link.overhead_s;
  t.bandwidth_s = t.bytes / link.bandwidth_Bps;
  t.compute_s = t.reduced * gamma;
  return t;
}

// The edge-level evaluation visits about one edge per rank per distinct step; beyond this it
// refuses before doing any work.
constexpr double kMaxEdgeVisits = 1e6;
// The closed form walks at most about 2 g residues per step on g ranks per node; beyond this
// many ranks per node the edge-level evaluation is used.
constexpr std::int64_t kMaxClosedFormRanksPerNode = 4096;

double edge_visits(const Schedule& schedule, const Ranks& r) {
  double visits = 0;
  for (const Phase& ph : schedule) {
    visits += static_cast<double>(ph.pattern == Pattern::kShiftRange ? ph.repeat : 1) * r.nd();
  }
  return visits;
}

// Edge-level evaluation on a two-level topology: every message of every distinct step is
// visited and counted against the NICs of its two nodes. Works for any placement.
Totals evaluate_by_edges(const Schedule& schedule, const Topology& topo, const CostOptions& gamma, Op op,
                         Algorithm algorithm) {
  const Ranks r(topo.ranks());
  const double visits = edge_visits(schedule, r);
  if (visits > kMaxEdgeVisits) {
    throw InputError(fmt::format(
        "{} ranks ({} nodes of {}, {} placement) are too many to cost {} edge by edge: {:.3g} "
        "edge visits, above the limit of {:.3g}; the closed form covers packed and scattered "
        "placement up to {} ranks per node; use fewer ranks or a flat link",
        r.n, topo.nodes, topo.ranks_per_node, placement_name(topo.placement),
        fmt::format("{} {}", algorithm_name(algorithm), op_name(op)), visits,
        kMaxEdgeVisits, kMaxClosedFormRanksPerNode));
  }
  std::vector<std::int64_t> node(static_cast<std::size_t>(r.n));
  for (std::int64_t i = 0; i < r.n; ++i) node[static_cast<std::size_t>(i)] = topo.node_of(i);
  std::vector<std::int64_t> out(static_cast<std::size_t>(topo.nodes));
  std::vector<std::int64_t> in(static_cast<std::size_t>(topo.nodes));

  Totals t;
  for (const Phase& ph : schedule) {
    const std::int64_t distinct = ph.pattern == Pattern::kShiftRange ? ph.repeat : 1;
    const std::int64_t times = ph.pattern == Pattern::kShiftRange ? 1 : ph.repeat;
    PhaseSum sum(t, ph, gamma);
    for (std::int64_t step = 0; step < distinct; ++step) {
      std::fill(out.begin(), out.end(), 0);
      std::fill(in.begin(), in.end(), 0);
      StepShape shape;
      for_each_edge(ph, step, r, [&](std::int64_t src, std::int64_t dst) {
        const std::int64_t a = node[static_cast<std::size_t>(src)];
        const std::int64_t b = node[static_cast<std::size_t>(dst)];
        if (a == b) {
          shape.intra = true;
        } else {
          ++out[static_cast<std::size_t>(a)];
          ++in[static_cast<std::size_t>(b)];
        }
      });
      shape.streams = std::max(*std::max_element(out.begin(), out.end()),
                               *std::max_element(in.begin(), in.end()));
      sum.add(step_terms(topo, shape, ph.bytes, both_ways(ph.pattern), gamma.working_set_bytes),
              times);
    }
  }
  return t;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// ---- Closed forms of the step shapes, packed and scattered placement (nodes M >= 2, g >= 2
// ranks per node, N = M g). Each counts, for one step, the messages that cross the node
// boundary per node, from the pattern's arithmetic instead of its edges.

// Packed, every rank r sends to (r + d) mod N. With d = q g + s, the first g - s ranks of a
// node send to node a + q, the last s to node a + q + 1; every node alike.
StepShape packed_shift(std::int64_t d, std::int64_t g, std::int64_t nodes) {
  const std::int64_t q = d / g;
  const std::int64_t s = d % g;
  if (q == 0) return {true, s};
  if (q == nodes - 1) return {s > 0, g - s};
  return {false, g};
}

// Scattered (node = r mod M): r + d is on r's node exactly when M divides d.
StepShape scattered_shift(std::int64_t d, std::int64_t g, std::int64_t nodes) {
  if (d % nodes == 0) return {true, 0};
  return {false, g};
}

// Packed, ranks r < p exchange with r XOR dist. When dist >= g every partner is on another
// node. Otherwise the pairs (y, y + dist) with bit dist of y clear that straddle a node
// boundary b (a multiple of g below p) number c(b) = the distance from b to the nearest
// multiple of 2 dist; node a loses c(a g) + c(a g + g) of its ranks to its neighbours. That
// depends on a g mod 2 dist only, which repeats every 2 dist / gcd(g, 2 dist) nodes.
StepShape packed_xor(std::int64_t dist, std::int64_t p, std::int64_t g) {
  if (dist >= g) return {false, g};
  const std::int64_t period2 = 2 * dist;
  const auto c = [&](std::int64_t b) {
    const std::int64_t w = b % period2;
    return std::min(w, period2 - w);
  };
  StepShape shape;
  const auto visit = [&](std::int64_t a, bool top) {
    const std::int64_t out = c(a * g) + (top ? c(a * g + g) : 0);
    const std::int64_t members = std::min(g, p - a * g);
    shape.streams = std::max(shape.streams, out);
    if (out < members) shape.intra = true;
  };
  const std::int64_t senders = ceil_div(p, g);  // nodes holding a rank below p
  const std::int64_t period = period2 / std::gcd(g, period2);
  const std::int64_t full = std::min(senders - 1, period);
  for (std::int64_t a = 0; a < full; ++a) visit(a, true);
  visit(senders - 1, false);
  return shape;
}

StepShape scattered_xor(std::int64_t dist, std::int64_t p, std::int64_t nodes) {
  if (dist % nodes == 0) return {true, 0};
  return {false, ceil_div(p, nodes)};
}

// Packed fold: rank p + i and rank i (i < N - p) are always on different nodes (p >= g).
// The extra ranks fill [p, N): a partial node then whole ones; their partners [0, N - p).
StepShape packed_fold(std::int64_t p, std::int64_t n, std::int64_t g, std::int64_t nodes) {
  const std::int64_t first = p / g;
  const std::int64_t high = first + 1 < nodes ? g : (first + 1) * g - p;
  const std::int64_t low = std::min(g, n - p);
  return {false, std::max(high, low)};
}

StepShape scattered_fold(std::int64_t p, std::int64_t n, std::int64_t nodes) {
  if (p % nodes == 0) return {true, 0};
  return {false, ceil_div(n - p, nodes)};
}

// Binomial step of distance d over `limit` ranks: the pairs (2 d k, 2 d k + d), k < E.
// Packed: a node holds at most one sender and one receiver that cross (their positions are
// 2 d apart, and a crossing member sits within d of the node's edge). When d < g the pair of
// k = 0 stays inside node 0, and pair k crosses when (2 d k mod g) >= g - d; 2 d k mod g runs
// through the multiples of h = gcd(2 d, g), g / h of them.
StepShape packed_binomial(std::int64_t d, std::int64_t limit, std::int64_t g) {
  const std::int64_t pairs = ceil_div(limit - d, 2 * d);
  if (d >= g) return {false, 1};
  const std::int64_t h = std::gcd(2 * d, g);
  const std::int64_t period = g / h;
  if (pairs >= period) return {true, h <= d ? 1 : 0};
  for (std::int64_t k = 0; k < pairs; ++k) {
    if ((2 * d * k) % g >= g - d) return {true, 1};
  }
  return {true, 0};
}

// Scattered: every pair crosses unless M divides d; the senders 2 d k + d (and the receivers
// 2 d k) fall on M / gcd(2 d, M) nodes in turn.
StepShape scattered_binomial(std::int64_t d, std::int64_t limit, std::int64_t nodes) {
  const std::int64_t pairs = ceil_div(limit - d, 2 * d);
  if (d % nodes == 0) return {true, 0};
  return {false, ceil_div(pairs, nodes / std::gcd(2 * d, nodes))};
}

StepShape shape_of(const Phase& ph, std::int64_t shift, const Ranks& r, const Topology& topo) {
  const std::int64_t g = topo.ranks_per_node;
  const std::int64_t m = topo.nodes;
  const bool packed = topo.placement == Placement::kPacked;
  switch (ph.pattern) {
    case Pattern::kShift:
    case Pattern::kShiftRange:
      return packed ? packed_shift(shift, g, m) : scattered_shift(shift, g, m);
    case Pattern::kXor:
      return packed ? packed_xor(ph.distance, r.p, g) : scattered_xor(ph.distance, r.p, m);
    case Pattern::kFoldIn:
    case Pattern::kFoldOut:
      return packed ? packed_fold(r.p, r.n, g, m) : scattered_fold(r.p, r.n, m);
    case Pattern::kBinomialUp:
    case Pattern::kBinomialDown:
      return packed ? packed_binomial(ph.distance, ph.limit, g)
                    : scattered_binomial(ph.distance, ph.limit, m);
  }
  SCALEWALL_CHECK(false && "unknown Pattern");
  return {};
}

// Closed-form evaluation on a packed or scattered two-level topology: the same steps, in the
// same order, as evaluate_by_edges, each shape counted arithmetically. The pairwise steps
// (shift 1 .. N - 1) are walked as runs of equal shape: O(g) runs instead of N steps.
Totals evaluate_closed_form(const Schedule& schedule, const Topology& topo,
                            const CostOptions& gamma) {
  const Ranks r(topo.ranks());
  const std::int64_t g = topo.ranks_per_node;
  const std::int64_t m = topo.nodes;
  Totals t;
  for (const Phase& ph : schedule) {
    PhaseSum sum(t, ph, gamma);
    if (ph.pattern != Pattern::kShiftRange) {
      sum.add(step_terms(topo, shape_of(ph, ph.distance, r, topo), ph.bytes,
                         both_ways(ph.pattern), gamma.working_set_bytes),
              ph.repeat);
      continue;
    }
    const auto run = [&](std::int64_t shift, std::int64_t count) {
      sum.add(step_terms(topo, shape_of(ph, shift, r, topo), ph.bytes, true,
                         gamma.working_set_bytes),
              count);
    };
    if (ph.repeat != r.n - 1) {
      // Shifts 1 .. repeat of fewer than N - 1 (an all-gather over the p core ranks): each.
      for (std::int64_t d = 1; d <= ph.repeat; ++d) run(d, 1);
    } else if (topo.placement == Placement::kPacked) {
      // Shifts 1 .. g-1 each differ; g .. (M-1) g all send every rank off its node;
      // (M-1) g + 1 .. N-1 each differ.
      for (std::int64_t d = 1; d < g; ++d) run(d, 1);
      run(g, (m - 2) * g + 1);
      for (std::int64_t d = (m - 1) * g + 1; d < r.n; ++d) run(d, 1);
    } else {
      // Shifts that are multiples of M stay on the node; the M - 1 between them cross.
      for (std::int64_t k = 0; k < g; ++k) {
        run(k * m + 1, m - 1);
        if (k + 1 < g) run((k + 1) * m, 1);
      }
    }
  }
  return t;
}

// A topology whose every edge costs the same: one node (all intra-node), or one rank per node
// (all inter-node, one stream per NIC). Returns that link.
std::optional<Link> uniform_link(const Topology& t) {
  if (t.nodes == 1) return t.intra;
  if (t.ranks_per_node == 1) return crossing_link(t, 1);
  return std::nullopt;
}

enum class Evaluation { kFastest, kEdges };

Totals evaluate(const Schedule& schedule, const Topology& topo, const CostOptions& gamma,
                Evaluation how,
                Op op, Algorithm algorithm) {
  if (const auto link = uniform_link(topo)) return evaluate_uniform(schedule, *link, gamma);
  if (how == Evaluation::kFastest && topo.placement != Placement::kExplicit &&
      topo.ranks_per_node <= kMaxClosedFormRanksPerNode) {
    return evaluate_closed_form(schedule, topo, gamma);
  }
  return evaluate_by_edges(schedule, topo, gamma, op, algorithm);
}

// The pipelined double binary tree (Sanders, Speck and Träff 2009; NCCL's tree all-reduce):
// two complementary binary trees of height h = floor(log2 N) each reduce and then broadcast
// half of the vector, in k = ceil(m / 2c) chunks: k - 1 of the chunk size c and a last one
// with the remainder, as a pipelined loop over the buffer sends them. In the steady state a
// rank receives two chunks from its children in the tree where it is interior, passes one
// chunk on in the tree where it is a leaf, and moves one chunk each way in both broadcasts:
// 4c per step. The reduction and broadcast pipelines overlap, so the call takes 2h + k - 1
// steps: 2h + k - 2 paced by a full chunk and one by the last (the makespan of k jobs through
// 2h equal stages). Splitting the remainder off, rather than spreading m evenly over k
// chunks, keeps the cost rising with m across the points where k steps up.
// On a topology each step is paced by the slower of the intra-node link and the inter-node
// link shared by the (at most two) tree edges that leave a node.
Totals evaluate_double_binary_tree(std::int64_t ranks, double m, const Topology& topo,
                                   const CostOptions& options) {
  Totals t;
  if (ranks == 1) return t;
  const std::int64_t h = floor_log2(ranks);
  const double half = m / 2.0;
  const double k_real = half > 0 ? std::ceil(half / options.tree_chunk_bytes) : 1.0;
  if (k_real > 1e15) {
    throw InputError(fmt::format("double binary tree: {} B in chunks of {} B is too many chunks",
                                 m, options.tree_chunk_bytes));
  }
  const auto k = static_cast<std::int64_t>(k_real);
  const double chunk = std::min(options.tree_chunk_bytes, half);
  const double last = std::clamp(half - (k_real - 1.0) * chunk, 0.0, chunk);
  const auto full_steps = static_cast<double>(2 * h + k - 2);
  t.steps = 2 * h + k - 1;
  t.bytes = full_steps * 4.0 * chunk + 4.0 * last;
  t.reduced = m;  // an interior node reduces both children's halves: 2 c per chunk, k chunks
  t.compute_s = options.local_pass_s(m, [&](double) { return options.gamma_at(chunk); });
  const std::optional<Link> uniform = uniform_link(topo);
  if (uniform && !uniform->piecewise() && uniform->bidirectional_factor() == 1.0 &&
      !uniform->has_exchange()) {
    t.latency_s = static_cast<double>(t.steps) * uniform->alpha_s;
    t.overhead_s = static_cast<double>(t.steps) * 2.0 * uniform->overhead_s;
    t.bandwidth_s = t.bytes / uniform->bandwidth_Bps;
    return t;
  }
  // Each step's messages are chunks, priced in the regime of the chunk's size.
  const Link across = uniform ? *uniform
                              : crossing_link(topo, std::min<std::int64_t>(2, topo.ranks_per_node));
  const auto pace = [&](double message_bytes) {
    const Link a = across.both_ways_at(message_bytes);
    if (uniform) return a;
    const Link i = topo.intra.both_ways_at(message_bytes);
    const auto time = [&](const Link& l) {
      return l.alpha_s + 4.0 * message_bytes * l.bidirectional_factor() / l.bandwidth_Bps;
    };
    return time(a) >= time(i) ? a : i;
  };
  const Link full_link = pace(chunk);
  const Link last_link = pace(last);
  t.latency_s = full_steps * full_link.alpha_s + last_link.alpha_s;
  t.overhead_s = 2.0 * (full_steps * full_link.overhead_s + last_link.overhead_s);
  // In the steady state every rank receives from its children and sends to its parent: both
  // directions of its link carry chunks.
  t.bandwidth_s = full_steps * 4.0 * chunk * full_link.bidirectional_factor() /
                      full_link.bandwidth_Bps +
                  4.0 * last * last_link.bidirectional_factor() / last_link.bandwidth_Bps;
  return t;
}

// `schedule` with each step's message and reduction rounded up to whole elements of
// `element_bytes` (0: left as they are). An MPI library splits a buffer of m bytes over N
// ranks into blocks of whole elements, ceil(m / (N e)) elements the largest, and the rank that
// holds the largest paces the step: a 2-rank ring all-reduce of one 8-byte element sends 8 B
// and 0 B in each step, not 4 B each.
Schedule whole_elements(Schedule schedule, double element_bytes) {
  if (!(element_bytes > 0)) return schedule;
  const auto up = [&](double bytes) { return std::ceil(bytes / element_bytes) * element_bytes; };
  for (Phase& ph : schedule) {
    ph.bytes = up(ph.bytes);
    ph.reduced = up(ph.reduced);
  }
  return schedule;
}

Totals evaluate_flat_algorithm(Op op, Algorithm algorithm, double m, const Topology& topo,
                               const CostOptions& options,
                               Evaluation how = Evaluation::kFastest) {
  const CatalogueEntry* entry = catalogue_entry(op, algorithm);
  SCALEWALL_CHECK(entry != nullptr);
  if (entry->schedule == nullptr) {  // the one flat entry with a cost model of its own
    SCALEWALL_CHECK(algorithm == Algorithm::kDoubleBinaryTree);
    return evaluate_double_binary_tree(topo.ranks(), m, topo, options);
  }
  return evaluate(whole_elements(flat_schedule(op, algorithm, topo.ranks(), m),
                                 options.element_bytes),
                  topo, options, how, op, algorithm);
}

// Hierarchical all-reduce: a ring reduce-scatter inside each node (g ranks, intra-node link),
// then the g ranks of each local index run `inter` across the nodes on their m/g share, all g
// groups at once and so sharing each node's NICs, then a ring all-gather inside each node.
// Only m/g per rank crosses the inter-node fabric. Placement does not matter: the groups are
// formed from node membership.
Totals evaluate_hierarchical(Algorithm inter, double m, const Topology& topo,
                             const CostOptions& options) {
  const std::int64_t g = topo.ranks_per_node;
  Totals t;
  if (g > 1) {
    Schedule intra;
    const Ranks rg(g);
    ring_steps(intra, rg, m, true);
    ring_steps(intra, rg, m, false, true);
    t.add(evaluate_uniform(whole_elements(std::move(intra), options.element_bytes), topo.intra,
                           options));
  }
  if (topo.nodes > 1) {
    const Topology across = flat_topology(topo.nodes, crossing_link(topo, g));
    const double share = m / static_cast<double>(g);
    t.add(evaluate_flat_algorithm(Op::kAllreduce, inter, share, across, options));
  }
  return t;
}

// A rate per byte from 0 B and its regimes above: each finite and >= 0, the starts ascending.
void require_rates(double first, const ReductionRegimes& above, std::string_view what,
                   std::string_view regime) {
  double from = 0;
  for (std::size_t i = 0; i <= above.count; ++i) {
    const double rate = i == 0 ? first : above.above[i - 1].gamma_s_per_byte;
    if (std::isnan(rate) || rate < 0.0 || !std::isfinite(rate)) {
      throw InputError(
          fmt::format("{} = {} s/B must be a finite time per byte, zero or more", what, rate));
    }
    const double start = i == 0 ? 0.0 : above.above[i - 1].from_bytes;
    if (i > 0 && (!(start > from) || !std::isfinite(start))) {
      throw InputError(
          fmt::format("{} regime {} starts at {} B, not above {} B", regime, i + 1, start, from));
    }
    from = start;
  }
}

void require_inputs(Op op, AlgorithmSpec spec, double bytes, const CostOptions& options) {
  if (!implements(op, spec)) {
    throw InputError(fmt::format("algorithm '{}' does not implement {}", algorithm_name(spec),
                                 op_name(op)));
  }
  if (std::isnan(bytes) || bytes < 0.0) {
    throw InputError(fmt::format("buffer size {} B is negative or not a number", bytes));
  }
  if (!std::isfinite(bytes)) {
    throw InputError(fmt::format("buffer size {} B is not finite", bytes));
  }
  require_rates(options.gamma_s_per_byte, options.gamma_above, "reduction cost gamma",
                "reduction");
  require_rates(options.copy.s_per_byte, options.copy.above, "copy cost", "copy");
  require_rates(options.alloc.s_per_byte, options.alloc.above, "allocation cost", "alloc");
  require_rates(options.sent_reduction.s_per_byte, options.sent_reduction.above,
                "sent-buffer reduction cost", "sent_reduction");
  require_rates(options.sent_exchange.s_per_byte, options.sent_exchange.above,
                "sent-buffer exchange cost", "sent_exchange");
  if (!(options.element_bytes >= 0.0) || !std::isfinite(options.element_bytes)) {
    throw InputError(fmt::format("element size {} B must be 0 (bytes divide freely) or a "
                                 "positive size",
                                 options.element_bytes));
  }
  if (!(options.local_min_bytes >= 0.0) || !std::isfinite(options.local_min_bytes)) {
    throw InputError(fmt::format("smallest local size {} B must be 0 (none) or a positive size",
                                 options.local_min_bytes));
  }
  if (options.working_set_ranks < 0) {
    throw InputError(fmt::format("working-set ranks {} must be 0 (off) or more",
                                 options.working_set_ranks));
  }
  if (!(options.tree_chunk_bytes > 0.0) || !std::isfinite(options.tree_chunk_bytes)) {
    throw InputError(fmt::format("tree chunk {} B must be a positive size",
                                 options.tree_chunk_bytes));
  }
}

CollectiveCost finish(Op op, AlgorithmSpec spec, std::int64_t ranks, double bytes,
                      const Totals& t, double copy_s) {
  CollectiveCost c;
  c.op = op;
  c.algorithm = spec;
  c.ranks = ranks;
  c.bytes = op == Op::kBarrier ? 0.0 : bytes;
  c.steps = t.steps;
  c.bytes_per_rank = t.bytes;
  c.reduced_bytes_per_rank = t.reduced;
  c.latency_s = t.latency_s;
  c.overhead_s = t.overhead_s;
  c.bandwidth_s = t.bandwidth_s;
  c.copy_s = copy_s;
  c.compute_s = t.compute_s + copy_s;
  c.total_s = t.latency_s + t.bandwidth_s + c.compute_s;
  if (!std::isfinite(c.total_s)) {
    throw InputError(fmt::format("{} {} of {} B over {} ranks takes longer than a double can hold",
                                 algorithm_name(spec), op_name(op), bytes, ranks));
  }
  SCALEWALL_CHECK(c.latency_s >= 0.0 && c.bandwidth_s >= 0.0 && c.compute_s >= 0.0);
  if (c.total_s > 0.0 && c.bytes > 0.0) {
    c.algbw_Bps = c.bytes / c.total_s;
    c.busbw_Bps = *c.algbw_Bps * busbw_factor(op, ranks);
  }
  return c;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Names.

std::string_view mpi_call_name(Op op) {
  switch (op) {
    case Op::kAllreduce:
      return "MPI_Allreduce";
    case Op::kReduceScatter:
      return "MPI_Reduce_scatter_block";
    case Op::kAllgather:
      return "MPI_Allgather";
    case Op::kBroadcast:
      return "MPI_Bcast";
    case Op::kReduce:
      return "MPI_Reduce";
    case Op::kAlltoall:
      return "MPI_Alltoall";
    case Op::kBarrier:
      return "MPI_Barrier";
  }
  SCALEWALL_CHECK(false && "unknown Op");
  return {};
}

std::string_view op_name(Op op) {
  switch (op) {
    case Op::kAllreduce:
      return "allreduce";
    case Op::kReduceScatter:
      return "reduce-scatter";
    case Op::kAllgather:
      return "all-gather";
    case Op::kBroadcast:
      return "broadcast";
    case Op::kReduce:
      return "reduce";
    case Op::kAlltoall:
      return "all-to-all";
    case Op::kBarrier:
      return "barrier";
  }
  SCALEWALL_CHECK(false && "unknown Op");
  return {};
}

Op parse_op(std::string_view text) {
  if (text == "allgather") return Op::kAllgather;
  if (text == "alltoall") return Op::kAlltoall;
  if (text == "reducescatter") return Op::kReduceScatter;
  if (text == "bcast") return Op::kBroadcast;
  for (const Op op : kAllOps) {
    if (op_name(op) == text) return op;
  }
  throw InputError(fmt::format("unknown collective '{}' (known: {})", text, op_names()));
}

std::string op_names() {
  std::string names;
  for (const Op op : kAllOps) names += (names.empty() ? "" : ", ") + std::string(op_name(op));
  return names;
}

const CatalogueEntry* catalogue_entry(Op op, Algorithm algorithm) {
  for (const CatalogueEntry& e : kCatalogue) {
    if (e.op == op && e.algorithm == algorithm) return &e;
  }
  return nullptr;
}

std::string algorithm_name(Algorithm algorithm) {
  for (const CatalogueEntry& e : kCatalogue) {
    if (e.algorithm == algorithm) return std::string(e.name);
  }
  SCALEWALL_CHECK(false && "an Algorithm without a catalogue entry");
  return {};
}

std::string algorithm_name(AlgorithmSpec spec) {
  if (spec.algorithm == Algorithm::kHierarchical) {
    return "hierarchical-" + algorithm_name(spec.inter);
  }
  return algorithm_name(spec.algorithm);
}

namespace {

// The flat algorithms of `op`, in the catalogue's order; the named variants only when asked.
std::vector<AlgorithmSpec> flat_algorithms(Op op, bool variants = true) {
  std::vector<AlgorithmSpec> v;
  for (const CatalogueEntry& e : kCatalogue) {
    if (e.op == op && e.algorithm != Algorithm::kHierarchical && (variants || !e.variant)) {
      v.push_back({e.algorithm, Algorithm::kRing});
    }
  }
  return v;
}

// hierarchical-<a> for every flat all-reduce algorithm a.
std::vector<AlgorithmSpec> hierarchical_algorithms() {
  std::vector<AlgorithmSpec> v;
  for (const AlgorithmSpec& inter : flat_algorithms(Op::kAllreduce, false)) {
    v.push_back({Algorithm::kHierarchical, inter.algorithm});
  }
  return v;
}

}  // namespace

AlgorithmSpec parse_algorithm(std::string_view name) {
  std::vector<AlgorithmSpec> every;
  for (const Op op : kAllOps) {
    for (const AlgorithmSpec& s : flat_algorithms(op)) {
      if (std::find(every.begin(), every.end(), s) == every.end()) every.push_back(s);
    }
  }
  for (const AlgorithmSpec& s : hierarchical_algorithms()) every.push_back(s);
  std::string known;
  for (const AlgorithmSpec& s : every) {
    if (algorithm_name(s) == name) return s;
    known += (known.empty() ? "" : ", ") + algorithm_name(s);
  }
  throw InputError(fmt::format("unknown algorithm '{}' (known: {})", name, known));
}

std::vector<AlgorithmSpec> algorithms_of(Op op) {
  std::vector<AlgorithmSpec> v = flat_algorithms(op);
  if (catalogue_entry(op, Algorithm::kHierarchical) != nullptr) {
    for (const AlgorithmSpec& s : hierarchical_algorithms()) v.push_back(s);
  }
  return v;
}

bool implements(Op op, AlgorithmSpec spec) {
  if (catalogue_entry(op, spec.algorithm) == nullptr) return false;
  if (spec.algorithm != Algorithm::kHierarchical) return true;
  return spec.inter != Algorithm::kHierarchical &&
         catalogue_entry(Op::kAllreduce, spec.inter) != nullptr;
}

std::vector<AlgorithmSpec> applicable_algorithms(Op op, const Topology& topology) {
  std::vector<AlgorithmSpec> v = flat_algorithms(op, false);
  if (topology.nodes > 1 && topology.ranks_per_node > 1 &&
      catalogue_entry(op, Algorithm::kHierarchical) != nullptr) {
    for (const AlgorithmSpec& s : hierarchical_algorithms()) v.push_back(s);
  }
  return v;
}

double busbw_factor(Op op, std::int64_t ranks) {
  const auto n = static_cast<double>(ranks);
  switch (op) {
    case Op::kAllreduce:
      return 2.0 * (n - 1.0) / n;
    case Op::kReduceScatter:
    case Op::kAllgather:
    case Op::kAlltoall:
      return (n - 1.0) / n;
    case Op::kBroadcast:
    case Op::kReduce:
      return 1.0;
    case Op::kBarrier:
      return 0.0;
  }
  SCALEWALL_CHECK(false && "unknown Op");
  return 0.0;
}

void use_fabric_local_costs(CostOptions& options, const Topology& fabric) {
  options.gamma_s_per_byte = fabric.gamma_s_per_byte;
  options.gamma_above = fabric.gamma_above;
  options.copy = fabric.copy;
  options.alloc = fabric.alloc;
  options.sent_reduction = fabric.sent_reduction;
  options.sent_exchange = fabric.sent_exchange;
  options.working_set_ranks = fabric.working_set_ranks;
  options.local_min_bytes = fabric.local_min_bytes;
}

CollectiveCost with_work_buffers(CollectiveCost cost, std::span<const WorkBuffer> buffers,
                                 const CopyCost& alloc, double min_bytes) {
  require_rates(alloc.s_per_byte, alloc.above, "allocation cost", "alloc");
  double alloc_s = 0;
  for (const WorkBuffer& b : buffers) {
    if (!(std::isfinite(b.bytes) && std::isfinite(b.touched) && b.touched >= 0 &&
          b.touched <= b.bytes)) {
      throw InputError(fmt::format("work buffer of {} B with {} B written: sizes must be finite, "
                                   "0 <= written <= allocated",
                                   b.bytes, b.touched));
    }
    if (b.touched > 0 && b.bytes < min_bytes) {
      alloc_s += min_bytes * alloc.at(min_bytes);  // what the smallest measured buffer cost
    } else {
      alloc_s += b.touched * alloc.at(b.bytes);
    }
  }
  if (alloc_s == 0) return cost;
  cost.alloc_s += alloc_s;
  cost.compute_s += alloc_s;
  cost.total_s += alloc_s;
  if (cost.total_s > 0.0 && cost.bytes > 0.0) {
    cost.algbw_Bps = cost.bytes / cost.total_s;
    cost.busbw_Bps = *cost.algbw_Bps * busbw_factor(cost.op, cost.ranks);
  }
  return cost;
}

double call_footprint_bytes(Op op, std::int64_t ranks, double m, double largest_message) {
  const double block = m / static_cast<double>(std::max<std::int64_t>(ranks, 1));
  switch (op) {
    case Op::kAllreduce:
    case Op::kReduce:
      return 2.0 * m + largest_message;
    case Op::kReduceScatter:
      return m + block + largest_message;
    case Op::kAllgather:
      return m + block;
    case Op::kAlltoall:
      return 2.0 * m;
    case Op::kBroadcast:
      return m;
    case Op::kBarrier:
      return 0.0;
  }
  SCALEWALL_CHECK(false && "unknown Op");
  return 0.0;
}

double call_working_set_bytes(double footprint_bytes, std::int64_t ranks_per_node,
                              std::int64_t working_set_ranks) {
  if (working_set_ranks <= 0) return 0.0;
  return static_cast<double>(ranks_per_node) * footprint_bytes /
         (2.0 * static_cast<double>(working_set_ranks));
}

double local_copy_bytes(Op op, std::int64_t ranks, double bytes) {
  if (ranks < 2) return 0.0;
  switch (op) {
    case Op::kAllreduce:
    case Op::kReduceScatter:
    case Op::kReduce:
      return bytes;
    case Op::kAllgather:
    case Op::kAlltoall:
      return bytes / static_cast<double>(ranks);
    case Op::kBroadcast:
    case Op::kBarrier:
      return 0.0;
  }
  return 0.0;
}

BusBandwidthAllreduce busbw_allreduce(std::int64_t ranks, double busbw_Bps, double alpha_s) {
  SCALEWALL_CHECK(ranks >= 1 && busbw_Bps > 0);
  const auto n = static_cast<double>(ranks);
  BusBandwidthAllreduce c;
  c.latency_s = 2.0 * (n - 1.0) * alpha_s;
  c.bytes_factor = busbw_factor(Op::kAllreduce, ranks);
  c.busbw_Bps = busbw_Bps;
  c.line_bandwidth_Bps = ranks > 1 ? n * busbw_Bps / (2.0 * (n - 1.0)) : 0.0;
  return c;
}

double bandwidth_lower_bound_s(Op op, std::int64_t ranks, double bytes, double bandwidth_Bps) {
  return busbw_factor(op, ranks) * bytes / bandwidth_Bps;
}

CollectiveCost collective_cost(Op op, AlgorithmSpec spec, std::int64_t ranks, double bytes,
                               const Link& link, const CostOptions& options) {
  require_rank_count(ranks);
  require_valid(link);
  return collective_cost(op, spec, bytes, flat_topology(ranks, link), options);
}

namespace {

// The largest message of `spec`'s schedule for a call of m bytes on `topology`.
double largest_message(Op op, AlgorithmSpec spec, double m, const Topology& topology,
                       const CostOptions& options) {
  const auto of_schedule = [](const Schedule& schedule) {
    double largest = 0;
    for (const Phase& ph : schedule) largest = std::max(largest, ph.bytes);
    return largest;
  };
  const auto flat = [&](Op o, Algorithm a, std::int64_t ranks, double bytes) {
    const CatalogueEntry* entry = catalogue_entry(o, a);
    SCALEWALL_CHECK(entry != nullptr);
    if (entry->schedule == nullptr) return std::min(options.tree_chunk_bytes, bytes / 2.0);
    return of_schedule(whole_elements(flat_schedule(o, a, ranks, bytes), options.element_bytes));
  };
  if (spec.algorithm != Algorithm::kHierarchical) return flat(op, spec.algorithm, topology.ranks(), m);
  const std::int64_t g = topology.ranks_per_node;
  const double share = m / static_cast<double>(g);
  double largest = g > 1 ? share : 0.0;
  if (topology.nodes > 1) largest = std::max(largest, flat(op, spec.inter, topology.nodes, share));
  return largest;
}

CollectiveCost cost_on_topology(Op op, AlgorithmSpec spec, double bytes, const Topology& topology,
                                const CostOptions& given, Evaluation how) {
  require_valid(topology);
  require_inputs(op, spec, bytes, given);
  const double m = op == Op::kBarrier ? 0.0 : bytes;
  // The call's working set, where the fabric prices one; `given` as it is otherwise (no copy
  // on the path every other call takes).
  std::optional<CostOptions> at_working_set;
  if (given.working_set_ranks > 0 && m > 0 && topology.rank_kind == RankKind::kCpu) {
    at_working_set = given;
    at_working_set->working_set_bytes = call_working_set_bytes(
        call_footprint_bytes(op, topology.ranks(), m,
                             largest_message(op, spec, m, topology, given)),
        topology.ranks_per_node, given.working_set_ranks);
  }
  const CostOptions& options = at_working_set ? *at_working_set : given;
  const Totals t = spec.algorithm == Algorithm::kHierarchical
                       ? evaluate_hierarchical(spec.inter, m, topology, options)
                       : evaluate_flat_algorithm(op, spec.algorithm, m, topology, options, how);
  const double copied = local_copy_bytes(op, topology.ranks(), m);
  const double copy_s =
      working_set_pass_s(options, copied, [&](double b) { return options.copy.at(b); });
  return finish(op, spec, topology.ranks(), bytes, t, copied > 0 ? copy_s : 0.0);
}

}  // namespace

CollectiveCost collective_cost(Op op, AlgorithmSpec spec, double bytes, const Topology& topology,
                               const CostOptions& options) {
  return cost_on_topology(op, spec, bytes, topology, options, Evaluation::kFastest);
}

namespace detail {

CollectiveCost collective_cost_by_edges(Op op, AlgorithmSpec spec, double bytes,
                                        const Topology& topology, const CostOptions& options) {
  return cost_on_topology(op, spec, bytes, topology, options, Evaluation::kEdges);
}

}  // namespace detail

std::vector<CollectiveCost> rank_algorithms(Op op, std::span<const AlgorithmSpec> specs,
                                            double bytes, const Topology& topology,
                                            const CostOptions& options) {
  std::vector<CollectiveCost> costs;
  costs.reserve(specs.size());
  for (const AlgorithmSpec& s : specs) {
    costs.push_back(collective_cost(op, s, bytes, topology, options));
  }
  std::stable_sort(costs.begin(), costs.end(),
                   [](const CollectiveCost& x, const CollectiveCost& y) {
                     return x.total_s < y.total_s;
                   });
  return costs;
}

std::optional<double> tie_bytes(Op op, AlgorithmSpec a, AlgorithmSpec b, const Topology& topology,
                                const CostOptions& options) {
  const auto diff = [&](double m) {
    return collective_cost(op, a, m, topology, options).total_s -
           collective_cost(op, b, m, topology, options).total_s;
  };
  // 8 points per decade from 1 B to 1 PB, then bisection inside the first bracket.
  double lo = 1.0;
  double d_lo = diff(lo);
  if (d_lo == 0.0 && diff(2.0) == 0.0) return std::nullopt;  // identical
  const double factor = std::pow(10.0, 1.0 / 8.0);
  for (int i = 1; i <= 15 * 8; ++i) {
    const double hi = std::pow(factor, i);
    const double d_hi = diff(hi);
    if (d_lo == 0.0) return lo;
    if ((d_lo < 0.0) != (d_hi < 0.0) && d_hi != 0.0) {
      double left = lo;
      double right = hi;
      double d_left = d_lo;
      while (right - left > 1e-13 * right) {
        const double mid = 0.5 * (left + right);
        const double d_mid = diff(mid);
        if (d_mid == 0.0) return mid;
        if ((d_mid < 0.0) == (d_left < 0.0)) {
          left = mid;
          d_left = d_mid;
        } else {
          right = mid;
        }
      }
      return 0.5 * (left + right);
    }
    if (d_hi == 0.0) return hi;
    lo = hi;
    d_lo = d_hi;
  }
  return std::nullopt;
}

std::optional<double> tie_bytes(Op op, AlgorithmSpec a, AlgorithmSpec b, double lo_bytes,
                                double hi_bytes, const Topology& topology,
                                const CostOptions& options) {
  if (!(lo_bytes >= 0.0) || !(hi_bytes >= lo_bytes) || !std::isfinite(hi_bytes)) {
    throw InputError(fmt::format("tie search interval [{}, {}] B is not an interval of sizes",
                                 lo_bytes, hi_bytes));
  }
  const auto diff = [&](double m) {
    return collective_cost(op, a, m, topology, options).total_s -
           collective_cost(op, b, m, topology, options).total_s;
  };
  const double d_lo = diff(lo_bytes);
  const double d_hi = diff(hi_bytes);
  if (d_lo == 0.0 && d_hi == 0.0) return lo_bytes;
  // `inside(m)`: m is still on lo_bytes' side of the change. With d_hi != 0 that is "the one
  // cheaper at hi_bytes is not yet strictly cheaper"; with d_hi == 0, "the difference keeps
  // d_lo's strict sign".
  const auto inside = [&](double d) {
    if (d_hi > 0.0) return d <= 0.0;
    if (d_hi < 0.0) return d >= 0.0;
    return d_lo > 0.0 ? d > 0.0 : d < 0.0;
  };
  if (!inside(d_lo)) return std::nullopt;  // the same strict sign at both ends
  double left = lo_bytes;
  double right = hi_bytes;
  // Each halving gains a bit; 2200 bound the walk down to a change at 0 through subnormals.
  for (int i = 0; i < 2200 && right - left > 1e-12 * right; ++i) {
    const double mid = 0.5 * (left + right);
    if (inside(diff(mid))) {
      left = mid;
    } else {
      right = mid;
    }
  }
  return 0.5 * (left + right);
}

double allreduce_bandwidth_lower_bound_s(std::int64_t ranks, double bytes, const Link& link) {
  return bandwidth_lower_bound_s(Op::kAllreduce, ranks, bytes, link.bandwidth_Bps);
}

CollectiveCost allreduce_cost(Algorithm algorithm, std::int64_t ranks, double bytes,
                              const Link& link, double gamma_s_per_byte) {
  CostOptions options;
  options.gamma_s_per_byte = gamma_s_per_byte;
  return collective_cost(Op::kAllreduce, {algorithm, Algorithm::kRing}, ranks, bytes, link,
                         options);
}

std::vector<CollectiveCost> rank_allreduce(std::span<const Algorithm> algorithms,
                                           std::int64_t ranks, double bytes, const Link& link,
                                           double gamma_s_per_byte) {
  std::vector<CollectiveCost> costs;
  costs.reserve(algorithms.size());
  for (const Algorithm a : algorithms) {
    costs.push_back(allreduce_cost(a, ranks, bytes, link, gamma_s_per_byte));
  }
  require_rank_count(ranks);
  std::stable_sort(costs.begin(), costs.end(),
                   [](const CollectiveCost& x, const CollectiveCost& y) {
                     return x.total_s < y.total_s;
                   });
  return costs;
}

std::optional<double> allreduce_tie_bytes(Algorithm a, Algorithm b, std::int64_t ranks,
                                          const Link& link, double gamma_s_per_byte) {
  SCALEWALL_CHECK(a != Algorithm::kDoubleBinaryTree && b != Algorithm::kDoubleBinaryTree);
  SCALEWALL_CHECK(a != Algorithm::kHierarchical && b != Algorithm::kHierarchical);
  if (link.piecewise()) {
    throw InputError("the affine tie of two all-reduce algorithms needs a one-regime link; "
                     "a piecewise link's costs are not affine in the size (use tie_bytes)");
  }
  // Each cost is c0 + c1 m: c0 is the cost at m = 0, c1 the slope read off at m = 1 B (the
  // schedules' bytes are linear in m).
  const CollectiveCost a0 = allreduce_cost(a, ranks, 0.0, link, gamma_s_per_byte);
  const CollectiveCost b0 = allreduce_cost(b, ranks, 0.0, link, gamma_s_per_byte);
  const CollectiveCost a1 = allreduce_cost(a, ranks, 1.0, link, gamma_s_per_byte);
  const CollectiveCost b1 = allreduce_cost(b, ranks, 1.0, link, gamma_s_per_byte);
  const double a_c1 = a1.bytes_per_rank / link.bandwidth_Bps + a1.reduced_bytes_per_rank *
                                                                    gamma_s_per_byte;
  const double b_c1 = b1.bytes_per_rank / link.bandwidth_Bps + b1.reduced_bytes_per_rank *
                                                                    gamma_s_per_byte;
  const double slope_gap = b_c1 - a_c1;
  if (slope_gap == 0.0) return std::nullopt;  // parallel or identical: no single tie
  const double tie = (a0.total_s - b0.total_s) / slope_gap;
  if (!std::isfinite(tie) || !(tie > 0.0)) return std::nullopt;
  return tie;
}

}  // namespace scalewall
