// Implementation of scalewall/analysis/diagnose.h.
#include "scalewall/analysis/diagnose.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "scalewall/analysis/calibrate.h"
#include "scalewall/model/collective.h"
#include "scalewall/base/error.h"
#include "scalewall/base/stats.h"
#include "scalewall/model/scaling.h"
#include "scalewall/model/straggler.h"
#include "scalewall/base/units.h"

namespace scalewall {
namespace {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// After a scaling table: the measurement order's runs at the largest rank count, the step
// split first.
NextMeasurement scaling_next_measurement(std::int64_t ranks) {
  return order_runs(measurement_order(ranks));
}

// After harness records: the first kind still missing, in the measurement order (step,
// arrival, collective, pingpong).
NextMeasurement records_next_measurement(const MeasurementSet& set, std::int64_t ranks) {
  NextMeasurement next;
  if (set.steps.empty()) {
    next.runs.push_back(harness_run(HarnessMode::kStep, ranks,
                               "splits the step into compute, communication and wait per rank"));
  } else if (set.arrivals.empty()) {
    next.runs.push_back(harness_run(HarnessMode::kArrival, ranks,
                               "a zero-byte collective and per-rank arrival times separate "
                               "latency from variance"));
  } else if (set.collectives.empty()) {
    next.runs.push_back(
        harness_run(HarnessMode::kCollective, ranks, "the collective alone, against 2m/busbw"));
  } else if (set.pingpong.empty()) {
    HarnessRun run = harness_run(HarnessMode::kPingPong, ranks, "a slow link or node stands out");
    run.all_pairs = true;
    next.runs.push_back(std::move(run));
  } else {
    next.otherwise = "the measurements cover the step, arrivals, the collective and the links";
  }
  return next;
}

// ---- scaling tables ----

// Problem sizes are written as rounded figures: within 1% of the first row's they are "the
// same" (strong scaling) or "in proportion to N" (weak scaling).
constexpr double kProblemSizeTolerance = 0.01;

// Without a problem_size column, a step time going as N^slope with the slope at or below
// -0.35 is strong scaling. Ideal strong scaling falls as N^-1 and ideal weak scaling stays at
// N^0; a strong-scaling table keeps falling at least about a third as fast until communication
// dominates, while a weak one stays flat or rises.
constexpr double kStrongSlope = -0.35;

// An rms relative residual above 10% is far beyond the few-percent noise of measured step
// times: the mechanisms' shapes do not describe the points.
constexpr double kPoorFitResidual = 0.1;

// A single mechanism whose fit (with compute) stays within 2% rms is indistinguishable from
// the noise of repeated step-time measurements: the data cannot rule it out.
constexpr double kAloneFitResidual = 0.02;

// Weighted columns whose cosine exceeds 0.999 (within about 2.6 degrees) are proportional to
// rounding over the measured rank counts: no number of points there separates them.
constexpr double kProportionalCosine = 0.999;

// Rows of a table that break the strong/weak pattern, by kind.
struct ModeRows {
  std::vector<std::string> strong;
  std::vector<std::string> weak;
  std::vector<std::string> neither;
};

ModeRows classify_problem_sizes(const std::vector<ScalingPoint>& pts) {
  const ScalingPoint& first = pts.front();
  ModeRows rows;
  for (const ScalingPoint& p : pts) {
    const double ratio = *p.problem_size / *first.problem_size;
    const double grow = static_cast<double>(p.ranks) / static_cast<double>(first.ranks);
    const bool same = std::fabs(ratio - 1.0) <= kProblemSizeTolerance;
    const bool grows = std::fabs(ratio / grow - 1.0) <= kProblemSizeTolerance;
    if (p.ranks == first.ranks) continue;
    if (same) {
      rows.strong.push_back(fmt::format("line {} ({} ranks)", p.line, p.ranks));
    } else if (grows) {
      rows.weak.push_back(fmt::format("line {} ({} ranks)", p.line, p.ranks));
    } else {
      rows.neither.push_back(fmt::format("line {} ({} ranks, problem_size {:g})", p.line,
                                         p.ranks, *p.problem_size));
    }
  }
  return rows;
}

// Strong or weak, and why: from the problem_size column, or assumed for a throughput table,
// or inferred from how the step time falls.
void decide_mode(const ScalingTable& table, ScalingDiagnosis& d) {
  const std::vector<ScalingPoint>& pts = table.points;
  const ScalingPoint& first = pts.front();
  if (first.problem_size) {
    const ModeRows rows = classify_problem_sizes(pts);
    if (!rows.neither.empty()) {
      throw InputError(fmt::format(
          "{}: problem_size neither stays at {:g} (strong) nor grows with the rank count (weak) "
          "at {}",
          table.source, *first.problem_size, join(rows.neither, ", ")));
    }
    if (!rows.strong.empty() && !rows.weak.empty()) {
      throw InputError(fmt::format(
          "{}: strong and weak scaling mixed: strong at {}; weak at {}; split them into two "
          "tables",
          table.source, join(rows.strong, ", "), join(rows.weak, ", ")));
    }
    d.mode = rows.weak.empty() ? ScalingMode::kStrong : ScalingMode::kWeak;
    d.mode_reason = d.mode == ScalingMode::kStrong
                        ? "problem_size is the same in every row"
                        : "problem_size grows in proportion to the rank count";
  } else if (table.from_throughput) {
    d.mode = ScalingMode::kStrong;
    d.mode_reason =
        "assumed: a throughput alone cannot tell strong from weak scaling; add a problem_size "
        "column to be sure";
    d.warnings.push_back("strong scaling assumed (no problem_size column)");
  } else {
    const ScalingPoint& last = pts.back();
    const double slope = std::log(last.step_s / first.step_s) /
                         std::log(static_cast<double>(last.ranks) /
                                  static_cast<double>(first.ranks));
    d.mode = slope <= kStrongSlope ? ScalingMode::kStrong : ScalingMode::kWeak;
    d.mode_reason = fmt::format(
        "inferred: step time goes as N^{:.2f} from {} to {} ranks ({}); add a problem_size "
        "column to be sure",
        slope, first.ranks, last.ranks,
        d.mode == ScalingMode::kStrong ? "falling with N: the problem is fixed"
                                       : "about flat: the problem grows with N");
  }
}

// Rank-seconds per unit of work: N T under strong scaling, T under weak.
double work_time(ScalingMode mode, const ScalingPoint& p) {
  return mode == ScalingMode::kStrong ? static_cast<double>(p.ranks) * p.step_s : p.step_s;
}

// The compute column's shape: 1/N under strong scaling, 1 under weak.
double compute_shape(ScalingMode mode, std::int64_t n) {
  return mode == ScalingMode::kStrong ? 1.0 / static_cast<double>(n) : 1.0;
}

// The row with the least work time; warns of a superlinear point and of a baseline above one
// rank. Returns its index.
std::size_t choose_baseline(const std::vector<ScalingPoint>& pts, ScalingDiagnosis& d) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < pts.size(); ++i) {
    if (work_time(d.mode, pts[i]) < work_time(d.mode, pts[best])) best = i;
  }
  d.baseline_ranks = pts[best].ranks;
  d.largest_ranks = pts.back().ranks;
  if (best != 0) {
    d.warnings.push_back(fmt::format(
        "superlinear: {} ranks do more per rank than {} ranks ({:.3g}x); suspect the baseline "
        "(a slow single-rank implementation, or a problem that only fits in cache when split)",
        pts[best].ranks, pts[0].ranks,
        work_time(d.mode, pts[0]) / work_time(d.mode, pts[best])));
  }
  if (d.baseline_ranks > 1) {
    d.warnings.push_back(fmt::format(
        "efficiency is measured against {} ranks, not one: what that baseline already lost is "
        "not counted",
        d.baseline_ranks));
  }
  return best;
}

