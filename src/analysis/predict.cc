// Implementation of scalewall/analysis/predict.h.
#include "scalewall/analysis/predict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "scalewall/base/error.h"
#include "scalewall/model/scaling.h"
#include "scalewall/model/straggler.h"
#include "scalewall/base/units.h"

namespace scalewall {
namespace {

// Whether `ranks` fits the scenario's network (a fabric needs whole nodes).
bool fits(const Scenario& s, std::int64_t ranks) {
  if (!ranks_in_range(ranks)) return false;
  if (!s.network.fabric) return true;
  const Topology& t = *s.network.fabric;
  if (t.placement == Placement::kExplicit) return ranks == t.ranks();
  return ranks < t.ranks_per_node || ranks % t.ranks_per_node == 0;
}

// The largest count <= n that fits: n itself, or n rounded down to whole nodes.
std::int64_t snap_down(const Scenario& s, std::int64_t n) {
  if (fits(s, n)) return n;
  if (s.network.fabric && s.network.fabric->placement != Placement::kExplicit) {
    const std::int64_t g = s.network.fabric->ranks_per_node;
    return n / g * g;
  }
  return n;
}

bool past_knee(const StepTime& t) {
  return t.ranks > 1 && t.exposed_communication_s >= t.compute_s;
}

// The scenario's curve as the knee and the cliffs see it (curve_shape.h): a point at every
// count the network takes; the regular count of a fabric placed by rule may be g 2^k.
class ScenarioProbe final : public CurveProbe {
 public:
  explicit ScenarioProbe(const Scenario& s) : s_(s) {}
  bool runs(std::int64_t n) const override { return fits(s_, n); }
  std::int64_t snap_down(std::int64_t n) const override { return scalewall::snap_down(s_, n); }
  std::int64_t next_above(std::int64_t lo, std::int64_t hi) const override {
    std::int64_t next = lo + 1;
    while (next < hi && !fits(s_, next)) ++next;
    return next;
  }
  CurvePoint at(std::int64_t n) const override { return point(step_time(s_, n)); }
  std::int64_t regular_unit() const override {
    const bool by_rule = s_.network.fabric && s_.network.fabric->placement != Placement::kExplicit;
    return by_rule ? s_.network.fabric->ranks_per_node : 1;
  }
  static CurvePoint point(const StepTime& t) { return {t.ranks, t.efficiency, past_knee(t)}; }

 private:
  const Scenario& s_;
};

// For each mechanism, the harness mode that isolates it and why a run of it confirms the
// prediction that the mechanism binds, or explains a measured efficiency drop ("" where no
// harness run does).
struct MechanismProbe {
  HarnessMode mode = HarnessMode::kStep;
  std::string_view confirms;
  std::string_view explains;
};

MechanismProbe probe(Mechanism m) {
  switch (m) {
    case Mechanism::kBandwidth:
      return {HarnessMode::kCollective, "compare its busbw with the model's",
              "time the collective alone and compare with 2m/busbw"};
    case Mechanism::kLatency:
      return {HarnessMode::kArrival, "the zero-byte collective isolates the latency term",
              "the zero-byte collective isolates pure latency (and check whether the library "
              "switched algorithm)"};
    case Mechanism::kVariance:
      return {HarnessMode::kArrival,
              "the per-rank arrival spread at the barrier shows the variance",
              "per-rank arrival times at the collective; look at the spread, not the mean"};
    case Mechanism::kSerial:
      return {HarnessMode::kStep, "its compute/communication/wait split shows time outside both",
              "time outside compute, communication and wait is serial"};
    case Mechanism::kCheckpoint:
      return {HarnessMode::kStep, "", ""};
    case Mechanism::kCompute:
      return {HarnessMode::kStep, "confirms that communication stays hidden", ""};
  }
  return {};
}

// The harness run that would confirm `m` as the binding mechanism at `ranks`, with all-reduce
// calls of `bytes` bytes.
NextMeasurement confirming_measurement(Mechanism m, std::int64_t ranks, double bytes) {
  NextMeasurement next;
  const MechanismProbe p = probe(m);
  if (m == Mechanism::kCheckpoint) {
    next.otherwise =
        "time one checkpoint write on the job's storage and compare with bytes / write "
        "bandwidth";
    return next;
  }
  HarnessRun run = harness_run(p.mode, ranks, std::string(p.confirms));
  if (m == Mechanism::kBandwidth) run.bytes = bytes;
  next.runs.push_back(std::move(run));
  return next;
}

// The harness run that tells whether `m` explains an efficiency drop measured at `ranks`.
NextMeasurement explaining_measurement(Mechanism m, std::int64_t ranks) {
  NextMeasurement next;
  const MechanismProbe p = probe(m);
  if (p.explains.empty()) return next;
  HarnessRun run = harness_run(p.mode, ranks, std::string(p.explains));
  // A thousand iterations: enough barriers for the spread's tail, not only its mean.
  constexpr std::int64_t kSpreadIterations = 1000;
  if (m == Mechanism::kVariance) run.iterations = kSpreadIterations;
  next.runs.push_back(std::move(run));
  return next;
}

double throughput_of(const Scenario& s, const StepTime& t) {
  // Work per second: strong scaling does the same global work per step at every N; weak
  // scaling does N times the per-rank work.
  const double per_step = s.workload.mode == ScalingMode::kWeak
                              ? t.work * static_cast<double>(t.ranks)
                              : t.work;
  return per_step / t.step_s;
}

double idle_hours_per_1000_steps(const StepTime& t) {
  return static_cast<double>(t.ranks) * t.step_s * (1.0 - t.efficiency) * 1000.0 / 3600.0;
}

// One what-if evaluation: the scenario at `ranks`, and `all`, the scenario with every
// applicable remedy on, which each remedy updates as it is tried.
struct WhatIfRun {
  const Scenario& scenario;
  std::int64_t ranks;
  const WhatIfOptions& options;
  const Settings& now;
  Scenario all;

