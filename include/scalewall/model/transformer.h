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
//
// Attention width. q = a d is the attention's width (Q's and the projection input's), d the
// head size: h / a by default, or head_dim where a model sets it apart (Qwen3, gpt-oss: a d is
// not h). Every h of a Q or projection width above is then q, and K and V are k d wide.
//
// Multi-head latent attention (MLA; DeepSeek-V2 (arXiv:2405.04434) section 2.1, DeepSeek-V3's
// inference/model.py MLA, Megatron-Core's multi_latent_attention.py): r_q q_lora_rank (0: Q is
// projected from h directly), r_kv kv_lora_rank, d_n qk_nope_dim, d_r qk_rope_dim, d_v
// v_head_dim, d_qk = d_n + d_r.
//   weights   h r_q + r_q a d_qk (or h a d_qk)  Q down and up
//           + h (r_kv + d_r) + r_kv a (d_n + d_v)  KV down (with the shared rotary key), up
//           + a d_v h                               the output projection
//           + the low-rank norms r_q and r_kv (x2 as LayerNorm)
//   core      2 b s^2 a (d_qk + d_v)                QK^T over d_qk, AV over d_v
// (Megatron-LM's theoretical_memory_usage.py counts the same parameters.)
//
// Mixture of experts (Shazeer et al. 2017; GShard; Switch; Mixtral, DeepSeekMoE): E experts,
// topk k, f_e one expert's FFN (moe_ffn, default f), S shared experts of f_e each, c the
// capacity factor (dropless: 1). Layer i is an MoE layer when i >= dense_layers and
// i % moe_every == 0 (Megatron-Core's moe_layer_freq, DeepSeek's first_k_dense_replace); the
// others keep the dense MLP of f. An MoE layer's MLP holds
//   router h E (+ E bias where the model has one)   experts E n h f_e   shared S n h f_e
// and one token uses the router, k experts and the shared ones (active_parameters). Its
// forward FLOPs replace the MLP's 2 T n h f with
//   2 T h E  +  c k n 2 T h f_e  +  S n 2 T h f_e
// (with a capacity factor, each expert runs its padded capacity c k T / E tokens:
// Megatron-Core's moe_pad_expert_input_to_capacity, get_capacity). Its activations (SimuMax's
// ExpertMLP: the router's probabilities, each routed copy's grouped-GEMM input and its output
// kept for the weighted combine, the experts' inner tensors) replace the MLP's inner n' f/h /t
// of X with
//   n' S f_e / (h t)  +  c k (n' f_e / (h t) + 4)          n' = 4 plain, 6 gated
// and add 8 E / h to the 10 outside it (the router's T x E probabilities at 8 B).
#ifndef SCALEWALL_TRANSFORMER_H_
#define SCALEWALL_TRANSFORMER_H_

#include <cstdint>
#include <optional>
#include <string>
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
// Multi-head (or grouped-query) attention, or DeepSeek's multi-head latent attention.
enum class AttentionKind { kMha, kMla };
// A layer with the dense MLP, or one whose MLP is a mixture of experts.
enum class LayerKind { kDense, kMoe };

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
  // Of the layers, how many attend over attention_window; 0: all of them (then a longer seq is
  // refused, as above). gpt-oss alternates windowed and full layers: there the windowed ones
  // are priced over their band of s w - w^2/2 scores (attention_core_flops).
  std::int64_t window_layers = 0;
  // d, the head size; 0: hidden / heads. Multi-head attention only.
  std::int64_t head_dim = 0;
  // Mixture of experts; experts 0: a dense model, and the fields below up to capacity_factor
  // are ignored.
  std::int64_t experts = 0;         // E, routed experts of each MoE layer
  std::int64_t topk = 0;            // k, experts each token is routed to
  std::int64_t moe_ffn = 0;         // f_e, one expert's FFN size; 0: ffn
  std::int64_t shared_experts = 0;  // S, experts every token passes, f_e each
  std::int64_t moe_every = 1;       // an MoE layer every moe_every layers
  std::int64_t dense_layers = 0;    // leading layers that keep the dense MLP
  double capacity_factor = 0;       // c; 0: dropless (no capacity, no padding)
  // Whether the router carries an E-wide bias besides biases = kAll (DeepSeek-V3's
  // e_score_correction_bias); under kAll it always does (Megatron-Core's add_bias_linear).
  bool router_bias = false;
  // Multi-head latent attention and its ranks and head sizes (mla only).
  AttentionKind attention = AttentionKind::kMha;
  std::int64_t q_lora_rank = 0;   // r_q; 0: no Q compression
  std::int64_t kv_lora_rank = 0;  // r_kv
  std::int64_t qk_nope_dim = 0;   // d_n
  std::int64_t qk_rope_dim = 0;   // d_r
  std::int64_t v_head_dim = 0;    // d_v
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
// "mha", "mla"; the parser is its inverse, as above.
std::string_view attention_name(AttentionKind attention);
AttentionKind parse_attention(std::string_view text);

