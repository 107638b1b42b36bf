// Runs and calibrations side by side; see scalewall/analysis/compare.h.
#include "scalewall/analysis/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>

#include "scalewall/base/error.h"
#include "scalewall/base/units.h"
#include "scalewall/model/link.h"

namespace scalewall {
namespace {

// What a point measured, without its size and times: the key rows are matched by.
struct PointKey {
  std::string measurement;
  std::string variant;
  std::int64_t ranks = 0;
  double bytes = 0;

  friend bool operator<(const PointKey& a, const PointKey& b) {
    return std::tie(a.measurement, a.variant, a.ranks, a.bytes) <
           std::tie(b.measurement, b.variant, b.ranks, b.bytes);
  }
};

struct Point {
  PointKey key;
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
};

// Every timed point of a run, in file order: ping-pong, then collectives, then reductions.
std::vector<Point> run_points(const MeasurementSet& set) {
  std::vector<Point> points;
  for (const PingPongPoint& p : set.pingpong) {
    points.push_back({{"pingpong", fmt::format("{}->{}", p.from, p.to), 2, p.bytes},
                      p.one_way_median_s, p.one_way_min_s, p.one_way_max_s});
  }
  for (const CollectivePoint& p : set.collectives) {
    points.push_back({{std::string(op_name(p.op)), p.algorithm.name(), p.ranks, p.bytes},
                      p.time_median_s, p.time_min_s, p.time_max_s});
  }
  for (const ReductionPoint& p : set.reductions) {
    points.push_back({{"reduction", "", p.ranks, p.bytes}, p.time_median_s, p.time_min_s,
                      p.time_max_s});
  }
  return points;
}

// The first point of each key, in file order; a note for each key seen more than once.
std::vector<Point> unique_points(std::vector<Point> points, const std::string& label,
                                 std::vector<std::string>& notes) {
  std::map<PointKey, std::size_t> seen;
  std::vector<Point> unique;
  std::size_t repeated = 0;
  for (Point& p : points) {
    if (seen.emplace(p.key, unique.size()).second) {
      unique.push_back(std::move(p));
    } else {
      ++repeated;
    }
  }
  if (repeated > 0) {
    notes.push_back(fmt::format("{}: {} point(s) repeat a measurement and size seen earlier in "
                                "the file; compare keeps the first of each",
                                label, repeated));
  }
  return unique;
}

double ratio_of(double value, double baseline) { return baseline > 0 ? value / baseline : 0.0; }

// A row of `key` for input `run`, without spread.
CompareRow make_row(const PointKey& key, std::size_t run, double baseline_s, double time_s) {
  CompareRow row;
  row.measurement = key.measurement;
  row.variant = key.variant;
  row.ranks = key.ranks;
  row.bytes = key.bytes;
  row.run = run;
  row.baseline_s = baseline_s;
  row.time_s = time_s;
  row.ratio = ratio_of(time_s, baseline_s);
  return row;
}

Verdict verdict_of(const CompareRow& row) {
  if (!row.baseline_min_s || !row.min_s) return Verdict::kNoSpread;
  if (*row.max_s < *row.baseline_min_s) return Verdict::kFasterBeyondSpread;
  if (*row.min_s > *row.baseline_max_s) return Verdict::kSlowerBeyondSpread;
  return Verdict::kWithinSpread;
}

// The geometric mean of the ratios of each input's rows; empty for an input without one.
std::vector<std::optional<double>> geomeans(const std::vector<CompareRow>& rows,
                                            std::size_t inputs) {
  std::vector<double> log_sum(inputs, 0.0);
  std::vector<std::size_t> count(inputs, 0);
  for (const CompareRow& r : rows) {
    if (r.ratio <= 0) continue;
    log_sum[r.run] += std::log(r.ratio);
    ++count[r.run];
  }
  std::vector<std::optional<double>> means(inputs);
  for (std::size_t i = 1; i < inputs; ++i) {
    if (count[i] > 0) means[i] = std::exp(log_sum[i] / static_cast<double>(count[i]));
  }
  return means;
}

// Every time and ratio of `c` is a finite number: a ratio past the largest double (a time of
// 1e308 s against one of 1e-300 s) is refused, naming the input, the row and both figures.
void require_finite_ratios(const Comparison& c) {
  for (const CompareRow& r : c.rows) {
    if (std::isfinite(r.ratio) && std::isfinite(r.time_s) && std::isfinite(r.baseline_s)) continue;
    throw InputError(fmt::format(
        "{}: {}{} of {} B takes {:g} s against {:g} s in {}: the ratio is beyond the largest "
        "double",
        c.labels[r.run], r.measurement, r.variant.empty() ? "" : " " + r.variant, r.bytes,
        r.time_s, r.baseline_s, c.labels[0]));
  }
  for (const CompareParameter& p : c.parameters) {
    if (std::isfinite(p.ratio)) continue;
    throw InputError(fmt::format(
        "{}: {} = {:g} against {:g} in {}: the ratio is beyond the largest double",
        c.labels[p.run], p.key, p.value, p.baseline, c.labels[0]));
  }
}

Comparison compare_measurements(const std::vector<CompareRun>& inputs) {
  Comparison c;
  std::vector<std::vector<Point>> points;
  for (const CompareRun& run : inputs) {
    c.labels.push_back(run.label);
    points.push_back(unique_points(run_points(run.measurements), run.label, c.notes));
    if (!run.has_spread) {
      c.notes.push_back(fmt::format("{}: the file records one time per size and no spread "
                                    "(min and max): its differences are ratios only",
                                    run.label));
    }
  }
  std::vector<std::map<PointKey, const Point*>> index(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (const Point& p : points[i]) index[i][p.key] = &p;
  }
  std::vector<std::size_t> missing(inputs.size(), 0);
  for (const Point& base : points[0]) {
    for (std::size_t i = 1; i < inputs.size(); ++i) {
      const auto it = index[i].find(base.key);
      if (it == index[i].end()) {
        ++missing[i];
        continue;
      }
      const Point& p = *it->second;
      CompareRow row = make_row(base.key, i, base.median_s, p.median_s);
      if (inputs[0].has_spread) {
        row.baseline_min_s = base.min_s;
        row.baseline_max_s = base.max_s;
      }
      if (inputs[i].has_spread) {
        row.min_s = p.min_s;
        row.max_s = p.max_s;
      }
      row.verdict = verdict_of(row);
      c.rows.push_back(std::move(row));
    }
  }
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    if (missing[i] > 0) {
      c.notes.push_back(fmt::format("{}: {} point(s) of {} are not in it", inputs[i].label,
                                    missing[i], inputs[0].label));
    }
    const std::size_t matched = points[0].size() - missing[i];
    if (points[i].size() > matched) {
      c.notes.push_back(fmt::format("{}: {} point(s) are not in {} and are left out",
                                    inputs[i].label, points[i].size() - matched,
                                    inputs[0].label));
    }
  }
  if (c.rows.empty()) {
    throw InputError(fmt::format(
        "nothing to compare: no measurement of {} (the same kind, op, algorithm, ranks and "
        "size) is in {}",
        inputs[0].label, inputs.size() == 2 ? inputs[1].label : "any of the other files"));
  }
  require_finite_ratios(c);
  c.geomean_ratio = geomeans(c.rows, inputs.size());
  return c;
}

bool same_link(const Link& a, const Link& b) {
  if (a.regime_count() != b.regime_count()) return false;
  if (a.exchange_count != b.exchange_count) return false;
  for (std::size_t i = 0; i < a.exchange_count; ++i) {
    if (!(a.exchange[i] == b.exchange[i])) return false;
  }
  for (std::size_t i = 0; i < a.regime_count(); ++i) {
    const LinkRegime ra = a.regime(i);
    const LinkRegime rb = b.regime(i);
    if (ra.from_bytes != rb.from_bytes || ra.alpha_s != rb.alpha_s ||
        ra.bandwidth_Bps != rb.bandwidth_Bps) {
      return false;
    }
  }
  return true;
}

void add_parameters(Comparison& c, const std::vector<Topology>& fabrics,
                    const std::vector<std::pair<std::string, const Link Topology::*>>& links) {
  for (const auto& [name, link] : links) {
    for (std::size_t i = 1; i < fabrics.size(); ++i) {
      const Link& base = fabrics[0].*link;
      const Link& other = fabrics[i].*link;
      c.parameters.push_back({name + "_alpha_s", i, base.alpha_s, other.alpha_s,
                              ratio_of(other.alpha_s, base.alpha_s)});
      c.parameters.push_back({name + "_bandwidth_Bps", i, base.bandwidth_Bps,
                              other.bandwidth_Bps,
                              ratio_of(other.bandwidth_Bps, base.bandwidth_Bps)});
      c.parameters.push_back({name + "_regimes", i, static_cast<double>(base.regime_count()),
                              static_cast<double>(other.regime_count()),
                              ratio_of(static_cast<double>(other.regime_count()),
                                       static_cast<double>(base.regime_count()))});
    }
  }
  for (std::size_t i = 1; i < fabrics.size(); ++i) {
    c.parameters.push_back({"gamma_s_per_byte", i, fabrics[0].gamma_s_per_byte,
                            fabrics[i].gamma_s_per_byte,
                            ratio_of(fabrics[i].gamma_s_per_byte, fabrics[0].gamma_s_per_byte)});
  }
}

Comparison compare_calibrations(const std::vector<CompareRun>& inputs) {
  Comparison c;
  c.calibrations = true;
  std::vector<Topology> fabrics;
  bool two_levels = false;
  for (const CompareRun& run : inputs) {
    c.labels.push_back(run.label);
    fabrics.push_back(*run.fabric);
    two_levels = two_levels || !same_link(run.fabric->intra, run.fabric->inter);
  }
  std::vector<std::pair<std::string, const Link Topology::*>> links = {
      {"inter", &Topology::inter}};
  if (two_levels) links.insert(links.begin(), {"intra", &Topology::intra});
  for (const auto& [name, link] : links) {
    for (const double bytes : calibration_sizes()) {
      const double base = message_cost(fabrics[0].*link, bytes).total_s;
      for (std::size_t i = 1; i < fabrics.size(); ++i) {
        const double t = message_cost(fabrics[i].*link, bytes).total_s;
        c.rows.push_back(make_row({name, "", 0, bytes}, i, base, t));
      }
    }
  }
  add_parameters(c, fabrics, links);
  require_finite_ratios(c);
  c.geomean_ratio = geomeans(c.rows, inputs.size());
  c.notes.push_back(
      "a calibration carries no spread: its differences are ratios only (compare the runs it "
      "was fitted to for the spread)");
  return c;
}

// The points of `set` that are of series `series`, as a set of that one series (index 0).
// Reductions carry no series: they go with the first.
MeasurementSet series_part(const MeasurementSet& set, std::size_t series) {
  MeasurementSet part;
  part.series.push_back(set.series[series]);
  part.sources = set.sources;
  part.runs = set.runs;
  part.warnings = set.warnings;
  const auto take = [&](const auto& from, auto& to) {
    for (auto p : from) {
      if (p.series != series) continue;
      p.series = 0;
      to.push_back(std::move(p));
    }
  };
  take(set.pingpong, part.pingpong);
  take(set.collectives, part.collectives);
  if (series == 0) part.reductions = set.reductions;
  return part;
}

// Each run of several series (a file of two tables or two runs) as one run per series,
// labelled by it; a run of one series, and a calibration, as it is.
std::vector<CompareRun> split_series(const std::vector<CompareRun>& inputs) {
  std::vector<CompareRun> runs;
  for (const CompareRun& run : inputs) {
    if (run.fabric || run.measurements.series.size() < 2) {
      runs.push_back(run);
      continue;
    }
    for (std::size_t s = 0; s < run.measurements.series.size(); ++s) {
      CompareRun part;
      part.label = run.measurements.series[s].label;
      part.measurements = series_part(run.measurements, s);
      part.has_spread = run.has_spread;
      runs.push_back(std::move(part));
    }
  }
  return runs;
}

}  // namespace