  Remedy evaluate(std::string name, std::string change, bool applicable,
                  const Scenario& s) const {
    Remedy r;
    r.name = std::move(name);
    r.change = std::move(change);
    r.applicable = applicable;
    r.step = step_time(s, ranks);
    r.time_per_work_s = r.step.step_s / r.step.work;
    return r;
  }

  // A remedy that `change` makes to a scenario: made to the remedy's own scenario and to `all`
  // when it applies, then evaluated.
  template <typename Change>
  Remedy try_remedy(std::string name, bool applicable, std::string why, Change change) {
    Scenario s = scenario;
    if (applicable) {
      change(s);
      change(all);
    }
    return evaluate(std::move(name), std::move(why), applicable, s);
  }

  // Overlap of the all-reduce with the backward pass.
  Remedy overlap() {
    // Overlap needs buckets: a job that sends one fused all-reduce gets DDP's default 25 MB.
    Scenario s = scenario;
    s.settings.overlap = true;
    const bool fused = now.bucket_bytes <= 0 ||
                       now.bucket_bytes >= scenario.workload.gradient_bytes / now.compression_ratio;
    if (fused) s.settings.bucket_bytes = kDefaultBucketBytes;
    const bool ok = !now.overlap;
    if (ok) {
      all.settings.overlap = true;
      if (fused) all.settings.bucket_bytes = kDefaultBucketBytes;
    }
    return evaluate(
        "overlap",
        ok ? (fused ? "overlap the all-reduce with the backward pass, in 25 MB buckets"
                    : "overlap the all-reduce with the backward pass, in the job's buckets")
           : "already on",
        ok, s);
  }

  // The best bucket size.
  Remedy buckets() {
    // The best bucket under the job's own overlap setting: without overlap that is one fused
    // call; with it, the size that balances latency terms against the exposed tail.
    Scenario s = scenario;
    const double m = scenario.workload.gradient_bytes / now.compression_ratio;
    const double best_bucket = best_bucket_setting(scenario, ranks);
    s.settings.bucket_bytes = best_bucket;
    const double current = now.bucket_bytes > 0 && now.bucket_bytes < m ? now.bucket_bytes : 0.0;
    const auto size = [&](double b) { return b > 0 ? b : m; };  // 0 is one fused call of m
    const bool ok = best_bucket != current;
    const bool larger = size(best_bucket) >= size(current);
    const auto name = [&](double b) { return b > 0 ? format_bytes(b) : std::string("fused"); };
    return evaluate(
        larger ? "larger buckets" : "smaller buckets",
        ok ? fmt::format("bucket {} -> {} ({})", name(current), name(best_bucket),
                         larger ? "fewer calls, fewer latency terms"
                                : "more of the all-reduce hidden behind backward")
           : fmt::format("bucket {} is already the best", name(current)),
        ok, s);
  }

