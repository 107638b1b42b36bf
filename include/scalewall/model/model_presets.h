// scalewall/model/model_presets.h: published transformer shapes by name ("llama3.1-70b"), for
// a scenario's `[model] preset` and `scalewall models`. Each carries its source (the model's
// config.json on Hugging Face or its paper); docs/models.md ("Model presets") lists them.
//
// A preset's seq is the sequence length its source pre-trained at (most tokens), not the
// longest context it was extended to: a scenario's `seq` overrides it.
#ifndef SCALEWALL_MODEL_PRESETS_H_
#define SCALEWALL_MODEL_PRESETS_H_

#include <span>
#include <string>
#include <string_view>

#include "scalewall/model/transformer.h"

namespace scalewall {

struct ModelPreset {
  std::string_view name;         // "llama3.1-70b"
  std::string_view title;        // "Llama 3.1 70B"
  std::string_view source;       // where every figure of `shape` comes from
  TransformerShape shape;
};

// Every preset, in a fixed order (families, then size).
std::span<const ModelPreset> model_presets();

// The preset called `name`, or nullptr.
const ModelPreset* find_model_preset(std::string_view name);

// "gpt3-175b, llama2-7b, ...": the names, for messages and help.
std::string model_preset_names();

// The shape of preset `name`; throws InputError "unknown model preset 'x' (expected one of:
// ...)".
TransformerShape model_preset(std::string_view name);

}  // namespace scalewall

#endif  // SCALEWALL_MODEL_PRESETS_H_
