// Implementation of scalewall/model/accelerator.h: the preset table, each figure with its
// datasheet.
#include "scalewall/model/accelerator.h"

#include <fmt/format.h>

#include <array>
#include <numbers>
#include <utility>
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

// The later parts' curves are their own, from two published sources:
//
// e_max is the part's Maximum Achievable Matmul FLOPS (MAMF) over its dense datasheet peak:
// the mean TFLOP/s of the best shape a brute-force search of torch.matmul shapes found, per
// dtype (stas00/ml-engineering, compute/accelerator/README.md, "Maximum Achievable Matmul
// FLOPS comparison table"; BF16 and FP8 float8_e4m3fn tables). FP16 runs on the BF16 curve
// (the same tensor cores at the same peak). A kernel measurement: unlike the A100's e_max it
// carries none of a training step's launch gaps and unfused kernels.
//
// F_half is one wave of the part's output tiles through its pipeline's fill (one_wave_flops,
// accelerator.h): NVIDIA's Hopper and Blackwell GEMMs hold a 128 x 256 tile per SM with 4
// stages of K 64 (BF16) or K 128 (FP8, the same bytes) in shared memory (CUTLASS's Hopper
// warp-specialized GEMM examples: TileShape Shape<_128,_256,_64>, StageCount 4; Blackwell's
// 2-SM 256 x 256 MMA is the same 128 x 256 per SM). On the A100 the same rule with CUTLASS's
// Ampere default (128 x 256 x 64, 3 stages) gives 1.36 GFLOP against the fit's 1.41
// (AcceleratorCurves.OneWaveRuleMatchesTheA100Fit). No published GEMM size sweep of these
// parts is transcribed.
constexpr double kNvidiaTileM = 128;
constexpr double kNvidiaTileN = 256;
constexpr double kNvidiaPipelineK = 4 * 64;     // BF16/FP16
constexpr double kNvidiaPipelineKFp8 = 4 * 128;

// An NVIDIA part of `sms` SMs whose MAMF is `bf16_mamf` and `fp8_mamf` (FLOP/s) against
// dense peaks of `bf16_peak` and `fp8_peak`.
struct NvidiaCurves {
  MatmulCurve bf16;
  MatmulCurve fp8;
};
NvidiaCurves nvidia_curves(double sms, double bf16_mamf, double bf16_peak, double fp8_mamf,
                           double fp8_peak) {
  return {{bf16_mamf / bf16_peak, one_wave_flops(sms, kNvidiaTileM, kNvidiaTileN, kNvidiaPipelineK)},
          {fp8_mamf / fp8_peak,
           one_wave_flops(sms, kNvidiaTileM, kNvidiaTileN, kNvidiaPipelineKFp8)}};
}

// The fused attention kernel's curves come from published benchmarks of the kernel alone, at
// head dimension 128 with a causal mask, in TFLOP/s counted as the model counts the kernel's
// FLOPs (a causal forward 4 b s^2 h / 2, its backward 2.5 times that: FlashAttention's
// benchmarks/benchmark_flash_attention.py and cudnn-frontend's benchmark_single_sdpa.py count
// so). Each direction's curve passes through two of the published bars: e_max is the best bar
// over the peak, and s_half puts the shortest sequence's bar on the curve,
//   s_half = s_min (best / bar(s_min) - 1).
// AcceleratorAttention checks every bar of each table against the curve.
AttentionCurve attention_curve(double best_flops_per_s, double shortest_seq,
                               double shortest_flops_per_s, double peak_flops_per_s) {
  return {best_flops_per_s / peak_flops_per_s,
          shortest_seq * (best_flops_per_s / shortest_flops_per_s - 1.0)};
}

