// Fuzz target: the streaming-bandwidth points of an OSU bandwidth log (calibrate.h), then the
// LogGP gap fit that `scalewall calibrate` runs on them against a fixed Hockney fit.
#include <cstdint>
#include <vector>

#include "scalewall/analysis/calibrate.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scalewall;
  fuzz::guarded([&] {
    const std::vector<StreamPoint> points = 
        parse_stream_points(fuzz::as_text(data, size), "fuzz.log");
    HockneyFit fit;
    fit.alpha_s = 2e-6;
    fit.bandwidth_Bps = 12.5e9;
    fit.crossover_bytes = fit.alpha_s * fit.bandwidth_Bps;
    const LogGPFit g = fit_loggp(fit, points);
    if (g.gap_s) fuzz::require_finite(*g.gap_s, "gap_s");
  });
  return 0;
}
