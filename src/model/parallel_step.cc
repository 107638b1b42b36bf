// Implementation of scalewall/model/parallel_step.h.
#include "scalewall/model/parallel_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "scalewall/base/checked_count.h"
#include "scalewall/base/error.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/link.h"
#include "scalewall/model/nccl.h"
#include "scalewall/model/straggler.h"

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

// Whether x y divides n (n >= 1): a product past the largest 64-bit count is larger than n.
bool product_divides(std::int64_t x, std::int64_t y, std::int64_t n) {
  const std::optional<std::int64_t> product = try_mul(x, y);
  return product && n % *product == 0;
}

// Per micro-batch on one stage: the time of `layers` layers' work and, on the last stage,
// the logits.
struct StageWork {
  double compute_s = 0;    // forward + backward
  double recompute_s = 0;
  double backward_s = 0;   // the backward part of compute_s (what hides gradient traffic)
  double forward_s = 0;
};

// Forward time of one layer's GEMMs at tensor-parallel degree t, on the matmul curve.
double layer_gemm_forward_s(const TransformerJob& job, double b, double t, double peak) {
  const TransformerShape& m = job.model;
  const double h = dbl(m.hidden);
  const double tokens = b * dbl(m.seq);
  const MatmulCurve& c = job.gpu.matmul;
  const double core = attention_core_flops(m, b) / 2.0 / t;  // QK^T, then AV: each half
  // The MLP's first GEMM is (n - 1) f wide: Megatron-Core fuses a gated MLP's gate and up
  // projections into one linear_fc1 of 2f columns; the down projection is h x f either way.
  const double fc2 = 2.0 * tokens * h * dbl(m.ffn) / t;
  return c.gemm_time_s(2.0 * tokens * h * qkv_width(m) / t, peak) +
         2.0 * c.gemm_time_s(core, peak) + c.gemm_time_s(2.0 * tokens * h * h / t, peak) +
         c.gemm_time_s((mlp_matrices(m) - 1.0) * fc2, peak) + c.gemm_time_s(fc2, peak);
}

StageWork stage_work(const TransformerJob& job, const ParallelSplit& s, double layers,
                     bool last_stage) {
  const TransformerShape& m = job.model;
  const double b = dbl(s.micro_batch);
  const double t = dbl(s.tp);
  const double peak = job.gpu.peak_flops_per_s(job.training.dtype);
  const double hbm = job.gpu.hbm_Bps;
  const double gemm_f = layer_gemm_forward_s(job, b, t, peak);
  // The rotary embedding's own traffic (reading and writing Q and K) comes on top.
  const double elem_bytes =
      kElementwiseTrafficFactor *
          layer_activation_bytes(m, b, s.tp, s.sequence_parallel, Recompute::kNone) +
      rotary_traffic_bytes(m, b, s.tp);
  const double elem_f = elem_bytes / hbm;
  double forward = layers * (gemm_f + elem_f);
  if (last_stage) {
    const double logits = logits_forward_flops(m, b) / t;
    // The loss reads and writes the fp32 logits (4 B each way per element).
    const double loss_bytes = 8.0 * b * dbl(m.seq) * dbl(m.vocab) / t;
    forward += job.gpu.matmul.gemm_time_s(logits, peak) + loss_bytes / hbm;
  }
  StageWork w;
  w.forward_s = forward;
  w.backward_s = 2.0 * forward;
  w.compute_s = forward + w.backward_s;
  switch (s.recompute) {
    case Recompute::kNone: break;
    case Recompute::kSelective: {
      const double core = attention_core_flops(m, b) / 2.0 / t;
      const double scores_bytes = kElementwiseTrafficFactor * 5.0 * dbl(m.heads) * dbl(m.seq) *
                                  dbl(m.seq) * b / t;
      w.recompute_s = layers * (2.0 * job.gpu.matmul.gemm_time_s(core, peak) + scores_bytes / hbm);
      break;
    }
    case Recompute::kFull: w.recompute_s = layers * (gemm_f + elem_f); break;
  }
  return w;
}