// FlashAttention-2 on the A100 80GB SXM4 (Dao 2023, "FlashAttention-2", figure "Attention
// forward + backward speed (A100 80GB SXM4)", panel (d) with causal mask, head dimension 128;
// the repository's assets/flash2_a100_fwd_bwd_benchmark.png): 99, 133, 155, 173, 182 and 189
// TFLOP/s at 512 to 16k tokens, forward and backward together. The figure does not separate
// the two directions, so both run at the combined rate: the forward and backward together take
// the published time. Transformer Engine runs flash-attn on Ampere. The A100 40GB has the same
// 108 SMs at the same clock (the kernel is compute-bound at these lengths), so it runs the same.
FusedAttention a100_attention() {
  const AttentionCurve both = attention_curve(189e12, 512, 99e12, kA100PeakBf16);
  return {both, both};
}

// cuDNN's fused attention on the H200 (NVIDIA/cudnn-frontend, benchmark/sdpa_benchmark_training,
// results/h200_919_only_cudnn, llama3.1 CSV: cuDNN 9.19, BF16, top_left causal mask, 64 query
// and 8 KV heads of dimension 128, batch 1): forward 484, 591, 644, 673 and 688 TFLOP/s at 2k
// to 32k tokens, backward 370, 474, 541, 579 and 581. Transformer Engine prefers cuDNN's
// fused attention to flash-attn on Hopper and later (its attention backend selection:
// "Disabling FlashAttention to give FusedAttention preference on Hopper+"). The H100 SXM is the
// same GH100 (132 SMs, the same clock and 989.4 TFLOP/s peak), so it runs the H200's figures;
// the FlashAttention-3 paper's H100 SXM5 forward bars for cuDNN (causal, head dimension 128,
// assets/flash3_fp16_fwd.png panel (d)) read the same 484 at 2k, with an older cuDNN below
// the H200's at longer sequences (539 against 673 at 16k).
FusedAttention hopper_attention() {
  return {attention_curve(688e12, 2048, 484e12, 989.4e12),
          attention_curve(581e12, 2048, 370e12, 989.4e12)};
}

// cuDNN's fused attention on the GB200 and GB300 (the same cudnn-frontend benchmark,
// results/llama3.1/gb200 and results/llama3.1/gb300: cuDNN 9.22, BF16, top_left causal, 64
// query and 8 KV heads of dimension 128, batch 2), at 2k, 4k, 8k, 16k and 32k tokens:
//   GB200 forward  1097, 1408, 1574, 1708, 1622; backward  885, 1148, 1332, 1328, 1226
//   GB300 forward  1373, 1703, 1856, 1915, 1953; backward  967, 1248, 1435, 1507, 1490
// against the 2.5 PFLOP/s dense BF16 peak of each.
FusedAttention gb200_attention() {
  return {attention_curve(1708e12, 2048, 1097e12, 2.5e15),
          attention_curve(1332e12, 2048, 885e12, 2.5e15)};
}
FusedAttention gb300_attention() {
  return {attention_curve(1953e12, 2048, 1373e12, 2.5e15),
          attention_curve(1507e12, 2048, 967e12, 2.5e15)};
}

// One preset row: the part, its dense peaks, memory, SMs, and its two curves.
Accelerator part(std::string name, std::string description, double bf16_peak, double fp8_peak,
                 double hbm_bytes, double hbm_Bps, double units, NvidiaCurves curves) {
  return {std::move(name), std::move(description), bf16_peak, bf16_peak, fp8_peak, hbm_bytes,
          hbm_Bps, curves.bf16, curves.fp8, units, std::nullopt};
}

void add_ampere(std::vector<Accelerator>& out) {
  const MatmulCurve a100{kA100MaxEfficiency, kA100HalfFlops};
  // NVIDIA A100 Tensor Core GPU datasheet (2021), SXM column: BF16/FP16 tensor 312 TFLOPS
  // dense (624 with sparsity); no FP8; 40 GB HBM2 at 1,555 GB/s. The SM count, both A100s:
  // NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), "108 SMs" on the A100 (of
  // the GA100's 128).
  out.push_back(part("a100-40gb", "NVIDIA A100 SXM4 40 GB (HBM2)", kA100PeakBf16, 0, 40e9, 1555e9,
                     108, {a100, a100}));
  out.back().fused_attention = a100_attention();
  // Same datasheet, A100 80GB SXM: 312 TFLOPS dense BF16/FP16; 80 GB HBM2e at 2,039 GB/s.
  out.push_back(part("a100-80gb", "NVIDIA A100 SXM4 80 GB (HBM2e)", kA100PeakBf16, 0, 80e9,
                     2039e9, 108, {a100, a100}));
  out.back().fused_attention = a100_attention();
}