// What is wrong with a shape: the [model] key at fault (without "model.") and the message,
// which names it and its value ("model.topk 9 is more than model.experts 8").
struct ShapeProblem {
  std::string key;
  std::string message;
};
// The first problem of `shape`, or nullopt: a dimension below 1; heads not dividing hidden
// (without head_dim) or kv_heads not dividing heads; a sequence past a window every layer
// has; a mixture of experts whose topk is not in [1, experts], whose shared_experts, moe_ffn
// or dense_layers is negative, whose moe_every is below 1, that leaves no MoE layer, or whose
// capacity_factor is negative or above experts / topk; MLA without its ranks and head sizes,
// with kv_heads other than heads, a head_dim, or learned positions.
std::optional<ShapeProblem> shape_problem(const TransformerShape& shape);
// Throws InputError with the problem's message when there is one.
void require_valid(const TransformerShape& shape);

// Whether the model has MoE layers (experts > 0), whether layer i (from 0) is one, and how many
// of the layers [begin, end) are.
bool is_moe(const TransformerShape& m);
bool is_moe_layer(const TransformerShape& m, std::int64_t layer);
std::int64_t moe_layers_between(const TransformerShape& m, std::int64_t begin, std::int64_t end);
// The MoE layers of the whole model, and the dense ones.
std::int64_t moe_layer_count(const TransformerShape& m);
std::int64_t dense_layer_count(const TransformerShape& m);

// d (head_dim, or h / a), q = a d the attention's width (Q and the projection's input; MLA:
// a d_v), and f_e (moe_ffn, or f).
double head_size(const TransformerShape& m);
double attention_width(const TransformerShape& m);
double expert_ffn(const TransformerShape& m);
// c k: the routed copies of each token an expert layer runs (k dropless, c k with a capacity
// factor).
double routed_copies(const TransformerShape& m);

// n: the MLP's weight matrices, 2 (plain) or 3 (gated).
double mlp_matrices(const TransformerShape& m);

// Parameters of one layer of `kind` (weights, biases, its two norms; the kind-less form is
// the dense layer's); of the attention alone (weights, biases, MLA's low-rank norms); of the
// embeddings (the word embedding V h, the untied output layer V h, the learned position table
// s h); of the whole model (with the final norm); and active_parameters, what one token uses:
// every layer's attention and norms, the dense layers' MLP, each MoE layer's router, topk
// experts and shared experts, and the embeddings as model_parameters counts them.
double layer_parameters(const TransformerShape& m);
double layer_parameters(const TransformerShape& m, LayerKind kind);
double attention_parameters(const TransformerShape& m);
double embedding_parameters(const TransformerShape& m);
double model_parameters(const TransformerShape& m);
double active_parameters(const TransformerShape& m);

