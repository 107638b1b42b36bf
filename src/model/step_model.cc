// Implementation of scalewall/model/step_model.h.
#include "scalewall/model/step_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "scalewall/base/error.h"
#include "scalewall/model/scaling.h"
#include "scalewall/model/straggler.h"
#include "scalewall/base/units.h"

namespace scalewall {
namespace {

// The network at one rank count: a topology, or a bus bandwidth.
struct NetworkAt {
  std::optional<Topology> topology;
  double busbw_Bps = 0;
  double busbw_alpha_s = 0;
  std::int64_t ranks_per_node = 1;
  std::int64_t nodes = 1;
};

NetworkAt network_at(const Scenario& s, std::int64_t ranks, bool degraded) {
  NetworkAt n;
  if (s.network.fabric) {
    Topology t = scaled_topology(*s.network.fabric, ranks);
    if (degraded && s.variance.bad_link_bandwidth_Bps > 0) {
      // One node's link paces every step that crosses it; model the fabric's inter-node link
      // at the degraded rate (or the intra-node link on a single node).
      const double bad = s.variance.bad_link_bandwidth_Bps;
      const auto slow = [bad](LinkRegime& r) { r.bandwidth_Bps = std::min(r.bandwidth_Bps, bad); };
      if (t.nodes > 1) {
        t.inter = t.inter.each_regime(slow);
      } else {
        t.intra = t.intra.each_regime(slow);
      }
    }
    n.ranks_per_node = t.ranks_per_node;
    n.nodes = t.nodes;
    n.topology = std::move(t);
  } else {
    n.busbw_Bps = s.network.busbw_Bps;
    if (degraded && s.variance.bad_link_bandwidth_Bps > 0) {
      n.busbw_Bps = std::min(n.busbw_Bps, s.variance.bad_link_bandwidth_Bps);
    }
    n.busbw_alpha_s = s.network.busbw_alpha_s;
    n.nodes = ranks;
  }
  return n;
}

struct CallCost {
  double total_s = 0;
  double latency_s = 0;
  double overhead_s = 0;  // LogGP o, inside latency_s
  StepCollective algorithm;
};

// One all-reduce call of `bytes` bytes at `ranks` ranks.
CallCost allreduce_call(const Scenario& s, const NetworkAt& net, std::int64_t ranks,
                        double bytes) {
  CallCost c;
  if (!net.topology) {
    const BusBandwidthAllreduce call = busbw_allreduce(ranks, net.busbw_Bps, net.busbw_alpha_s);
    c.latency_s = call.latency_s;
    c.total_s = call.time_s(bytes);
    c.algorithm = BusBandwidthGiven{};
    return c;
  }
  const Topology& topo = *net.topology;
  if (prices_with_nccl(s.settings, topo)) {
    const NcclCost pick = nccl_choice(Op::kAllreduce, bytes, nccl_fabric(topo));
    c.total_s = pick.total_s;
    c.latency_s = pick.latency_s;
    c.algorithm = NcclPick{pick.algorithm, pick.protocol};
    return c;
  }
  std::vector<AlgorithmSpec> candidates;
  if (s.settings.algorithm) {
    candidates.push_back(*s.settings.algorithm);
  } else {
    for (const AlgorithmSpec& a : applicable_algorithms(Op::kAllreduce, topo)) {
      if (a.algorithm != Algorithm::kHierarchical || s.settings.hierarchical) {
        candidates.push_back(a);
      }
    }
  }
  bool first = true;
  for (const AlgorithmSpec& a : candidates) {
    const CollectiveCost cost = collective_cost(Op::kAllreduce, a, bytes, topo, s.settings.cost);
    if (first || cost.total_s < c.total_s) {
      c.total_s = cost.total_s;
      c.latency_s = cost.latency_s;
      c.overhead_s = cost.overhead_s;
      c.algorithm = a;
      first = false;
    }
  }
  return c;
}

// The step's all-reduce calls and what of them overlap leaves exposed, into the
// communication fields of `t`: communication_s with its latency and overhead parts,
// exposed_communication_s, the algorithm, the bucket size and the bucket count. One rank, or
// nothing to send, leaves them at zero.
void communicate(const Scenario& s, const NetworkAt& net, std::int64_t ranks, double backward_s,
                 StepTime& t) {
  const double m = s.workload.gradient_bytes / s.settings.compression_ratio;
  if (ranks == 1 || m <= 0.0) return;
  const double b = s.settings.bucket_bytes;
  double full = m;
  double last = m;
  double k = 1.0;
  if (b > 0.0 && b < m) {
    k = std::ceil(m / b);
    full = b;
    last = m - (k - 1.0) * b;
  }
  const CallCost c_full = allreduce_call(s, net, ranks, full);
  const CallCost c_last = k > 1.0 ? allreduce_call(s, net, ranks, last) : c_full;
  const double total_s = (k - 1.0) * c_full.total_s + c_last.total_s;
  t.communication_s = total_s;
  t.communication_latency_s = (k - 1.0) * c_full.latency_s + c_last.latency_s;
  t.communication_overhead_s = (k - 1.0) * c_full.overhead_s + c_last.overhead_s;
  t.algorithm = c_full.algorithm;
  t.bucket_bytes = full;
  t.buckets = static_cast<std::int64_t>(k);
  if (!s.settings.overlap) {
    t.exposed_communication_s = total_s;
  } else {
    // Bucket i is ready at Tb (i+1)/K and runs after bucket i-1; the last one ends at the
    // latest of ready_i + (the calls from i on). That is linear in i, so the first or the
    // last bucket decides it.
    const double end = std::max(backward_s / k + (k - 1.0) * c_full.total_s + c_last.total_s,
                                backward_s + c_last.total_s);
    // end - Tb is at most the total (max(Tb/K - Tb + total, c')); the clamp only keeps
    // rounding from pushing it a few ulps over.
    const double tail = std::min(total_s, std::max(0.0, end - backward_s));
    // The LogGP o of the hidden part is CPU time taken from the backward pass: the hidden
    // share of the calls' overhead is exposed too (at most what was hidden).
    const double hidden = total_s - tail;
    const double hidden_overhead =
        total_s > 0 ? t.communication_overhead_s * (hidden / total_s) : 0.0;
    t.exposed_communication_s = std::min(total_s, tail + hidden_overhead);
  }
}

double work_of(const Settings& settings) {
  return static_cast<double>(settings.accumulation_steps) * settings.batch_scale;
}

double compute_at(const Scenario& s, std::int64_t ranks) {
  const double w = work_of(s.settings);
  switch (s.workload.mode) {
    case ScalingMode::kStrong:
      return s.workload.compute_s * static_cast<double>(s.workload.reference_ranks) * w /
             static_cast<double>(ranks);
    case ScalingMode::kWeak:
      return s.workload.compute_s * w;
  }
  SCALEWALL_CHECK(false && "unknown ScalingMode");
  return 0.0;
}

enum class Checkpoints { kWritten, kLeftOut };

// The step without its ideal and loss bookkeeping; kLeftOut gives the step without its
// checkpoint (the one-rank baseline).
StepTime raw_step(const Scenario& s, std::int64_t ranks,
                  Checkpoints checkpoints = Checkpoints::kWritten) {
  StepTime t;
  t.ranks = ranks;
  t.work = work_of(s.settings);
  t.compute_s = compute_at(s, ranks);
  t.serial_s = s.workload.serial_s;
  if (ranks > 1) t.compression_s = s.workload.gradient_bytes * s.settings.compression_s_per_byte;
  const double backward_s = s.workload.backward_fraction * t.compute_s /
                            static_cast<double>(s.settings.accumulation_steps);

  const NetworkAt net = network_at(s, ranks, false);
  communicate(s, net, ranks, backward_s, t);

  if (ranks > 1) {
    const double sigma = s.variance.sigma;
    const double jitter = sigma * expected_max_standard_normal(ranks) * t.compute_s;
    double bad_node = 0.0;
    const double f = s.variance.bad_node_slowdown;
    if (f > 1.0) {
      bad_node = (f - 1.0) * t.compute_s +
                 f * sigma * expected_max_standard_normal(net.ranks_per_node) * t.compute_s;
    }
    t.variance_s = std::max(jitter, bad_node);
    if (s.variance.bad_link_bandwidth_Bps > 0) {
      const NetworkAt degraded = network_at(s, ranks, true);
      StepTime slow;
      communicate(s, degraded, ranks, backward_s, slow);
      t.variance_s += std::max(0.0, slow.exposed_communication_s - t.exposed_communication_s);
    }
  }

  const double before_checkpoint = t.serial_s + t.compute_s + t.compression_s +
                                   t.exposed_communication_s + t.variance_s;
  const Checkpoint& ck = s.checkpoint;
  if (checkpoints == Checkpoints::kWritten && ck.bytes > 0 && ck.write_bandwidth_Bps > 0) {
    const double writers = ck.shared ? 1.0 : static_cast<double>(net.nodes);
    const double write_s = ck.bytes / (writers * ck.write_bandwidth_Bps);
    const auto interval = static_cast<double>(ck.interval_steps);
    t.checkpoint_s = ck.async ? std::max(0.0, write_s - interval * before_checkpoint) / interval
                              : write_s / interval;
  }
  t.step_s = before_checkpoint + t.checkpoint_s;
  if (!std::isfinite(t.step_s)) {
    // Out of reach within the ranges of require_valid; a scenario built in code can get here.
    throw InputError(fmt::format("the step at {} ranks takes longer than a double can hold",
                                 ranks));
  }
  return t;
}

}  // namespace

namespace {

// Every scaling mode with its name: the one list that scaling_mode_name and
// parse_scaling_mode read.
constexpr std::array<std::pair<ScalingMode, std::string_view>, 2> kScalingModeNames = {{
    {ScalingMode::kStrong, "strong"},
    {ScalingMode::kWeak, "weak"},
}};

}  // namespace

std::string_view scaling_mode_name(ScalingMode mode) {
  for (const auto& [m, name] : kScalingModeNames) {
    if (m == mode) return name;
  }
  SCALEWALL_CHECK(false && "unknown ScalingMode");
  return {};
}

bool prices_with_nccl(const Settings& settings, const Topology& topo) {
  switch (settings.selector) {
    case CallSelector::kNccl: return true;
    case CallSelector::kMpi: return false;
    case CallSelector::kAuto:
      return topo.rank_kind == RankKind::kGpu && !settings.algorithm;
  }
  SCALEWALL_CHECK(false);
  return false;
}

std::string_view call_selector_name(CallSelector selector) {
  switch (selector) {
    case CallSelector::kAuto: return "auto";
    case CallSelector::kMpi: return "mpi";
    case CallSelector::kNccl: return "nccl";
  }
  SCALEWALL_CHECK(false && "unknown CallSelector");
  return {};
}

CallSelector parse_call_selector(std::string_view text) {
  for (CallSelector c : {CallSelector::kAuto, CallSelector::kMpi, CallSelector::kNccl}) {
    if (call_selector_name(c) == text) return c;
  }
  throw InputError(fmt::format("unknown selector '{}' (expected auto, mpi or nccl)", text));
}

std::optional<ScalingMode> parse_scaling_mode(std::string_view name) {
  for (const auto& [mode, n] : kScalingModeNames) {
    if (n == name) return mode;
  }
  return std::nullopt;
}

double mechanism_shape(Mechanism mechanism, std::int64_t n) {
  const auto x = static_cast<double>(n);
  switch (mechanism) {
    case Mechanism::kSerial:
      return 1.0;
    case Mechanism::kLatency:
      return std::log2(x);
    case Mechanism::kBandwidth:
      return busbw_factor(Op::kAllreduce, n);
    case Mechanism::kVariance:
      return expected_max_standard_normal(n);
    case Mechanism::kCheckpoint:
    case Mechanism::kCompute:
      break;
  }
  SCALEWALL_CHECK(false && "no shape in N for this mechanism");
  return 0.0;
}

ExposedSplit split_exposed_communication(const StepTime& t) {
  const double latency_share =
      t.communication_s > 0 ? t.communication_latency_s / t.communication_s : 0.0;
  ExposedSplit split;
  split.latency_s = t.exposed_communication_s * latency_share;
  split.bandwidth_s = t.exposed_communication_s * (1.0 - latency_share) + t.compression_s;
  return split;
}

std::string_view mechanism_name(Mechanism mechanism) {
  switch (mechanism) {
    case Mechanism::kSerial:
      return "serial";
    case Mechanism::kLatency:
      return "latency";
    case Mechanism::kBandwidth:
      return "bandwidth";
    case Mechanism::kVariance:
      return "variance";
    case Mechanism::kCheckpoint:
      return "checkpoint";
    case Mechanism::kCompute:
      return "compute";
  }
  SCALEWALL_CHECK(false && "unknown Mechanism");
  return {};
}

bool in_range(double value, const ValueRange& range) {
  if (range.zero_allowed && value == 0.0) return true;
  return value >= range.lo && value <= range.hi;  // false for NaN
}

namespace {

std::string quantity_text(double value, RangeUnit unit) {
  if (!std::isfinite(value)) return fmt::format("{}", value);
  switch (unit) {
    case RangeUnit::kBytes:
      return format_bytes(value);
    case RangeUnit::kSeconds:
      return format_seconds(value);
    case RangeUnit::kRate:
      return format_rate(value);
    case RangeUnit::kSecondsPerByte:
      return fmt::format("{:.3g} s/B", value);
    case RangeUnit::kFactor:
      return fmt::format("{:.3g}", value);
  }
  SCALEWALL_CHECK(false && "unknown RangeUnit");
  return {};
}

}  // namespace

std::string range_text(const ValueRange& range) {
  // Times in plain seconds: the printer's smallest unit is ns, and 1e-12 s reads better
  // than 0.001 ns.
  const auto edge = [&](double v) {
    return range.unit == RangeUnit::kSeconds ? fmt::format("{:g} s", v)
                                             : quantity_text(v, range.unit);
  };
  const std::string span = fmt::format("{} to {}", edge(range.lo), edge(range.hi));
  return range.zero_allowed ? fmt::format("{} (or 0)", span) : span;
}

void require_in_range(std::string_view what, double value, const ValueRange& range) {
  if (!in_range(value, range)) {
    throw InputError(fmt::format("{} {} is outside the range {}", what,
                                 quantity_text(value, range.unit), range_text(range)));
  }
}

namespace {

void require_link_in_range(const Link& link, std::string_view which) {
  require_in_range(fmt::format("{} latency", which), link.alpha_s, kScenarioSeconds);
  require_in_range(fmt::format("{} bandwidth", which), link.bandwidth_Bps, kScenarioRate);
  require_in_range(fmt::format("{} overhead", which), link.overhead_s, kScenarioSeconds);
  require_in_range(fmt::format("{} gap", which), link.gap_s, kScenarioSeconds);
}

}  // namespace

void require_valid(const Scenario& s) {
  const auto require = [](bool ok, std::string_view what, double value) {
    if (!ok) throw InputError(fmt::format("{} = {} is out of range", what, value));
  };
  const Workload& w = s.workload;
  require_in_range("workload gradient", w.gradient_bytes, kScenarioBytes);
  require_in_range("workload compute", w.compute_s, kScenarioSeconds);
  require(ranks_in_range(w.reference_ranks), "workload reference ranks",
          static_cast<double>(w.reference_ranks));
  require_in_range("workload serial", w.serial_s, kScenarioSeconds);
  require(std::isfinite(w.backward_fraction) && w.backward_fraction >= 0 &&
              w.backward_fraction <= 1,
          "workload backward fraction", w.backward_fraction);
  if (w.compute_s + w.serial_s <= 0) {
    throw InputError("workload has neither compute nor serial time: there is no step to scale");
  }
  if (s.network.fabric) {
    const Topology& t = *s.network.fabric;
    require_valid(t);
    require_link_in_range(t.intra, "network fabric intra-node link");
    require_link_in_range(t.inter, "network fabric inter-node link");
    require_in_range("network fabric oversubscription", t.oversubscription, kScenarioFactor);
  } else {
    require_in_range("network bus bandwidth", s.network.busbw_Bps, kScenarioRate);
    require_in_range("network alpha", s.network.busbw_alpha_s, kScenarioSeconds);
  }
  require(std::isfinite(s.variance.sigma) && s.variance.sigma >= 0 && s.variance.sigma <= 1,
          "variance sigma", s.variance.sigma);
  require_in_range("variance bad node slowdown", s.variance.bad_node_slowdown, kScenarioFactor);
  if (s.variance.bad_link_bandwidth_Bps != 0.0) {
    require_in_range("variance bad link bandwidth", s.variance.bad_link_bandwidth_Bps,
                     kScenarioRate);
  }
  const Checkpoint& c = s.checkpoint;
  require_in_range("checkpoint bytes", c.bytes, kScenarioBytes);
  if (c.write_bandwidth_Bps != 0.0 || c.bytes > 0) {
    if (c.bytes > 0 && c.write_bandwidth_Bps <= 0) {
      throw InputError("checkpoint bytes are given but no write bandwidth");
    }
    require_in_range("checkpoint write bandwidth", c.write_bandwidth_Bps, kScenarioRate);
  }
  require(c.interval_steps >= 1 && c.interval_steps <= kMaxRanks, "checkpoint interval (steps)",
          static_cast<double>(c.interval_steps));
  const Settings& st = s.settings;
  require_in_range("remedies bucket", st.bucket_bytes, kScenarioBytes);
  require_in_range("remedies compression ratio", st.compression_ratio, kScenarioFactor);
  require_in_range("remedies compression cost", st.compression_s_per_byte,
                   kScenarioSecondsPerByte);
  require(st.accumulation_steps >= 1 && st.accumulation_steps <= kMaxAccumulationSteps,
          "remedies accumulation steps", static_cast<double>(st.accumulation_steps));
  require_in_range("remedies batch scale", st.batch_scale, kScenarioBatchScale);
  if (st.algorithm && !implements(Op::kAllreduce, *st.algorithm)) {
    throw InputError(fmt::format("network algorithm '{}' is not an all-reduce algorithm",
                                 algorithm_name(*st.algorithm)));
  }
  require_in_range("network gamma", st.cost.gamma_s_per_byte, kScenarioSecondsPerByte);
  require_in_range("network tree chunk", st.cost.tree_chunk_bytes, kScenarioChunkBytes);
}

StepTime step_time(const Scenario& s, std::int64_t ranks) {
  require_ranks(static_cast<double>(ranks));
  StepTime t = raw_step(s, ranks);
  // The baseline: the job's own work on one rank, without the checkpoint it would write.
  const StepTime one = raw_step(s, 1, Checkpoints::kLeftOut);
  const auto n = static_cast<double>(ranks);
  LostTime& lost = t.lost;
  switch (s.workload.mode) {
    case ScalingMode::kStrong:
      t.ideal_step_s = one.step_s / n;
      t.speedup = one.step_s / t.step_s;
      lost.serial_s = t.serial_s * (1.0 - 1.0 / n);
      break;
    case ScalingMode::kWeak:
      t.ideal_step_s = one.step_s;
      // Gustafson's scaled speedup: the grown problem (the serial part once, everything else
      // N times) on one rank, over the time it takes on N.
      t.speedup = (one.serial_s + n * (one.step_s - one.serial_s)) / t.step_s;
      lost.serial_s = 0.0;
      break;
  }
  lost.checkpoint_s = t.checkpoint_s;
  t.efficiency = t.ideal_step_s / t.step_s;
  const ExposedSplit split = split_exposed_communication(t);
  lost.latency_s = split.latency_s;
  lost.bandwidth_s = split.bandwidth_s;
  lost.variance_s = t.variance_s;
  // The parts are built to sum to the loss; check it to rounding.
  const double loss = t.step_s - t.ideal_step_s;
  SCALEWALL_CHECK(std::fabs(lost.total() - loss) <= 1e-9 * std::max(t.step_s, 1e-300) + 1e-300);
  t.binding = Mechanism::kCompute;
  t.scales_well = t.efficiency >= kScalesWellEfficiency;
  {
    const std::pair<Mechanism, double> parts[] = {
        {Mechanism::kSerial, lost.serial_s},         {Mechanism::kLatency, lost.latency_s},
        {Mechanism::kBandwidth, lost.bandwidth_s},   {Mechanism::kVariance, lost.variance_s},
        {Mechanism::kCheckpoint, lost.checkpoint_s}};
    double largest = 0.0;
    for (const auto& [mechanism, seconds] : parts) {
      if (seconds > largest) {
        largest = seconds;
        t.binding = mechanism;
      }
    }
  }
  return t;
}

double best_bucket_setting(const Scenario& scenario, std::int64_t ranks) {
  Scenario probe = scenario;
  const double m = scenario.workload.gradient_bytes / scenario.settings.compression_ratio;
  probe.settings.bucket_bytes = 0.0;  // one fused call
  double best = raw_step(probe, ranks).step_s;
  double best_bucket = 0.0;
  for (double b = 65536.0; b < m; b *= 2.0) {
    probe.settings.bucket_bytes = b;
    const double t = raw_step(probe, ranks).step_s;
    if (t < best * (1.0 - 1e-9)) {
      best = t;
      best_bucket = b;
    }
  }
  return best_bucket;
}

double best_bucket_bytes(const Scenario& scenario, std::int64_t ranks) {
  Scenario s = scenario;
  s.settings.overlap = true;
  const double bucket = best_bucket_setting(s, ranks);
  return bucket > 0.0 ? bucket : s.workload.gradient_bytes / s.settings.compression_ratio;
}

}  // namespace scalewall