// The fitted model T(N) = a g(N) + sum_k c_k f_k(N): column 0 is compute, column k + 1 is
// mechanisms[k]; rows are weighted by 1/T.
struct MechanismFit {
  std::vector<Mechanism> mechanisms;
  DesignRows a;
  std::vector<double> y;
  std::vector<double> coef;  // one per column, >= 0
  double rss = 0;
  std::size_t columns() const { return mechanisms.size() + 1; }
};

// Fit: T(N) = a g(N) + sum_k c_k f_k(N), c >= 0, rows weighted by 1/T so that every point
// counts by its relative error. g = 1/N (strong) or 1 (weak).
// Under strong scaling 2(N-1)/N = 2 - 2/N lies in the span of compute (1/N) and serial (1):
// the bandwidth term is fitted as part of "serial" there, and said so.
MechanismFit fit_mechanisms(const std::vector<ScalingPoint>& pts, ScalingMode mode,
                            const std::string& source) {
  MechanismFit fit;
  fit.mechanisms =
      mode == ScalingMode::kStrong
          ? std::vector<Mechanism>{Mechanism::kSerial, Mechanism::kLatency, Mechanism::kVariance}
          : std::vector<Mechanism>{Mechanism::kLatency, Mechanism::kBandwidth,
                                   Mechanism::kVariance};
  for (const ScalingPoint& p : pts) {
    std::vector<double> row(fit.columns());
    row[0] = compute_shape(mode, p.ranks) / p.step_s;
    for (std::size_t k = 0; k < fit.mechanisms.size(); ++k) {
      row[k + 1] = mechanism_shape(fit.mechanisms[k], p.ranks) / p.step_s;
    }
    fit.a.push_back(row);
    fit.y.push_back(1.0);
  }
  // Non-negative least squares by trying every subset of mechanism columns (at most 16).
  const auto nnls = nonnegative_least_squares(fit.a, fit.y, 1);
  if (!nnls) {
    throw InputError(fmt::format(
        "{}: no non-negative combination of compute, serial, latency, bandwidth and variance "
        "fits these points (does the step time rise as ranks are added under strong "
        "scaling?)",
        source));
  }
  fit.coef = nnls->coefficients;
  fit.rss = nnls->rss;
  return fit;
}

