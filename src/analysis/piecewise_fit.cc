// The piecewise link fit of scalewall/analysis/calibrate.h: segmented least squares over the
// median one-way time per size, the number of regimes chosen by the Bayesian information
// criterion.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "scalewall/analysis/calibrate.h"
#include "scalewall/base/error.h"
#include "scalewall/base/stats.h"
#include "scalewall/base/units.h"

namespace scalewall {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Every run of sizes gets a line, about n^3 / 6 point visits: past this many distinct sizes
// (a second of work) the fit keeps one regime and says so.
constexpr std::size_t kMaxSegmentedSizes = 1000;
// The least alpha a run's line may have: a nanosecond, below any message's start-up cost.
constexpr double kLeastRegimeAlpha = 1e-9;

// The line of one run of sizes [first, last] and its sum of squared relative residuals.
struct RunLine {
  Line line;
  double rss = kInfinity;  // infinity: no line with positive alpha and bandwidth fits the run
};

RunLine run_line(const std::vector<FitPoint>& points, std::size_t first, std::size_t last,
                 Weighting weighting) {
  std::vector<double> x;
  std::vector<double> y;
  std::vector<double> w;
  for (std::size_t i = first; i <= last; ++i) {
    x.push_back(points[i].bytes);
    y.push_back(points[i].measured_s);
    if (!(points[i].measured_s > 0)) return {};  // relative residuals need a time above 0
    w.push_back(1.0 / (points[i].measured_s * points[i].measured_s));
  }
  RunLine run;
  const std::span<const double> weights =
      weighting == Weighting::kRelative ? std::span<const double>(w) : std::span<const double>();
  run.line = fit_line(x, y, weights);
  if (!(run.line.intercept >= kLeastRegimeAlpha)) {
    // The least squares with alpha held at its floor: where the times of a run grow faster
    // than its sizes (the rate falls as the buffers leave a cache), the unconstrained line
    // crosses zero, and the constrained optimum lies on the bound.
    run.line = fit_slope(x, y, kLeastRegimeAlpha, weights);
  }
  if (!(run.line.slope > 0) || !std::isfinite(run.line.slope)) return {};
  run.rss = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = (y[i] - run.line.intercept - run.line.slope * x[i]) / y[i];
    run.rss += r * r;
  }
  return run;
}

// The best split of the n points into k runs for every k = 1 .. max_k: cost[k][j] is the least
// RSS of points 0..j in k runs, start[k][j] where the last of those runs starts.
struct Splits {
  std::vector<std::vector<double>> cost;
  std::vector<std::vector<std::size_t>> start;
};

Splits best_splits(const std::vector<std::vector<RunLine>>& runs, std::size_t n,
                   std::size_t max_k) {
  Splits s;
  s.cost.assign(max_k + 1, std::vector<double>(n, kInfinity));
  s.start.assign(max_k + 1, std::vector<std::size_t>(n, 0));
  for (std::size_t j = 0; j < n; ++j) s.cost[1][j] = runs[0][j].rss;
  for (std::size_t k = 2; k <= max_k; ++k) {
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t i = 1; i <= j; ++i) {  // the last run is i..j
        const double c = s.cost[k - 1][i - 1] + runs[i][j].rss;
        if (c < s.cost[k][j]) {
          s.cost[k][j] = c;
          s.start[k][j] = i;
        }
      }
    }
  }
  return s;
}

// The [first, last] of each of the k runs of the best split of all n points, ascending.
std::vector<std::pair<std::size_t, std::size_t>> run_bounds(const Splits& splits, std::size_t n,
                                                            std::size_t k) {
  std::vector<std::pair<std::size_t, std::size_t>> bounds;
  for (std::size_t kk = k, j = n - 1;; --kk) {
    const std::size_t i = kk == 1 ? 0 : splits.start[kk][j];
    bounds.insert(bounds.begin(), {i, j});
    if (kk == 1) break;
    j = i - 1;
  }
  return bounds;
}

// `per_regime` parameters per regime (3 for a line and its split point, 2 for a rate through
// the origin and its split point), less the first regime's split point.
double bic(double rss, std::size_t n, std::size_t k, double per_regime = 3.0) {
  const auto nd = static_cast<double>(n);
  const double floor = kRegimeNoiseFloor * kRegimeNoiseFloor;
  return nd * std::log(std::max(rss / nd, floor)) +
         (per_regime * static_cast<double>(k) - 1.0) * std::log(nd);
}

// The relative least-squares rate through the origin of points [first, last]:
// gamma = sum(b / t) / sum(b^2 / t^2), minimising sum(((t - gamma b) / t)^2).
RunLine rate_run(const std::vector<FitPoint>& points, std::size_t first, std::size_t last) {
  double num = 0;
  double den = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double b = points[i].bytes;
    const double t = points[i].measured_s;
    if (!(t > 0) || !(b > 0)) return {};
    num += b / t;
    den += (b / t) * (b / t);
  }
  RunLine run;
  run.line = {0.0, num / den, 1.0};
  if (!(run.line.slope > 0) || !std::isfinite(run.line.slope)) return {};
  run.rss = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double r = (points[i].measured_s - run.line.slope * points[i].bytes) / points[i].measured_s;
    run.rss += r * r;
  }
  return run;
}