// The parameters of one MoE layer's E routed experts, part of layer_parameters(m, kMoe): E
// times one expert's MLP of f_e (its weights n h f_e and, with all biases, (n - 1) f_e + h).
// What expert parallelism splits over ep x etp ranks; 0 for a dense model.
double routed_expert_parameters(const TransformerShape& m);

// What the first and the last pipeline stage hold besides their layers: the first the word
// embedding V h and the position table s h (learned), the last the output layer V h (the tied
// copy or the untied matrix). With one stage both are the same GPUs: embedding_parameters.
double input_embedding_parameters(const TransformerShape& m);
double output_layer_parameters(const TransformerShape& m);

// MLA's projections, as multiply-adds per token (Megatron-Core's multi_latent_attention.py:
// linear_q_down_proj h r_q, linear_q_up_proj r_q a d_qk, or linear_q_proj h a d_qk without
// r_q; linear_kv_down_proj h (r_kv + d_r), linear_kv_up_proj r_kv a (d_n + d_v); linear_proj
// a d_v h). Megatron-Core replicates the two down projections on every TP rank (TELinear,
// parallel_mode "duplicated") and splits the others over the ranks.
struct MlaProjections {
  double q_down = 0, q_up = 0, kv_down = 0, kv_up = 0, proj = 0;
  double all() const { return q_down + q_up + kv_down + kv_up + proj; }
};
MlaProjections mla_projections(const TransformerShape& m);

// The widths the formulas use: the QKV output q + 2 k d (MLA: Q, K and V after their up
// projections, a (2 d_qk + d_v)).
double qkv_width(const TransformerShape& m);

// The multiply-adds per token of one layer's GEMMs (what 2 T multiplies): the attention's
// projections and the MLP's (an MoE layer: router, c k experts, shared experts).
double layer_gemm_weights(const TransformerShape& m, LayerKind kind);
// Forward FLOPs of one layer for `tokens` = b s tokens of sequences of m.seq tokens: GEMMs and
// the attention core. The kind-less form is the dense layer's; the mean one the average over
// the model's layers (the dense layer's exactly when there are no MoE layers).
double layer_forward_flops(const TransformerShape& m, double micro_batch);
double layer_forward_flops(const TransformerShape& m, double micro_batch, LayerKind kind);
double mean_layer_forward_flops(const TransformerShape& m, double micro_batch);
// The attention core alone, 4 b s^2 q (MLA: 2 b s^2 a (d_qk + d_v)): what selective
// recomputation recomputes. Where some layers attend over a window w < s, those count
// 4 b q (2 s w - w^2), twice their band of s w - w^2/2 scores as the full core counts twice
// its causal half, and the figure is the mean over the layers.
double attention_core_flops(const TransformerShape& m, double micro_batch);
// Every score of every layer, s^2, window or not: what an unfused kernel computes (it masks
// what lies outside the window).
double full_attention_core_flops(const TransformerShape& m, double micro_batch);
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
// reads and writes Q and K, 2 x 2 B x b s (q/t + k' d) (MLA: their rotary parts, a d_r / t
// and the one shared d_r); 0 with learned positions.
double rotary_traffic_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp);

// Activation bytes one layer holds for one micro-batch until its backward pass (the table
// above), at tensor-parallel degree `tp`; the kind-less form is the dense layer's. MLA keeps,
// besides the table's 10 (SimuMax's MLAAttention: each linear's and each norm's input, and
// the core's Q, K, V and output): the low-rank paths, 4 r_q + 4 r_kv (each norm's input and
// output, on the rank's tokens as the 10 are: its down projections are replicated over the TP
// ranks and run on the sequence shard under sequence parallelism), and in X, Q and K of
// a d_qk, V and the projection's input of a d_v, 2 B each, / t.
double layer_activation_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp,
                              bool sequence_parallel, Recompute recompute);
double layer_activation_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp,
                              bool sequence_parallel, Recompute recompute, LayerKind kind);

}  // namespace scalewall

#endif  // SCALEWALL_TRANSFORMER_H_
