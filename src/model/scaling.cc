// Implementation of scalewall/model/scaling.h.
#include "scalewall/model/scaling.h"

#include <fmt/format.h>

#include <cmath>

#include "scalewall/base/error.h"

namespace scalewall {

void require_serial_fraction(double serial_fraction) {
  if (!std::isfinite(serial_fraction) || serial_fraction < 0.0 || serial_fraction > 1.0) {
    throw InputError(fmt::format(
        "serial fraction {} is outside [0, 1] (write 5% as 0.05)", serial_fraction));
  }
}

void require_ranks(double ranks) {
  if (!std::isfinite(ranks) || ranks < 1.0) {
    throw InputError(fmt::format("rank count {} is below 1", ranks));
  }
  if (ranks > static_cast<double>(kMaxRanks)) {
    throw InputError(fmt::format("rank count {} is above the limit of 2^40", ranks));
  }
}

void require_rank_count(std::int64_t ranks) {
  if (ranks < 1) throw InputError(fmt::format("rank count {} is below 1", ranks));
  if (ranks > kMaxRanks) {
    throw InputError(fmt::format("rank count {} is above the limit of 2^40", ranks));
  }
}

void require_rank_count(std::int64_t ranks, std::string_view what) {
  if (!ranks_in_range(ranks)) {
    throw InputError(fmt::format("{} {} is outside [1, 2^40]", what, ranks));
  }
}

double amdahl_speedup(double serial_fraction, double ranks) {
  require_serial_fraction(serial_fraction);
  require_ranks(ranks);
  // N / (1 + s (N - 1)) is 1 / (s + (1 - s)/N) rearranged; it is exactly 1 at N = 1.
  return ranks / (1.0 + serial_fraction * (ranks - 1.0));
}

double amdahl_efficiency(double serial_fraction, double ranks) {
  require_serial_fraction(serial_fraction);
  require_ranks(ranks);
  // 1 / (1 + s (N - 1)): S(N)/N without a division by a large N; exactly 1 at N = 1.
  return 1.0 / (1.0 + serial_fraction * (ranks - 1.0));
}

double gustafson_speedup(double serial_fraction, double ranks) {
  require_serial_fraction(serial_fraction);
  require_ranks(ranks);
  return ranks - serial_fraction * (ranks - 1.0);
}

std::optional<double> amdahl_ceiling(double serial_fraction) {
  require_serial_fraction(serial_fraction);
  if (serial_fraction == 0.0) return std::nullopt;
  return 1.0 / serial_fraction;
}

std::optional<std::int64_t> max_ranks_at_efficiency(double serial_fraction,
                                                    double target_efficiency) {
  require_serial_fraction(serial_fraction);
  if (!std::isfinite(target_efficiency) || target_efficiency <= 0.0 || target_efficiency > 1.0) {
    throw InputError(fmt::format("target efficiency {} is outside (0, 1]", target_efficiency));
  }
  if (serial_fraction == 0.0) return std::nullopt;
  // E(N) >= E  <=>  s (N - 1) <= 1/E - 1, written (1 - E)/E: exact subtraction, one rounding,
  // so that E near 1 keeps its precision. Decimal inputs that meet the target exactly
  // (s = 0.02, E = 0.5, N = 51) land a few ulps either side of it in binary, so a relative
  // slack of 1e-12 counts them as meeting it; at E = 1 the slack is 0 and only N = 1 meets it.
  const double headroom = (1.0 - target_efficiency) / target_efficiency * (1.0 + 1e-12);
  const auto meets = [&](std::int64_t ranks) {
    return serial_fraction * static_cast<double>(ranks - 1) <= headroom;
  };
  if (meets(kMaxRanks)) return std::nullopt;
  // Closed form for the answer, then bisection on the linear form to settle its rounding: a
  // bracket [lo, hi) with meets(lo) and !meets(hi), at most 41 halvings at any s.
  std::int64_t lo = 1;  // N = 1 always has efficiency 1
  std::int64_t hi = kMaxRanks;
  const double bound = headroom / serial_fraction + 1.0;  // may be huge or infinite
  if (bound < static_cast<double>(kMaxRanks)) {
    const auto guess = std::max(std::int64_t{1}, static_cast<std::int64_t>(std::floor(bound)));
    if (meets(guess)) {
      lo = guess;
      if (guess + 1 < hi && !meets(guess + 1)) hi = guess + 1;
    } else {
      hi = guess;
    }
  }
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (meets(mid)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace scalewall