// The fit's rows against the measured ones, its residual, and efficiency against the
// baseline row `best`.
void record_fit(const std::vector<ScalingPoint>& pts, std::size_t best, const MechanismFit& fit,
                ScalingDiagnosis& d) {
  d.compute_coefficient = fit.coef[0];
  d.rms_relative_residual = std::sqrt(fit.rss / static_cast<double>(pts.size()));
  if (d.rms_relative_residual > kPoorFitResidual) {
    d.warnings.push_back(fmt::format(
        "the mechanisms' shapes fit these points poorly (rms residual {}): the table may "
        "mix strong and weak scaling, or something outside the model dominates",
        format_percent(d.rms_relative_residual)));
  }
  const auto fitted = [&](std::int64_t n) {
    double t = fit.coef[0] * compute_shape(d.mode, n);
    for (std::size_t k = 0; k < fit.mechanisms.size(); ++k) {
      t += fit.coef[k + 1] * mechanism_shape(fit.mechanisms[k], n);
    }
    return t;
  };
  const ScalingPoint& base = pts[best];
  for (const ScalingPoint& p : pts) {
    const double f = fitted(p.ranks);
    d.rows.push_back({p.ranks, p.step_s, work_time(d.mode, base) / work_time(d.mode, p), f,
                      (p.step_s - f) / p.step_s});
  }
  d.efficiency_at_largest = d.rows.back().efficiency;
}

// What each mechanism explains of the time lost at the largest rank count; returns the total.
double share_losses(const MechanismFit& fit, ScalingDiagnosis& d) {
  const std::int64_t nl = d.largest_ranks;
  const std::int64_t nb = d.baseline_ranks;
  double total_lost = 0;
  for (std::size_t k = 0; k < fit.mechanisms.size(); ++k) {
    MechanismShare s;
    s.mechanism = fit.mechanisms[k];
    s.coefficient = fit.coef[k + 1];
    const double scale = d.mode == ScalingMode::kStrong
                             ? static_cast<double>(nb) / static_cast<double>(nl)
                             : 1.0;
    s.lost_s = fit.coef[k + 1] * (mechanism_shape(fit.mechanisms[k], nl) -
                                  mechanism_shape(fit.mechanisms[k], nb) * scale);
    s.lost_s = std::max(0.0, s.lost_s);
    total_lost += s.lost_s;
    d.mechanisms.push_back(s);
  }
  for (MechanismShare& s : d.mechanisms) s.share = total_lost > 0 ? s.lost_s / total_lost : 0.0;
  return total_lost;
}

// The mechanisms that alone (with compute) fit within kAloneFitResidual.
std::vector<std::string> fitting_alone(const MechanismFit& fit, std::size_t points) {
  std::vector<std::string> alone;
  for (std::size_t k = 0; k < fit.mechanisms.size(); ++k) {
    const std::size_t pair[] = {0, k + 1};
    const auto x = least_squares(fit.a, fit.y, pair);
    if (x && (*x)[0] >= 0 && (*x)[1] > 0) {
      const double rss = residual_sum_of_squares(fit.a, fit.y, pair, *x);
      if (std::sqrt(rss / static_cast<double>(points)) < kAloneFitResidual) {
        alone.push_back(std::string(mechanism_name(fit.mechanisms[k])));
      }
    }
  }
  return alone;
}

// The cosine of weighted columns i and j over the rows; nullopt when either is all zero.
std::optional<double> column_cosine(const DesignRows& a, std::size_t i, std::size_t j) {
  double uu = 0, vv = 0, uv = 0;
  for (const auto& row : a) {
    uu += row[i] * row[i];
    vv += row[j] * row[j];
    uv += row[i] * row[j];
  }
  if (uu <= 0 || vv <= 0) return std::nullopt;
  return uv / std::sqrt(uu * vv);
}

// What the data cannot separate, in words (into d.cannot_separate); returns the pairs of
// mechanisms that are confounded.
std::vector<std::pair<Mechanism, Mechanism>> find_confounded(
    const std::vector<ScalingPoint>& pts, const MechanismFit& fit, ScalingDiagnosis& d) {
  std::vector<std::pair<Mechanism, Mechanism>> confounded;
  if (d.mode == ScalingMode::kStrong) {
    confounded.emplace_back(Mechanism::kSerial, Mechanism::kBandwidth);
    d.cannot_separate.push_back(
        "serial and bandwidth: under strong scaling a bandwidth-optimal all-reduce costs "
        "2(N-1)/N m beta = 2 m beta - 2 m beta / N, a constant plus a compute-like term, so "
        "the fit reports both as serial; time the collective alone to tell them apart");
  }
  const std::size_t parameters = fit.columns();
  if (pts.size() < parameters + 1) {
    const std::vector<std::string> alone = fitting_alone(fit, pts.size());
    d.cannot_separate.push_back(fmt::format(
        "{} points cannot separate {} mechanisms ({} parameters with compute){}",
        pts.size(), fit.mechanisms.size(), parameters,
        alone.empty() ? std::string()
                      : fmt::format("; each of {} alone fits within 2%", join(alone, ", "))));
  }
  for (std::size_t i = 0; i < fit.columns(); ++i) {
    for (std::size_t j = std::max<std::size_t>(i + 1, 1); j < fit.columns(); ++j) {
      const std::optional<double> cosine = column_cosine(fit.a, i, j);
      if (!cosine || !(*cosine > kProportionalCosine)) continue;
      const std::string first_name =
          i == 0 ? std::string("compute") : std::string(mechanism_name(fit.mechanisms[i - 1]));
      if (i > 0) confounded.emplace_back(fit.mechanisms[i - 1], fit.mechanisms[j - 1]);
      d.cannot_separate.push_back(fmt::format(
          "{} and {}: their shapes are nearly proportional over {}..{} ranks", first_name,
          mechanism_name(fit.mechanisms[j - 1]), pts.front().ranks, pts.back().ranks));
    }
  }
  return confounded;
}

