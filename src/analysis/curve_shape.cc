// Implementation of scalewall/analysis/curve_shape.h.
#include "scalewall/analysis/curve_shape.h"

#include <algorithm>

namespace scalewall {

std::int64_t first_true(const CurveProbe& probe, std::int64_t lo, std::int64_t hi,
                        const std::function<bool(std::int64_t)>& pred) {
  while (hi - lo > 1) {
    std::int64_t mid = probe.snap_down(lo + (hi - lo) / 2);
    if (mid <= lo) {
      // No count to try strictly between near the middle: the next one up from lo.
      mid = probe.next_above(lo, hi);
      if (mid >= hi) return hi;
    }
    if (pred(mid)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

std::optional<std::int64_t> regular_count(const CurveProbe& probe, std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p *= 2;
  if (!probe.runs(p) && probe.regular_unit() > 1) {
    p = probe.regular_unit();
    while (p < n) p *= 2;
  }
  if (!probe.runs(p)) return std::nullopt;
  return p;
}

std::optional<Cliff> cliff_at(const CurveProbe& probe, const CurvePoint& point) {
  const std::optional<std::int64_t> p = regular_count(probe, point.count);
  if (!p || *p == point.count) return std::nullopt;
  const CurvePoint regular = probe.at(*p);
  if (point.efficiency >= regular.efficiency - kCliffEfficiencyMargin) return std::nullopt;
  return Cliff{point.count, point.efficiency, *p, regular.efficiency};
}

std::vector<Cliff> cliffs_of(const CurveProbe& probe, std::span<const CurvePoint> rows) {
  std::vector<Cliff> out;
  for (const CurvePoint& row : rows) {
    if (const std::optional<Cliff> c = cliff_at(probe, row)) out.push_back(*c);
  }
  return out;
}

std::optional<std::int64_t> knee_of(const CurveProbe& probe, std::span<const CurvePoint> rows,
                                    std::span<const Cliff> cliffs, std::int64_t lowest) {
  const auto knee = [&](std::int64_t n) {
    const CurvePoint point = probe.at(n);
    return point.past_knee && !cliff_at(probe, point);
  };
  const auto is_cliff = [&](const CurvePoint& point) {
    return std::any_of(cliffs.begin(), cliffs.end(),
                       [&](const Cliff& c) { return c.ranks == point.count; });
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CurvePoint& row = rows[i];
    if (row.past_knee && !is_cliff(row)) {
      const std::int64_t below = i == 0 ? lowest : rows[i - 1].count;
      return below < row.count ? first_true(probe, below, row.count, knee) : row.count;
    }
  }
  return std::nullopt;
}

}  // namespace scalewall
