// scalewall/model/transformer.h: a decoder-only transformer (GPT, Llama, Mistral, Qwen,
// Nemotron) as a training workload: its parameter count, its FLOPs per step (forward, backward,
// recomputation) and its activation memory per layer. docs/models.md ("The transformer
// workload") has every formula with its source.
//
// Notation: h hidden, f FFN, a heads, k KV heads (grouped-query attention; k = a is multi-head
// attention), d = h / a the head size, l layers, s sequence, V vocabulary, B global batch
// (sequences), b micro-batch, T = b s tokens of one micro-batch, n the MLP's matrices (2 plain,
// 3 gated), t the tensor-parallel degree.
//
// Parameters (Narayanan et al. 2021, section 5.1, generalised to f, k, the gated MLP, the
// biases, the norms and the embeddings; Megatron-LM's theoretical_memory_usage.py counts the
// same way):
//   per layer  h (h + 2 k d) + h^2 + n h f              weights (QKV, projection, the MLP)
//            + biases: all (h + 2 k d) + h + (n - 1) f + h, QKV only (h + 2 k d), or none
//            + two norms: LayerNorm 2h each (scale, shift), RMSNorm h each (scale)
//   whole      l (per layer) + V h (word embedding) + V h (untied output layer only)
//            + s h (learned positions only; rotary has no table) + one final norm
// GPT (plain, all biases, LayerNorm, tied, learned) is 12 h^2 + 13 h per layer, Narayanan's
// P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)). Llama 3.1 70B (gated, no biases, RMSNorm,
// untied, rotary, k = 8) is 70,553,706,496.
//
// Forward FLOPs of one micro-batch (Narayanan et al. 2021, section 5.1; a multiply-add is 2):
//   per layer  2 T (h (h + 2 k d) + h^2 + n h f)  +  4 b s^2 h   (GEMMs, then QK^T and AV)
//   logits     2 T h V   (tied or untied alike: the output GEMM is the same)
// A gated MLP (SwiGLU, GeGLU) runs three GEMMs of 2 T h f: gate, up and down. Backward is
// twice the forward (a GEMM's input and weight gradients). Recomputation (Korthikanti et al.
// 2022) adds the layers' forward again (full) or only the attention core, 4 b s^2 h per layer
// (selective: QK^T, softmax, dropout, AV); the logits are never recomputed. With k = a, f = 4h,
// a plain MLP and full recomputation one step is
//   96 B s l h^2 (1 + s / (6h) + V / (16 l h))      (Narayanan's equation 3).
// The elementwise work (norms, softmax, activation function, rotary embedding) is not counted
// as FLOPs; the step model prices it as memory traffic (parallel_step.h).
//
// Activation memory per layer and micro-batch (Korthikanti et al. 2022, Table 2), bytes, with
// 2-byte activations and 1-byte dropout masks:
//   no recomputation       s b h (10 + X + 5 a s / (h t))     (sequence parallel: 10 / t)
//   selective              s b h (10 + X)                     (sequence parallel: 10 / t)
//   full                   2 s b h                            (sequence parallel: / t)
//   X = (2 + 2 + 4 f/h) / t + 4 k'/a   plain MLP    (24/t at k = a, f = 4h, Korthikanti's)
//   X = (2 + 2 + 6 f/h) / t + 4 k'/a   gated MLP
// X is the tensor-parallel part: Q (2), the projection's input (2), the MLP's inner tensors
// (plain: the activation function's input and output, 4 f/h; gated: Megatron-Core's fused
// SwiGLU keeps its 2f-wide input and the down projection its f-wide input, 6 f/h), and K and V
// of the k' KV heads a rank holds (kv_heads_per_rank: k/t, or one whole head when t > k). The
// 10 outside it are the norms' inputs (4), the QKV and MLP inputs (4) and two dropout masks
// (2). Megatron-LM's theoretical_memory_usage.py writes the same table as 18 + 4 f/h with
// selective recomputation and sequence parallelism (34 at f = 4h).
#ifndef SCALEWALL_TRANSFORMER_H_
#define SCALEWALL_TRANSFORMER_H_

