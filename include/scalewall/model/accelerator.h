// scalewall/model/accelerator.h: an accelerator (GPU) as a transformer step sees it: peak dense
// matrix throughput per data type, HBM capacity and bandwidth, and a matmul efficiency curve.
//
// The efficiency curve is Hockney's half-performance length applied to one GEMM: a GEMM of F
// FLOPs runs at
//   efficiency(F) = e_max F / (F + F_half)
// of the peak, so that its time is (F + F_half) / (e_max peak): a fixed cost of F_half FLOPs
// (kernel launch, wave quantisation, the tail of a tile grid) on top of a sustained rate of
// e_max peak. Large GEMMs approach e_max; a GEMM of F_half FLOPs runs at half of it. Tensor
// parallelism shrinks every GEMM by t, so it moves the GEMMs down this curve.
//
// Each part has its own curve per data type: one for BF16 and FP16 (the same tensor cores at
// the same peak) and one for FP8, which reaches a lower fraction of its doubled peak. The
// presets' curves and their sources are in accelerator.cc and docs/models.md. Every figure is
// a model, not a measurement.
#ifndef SCALEWALL_ACCELERATOR_H_
#define SCALEWALL_ACCELERATOR_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace scalewall {

// The data type of a transformer's matrix multiplications: it picks the peak the GEMMs run at.
// Weights, activations and what is sent are held in 2-byte types under every dtype (FP8
// training keeps BF16 copies and BF16 communication: parallel_step.h).
enum class DType { kBf16, kFp16, kFp8 };
// "bf16", "fp16", "fp8".
std::string_view dtype_name(DType dtype);
// The inverse; throws InputError naming the text and listing the names.
DType parse_dtype(std::string_view text);

struct MatmulCurve {
  double max_efficiency = 0.8;  // e_max, of the dense peak, in (0, 1]
  double half_flops = 1e10;     // F_half: the GEMM size (FLOPs) that runs at e_max / 2
  // e_max F / (F + F_half); 0 for F = 0.
  double efficiency(double flops) const;
  // (F + F_half) / (e_max peak): the time of one GEMM of F FLOPs at `peak_flops_per_s`; 0 for F = 0.
  double gemm_time_s(double flops, double peak_flops_per_s) const;
};

// The fused attention kernel (FlashAttention, cuDNN's fused attention) in one direction, by
// the sequence length s it attends over: Hockney's form in s rather than in FLOPs,
//   efficiency(s) = e_max s / (s + s_half)
// of the part's BF16/FP16 peak, so that a kernel of F FLOPs takes
//   F (s + s_half) / (e_max s peak).
// Each query tile's fixed work (its prologue, the partly masked diagonal block of a causal
// mask, its epilogue) costs as much as s_half keys of the main loop; a long sequence
// approaches e_max. F counts the kernel's FLOPs as its benchmarks do: 4 b s^2 h / 2 for a
// causal forward, 2.5 times that for its backward. The presets' figures are measured with
// head dimension 128 and a causal mask (accelerator.cc, docs/models.md).
struct AttentionCurve {
  double max_efficiency = 1.0;  // e_max, of the BF16/FP16 peak, in (0, 1]
  double half_seq = 0;          // s_half: the sequence length (tokens) that runs at e_max / 2
  // e_max s / (s + s_half); 0 for s = 0.
  double efficiency(double seq) const;
  // F (s + s_half) / (e_max s peak): the kernel's time for `flops` FLOPs over sequences of
  // `seq` tokens at `peak_flops_per_s`; 0 for F = 0. REQUIRES: seq > 0 when flops > 0.
  double kernel_time_s(double flops, double seq, double peak_flops_per_s) const;
};

// The fused attention kernel's forward and backward curves. The backward (five matrix
// products to the forward's two, and the atomic or split accumulation of dQ) runs at its own,
// lower efficiency on every part measured.
struct FusedAttention {
  AttentionCurve forward;
  AttentionCurve backward;
};

struct Accelerator {
  std::string name;                  // "a100-80gb"
  std::string description;           // one line, the part and its memory
  double bf16_flops_per_s = 0;       // dense peak (no sparsity)
  double fp16_flops_per_s = 0;
  double fp8_flops_per_s = 0;        // 0: the part has no FP8 tensor cores
  double hbm_bytes = 0;              // HBM capacity
  double hbm_Bps = 0;                // HBM bandwidth
  MatmulCurve matmul;                // the BF16 and FP16 GEMMs' curve
  MatmulCurve matmul_fp8;            // the FP8 GEMMs' curve (unused when fp8_flops_per_s is 0)
  // Streaming multiprocessors (NVIDIA) or compute units (AMD): a communication kernel that
  // runs beside compute holds one of them per channel (NCCL and RCCL run one thread block per
  // channel), so that overlapped traffic still takes channels / compute_units of the compute
  // while it runs. 0: not known, no charge.
  double compute_units = 0;
  // The fused attention kernel's curves (BF16/FP16; the attention core stays BF16 under FP8).
  // Absent: no published measurement of the kernel on the part, and the kernel is priced as
  // one GEMM of its FLOPs on `matmul` (its backward 2.5 times that).
  std::optional<FusedAttention> fused_attention;

  // The dense peak of `dtype`. Throws InputError naming the part when it is 0 (A100 with fp8).
  double peak_flops_per_s(DType dtype) const;
  // Whether the part has tensor cores for `dtype` (a peak above 0).
  bool supports(DType dtype) const;
  // The matmul curve the GEMMs of `dtype` run on: matmul_fp8 for kFp8, matmul otherwise.
  const MatmulCurve& curve(DType dtype) const;
};

// The half-performance size of a part's GEMMs from its own tiling: one wave of output tiles,
// every compute unit holding one tile_m x tile_n tile, through the K depth its software
// pipeline loads before the first result (stages x the K of a stage):
//   F_half = 2 x compute_units x tile_m x tile_n x pipeline_k.
// accelerator.cc names the kernels each part's figures come from.
constexpr double one_wave_flops(double compute_units, double tile_m, double tile_n,
                                double pipeline_k) {
  return 2.0 * compute_units * tile_m * tile_n * pipeline_k;
}

// Every preset, in a fixed order: a100-40gb, a100-80gb, h100-sxm, h200, b200, b300, gb200,
// gb300, mi300x.
std::span<const Accelerator> accelerator_presets();
// The preset called `name`, or nullptr.
const Accelerator* find_accelerator(std::string_view name);
// The preset called `name`; throws InputError naming it and listing the presets otherwise.
const Accelerator& accelerator_preset(std::string_view name);
// Every preset's name, joined by ", ".
std::string accelerator_names();

}  // namespace scalewall

#endif  // SCALEWALL_ACCELERATOR_H_