// A regime's HockneyFit over points [first, last] from its line.
HockneyFit regime_fit(const std::vector<FitPoint>& points, std::size_t first, std::size_t last,
                      const Line& line, Weighting weighting) {
  HockneyFit fit;
  fit.alpha_s = line.intercept;
  fit.bandwidth_Bps = 1.0 / line.slope;
  fit.crossover_bytes = fit.alpha_s * fit.bandwidth_Bps;
  fit.r_squared = line.r_squared;
  fit.weighting = weighting;
  fit.min_bytes = points[first].bytes;
  fit.max_bytes = points[last].bytes;
  for (std::size_t i = first; i <= last; ++i) {
    FitPoint p = points[i];
    p.fitted_s = fit.alpha_s + p.bytes / fit.bandwidth_Bps;
    p.residual_s = p.measured_s - p.fitted_s;
    p.relative_residual = p.measured_s > 0 ? p.residual_s / p.measured_s : 0.0;
    fit.points.push_back(p);
  }
  return fit;
}

// Where the regime after `below` starts: where the two lines cross between the facing sizes
// a (below's largest) and b (above's smallest), else their geometric mean.
double regime_start(const HockneyFit& below, const HockneyFit& above) {
  const double a = below.max_bytes;
  const double b = above.min_bytes;
  const double slope_gap = 1.0 / below.bandwidth_Bps - 1.0 / above.bandwidth_Bps;
  if (slope_gap != 0.0) {
    const double cross = (above.alpha_s - below.alpha_s) / slope_gap;
    if (cross > a && cross <= b) return cross;
  }
  return a > 0 ? std::sqrt(a * b) : b;
}

std::size_t chosen_count(const std::vector<double>& bic_by_k, std::optional<std::size_t> given,
                         std::size_t admissible) {
  if (given) {
    if (*given == 0 || *given > kMaxLinkRegimes) {
      throw InputError(fmt::format("{} regimes: a link has 1 to {}", *given, kMaxLinkRegimes));
    }
    if (*given > bic_by_k.size() || !std::isfinite(bic_by_k[*given - 1])) {
      throw InputError(fmt::format(
          "{} regimes do not fit these {}: no split into {} runs of at least {} sizes gives "
          "every run a line with positive alpha and bandwidth (at most {} do)",
          *given, "sizes", *given, kMinRegimeSizes, admissible));
    }
    return *given;
  }
  std::size_t best = 1;
  for (std::size_t k = 2; k <= bic_by_k.size(); ++k) {
    if (bic_by_k[k - 1] < bic_by_k[best - 1]) best = k;
  }
  return best;
}

}  // namespace

Link PiecewiseFit::link() const {
  std::vector<LinkRegime> list;
  for (const RegimeFit& r : regimes) {
    list.push_back({r.from_bytes, r.fit.alpha_s, r.fit.bandwidth_Bps, 0.0, 0.0});
  }
  return piecewise_link(list);
}

PiecewiseFit fit_piecewise(std::span<const PingPongPoint> points, const FitOptions& options,
                           std::optional<std::size_t> regimes) {
  PiecewiseFit out;
  out.single = fit_hockney(points, options);
  const std::vector<FitPoint>& pts = out.single.points;
  const std::size_t n = pts.size();
  if (n > kMaxSegmentedSizes) {
    if (regimes && *regimes != 1) {
      throw InputError(fmt::format("{} distinct sizes are too many to split into regimes (at "
                                   "most {}); give fewer sizes or one regime",
                                   n, kMaxSegmentedSizes));
    }
    out.rule = fmt::format("one regime: {} distinct sizes are more than the {} the split "
                           "search takes", n, kMaxSegmentedSizes);
    out.regimes.push_back({0.0, out.single});
    return out;
  }
  const std::size_t max_k = std::min(kMaxLinkRegimes, n / kMinRegimeSizes);
  std::vector<std::vector<RunLine>> runs(n, std::vector<RunLine>(n));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + kMinRegimeSizes - 1; j < n; ++j) {
      runs[i][j] = run_line(pts, i, j, options.weighting);
    }
  }
  // The whole range is one run: fit_hockney's line, admissible by construction.
  runs[0][n - 1].line = {out.single.alpha_s, 1.0 / out.single.bandwidth_Bps, out.single.r_squared};
  runs[0][n - 1].rss = 0;
  for (const FitPoint& p : pts) runs[0][n - 1].rss += p.relative_residual * p.relative_residual;
  const Splits splits = best_splits(runs, n, max_k);
  std::size_t admissible = 0;
  for (std::size_t k = 1; k <= max_k; ++k) {
    const double rss = splits.cost[k][n - 1];
    out.bic.push_back(std::isfinite(rss) ? bic(rss, n, k) : kInfinity);
    if (std::isfinite(rss)) admissible = k;
  }
  const std::size_t k = chosen_count(out.bic, regimes, admissible);
  out.rule = regimes ? fmt::format("{} regime{}, as given", k, k == 1 ? "" : "s")
                     : fmt::format("{} regime{}: the least BIC over 1 .. {} regimes", k,
                                   k == 1 ? "" : "s", admissible);
  if (k == 1) {
    out.regimes.push_back({0.0, out.single});
    return out;
  }
  const std::vector<std::pair<std::size_t, std::size_t>> bounds = run_bounds(splits, n, k);
  for (const auto& [first, last] : bounds) {
    const HockneyFit fit = regime_fit(pts, first, last, runs[first][last].line, options.weighting);
    const double from = out.regimes.empty() ? 0.0 : regime_start(out.regimes.back().fit, fit);
    out.regimes.push_back({from, fit});
  }
  return out;
}

