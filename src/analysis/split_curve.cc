// Implementation of scalewall/analysis/split_curve.h.
#include "scalewall/analysis/split_curve.h"

#include <fmt/format.h>

#include <map>
#include <numeric>

#include "scalewall/analysis/split_search.h"
#include "scalewall/base/checked_count.h"
#include "scalewall/base/error.h"

namespace scalewall {
namespace {

// The bisection of the knee tries at most this many counts below or above each midpoint
// (curve_shape.h's snap_down and next_above): each may be a search of the splits.
constexpr int kNeighbourTries = 64;

// The split and its step at one count whose setup leaves something to try.
SplitCurveRow evaluate_at(const CountSetup& c, std::int64_t gpus, bool degrees_fixed) {
  SplitCurveRow row;
  row.gpus = gpus;
  row.global_batch = c.job.training.global_batch;
  if (degrees_fixed) {
    const ParallelSplit split = c.constraints.defaults(c.job.framework);
    const SplitStep step = evaluate_split(c.job, split);
    if (step.problem != SplitProblem::kNone) {
      row.why = fmt::format("its split, tp {} pp {} dp {}, cannot run: {}", split.tp, split.pp,
                            split.dp, split_problem_detail(c.job, split, step.problem));
    } else {
      row.step = step;
    }
    return row;
  }
  const SplitSearch search = search_splits(c.job, gpus, c.constraints, 1);
  if (search.ranked.empty()) {
    row.why = why_no_split(c.job, gpus, c.constraints);
  } else {
    row.step = search.ranked.front();
  }
  return row;
}

// A row whose setup already says why nothing runs.
SplitCurveRow refused_row(const CountSetup& c, std::int64_t gpus) {
  SplitCurveRow row;
  row.gpus = gpus;
  row.why = c.why;
  return row;
}

// Speedup and efficiency of `row` against `base` (both fit).
void compare_with(SplitCurveRow& row, const SplitCurveRow& base, ScalingMode mode) {
  const SplitStep& s = *row.step;
  const SplitStep& b = *base.step;
  const double speedup =
      mode == ScalingMode::kStrong ? b.step_s / s.step_s : s.tokens_per_s / b.tokens_per_s;
  row.speedup = speedup;
  row.efficiency = speedup * static_cast<double>(base.gpus) / static_cast<double>(row.gpus);
}

// The curve as the knee and the cliffs see it (curve_shape.h): a point at each count whose
// split fits. Counts are tried only where one can run: whole nodes, and with fixed degrees
// whole multiples of tp pp. Every count is evaluated once.
class SplitProbe final : public CurveProbe {
 public:
  SplitProbe(const SplitCurveSetup& setup, const SplitCurveRow& base)
      : setup_(setup), base_(base), fixed_(setup.constraints.degrees_fixed()) {
    g_ = std::max<std::int64_t>(1, setup.job.fabric.ranks_per_node);
    step_ = fixed_ ? *setup.constraints.tp * *setup.constraints.pp : 1;
  }

  void remember(const SplitCurveRow& row) { rows_.emplace(row.gpus, row); }

  bool runs(std::int64_t n) const override { return candidate(n) && row(n).fits(); }

  std::int64_t snap_down(std::int64_t n) const override {
    int tries = 0;
    for (std::int64_t m = n / step_ * step_; m >= 1 && tries < kNeighbourTries; m -= step_) {
      if (!candidate(m)) continue;
      if (runs(m)) return m;
      ++tries;
    }
    return 0;
  }

  std::int64_t next_above(std::int64_t lo, std::int64_t hi) const override {
    int tries = 0;
    for (std::int64_t m = (lo / step_ + 1) * step_; m < hi && tries < kNeighbourTries;
         m += step_) {
      if (!candidate(m)) continue;
      if (runs(m)) return m;
      ++tries;
    }
    return hi;
  }

  CurvePoint at(std::int64_t n) const override {
    SplitCurveRow r = row(n);
    if (!r.fits()) return {n, 0.0, false};
    compare_with(r, base_, setup_.mode);
    return {n, *r.efficiency,
            exposed_communication_s(*r.step) >= compute_time_s(*r.step)};
  }

  // The regular count's unit: the node, or with fixed degrees the smallest whole number of
  // nodes that tp pp divides.
  std::int64_t regular_unit() const override { return std::lcm(g_, step_); }

 private:
  bool candidate(std::int64_t n) const {
    return n >= 1 && (n < g_ || n % g_ == 0) && n % step_ == 0;
  }

  const SplitCurveRow& row(std::int64_t n) const {
    const auto it = rows_.find(n);
    if (it != rows_.end()) return it->second;
    const CountSetup c = setup_at(setup_, n);
    SplitCurveRow r = refused_row(c, n);
    // A count the user did not ask for is searched only where one search takes it.
    if (c.why.empty() &&
        (fixed_ || count_candidate_splits(c.job, n, c.constraints) <= kMaxSearchCandidates)) {
      r = evaluate_at(c, n, fixed_);
    }
    return rows_.emplace(n, std::move(r)).first->second;
  }