// The tensor-parallel traffic of one micro-batch through `layers` layers.
Cost tp_traffic(const TransformerJob& job, const ParallelSplit& s, double layers) {
  if (s.tp == 1) return {};
  const Topology group = group_topology(job.fabric, s.tp, 1);
  const double bytes = kElementBytes * dbl(s.micro_batch) * dbl(job.model.seq) *
                       dbl(job.model.hidden);
  // Two in the forward (attention and MLP outputs), two in the backward, two more in a
  // recomputed forward.
  const double calls = s.recompute == Recompute::kFull ? 6.0 : 4.0;
  Cost one;
  if (s.sequence_parallel) {
    one += collective(Op::kReduceScatter, bytes, group);
    one += collective(Op::kAllgather, bytes, group);
  } else {
    one = collective(Op::kAllreduce, bytes, group);
  }
  Cost all = one.times(calls * layers);
  if (s.tp > job.model.kv_heads) {
    // Fewer KV heads than TP ranks: Megatron-Core (core v0.16, attention.py) all-gathers the
    // QKV output, b s (h + 2 k d) x 2 B, in each forward and reduce-scatters its gradient in
    // the backward, so that each rank takes its query heads and their one KV head whole.
    const double qkv = kElementBytes * dbl(s.micro_batch) * dbl(job.model.seq) *
                       qkv_width(job.model);
    const double forwards = s.recompute == Recompute::kFull ? 2.0 : 1.0;
    all += collective(Op::kAllgather, qkv, group).times(forwards * layers);
    all += collective(Op::kReduceScatter, qkv, group).times(layers);
  }
  return all;
}

// The pipeline's point-to-point sends of one micro-batch through one stage.
Cost pp_traffic(const TransformerJob& job, const ParallelSplit& s) {
  if (s.pp == 1) return {};
  const Topology& node = job.fabric;
  const bool same_node = s.tp * s.dp < node.ranks_per_node;
  const Link link = same_node ? node.intra : node.shared_inter(node.ranks_per_node);
  double bytes = kElementBytes * dbl(s.micro_batch) * dbl(job.model.seq) * dbl(job.model.hidden);
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
  }
  SCALEWALL_CHECK(false && "unknown SplitProblem");
  return "";
}

SplitProblem split_problem(const TransformerJob& job, const ParallelSplit& s) {
  const TransformerShape& m = job.model;
  const std::int64_t batch = job.training.global_batch;
  if (!product_divides(s.pp, s.interleave, m.layers)) return SplitProblem::kLayers;
  // Megatron-Core (core v0.16, transformer_config.py): tp divides the heads, and the KV heads
  // are a multiple or a divisor of tp (fewer KV heads than ranks: each held by tp/k ranks).
  if (m.heads % s.tp != 0 || (m.kv_heads % s.tp != 0 && s.tp % m.kv_heads != 0)) {
    return SplitProblem::kHeads;
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
  }
  SCALEWALL_CHECK(false && "unknown SplitProblem");
  return "";
}

}  // namespace

std::string split_problem_detail(const TransformerJob& job, const ParallelSplit& s,
                                 SplitProblem problem) {
  if (problem == SplitProblem::kNone) return std::string(split_problem_text(problem));
  return fmt::format("{} ({})", split_problem_text(problem), problem_numbers(job, s, problem));
}

std::int64_t split_gpus(std::int64_t tp, std::int64_t pp, std::int64_t dp) {
  const std::optional<std::int64_t> tp_pp = try_mul(tp, pp);
  const std::optional<std::int64_t> all = tp_pp ? try_mul(*tp_pp, dp) : std::nullopt;
  if (all && *all <= kMaxSplitGpus) return *all;
  const std::string product =
      all ? fmt::format("{}", *all)
          : fmt::format("{:.4g}", static_cast<double>(tp) * static_cast<double>(pp) *
                                      static_cast<double>(dp));
  throw InputError(fmt::format("tp x pp x dp = {} x {} x {} = {} GPUs is more than 2^40", tp,
                               pp, dp, product));
}