ReductionRegimes GammaFit::regimes_above() const {
  ReductionRegimes out;
  for (std::size_t i = 1; i < regimes.size() && i < kMaxLinkRegimes; ++i) {
    out.above[i - 1] = {regimes[i].from_bytes, regimes[i].gamma_s_per_byte};
    out.count = i;
  }
  return out;
}

void split_gamma_regimes(GammaFit& fit) {
  std::vector<FitPoint>& pts = fit.points;
  const std::size_t n = pts.size();
  fit.regimes = {{0.0, fit.gamma_s_per_byte, pts.front().bytes, pts.back().bytes, n}};
  fit.rule = "1 regime: one rate over every size";
  if (n > kMaxSegmentedSizes || n < 2 * kMinRegimeSizes) return;
  const std::size_t max_k = std::min(kMaxLinkRegimes, n / kMinRegimeSizes);
  std::vector<std::vector<RunLine>> runs(n, std::vector<RunLine>(n));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + kMinRegimeSizes - 1; j < n; ++j) runs[i][j] = rate_run(pts, i, j);
  }
  const Splits splits = best_splits(runs, n, max_k);
  std::size_t best = 1;
  double best_bic = bic(splits.cost[1][n - 1], n, 1, 2.0);
  for (std::size_t k = 2; k <= max_k; ++k) {
    if (!std::isfinite(splits.cost[k][n - 1])) continue;
    const double b = bic(splits.cost[k][n - 1], n, k, 2.0);
    if (b < best_bic) {
      best = k;
      best_bic = b;
    }
  }
  fit.rule = fmt::format("{} regime{}: the least BIC over 1 .. {} regimes", best,
                         best == 1 ? "" : "s", max_k);
  if (best == 1) return;
  const std::vector<std::pair<std::size_t, std::size_t>> bounds = run_bounds(splits, n, best);
  fit.regimes.clear();
  double ss_res = 0;
  double ss_tot = 0;
  double mean = 0;
  for (const FitPoint& p : pts) mean += p.measured_s / static_cast<double>(n);
  for (const auto& [first, last] : bounds) {
    const double g = runs[first][last].line.slope;
    const double from =
        fit.regimes.empty() ? 0.0 : std::sqrt(pts[first - 1].bytes * pts[first].bytes);
    fit.regimes.push_back({from, g, pts[first].bytes, pts[last].bytes, last - first + 1});
    for (std::size_t i = first; i <= last; ++i) {
      FitPoint& p = pts[i];
      p.fitted_s = g * p.bytes;
      p.residual_s = p.measured_s - p.fitted_s;
      p.relative_residual = p.measured_s > 0 ? p.residual_s / p.measured_s : 0.0;
      ss_res += p.residual_s * p.residual_s;
      ss_tot += (p.measured_s - mean) * (p.measured_s - mean);
    }
  }
  fit.r_squared = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
}

namespace {

// Whether every size of a fit lies within kRunResidualFloor of its line. Such a regime fits
// well whatever its R^2: a regime whose times barely change (latency-bound sizes) leaves little
// variation to explain, so noise of a percent gives it a low R^2 without a poor fit.
bool within_floor(const HockneyFit& fit) {
  for (const FitPoint& p : fit.points) {
    if (std::fabs(p.relative_residual) > kRunResidualFloor) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> piecewise_fit_warnings(const PiecewiseFit& fit) {
  if (fit.regimes.size() == 1) return fit_quality_warnings(fit.regimes.front().fit);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < fit.regimes.size(); ++i) {
    const HockneyFit& r = fit.regimes[i].fit;
    if (r.points.size() <= kMinRegimeSizes || within_floor(r)) continue;
    for (const std::string& w : fit_quality_warnings(r)) {
      out.push_back(fmt::format("regime {} of {} ({} .. {}): {}", i + 1, fit.regimes.size(),
                                format_bytes(r.min_bytes), format_bytes(r.max_bytes), w));
    }
  }
  return out;
}

}  // namespace scalewall