  // A hierarchical all-reduce on a multi-node fabric.
  Remedy hierarchical() {
    Scenario s = scenario;
    s.settings.hierarchical = true;
    bool ok = !now.hierarchical && scenario.network.fabric.has_value() &&
              !now.algorithm.has_value();
    if (ok) {
      const Topology t = scaled_topology(*scenario.network.fabric, ranks);
      ok = t.nodes > 1 && t.ranks_per_node > 1;
    }
    if (ok) all.settings.hierarchical = true;
    return evaluate(
        "hierarchical",
        ok ? "reduce inside each node, all-reduce m/g across nodes, gather inside"
           : "not applicable (already on, a fixed algorithm, or no multi-node fabric)",
        ok, s);
  }

  // Packed placement: consecutive ranks on one node.
  Remedy placement() {
    const bool ok = scenario.network.fabric.has_value() &&
                    scenario.network.fabric->placement != Placement::kPacked;
    return try_remedy("packed placement", ok,
                      ok ? "place consecutive ranks on the same node"
                         : "not applicable (already packed, or no fabric)",
                      [](Scenario& s) {
                        s.network.fabric->placement = Placement::kPacked;
                        s.network.fabric->rank_to_node.clear();
                      });
  }

  // Gradient compression to the what-if ratio.
  Remedy compression() {
    const bool ok = now.compression_ratio < options.compression_ratio;
    return try_remedy(
        "compression", ok,
        ok ? fmt::format("reduce {:g}x fewer bytes (at {}/B of compute)", options.compression_ratio,
                         format_seconds(options.compression_s_per_byte))
           : "not applicable (already compressed as much)",
        [this](Scenario& s) {
          s.settings.compression_ratio = options.compression_ratio;
          s.settings.compression_s_per_byte = options.compression_s_per_byte;
        });
  }

  // Accumulating micro-batches per all-reduce.
  Remedy accumulation() {
    const bool ok = now.accumulation_steps < options.accumulation_steps;
    return try_remedy(
        "accumulation", ok,
        ok ? fmt::format("accumulate {} micro-batches per all-reduce (changes the global batch)",
                         options.accumulation_steps)
           : "not applicable (already accumulating as much)",
        [this](Scenario& s) { s.settings.accumulation_steps = options.accumulation_steps; });
  }

  // A larger per-rank batch.
  Remedy bigger_batch() {
    Scenario s = scenario;
    s.settings.batch_scale = now.batch_scale * options.batch_scale;
    all.settings.batch_scale = now.batch_scale * options.batch_scale;
    return evaluate(
        "bigger batch",
        fmt::format("{:g}x the per-rank batch (changes the optimisation problem)",
                    options.batch_scale),
        options.batch_scale > 1.0, s);
  }

  // Checkpoints written in the background.
  Remedy async_checkpoint() {
    const bool ok = scenario.checkpoint.bytes > 0 && !scenario.checkpoint.async;
    return try_remedy("async checkpoint", ok,
                      ok ? "write checkpoints in the background"
                         : "not applicable (no checkpoint, or already async)",
                      [](Scenario& s) { s.checkpoint.async = true; });
  }