std::string_view pipeline_stage_name(PipelineStage stage) {
  switch (stage) {
    case PipelineStage::kOnly: return "only stage";
    case PipelineStage::kFirst: return "first stage";
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

// Parameters one GPU of the first or the last stage holds, the larger: its layers and, with
// one stage, every embedding; with several, the first stage's word embedding (and position
// table) or the last stage's output layer (the tied copy or the untied matrix), divided by t.
double stage_parameters(const TransformerJob& job, const ParallelSplit& s) {
  const TransformerShape& m = job.model;
  const double layers = dbl(m.layers) / dbl(s.pp);
  const double ends = s.pp == 1 ? embedding_parameters(m)
                                : std::max(input_embedding_parameters(m),
                                           output_layer_parameters(m));
  return (layers * layer_parameters(m) + ends) / dbl(s.tp);
}

// The data-parallel (ZeRO) traffic of one step, exposed, on a stage of `params` parameters per
// GPU.
Cost dp_traffic(const TransformerJob& job, const ParallelSplit& s, double params,
                const StageWork& w, double micro_batches) {
  if (s.dp == 1) return {};
  const Topology group = group_topology(job.fabric, s.dp, s.tp);
  const double bytes = kElementBytes * params;
  const double bucket = s.dp_overlap ? job.dp_bucket_bytes : 0.0;
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
  Cost out;
  if (s.zero == 0) return hide(collective(Op::kAllreduce, bytes, group), w.backward_s);
  const Cost gather = collective(Op::kAllgather, bytes, group);
  const Cost scatter = collective(Op::kReduceScatter, bytes, group);
  switch (s.zero) {
    case 1:
      out = hide(scatter, w.backward_s);
      out += hide(gather, w.forward_s);
      break;
    case 2:
      out = hide(scatter, w.backward_s).times(micro_batches);
      out += hide(gather, w.forward_s);
      break;
    default: {
      // Every micro-batch gathers the weights for its forward and its backward (and its
      // recomputed forward) and reduce-scatters its gradients.
      const double gathers = s.recompute == Recompute::kFull ? 3.0 : 2.0;
      Cost per_mb = gather.times(gathers);
      per_mb += scatter;
      out = hide(per_mb, w.compute_s + w.recompute_s).times(micro_batches);
      break;
    }
  }
  return out;
}

// The activations of `layers` layers that one GPU holds for `in_flight` micro-batches (a
// fraction under interleaving).
double stage_activations(const TransformerJob& job, const ParallelSplit& s, double layers,
                         double in_flight) {
  return in_flight * layers *
         layer_activation_bytes(job.model, dbl(s.micro_batch), s.tp, s.sequence_parallel,
                                s.recompute);
}

// The activations of the first and the last stage. The first holds min(p, m) micro-batches
// until their backward, and interleaving holds 1 + (p - 1)/(p v) times more (Korthikanti et
// al. 2022, section 4.2.3), plus the embedding's 1-byte dropout mask. The last stage runs
// each micro-batch's backward right after its forward: it holds one (interleaved: its
// warm-up of (v - 1) p model chunks of l/(p v) layers, and the one running, so ((v - 1) p +
// 1)/v micro-batches' worth) and the logits and loss of the one running (4 s b V / t,
// Korthikanti 4.3). With one stage it is both: the first's activations and the logits.
std::pair<double, double> first_and_last_activations(const TransformerJob& job,
                                                     const ParallelSplit& s,
                                                     double micro_batches) {
  const TransformerShape& m = job.model;
  const double t = dbl(s.tp);
  const double p = dbl(s.pp);
  const double v = dbl(s.interleave);
  const double b = dbl(s.micro_batch);
  const double layers = dbl(m.layers) / p;
  const double sbh = dbl(m.seq) * b * dbl(m.hidden);
  const double mask = s.sequence_parallel ? sbh / t : sbh;
  const double interleave_factor = s.interleave > 1 ? 1.0 + (p - 1.0) / (p * v) : 1.0;
  const double first_in_flight = std::min(p, micro_batches);
  const double first =
      (stage_activations(job, s, layers, 1.0) + mask) * first_in_flight * interleave_factor;
  const double logits = 4.0 * dbl(m.seq) * b * dbl(m.vocab) / t;
  if (s.pp == 1) return {first + logits, first + logits};
  const double last_in_flight = std::min(((v - 1.0) * p + 1.0) / v, micro_batches);
  return {first, stage_activations(job, s, layers, last_in_flight) + logits};
}

SplitMemory memory_of(const TransformerJob& job, const ParallelSplit& s, double params,
                      double micro_batches) {
  const TransformerShape& m = job.model;
  const double d = dbl(s.dp);
  const double t = dbl(s.tp);
  const double sbh = dbl(m.seq) * dbl(s.micro_batch) * dbl(m.hidden);
  SplitMemory mem;
  mem.weights_bytes = kElementBytes * params / (s.zero >= 3 ? d : 1.0);
  mem.gradients_bytes = kElementBytes * params / (s.zero >= 2 ? d : 1.0);
  mem.optimizer_bytes = kOptimizerStateBytes * params / (s.zero >= 1 ? d : 1.0);
  // The first and the last stage hold the same parameters (their layers and the embeddings)
  // and buffers: the activations decide which holds more.
  const auto [first, last] = first_and_last_activations(job, s, micro_batches);
  mem.stage = s.pp == 1 ? PipelineStage::kOnly
                        : (last > first ? PipelineStage::kLast : PipelineStage::kFirst);
  mem.activations_bytes = std::max(first, last);
  double buffers = 0.0;
  if (s.dp > 1) buffers += kBucketsInFlight * job.dp_bucket_bytes;
  if (s.pp > 1) buffers += 2.0 * kElementBytes * sbh;  // a send and a receive buffer
  if (s.zero >= 3) buffers += 2.0 * kElementBytes * layer_parameters(m) / t;  // two gathered layers
  mem.buffers_bytes = buffers;
  return mem;
}

SplitBinding binding_of(const SplitStep& r) {
  if (!r.fits) return SplitBinding::kMemory;
  const double comm = r.tp_comm_s + r.pp_transfer_s + r.dp_comm_s;
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
       std::array<std::pair<std::string_view, std::int64_t>, 5>{{{"parallel.tp", s.tp},
                                                                 {"parallel.pp", s.pp},
                                                                 {"parallel.dp", s.dp},
                                                                 {"training.micro_batch", s.micro_batch},
                                                                 {"parallel.interleave", s.interleave}}}) {
    if (value < 1) throw InputError(fmt::format("{} {} must be at least 1", what, value));
  }
  if (s.zero < 0 || s.zero > 3) {
    throw InputError(fmt::format("parallel.zero {} must be 0, 1, 2 or 3", s.zero));
  }
  split_gpus(s.tp, s.pp, s.dp);
}

// The step's time parts from the stage work and the traffic.
void fill_times(const TransformerJob& job, const ParallelSplit& s, SplitStep& r) {
  const double m = dbl(r.micro_batches);
  const double layers = dbl(job.model.layers) / dbl(s.pp);
  const StageWork w = stage_work(job, s, layers, true);
  const Cost tp = tp_traffic(job, s, layers);
  const Cost pp = pp_traffic(job, s);
  const double params = stage_parameters(job, s);
  const Cost dp = dp_traffic(job, s, params, w, m);
  const double per_mb = w.compute_s + w.recompute_s + tp.total_s + pp.total_s;
  r.compute_s = m * w.compute_s;
  r.recompute_s = m * w.recompute_s;
  r.tp_comm_s = m * tp.total_s;
  r.pp_transfer_s = m * pp.total_s;
  r.pp_bubble_s = (dbl(s.pp) - 1.0) / dbl(s.interleave) * per_mb;
  r.dp_comm_s = dp.total_s;
  r.comm_latency_s = m * (tp.latency_s + pp.latency_s) + dp.latency_s;
  const double updated = params / (s.zero >= 1 ? dbl(s.dp) : 1.0);
  r.optimizer_s = kAdamTrafficBytes * updated / job.gpu.hbm_Bps;
  if (job.sigma > 0 && s.gpus() > 1) {
    r.variance_s = job.sigma * expected_max_standard_normal(s.gpus()) * (r.compute_s + r.recompute_s);
  }
  r.serial_s = job.serial_s;
  r.step_s = r.compute_s + r.recompute_s + r.tp_comm_s + r.pp_bubble_s + r.pp_transfer_s +
             r.dp_comm_s + r.optimizer_s + r.variance_s + r.serial_s;
  r.memory = memory_of(job, s, params, m);
}

}  // namespace