#include <cstdint>
#include <string_view>

#include "scalewall/model/accelerator.h"

namespace scalewall {

// The MLP: two matrices h x f with GeLU or squared ReLU between them (GPT, Nemotron-4), or
// three with a gated unit (SwiGLU, GeGLU: Llama, Mistral, Qwen).
enum class MlpKind { kPlain, kGated };
// Learned absolute positions (an s x h table, GPT) or rotary embeddings (RoPE: no table).
enum class PositionKind { kLearned, kRotary };
// Which linear layers carry a bias: all (GPT), the QKV projection only (Qwen2), or none
// (Llama, Mistral, Nemotron-4). Not a scenario key: set by a preset or a config.json.
enum class LinearBiases { kAll, kQkvOnly, kNone };
// LayerNorm (a scale and a shift, 2h) or RMSNorm (a scale, h). Not a scenario key either.
enum class NormKind { kLayerNorm, kRmsNorm };

struct TransformerShape {
  std::int64_t hidden = 0;    // h
  std::int64_t ffn = 0;       // f (0 in a file means 4h)
  std::int64_t heads = 0;     // a
  std::int64_t kv_heads = 0;  // k (0 in a file means a)
  std::int64_t layers = 0;    // l
  std::int64_t seq = 0;       // s
  std::int64_t vocab = 0;     // V
  MlpKind mlp = MlpKind::kPlain;                 // Default: plain (GPT)
  bool tied_embeddings = true;                   // Default: the output layer is the embedding
  PositionKind position = PositionKind::kLearned;  // Default: learned (GPT)
  LinearBiases biases = LinearBiases::kAll;      // Default: all (GPT)
  NormKind norm = NormKind::kLayerNorm;          // Default: LayerNorm (GPT)
  // A sliding attention window in tokens (Mistral 7B v0.1: 4096); 0: none. The model prices
  // full causal attention, so require_valid refuses a sequence longer than the window.
  std::int64_t attention_window = 0;
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

// "plain", "gated"; "learned", "rotary". The parsers are their inverses and throw
// InputError naming the text and the names expected.
std::string_view mlp_name(MlpKind mlp);
MlpKind parse_mlp(std::string_view text);
std::string_view position_name(PositionKind position);
PositionKind parse_position(std::string_view text);

// Throws InputError naming the field unless every dimension is >= 1, heads divides hidden,
// kv_heads divides heads, and the sequence fits a sliding attention window if there is one.
void require_valid(const TransformerShape& shape);

// n: the MLP's weight matrices, 2 (plain) or 3 (gated).
double mlp_matrices(const TransformerShape& m);

// Parameters of one layer (weights, biases, its two norms); of the embeddings (the word
// embedding V h, the untied output layer V h, the learned position table s h); and of the
// whole model (with the final norm).
double layer_parameters(const TransformerShape& m);
double embedding_parameters(const TransformerShape& m);
double model_parameters(const TransformerShape& m);

// What the first and the last pipeline stage hold besides their layers: the first the word
// embedding V h and the position table s h (learned), the last the output layer V h (the tied
// copy or the untied matrix). With one stage both are the same GPUs: embedding_parameters.
double input_embedding_parameters(const TransformerShape& m);
double output_layer_parameters(const TransformerShape& m);

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

// k', the KV heads one of `tp` tensor-parallel ranks holds: k/t, or one whole head when t > k
// (Megatron-Core's QKV sub-sharding, core v0.16: t/k ranks hold the same head). REQUIRES: k
// divides t or t divides k (split_problem).
double kv_heads_per_rank(const TransformerShape& m, std::int64_t tp);

// HBM bytes the rotary embedding moves per layer and micro-batch on one of `tp` ranks: it
// reads and writes Q and K, 2 x 2 B x b s (h/t + k' d); 0 with learned positions.
double rotary_traffic_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp);

// Activation bytes one layer holds for one micro-batch until its backward pass (the table
// above), at tensor-parallel degree `tp`.
double layer_activation_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp,
                              bool sequence_parallel, Recompute recompute);

}  // namespace scalewall

#endif  // SCALEWALL_TRANSFORMER_H_