void add_hopper(std::vector<Accelerator>& out) {
  // NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: BF16/FP16 1,979 TFLOPS with sparsity
  // (989.4 dense), FP8 3,958 with sparsity (1,979 dense); 80 GB HBM3 at 3.35 TB/s. NVIDIA
  // H100 Tensor Core GPU Architecture whitepaper: 132 SMs on the H100 SXM5. MAMF: 794.5
  // TFLOP/s BF16, 1,402.6 FP8.
  out.push_back(part("h100-sxm", "NVIDIA H100 SXM5 80 GB (HBM3)", 989.4e12, 1979e12, 80e9, 3.35e12,
                     132, nvidia_curves(132, 794.5e12, 989.4e12, 1402.6e12, 1979e12)));
  out.back().fused_attention = hopper_attention();
  // NVIDIA H200 Tensor Core GPU datasheet, H200 SXM: the H100's tensor cores (989 TFLOPS dense
  // BF16/FP16, 1,979 FP8, the same 132-SM GH100); 141 GB HBM3e at 4.8 TB/s. MAMF: BF16 the
  // H100's ("H200 is the same"), FP8 1,453.4 TFLOP/s.
  out.push_back(part("h200", "NVIDIA H200 SXM 141 GB (HBM3e)", 989.4e12, 1979e12, 141e9, 4.8e12,
                     132, nvidia_curves(132, 794.5e12, 989.4e12, 1453.4e12, 1979e12)));
  out.back().fused_attention = hopper_attention();
}

// The B200 and B300 have no published fused attention table transcribed here (cudnn-frontend
// publishes the GB200 and GB300, whose power limits and GEMM MAMFs differ): their kernel runs
// on the matmul curve, as one GEMM of its FLOPs.
void add_blackwell(std::vector<Accelerator>& out) {
  // NVIDIA DGX B200 datasheet: 72 PFLOPS FP8 training for 8 GPUs with sparsity, i.e. 4.5
  // PFLOPS dense FP8 and 2.25 PFLOPS dense BF16/FP16 per B200; 1,440 GB of HBM3e for 8 GPUs
  // (180 GB each) at 64 TB/s (8 TB/s each). The datasheet gives no SM count: 148 is what the
  // CUDA device query reports on a B200 (two dies of 74 enabled SMs). MAMF: 1,745 TFLOP/s
  // BF16, 3,432.5 FP8.
  out.push_back(part("b200", "NVIDIA B200 180 GB (HBM3e)", 2.25e15, 4.5e15, 180e9, 8e12, 148,
                     nvidia_curves(148, 1745e12, 2.25e15, 3432.5e12, 4.5e15)));
  // NVIDIA HGX B300 datasheet: 36 PFLOPS FP16/BF16 and 72 PFLOPS FP8 for 8 GPUs with sparsity
  // (2.25 and 4.5 PFLOPS dense per GPU), up to 2.3 TB of HBM3e for 8 (288 GB each); Blackwell
  // Ultra's HBM3e at 8 TB/s per GPU. SMs: 148, what ml-engineering's measured B300 reads
  // (training/performance, "Do more SMs give more TFLOPS?"; NVIDIA gives 160 for the full
  // die). MAMF: 1,769 TFLOP/s BF16, 3,353.3 FP8.
  out.push_back(part("b300", "NVIDIA B300 (Blackwell Ultra) 288 GB (HBM3e)", 2.25e15, 4.5e15,
                     288e9, 8e12, 148, nvidia_curves(148, 1769e12, 2.25e15, 3353.3e12, 4.5e15)));
  // NVIDIA GB200 NVL72 datasheet, one Blackwell GPU of a GB200 superchip: FP16/BF16 5 PFLOPS
  // and FP8 10 PFLOPS with sparsity (2.5 and 5 dense), 186 GB HBM3e at 8 TB/s. SMs: the B200's
  // 148 (the same Blackwell GPU at a higher power limit). MAMF: 1,822 TFLOP/s BF16, 3,615.6
  // FP8.
  out.push_back(part("gb200", "NVIDIA GB200, one Blackwell GPU of the superchip, 186 GB (HBM3e)",
                     2.5e15, 5e15, 186e9, 8e12, 148,
                     nvidia_curves(148, 1822e12, 2.5e15, 3615.6e12, 5e15)));
  out.back().fused_attention = gb200_attention();
  // NVIDIA GB300 NVL72 datasheet, per Blackwell Ultra GPU: 180 PFLOPS dense FP16/BF16 and 360
  // dense FP8 for 72 GPUs (2.5 and 5 PFLOPS each); 288 GB HBM3e, 576 TB/s for 72 (8 TB/s
  // each). SMs: the B300's 148. No MAMF of the GB300 is published: it runs at the GB200's
  // measured fractions of the same 2.5 and 5 PFLOPS peaks (an assumption, not a measurement).
  out.push_back(part("gb300", "NVIDIA GB300, one Blackwell Ultra GPU of the superchip, 288 GB "
                     "(HBM3e)", 2.5e15, 5e15, 288e9, 8e12, 148,
                     nvidia_curves(148, 1822e12, 2.5e15, 3615.6e12, 5e15)));
  out.back().fused_attention = gb300_attention();
}

