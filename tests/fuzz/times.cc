// Fuzz target: the times file reader (times_file.h), then what `scalewall straggler --times`
// does with the times: the barrier-synchronised step. The first byte picks the column
// argument (none, an index, a header name), the rest is the file.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "scalewall/model/straggler.h"
#include "scalewall/io/times_file.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scalewall;
  if (size == 0) return 0;
  static const std::array<std::string, 6> kColumns = {"", "1", "2", "step_s", "time_s", " 3 "};
  const std::string& column = kColumns[data[0] % kColumns.size()];
  fuzz::guarded([&] {
    const std::vector<double> times = 
        parse_times_text(fuzz::as_text(data + 1, size - 1), "fuzz.times", column);
    for (const double t : times) fuzz::require_finite(t, "time");
    const BarrierStep b = barrier_step(times);
    fuzz::require_finite(b.step_s, "step_s");
    fuzz::require_finite(b.mean_s, "mean_s");
    fuzz::require_finite(b.wait_fraction, "wait_fraction");
    if (b.mean_s < b.min_s || b.mean_s > b.step_s) fuzz::finding("mean outside [min, step]");
  });
  return 0;
}