// The binding candidates: the largest share with everything confounded with it, or, with too
// few points, every mechanism.
void name_binding(const std::vector<std::pair<Mechanism, Mechanism>>& confounded,
                  bool enough_points, double total_lost, ScalingDiagnosis& d) {
  if (!(total_lost > 0)) return;
  const auto top = std::max_element(d.mechanisms.begin(), d.mechanisms.end(),
                                     [](const MechanismShare& x, const MechanismShare& y) {
                                       return x.share < y.share;
                                     });
  if (enough_points) {
    d.binding_candidates.push_back(top->mechanism);
    for (const auto& [x, y] : confounded) {
      const Mechanism other = x == top->mechanism ? y : y == top->mechanism ? x : top->mechanism;
      if (other != top->mechanism &&
          std::find(d.binding_candidates.begin(), d.binding_candidates.end(), other) ==
              d.binding_candidates.end()) {
        d.binding_candidates.push_back(other);
      }
    }
  } else {
    for (const MechanismShare& m : d.mechanisms) d.binding_candidates.push_back(m.mechanism);
    if (d.mode == ScalingMode::kStrong) d.binding_candidates.push_back(Mechanism::kBandwidth);
  }
  if (d.binding_candidates.size() == 1) d.binding = d.binding_candidates.front();
}

// ---- scalewall-mpi records ----

// A rank computes slowly when its compute exceeds the median rank's both by 5% (less is the
// ordinary spread of identical hardware) and by 4 median absolute deviations (about 2.7
// standard deviations of normal jitter: past the tail of noise).
constexpr double kSlowComputeFactor = 1.05;
constexpr double kSlowComputeMads = 4.0;

// A rank arrives late when its median arrival trails the median rank's by more than two
// thirds of the median spread (a rank that is last only by chance trails by about half of
// it) and by more than 1 us (clock resolution); and only among more than two ranks (of two,
// one is always later).
constexpr double kLateArrivalFloor_s = 1e-6;
constexpr std::size_t kLateArrivalMinRanks = 2;
double late_arrival_margin_s(double spread_s) {
  return std::max(2.0 * spread_s / 3.0, kLateArrivalFloor_s);
}

// A link is slow when its rate at the largest size is under half the median pair's of its
// kind, or its latency over twice the median pair's (well outside the run-to-run spread of a
// healthy fabric); judged among more than two pairs of a kind only.
constexpr double kSlowLinkFraction = 0.5;
constexpr double kSlowLatencyFactor = 2.0;
constexpr std::size_t kSlowLinkMinPairs = 2;

// A part of at least 10% of the step is large enough to name as binding.
constexpr double kBindingShare = 0.1;

// Arrival spread above twice the zero-byte collective: waiting for the slowest rank costs
// more than the collective's own latency, so variance binds.
constexpr double kVarianceOverLatency = 2.0;

// A measured collective within 3x of its bytes/bandwidth bound behaves like a bandwidth-bound
// one; within 3x of the zero-byte collective, like a latency-bound one (a model's constant
// factors are rarely larger).
constexpr double kNearBound = 3.0;

// Mean compute, communication, wait and step per rank and overall; returns the rank count.
std::int64_t split_steps(const MeasurementSet& set, MeasurementDiagnosis& d) {
  std::map<std::int64_t, RankSplit> by_rank;
  for (const StepPoint& s : set.steps) {
    RankSplit& r = by_rank[s.rank];
    r.rank = s.rank;
    r.host = s.host;
    ++r.steps;
    r.compute_s += s.compute_s;
    r.communication_s += s.communication_s;
    r.wait_s += s.wait_s;
    r.step_s += s.step_s;
  }
  for (auto& [rank, r] : by_rank) {
    const auto k = static_cast<double>(r.steps);
    r.compute_s /= k;
    r.communication_s /= k;
    r.wait_s /= k;
    r.step_s /= k;
    d.ranks.push_back(r);
    d.compute_s += r.compute_s;
    d.communication_s += r.communication_s;
    d.wait_s += r.wait_s;
    d.step_s += r.step_s;
  }
  const auto n = static_cast<double>(d.ranks.size());
  d.compute_s /= n;
  d.communication_s /= n;
  d.wait_s /= n;
  d.step_s /= n;
  return static_cast<std::int64_t>(d.ranks.size());
}