ParallelSplit SplitConstraints::defaults() const {
  ParallelSplit s;
  s.tp = tp.value_or(1);
  s.pp = pp.value_or(1);
  s.dp = dp.value_or(1);
  s.micro_batch = micro_batch.value_or(1);
  s.interleave = interleave.value_or(1);
  s.sequence_parallel = sequence_parallel.value_or(false);
  s.recompute = recompute.value_or(Recompute::kNone);
  s.zero = zero.value_or(0);
  s.dp_overlap = dp_overlap.value_or(false);
  return s;
}

SplitStep evaluate_split(const TransformerJob& job, const ParallelSplit& split) {
  require_valid(job.model);
  require_valid_split(split);
  SplitStep r;
  r.split = split;
  r.problem = split_problem(job, split);
  if (r.problem != SplitProblem::kNone) return r;
  r.micro_batches = job.training.global_batch / (split.dp * split.micro_batch);
  fill_times(job, split, r);
  r.memory_limit_bytes = job.gpu.hbm_bytes;
  const double total = r.memory.total();
  r.fits = total <= r.memory_limit_bytes;
  r.lacks_bytes = r.fits ? 0.0 : total - r.memory_limit_bytes;
  const StepFlops f = step_flops(job.model, dbl(job.training.global_batch), split.recompute);
  const double n = dbl(split.gpus());
  r.executed_flops = f.executed();
  r.model_flops = f.model();
  r.tflops_per_gpu = r.executed_flops / (r.step_s * n) / 1e12;
  r.mfu = r.model_flops / (r.step_s * n * job.gpu.peak_flops_per_s(job.training.dtype));
  r.tokens_per_s = dbl(job.training.global_batch) * dbl(job.model.seq) / r.step_s;
  r.binding = binding_of(r);
  return r;
}

}  // namespace scalewall
