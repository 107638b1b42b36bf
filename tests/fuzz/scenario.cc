// Fuzz target: scenario TOML (parse_scenario), then what `scalewall predict` does with an
// accepted scenario: the default rank grid (up to 64 ranks), the prediction and its plots' scripts, and the
// what-if ranking at the largest rank count.
//
// A scenario may name a fabric file; a path from fuzz input is never followed. When
// network.fabric is present it is replaced by one of the example fabrics (chosen by the text
// it gave) before the scenario is parsed; every other network form is used as written.
#include <array>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <vector>

#include "scalewall/present/plot.h"
#include "scalewall/analysis/predict.h"
#include "scalewall/io/scenario_file.h"
#include "scalewall/base/error.h"
#include "src/io/toml_input.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

constexpr std::array<const char*, 4> kExampleFabrics = {
    SCALEWALL_SOURCE_DIR "/examples/fabrics/dgx-h100-ndr.toml",
    SCALEWALL_SOURCE_DIR "/examples/fabrics/shm-node.toml",
    SCALEWALL_SOURCE_DIR "/examples/fabrics/tcp-100gbe.toml",
    SCALEWALL_SOURCE_DIR "/examples/fabrics/tcp-100gbe-loggp.toml",
};

// The scenario text with network.fabric (when present) pointing at an example fabric.
std::string without_input_paths(std::string_view text) {
  toml::table root;
  try {
    root = scalewall::parse_toml(text, "fuzz.toml");
  } catch (const scalewall::InputError&) {
    return std::string(text);  // parse_scenario refuses it the same way
  }
  toml::table* network = root["network"].as_table();
  if (network == nullptr || !network->contains("fabric")) return std::string(text);
  const toml::node* given = network->get("fabric");
  const std::string key = given->is_string() ? given->value_or(std::string()) : "";
  network->insert_or_assign(
      "fabric", kExampleFabrics[std::hash<std::string>{}(key) % kExampleFabrics.size()]);
  std::ostringstream out;
  out << root;
  return out.str();
}

// The largest rank count predicted: enough for several nodes of every example fabric, small
// enough that one input takes milliseconds.
constexpr std::int64_t kMostRanks = 64;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scalewall;
  const std::string text = without_input_paths(fuzz::as_text(data, size));
  fuzz::guarded([&] {
    const ScenarioFile file = parse_scenario(text, "fuzz.toml", "");
    const Scenario& s = file.scenario;
    const std::vector<std::int64_t> grid = default_rank_grid(s, kMostRanks);
    const Prediction p = predict(s, grid, 0.5);
    for (const StepTime& t : p.rows) {
      fuzz::require_finite(t.step_s, "step_s");
      fuzz::require_finite(t.efficiency, "efficiency");
      fuzz::require_finite(t.speedup, "speedup");
    }
    fuzz::require_finite(p.best_bucket_bytes, "best_bucket_bytes");
    (void)gnuplot_script(scaling_plot(p, s.name, file.network_description), PlotFormat::kSvg,
                         "fuzz.svg");
    (void)gnuplot_script(breakdown_plot(p, s.name, file.network_description), PlotFormat::kSvg,
                         "fuzz.svg");
    const WhatIf w = what_if(s, grid.back(), file.what_if);
    for (const Remedy& r : w.remedies) {
      fuzz::require_finite(r.step.step_s, "remedy step_s");
      fuzz::require_finite(r.gain, "remedy gain");
    }
  });
  return 0;
}