// Ranks whose compute stands out, and hosts all of whose ranks do (a bad node).
void find_slow_ranks(MeasurementDiagnosis& d) {
  std::vector<double> compute;
  for (const RankSplit& r : d.ranks) compute.push_back(r.compute_s);
  const double med = median(compute);
  std::vector<double> dev;
  for (double c : compute) dev.push_back(std::fabs(c - med));
  const double mad = median(dev);
  std::map<std::string, std::pair<int, int>> host_slow;  // host -> (slow, all)
  for (const RankSplit& r : d.ranks) {
    const bool slow =
        r.compute_s > med * kSlowComputeFactor && r.compute_s > med + kSlowComputeMads * mad;
    auto& h = host_slow[r.host];
    ++h.second;
    if (slow) {
      ++h.first;
      d.outliers.push_back({fmt::format("rank {} ({})", r.rank, r.host),
                            fmt::format("compute {} per step, {:.3g}x the median rank's",
                                        format_seconds(r.compute_s), r.compute_s / med)});
    }
  }
  if (host_slow.size() > 1) {
    for (const auto& [host, counts] : host_slow) {
      if (counts.second > 1 && counts.first == counts.second) {
        d.outliers.push_back({fmt::format("host {}", host),
                              fmt::format("all {} of its ranks compute slowly: a bad node",
                                          counts.second)});
      }
    }
  }
}

// The median spread at the barrier, the zero-byte collective, and late ranks; returns the
// largest rank count of an iteration.
std::int64_t summarise_arrivals(const MeasurementSet& set, MeasurementDiagnosis& d) {
  std::int64_t max_ranks = 1;
  std::map<std::int64_t, std::vector<const ArrivalPoint*>> by_iteration;
  for (const ArrivalPoint& a : set.arrivals) by_iteration[a.iteration].push_back(&a);
  std::vector<double> spreads;
  std::vector<double> latencies;
  std::map<std::int64_t, std::vector<double>> by_rank;
  for (const auto& [it, points] : by_iteration) {
    double lo = points.front()->arrival_s;
    double hi = lo;
    const ArrivalPoint* last = points.front();
    for (const ArrivalPoint* p : points) {
      lo = std::min(lo, p->arrival_s);
      if (p->arrival_s >= hi) {
        hi = p->arrival_s;
        last = p;
      }
      by_rank[p->rank].push_back(p->arrival_s - p->injected_s);
    }
    spreads.push_back(hi - lo);
    latencies.push_back(last->collective_s);  // the last arrival waits for no one
    max_ranks = std::max<std::int64_t>(max_ranks, static_cast<std::int64_t>(points.size()));
  }
  d.arrival_spread_s = median(spreads);
  d.zero_byte_collective_s = median(latencies);
  std::vector<double> rank_medians;
  for (const auto& [rank, values] : by_rank) rank_medians.push_back(median(values));
  const double med = median(rank_medians);
  for (const auto& [rank, values] : by_rank) {
    const double m = median(values);
    if (m > med + late_arrival_margin_s(*d.arrival_spread_s) &&
        by_rank.size() > kLateArrivalMinRanks) {
      d.outliers.push_back({fmt::format("rank {}", rank),
                            fmt::format("arrives {} after the median rank", format_seconds(m - med))});
    }
  }
  return max_ranks;
}

// One measured collective against the model on `fabric` and against its bandwidth bound.
void model_collective(const CollectivePoint& c, const Topology& fabric,
                      MeasurementDiagnosis::CollectiveCheck& check,
                      std::vector<std::string>& warnings) {
  try {
    const Op op = c.op;
    const Topology t = scaled_topology(fabric, c.ranks);
    if (c.algorithm.is_library()) {
      const auto ranked = rank_algorithms(op, applicable_algorithms(op, t), c.bytes, t);
      check.model_s = ranked.front().total_s;
    } else {
      // A name the model does not have: parse_algorithm throws, naming it and the known ones.
      const std::optional<AlgorithmSpec> spec = c.algorithm.spec();
      check.model_s =
          collective_cost(op, spec ? *spec : parse_algorithm(c.algorithm.name()), c.bytes, t)
              .total_s;
    }
    const double bw = t.nodes > 1 ? t.inter.bandwidth_Bps : t.intra.bandwidth_Bps;
    check.bandwidth_model_s = bandwidth_lower_bound_s(op, c.ranks, c.bytes, bw);
  } catch (const InputError& e) {
    warnings.push_back(fmt::format("no model for {} {} at {} ranks: {}", op_name(c.op),
                                   c.algorithm.name(), c.ranks, e.what()));
  }
}

// The host of each rank: from the ping-pong, step and arrival records, or, when none says
// and every run's context names a single host, that host for every rank.
std::map<std::int64_t, std::string> rank_hosts(const MeasurementSet& set) {
  std::map<std::int64_t, std::string> hosts;
  for (const PingPongPoint& p : set.pingpong) {
    if (!p.from_host.empty()) hosts.emplace(p.from, p.from_host);
    if (!p.to_host.empty()) hosts.emplace(p.to, p.to_host);
  }
  for (const StepPoint& p : set.steps) hosts.emplace(p.rank, p.host);
  for (const ArrivalPoint& p : set.arrivals) hosts.emplace(p.rank, p.host);
  if (!hosts.empty() || set.runs.empty()) return hosts;
  const std::string only = set.runs.front().hosts.size() == 1 ? set.runs.front().hosts[0] : "";
  for (const MeasurementRun& run : set.runs) {
    if (run.hosts.size() != 1 || run.hosts[0] != only) return hosts;
  }
  for (const PingPongPoint& p : set.pingpong) {
    hosts.emplace(p.from, only);
    hosts.emplace(p.to, only);
  }
  return hosts;
}

