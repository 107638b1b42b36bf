// scalewall/analysis/curve_shape.h: the knee and the cliffs of a scaling curve (seed D01
// section 5.1), one definition for every curve the tool draws: the data-parallel curve of
// predict.h and the transformer curve of split_curve.h.
//
// A curve is seen through a CurveProbe: which counts it has a point at, and at each its
// efficiency and whether its exposed communication has reached its compute. On that:
//   cliff  a count whose efficiency is below its regular count's by more than
//          kCliffEfficiencyMargin. The regular count is the smallest power of two at or above
//          the count that the curve has a point at; failing that, the smallest u 2^k at or
//          above it (u the probe's regular_unit: the GPUs per node, or what the split's fixed
//          degrees make a whole step of). A cliff is a property of that one count.
//   knee   the smallest count past the threshold (exposed communication >= compute) that is
//          no cliff: found on the requested rows, then refined by bisection over the counts
//          the curve has a point at, between that row and the one before it.
#ifndef SCALEWALL_CURVE_SHAPE_H_
#define SCALEWALL_CURVE_SHAPE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace scalewall {

// A count that does worse than a larger, regular one (above): for the data-parallel curve,
// the chosen algorithm folds (or otherwise pays for) a count that is not a power of two. A
// cliff is flagged, never called the knee.
struct Cliff {
  std::int64_t ranks = 0;
  double efficiency = 0;
  std::int64_t regular_ranks = 0;
  double regular_efficiency = 0;
};

// A cliff is flagged when the count's efficiency is below the regular count's by more than
// this: 1 percentage point, above the rounding of any efficiency and below any drop a user
// would act on.
inline constexpr double kCliffEfficiencyMargin = 0.01;

// One point of a curve.
struct CurvePoint {
  std::int64_t count = 0;
  double efficiency = 0;
  bool past_knee = false;  // exposed communication >= compute
};

// What the knee and the cliffs need of a curve.
class CurveProbe {
 public:
  virtual ~CurveProbe() = default;
  // Whether the curve has a point at n.
  virtual bool runs(std::int64_t n) const = 0;
  // The count at or below n that the bisection tries in place of n; when this is not above
  // the bisection's lower end, it tries next_above instead.
  virtual std::int64_t snap_down(std::int64_t n) const = 0;
  // The smallest count in (lo, hi) the curve has a point at; hi when it finds none.
  virtual std::int64_t next_above(std::int64_t lo, std::int64_t hi) const = 0;
  // The point at n.
  virtual CurvePoint at(std::int64_t n) const = 0;
  // u of the regular count (above); 1 or less: powers of two only.
  virtual std::int64_t regular_unit() const = 0;
};

// The smallest count in (lo, hi] the bisection finds `pred` true at, given pred(hi) and
// !pred(lo), assuming pred is monotone in between; it tries only the counts snap_down and
// next_above give.
std::int64_t first_true(const CurveProbe& probe, std::int64_t lo, std::int64_t hi,
                        const std::function<bool(std::int64_t)>& pred);

// The regular count of n (above); empty when the curve has no point there.
std::optional<std::int64_t> regular_count(const CurveProbe& probe, std::int64_t n);

// The cliff at `point`, if its count does worse than its regular count.
std::optional<Cliff> cliff_at(const CurveProbe& probe, const CurvePoint& point);

// The cliffs among `rows`, in their order.
std::vector<Cliff> cliffs_of(const CurveProbe& probe, std::span<const CurvePoint> rows);

// The knee (above) of `rows` (ascending counts the curve has points at), whose cliffs are
// `cliffs`; the bisection below the first row starts at `lowest` (1 for a curve from one
// rank: one rank has no communication). Empty when no row is past the threshold.
std::optional<std::int64_t> knee_of(const CurveProbe& probe, std::span<const CurvePoint> rows,
                                    std::span<const Cliff> cliffs, std::int64_t lowest);

}  // namespace scalewall

#endif  // SCALEWALL_CURVE_SHAPE_H_