std::string verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFasterBeyondSpread:
      return "faster beyond spread";
    case Verdict::kSlowerBeyondSpread:
      return "slower beyond spread";
    case Verdict::kWithinSpread:
      return "within spread";
    case Verdict::kNoSpread:
      return "no spread";
  }
  SCALEWALL_CHECK(false && "unknown Verdict");
  return "";
}

std::vector<double> calibration_sizes() {
  std::vector<double> sizes{0};
  // 4^15 = 2^30 B = 1 GiB, the largest message of the grid.
  constexpr int kLargestPowerOfFour = 15;
  for (int k = 0; k <= kLargestPowerOfFour; ++k) sizes.push_back(std::ldexp(1.0, 2 * k));
  return sizes;
}

Comparison compare_runs(const std::vector<CompareRun>& given) {
  const std::vector<CompareRun> inputs = split_series(given);
  if (inputs.size() < 2) {
    throw InputError(fmt::format(
        "compare needs two runs or more (two files, or a file of two tables); {} given",
        inputs.size()));
  }
  std::size_t calibrations = 0;
  for (const CompareRun& run : inputs) calibrations += run.fabric ? 1u : 0u;
  if (calibrations != 0 && calibrations != inputs.size()) {
    const CompareRun* run = nullptr;     // the first run
    const CompareRun* fabric = nullptr;  // the first calibration
    for (const CompareRun& r : inputs) {
      const CompareRun*& first = r.fabric ? fabric : run;
      if (first == nullptr) first = &r;
    }
    throw InputError(fmt::format(
        "compare takes runs or calibrations, not both: {} is a calibration and {} a run "
        "(compare the runs a calibration was fitted from instead)",
        fabric->label, run->label));
  }
  return calibrations == 0 ? compare_measurements(inputs) : compare_calibrations(inputs);
}

}  // namespace scalewall
