// Implementation of scalewall/model/parallel_step.h.
#include "scalewall/model/parallel_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "scalewall/base/checked_count.h"
#include "scalewall/base/error.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/framework.h"
#include "scalewall/model/link.h"
#include "scalewall/model/nccl.h"
#include "scalewall/model/straggler.h"
#include "scalewall/model/split_variance.h"

namespace scalewall {
namespace {

double dbl(std::int64_t v) { return static_cast<double>(v); }

// Bytes per element of what is stored and sent: weights, gradients and activations are 2-byte
// types under bf16, fp16 and fp8 alike (FP8 training runs its GEMMs in FP8 on BF16 copies).
constexpr double kElementBytes = 2.0;
// Adam with mixed precision keeps an fp32 master copy, momentum and variance: 12 B per
// parameter (Rajbhandari et al. 2020, K = 12), besides the 2-byte weights and gradients.
constexpr double kOptimizerStateBytes = 12.0;
// One Adam update reads the master weight, both moments and the gradient and writes the three
// and the 2-byte weight: 4 + 4 + 4 + 2 read, 4 + 4 + 4 + 2 written, 28 B per parameter at HBM
// rate.
constexpr double kAdamTrafficBytes = 28.0;
// The memory-bound work of a layer (layer norms, softmax, dropout, GeLU, residual adds) moves
// about twice the bytes it leaves stored for the backward pass (Korthikanti's table): each
// tensor written once and read once. Chosen; the same for every accelerator.
constexpr double kElementwiseTrafficFactor = 2.0;
// Two gradient buckets are in flight at once under overlap (one reducing, one filling).
constexpr double kBucketsInFlight = 2.0;
// FP8 training keeps two 1-byte copies of each layer weight: the FP8 weight and its transpose.
constexpr double kFp8WeightCopies = 2.0;

struct Cost {
  double total_s = 0;
  double latency_s = 0;
  double unit_s = 0;  // compute units x seconds its kernels hold (NCCL: channels x time)
  Cost& operator+=(const Cost& o) {
    total_s += o.total_s;
    latency_s += o.latency_s;
    unit_s += o.unit_s;
    return *this;
  }
  Cost times(double k) const { return {total_s * k, latency_s * k, unit_s * k}; }
};

// The topology of a group of `ranks` ranks with stride `stride` in the job's rank order on
// nodes of the fabric: how many of its ranks share a node, how many nodes it spans, and the
// NICs it gets when every group of the node crosses at once.
Topology group_topology(const Topology& node, std::int64_t ranks, std::int64_t stride) {
  const std::int64_t g = node.ranks_per_node;
  Topology t = node;
  t.placement = Placement::kPacked;
  t.rank_to_node.clear();
  const std::int64_t per_node = stride >= g ? 1 : std::min(ranks, std::max<std::int64_t>(1, g / stride));
  t.ranks_per_node = per_node;
  t.nodes = (ranks + per_node - 1) / per_node;
  const double share = dbl(node.nics_per_node) * dbl(per_node) / dbl(g);
  if (share >= 1.0) {
    t.nics_per_node = static_cast<std::int64_t>(std::floor(share));
  } else {
    t.nics_per_node = 1;
    t.inter = t.inter.each_regime([share](LinkRegime& r) { r.bandwidth_Bps *= share; });
  }
  return t;
}

// One collective call on a group: NCCL's choice on GPU ranks, the cheapest MPI algorithm
// otherwise.
Cost collective(Op op, double bytes, const Topology& group) {
  if (group.ranks() <= 1 || bytes <= 0.0) return {};
  if (group.rank_kind == RankKind::kGpu && nccl_chooses(op)) {
    const NcclCost c = nccl_choice(op, bytes, nccl_fabric(group));
    return {c.total_s, c.latency_s, c.total_s * static_cast<double>(c.channels)};
  }
  Cost best;
  bool first = true;
  for (const AlgorithmSpec& a : applicable_algorithms(op, group)) {
    const CollectiveCost c = collective_cost(op, a, bytes, group);
    if (first || c.total_s < best.total_s) best = {c.total_s, c.latency_s};
    first = false;
  }
  return best;
}

// The layout of the layers on the split's stages, as the job's framework lays them out.
StageLayoutResult layout_of(const TransformerJob& job, const ParallelSplit& s) {
  return stage_layout(job.framework.partition,
                      {job.model.layers, s.pp, s.interleave, s.first_stage_layers,
                       s.last_stage_layers, s.embedding_in_split, s.loss_in_split});
}

// Whether x y divides n (n >= 1): a product past the largest 64-bit count is larger than n.
bool product_divides(std::int64_t x, std::int64_t y, std::int64_t n) {
  const std::optional<std::int64_t> product = try_mul(x, y);
  return product && n % *product == 0;
}

// The tokens of one sequence a rank works on: s / cp (context parallelism splits each sequence
// over its cp ranks; split_problem keeps 2 cp a divisor of s).
double rank_seq(const TransformerJob& job, const ParallelSplit& s) {
  return dbl(job.model.seq) / dbl(s.cp);
}
// The shape a rank's per-token work runs on: the model with its s / cp tokens per sequence.
TransformerShape rank_shape(const TransformerJob& job, const ParallelSplit& s) {
  TransformerShape m = job.model;
  m.seq /= s.cp;
  return m;
}
// The ranks that reduce the gradients and shard the optimizer: Megatron-Core's data-parallel
// group with context parallelism, d c ranks (parallel_state.py: the CP ranks hold the same
// weights and join the gradient reduction).
std::int64_t dp_cp(const ParallelSplit& s) { return s.dp * s.cp; }
// The KV heads a TP rank holds as a whole count: k/t, or one when t > k.
std::int64_t kv_heads_held(const TransformerShape& m, std::int64_t tp) {
  return m.kv_heads % tp == 0 ? m.kv_heads / tp : 1;
}

// Of the routed copies a TP group's tokens make, the share one rank holds after the dispatch:
// etp / tp with the experts apart (it holds the copies of etp of the group's tp sequence
// shards, ExpertDispatch), 1 otherwise (every rank gathers every token of its TP group).
double routed_share(const ParallelSplit& s) {
  return experts_apart(s) ? dbl(expert_tp(s)) / dbl(s.tp) : 1.0;
}

// The peaks one layer's work runs at. Under FP8 the transformer layers' GEMMs run at the FP8
// peak while the attention core and the logits GEMM stay BF16 (Transformer Engine's
// fp8_autocast covers its Linear modules only; DotProductAttention and Megatron-Core's output
// layer run in BF16 by default).
struct Peaks {
  double layer = 0;  // QKV, projection, MLP
  double core = 0;   // QK^T / AV or the fused attention kernel, and the logits
  const MatmulCurve* layer_curve = nullptr;  // the part's curve for each (accelerator.h)
  const MatmulCurve* core_curve = nullptr;
};
Peaks peaks_of(const TransformerJob& job) {
  const DType layer = job.training.dtype;
  const DType core = layer == DType::kFp8 ? DType::kBf16 : layer;
  return {job.gpu.peak_flops_per_s(layer), job.gpu.peak_flops_per_s(core),
          &job.gpu.curve(layer), &job.gpu.curve(core)};
}

// FlashAttention-2's backward runs five matrix products to the forward's two (it recomputes
// the scores and the softmax): 2.5 times the forward's FLOPs (Dao 2023, section 3.1.2; its
// benchmarks count the backward so).
constexpr double kFlashBackwardFactor = 2.5;
// A causal mask leaves half of the s x s scores to compute: the flash kernel skips the masked
// blocks (Dao 2023, section 3.1.1), so it runs half of the core's 4 b s^2 h FLOPs. The FLOP
// count that TFLOP/s and MFU report keeps the whole 4 b s^2 h (Narayanan's equation 3, and
// the counts of Megatron-LM's and NeMo's throughput logs).
constexpr double kCausalShare = 0.5;

// One layer's forward for one micro-batch at TP degree t: each GEMM on the matmul curve, the
// attention core by its kernel, the memory-bound work at HBM rate. An MoE layer's fc1 and fc2
// are its experts' grouped GEMMs and its shared experts' GEMMs, router its router's GEMM; MLA's
// qkv is its four input projections.
struct LayerTimes {
  double qkv_s = 0, proj_s = 0, fc1_s = 0, fc2_s = 0;  // one GEMM each
  double router_s = 0;         // an MoE layer's router
  double core_s = 0;           // the attention core's forward
  double core_backward_s = 0;  // its backward
  double elementwise_s = 0;    // layer norms, softmax (unfused), dropout, GeLU, residuals
  double cast_s = 0;           // FP8: casting the GEMMs' inputs and output gradients
  // With expert parallelism: what the heaviest EP rank's routed experts take past the mean's
  // (fc1 and fc2 hold the mean), forward; the step charges it as variance.
  double imbalance_s = 0;
  double gemms_s() const { return qkv_s + proj_s + fc1_s + fc2_s + router_s; }
  double forward_s() const { return gemms_s() + core_s + elementwise_s + cast_s; }
  double backward_s() const {
    return 2.0 * (gemms_s() + elementwise_s + cast_s) + core_backward_s;
  }
};

// The times of the two kinds of layer: dense, and (in a model with experts) MoE.
struct KindTimes {
  LayerTimes dense;
  LayerTimes moe;
  const LayerTimes& of(LayerKind kind) const { return kind == LayerKind::kMoe ? moe : dense; }
};

// The transformer layers one stage holds, by kind.
struct LayerMix {
  double dense = 0;
  double moe = 0;
  double all() const { return dense + moe; }
};

// `per_layer` of each kind, times the layers of that kind.
template <typename F>
double over_layers(const LayerMix& mix, F per_layer) {
  return mix.dense * per_layer(LayerKind::kDense) + mix.moe * per_layer(LayerKind::kMoe);
}

// The activations one layer holds per micro-batch: Korthikanti's table, with FlashAttention
// holding no s x s scores (as selective recomputation) but the softmax's log-sum-exp, 4 B per
// head and token (Dao et al. 2022, Algorithm 2).
double layer_activations(const TransformerJob& job, double b, const ParallelSplit& s,
                         Recompute recompute, LayerKind kind) {
  const TransformerShape m = rank_shape(job, s);
  if (recompute == Recompute::kFull) {
    return layer_activation_bytes(m, b, s.tp, s.sequence_parallel, recompute, kind);
  }
  // With the experts apart a rank keeps the 2-byte input and output of etp/tp of the TP
  // group's routed copies (the table's 4 per copy assumes every copy of the group's tokens);
  // their inner tensors, k T_l etp copies f_e/etp wide, are the table's.
  const double routed = kind == LayerKind::kMoe && experts_apart(s)
                            ? 4.0 * routed_copies(m) * (routed_share(s) - 1.0) * dbl(m.seq) *
                                  b * dbl(m.hidden)
                            : 0.0;
  if (job.framework.attention == AttentionKernel::kUnfused) {
    return layer_activation_bytes(m, b, s.tp, s.sequence_parallel, recompute, kind) + routed;
  }
  const double lse = 4.0 * dbl(m.heads) * dbl(m.seq) * b / dbl(s.tp);
  return layer_activation_bytes(m, b, s.tp, s.sequence_parallel, Recompute::kSelective, kind) +
         lse + routed;
}

// Bytes an FP8 cast moves per element: reads 2, writes 1 (Transformer Engine casts each GEMM
// input and each output gradient, and computes its amax in the same pass).
constexpr double kFp8CastBytes = 3.0;

// The tokens of one micro-batch each expert runs on each rank, of the `tokens` T_g whose routed
// copies its experts take (ExpertDispatch: with the experts on every GPU and sharded as the
// dense layers are, expert tensor parallelism = tp, every token of the TP group): k T_g / E of
// them under balanced dropless routing, or the padded capacity ceil(c k T_g / E) with a
// capacity factor (Megatron-Core's get_capacity with moe_pad_expert_input_to_capacity).
double tokens_per_expert(const TransformerShape& m, double tokens) {
  const double routed = dbl(m.topk) * tokens / dbl(m.experts);
  return m.capacity_factor > 0.0 ? std::ceil(m.capacity_factor * routed) : routed;
}

// The attention's GEMMs: QKV and the projection, or MLA's four input projections (the two down
// projections replicated on every TP rank, on the rank's sequence shard with sequence
// parallelism, on every token without) and its projection.
void attention_gemm_times(const TransformerJob& job, const ParallelSplit& s, LayerTimes& l) {
  const TransformerShape& m = job.model;
  const double t = dbl(s.tp);
  const double h = dbl(m.hidden);
  const double tokens = dbl(s.micro_batch) * rank_seq(job, s);
  const Peaks peak = peaks_of(job);
  const MatmulCurve& c = *peak.layer_curve;
  if (m.attention == AttentionKind::kMla) {
    const MlaProjections p = mla_projections(m);
    const double down = s.sequence_parallel ? t : 1.0;
    l.qkv_s = c.gemm_time_s(2.0 * tokens * p.q_down / down, peak.layer) +
              c.gemm_time_s(2.0 * tokens * p.q_up / t, peak.layer) +
              c.gemm_time_s(2.0 * tokens * p.kv_down / down, peak.layer) +
              c.gemm_time_s(2.0 * tokens * p.kv_up / t, peak.layer);
    l.proj_s = c.gemm_time_s(2.0 * tokens * p.proj / t, peak.layer);
    return;
  }
  l.qkv_s = c.gemm_time_s(2.0 * tokens * h * qkv_width(m) / t, peak.layer);
  l.proj_s = c.gemm_time_s(2.0 * tokens * h * attention_width(m) / t, peak.layer);
}

// The MLP's GEMMs. The first is (n - 1) f wide for n matrices: Megatron-Core fuses a gated
// MLP's gate and up projections into one linear_fc1 of 2f columns; the down projection is
// h x f. An MoE layer runs its router (2 T h E: on the rank's sequence shard with sequence
// parallelism, replicated without; a plain linear outside Transformer Engine, so BF16 under
// FP8), each of the E/ep experts a rank holds as one GEMM of the grouped GEMM on
// tokens_per_expert tokens, f_e split over etp (Megatron-Core's TEGroupedMLP: one GEMM per
// local expert on the matmul curve at its own size, so each pays the curve's F_half), and its S
// shared experts as one dense MLP of S f_e over tp (SharedExpertMLP). With ep > 1 the heaviest
// EP rank's experts run on `imbalance` times the mean's tokens: what that adds is imbalance_s.
void mlp_gemm_times(const TransformerJob& job, const ParallelSplit& s, LayerKind kind,
                    LayerTimes& l) {
  const TransformerShape& m = job.model;
  const double t = dbl(s.tp);
  const double h = dbl(m.hidden);
  const double tokens = dbl(s.micro_batch) * rank_seq(job, s);
  const double up = mlp_matrices(m) - 1.0;
  const Peaks peak = peaks_of(job);
  const MatmulCurve& c = *peak.layer_curve;
  if (kind == LayerKind::kDense) {
    const double f = dbl(m.ffn);
    l.fc1_s = c.gemm_time_s(up * 2.0 * tokens * h * f / t, peak.layer);
    l.fc2_s = c.gemm_time_s(2.0 * tokens * h * f / t, peak.layer);
    return;
  }
  const double fe = expert_ffn(m);
  const double e = dbl(m.experts);
  const double router_tokens = s.sequence_parallel ? tokens / t : tokens;
  l.router_s = peak.core_curve->gemm_time_s(2.0 * router_tokens * h * e, peak.core);
  const ExpertDispatch x = expert_dispatch(job, s);
  const double local = e / dbl(s.ep);
  const double et = dbl(expert_tp(s));
  const double each = x.tokens_per_expert;
  l.fc1_s = local * c.gemm_time_s(up * 2.0 * each * h * fe / et, peak.layer);
  l.fc2_s = local * c.gemm_time_s(2.0 * each * h * fe / et, peak.layer);
  if (x.imbalance > 1.0) {
    const double most = x.imbalance * each;
    l.imbalance_s = local * (c.gemm_time_s(up * 2.0 * most * h * fe / et, peak.layer) +
                             c.gemm_time_s(2.0 * most * h * fe / et, peak.layer)) -
                    (l.fc1_s + l.fc2_s);
  }
  if (m.shared_experts > 0) {
    const double fs = dbl(m.shared_experts) * fe;
    l.fc1_s += c.gemm_time_s(up * 2.0 * tokens * h * fs / t, peak.layer);
    l.fc2_s += c.gemm_time_s(2.0 * tokens * h * fs / t, peak.layer);
  }
}

// The elements FP8 casts per layer and micro-batch: each GEMM's input, / t where it is split.
// Dense: the (gathered) layer-norm output twice, the attention output and the GeLU output.
// MLA casts its down projections' input (on the rank's tokens), its up projections' gathered
// inputs r_q and r_kv and the attention output; an MoE layer each routed copy's input and
// inner output, and its shared experts' input and inner output (its router stays BF16).
double fp8_cast_elements(const TransformerJob& job, const ParallelSplit& s, LayerKind kind) {
  const TransformerShape& m = job.model;
  const double t = dbl(s.tp);
  const double h = dbl(m.hidden);
  const double tokens = dbl(s.micro_batch) * rank_seq(job, s);
  const double q = attention_width(m);
  const bool mla = m.attention == AttentionKind::kMla;
  if (kind == LayerKind::kDense && !mla) return tokens * (2.0 * h + q / t + dbl(m.ffn) / t);
  const double down = s.sequence_parallel ? t : 1.0;
  const double attention =
      mla ? h / down + dbl(m.q_lora_rank + m.kv_lora_rank) + q / t : h + q / t;
  double mlp = h + dbl(m.ffn) / t;
  if (kind == LayerKind::kMoe) {
    const double fe = expert_ffn(m);
    const double shared = m.shared_experts > 0 ? h + dbl(m.shared_experts) * fe / t : 0.0;
    mlp = routed_copies(m) * (h * routed_share(s) + fe / t) + shared;
  }
  return tokens * (attention + mlp);
}

LayerTimes layer_times(const TransformerJob& job, const ParallelSplit& s, LayerKind kind) {
  const TransformerShape& m = job.model;
  const double b = dbl(s.micro_batch);
  const double t = dbl(s.tp);
  const Peaks peak = peaks_of(job);
  const MatmulCurve& core_curve = *peak.core_curve;
  LayerTimes l;
  attention_gemm_times(job, s, l);
  mlp_gemm_times(job, s, kind, l);
  if (job.framework.attention == AttentionKernel::kFlash) {
    // QK^T and AV in one kernel, over the causal half (of the window's band where there is
    // one: the kernel skips the blocks outside it). With context parallelism each rank runs
    // 1/cp of the whole sequence's causal core (Megatron's load balancing gives every rank
    // and every ring step an equal share).
    const double core = attention_core_flops(m, b) / t / dbl(s.cp);
    const double forward = kCausalShare * core;
    const double backward = kFlashBackwardFactor * forward;
    if (const std::optional<FusedAttention>& fused = job.gpu.fused_attention) {
      // The kernel's own published efficiency by sequence length (accelerator.cc), at the
      // length each of its calls runs: s / r for a ring of r ranks (each step's Q and KV hold
      // s / r tokens), s after an all-to-all of all cp ranks.
      const double seq = cp_exchange(job, s).kernel_seq;
      l.core_s = fused->forward.kernel_time_s(forward, seq, peak.core);
      l.core_backward_s = fused->backward.kernel_time_s(backward, seq, peak.core);
    } else {
      l.core_s = core_curve.gemm_time_s(forward, peak.core);
      l.core_backward_s = core_curve.gemm_time_s(backward, peak.core);
    }
  } else {
    // QK^T, then AV: each half; every score, a window masked rather than skipped.
    const double core = full_attention_core_flops(m, b) / t / dbl(s.cp);
    l.core_s = 2.0 * core_curve.gemm_time_s(core / 2.0, peak.core);
    l.core_backward_s = 2.0 * l.core_s;
  }
  // The rotary embedding's own traffic (reading and writing Q and K) comes on top.
  l.elementwise_s =
      (kElementwiseTrafficFactor * layer_activations(job, b, s, Recompute::kNone, kind) +
       rotary_traffic_bytes(rank_shape(job, s), b, s.tp)) /
      job.gpu.hbm_Bps;
  if (job.training.dtype == DType::kFp8) {
    l.cast_s = kFp8CastBytes * fp8_cast_elements(job, s, kind) / job.gpu.hbm_Bps;
  }
  return l;
}

// Both kinds' times; a dense model's MoE layer is never used (none of its layers is one).
KindTimes kind_times(const TransformerJob& job, const ParallelSplit& s) {
  KindTimes k;
  k.dense = layer_times(job, s, LayerKind::kDense);
  k.moe = is_moe(job.model) ? layer_times(job, s, LayerKind::kMoe) : k.dense;
  return k;
}

// Past this many model chunks per stage a stage's MoE layers are taken in the model's
// proportion rather than chunk by chunk (no schedule runs near it; it bounds the work of one
// split whatever the scenario gives).
constexpr std::int64_t kMostChunksCounted = 1024;

// The layers of each kind that stage `rank` of `layout` holds. Stage r's layers follow the
// stages before it; with v model chunks each stage holds v slices of 1/v of its layers, chunk
// j of stage r at j l/v plus 1/v of the layers before r (Megatron-Core's
// get_transformer_layer_offset).
LayerMix stage_mix(const TransformerShape& m, const StageLayout& layout, std::int64_t rank,
                   std::int64_t v) {
  const std::int64_t p = layout.stages;
  const std::int64_t size = rank == 0 ? layout.first : rank == p - 1 ? layout.last : layout.middle;
  if (!is_moe(m)) return {dbl(size), 0.0};
  if (v > kMostChunksCounted) {
    const double moe = dbl(size) * dbl(moe_layer_count(m)) / dbl(m.layers);
    return {dbl(size) - moe, moe};
  }
  std::int64_t before = layout.first + (rank - 1) * layout.middle;  // a middle stage
  if (rank == 0) before = 0;
  if (rank == p - 1 && rank > 0) before = m.layers - layout.last;
  std::int64_t moe = 0;
  for (std::int64_t j = 0; j < v; ++j) {
    const std::int64_t begin = j * (m.layers / v) + before / v;
    const std::int64_t length = size / v + (j < size % v ? 1 : 0);
    moe += moe_layers_between(m, begin, begin + length);
  }
  return {dbl(size - moe), dbl(moe)};
}

// Per micro-batch on one stage: the time of `layers` layers' work and, on the last stage,
// the logits.
struct StageWork {
  double compute_s = 0;    // forward + backward
  double recompute_s = 0;
  double backward_s = 0;   // the backward part of compute_s (what hides gradient traffic)
  double forward_s = 0;
  double logits_forward_s = 0;  // of forward_s, the logits and the loss (last stage)
};

// What one layer recomputes per micro-batch: the attention core (selective: the fused
// kernel's forward, or unfused QK^T and AV with the scores' traffic) or its whole forward.
double layer_recompute_s(const TransformerJob& job, const ParallelSplit& s, const LayerTimes& l) {
  const TransformerShape& m = job.model;
  switch (s.recompute) {
    case Recompute::kNone: return 0.0;
    case Recompute::kSelective: {
      if (job.framework.attention == AttentionKernel::kFlash) return l.core_s;
      const double scores_bytes = kElementwiseTrafficFactor * 5.0 * dbl(m.heads) * dbl(m.seq) *
                                  dbl(m.seq) * dbl(s.micro_batch) / dbl(s.tp);
      return l.core_s + scores_bytes / job.gpu.hbm_Bps;
    }
    case Recompute::kFull: return l.forward_s();
  }
  SCALEWALL_CHECK(false && "unknown Recompute");
  return 0.0;
}

StageWork stage_work(const TransformerJob& job, const ParallelSplit& s, const KindTimes& times,
                     const LayerMix& mix, bool last_stage) {
  const TransformerShape& m = job.model;
  const double b = dbl(s.micro_batch);
  const double t = dbl(s.tp);
  StageWork w;
  if (last_stage) {
    const double logits = logits_forward_flops(rank_shape(job, s), b) / t;
    // The loss reads and writes the fp32 logits (4 B each way per element).
    const double loss_bytes = 8.0 * b * rank_seq(job, s) * dbl(m.vocab) / t;
    const Peaks peak = peaks_of(job);
    w.logits_forward_s =
        peak.core_curve->gemm_time_s(logits, peak.core) + loss_bytes / job.gpu.hbm_Bps;
  }
  w.forward_s =
      over_layers(mix, [&](LayerKind k) { return times.of(k).forward_s(); }) + w.logits_forward_s;
  w.backward_s = over_layers(mix, [&](LayerKind k) { return times.of(k).backward_s(); }) +
                 2.0 * w.logits_forward_s;
  w.compute_s = w.forward_s + w.backward_s;
  w.recompute_s =
      over_layers(mix, [&](LayerKind k) { return layer_recompute_s(job, s, times.of(k)); });
  return w;
}

// Transformer Engine's userbuffers overlap of the TP collectives with their GEMMs
// (transformer_engine/pytorch/module/base.py, initialize_ub's default configuration):
// ring_exchange (qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad): the all-gather in tp chunks
// over copy engines, each chunk's GEMM running while the next arrives (num_sm 1, no SM
// margin); pipeline (proj_fprop, fc2_fprop): the GEMM in 4 splits, each split's
// reduce-scatter running under the next split (num_sm 16, the GEMM on the SMs left);
// bulk (qkv and fc1 dgrad/wgrad): the collective beside the whole GEMM (num_sm 16).
enum class UbMethod { kRing, kPipeline, kBulk };
constexpr double kUbPipelineSplits = 4.0;
constexpr double kUbCommSms = 16.0;

// The time one overlapped collective of `comm_s` adds to its GEMM of `gemm_s` at TP degree t
// on a GPU of `units` SMs: what the GEMM cannot cover (the last split of a pipeline stays
// exposed), and the GEMM's slowdown on the SMs the communication kernel holds.
double ub_added_s(UbMethod method, double comm_s, double gemm_s, double t, double units) {
  const double margin = units > kUbCommSms ? gemm_s * kUbCommSms / (units - kUbCommSms) : 0.0;
  switch (method) {
    case UbMethod::kRing: return std::max(0.0, comm_s - gemm_s * (t - 1.0) / t);
    case UbMethod::kPipeline: {
      const double k = kUbPipelineSplits;
      return comm_s / k + std::max(0.0, (comm_s - gemm_s) * (k - 1.0) / k) + margin;
    }
    case UbMethod::kBulk: return std::max(0.0, comm_s - gemm_s) + margin;
  }
  SCALEWALL_CHECK(false && "unknown UbMethod");
  return 0.0;
}

// One layer's TP traffic overlapped as Transformer Engine does it, per micro-batch: the
// forward's all-gathers under QKV and FC1, reduce-scatters under the projection and FC2; the
// backward's all-gathers under the projection's and FC2's dgrad, reduce-scatters under QKV's
// and FC1's wgrad; a fully recomputed forward as the forward. Without `mlp` (an MoE layer
// whose experts are apart: their dispatch has its own collectives) the attention's only.
Cost tp_overlapped(const TransformerJob& job, const ParallelSplit& s, const LayerTimes& l,
                   const Cost& gather, const Cost& scatter, bool mlp) {
  const double t = dbl(s.tp);
  const double u = job.gpu.compute_units;
  const double ag = gather.total_s;
  const double rs = scatter.total_s;
  double forward = ub_added_s(UbMethod::kRing, ag, l.qkv_s, t, u) +
                   ub_added_s(UbMethod::kPipeline, rs, l.proj_s, t, u);
  double backward = ub_added_s(UbMethod::kRing, ag, l.proj_s, t, u) +
                    ub_added_s(UbMethod::kBulk, rs, l.qkv_s, t, u);
  if (mlp) {
    forward += ub_added_s(UbMethod::kRing, ag, l.fc1_s, t, u);
    forward += ub_added_s(UbMethod::kPipeline, rs, l.fc2_s, t, u);
    backward += ub_added_s(UbMethod::kRing, ag, l.fc2_s, t, u);
    backward += ub_added_s(UbMethod::kBulk, rs, l.fc1_s, t, u);
  }
  if (s.recompute == Recompute::kFull) forward *= 2.0;
  const double total = forward + backward;
  const double raw = (ag + rs) > 0 ? (ag + rs) : 1.0;
  const double latency_share = (gather.latency_s + scatter.latency_s) / raw;
  return {total, total * std::min(1.0, latency_share), 0.0};
}

// The backward's TP collectives of one layer as Megatron-LM issues them beside the GEMMs of
// its two column-parallel linears, QKV and FC1 (layers.py,
// LinearWithGradAccumulationAndAsyncCommunication.backward): `regather` (sequence
// parallelism: the saved input's all-gather; none without) under the dgrad GEMM, `reduce`
// (the input gradient's reduce-scatter, or all-reduce without sequence parallelism) under the
// wgrad GEMM; each GEMM has the forward's FLOPs. What runs past its GEMM is exposed; the
// hidden rest takes its NCCL channels' share of the SMs, as the DP overlap does. Without `mlp`,
// QKV's only.
Cost tp_backward_async(const TransformerJob& job, const LayerTimes& l, const Cost& regather,
                       const Cost& reduce, bool mlp) {
  const double units = job.gpu.compute_units;
  Cost out;
  const std::array<double, 2> gemms = {l.qkv_s, l.fc1_s};
  for (std::size_t g = 0; g < (mlp ? gemms.size() : 1); ++g) {
    const double gemm_s = gemms[g];
    for (const Cost* c : {&regather, &reduce}) {
      if (c->total_s <= 0) continue;
      const double exposed = std::max(0.0, c->total_s - gemm_s);
      const double channels = c->unit_s / c->total_s;
      const double held = units > 0 ? (c->total_s - exposed) * channels / units : 0.0;
      out += Cost{exposed + held, exposed * c->latency_s / c->total_s, 0.0};
    }
  }
  return out;
}

// With fewer KV heads than TP ranks, Megatron-Core (core v0.16, attention.py) all-gathers the
// QKV output, b s (h + 2 k d) x 2 B, in each forward and reduce-scatters its gradient in the
// backward, so that each rank takes its query heads and their one KV head whole.
Cost kv_gather_traffic(const TransformerJob& job, const ParallelSplit& s, const Topology& group) {
  if (s.tp <= job.model.kv_heads) return {};
  const double qkv = kElementBytes * dbl(s.micro_batch) * rank_seq(job, s) *
                     qkv_width(job.model);
  const double forwards = s.recompute == Recompute::kFull ? 2.0 : 1.0;
  Cost all = collective(Op::kAllgather, qkv, group).times(forwards);
  all += collective(Op::kReduceScatter, qkv, group);
  return all;
}

// The tensor-parallel traffic of one micro-batch through `layers` layers: the attention's and
// the MLP's, or with `mlp` false the attention's only (an MoE layer whose experts are apart:
// its dispatcher runs its own collectives, ep_traffic).
Cost tp_traffic(const TransformerJob& job, const ParallelSplit& s, const LayerTimes& l,
                double layers, bool mlp = true) {
  if (s.tp == 1) return {};
  const Topology group = group_topology(job.fabric, s.tp, 1);
  const double bytes = kElementBytes * dbl(s.micro_batch) * rank_seq(job, s) *
                       dbl(job.model.hidden);
  Cost one = kv_gather_traffic(job, s, group);
  const double async_calls = mlp ? 2.0 : 1.0;  // the backward's calls beside QKV (and FC1)
  if (s.sequence_parallel) {
    const Cost gather = collective(Op::kAllgather, bytes, group);
    const Cost scatter = collective(Op::kReduceScatter, bytes, group);
    // Userbuffers run inside one node (NVLink); a TP group across nodes is not overlapped.
    if (s.tp_overlap && s.tp <= job.fabric.ranks_per_node) {
      one += tp_overlapped(job, s, l, gather, scatter, mlp);
      return one.times(layers);
    }
    // Two in the forward (attention and MLP outputs), two in the backward, two more in a
    // recomputed forward (half of them without the MLP's); with the asynchronous backward its
    // reduce-scatters and the saved inputs' re-gathers run beside the GEMMs.
    const double calls = (s.recompute == Recompute::kFull ? 6.0 : 4.0) / (mlp ? 1.0 : 2.0);
    one += gather.times(calls);
    if (job.framework.tp_backward_async) {
      one += scatter.times(calls - async_calls);
      one += tp_backward_async(job, l, gather, scatter, mlp);
    } else {
      one += scatter.times(calls);
    }
    return one.times(layers);
  }
  const Cost allreduce = collective(Op::kAllreduce, bytes, group);
  const double calls = (s.recompute == Recompute::kFull ? 6.0 : 4.0) / (mlp ? 1.0 : 2.0);
  if (job.framework.tp_backward_async) {
    one += allreduce.times(calls - async_calls);
    one += tp_backward_async(job, l, Cost{}, allreduce, mlp);
  } else {
    one += allreduce.times(calls);
  }
  return one.times(layers);
}

// What of a transfer `c` stays exposed beside `hidden_s` of compute: what runs past it, with
// its latency share of c.
Cost exposed_beside(const Cost& c, double hidden_s) {
  const double exposed = std::max(0.0, c.total_s - hidden_s);
  return {exposed, c.total_s > 0 ? exposed * c.latency_s / c.total_s : 0.0, 0.0};
}

// One send of a ring step between neighbours of the ring `ring`: over the intra-node link when
// the ring stays inside one node; otherwise the pair that crosses nodes paces the step, on the
// share of the node's NICs its ring gets when every ring of the node crosses at once.
Cost ring_send(const TransformerJob& job, const Topology& ring, double bytes) {
  const Link link = ring.nodes <= 1 ? job.fabric.intra : ring.shared_inter(1);
  const MessageCost c = message_cost(link, bytes);
  return {c.total_s, c.latency_s, 0.0};
}

// The context-parallel exchange of one layer and micro-batch, exposed, as Transformer Engine
// runs it (transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py):
//   all-to-all (a2a, and the a2a part of a2a+p2p, on a ranks of stride t): Q, K and V before
//     the attention and its output O after it in the forward (AttnFuncWithCPAndQKVOA2A, or
//     flash_attn_a2a_communicate inside AttnFuncWithCPAndKVP2P); dO before and dQ, dK, dV
//     after it in the backward; none overlapped;
//   ring (p2p, and the p2p part of a2a+p2p, on r = cp / a ranks of stride t a): the forward's
//     r steps each run the attention of the KV block in hand while the block is sent on
//     (AttnFuncWithCPAndKVP2P.forward: r - 1 sends, the first issued before the first step's
//     kernel); the backward's r steps send KV, then KV and the dKV accumulated so far r - 2
//     times, then the last dKV, each beside one step's backward. A step exposes what its send
//     takes past the step's compute, 1/r of the core's (every step's share is equal).
// A recomputed forward (selective or full) exchanges again.
Cost cp_traffic(const TransformerJob& job, const ParallelSplit& s, const LayerTimes& l) {
  if (s.cp == 1) return {};
  const CpExchange x = cp_exchange(job, s);
  const std::int64_t a = x.a2a_ranks;
  const std::int64_t r = x.ring_ranks;
  Cost forward;
  Cost backward;
  if (a > 1) {
    const Topology group = group_topology(job.fabric, a, s.tp);
    const Cost q = collective(Op::kAlltoall, x.q_bytes, group);
    const Cost kv = collective(Op::kAlltoall, x.kv_bytes, group);
    forward += q.times(2.0);    // Q and O
    forward += kv.times(2.0);   // K and V
    backward += q.times(2.0);   // dO and dQ
    backward += kv.times(2.0);  // dK and dV
  }
  if (r > 1) {
    const Topology ring = group_topology(job.fabric, r, s.tp * a);
    const Cost one = ring_send(job, ring, x.block_bytes);
    const Cost two = ring_send(job, ring, 2.0 * x.block_bytes);
    const double forward_step = l.core_s / dbl(r);
    const double backward_step = l.core_backward_s / dbl(r);
    forward += exposed_beside(one, forward_step).times(dbl(r - 1));
    backward += exposed_beside(one, backward_step).times(2.0);
    backward += exposed_beside(two, backward_step).times(dbl(r - 2));
  }
  const double forwards = s.recompute == Recompute::kNone ? 1.0 : 2.0;
  Cost all = forward.times(forwards);
  all += backward;
  return all;
}

// The TP collectives of an MoE layer's shared experts, per micro-batch, besides the ones its
// routed experts' token dispatch runs where a dense MLP runs its own: Megatron-Core's
// SharedExpertMLP (moe/shared_experts.py, without moe_shared_expert_overlap) gathers its input
// across the TP group and reduce-scatters its output with sequence parallelism, and
// all-reduces its output without, in each forward, each backward and a recomputed forward.
Cost shared_expert_traffic(const TransformerJob& job, const ParallelSplit& s) {
  if (s.tp == 1 || !is_moe(job.model) || job.model.shared_experts == 0) return {};
  const Topology group = group_topology(job.fabric, s.tp, 1);
  const double bytes = kElementBytes * dbl(s.micro_batch) * rank_seq(job, s) *
                       dbl(job.model.hidden);
  const double passes = s.recompute == Recompute::kFull ? 3.0 : 2.0;
  if (!s.sequence_parallel) return collective(Op::kAllreduce, bytes, group).times(passes);
  Cost one = collective(Op::kAllgather, bytes, group);
  one += collective(Op::kReduceScatter, bytes, group);
  return one.times(passes);
}

// The token dispatch and combine of one MoE layer and micro-batch whose experts are apart, as
// Megatron-Core's all-to-all dispatcher runs them (moe/token_dispatcher.py,
// MoEAlltoAllTokenDispatcher): in the forward an all-to-all of the routed copies' hidden states
// over the EP group (token_dispatch), one of their routing probabilities, then an all-gather of
// both over the expert-TP group (dispatch_postprocess); after the experts a reduce-scatter over
// the expert-TP group (combine_preprocess) and an all-to-all back (token_combine). The backward
// runs each call's gradient, the same sizes (an all-to-all's is an all-to-all, an all-gather's
// a reduce-scatter and the reverse), and a fully recomputed forward runs the forward's again.
// Nothing is overlapped (Megatron-Core's --overlap-moe-expert-parallel-comm and DeepEP are not
// priced). The EP group is ep ranks of stride etp, the expert-TP group etp consecutive ranks
// (parallel_state.py's expert order tp-ep-dp-pp). `mean` prices the balanced load; `extra_s`
// is what the heaviest EP rank's load adds to it (each call waits for it), charged as
// variance.
struct DispatchCost {
  Cost mean;
  double extra_s = 0;
};
DispatchCost ep_traffic(const TransformerJob& job, const ParallelSplit& s) {
  if (!is_moe(job.model) || !experts_apart(s)) return {};
  const ExpertDispatch x = expert_dispatch(job, s);
  const std::int64_t et = expert_tp(s);
  const double h = dbl(job.model.hidden);
  const double passes = s.recompute == Recompute::kFull ? 3.0 : 2.0;
  // The calls of one pass with each rank's load `scale` times the mean: the all-to-alls' and
  // the expert-TP collectives' (whose load is the whole EP rank's).
  const auto pass = [&](double a2a_scale, double gather_scale) {
    Cost one;
    if (s.ep > 1) {
      const Topology group = group_topology(job.fabric, s.ep, et);
      one += collective(Op::kAlltoall, a2a_scale * x.alltoall_bytes, group).times(2.0);
      one += collective(Op::kAlltoall, a2a_scale * x.probs_bytes, group);
    }
    if (et > 1) {
      const Topology group = group_topology(job.fabric, et, 1);
      const double gathered = gather_scale * x.gather_bytes;
      one += collective(Op::kAllgather, gathered, group);
      one += collective(Op::kAllgather, gathered / h, group);
      one += collective(Op::kReduceScatter, gathered, group);
    }
    return one;
  };
  DispatchCost out;
  out.mean = pass(1.0, 1.0).times(passes);
  if (x.imbalance > 1.0 || x.alltoall_imbalance > 1.0) {
    out.extra_s = passes * (pass(x.alltoall_imbalance, x.imbalance).total_s - pass(1.0, 1.0).total_s);
  }
  return out;
}

// The pipeline's point-to-point sends of one micro-batch through one stage.
Cost pp_traffic(const TransformerJob& job, const ParallelSplit& s) {
  if (s.pp == 1) return {};
  const Topology& node = job.fabric;
  // The next stage is t c d ranks away.
  const bool same_node = s.tp * s.cp * s.dp < node.ranks_per_node;
  const Link link = same_node ? node.intra : node.shared_inter(node.ranks_per_node);
  double bytes = kElementBytes * dbl(s.micro_batch) * rank_seq(job, s) * dbl(job.model.hidden);
  if (s.scatter_pp_transfers) bytes /= dbl(s.tp);
  const MessageCost c = message_cost(link, bytes);
  return Cost{c.total_s, c.latency_s}.times(2.0 * dbl(s.interleave));
}

// What of `traffic` stays exposed when it runs in buckets of `bucket_bytes` (of `bytes` in
// all) under `hidden_s` of compute (step_model.h's overlap: the last bucket, or what runs past).
double exposed_under(double traffic_s, double bytes, double bucket_bytes, double hidden_s) {
  const double k = bucket_bytes > 0 && bucket_bytes < bytes ? std::ceil(bytes / bucket_bytes) : 1.0;
  return std::min(traffic_s, std::max(traffic_s - hidden_s * (k - 1.0) / k, traffic_s / k));
}

}  // namespace

std::string_view split_problem_name(SplitProblem problem) {
  switch (problem) {
    case SplitProblem::kNone: return "";
    case SplitProblem::kLayers: return "layers";
    case SplitProblem::kHeads: return "heads";
    case SplitProblem::kBatch: return "batch";
    case SplitProblem::kInterleave: return "interleave";
    case SplitProblem::kFabric: return "fabric";
    case SplitProblem::kSequence: return "sequence";
    case SplitProblem::kCpHeads: return "cp heads";
    case SplitProblem::kExperts: return "experts";
  }
  SCALEWALL_CHECK(false && "unknown SplitProblem");
  return "";
}

std::string_view split_problem_text(SplitProblem problem) {
  switch (problem) {
    case SplitProblem::kNone: return "it can run";
    case SplitProblem::kLayers: return "pp x interleave does not divide the layers";
    case SplitProblem::kHeads:
      return "tp does not divide the heads, or is neither a divisor nor a multiple of the KV heads";
    case SplitProblem::kBatch: return "dp x micro-batch does not divide the global batch";
    case SplitProblem::kInterleave:
      return "interleaving needs pp > 1 and the micro-batches a multiple of pp";
    case SplitProblem::kFabric: return "the GPUs (or the TP group) do not fill whole nodes";
    case SplitProblem::kSequence:
      return "2 x cp does not divide the sequence (Megatron's causal load balancing splits it "
             "into 2 cp chunks)";
    case SplitProblem::kCpHeads:
      return "the all-to-all's cp ranks do not divide the heads or the KV heads of a TP rank";
    case SplitProblem::kExperts:
      return "ep does not divide the experts, or etp x ep does not divide tp x cp x dp";
  }
  SCALEWALL_CHECK(false && "unknown SplitProblem");
  return "";
}

SplitProblem split_problem(const TransformerJob& job, const ParallelSplit& s) {
  const TransformerShape& m = job.model;
  const std::int64_t batch = job.training.global_batch;
  if (!layout_of(job, s).layout) return SplitProblem::kLayers;
  // Megatron-Core (core v0.16, transformer_config.py): tp divides the heads, and the KV heads
  // are a multiple or a divisor of tp (fewer KV heads than ranks: each held by tp/k ranks).
  if (m.heads % s.tp != 0 || (m.kv_heads % s.tp != 0 && s.tp % m.kv_heads != 0)) {
    return SplitProblem::kHeads;
  }
  // Megatron-LM (arguments.py): the sequence a multiple of 2 cp, two chunks per CP rank.
  if (s.cp > 1 && !product_divides(2, s.cp, m.seq)) return SplitProblem::kSequence;
  // Transformer Engine's all-to-all splits the heads a TP rank holds (Q's and K's, V's) over
  // its ranks (context_parallel.py: "requires num_heads % cp_size == 0").
  if (const std::int64_t a = cp_a2a_ranks(job, s);
      a > 1 && ((m.heads / s.tp) % a != 0 || kv_heads_held(m, s.tp) % a != 0)) {
    return SplitProblem::kCpHeads;
  }
  // Megatron-Core: the experts a multiple of ep (arguments.py), and the expert grid's etp x ep
  // a divisor of the ranks of a stage (parallel_state.py: "world_size is not divisible by
  // expert_tensor_model_pipeline_parallel size").
  if (is_moe(m) && (m.experts % s.ep != 0 ||
                    !product_divides(expert_tp(s), s.ep, s.tp * s.cp * s.dp))) {
    return SplitProblem::kExperts;
  }
  if (!product_divides(s.dp, s.micro_batch, batch)) return SplitProblem::kBatch;
  const std::int64_t micro_batches = batch / (s.dp * s.micro_batch);
  if (s.interleave > 1 && (s.pp == 1 || micro_batches % s.pp != 0)) {
    return SplitProblem::kInterleave;
  }
  const std::int64_t g = job.fabric.ranks_per_node;
  const std::int64_t n = s.gpus();
  if ((n > g && n % g != 0) || (s.tp > g && s.tp % g != 0)) return SplitProblem::kFabric;
  return SplitProblem::kNone;
}

namespace {

// "a x b = c" with the product in full, or "a x b is past 2^63" when it does not fit.
std::string product_words(std::int64_t a, std::int64_t b) {
  const std::optional<std::int64_t> product = try_mul(a, b);
  return product ? fmt::format("{} x {} = {}", a, b, *product)
                 : fmt::format("{} x {} is past 2^63", a, b);
}

// The numbers behind split_problem_text's words.
std::string problem_numbers(const TransformerJob& job, const ParallelSplit& s,
                            SplitProblem problem) {
  const TransformerShape& m = job.model;
  switch (problem) {
    case SplitProblem::kNone: return "";
    case SplitProblem::kLayers:
      return fmt::format("{}; {} layers", product_words(s.pp, s.interleave), m.layers);
    case SplitProblem::kHeads:
      return fmt::format("tp {}; {} heads, {} KV heads", s.tp, m.heads, m.kv_heads);
    case SplitProblem::kBatch:
      return fmt::format("{}; global batch {}", product_words(s.dp, s.micro_batch),
                         job.training.global_batch);
    case SplitProblem::kInterleave:
      return fmt::format("interleave {}, pp {}, {} micro-batches", s.interleave, s.pp,
                         job.training.global_batch / (s.dp * s.micro_batch));
    case SplitProblem::kFabric:
      return fmt::format("{} GPUs, tp {}; nodes of {}", s.gpus(), s.tp,
                         job.fabric.ranks_per_node);
    case SplitProblem::kSequence:
      return fmt::format("{}; seq {}", product_words(2, s.cp), m.seq);
    case SplitProblem::kCpHeads:
      return fmt::format("cp_comm {}, {} all-to-all ranks; {} heads and {} KV heads per TP rank "
                         "(tp {})",
                         cp_comm_name(s.cp_comm), cp_a2a_ranks(job, s), m.heads / s.tp,
                         kv_heads_held(m, s.tp), s.tp);
    case SplitProblem::kExperts:
      return fmt::format("ep {}, etp {}; {} experts, tp x cp x dp = {} x {} x {} = {}", s.ep,
                         expert_tp(s), m.experts, s.tp, s.cp, s.dp, s.tp * s.cp * s.dp);
  }
  SCALEWALL_CHECK(false && "unknown SplitProblem");
  return "";
}

}  // namespace

std::string split_problem_detail(const TransformerJob& job, const ParallelSplit& s,
                                 SplitProblem problem) {
  if (problem == SplitProblem::kNone) return std::string(split_problem_text(problem));
  if (problem == SplitProblem::kLayers) {
    StageLayoutResult layout = layout_of(job, s);
    if (!layout.layout) return std::move(layout.why);
  }
  return fmt::format("{} ({})", split_problem_text(problem), problem_numbers(job, s, problem));
}

std::int64_t split_gpus(std::int64_t tp, std::int64_t pp, std::int64_t dp, std::int64_t cp) {
  const std::optional<std::int64_t> tp_pp = try_mul(tp, pp);
  const std::optional<std::int64_t> tp_pp_dp = tp_pp ? try_mul(*tp_pp, dp) : std::nullopt;
  const std::optional<std::int64_t> all = tp_pp_dp ? try_mul(*tp_pp_dp, cp) : std::nullopt;
  if (all && *all <= kMaxSplitGpus) return *all;
  const std::string product =
      all ? fmt::format("{}", *all)
          : fmt::format("{:.4g}", static_cast<double>(tp) * static_cast<double>(pp) *
                                      static_cast<double>(dp) * static_cast<double>(cp));
  if (cp == 1) {
    throw InputError(fmt::format("tp x pp x dp = {} x {} x {} = {} GPUs is more than 2^40", tp,
                                 pp, dp, product));
  }
  throw InputError(fmt::format("tp x cp x pp x dp = {} x {} x {} x {} = {} GPUs is more than "
                               "2^40",
                               tp, cp, pp, dp, product));
}

std::string_view pipeline_stage_name(PipelineStage stage) {
  switch (stage) {
    case PipelineStage::kOnly: return "only stage";
    case PipelineStage::kFirst: return "first stage";
    case PipelineStage::kMiddle: return "middle stage";
    case PipelineStage::kLast: return "last stage";
  }
  SCALEWALL_CHECK(false && "unknown PipelineStage");
  return "";
}

std::string_view split_binding_name(SplitBinding binding) {
  switch (binding) {
    case SplitBinding::kCompute: return "compute";
    case SplitBinding::kSerial: return "serial";
    case SplitBinding::kLatency: return "latency";
    case SplitBinding::kBandwidth: return "bandwidth";
    case SplitBinding::kVariance: return "variance";
    case SplitBinding::kPipelineBubble: return "pipeline bubble";
    case SplitBinding::kMemory: return "memory";
  }
  SCALEWALL_CHECK(false && "unknown SplitBinding");
  return "";
}

namespace {

// Parameters one GPU of a stage holds: its layers and, on the first and the last stage, the
// larger of the two ends (the first stage's word embedding and position table, the last
// stage's output layer: the tied copy or the untied matrix); with one stage, every embedding;
// divided by t. end_parameters is the embeddings' part, before the division.
double end_parameters(const TransformerShape& m, std::int64_t pp) {
  return pp == 1 ? embedding_parameters(m)
                 : std::max(input_embedding_parameters(m), output_layer_parameters(m));
}
// The parameters of a stage's layers (all of them; the experts sharded over the TP ranks as
// the dense layers are, expert tensor parallelism = tp), before the division by t.
double layers_parameters(const TransformerShape& m, const LayerMix& mix) {
  return over_layers(mix, [&](LayerKind k) { return layer_parameters(m, k); });
}
// The routed experts' parameters one GPU of a stage holds with the experts apart: E/ep experts
// of each MoE layer, each split over etp, E n h f_e / (ep etp) per layer; 0 otherwise (they
// are among the layers' parameters over t).
double stage_expert_parameters(const TransformerJob& job, const ParallelSplit& s,
                               const LayerMix& mix) {
  if (!experts_apart(s) || mix.moe == 0.0) return 0.0;
  return mix.moe * routed_expert_parameters(job.model) / (dbl(s.ep) * dbl(expert_tp(s)));
}
// The parameters of a stage's layers on one GPU: over t, but the routed experts' over ep etp
// when they are apart.
double layer_parameters_per_gpu(const TransformerJob& job, const ParallelSplit& s,
                                const LayerMix& mix) {
  const double all = layers_parameters(job.model, mix);
  if (!experts_apart(s)) return all / dbl(s.tp);
  return (all - mix.moe * routed_expert_parameters(job.model)) / dbl(s.tp) +
         stage_expert_parameters(job, s, mix);
}
double stage_parameters(const TransformerJob& job, const ParallelSplit& s, const LayerMix& mix,
                        PipelineStage stage) {
  const TransformerShape& m = job.model;
  const double ends = stage == PipelineStage::kMiddle ? 0.0 : end_parameters(m, s.pp);
  if (!experts_apart(s)) return (layers_parameters(m, mix) + ends) / dbl(s.tp);
  return (layers_parameters(m, mix) - mix.moe * routed_expert_parameters(m) + ends) / dbl(s.tp) +
         stage_expert_parameters(job, s, mix);
}

// The gradient bucket of the data-parallel overlap, in bytes: the framework's (Megatron-Core:
// max(40,000,000, 1,000,000 x dp) parameters) or the job's (PyTorch DDP's 25 MB).
double dp_bucket_bytes(const TransformerJob& job, const ParallelSplit& s) {
  const FrameworkProfile& f = job.framework;
  if (f.dp_bucket_min_params <= 0) return job.dp_bucket_bytes;
  return kElementBytes * std::max(f.dp_bucket_min_params, f.dp_bucket_params_per_rank * dbl(s.dp));
}

// Bytes per parameter of a parameter all-gather: 1 with FP8 parameter gathers, else 2.
double gathered_bytes_per_parameter(const TransformerJob& job) {
  const bool fp8 = job.training.dtype == DType::kFp8 && job.framework.fp8_param_gather;
  return fp8 ? 1.0 : kElementBytes;
}

// One ZeRO-3 call in a pass: gather a unit's parameters, run its compute, reduce-scatter its
// gradients (backward only).
struct ShardCall {
  double gather_s = 0;
  double compute_s = 0;
  double scatter_s = 0;
};

// The time a pass over `calls` takes beyond its compute, when the gathers and reduce-scatters
// share one network queue in the order they are issued: a unit's gather is issued when the
// unit `depth` places before it starts computing (FSDP2's and DeepSpeed's prefetch; depth 0:
// on demand, when the one before it ends), its reduce-scatter when its backward ends, and a
// unit computes once the one before it is done and its parameters have arrived. With
// `sync` (FrameworkProfile::fetch_syncs_device) a unit's fetch waits for the device to drain,
// so it also waits for every call issued before it (a gradient reduction included), and its
// prefetches are issued after that wait.
double pass_exposed_s(const std::vector<ShardCall>& calls, int depth, bool sync) {
  const std::size_t n = calls.size();
  std::vector<double> arrived(n, 0.0);
  std::size_t issued = 0;
  double queue = 0;  // when the network is next free
  double end = 0;    // when the last compute ended
  double busy = 0;
  const auto issue = [&](double at) {
    queue = std::max(queue, at) + calls[issued].gather_s;
    arrived[issued++] = queue;
  };
  for (std::size_t j = 0; j < n; ++j) {
    if (issued == j) issue(end);
    const double start = std::max({end, arrived[j], sync ? queue : 0.0});
    while (issued < n && issued <= j + static_cast<std::size_t>(depth)) issue(start);
    end = start + calls[j].compute_s;
    busy += calls[j].compute_s;
    if (calls[j].scatter_s > 0) queue = std::max(queue, end) + calls[j].scatter_s;
  }
  return std::max(end, queue) - busy;
}

// A unit of one layer: its parameters (per GPU, / t) and its share of the layer's compute.
struct ShardUnitSize {
  double params = 0;
  double share = 0;
};

// The units of one layer of `kind`: the whole layer (a block), or its weight matrices, each
// with the share of the layer's compute it holds (the biases and layer norms stay resident:
// below DeepSpeed's stage3_param_persistence_threshold of 1e5 elements). A dense matrix
// computes in proportion to its parameters; an MoE layer's router is one unit, its experts'
// first and second matrices one unit each (the grouped GEMMs' weights), computing c k of
// their E experts' share, and its shared experts two more.
std::vector<ShardUnitSize> layer_units(const TransformerJob& job, const ParallelSplit& s,
                                       LayerKind kind) {
  const TransformerShape& m = job.model;
  const double t = dbl(s.tp);
  if (job.framework.shard_unit == ShardUnit::kBlock) return {{layer_parameters(m, kind) / t, 1.0}};
  const double h = dbl(m.hidden);
  const double up = mlp_matrices(m) - 1.0;
  std::vector<std::pair<double, double>> w;  // parameters, compute
  if (m.attention == AttentionKind::kMla) {
    const MlaProjections p = mla_projections(m);
    for (const double x : {p.q_down, p.q_up, p.kv_down, p.kv_up, p.proj}) {
      if (x > 0) w.emplace_back(x, x);
    }
  } else {
    w = {{h * qkv_width(m), h * qkv_width(m)}, {h * attention_width(m), h * attention_width(m)}};
  }
  if (kind == LayerKind::kDense) {
    // A gated MLP's first matrix is 2f wide (gate and up projections fused).
    const double f = dbl(m.ffn);
    w.emplace_back(up * h * f, up * h * f);
    w.emplace_back(h * f, h * f);
  } else {
    const double fe = expert_ffn(m);
    const double e = dbl(m.experts);
    const double used = routed_copies(m);
    w.emplace_back(h * e, h * e);
    w.emplace_back(e * up * h * fe, used * up * h * fe);
    w.emplace_back(e * h * fe, used * h * fe);
    if (m.shared_experts > 0) {
      const double fs = dbl(m.shared_experts) * fe;
      w.emplace_back(up * h * fs, up * h * fs);
      w.emplace_back(h * fs, h * fs);
    }
  }
  double all = 0.0;
  for (const auto& unit : w) all += unit.second;
  std::vector<ShardUnitSize> out;
  for (const auto& [params, compute] : w) out.push_back({params / t, compute / all});
  return out;
}

// One layer as the ZeRO-3 passes see it: its units and its compute per micro-batch.
struct LayerPass {
  std::vector<ShardUnitSize> units;
  double forward_s = 0, backward_s = 0, recompute_s = 0;
};

// The calls of one micro-batch's forward and backward passes through `simulated` layers like
// `layer`: the embeddings' unit first in the forward and last in the backward (they compute
// nothing but the lookup, and the logits of `logits_forward_s`), the layers' units between.
// The backward re-gathers every unit (reshard after forward); a fully recomputed forward
// gathers again when the framework's hooks run per call (DeepSpeed), else the backward's
// gather serves it (FSDP2's block unit).
struct ShardPasses {
  std::vector<ShardCall> forward, backward;
};
ShardPasses shard_passes(const TransformerJob& job, const ParallelSplit& s,
                         double logits_forward_s, const LayerPass& layer, std::size_t simulated,
                         const Topology& group, Cost& gather_cost) {
  const FrameworkProfile& f = job.framework;
  const double per_param = gathered_bytes_per_parameter(job);
  const double per_grad = kElementBytes;
  // The copy out of the gathered flat buffer reads and writes every gathered byte.
  const double copy_Bps = f.gather_copies_out && job.gpu.hbm_Bps > 0 ? job.gpu.hbm_Bps : 0.0;
  const auto gather = [&](double params) {
    Cost c = collective(Op::kAllgather, per_param * params, group);
    if (copy_Bps > 0) c.total_s += 2.0 * per_param * params / copy_Bps;
    return c;
  };
  const Op reduce = f.grad_allreduce ? Op::kAllreduce : Op::kReduceScatter;
  const auto scatter = [&](double params) {
    return collective(reduce, per_grad * params, group).total_s;
  };
  const double emb = end_parameters(job.model, s.pp) / dbl(s.tp);
  const double fwd = layer.forward_s;
  const double bwd = layer.backward_s;
  const double rc = layer.recompute_s;
  const bool regather = job.framework.regather_for_recompute && s.recompute == Recompute::kFull;
  std::vector<std::pair<ShardUnitSize, ShardCall>> unit;  // one layer's, priced once
  for (const ShardUnitSize& u : layer.units) {
    const Cost g = gather(u.params);
    gather_cost += g;
    unit.push_back({u, {g.total_s, 0.0, scatter(u.params)}});
  }
  ShardPasses p;
  const Cost g_emb = gather(emb);
  p.forward.push_back({g_emb.total_s, logits_forward_s, 0.0});
  for (std::size_t i = 0; i < simulated; ++i) {
    for (const auto& [u, c] : unit) p.forward.push_back({c.gather_s, fwd * u.share, 0.0});
  }
  for (std::size_t i = 0; i < simulated; ++i) {
    for (auto it = unit.rbegin(); it != unit.rend(); ++it) {
      const auto& [u, c] = *it;
      if (regather) p.backward.push_back({c.gather_s, rc * u.share, 0.0});
      const double compute = (regather ? 0.0 : rc * u.share) + bwd * u.share;
      p.backward.push_back({c.gather_s, compute, c.scatter_s});
    }
  }
  p.backward.push_back({g_emb.total_s, 2.0 * logits_forward_s, scatter(emb)});
  return p;
}

// The layer of `kind` of a stage whose work is `w`: a stage of one kind takes each layer's
// compute from the stage's work (the layers are alike), a stage of both kinds each kind's own.
LayerPass layer_pass(const TransformerJob& job, const ParallelSplit& s, const StageWork& w,
                     const KindTimes& times, const LayerMix& mix, LayerKind kind) {
  LayerPass p{layer_units(job, s, kind)};
  if (mix.dense == 0.0 || mix.moe == 0.0) {
    const double n = mix.all();
    p.forward_s = (w.forward_s - w.logits_forward_s) / n;
    p.backward_s = (w.backward_s - 2.0 * w.logits_forward_s) / n;
    p.recompute_s = w.recompute_s / n;
    return p;
  }
  const LayerTimes& l = times.of(kind);
  p.forward_s = l.forward_s();
  p.backward_s = l.backward_s();
  p.recompute_s = layer_recompute_s(job, s, l);
  return p;
}

// ZeRO-3 / FSDP, per micro-batch: each unit gathered before it runs in the forward, the
// recomputed forward and the backward, its gradients reduce-scattered after its backward,
// priced call by call on the data-parallel group (Rajbhandari et al. 2020, P_os+g+p; each
// framework's unit and prefetch depth: framework.h). Without dp_overlap nothing is prefetched
// and nothing hides. The hidden part takes the SMs NCCL's channels hold, as in dp_traffic.
// The layers of a kind are alike, so the queue settles after the first: the passes are
// simulated through two and three layers, and each layer past two adds what the third added
// (a stage of up to 2^40 layers costs six of them). A stage of both kinds starts as its more
// numerous kind does, and each layer of the other adds what a third layer of its own adds.
Cost zero3_traffic(const TransformerJob& job, const ParallelSplit& s, const StageWork& w,
                   const KindTimes& times, const LayerMix& mix, const Topology& group) {
  Cost gather_one;
  const int depth = s.dp_overlap ? job.framework.prefetch_units : 0;
  // The exposed time and the traffic of the passes through `n` layers of `kind`.
  const auto run = [&](LayerKind kind, std::size_t n) {
    gather_one = {};
    const LayerPass layer = layer_pass(job, s, w, times, mix, kind);
    const ShardPasses p = shard_passes(job, s, w.logits_forward_s, layer, n, group, gather_one);
    double traffic = 0;
    for (const auto* pass : {&p.forward, &p.backward}) {
      for (const ShardCall& c : *pass) traffic += c.gather_s + c.scatter_s;
    }
    const bool sync = job.framework.fetch_syncs_device;
    return std::pair{pass_exposed_s(p.forward, depth, sync) + pass_exposed_s(p.backward, depth, sync),
                     traffic};
  };
  const LayerKind major = mix.dense >= mix.moe ? LayerKind::kDense : LayerKind::kMoe;
  const LayerKind minor = major == LayerKind::kDense ? LayerKind::kMoe : LayerKind::kDense;
  const double others = major == LayerKind::kDense ? mix.moe : mix.dense;
  const double layers = mix.all() - others;
  double exposed = 0;
  double comm = 0;
  if (others > 0.0) {
    const auto [e2, c2] = run(minor, 2);
    const auto [e3, c3] = run(minor, 3);
    exposed = others * (e3 - e2);
    comm = others * (c3 - c2);
  }
  if (layers <= 3.0 && others == 0.0) {
    std::tie(exposed, comm) = run(major, static_cast<std::size_t>(layers));
  } else {
    const auto [e2, c2] = run(major, 2);
    const auto [e3, c3] = run(major, 3);
    exposed += e2 + (layers - 2.0) * (e3 - e2);
    comm += c2 + (layers - 2.0) * (c3 - c2);
  }
  exposed = std::min(comm, exposed);
  const double units = job.gpu.compute_units;
  const double channels = gather_one.total_s > 0 ? gather_one.unit_s / gather_one.total_s : 0.0;
  const double held = units > 0 ? (comm - exposed) * channels / units : 0.0;
  const double latency = gather_one.total_s > 0 ? gather_one.latency_s / gather_one.total_s : 0.0;
  return {exposed + held, exposed * latency, 0.0};
}

// The data-parallel (ZeRO) traffic of one step, exposed, on a stage of `params` parameters per
// GPU in the layers of `mix`, `experts` of them routed experts held apart (0 when they are
// not): the others over the data-parallel group with context parallelism, d c ranks of stride
// t; the experts' over the expert data-parallel group, edp ranks of stride etp ep
// (Megatron-Core keeps the expert parameters in their own buffers, reduced and sharded over
// the expert data-parallel group: distributed_data_parallel.py's expert_parallel_buffers),
// each in its own calls, the two sharing the compute they hide under.
Cost dp_traffic(const TransformerJob& job, const ParallelSplit& s, double params, double experts,
                const KindTimes& times, const LayerMix& mix, const StageWork& w,
                double micro_batches) {
  std::vector<std::pair<double, Topology>> parts;  // parameters per GPU, and their group
  if (dp_cp(s) > 1) parts.emplace_back(params - experts, group_topology(job.fabric, dp_cp(s), s.tp));
  if (experts > 0.0 && expert_dp(s) > 1) {
    parts.emplace_back(experts,
                       group_topology(job.fabric, expert_dp(s), expert_tp(s) * s.ep));
  }
  if (parts.empty()) return {};
  if (s.zero >= 3) {
    return zero3_traffic(job, s, w, times, mix, parts.front().second).times(micro_batches);
  }
  double reduced = 0.0;
  for (const auto& part : parts) reduced += part.first;
  const double bytes = kElementBytes * reduced;
  // One call of `op` on each part, `per_parameter` bytes per parameter.
  const auto calls = [&](Op op, double per_parameter) {
    Cost c;
    for (const auto& [n, group] : parts) c += collective(op, per_parameter * n, group);
    return c;
  };
  const double bucket = s.dp_overlap ? dp_bucket_bytes(job, s) : 0.0;
  // What stays exposed, plus what the hidden part takes from the compute it runs beside: its
  // kernels hold unit_s / total_s compute units (NCCL's channels) of job.gpu.compute_units
  // while they run, so the compute they overlap slows by that share (the GPU's LogP o).
  const double units = job.gpu.compute_units;
  const auto hide = [&](const Cost& c, double hidden_s) {
    if (!s.dp_overlap || c.total_s <= 0) return c;
    const double exposed = exposed_under(c.total_s, bytes, bucket, hidden_s);
    const double held = units > 0 ? (c.total_s - exposed) * c.unit_s / c.total_s / units : 0.0;
    return c.times((exposed + held) / c.total_s);
  };
  if (s.zero == 0) return hide(calls(Op::kAllreduce, kElementBytes), w.backward_s);
  const Cost gather = calls(Op::kAllgather, gathered_bytes_per_parameter(job));
  const Cost scatter = calls(Op::kReduceScatter, kElementBytes);
  // ZeRO-1 reduce-scatters once per step; ZeRO-2 keeps only its shard of the gradients, so it
  // reduce-scatters after every micro-batch.
  Cost out = hide(scatter, w.backward_s).times(s.zero == 2 ? micro_batches : 1.0);
  out += hide(gather, w.forward_s);
  return out;
}

// What FP8 changes in the bytes one layer keeps for its backward, per micro-batch (0 under
// bf16, fp16 and full recomputation, which keeps only the layer's 2-byte input). Transformer
// Engine's Linear and LayerNormLinear save the quantized copy of their input for the wgrad
// GEMM, 1 B per element (module/linear.py and layernorm_linear.py: the input is quantized in
// the forward and kept with its column-wise or, gathered under sequence parallelism with
// per-tensor scales, its row-wise data only), in place of the 2-byte input Korthikanti's table
// counts:
//   - the two layer norms' outputs (QKV's and FC1's inputs): -1 B per element each, s b h,
//     / t with sequence parallelism (saved before the all-gather);
//   - FC2's input, the activation function's output: -1 B per element, s b f / t (the fused
//     SwiGLU or GeLU keeps its own 2-byte input, which the table counts apart);
//   - the projection's input, the attention output: unfused, its FP8 copy is the only one
//     (-1 B per element); with fused attention the kernel keeps its 2-byte output O for its
//     own backward (attention/dot_product_attention/backends.py saves q, k, v and out), so
//     the FP8 copy comes on top (+1 B per element); s b q / t either way;
//   - MLA's up projections' inputs, r_q + r_kv, on the rank's tokens; an MoE layer's second
//     GEMMs' inputs, (S + c k) f_e / t in place of FC2's, and each routed copy's grouped-GEMM
//     input, c k h (-1 B per element each).
// MXFP8's block scales (1 B per 32 elements, constants.py MXFP8_BLOCK_SCALING_SIZE) are not
// counted: the dtype does not tell MXFP8 from per-tensor FP8.
double fp8_saved_inputs_delta(const TransformerJob& job, const ParallelSplit& s,
                              Recompute recompute, LayerKind kind) {
  if (job.training.dtype != DType::kFp8 || recompute == Recompute::kFull) return 0.0;
  const TransformerShape& m = job.model;
  const double t = dbl(s.tp);
  const double tokens = dbl(s.micro_batch) * rank_seq(job, s);
  const double h = dbl(m.hidden);
  const double shard = s.sequence_parallel ? t : 1.0;
  const double norm_outputs = -2.0 * tokens * h / shard;
  double fc2_input = -tokens * dbl(m.ffn) / t;
  const double kept = job.framework.attention == AttentionKernel::kFlash ? 1.0 : -1.0;
  const double attention_output = kept * tokens * attention_width(m) / t;
  double more = 0.0;
  if (m.attention == AttentionKind::kMla) {
    // The up projections' inputs, the low-rank norms' outputs.
    more -= tokens * dbl(m.q_lora_rank + m.kv_lora_rank) / shard;
  }
  if (kind == LayerKind::kMoe) {
    // The experts' second GEMMs' inputs (shared and routed), and each routed copy's input.
    const double fe = expert_ffn(m);
    fc2_input = -tokens * (dbl(m.shared_experts) + routed_copies(m)) * fe / t;
    more -= tokens * routed_copies(m) * h * routed_share(s);
  }
  return norm_outputs + fc2_input + attention_output + more;
}

// The activations of the layers of `mix` that one GPU holds for `in_flight` micro-batches (a
// fraction under interleaving).
double stage_activations(const TransformerJob& job, const ParallelSplit& s, const LayerMix& mix,
                         double in_flight) {
  const auto one = [&](LayerKind kind) {
    return layer_activations(job, dbl(s.micro_batch), s, s.recompute, kind) +
           fp8_saved_inputs_delta(job, s, s.recompute, kind);
  };
  return in_flight * mix.dense * one(LayerKind::kDense) +
         in_flight * mix.moe * one(LayerKind::kMoe);
}

// The micro-batches a stage holds in flight: rank r of p under 1F1B holds p - r until their
// backward; interleaved, Megatron-LM's warm-up of (p - r - 1) 2 + (v - 1) p model chunks of
// 1/v of its layers and the one running (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving), ((p - r - 1) 2 + (v - 1) p + 1)/v
// micro-batches' worth; at most the m there are. On the first stage that is p (1 + (p - 1)/(p
// v)) (Korthikanti et al. 2022, section 4.2.3), on the last ((v - 1) p + 1)/v.
double in_flight(const ParallelSplit& s, double rank, double micro_batches) {
  const double p = dbl(s.pp);
  const double v = dbl(s.interleave);
  if (rank == 0.0) {
    const double factor = s.interleave > 1 ? 1.0 + (p - 1.0) / (p * v) : 1.0;
    return std::min(p, micro_batches) * factor;
  }
  if (s.interleave == 1) return std::min(p - rank, micro_batches);
  return std::min(((p - rank - 1.0) * 2.0 + (v - 1.0) * p + 1.0) / v, micro_batches);
}

// The activations one GPU of `stage` holds over the layers of `layers`: the first stage's
// micro-batches in flight and the embedding's 1-byte dropout mask, stage 1's for a middle
// stage (the fullest of them), the last stage's and the logits and loss of the one running
// (4 s b V / t, Korthikanti 4.3). With one stage it is both: the first's and the logits.
double activations_of(const TransformerJob& job, const ParallelSplit& s, PipelineStage stage,
                      const LayerMix& layers, double micro_batches) {
  const TransformerShape& m = job.model;
  const double t = dbl(s.tp);
  const double b = dbl(s.micro_batch);
  const double sbh = rank_seq(job, s) * b * dbl(m.hidden);
  const double mask = s.sequence_parallel ? sbh / t : sbh;
  const double logits = 4.0 * rank_seq(job, s) * b * dbl(m.vocab) / t;
  const double first = (stage_activations(job, s, layers, 1.0) + mask) *
                       in_flight(s, 0.0, micro_batches);
  switch (stage) {
    case PipelineStage::kOnly: return first + logits;
    case PipelineStage::kFirst: return first;
    case PipelineStage::kMiddle:
      return stage_activations(job, s, layers, in_flight(s, 1.0, micro_batches));
    case PipelineStage::kLast:
      return stage_activations(job, s, layers, in_flight(s, dbl(s.pp) - 1.0, micro_batches)) +
             logits;
  }
  SCALEWALL_CHECK(false && "unknown PipelineStage");
  return 0.0;
}

// The memory one GPU of `stage` holds: `params` parameters in the layers of `layers`
// (`experts` of them routed experts held apart, sharded over the expert data-parallel group)
// and the activations of its micro-batches in flight.
SplitMemory memory_of(const TransformerJob& job, const ParallelSplit& s, PipelineStage stage,
                      double params, double experts, const LayerMix& layers,
                      double micro_batches) {
  const TransformerShape& m = job.model;
  const double d = dbl(dp_cp(s));  // ZeRO shards over the data-parallel group with CP
  const double de = experts > 0.0 ? dbl(expert_dp(s)) : d;
  const double dense = params - experts;
  const double t = dbl(s.tp);
  const double sbh = rank_seq(job, s) * dbl(s.micro_batch) * dbl(m.hidden);
  SplitMemory mem;
  mem.stage = stage;
  // FP8 keeps each layer weight's FP8 copy and its transpose (Transformer Engine's Float8Tensor
  // caches both for the micro-batches after the first: Hopper's FP8 GEMMs take one layout);
  // with FP8 parameter gathers they replace the 2-byte copy.
  const double layer_params = layer_parameters_per_gpu(job, s, layers);
  double weights = kElementBytes * params;
  if (job.training.dtype == DType::kFp8 && !job.framework.fp8_param_gather) {
    weights += kFp8WeightCopies * layer_params;
  }
  mem.weights_bytes = weights / (s.zero >= 3 ? d : 1.0);
  mem.gradients_bytes = kElementBytes * dense / (s.zero >= 2 ? d : 1.0) +
                        kElementBytes * experts / (s.zero >= 2 ? de : 1.0);
  mem.optimizer_bytes = kOptimizerStateBytes * dense / (s.zero >= 1 ? d : 1.0) +
                        kOptimizerStateBytes * experts / (s.zero >= 1 ? de : 1.0);
  mem.activations_bytes = activations_of(job, s, stage, layers, micro_batches);
  double buffers = 0.0;
  if (dp_cp(s) > 1) buffers += kBucketsInFlight * dp_bucket_bytes(job, s);
  // The experts' own gradient buckets, reduced over their group.
  if (experts > 0.0 && expert_dp(s) > 1) buffers += kBucketsInFlight * dp_bucket_bytes(job, s);
  if (s.pp > 1) buffers += 2.0 * kElementBytes * sbh;  // a send and a receive buffer
  // The ring's send and receive buffers, each of a KV block and, in the backward, its dKV.
  if (const CpExchange x = cp_exchange(job, s); x.ring_ranks > 1) {
    buffers += 2.0 * 2.0 * x.block_bytes;
  }
  if (s.zero >= 3) {
    // The unit running and the ones prefetched, gathered whole: the largest of them.
    double largest = end_parameters(m, s.pp) / t;
    for (const LayerKind kind : {LayerKind::kDense, LayerKind::kMoe}) {
      if ((kind == LayerKind::kDense ? layers.dense : layers.moe) == 0.0) continue;
      for (const ShardUnitSize& u : layer_units(job, s, kind)) {
        largest = std::max(largest, u.params);
      }
    }
    buffers += (1.0 + job.framework.prefetch_units) * kElementBytes * largest;
  }
  mem.buffers_bytes = buffers;
  return mem;
}

SplitBinding binding_of(const SplitStep& r) {
  if (!r.fits) return SplitBinding::kMemory;
  const double comm = r.tp_comm_s + r.cp_comm_s + r.ep_comm_s + r.pp_transfer_s + r.dp_comm_s;
  const std::array<std::pair<SplitBinding, double>, 5> lost = {{
      {SplitBinding::kSerial, r.serial_s},
      {SplitBinding::kLatency, r.comm_latency_s},
      {SplitBinding::kBandwidth, comm - r.comm_latency_s},
      {SplitBinding::kVariance, r.variance_s},
      {SplitBinding::kPipelineBubble, r.pp_bubble_s},
  }};
  SplitBinding best = SplitBinding::kCompute;
  double most = kSplitBindingShare * r.step_s;
  for (const auto& [which, seconds] : lost) {
    if (seconds >= most) {
      best = which;
      most = seconds;
    }
  }
  return best;
}

void require_valid_split(const ParallelSplit& s) {
  for (const auto& [what, value] :
       std::array<std::pair<std::string_view, std::int64_t>, 6>{{{"parallel.tp", s.tp},
                                                                 {"parallel.pp", s.pp},
                                                                 {"parallel.dp", s.dp},
                                                                 {"training.micro_batch", s.micro_batch},
                                                                 {"parallel.interleave", s.interleave},
                                                                 {"parallel.cp", s.cp}}}) {
    if (value < 1) throw InputError(fmt::format("{} {} must be at least 1", what, value));
  }
  if (s.zero < 0 || s.zero > 3) {
    throw InputError(fmt::format("parallel.zero {} must be 0, 1, 2 or 3", s.zero));
  }
  if (s.cp_a2a < 0 || (s.cp > 1 && s.cp_a2a > 0 && s.cp % s.cp_a2a != 0)) {
    throw InputError(fmt::format("parallel.cp_a2a {} must divide parallel.cp {}", s.cp_a2a,
                                 s.cp));
  }
  split_gpus(s.tp, s.pp, s.dp, s.cp);
}

// One kind of stage of the layout: its layers, its work and TP traffic per micro-batch, its
// parameters per GPU.
struct StagePrice {
  PipelineStage stage = PipelineStage::kOnly;
  double layers = 0;
  LayerMix mix;  // its layers by kind
  StageWork work;
  Cost tp;
  Cost cp;
  Cost ep;              // the experts' dispatch and combine, at the mean load
  double imbalance_s = 0;  // what the heaviest EP rank adds per micro-batch (variance)
  double per_mb_s = 0;  // compute + recompute + tp + cp + ep + pp transfer
  double params = 0;
  double expert_params = 0;  // of params, the routed experts' held apart (0 when not apart)
};

// What the heaviest EP rank adds to one MoE layer per micro-batch: its experts' extra GEMM
// time in the forward, the backward (twice the forward's) and a fully recomputed forward, and
// its dispatch's.
double layer_imbalance_s(const ParallelSplit& s, const LayerTimes& moe,
                         const DispatchCost& dispatch) {
  const double forwards = s.recompute == Recompute::kFull ? 2.0 : 1.0;
  return moe.imbalance_s * (forwards + 2.0) + dispatch.extra_s;
}

// The stage kinds of `layout`, last first: one stage, first and last, or first, middle and
// last.
std::vector<StagePrice> stage_prices(const TransformerJob& job, const ParallelSplit& s,
                                     const StageLayout& layout, const KindTimes& times,
                                     const Cost& pp) {
  std::vector<std::pair<PipelineStage, std::int64_t>> kinds;  // a stage and its rank
  if (s.pp == 1) {
    kinds = {{PipelineStage::kOnly, 0}};
  } else {
    kinds = {{PipelineStage::kLast, s.pp - 1}, {PipelineStage::kFirst, 0}};
    if (s.pp > 2) kinds.insert(kinds.begin() + 1, {PipelineStage::kMiddle, 1});
  }
  // The layers of a kind are alike: one layer's TP traffic, priced once, times each stage's
  // layers of that kind; the CP exchange is the attention's, the same in both kinds.
  const Cost tp_dense = tp_traffic(job, s, times.dense, 1.0);
  Cost tp_moe = tp_traffic(job, s, times.moe, 1.0, !experts_apart(s));
  tp_moe += shared_expert_traffic(job, s);
  const Cost cp_layer = cp_traffic(job, s, times.dense);
  const DispatchCost dispatch = ep_traffic(job, s);
  const double imbalance = layer_imbalance_s(s, times.moe, dispatch);
  std::vector<StagePrice> out;
  for (const auto& [stage, rank] : kinds) {
    StagePrice p;
    p.stage = stage;
    p.mix = stage_mix(job.model, layout, rank, s.interleave);
    p.layers = p.mix.all();
    const bool logits = stage == PipelineStage::kOnly || stage == PipelineStage::kLast;
    p.work = stage_work(job, s, times, p.mix, logits);
    p.tp = tp_dense.times(p.mix.dense);
    p.tp += tp_moe.times(p.mix.moe);
    p.cp = cp_layer.times(p.layers);
    p.ep = dispatch.mean.times(p.mix.moe);
    p.imbalance_s = imbalance * p.mix.moe;
    p.per_mb_s = p.work.compute_s + p.work.recompute_s + p.tp.total_s + p.cp.total_s +
                 p.ep.total_s + pp.total_s;
    p.params = stage_parameters(job, s, p.mix, stage);
    p.expert_params = stage_expert_parameters(job, s, p.mix);
    out.push_back(p);
  }
  return out;
}

// The first of `prices` with the largest `field` (ties: the earlier, the last stage first).
template <typename Field>
const StagePrice& largest(const std::vector<StagePrice>& prices, Field field) {
  const StagePrice* best = &prices.front();
  for (const StagePrice& p : prices) {
    if (p.*field > best->*field) best = &p;
  }
  return *best;
}

// The step's time parts: the slowest stage's time per micro-batch paces the pipeline (and its
// bubble); the stage holding the most parameters sets the data-parallel traffic and the
// optimizer's update, its gradients hidden under the slowest stage's backward; the memory is
// the fullest stage's.
void fill_times(const TransformerJob& job, const ParallelSplit& s, SplitStep& r) {
  const double m = dbl(r.micro_batches);
  const KindTimes times = kind_times(job, s);
  const Cost pp = pp_traffic(job, s);
  const std::vector<StagePrice> prices = stage_prices(job, s, r.layout, times, pp);
  const StagePrice& slow = largest(prices, &StagePrice::per_mb_s);
  const StagePrice& heavy = largest(prices, &StagePrice::params);
  const StageWork& w = slow.work;
  const Cost dp = dp_traffic(job, s, heavy.params, heavy.expert_params, times, heavy.mix, w, m);
  r.slowest = slow.stage;
  r.compute_s = m * w.compute_s;
  r.recompute_s = m * w.recompute_s;
  r.tp_comm_s = m * slow.tp.total_s;
  r.cp_comm_s = m * slow.cp.total_s;
  r.ep_comm_s = m * slow.ep.total_s;
  r.pp_transfer_s = m * pp.total_s;
  r.pp_bubble_s = (dbl(s.pp) - 1.0) / dbl(s.interleave) * slow.per_mb_s;
  r.dp_comm_s = dp.total_s;
  r.comm_latency_s =
      m * (slow.tp.latency_s + slow.cp.latency_s + slow.ep.latency_s + pp.latency_s) +
      dp.latency_s;
  // The optimizer updates the shard of the dense parameters over d c ranks and of the experts'
  // over edp (ZeRO >= 1).
  const double dense = heavy.params - heavy.expert_params;
  const double updated =
      dense / (s.zero >= 1 ? dbl(dp_cp(s)) : 1.0) +
      heavy.expert_params / (s.zero >= 1 && heavy.expert_params > 0.0 ? dbl(expert_dp(s)) : 1.0);
  r.optimizer_s = kAdamTrafficBytes * updated / job.gpu.hbm_Bps;
  if (job.training.dtype == DType::kFp8) {
    // The weights are cast to FP8 once per step and cached for the micro-batches after the
    // first (Transformer Engine's is_first_microbatch), at HBM rate.
    const double layer_params = layer_parameters_per_gpu(job, s, heavy.mix);
    r.optimizer_s += kFp8CastBytes * layer_params / job.gpu.hbm_Bps;
  }
  if (job.sigma > 0 && s.gpus() > 1) {
    r.variance_s = job.sigma * expected_max_standard_normal(s.gpus()) * (r.compute_s + r.recompute_s);
  }
  // Every dispatch waits for the heaviest EP rank: what it adds past the mean is variance.
  r.variance_s += m * slow.imbalance_s;
  r.serial_s = job.serial_s;
  r.step_s = r.compute_s + r.recompute_s + r.tp_comm_s + r.cp_comm_s + r.ep_comm_s +
             r.pp_bubble_s + r.pp_transfer_s + r.dp_comm_s + r.optimizer_s + r.variance_s +
             r.serial_s;
  // The fullest stage; on a tie the first (then the middle) stage is named.
  for (auto it = prices.rbegin(); it != prices.rend(); ++it) {
    const SplitMemory mem =
        memory_of(job, s, it->stage, it->params, it->expert_params, it->mix, m);
    if (it == prices.rbegin() || mem.total() > r.memory.total()) r.memory = mem;
  }
}

}  // namespace

ParallelSplit SplitConstraints::defaults(const FrameworkProfile& framework) const {
  ParallelSplit s;
  s.tp = tp.value_or(1);
  s.pp = pp.value_or(1);
  s.dp = dp.value_or(1);
  s.micro_batch = micro_batch.value_or(1);
  s.interleave = interleave.value_or(1);
  s.sequence_parallel = sequence_parallel.value_or(framework.sequence_parallel && s.tp > 1);
  s.recompute = recompute.value_or(framework.recompute);
  s.cp = cp.value_or(1);
  s.cp_comm = cp_comm.value_or(framework.cp_comm);
  s.cp_a2a = cp_a2a.value_or(0);
  s.ep = ep.value_or(1);
  s.etp = etp.value_or(0);
  s.zero = zero.value_or(s.dp * s.cp > 1 ? framework.zero : 0);
  s.dp_overlap = dp_overlap.value_or(framework.dp_overlap);
  s.tp_overlap = tp_overlap.value_or(framework.tp_overlap);
  s.first_stage_layers = first_stage_layers.value_or(0);
  s.last_stage_layers = last_stage_layers.value_or(0);
  s.embedding_in_split = embedding_in_split.value_or(false);
  s.loss_in_split = loss_in_split.value_or(false);
  if (!zero && s.zero >= 2 && s.pp > 1 && !framework.zero3_with_pp) s.zero = 1;
  return s;
}

std::optional<FrameworkRefusal> framework_refusal(const FrameworkProfile& framework,
                                                  const SplitConstraints& c) {
  FrameworkChoices f;
  f.sequence_parallel = c.sequence_parallel;
  f.recompute = c.recompute;
  f.zero = c.zero;
  f.dp_overlap = c.dp_overlap;
  f.tp_overlap = c.tp_overlap;
  f.pp = c.pp;
  f.interleave = c.interleave;
  f.first_stage_layers = c.first_stage_layers;
  f.last_stage_layers = c.last_stage_layers;
  f.embedding_in_split = c.embedding_in_split;
  f.loss_in_split = c.loss_in_split;
  f.cp = c.cp;
  f.cp_comm = c.cp_comm;
  f.cp_a2a = c.cp_a2a;
  f.tp = c.tp;
  f.ep = c.ep;
  f.etp = c.etp;
  return framework_refusal(framework, f);
}

std::int64_t cp_a2a_ranks(const TransformerJob& job, const ParallelSplit& s) {
  if (s.cp == 1) return 1;
  switch (s.cp_comm) {
    case CpComm::kP2p: return 1;
    case CpComm::kA2a: return s.cp;
    case CpComm::kA2aP2p: break;
  }
  if (s.cp_a2a > 0) return s.cp_a2a;
  // Megatron-Core asks for hierarchical_context_parallel_sizes with a2a+p2p and has no
  // default: the default here keeps the all-to-all on NVLink.
  const TransformerShape& m = job.model;
  const std::int64_t heads = m.heads / s.tp;
  const std::int64_t kv = kv_heads_held(m, s.tp);
  const std::int64_t most = std::min(s.cp, std::max<std::int64_t>(1, job.fabric.ranks_per_node / s.tp));
  std::int64_t best = 1;
  for (std::int64_t a = 2; a <= most; ++a) {
    if (s.cp % a == 0 && heads % a == 0 && kv % a == 0) best = a;
  }
  return best;
}

CpExchange cp_exchange(const TransformerJob& job, const ParallelSplit& s) {
  const TransformerShape& m = job.model;
  CpExchange x;
  x.a2a_ranks = cp_a2a_ranks(job, s);
  x.ring_ranks = s.cp / x.a2a_ranks;
  x.kernel_seq = dbl(m.seq) / dbl(x.ring_ranks);
  if (s.cp == 1) return x;
  const double b = dbl(s.micro_batch);
  const double head_dim = dbl(m.hidden / m.heads);
  const double kv_heads = dbl(kv_heads_held(m, s.tp));
  const double one_head = kElementBytes * b * rank_seq(job, s) * head_dim;
  x.q_bytes = one_head * dbl(m.heads / s.tp);
  x.kv_bytes = one_head * kv_heads;
  x.block_bytes = 2.0 * b * x.kernel_seq * (kv_heads / dbl(x.a2a_ranks)) * head_dim * kElementBytes;
  return x;
}

std::int64_t expert_tp(const ParallelSplit& s) { return s.etp > 0 ? s.etp : s.tp; }

bool experts_apart(const ParallelSplit& s) { return s.ep > 1 || expert_tp(s) != s.tp; }

std::int64_t expert_dp(const ParallelSplit& s) {
  return s.tp * s.cp * s.dp / (expert_tp(s) * s.ep);
}

namespace {

// E[max of n standard normals] (straggler.h), kept for the powers of two the search tries:
// the quadrature runs once per power rather than once per split.
double expected_max_normal(std::int64_t n) {
  constexpr int kPowers = 41;  // 2^0 .. 2^40
  static const std::array<double, kPowers> kByPower = [] {
    std::array<double, kPowers> out{};
    for (int i = 0; i < kPowers; ++i) out[static_cast<std::size_t>(i)] =
        expected_max_standard_normal(std::int64_t{1} << i);
    return out;
  }();
  if ((n & (n - 1)) == 0) {
    int power = 0;
    while ((std::int64_t{1} << power) < n) ++power;
    return kByPower[static_cast<std::size_t>(power)];
  }
  return expected_max_standard_normal(n);
}

void require_routing(std::int64_t experts, std::int64_t topk, std::int64_t ep) {
  if (experts < 1 || topk < 1 || topk > experts) {
    throw InputError(fmt::format("topk {} must be between 1 and the experts ({})", topk, experts));
  }
  if (ep < 1 || experts % ep != 0) {
    throw InputError(fmt::format("ep {} must divide the experts ({})", ep, experts));
  }
}

// The heaviest EP rank's load over the mean of `tokens` tokens routed in `job`'s layers.
double imbalance_of(const TransformerJob& job, const ParallelSplit& s, double tokens) {
  const TransformerShape& m = job.model;
  if (s.ep == 1 || m.capacity_factor > 0.0) return 1.0;
  if (job.moe_imbalance > 0.0) return std::min(job.moe_imbalance, dbl(s.ep));
  return expected_moe_imbalance(m.experts, m.topk, s.ep, tokens);
}

}  // namespace

double expected_moe_imbalance(std::int64_t experts, std::int64_t topk, std::int64_t ep,
                              double tokens) {
  require_routing(experts, topk, ep);
  if (!(tokens > 0.0)) throw InputError(fmt::format("tokens {} must be above 0", tokens));
  if (ep == 1) return 1.0;
  const double e = dbl(experts);
  const double k = dbl(topk);
  return 1.0 + expected_max_normal(ep) * std::sqrt(dbl(ep) * (e - k) / ((e - 1.0) * tokens * k));
}

double simulated_moe_imbalance(std::int64_t experts, std::int64_t topk, std::int64_t ep,
                               std::int64_t tokens, std::int64_t trials, std::uint64_t seed) {
  require_routing(experts, topk, ep);
  if (tokens < 1 || trials < 1) {
    throw InputError(fmt::format("tokens {} and trials {} must be at least 1", tokens, trials));
  }
  std::mt19937_64 generator(seed);
  std::vector<std::int64_t> order(static_cast<std::size_t>(experts));
  for (std::int64_t i = 0; i < experts; ++i) order[static_cast<std::size_t>(i)] = i;
  std::vector<std::int64_t> load(static_cast<std::size_t>(ep));
  const std::int64_t per_rank = experts / ep;
  const double mean = dbl(tokens) * dbl(topk) / dbl(ep);
  double sum = 0.0;
  for (std::int64_t trial = 0; trial < trials; ++trial) {
    std::fill(load.begin(), load.end(), 0);
    for (std::int64_t token = 0; token < tokens; ++token) {
      // topk distinct experts: the first topk of a partial Fisher-Yates shuffle (the order
      // left by the previous token is as good a start as any).
      for (std::int64_t j = 0; j < topk; ++j) {
        const auto left = static_cast<std::uint64_t>(experts - j);
        const auto pick = j + static_cast<std::int64_t>(generator() % left);
        std::swap(order[static_cast<std::size_t>(j)], order[static_cast<std::size_t>(pick)]);
        ++load[static_cast<std::size_t>(order[static_cast<std::size_t>(j)] / per_rank)];
      }
    }
    sum += dbl(*std::max_element(load.begin(), load.end())) / mean;
  }
  return sum / dbl(trials);
}

ExpertDispatch expert_dispatch(const TransformerJob& job, const ParallelSplit& s) {
  const TransformerShape& m = job.model;
  ExpertDispatch x;
  const double tokens = dbl(s.micro_batch) * rank_seq(job, s);  // b s / cp, the TP group's
  x.local_tokens = tokens / dbl(s.tp);
  const std::int64_t group = expert_tp(s) * s.ep;
  x.group_tokens = group == s.tp ? tokens : x.local_tokens * dbl(group);
  x.tokens_per_expert = tokens_per_expert(m, x.group_tokens);
  const double copies = routed_copies(m) * x.local_tokens;
  x.alltoall_bytes = kElementBytes * copies * dbl(m.hidden);
  x.probs_bytes = kElementBytes * copies;
  x.gather_bytes = dbl(expert_tp(s)) * x.alltoall_bytes;
  x.imbalance = imbalance_of(job, s, x.group_tokens);
  x.alltoall_imbalance = imbalance_of(job, s, x.local_tokens * dbl(s.ep));
  return x;
}

std::optional<std::string> expert_refusal(const TransformerJob& job, const ParallelSplit& s) {
  const TransformerShape& m = job.model;
  if (s.ep < 1) return fmt::format("parallel.ep {} must be at least 1", s.ep);
  if (s.etp < 0) return fmt::format("parallel.etp {} must be at least 1", s.etp);
  if (!is_moe(m)) {
    if (s.ep > 1) return fmt::format("parallel.ep {} needs a mixture of experts (model.experts is 0)", s.ep);
    if (experts_apart(s)) {
      return fmt::format("parallel.etp {} needs a mixture of experts (model.experts is 0)", s.etp);
    }
    return std::nullopt;
  }
  FrameworkChoices choices;
  choices.tp = s.tp;
  choices.ep = s.ep;
  if (s.etp > 0) choices.etp = s.etp;
  if (const auto no = framework_refusal(job.framework, choices)) {
    return fmt::format("parallel.{} {}: {}", no->key, no->key == "ep" ? s.ep : s.etp, no->reason);
  }
  if (!experts_apart(s)) return std::nullopt;
  if (s.zero >= 3) {
    return fmt::format("parallel.zero 3 with parallel.ep {} and etp {}: ZeRO-3 (Megatron-FSDP) "
                       "of expert-parallel experts is not priced (zero 0 to 2)",
                       s.ep, expert_tp(s));
  }
  if (s.tp > 1 && !s.sequence_parallel) {
    return fmt::format("parallel.sequence_parallel off with parallel.tp {} and the experts apart "
                       "(ep {}, etp {}): Megatron-Core's MoE layer refuses tensor parallelism "
                       "without sequence parallelism in training (moe_layer.py)",
                       s.tp, s.ep, expert_tp(s));
  }
  return std::nullopt;
}

SplitStep evaluate_split(const TransformerJob& job, const ParallelSplit& split) {
  require_valid(job.model);
  require_valid_split(split);
  if (const std::optional<std::string> no = expert_refusal(job, split)) throw InputError(*no);
  SplitStep r;
  r.split = split;
  r.problem = split_problem(job, split);
  if (r.problem != SplitProblem::kNone) return r;
  r.micro_batches = job.training.global_batch / (split.dp * split.micro_batch);
  r.layout = *layout_of(job, split).layout;
  fill_times(job, split, r);
  add_slow_node(job, r);
  r.memory_limit_bytes = (1.0 - job.memory_reserve) * job.gpu.hbm_bytes;
  const double total = r.memory.total();
  r.fits = total <= r.memory_limit_bytes;
  r.lacks_bytes = r.fits ? 0.0 : total - r.memory_limit_bytes;
  const StepFlops f = step_flops(job.model, dbl(job.training.global_batch), split.recompute);
  const double n = dbl(split.gpus());
  r.executed_flops = f.executed();
  r.model_flops = f.model();
  if (job.framework.attention == AttentionKernel::kFlash) {
    // A causal flash kernel computes half of the s x s scores, and the count says so, as
    // Megatron-LM's num_floating_point_operations does (megatron/training/training.py: the
    // core-attention term "/ 2  # causal mask"): half of the core's forward, backward and
    // recomputed forward leave both counts.
    const double core = dbl(job.model.layers) *
                        attention_core_flops(job.model, dbl(job.training.global_batch));
    const double recomputed = split.recompute == Recompute::kNone ? 0.0 : 1.0;
    r.executed_flops -= (1.0 - kCausalShare) * core * (3.0 + recomputed);
    r.model_flops -= (1.0 - kCausalShare) * core * 3.0;
  }
  r.tflops_per_gpu = r.executed_flops / (r.step_s * n) / 1e12;
  r.mfu = r.model_flops / (r.step_s * n * job.gpu.peak_flops_per_s(job.training.dtype));
  r.tokens_per_s = dbl(job.training.global_batch) * dbl(job.model.seq) / r.step_s;
  r.binding = binding_of(r);
  return r;
}

}  // namespace scalewall
