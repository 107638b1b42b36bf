// scalewall/io/gpu_file.h: an accelerator (model/accelerator.h) from a TOML file, and a
// preset written as one.
//
// A GPU file describes one part as a transformer step sees it. Peaks are numbers in TFLOP/s
// (dense, no sparsity); sizes and rates are strings with a unit ("80GB", "3.35TB/s") or bare
// SI numbers (B, B/s), as a fabric file takes them:
//
//   name = "h100-sxm"             # shown in reports (default: the path as given)
//   description = "..."           # one line (default empty)
//   bf16_tflops = 989.4           # required: 0.001 to 1e6 TFLOP/s
//   fp16_tflops = 989.4           # default: bf16_tflops
//   fp8_tflops = 1979             # 0 or absent: no FP8 tensor cores
//   hbm = "80GB"                  # required: 1 B to 1 EB
//   hbm_bandwidth = "3.35TB/s"    # required: 1 B/s to 1 PB/s
//   compute_units = 132           # SMs or CUs, a whole number 0 to 1e6 (default 0: not known)
//
//   [matmul]                      # required: the BF16/FP16 GEMMs' curve (accelerator.h)
//   max_efficiency = 0.803        # e_max, 0.001 to 1 of the peak
//   half_flops = 2.2e9            # F_half, 0 to 1e18 FLOP
//
//   [matmul_fp8]                  # the FP8 GEMMs' curve, the same two keys: required when
//   max_efficiency = 0.709        # fp8_tflops is above 0, refused when it is not
//   half_flops = 4.4e9
//
//   [fused_attention]             # optional: the fused attention kernel's curves (accelerator.h),
//   forward_max_efficiency = 0.695   # all four keys when given; absent: the kernel runs on
//   forward_half_seq = 863           # [matmul]. e_max 0.001 to 1 of the BF16 peak, s_half
//   backward_max_efficiency = 0.587  # 0 to 1e9 tokens
//   backward_half_seq = 1168
//
// The ranges keep every step the model prices finite at every dimension a scenario accepts.
// Unknown keys are errors naming the keys a section takes. Every error is an InputError naming
// the file, the key, its line and the value as written.
//
// A `gpu` value (a scenario's system.gpu, --gpu) names a file when it holds a '/', or ends in
// ".toml" and is not a preset's name; anything else names a preset.
#ifndef SCALEWALL_GPU_FILE_H_
#define SCALEWALL_GPU_FILE_H_

#include <string>
#include <string_view>

#include "scalewall/model/accelerator.h"

namespace scalewall {

// Parses GPU TOML held in memory; `source_name` names it in error messages.
Accelerator parse_gpu(std::string_view toml_text, const std::string& source_name);

// Reads and validates the GPU file at `path` (through read_input_file's limits).
Accelerator load_gpu_file(const std::string& path);

// Whether `name_or_path` names a GPU file rather than a preset (the rule above).
bool names_gpu_file(std::string_view name_or_path);

// The preset `name_or_path` names, or the GPU file at that path. An unknown preset name is an
// InputError listing the presets.
Accelerator load_accelerator(const std::string& name_or_path);

// `gpu` as a GPU file, its figures written so that parse_gpu reads back the same accelerator
// (every double bit for bit).
std::string gpu_toml(const Accelerator& gpu);

}  // namespace scalewall

#endif  // SCALEWALL_GPU_FILE_H_
