// scalewall gpus: the built-in accelerator presets (model/accelerator.h), or one preset's GPU
// file (io/gpu_file.h) to copy into a file of one's own.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "cli/common.h"
#include "scalewall/base/error.h"
#include "scalewall/io/gpu_file.h"
#include "scalewall/model/accelerator.h"

namespace scalewall::cli {
namespace {

struct GpusFlags {
  std::string name;
  std::string format = "table";
};

// A peak in TFLOP/s, or null for a part without those tensor cores.
Value tflops(double flops_per_s) {
  return flops_per_s > 0.0 ? Value{flops_per_s / 1e12} : Value{};
}

Report run_gpus(const GpusFlags& flags) {
  Report report;
  report.command = "gpus";
  report.kind = Kind::kModel;
  report.banner = "GPU PRESETS: datasheet peaks (dense, no sparsity); matmul curves from "
                  "published measurements (docs/models.md)";
  report.title = "Built-in accelerators: a scenario's system.gpu or --gpu takes their names";
  Table t{"gpus",
          {{"name", "name", Unit::kText},
           {"bf16_tflops", "BF16 TFLOP/s", Unit::kPlain},
           {"fp16_tflops", "FP16 TFLOP/s", Unit::kPlain},
           {"fp8_tflops", "FP8 TFLOP/s", Unit::kPlain},
           {"hbm_bytes", "HBM", Unit::kBytes},
           {"hbm_Bps", "HBM bandwidth", Unit::kRate},
           {"compute_units", "SMs/CUs", Unit::kCount},
           {"max_efficiency", "e_max", Unit::kFraction},
           {"half_flops", "F_half (FLOP)", Unit::kPlain},
           {"fp8_max_efficiency", "FP8 e_max", Unit::kFraction},
           {"fp8_half_flops", "FP8 F_half (FLOP)", Unit::kPlain},
           {"description", "description", Unit::kText}},
          {},
          {}};
  for (const Accelerator& a : accelerator_presets()) {
    if (!flags.name.empty() && a.name != flags.name) continue;
    const bool fp8 = a.supports(DType::kFp8);
    t.add_row({a.name, tflops(a.bf16_flops_per_s), tflops(a.fp16_flops_per_s),
               tflops(a.fp8_flops_per_s), a.hbm_bytes, a.hbm_Bps,
               static_cast<std::int64_t>(a.compute_units), a.matmul.max_efficiency,
               a.matmul.half_flops, fp8 ? Value{a.matmul_fp8.max_efficiency} : Value{},
               fp8 ? Value{a.matmul_fp8.half_flops} : Value{}, a.description});
  }
  report.tables.push_back(std::move(t));
  report.notes.push_back(
      "A GEMM of F FLOPs takes (F + F_half) / (e_max x peak): e_max is what large GEMMs reach, "
      "F_half the GEMM that runs at half of it. The a100s' curve is fitted on Megatron-LM's "
      "published training runs; the others' e_max is each part's measured best matmul "
      "throughput, their F_half one wave of output tiles (docs/models.md). FP16 runs on the "
      "BF16 curve. 'scalewall gpus NAME --toml' prints a preset as a GPU file to edit.");
  return report;
}

void run(const GpusFlags& flags, bool toml) {
  if (!flags.name.empty() && find_accelerator(flags.name) == nullptr) {
    throw InputError(
        fmt::format("no gpu preset '{}' (presets: {})", flags.name, accelerator_names()));
  }
  if (toml) {
    if (flags.name.empty()) throw InputError("--toml needs a preset NAME");
    std::cout << gpu_toml(*find_accelerator(flags.name));
    return;
  }
  emit(run_gpus(flags), flags.format);
}

}  // namespace

void register_gpus(CLI::App& app) {
  auto flags = std::make_shared<GpusFlags>();
  auto toml = std::make_shared<bool>(false);
  const FlagGroup own = {
      {"name", &flags->name, "Show this preset only (" + accelerator_names() + ")", "NAME"},
      {"--toml", toml.get(), "Print the preset NAME as a GPU file (TOML), to edit"},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "gpus",
      "The built-in accelerator presets (A100, H100, H200, B200, B300, GB200, GB300, MI300X): "
      "dense peaks, HBM, SMs and matmul curves; a scenario's system.gpu and --gpu take their "
      "names or a GPU file.",
      {own},
      "Examples:\n"
      "  scalewall gpus\n"
      "  scalewall gpus h100-sxm --toml > my-gpu.toml\n"
      "  scalewall predict job.toml --gpu my-gpu.toml"});
  cmd->callback([flags, toml] { run(*flags, *toml); });
}

}  // namespace scalewall::cli
