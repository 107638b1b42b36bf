// Implementation of scalewall/model/accelerator.h: the preset table, each figure with its
// datasheet.
#include "scalewall/model/accelerator.h"

#include <fmt/format.h>

#include <array>
#include <numbers>
#include <vector>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

// The matmul curve of the A100, fitted on part of the Megatron-LM weak-scaling table
// (Narayanan et al. 2021, Table 1; tests/data/megatron) and checked on the rest: e_max = 0.66 and
// F_half = 2^0.5 GFLOP (1.41 GFLOP) are the least-squares fit (relative errors of TFLOP/s per
// GPU, on a grid of e_max in steps of 0.01 and F_half in steps of sqrt 2) on the four smallest
// models alone (1.7B to 18.4B, TP 1 to 8, no pipeline). The six larger models (39.1B to 1T, PP
// 2 to 64) are held out: the fit never sees them, and they are reproduced within 7.5% (median
// 0.8%; MegatronTable.CurveFittedOnTheSmallModelsPredictsTheHeldOutRows recomputes the fit and
// checks both). e_max sits below the 75-80% cuBLAS reaches on one large fp16 GEMM: it also
// carries what the step model does not price one by one (kernel launches between GEMMs,
// unfused bias and dropout kernels, the SMs NCCL's kernels take from the GEMMs they run beside).
// F_half is a GEMM of about 1536 x 1152 x 400, a small model's tensor-parallel projection.
constexpr double kA100MaxEfficiency = 0.66;
constexpr double kA100HalfFlops = 1e9 * std::numbers::sqrt2;
constexpr double kA100PeakBf16 = 312e12;

// Later parts are given the A100's curve scaled to their peak: the same e_max and the same
// fixed time per GEMM (F_half / (e_max peak)), so F_half grows with the peak. No published
// GEMM sweep of each part is transcribed; this is the model's assumption, stated.
MatmulCurve curve_for_peak(double bf16_peak) {
  return {kA100MaxEfficiency, kA100HalfFlops * bf16_peak / kA100PeakBf16};
}

std::vector<Accelerator> make_presets() {
  std::vector<Accelerator> out;
  // NVIDIA A100 Tensor Core GPU datasheet (2021), SXM column: BF16/FP16 tensor 312 TFLOPS
  // dense (624 with sparsity); no FP8; 40 GB HBM2 at 1,555 GB/s.
  out.push_back({"a100-40gb", "NVIDIA A100 SXM4 40 GB (HBM2)", 312e12, 312e12, 0, 40e9, 1555e9,
                 curve_for_peak(312e12), 108});
  // The SM count, both A100s: NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020),
  // "108 SMs" on the A100 (of the GA100's 128).
  // Same datasheet, A100 80GB SXM: 312 TFLOPS dense BF16/FP16; 80 GB HBM2e at 2,039 GB/s.
  out.push_back({"a100-80gb", "NVIDIA A100 SXM4 80 GB (HBM2e)", 312e12, 312e12, 0, 80e9, 2039e9,
                 curve_for_peak(312e12), 108});
  // NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: BF16/FP16 1,979 TFLOPS with sparsity
  // (989.4 dense), FP8 3,958 with sparsity (1,979 dense); 80 GB HBM3 at 3.35 TB/s. NVIDIA
  // H100 Tensor Core GPU Architecture whitepaper: 132 SMs on the H100 SXM5.
  out.push_back({"h100-sxm", "NVIDIA H100 SXM5 80 GB (HBM3)", 989.4e12, 989.4e12, 1979e12, 80e9,
                 3.35e12, curve_for_peak(989.4e12), 132});
  // NVIDIA H200 Tensor Core GPU datasheet, H200 SXM: the H100's tensor cores (989 TFLOPS dense
  // BF16/FP16, 1,979 FP8, the same 132-SM GH100); 141 GB HBM3e at 4.8 TB/s.
  out.push_back({"h200", "NVIDIA H200 SXM 141 GB (HBM3e)", 989.4e12, 989.4e12, 1979e12, 141e9,
                 4.8e12, curve_for_peak(989.4e12), 132});
  // NVIDIA DGX B200 datasheet: 72 PFLOPS FP8 training for 8 GPUs with sparsity, i.e. 4.5
  // PFLOPS dense FP8 and 2.25 PFLOPS dense BF16/FP16 per B200; 1,440 GB of HBM3e for 8 GPUs
  // (180 GB each) at 64 TB/s (8 TB/s each). The datasheet gives no SM count: 148 is what the
  // CUDA device query reports on a B200 (two dies of 74 enabled SMs).
  out.push_back({"b200", "NVIDIA B200 180 GB (HBM3e)", 2.25e15, 2.25e15, 4.5e15, 180e9, 8e12,
                 curve_for_peak(2.25e15), 148});
  // AMD Instinct MI300X data sheet: 1,307.4 TFLOPS peak dense BF16/FP16, 2,614.9 FP8; 192 GB
  // HBM3 at 5.3 TB/s; 304 compute units.
  out.push_back({"mi300x", "AMD Instinct MI300X 192 GB (HBM3)", 1307.4e12, 1307.4e12, 2614.9e12,
                 192e9, 5.3e12, curve_for_peak(1307.4e12), 304});
  return out;
}

}  // namespace

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kBf16: return "bf16";
    case DType::kFp16: return "fp16";
    case DType::kFp8: return "fp8";
  }
  SCALEWALL_CHECK(false && "unknown DType");
  return "";
}

DType parse_dtype(std::string_view text) {
  for (const DType d : {DType::kBf16, DType::kFp16, DType::kFp8}) {
    if (text == dtype_name(d)) return d;
  }
  throw InputError(fmt::format("unknown dtype '{}' (expected one of: bf16, fp16, fp8)", text));
}

double MatmulCurve::efficiency(double flops) const {
  if (flops <= 0.0) return 0.0;
  return max_efficiency * flops / (flops + half_flops);
}

double MatmulCurve::gemm_time_s(double flops, double peak_flops_per_s) const {
  if (flops <= 0.0) return 0.0;
  return (flops + half_flops) / (max_efficiency * peak_flops_per_s);
}

namespace {

double peak_or_zero(const Accelerator& a, DType dtype) {
  switch (dtype) {
    case DType::kBf16: return a.bf16_flops_per_s;
    case DType::kFp16: return a.fp16_flops_per_s;
    case DType::kFp8: return a.fp8_flops_per_s;
  }
  return 0.0;
}

}  // namespace

bool Accelerator::supports(DType dtype) const { return peak_or_zero(*this, dtype) > 0.0; }

double Accelerator::peak_flops_per_s(DType dtype) const {
  const double peak = peak_or_zero(*this, dtype);
  if (peak <= 0.0) {
    throw InputError(fmt::format("accelerator {} has no {} tensor cores", name, dtype_name(dtype)));
  }
  return peak;
}

std::span<const Accelerator> accelerator_presets() {
  static const std::vector<Accelerator> presets = make_presets();
  return presets;
}

const Accelerator* find_accelerator(std::string_view name) {
  for (const Accelerator& a : accelerator_presets()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string accelerator_names() {
  std::string out;
  for (const Accelerator& a : accelerator_presets()) {
    if (!out.empty()) out += ", ";
    out += a.name;
  }
  return out;
}

const Accelerator& accelerator_preset(std::string_view name) {
  if (const Accelerator* a = find_accelerator(name)) return *a;
  throw InputError(
      fmt::format("unknown gpu '{}' (expected one of: {})", name, accelerator_names()));
}

}  // namespace scalewall
