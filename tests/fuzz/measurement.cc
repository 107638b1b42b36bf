// Fuzz target: the measurement readers (scalewall-mpi JSON Lines, nccl-tests, OSU Micro-
// Benchmarks, Intel MPI Benchmarks; the format is detected by content, so one target reaches
// each reader, and its corpus holds logs of every format), then what calibrate, validate and
// diagnose do with the records: the bus-bandwidth and Hockney fits, the calibrated fabric
// file (which must read back), the model comparison on an example fabric, and the diagnosis.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scalewall/analysis/calibrate.h"
#include "scalewall/analysis/diagnose.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/io/measurement.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

const scalewall::Topology& example_fabric() {
  static const scalewall::Topology fabric =
      scalewall::load_fabric_file(SCALEWALL_SOURCE_DIR "/examples/fabrics/dgx-h100-ndr.toml");
  return fabric;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scalewall;
  MeasurementSet set;
  bool read = false;
  fuzz::guarded([&] {
    parse_measurement_text(fuzz::as_text(data, size), "fuzz.log", set);
    read = true;
  });
  if (!read) return 0;

  fuzz::guarded([&] {
    std::vector<std::string> warnings;
    for (const BusBandwidthFit& f : fit_bus_bandwidth(set.collectives, {}, &warnings)) {
      if (f.asymptote_Bps) fuzz::require_finite(*f.asymptote_Bps, "busbw asymptote");
    }
  });
  fuzz::guarded([&] {
    const PiecewiseFit fit = fit_piecewise(set.pingpong);
    for (const RegimeFit& r : fit.regimes) {
      fuzz::require_finite(r.fit.alpha_s, "alpha_s");
      fuzz::require_finite(r.fit.bandwidth_Bps, "bandwidth_Bps");
      fuzz::require_finite(r.from_bytes, "from_bytes");
    }
    // As calibrate does: the local rates fitted, and figures no fabric holds refused (an
    // InputError) before anything is written; what is written must then read back.
    LocalRateFits local;
    try {
      local = fit_local_rates(set);
    } catch (const InputError&) {
      local = LocalRateFits{};
    }
    LinkFits links;
    links.link = fit;
    require_fabric_figures(links, std::nullopt, local);
    const Topology t = with_local_rates(calibrated_topology(fit, std::nullopt, 2, "fuzz"), local);
    const std::string toml =
        fabric_toml(t, fit, set.sources, local.gamma ? &*local.gamma : nullptr, nullptr,
                    local.copy ? &*local.copy : nullptr, local.alloc ? &*local.alloc : nullptr);
    try {
      (void)parse_fabric(toml, "calibrated.toml");
    } catch (const InputError& e) {
      fuzz::finding(std::string("the calibrated fabric does not read back: ") + e.what());
    }
  });
  fuzz::guarded([&] {
    MeasurementSet copy = set;
    (void)assign_unknown_ranks(copy, 16);
    (void)validate_collectives(copy.collectives, example_fabric());
  });
  fuzz::guarded([&] { (void)diagnose_measurements(set, std::nullopt); });
  fuzz::guarded([&] { (void)diagnose_measurements(set, example_fabric()); });
  return 0;
}
