// Fuzz target: transformer scenario TOML (parse_scenario with a [model] section), then what
// `scalewall predict` and `scalewall plan` do with an accepted one: the scenario's own split
// evaluated when its degrees are fixed, and the split search at its GPU count (up to
// kMostSearchedGpus, so that one input takes milliseconds; the search's bound at every count
// up to 2^40 is tested apart).
//
// A transformer scenario names a fabric preset or a fabric file in system.fabric, an
// accelerator preset or a GPU file in system.gpu, and a model preset or a config.json file in
// model.preset; a path from fuzz input is never followed. A fabric that is not a preset, a gpu
// that names a file and a model.preset that names a config.json are replaced by a preset
// (chosen by the text they gave) before the scenario is parsed.
#include <array>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <toml++/toml.h>

#include "scalewall/analysis/split_search.h"
#include "scalewall/base/error.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/io/gpu_file.h"
#include "scalewall/io/hf_config.h"
#include "scalewall/io/scenario_file.h"
#include "scalewall/model/model_presets.h"
#include "src/io/toml_input.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

constexpr std::array<const char*, 4> kGpuPresets = {"dgx-a100", "dgx-h100", "aws-p5",
                                                    "gb200-nvl72"};

constexpr std::array<const char*, 3> kAccelerators = {"a100-80gb", "h100-sxm", "mi300x"};

// Replaces system.<key> with one of `presets` (chosen by the text it gave) when it is a string
// that names a file, or is not a string and `non_strings` says so; true when it did.
template <std::size_t N>
bool replace_path(toml::table& system, const char* key, const std::array<const char*, N>& presets,
                  bool (*is_path)(const std::string&), bool non_strings) {
  const toml::node* given = system.get(key);
  if (given == nullptr || (!given->is_string() && !non_strings)) return false;
  const std::string text = given->is_string() ? given->value_or(std::string()) : "";
  if (given->is_string() && !is_path(text)) return false;
  system.insert_or_assign(key, presets[std::hash<std::string>{}(text) % presets.size()]);
  return true;
}

// Replaces a config.json path in model.preset (the hf_config target reads config.json) by
// a model preset chosen by the text it gave; true when it did.
bool without_model_path(toml::table& root) {
  toml::table* model = root["model"].as_table();
  if (model == nullptr || !model->contains("preset")) return false;
  const toml::node* given = model->get("preset");
  const std::string name = given->value_or(std::string());
  if (!given->is_string() || !scalewall::names_hf_config(name)) return false;
  const auto presets = scalewall::model_presets();
  model->insert_or_assign("preset",
                          presets[std::hash<std::string>{}(name) % presets.size()].name);
  return true;
}

// The scenario text with system.fabric (when present and not a preset) naming a GPU fabric
// preset, system.gpu (when it names a GPU file) naming an accelerator preset, and
// model.preset naming no file.
std::string without_input_paths(std::string_view text) {
  toml::table root;
  try {
    root = scalewall::parse_toml(text, "fuzz.toml");
  } catch (const scalewall::InputError&) {
    return std::string(text);  // parse_scenario refuses it the same way
  }
  bool changed = without_model_path(root);
  toml::table* system = root["system"].as_table();
  if (system != nullptr) {
    changed |= replace_path(*system, "fabric", kGpuPresets, [](const std::string& v) {
      return scalewall::find_fabric_preset(v) == nullptr;
    }, true);
    changed |= replace_path(*system, "gpu", kAccelerators, [](const std::string& v) {
      return scalewall::names_gpu_file(v);
    }, false);
  }
  if (!changed) return std::string(text);
  std::ostringstream out;
  out << root;
  return out.str();
}

constexpr std::int64_t kMostSearchedGpus = 256;

// What a split's figures promise: finite, not negative, efficiency at most 1.
void require_sound(const scalewall::SplitStep& s) {
  using scalewall::fuzz::require_finite;
  if (s.problem != scalewall::SplitProblem::kNone) return;
  require_finite(s.step_s, "step_s");
  require_finite(s.compute_s, "compute_s");
  require_finite(s.tp_comm_s, "tp_comm_s");
  require_finite(s.cp_comm_s, "cp_comm_s");
  require_finite(s.ep_comm_s, "ep_comm_s");
  require_finite(s.variance_s, "variance_s");
  require_finite(s.dp_comm_s, "dp_comm_s");
  require_finite(s.pp_bubble_s, "pp_bubble_s");
  require_finite(s.memory.total(), "memory");
  require_finite(s.tokens_per_s, "tokens_per_s");
  require_finite(s.mfu, "mfu");
  if (s.mfu > 1.0) scalewall::fuzz::finding("mfu above 1: " + std::to_string(s.mfu));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scalewall;
  const std::string text = without_input_paths(fuzz::as_text(data, size));
  fuzz::guarded([&] {
    const ScenarioFile file = parse_scenario(text, "fuzz.toml", "");
    if (!file.transformer) return;  // the scenario target's
    const TransformerScenario& t = *file.transformer;
    if (t.parallel.degrees_fixed()) require_sound(evaluate_split(t.job, t.parallel.defaults(t.job.framework)));
    if (t.gpus >= 1 && t.gpus <= kMostSearchedGpus) {
      const SplitSearch search = search_splits(t.job, t.gpus, t.parallel, 3);
      for (const SplitStep& s : search.ranked) require_sound(s);
    }
  });
  return 0;
}
