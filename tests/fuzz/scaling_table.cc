// Fuzz target: the scaling-table reader (CSV or JSON, diagnose.h), then what `scalewall
// diagnose` does with a table: the scaling diagnosis.
#include <cstdint>

#include "scalewall/analysis/diagnose.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scalewall;
  fuzz::guarded([&] {
    const ScalingTable table = 
        parse_scaling_table(fuzz::as_text(data, size), "fuzz.csv");
    for (const ScalingPoint& p : table.points) fuzz::require_finite(p.step_s, "step_s");
    const ScalingDiagnosis d = diagnose_scaling(table);
    fuzz::require_finite(d.efficiency_at_largest, "efficiency_at_largest");
    for (const ScalingDiagnosis::Row& r : d.rows) fuzz::require_finite(r.efficiency, "efficiency");
  });
  return 0;
}