// One pair's times: the smallest and largest size, and its Hockney fit when it has one.
LinkFit fit_link(std::int64_t from, std::int64_t to, const std::vector<PingPongPoint>& points,
                 const std::map<std::int64_t, std::string>& hosts) {
  LinkFit link;
  link.from = from;
  link.to = to;
  if (const auto it = hosts.find(from); it != hosts.end()) link.from_host = it->second;
  if (const auto it = hosts.find(to); it != hosts.end()) link.to_host = it->second;
  std::vector<double> sizes;
  const PingPongPoint* lo = &points.front();
  const PingPongPoint* hi = &points.front();
  for (const PingPongPoint& p : points) {
    sizes.push_back(p.bytes);
    if (p.bytes < lo->bytes) lo = &p;
    if (p.bytes > hi->bytes) hi = &p;
  }
  std::sort(sizes.begin(), sizes.end());
  link.sizes = std::unique(sizes.begin(), sizes.end()) - sizes.begin();
  link.smallest_bytes = lo->bytes;
  link.smallest_s = lo->one_way_median_s;
  link.largest_bytes = hi->bytes;
  link.largest_s = hi->one_way_median_s;
  try {
    const HockneyFit fit = fit_hockney(points);
    link.alpha_s = fit.alpha_s;
    link.bandwidth_Bps = fit.bandwidth_Bps;
    link.r_squared = fit.r_squared;
  } catch (const InputError&) {
    // Fewer than 3 sizes, or times no line of positive alpha and bandwidth describes: the
    // pair keeps its measured times only.
  }
  return link;
}

// Every measured pair, in order of first appearance.
std::vector<LinkFit> fit_links(const MeasurementSet& set) {
  const std::map<std::int64_t, std::string> hosts = rank_hosts(set);
  std::vector<std::pair<std::int64_t, std::int64_t>> order;
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<PingPongPoint>> by_pair;
  for (const PingPongPoint& p : set.pingpong) {
    const auto key = std::make_pair(p.from, p.to);
    if (by_pair.find(key) == by_pair.end()) order.push_back(key);
    by_pair[key].push_back(p);
  }
  std::vector<LinkFit> links;
  for (const auto& [from, to] : order) links.push_back(fit_link(from, to, by_pair[{from, to}], hosts));
  return links;
}

// A pair's latency: its fitted alpha, or its time at the smallest size.
double link_latency_s(const LinkFit& l) { return l.alpha_s ? *l.alpha_s : l.smallest_s; }

// A pair's rate at its largest size (0 when that size is 0 bytes).
double link_rate_Bps(const LinkFit& l) {
  return l.largest_bytes > 0 && l.largest_s > 0 ? l.largest_bytes / l.largest_s : 0.0;
}

// "inside a node", "across nodes", "of unknown placement".
std::string_view link_kind_words(std::optional<bool> same_host) {
  if (!same_host) return "of unknown placement";
  return *same_host ? "inside a node" : "across nodes";
}

// Pairs much slower than the median pair of their kind (inside a node, across nodes: an
// inter-node pair is expected to be slower than an intra-node one).
void find_slow_links(const std::vector<LinkFit>& links, MeasurementDiagnosis& d) {
  for (const std::optional<bool> kind :
       {std::optional<bool>(true), std::optional<bool>(false), std::optional<bool>()}) {
    std::vector<const LinkFit*> members;
    for (const LinkFit& l : links) {
      if (l.same_host() == kind) members.push_back(&l);
    }
    if (members.size() <= kSlowLinkMinPairs) continue;
    std::vector<double> latencies;
    std::vector<double> rates;
    for (const LinkFit* l : members) {
      latencies.push_back(link_latency_s(*l));
      rates.push_back(link_rate_Bps(*l));
    }
    const double latency = median(latencies);
    const double rate = median(rates);
    for (const LinkFit* l : members) {
      std::vector<std::string> evidence;
      if (link_latency_s(*l) > kSlowLatencyFactor * latency) {
        evidence.push_back(fmt::format("latency {}, {:.2g}x the median pair's {}",
                                       format_seconds(link_latency_s(*l)),
                                       link_latency_s(*l) / latency, format_seconds(latency)));
      }
      if (rate > 0 && link_rate_Bps(*l) < kSlowLinkFraction * rate) {
        evidence.push_back(fmt::format("{} at {}, {:.2g}x the median pair's {}",
                                       format_rate(link_rate_Bps(*l)),
                                       format_bytes(l->largest_bytes), link_rate_Bps(*l) / rate,
                                       format_rate(rate)));
      }
      if (evidence.empty()) continue;
      d.outliers.push_back({fmt::format("link {}->{}", l->from, l->to),
                            fmt::format("{} (among {} pairs {})", join(evidence, "; "),
                                        members.size(), link_kind_words(kind))});
    }
  }
}