  // Replacing a slow node or its degraded link.
  Remedy drain_bad_node() {
    const bool ok = scenario.variance.bad_node_slowdown > 1.0 ||
                    scenario.variance.bad_link_bandwidth_Bps > 0;
    return try_remedy("drain bad node", ok,
                      ok ? "replace the slow node (or its degraded link)"
                         : "not applicable (no bad node)",
                      [](Scenario& s) {
                        s.variance.bad_node_slowdown = 1.0;
                        s.variance.bad_link_bandwidth_Bps = 0.0;
                      });
  }
};

// The parameter a fitted two-point explanation implies, in words; `share2` is the mechanism's
// share of the step at `n2` ranks.
std::string implied_words(const Explanation& e, double share2, std::int64_t n2) {
  switch (e.mechanism) {
    case Mechanism::kSerial:
      return fmt::format("serial fraction s = {}, {} of the step at {} ranks",
                         format_percent(e.b / (e.a + e.b)), format_percent(share2), n2);
    case Mechanism::kLatency:
      return fmt::format(
          "{} of the one-rank step per latency step; {} of the step at {} ranks",
          format_percent(e.b / e.a), format_percent(share2), n2);
    case Mechanism::kBandwidth:
      return fmt::format(
          "communication of {} of the one-rank step, flat in N; {} of the step at "
          "{} ranks",
          format_percent(e.b * 2.0 / e.a), format_percent(share2), n2);
    case Mechanism::kVariance:
      return fmt::format(
          "per-rank jitter of sd {} of the one-rank step; {} of the step at {} ranks",
          format_percent(e.b / e.a), format_percent(share2), n2);
    case Mechanism::kCheckpoint:
    case Mechanism::kCompute:
      break;
  }
  return {};
}

// Refuses an empty or unordered list of rank counts and a target efficiency outside (0, 1].
void require_predictable(std::span<const std::int64_t> ranks, double target_efficiency) {
  if (ranks.empty()) throw InputError("no rank counts to predict");
  if (!std::isfinite(target_efficiency) || target_efficiency <= 0 || target_efficiency > 1) {
    throw InputError(fmt::format("target efficiency {} is outside (0, 1]", target_efficiency));
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0 && ranks[i] <= ranks[i - 1]) {
      throw InputError(fmt::format("rank counts must ascend: {} follows {}", ranks[i],
                                   ranks[i - 1]));
    }
  }
}

// The largest fitting count at or above `target_efficiency`: the largest row (or one rank)
// that reaches it, refined by bisection towards the next row when that one does not; nothing
// when not even one rank does (a checkpoint can take a one-rank job below the target).
std::optional<std::int64_t> max_ranks_at(const Scenario& scenario,
                                         const std::vector<StepTime>& rows,
                                         double target_efficiency) {
  const auto below_target = [&](std::int64_t r) {
    return step_time(scenario, r).efficiency < target_efficiency;
  };
  // One rank first, even when it was not requested.
  std::vector<std::int64_t> counts;
  std::vector<double> efficiency;
  if (rows.front().ranks > 1) {
    counts.push_back(1);
    efficiency.push_back(step_time(scenario, 1).efficiency);
  }
  for (const StepTime& t : rows) {
    counts.push_back(t.ranks);
    efficiency.push_back(t.efficiency);
  }
  std::optional<std::size_t> last_ok;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (efficiency[i] >= target_efficiency) last_ok = i;
  }
  if (!last_ok) return std::nullopt;
  const std::size_t i = *last_ok;
  if (i + 1 == counts.size()) return counts.back();
  const std::int64_t first_bad =
      first_true(ScenarioProbe(scenario), counts[i], counts[i + 1], below_target);
  // The fitting count just below the first one under the target.
  std::int64_t ok = snap_down(scenario, first_bad - 1);
  if (ok < counts[i]) ok = counts[i];
  return ok;
}

// The step at `at`'s rank count under each algorithm the automatic choice would consider.
std::vector<AlgorithmOutcome> algorithm_spread(const Scenario& scenario, const StepTime& at) {
  std::vector<AlgorithmOutcome> out;
  if (!scenario.network.fabric || at.ranks == 1) return out;
  const Topology topo = scaled_topology(*scenario.network.fabric, at.ranks);
  for (const AlgorithmSpec& a : applicable_algorithms(Op::kAllreduce, topo)) {
    if (a.algorithm == Algorithm::kHierarchical && !scenario.settings.hierarchical) continue;
    Scenario fixed = scenario;
    fixed.settings.algorithm = a;
    const StepTime t = step_time(fixed, at.ranks);
    out.push_back({a, t.step_s, t.efficiency, at.algorithm == StepCollective{a}});
  }
  std::stable_sort(out.begin(), out.end(), [](const AlgorithmOutcome& x,
                                              const AlgorithmOutcome& y) {
    return x.efficiency > y.efficiency;
  });
  return out;
}

}  // namespace

