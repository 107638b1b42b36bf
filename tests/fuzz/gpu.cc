// Fuzz target: GPU TOML (parse_gpu), then what a transformer step does with an accepted part:
// the dense peak of every dtype it supports and each GEMM's time on that dtype's matmul
// curve, from an empty GEMM to the largest a scenario's dimensions allow, all finite and
// positive; the efficiency within (0, e_max]; and the part written back as a GPU file
// (gpu_toml, what `scalewall gpus NAME --toml` prints) reads back the same, bit for bit.
#include <cstdint>

#include "scalewall/io/gpu_file.h"
#include "scalewall/model/accelerator.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

bool same(const scalewall::MatmulCurve& a, const scalewall::MatmulCurve& b) {
  return a.max_efficiency == b.max_efficiency && a.half_flops == b.half_flops;
}

bool same(const scalewall::Accelerator& a, const scalewall::Accelerator& b) {
  return a.name == b.name && a.description == b.description &&
         a.bf16_flops_per_s == b.bf16_flops_per_s && a.fp16_flops_per_s == b.fp16_flops_per_s &&
         a.fp8_flops_per_s == b.fp8_flops_per_s && a.hbm_bytes == b.hbm_bytes &&
         a.hbm_Bps == b.hbm_Bps && a.compute_units == b.compute_units &&
         same(a.matmul, b.matmul) && same(a.matmul_fp8, b.matmul_fp8);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scalewall;
  fuzz::guarded([&] {
    const Accelerator gpu = parse_gpu(fuzz::as_text(data, size), "fuzz.toml");
    for (const DType dtype : {DType::kBf16, DType::kFp16, DType::kFp8}) {
      if (!gpu.supports(dtype)) continue;
      const double peak = gpu.peak_flops_per_s(dtype);
      const MatmulCurve& curve = gpu.curve(dtype);
      // From one FLOP to 2 x (2^40)^3, the largest GEMM a scenario's dimensions make.
      for (const double flops : {1.0, 1e9, 1e15, 2.7e36}) {
        const double t = curve.gemm_time_s(flops, peak);
        fuzz::require_finite(t, "gemm_time_s");
        if (!(t > 0.0)) fuzz::finding("a GEMM's time is not above 0");
        const double e = curve.efficiency(flops);
        if (!(e > 0.0 && e <= curve.max_efficiency)) fuzz::finding("efficiency outside (0, e_max]");
      }
    }
    const std::string text = gpu_toml(gpu);
    if (!same(parse_gpu(text, "fuzz.toml"), gpu)) {
      fuzz::finding("the GPU file written does not read back the same:\n" + text);
    }
  });
  return 0;
}