  const SplitCurveSetup& setup_;
  const SplitCurveRow& base_;
  bool fixed_;
  std::int64_t g_ = 1;
  std::int64_t step_ = 1;
  mutable std::map<std::int64_t, SplitCurveRow> rows_;
};

void require_grid(std::span<const std::int64_t> grid) {
  if (grid.empty()) throw InputError("no GPU counts to predict");
  for (std::size_t i = 0; i < grid.size(); ++i) {
    if (grid[i] < 1) throw InputError(fmt::format("gpus {} must be at least 1", grid[i]));
    if (i > 0 && grid[i] <= grid[i - 1]) {
      throw InputError(fmt::format("GPU counts must ascend: {} follows {}", grid[i],
                                   grid[i - 1]));
    }
  }
}

// The rows of `grid`, one search budget over all of it where the job is the same at every
// count (strong scaling, open degrees: best_split_curve), else one per count.
std::vector<SplitCurveRow> grid_rows(const SplitCurveSetup& setup,
                                     std::span<const std::int64_t> grid) {
  const bool fixed = setup.constraints.degrees_fixed();
  std::vector<CountSetup> setups;
  std::vector<std::int64_t> searched;
  for (const std::int64_t n : grid) {
    setups.push_back(setup_at(setup, n));
    if (setups.back().why.empty()) searched.push_back(n);
  }
  std::map<std::int64_t, SplitSearch> searches;
  if (!fixed && setup.mode == ScalingMode::kStrong && !searched.empty()) {
    for (SplitSearch& s : best_split_curve(setup.job, searched, setup.constraints)) {
      searches.emplace(s.gpus, std::move(s));
    }
  }
  std::vector<SplitCurveRow> rows;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const CountSetup& c = setups[i];
    const auto found = searches.find(grid[i]);
    if (!c.why.empty()) {
      rows.push_back(refused_row(c, grid[i]));
    } else if (found == searches.end()) {
      rows.push_back(evaluate_at(c, grid[i], fixed));
    } else {
      SplitCurveRow row;
      row.gpus = grid[i];
      row.global_batch = c.job.training.global_batch;
      if (found->second.ranked.empty()) {
        row.why = why_no_split(c.job, grid[i], c.constraints);
      } else {
        row.step = found->second.ranked.front();
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace

double exposed_communication_s(const SplitStep& s) {
  return s.tp_comm_s + s.cp_comm_s + s.ep_comm_s + s.pp_transfer_s + s.dp_comm_s;
}

double compute_time_s(const SplitStep& s) { return s.compute_s + s.recompute_s; }

SplitLoss lost_time(const SplitStep& s) {
  const double comm = exposed_communication_s(s);
  return {s.serial_s, s.comm_latency_s, comm - s.comm_latency_s, s.variance_s, s.pp_bubble_s};
}

CountSetup setup_at(const SplitCurveSetup& setup, std::int64_t gpus) {
  if (setup.gpus < 1 || gpus < 1) {
    throw InputError(fmt::format("gpus {} must be at least 1", std::min(setup.gpus, gpus)));
  }
  CountSetup out{setup.job, setup.constraints, ""};
  if (setup.mode == ScalingMode::kWeak) {
    const std::int64_t b = setup.job.training.global_batch;
    const std::optional<std::int64_t> grown = try_mul(b, gpus);
    if (!grown || *grown % setup.gpus != 0) {
      out.why = fmt::format(
          "weak scaling's global batch, {} x {} / {} GPUs, is not a whole number of sequences",
          b, gpus, setup.gpus);
      out.batch_whole = false;
      return out;
    }
    out.job.training.global_batch = *grown / setup.gpus;
  }
  const SplitConstraints& c = setup.constraints;
  if (!c.degrees_fixed()) {
    out.constraints.dp.reset();
    return out;
  }
  const std::int64_t tp_pp = *c.tp * *c.pp;
  if (gpus % tp_pp != 0) {
    out.why = fmt::format("tp x pp = {} x {} = {} does not divide {} GPUs", *c.tp, *c.pp, tp_pp,
                          gpus);
    return out;
  }
  out.constraints.dp = gpus / tp_pp;
  return out;
}

SplitCurve split_curve(const SplitCurveSetup& setup, std::span<const std::int64_t> grid) {
  require_grid(grid);
  require_valid(setup.job.model);
  SplitCurve curve;
  curve.mode = setup.mode;
  curve.degrees_fixed = setup.constraints.degrees_fixed();
  curve.rows = grid_rows(setup, grid);
  const SplitCurveRow* base = nullptr;
  for (const SplitCurveRow& row : curve.rows) {
    if (row.fits()) {
      base = &row;
      break;
    }
  }
  if (base == nullptr) return curve;
  curve.base_gpus = base->gpus;
  SplitProbe probe(setup, *base);
  std::vector<CurvePoint> points;
  for (SplitCurveRow& row : curve.rows) {
    probe.remember(row);
    if (!row.fits()) continue;
    compare_with(row, *base, setup.mode);
    points.push_back(probe.at(row.gpus));
  }
  curve.cliffs = cliffs_of(probe, points);
  // The knee is sought from the base up: below it the curve has no point.
  curve.knee_gpus = knee_of(probe, points, curve.cliffs, base->gpus);
  return curve;
}

}  // namespace scalewall