std::vector<std::int64_t> default_rank_grid(const Scenario& scenario, std::int64_t max_ranks) {
  require_ranks(static_cast<double>(max_ranks));
  std::vector<std::int64_t> grid;
  for (std::int64_t r = 1; r <= max_ranks; r *= 2) {
    if (fits(scenario, r)) grid.push_back(r);
    if (r > max_ranks / 2) break;
  }
  if (grid.empty() || grid.back() != max_ranks) {
    if (!fits(scenario, max_ranks)) {
      throw InputError(fmt::format(
          "{} ranks do not fill whole nodes of the scenario's fabric ({} ranks per node)",
          max_ranks, scenario.network.fabric->ranks_per_node));
    }
    grid.push_back(max_ranks);
  }
  return grid;
}

Prediction predict(const Scenario& scenario, std::span<const std::int64_t> ranks,
                   double target_efficiency) {
  require_valid(scenario);
  require_predictable(ranks, target_efficiency);
  Prediction p;
  p.mode = scenario.workload.mode;
  p.target_efficiency = target_efficiency;
  // The largest count first: one that cannot be costed is refused at once, under its own
  // number, before the smaller rows are worked out.
  StepTime largest = step_time(scenario, ranks.back());
  for (std::size_t i = 0; i + 1 < ranks.size(); ++i) {
    p.rows.push_back(step_time(scenario, ranks[i]));
  }
  p.rows.push_back(std::move(largest));
  const ScenarioProbe probe(scenario);
  std::vector<CurvePoint> points;
  for (const StepTime& t : p.rows) points.push_back(ScenarioProbe::point(t));
  p.cliffs = cliffs_of(probe, points);
  // One rank has no communication, so the knee lies above 1 even when the first row is
  // already past it.
  p.knee_ranks = knee_of(probe, points, p.cliffs, 1);
  p.max_ranks_at_target = max_ranks_at(scenario, p.rows, target_efficiency);
  p.best_bucket_bytes = best_bucket_bytes(scenario, p.rows.back().ranks);
  p.algorithm_spread = algorithm_spread(scenario, p.rows.back());
  return p;
}

WhatIf what_if(const Scenario& scenario, std::int64_t ranks, const WhatIfOptions& options) {
  require_valid(scenario);
  require_in_range("what-if compression ratio", options.compression_ratio, kScenarioFactor);
  require_in_range("what-if compression cost", options.compression_s_per_byte,
                   kScenarioSecondsPerByte);
  if (options.accumulation_steps < 1 || options.accumulation_steps > kMaxAccumulationSteps) {
    throw InputError(fmt::format("what-if accumulation steps {} is outside [1, {}]",
                                 options.accumulation_steps, kMaxAccumulationSteps));
  }
  require_in_range("what-if batch scale", options.batch_scale, kScenarioBatchScale);
  WhatIf w;
  w.ranks = ranks;
  WhatIfRun run{scenario, ranks, options, scenario.settings, scenario};
  w.baseline = run.evaluate("baseline", "as the scenario runs", true, scenario);
  std::vector<Remedy> remedies;
  remedies.push_back(run.overlap());
  remedies.push_back(run.buckets());  // "all together" re-chooses its bucket below
  remedies.push_back(run.hierarchical());
  remedies.push_back(run.placement());
  remedies.push_back(run.compression());
  remedies.push_back(run.accumulation());
  remedies.push_back(run.bigger_batch());
  remedies.push_back(run.async_checkpoint());
  remedies.push_back(run.drain_bad_node());
  // Every remedy together, with the bucket re-chosen for the combined job.
  run.all.settings.bucket_bytes = best_bucket_setting(run.all, ranks);

  const double base = w.baseline.time_per_work_s;
  for (Remedy& r : remedies) r.gain = base / r.time_per_work_s;
  std::stable_sort(remedies.begin(), remedies.end(), [](const Remedy& a, const Remedy& b) {
    if (a.applicable != b.applicable) return a.applicable;
    return a.gain > b.gain;
  });
  Remedy together =
      run.evaluate(std::string(kAllTogether), "every applicable remedy above at once", true,
                   run.all);
  together.gain = base / together.time_per_work_s;
  remedies.push_back(std::move(together));
  w.remedies = std::move(remedies);
  w.decomposition = run.evaluate(std::string(kChangeDecomposition),
                                 std::string(kDecompositionNeeds), false, scenario);
  if (scenario.network.fabric && scenario.network.fabric->rank_kind == RankKind::kGpu) {
    for (const CallSelector c : {CallSelector::kNccl, CallSelector::kMpi}) {
      Scenario s = scenario;
      s.settings.selector = c;
      Remedy r = run.evaluate(fmt::format("selector {}", call_selector_name(c)),
                              c == CallSelector::kNccl
                                  ? "NCCL's algorithm and protocol choice per call"
                                  : "the cheapest MPI algorithm per call",
                              true, s);
      r.gain = base / r.time_per_work_s;
      w.selectors.push_back(std::move(r));
    }
  }
  return w;
}