// No fused attention benchmark of the MI300X is transcribed: its kernel runs on the matmul
// curve. AMD's hipBLASLt runs large GEMMs on gfx942 (MI300X) in 256 x 256 macro tiles of depth 64,
// one per CU, its next K block prefetched (library logic MT256x256x64, PrefetchGlobalRead):
// a pipeline of 2 x 64 in K (2 x 128 in FP8).
void add_cdna3(std::vector<Accelerator>& out) {
  // AMD Instinct MI300X data sheet: 1,307.4 TFLOPS peak dense BF16/FP16, 2,614.9 FP8; 192 GB
  // HBM3 at 5.3 TB/s; 304 compute units. MAMF: 668.4 TFLOP/s BF16 (PyTorch TunableOp); no FP8
  // MAMF is published, so FP8 runs at the BF16 fraction (an assumption, not a measurement).
  const double units = 304;
  const double e = 668.4e12 / 1307.4e12;
  out.push_back(part("mi300x", "AMD Instinct MI300X 192 GB (HBM3)", 1307.4e12, 2614.9e12, 192e9,
                     5.3e12, units,
                     {{e, one_wave_flops(units, 256, 256, 2 * 64)},
                      {e, one_wave_flops(units, 256, 256, 2 * 128)}}));
}

std::vector<Accelerator> make_presets() {
  std::vector<Accelerator> out;
  add_ampere(out);
  add_hopper(out);
  add_blackwell(out);
  add_cdna3(out);
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

double AttentionCurve::efficiency(double seq) const {
  if (seq <= 0.0) return 0.0;
  return max_efficiency * seq / (seq + half_seq);
}

double AttentionCurve::kernel_time_s(double flops, double seq, double peak_flops_per_s) const {
  if (flops <= 0.0) return 0.0;
  SCALEWALL_CHECK(seq > 0.0);
  return flops * (seq + half_seq) / (max_efficiency * seq * peak_flops_per_s);
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

const MatmulCurve& Accelerator::curve(DType dtype) const {
  return dtype == DType::kFp8 ? matmul_fp8 : matmul;
}

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