// The ping-pong finding: pairs, sizes, the median pair's latency and bandwidth, per kind.
std::string links_finding(const std::vector<LinkFit>& links) {
  std::int64_t sizes = 0;
  for (const LinkFit& l : links) sizes = std::max(sizes, l.sizes);
  std::vector<std::string> kinds;
  for (const std::optional<bool> kind :
       {std::optional<bool>(true), std::optional<bool>(false), std::optional<bool>()}) {
    std::vector<double> latencies;
    std::vector<double> rates;
    for (const LinkFit& l : links) {
      if (l.same_host() != kind) continue;
      latencies.push_back(link_latency_s(l));
      rates.push_back(l.bandwidth_Bps ? *l.bandwidth_Bps : link_rate_Bps(l));
    }
    if (latencies.empty()) continue;
    kinds.push_back(fmt::format("{} pair{} {}: median latency {}, bandwidth {}",
                                latencies.size(), latencies.size() == 1 ? "" : "s",
                                link_kind_words(kind), format_seconds(median(latencies)),
                                format_rate(median(rates))));
  }
  return fmt::format("ping-pong over {} pair{} of ranks, up to {} sizes each; {}", links.size(),
                     links.size() == 1 ? "" : "s", sizes, join(kinds, "; "));
}

// The verdict, in the measurement order of the collective-cost note: the step split first,
// then the collective against the model, then variance.
void decide_verdict(bool have_fabric, MeasurementDiagnosis& d) {
  std::vector<std::string> findings;
  if (!d.ranks.empty() && d.step_s > 0) {
    const double comm_share = d.communication_s / d.step_s;
    const double wait_share = d.wait_s / d.step_s;
    findings.push_back(fmt::format(
        "per step: compute {}, communication {}, wait {} (over {} ranks)",
        format_percent(d.compute_s / d.step_s), format_percent(comm_share),
        format_percent(wait_share), d.ranks.size()));
    if (wait_share >= kBindingShare && wait_share >= comm_share) {
      d.binding = Mechanism::kVariance;
    } else if (comm_share >= kBindingShare) {
      d.binding = Mechanism::kBandwidth;  // refined below by the collective evidence
    } else {
      d.binding = Mechanism::kCompute;
    }
  }
  if (d.zero_byte_collective_s && d.arrival_spread_s) {
    findings.push_back(fmt::format(
        "zero-byte collective {} (pure latency); median arrival spread {} (variance)",
        format_seconds(*d.zero_byte_collective_s), format_seconds(*d.arrival_spread_s)));
    if (!d.binding || *d.binding != Mechanism::kCompute) {
      if (*d.arrival_spread_s > kVarianceOverLatency * *d.zero_byte_collective_s) {
        d.binding = Mechanism::kVariance;
      } else if (!d.binding) {
        d.binding = Mechanism::kLatency;
      }
    }
  }
  if (!d.collectives.empty()) {
    bool bandwidth_like = false;
    bool latency_like = false;
    for (const auto& c : d.collectives) {
      if (c.bandwidth_model_s && c.bytes > 0) {
        const double ratio = c.measured_s / *c.bandwidth_model_s;
        if (ratio < kNearBound) bandwidth_like = true;
      }
      if (d.zero_byte_collective_s && c.measured_s < kNearBound * *d.zero_byte_collective_s) {
        latency_like = true;
      }
    }
    if (d.binding && *d.binding == Mechanism::kBandwidth) {
      if (latency_like && !bandwidth_like) d.binding = Mechanism::kLatency;
    }
    findings.push_back(fmt::format("{} collective measurement{}{}", d.collectives.size(),
                                   d.collectives.size() == 1 ? "" : "s",
                                   have_fabric ? " compared with the model"
                                               : " (no fabric to compare with)"));
  }
  if (!d.links.empty()) findings.push_back(links_finding(d.links));
  if (!d.outliers.empty()) {
    std::vector<std::string> names;
    for (const Outlier& o : d.outliers) names.push_back(o.what);
    findings.push_back("stands out: " + join(names, ", "));
  }
  d.verdict = findings.empty() ? "no step, arrival, collective or ping-pong records to diagnose"
                               : join(findings, "; ");
}

// ---- several runs ----