Plan plan(const Scenario& scenario, std::int64_t ranks) {
  require_valid(scenario);
  Plan p;
  p.mode = scenario.workload.mode;
  const std::vector<std::int64_t> grid = default_rank_grid(scenario, ranks);
  p.curve = predict(scenario, grid);
  p.at = p.curve.rows.back();
  p.knee_ranks = p.curve.knee_ranks;
  for (const StepTime& t : p.curve.rows) {
    p.best_throughput = std::max(p.best_throughput, throughput_of(scenario, t));
  }
  for (const StepTime& t : p.curve.rows) {
    if (throughput_of(scenario, t) >= 0.9 * p.best_throughput) {
      p.ranks_at_90pct_best = t.ranks;
      p.idle_hours_per_1000_steps_at_90pct = idle_hours_per_1000_steps(t);
      break;
    }
  }
  p.idle_hours_per_1000_steps = idle_hours_per_1000_steps(p.at);
  p.confirm_measurement = confirming_measurement(p.at.binding, ranks, p.at.bucket_bytes);
  return p;
}

std::vector<Explanation> explain_efficiency_drop(std::int64_t n1, double e1, std::int64_t n2,
                                                 double e2) {
  require_ranks(static_cast<double>(n1));
  require_ranks(static_cast<double>(n2));
  if (n1 >= n2) {
    throw InputError(fmt::format("the two rank counts must ascend: {} then {}", n1, n2));
  }
  for (const double e : {e1, e2}) {
    if (!std::isfinite(e) || e <= 0 || e > 1.5) {
      throw InputError(fmt::format("efficiency {} is outside (0, 1.5]", e));
    }
  }
  const auto N1 = static_cast<double>(n1);
  const auto N2 = static_cast<double>(n2);
  // Step time relative to one rank's: T(N) / T1 = 1 / (N E(N)).
  const double t1 = 1.0 / (N1 * e1);
  const double t2 = 1.0 / (N2 * e2);
  struct Shape {
    Mechanism mechanism;
    const char* words;
    bool ring = false;  // a ring's 2(N-1) latency steps instead of the mechanism's shape
  };
  const Shape shapes[] = {
      {Mechanism::kSerial, "constant per step (Amdahl's serial part)"},
      {Mechanism::kLatency, "log2 N steps of alpha (tree or recursive-doubling collective)"},
      {Mechanism::kLatency, "2(N-1) steps of alpha (ring collective)", true},
      {Mechanism::kBandwidth, "2(N-1)/N m beta (bandwidth-optimal all-reduce)"},
      {Mechanism::kVariance, "E[max of N normals] (a fixed per-step jitter at the barrier)"},
  };
  const auto shape_at = [](const Shape& sh, std::int64_t n) {
    return sh.ring ? 2.0 * (static_cast<double>(n) - 1.0) : mechanism_shape(sh.mechanism, n);
  };
  std::vector<Explanation> out;
  for (const Shape& sh : shapes) {
    const double f1 = shape_at(sh, n1);
    const double f2 = shape_at(sh, n2);
    Explanation e;
    e.mechanism = sh.mechanism;
    e.shape = sh.words;
    const double det = f2 / N1 - f1 / N2;
    if (det != 0.0) {
      e.a = (t1 * f2 - t2 * f1) / det;
      e.b = (t2 / N1 - t1 / N2) / det;
    }
    e.can_explain = det != 0.0 && e.a > 0 && e.b > 0;
    const double share2 = e.b * f2 / t2;  // the mechanism's share of the step at N2
    e.implied = implied_words(e, share2, n2);
    e.measurement = explaining_measurement(sh.mechanism, n2);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace scalewall
