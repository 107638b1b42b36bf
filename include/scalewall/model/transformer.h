// scalewall/model/transformer.h: a GPT-style decoder-only transformer as a training workload:
// its parameter count, its FLOPs per step (forward, backward, recomputation) and its activation
// memory per layer. docs/models.md ("The transformer workload") has every formula with its
// source.
//
// Notation: h hidden, f FFN, a heads, k KV heads (grouped-query attention; k = a is multi-head
// attention), d = h / a the head size, l layers, s sequence, V vocabulary, B global batch
// (sequences), b micro-batch, T = b s tokens of one micro-batch.
//
// Parameters (Narayanan et al. 2021, section 5.1, generalised to f and k):
//   per layer  h (h + 2 k d) + h^2 + 2 h f   weights (QKV, projection, the two MLP matrices)
//            + (h + 2 k d) + h + f + h + 4 h  biases and the two layer norms' scale and shift
//   whole      l (per layer) + V h + s h + 2 h   (word and position embeddings, final norm)
// With k = a and f = 4h the layer is 12 h^2 + 13 h, Narayanan's P = 12 l h^2 (1 + 13/(12h) +
// (V + s)/(12 l h)).
//
// Forward FLOPs of one micro-batch (Narayanan et al. 2021, section 5.1; a multiply-add is 2):
//   per layer  2 T (h (h + 2 k d) + h^2 + 2 h f)  +  4 b s^2 h   (GEMMs, then QK^T and AV)
//   logits     2 T h V
// Backward is twice the forward (a GEMM's input and weight gradients). Recomputation
// (Korthikanti et al. 2022) adds the layers' forward again (full) or only the attention core,
// 4 b s^2 h per layer (selective: QK^T, softmax, dropout, AV); the logits are never
// recomputed. With k = a, f = 4h and full recomputation one step is
//   96 B s l h^2 (1 + s / (6h) + V / (16 l h))      (Narayanan's equation 3).
//
// Activation memory per layer and micro-batch (Korthikanti et al. 2022, Table 2), bytes, with
// 2-byte activations and 1-byte dropout masks, t the tensor-parallel degree:
//   no recomputation       s b h (10 + 24/t + 5 a s / (h t))     (sequence parallel: all / t)
//   selective              s b h (10 + 24/t)                      (sequence parallel: 34 / t)
//   full                   2 s b h                                (sequence parallel: / t)
// The 24 of the tensor-parallel part is Q, K, V (6), the projection's input (2) and the MLP's
// two inner tensors (16); with k KV heads and FFN f it is 2 + 4 k/a + 2 + 4 f/h (24 at k = a,
// f = 4h). The 10 outside it are the layer norms (4), the QKV and MLP inputs (4) and two
// dropout masks (2).
#ifndef SCALEWALL_TRANSFORMER_H_
#define SCALEWALL_TRANSFORMER_H_

#include <cstdint>
#include <string_view>

#include "scalewall/model/accelerator.h"

namespace scalewall {

struct TransformerShape {
  std::int64_t hidden = 0;    // h
  std::int64_t ffn = 0;       // f (0 in a file means 4h)
  std::int64_t heads = 0;     // a
  std::int64_t kv_heads = 0;  // k (0 in a file means a)
  std::int64_t layers = 0;    // l
  std::int64_t seq = 0;       // s
  std::int64_t vocab = 0;     // V
};

struct TrainingSetup {
  std::int64_t global_batch = 0;  // B, sequences per optimizer step
  std::int64_t micro_batch = 1;   // b, sequences per micro-batch (0: search it)
  DType dtype = DType::kBf16;
};

enum class Recompute { kNone, kSelective, kFull };
// "none", "selective", "full".
std::string_view recompute_name(Recompute recompute);
// The inverse; throws InputError naming the text.
Recompute parse_recompute(std::string_view text);

// Throws InputError naming the field unless every dimension is >= 1, heads divides hidden,
// kv_heads divides heads, and global_batch >= 1.
void require_valid(const TransformerShape& shape);

// Parameters of one layer (weights and biases), of the embeddings (word V h, position s h),
// and of the whole model (with the final layer norm's 2h).
double layer_parameters(const TransformerShape& m);
double embedding_parameters(const TransformerShape& m);
double model_parameters(const TransformerShape& m);

// The widths the formulas use: the QKV output h + 2 k d.
double qkv_width(const TransformerShape& m);

// Forward FLOPs of one layer for `tokens` = b s tokens of sequences of m.seq tokens: GEMMs and
// the attention core (4 b s^2 h).
double layer_forward_flops(const TransformerShape& m, double micro_batch);
// The attention core alone, 4 b s^2 h: what selective recomputation recomputes.
double attention_core_flops(const TransformerShape& m, double micro_batch);
// The logits GEMM, 2 b s h V.
double logits_forward_flops(const TransformerShape& m, double micro_batch);

// The FLOPs of one optimizer step of `global_batch` sequences, split as the breakdown reports
// them.
struct StepFlops {
  double forward = 0;      // layers and logits, forward
  double backward = 0;     // twice the forward
  double recompute = 0;    // the recomputed forward (none: 0)
  double model() const { return forward + backward; }            // 6 P tokens-like: the MFU count
  double executed() const { return forward + backward + recompute; }  // Narayanan's count
};
StepFlops step_flops(const TransformerShape& m, double global_batch, Recompute recompute);

// Activation bytes one layer holds for one micro-batch until its backward pass (the table
// above), at tensor-parallel degree `tp`.
double layer_activation_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp,
                              bool sequence_parallel, Recompute recompute);

}  // namespace scalewall

#endif  // SCALEWALL_TRANSFORMER_H_