// Seconds since 1970 of a "YYYY-MM-DDTHH:MM:SSZ" date (the harness's context.date); nothing
// for any other text.
std::optional<double> utc_seconds(const std::string& date) {
  int y = 0;
  unsigned mo = 0, dd = 0, h = 0, mi = 0, sec = 0;
  char tail = 0;
  if (std::sscanf(date.c_str(), "%4d-%2u-%2uT%2u:%2u:%2u%c", &y, &mo, &dd, &h, &mi, &sec,
                  &tail) != 7 ||
      tail != 'Z') {
    return std::nullopt;
  }
  const std::chrono::year_month_day day{std::chrono::year{y}, std::chrono::month{mo},
                                        std::chrono::day{dd}};
  if (!day.ok() || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  const auto days = std::chrono::sys_days{day}.time_since_epoch().count();
  return static_cast<double>(days) * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
}

// Whether two files' runs are the same job (the rule in diagnose.h).
bool same_job(const MeasurementRun& a, const MeasurementRun& b) {
  if (!a.ranks || !b.ranks || a.hosts.empty() || b.hosts.empty()) return false;
  if (*a.ranks != *b.ranks || a.ranks_per_host != b.ranks_per_host || a.hosts != b.hosts) {
    return false;
  }
  const std::optional<double> ta = utc_seconds(a.date);
  const std::optional<double> tb = utc_seconds(b.date);
  return !ta || !tb || std::fabs(*ta - *tb) <= kSameJobWindow_s;
}

// "6 ranks on n0, n1, n2 (2 per host), 2026-11-30T05:00:00Z", or what the file does not say.
std::string run_identity(const MeasurementRun& run) {
  if (!run.ranks || run.hosts.empty()) {
    return run.command.empty() ? "a benchmark log: no rank count or hosts recorded"
                               : "no rank count or hosts recorded";
  }
  std::string out = fmt::format("{} rank{} on {}", *run.ranks, *run.ranks == 1 ? "" : "s",
                                join(run.hosts, ", "));
  if (run.ranks_per_host) out += fmt::format(" ({} per host)", *run.ranks_per_host);
  if (!run.date.empty()) out += ", " + run.date;
  return out;
}

void append_set(const MeasurementSet& from, MeasurementSet& into) {
  const auto append = [](auto& to, const auto& more) { to.insert(to.end(), more.begin(), more.end()); };
  append(into.sources, from.sources);
  append(into.runs, from.runs);
  append(into.warnings, from.warnings);
  append(into.pingpong, from.pingpong);
  append(into.collectives, from.collectives);
  append(into.arrivals, from.arrivals);
  append(into.steps, from.steps);
}

}  // namespace

std::vector<RunDiagnosis> diagnose_runs(const std::vector<MeasurementSet>& files,
                                        const std::optional<Topology>& fabric) {
  std::vector<MeasurementSet> groups;
  for (const MeasurementSet& file : files) {
    SCALEWALL_CHECK(file.runs.size() == 1);
    const auto joins = std::find_if(groups.begin(), groups.end(), [&](const MeasurementSet& g) {
      return same_job(g.runs.front(), file.runs.front());
    });
    if (joins == groups.end()) {
      groups.push_back(file);
    } else {
      append_set(file, *joins);
    }
  }
  std::vector<RunDiagnosis> runs;
  for (const MeasurementSet& g : groups) {
    runs.push_back({g.sources, run_identity(g.runs.front()), diagnose_measurements(g, fabric)});
  }
  return runs;
}

ScalingDiagnosis diagnose_scaling(const ScalingTable& table) {
  if (table.points.size() < 2) {
    throw InputError(fmt::format("{}: at least two rank counts are needed to diagnose scaling",
                                 table.source));
  }
  ScalingDiagnosis d;
  d.source = table.source;
  decide_mode(table, d);
  std::vector<ScalingPoint> pts = table.points;
  if (table.from_throughput && d.mode == ScalingMode::kWeak) {
    for (ScalingPoint& p : pts) p.step_s *= static_cast<double>(p.ranks);
  }
  const std::size_t best = choose_baseline(pts, d);
  const MechanismFit fit = fit_mechanisms(pts, d.mode, table.source);
  record_fit(pts, best, fit, d);
  const double total_lost = share_losses(fit, d);
  const auto confounded = find_confounded(pts, fit, d);
  name_binding(confounded, pts.size() >= fit.columns() + 1, total_lost, d);
  d.next_measurement = scaling_next_measurement(d.largest_ranks);
  return d;
}

MeasurementDiagnosis diagnose_measurements(const MeasurementSet& set,
                                           const std::optional<Topology>& fabric) {
  MeasurementDiagnosis d;
  d.sources = set.sources;
  d.warnings = set.warnings;
  std::int64_t max_ranks = 1;
  if (!set.steps.empty()) {
    max_ranks = std::max(max_ranks, split_steps(set, d));
    find_slow_ranks(d);
  }
  if (!set.arrivals.empty()) max_ranks = std::max(max_ranks, summarise_arrivals(set, d));
  for (const CollectivePoint& c : set.collectives) {
    MeasurementDiagnosis::CollectiveCheck check{c.op, c.algorithm, c.ranks, c.bytes,
                                                c.time_median_s, std::nullopt, std::nullopt};
    max_ranks = std::max(max_ranks, c.ranks);
    if (fabric) model_collective(c, *fabric, check, d.warnings);
    d.collectives.push_back(check);
  }
  if (!set.pingpong.empty()) {
    d.links = fit_links(set);
    find_slow_links(d.links, d);
    for (const PingPongPoint& p : set.pingpong) {
      max_ranks = std::max({max_ranks, p.from + 1, p.to + 1});
    }
  }
  for (const MeasurementRun& run : set.runs) {
    if (run.ranks) max_ranks = std::max(max_ranks, *run.ranks);
  }
  decide_verdict(fabric.has_value(), d);
  d.next_measurement = records_next_measurement(set, max_ranks);
  return d;
}

}  // namespace scalewall
