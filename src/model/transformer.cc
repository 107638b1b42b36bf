// Implementation of scalewall/model/transformer.h.
#include "scalewall/model/transformer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>
#include <utility>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

double dbl(std::int64_t v) { return static_cast<double>(v); }

// A problem of the key `key` with its message.
std::optional<ShapeProblem> problem(std::string_view key, std::string message) {
  return ShapeProblem{std::string(key), std::move(message)};
}

// The first of `values` below 1, as "model.<key> <value> must be at least 1".
std::optional<ShapeProblem> first_below_one(
    std::initializer_list<std::pair<std::string_view, std::int64_t>> values) {
  for (const auto& [key, value] : values) {
    if (value < 1) return problem(key, fmt::format("model.{} {} must be at least 1", key, value));
  }
  return std::nullopt;
}

// The value of `values` whose name is `text`; InputError "unknown <what> '<text>' (expected
// one of: <names>)" when none is.
template <typename Enum, std::size_t N>
Enum parse_by_name(std::string_view text, std::string_view what,
                   const std::array<Enum, N>& values, std::string_view (*name)(Enum)) {
  std::string expected;
  for (const Enum v : values) {
    if (text == name(v)) return v;
    expected += (expected.empty() ? "" : ", ") + std::string(name(v));
  }
  throw InputError(fmt::format("unknown {} '{}' (expected one of: {})", what, text, expected));
}

}  // namespace

std::string_view recompute_name(Recompute recompute) {
  switch (recompute) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  SCALEWALL_CHECK(false && "unknown Recompute");
  return "";
}

Recompute parse_recompute(std::string_view text) {
  return parse_by_name(text, "recompute",
                       std::array{Recompute::kNone, Recompute::kSelective, Recompute::kFull},
                       recompute_name);
}

std::string_view mlp_name(MlpKind mlp) {
  switch (mlp) {
    case MlpKind::kPlain: return "plain";
    case MlpKind::kGated: return "gated";
  }
  SCALEWALL_CHECK(false && "unknown MlpKind");
  return "";
}

MlpKind parse_mlp(std::string_view text) {
  return parse_by_name(text, "mlp", std::array{MlpKind::kPlain, MlpKind::kGated}, mlp_name);
}

std::string_view position_name(PositionKind position) {
  switch (position) {
    case PositionKind::kLearned: return "learned";
    case PositionKind::kRotary: return "rotary";
  }
  SCALEWALL_CHECK(false && "unknown PositionKind");
  return "";
}

PositionKind parse_position(std::string_view text) {
  return parse_by_name(text, "position",
                       std::array{PositionKind::kLearned, PositionKind::kRotary}, position_name);
}

std::string_view attention_name(AttentionKind attention) {
  switch (attention) {
    case AttentionKind::kMha: return "mha";
    case AttentionKind::kMla: return "mla";
  }
  SCALEWALL_CHECK(false && "unknown AttentionKind");
  return "";
}

AttentionKind parse_attention(std::string_view text) {
  return parse_by_name(text, "attention", std::array{AttentionKind::kMha, AttentionKind::kMla},
                       attention_name);
}

namespace {

// The attention's problems: its dimensions, how the heads divide, MLA's ranks.
std::optional<ShapeProblem> attention_problem(const TransformerShape& s) {
  if (s.attention == AttentionKind::kMla) {
    if (auto p = first_below_one({{"kv_lora_rank", s.kv_lora_rank},
                                  {"qk_nope_dim", s.qk_nope_dim},
                                  {"qk_rope_dim", s.qk_rope_dim},
                                  {"v_head_dim", s.v_head_dim}})) {
      return problem(p->key, p->message + " (model.attention \"mla\" needs it)");
    }
    if (s.q_lora_rank < 0) {
      return problem("q_lora_rank", fmt::format("model.q_lora_rank {} must not be negative "
                                                "(0: Q is not compressed)", s.q_lora_rank));
    }
    if (s.kv_heads != s.heads) {
      return problem("kv_heads", fmt::format("model.kv_heads {} is not model.heads {}: "
                                             "multi-head latent attention has a key and a "
                                             "value per head", s.kv_heads, s.heads));
    }
    if (s.head_dim != 0) {
      return problem("head_dim", fmt::format("model.head_dim {} is given with model.attention "
                                             "\"mla\", whose head sizes are qk_nope_dim, "
                                             "qk_rope_dim and v_head_dim", s.head_dim));
    }
    if (s.position != PositionKind::kRotary) {
      return problem("position", "model.position \"learned\" with model.attention \"mla\": "
                                 "multi-head latent attention carries its positions in its "
                                 "rotary key and query parts (give position = \"rotary\")");
    }
    return std::nullopt;
  }
  if (s.head_dim < 0) {
    return problem("head_dim", fmt::format("model.head_dim {} must not be negative (0: "
                                           "hidden / heads)", s.head_dim));
  }
  if (s.head_dim == 0 && s.hidden % s.heads != 0) {
    return problem("heads", fmt::format("model.heads {} does not divide model.hidden {}",
                                        s.heads, s.hidden));
  }
  if (s.heads % s.kv_heads != 0) {
    return problem("kv_heads", fmt::format("model.kv_heads {} does not divide model.heads {}",
                                           s.kv_heads, s.heads));
  }
  return std::nullopt;
}

// The mixture of experts' problems (none for a dense model).
std::optional<ShapeProblem> experts_problem(const TransformerShape& s) {
  if (s.experts < 0) {
    return problem("experts", fmt::format("model.experts {} must not be negative (0: a dense "
                                          "model)", s.experts));
  }
  if (s.experts == 0) return std::nullopt;
  if (s.topk < 1 || s.topk > s.experts) {
    return problem("topk", fmt::format("model.topk {} is outside [1, model.experts {}]: each "
                                       "token is routed to 1 to {} experts",
                                       s.topk, s.experts, s.experts));
  }
  for (const auto& [key, value] : {std::pair<std::string_view, std::int64_t>{"moe_ffn", s.moe_ffn},
                                   {"shared_experts", s.shared_experts},
                                   {"dense_layers", s.dense_layers}}) {
    if (value < 0) {
      return problem(key, fmt::format("model.{} {} must not be negative", key, value));
    }
  }
  if (s.moe_every < 1) {
    return problem("moe_every", fmt::format("model.moe_every {} must be at least 1",
                                            s.moe_every));
  }
  if (moe_layer_count(s) == 0) {
    return problem("dense_layers", fmt::format(
        "model.dense_layers {} leaves no MoE layer among the {} layers (an MoE layer is one "
        "at or past dense_layers whose index model.moe_every {} divides)",
        s.dense_layers, s.layers, s.moe_every));
  }
  const double most = static_cast<double>(s.experts) / static_cast<double>(s.topk);
  if (!(s.capacity_factor >= 0.0) || s.capacity_factor > most) {
    return problem("capacity_factor", fmt::format(
        "model.capacity_factor {} is outside (0, experts / topk = {:g}]: at experts / topk "
        "each expert has room for every token of the micro-batch (leave it out for dropless "
        "routing)", s.capacity_factor, most));
  }
  return std::nullopt;
}

}  // namespace

std::optional<ShapeProblem> shape_problem(const TransformerShape& s) {
  if (auto p = first_below_one({{"hidden", s.hidden},
                                {"ffn", s.ffn},
                                {"heads", s.heads},
                                {"kv_heads", s.kv_heads},
                                {"layers", s.layers},
                                {"seq", s.seq},
                                {"vocab", s.vocab}})) {
    return p;
  }
  if (auto p = attention_problem(s)) return p;
  const bool every_layer_windowed = s.window_layers == 0 || s.window_layers >= s.layers;
  if (s.attention_window > 0 && every_layer_windowed && s.seq > s.attention_window) {
    return problem("seq", fmt::format(
        "model.seq {} is longer than the model's sliding attention window of {} tokens "
        "(sliding-window attention is not modelled: give seq = {} or less)",
        s.seq, s.attention_window, s.attention_window));
  }
  return experts_problem(s);
}

void require_valid(const TransformerShape& shape) {
  if (const std::optional<ShapeProblem> p = shape_problem(shape)) throw InputError(p->message);
}

bool is_moe(const TransformerShape& m) { return m.experts > 0; }

bool is_moe_layer(const TransformerShape& m, std::int64_t layer) {
  return is_moe(m) && layer >= m.dense_layers && m.moe_every > 0 && layer % m.moe_every == 0;
}

std::int64_t moe_layers_between(const TransformerShape& m, std::int64_t begin, std::int64_t end) {
  if (!is_moe(m) || m.moe_every < 1) return 0;
  const std::int64_t lo = std::max({begin, m.dense_layers, std::int64_t{0}});
  if (end <= lo) return 0;
  // The multiples of k in [0, n): ceil(n / k).
  const auto multiples_below = [k = m.moe_every](std::int64_t n) { return (n + k - 1) / k; };
  return multiples_below(end) - multiples_below(lo);
}

std::int64_t moe_layer_count(const TransformerShape& m) {
  return moe_layers_between(m, 0, m.layers);
}

std::int64_t dense_layer_count(const TransformerShape& m) {
  return m.layers - moe_layer_count(m);
}

double mlp_matrices(const TransformerShape& m) {
  switch (m.mlp) {
    case MlpKind::kPlain: return 2.0;
    case MlpKind::kGated: return 3.0;
  }
  SCALEWALL_CHECK(false && "unknown MlpKind");
  return 0.0;
}

double head_size(const TransformerShape& m) {
  return m.head_dim > 0 ? dbl(m.head_dim) : dbl(m.hidden) / dbl(m.heads);
}

double attention_width(const TransformerShape& m) {
  if (m.attention == AttentionKind::kMla) return dbl(m.heads) * dbl(m.v_head_dim);
  return m.head_dim > 0 ? dbl(m.heads) * dbl(m.head_dim) : dbl(m.hidden);
}

double expert_ffn(const TransformerShape& m) { return dbl(m.moe_ffn > 0 ? m.moe_ffn : m.ffn); }

double routed_copies(const TransformerShape& m) {
  const double k = dbl(m.topk);
  return m.capacity_factor > 0.0 ? m.capacity_factor * k : k;
}

MlaProjections mla_projections(const TransformerShape& m) {
  const double h = dbl(m.hidden);
  const double a = dbl(m.heads);
  const double qk = dbl(m.qk_nope_dim + m.qk_rope_dim);
  MlaProjections p;
  if (m.q_lora_rank > 0) {
    p.q_down = h * dbl(m.q_lora_rank);
    p.q_up = dbl(m.q_lora_rank) * a * qk;
  } else {
    p.q_up = h * a * qk;
  }
  p.kv_down = h * dbl(m.kv_lora_rank + m.qk_rope_dim);
  p.kv_up = dbl(m.kv_lora_rank) * a * dbl(m.qk_nope_dim + m.v_head_dim);
  p.proj = a * dbl(m.v_head_dim) * h;
  return p;
}

double qkv_width(const TransformerShape& m) {
  if (m.attention == AttentionKind::kMla) {
    const double a = dbl(m.heads);
    return a * (2.0 * dbl(m.qk_nope_dim + m.qk_rope_dim) + dbl(m.v_head_dim));
  }
  return attention_width(m) + 2.0 * dbl(m.kv_heads) * head_size(m);
}

namespace {

// The parameters of one norm over `width` values: LayerNorm's scale and shift, RMSNorm's
// scale.
double norm_parameters(const TransformerShape& m, double width) {
  switch (m.norm) {
    case NormKind::kLayerNorm: return 2.0 * width;
    case NormKind::kRmsNorm: return width;
  }
  SCALEWALL_CHECK(false && "unknown NormKind");
  return 0.0;
}
double norm_parameters(const TransformerShape& m) { return norm_parameters(m, dbl(m.hidden)); }

// The attention's weights, as multiply-adds per token: h (q + 2kd) + q h, or MLA's.
double attention_weights(const TransformerShape& m) {
  if (m.attention == AttentionKind::kMla) return mla_projections(m).all();
  const double h = dbl(m.hidden);
  return h * qkv_width(m) + h * attention_width(m);
}

// The attention's biases: the outputs of its input projections (QKV, or MLA's Q and KV
// projections down and up) and, with all biases, the output projection's h.
double attention_biases(const TransformerShape& m) {
  if (m.biases == LinearBiases::kNone) return 0.0;
  double inputs = qkv_width(m);
  if (m.attention == AttentionKind::kMla) {
    const double a = dbl(m.heads);
    inputs = dbl(m.q_lora_rank) + a * dbl(m.qk_nope_dim + m.qk_rope_dim) +
             dbl(m.kv_lora_rank + m.qk_rope_dim) + a * dbl(m.qk_nope_dim + m.v_head_dim);
  }
  return inputs + (m.biases == LinearBiases::kAll ? dbl(m.hidden) : 0.0);
}

// One MLP of inner width f: its weights n h f and, with all biases, (n - 1) f + h.
double mlp_parameters(const TransformerShape& m, double f) {
  const double bias = m.biases == LinearBiases::kAll ? (mlp_matrices(m) - 1.0) * f + dbl(m.hidden)
                                                     : 0.0;
  return mlp_matrices(m) * dbl(m.hidden) * f + bias;
}

double router_parameters(const TransformerShape& m) {
  const double bias = m.router_bias || m.biases == LinearBiases::kAll ? dbl(m.experts) : 0.0;
  return dbl(m.hidden) * dbl(m.experts) + bias;
}

// One layer with `experts_used` of its routed experts (an MoE layer) or its dense MLP.
double layer_parameters_with(const TransformerShape& m, LayerKind kind, double experts_used) {
  const double mlp =
      kind == LayerKind::kDense
          ? mlp_parameters(m, dbl(m.ffn))
          : router_parameters(m) +
                (experts_used + dbl(m.shared_experts)) * mlp_parameters(m, expert_ffn(m));
  return attention_parameters(m) + mlp + 2.0 * norm_parameters(m);
}

}  // namespace

double attention_parameters(const TransformerShape& m) {
  double norms = 0.0;
  if (m.attention == AttentionKind::kMla) {
    norms = norm_parameters(m, dbl(m.kv_lora_rank)) +
            (m.q_lora_rank > 0 ? norm_parameters(m, dbl(m.q_lora_rank)) : 0.0);
  }
  return attention_weights(m) + attention_biases(m) + norms;
}

double layer_parameters(const TransformerShape& m) {
  return layer_parameters(m, LayerKind::kDense);
}

double layer_parameters(const TransformerShape& m, LayerKind kind) {
  return layer_parameters_with(m, kind, dbl(m.experts));
}

double routed_expert_parameters(const TransformerShape& m) {
  return is_moe(m) ? dbl(m.experts) * mlp_parameters(m, expert_ffn(m)) : 0.0;
}

double input_embedding_parameters(const TransformerShape& m) {
  const double positions = m.position == PositionKind::kLearned ? dbl(m.seq) : 0.0;
  return (dbl(m.vocab) + positions) * dbl(m.hidden);
}

double output_layer_parameters(const TransformerShape& m) {
  return dbl(m.vocab) * dbl(m.hidden);
}

double embedding_parameters(const TransformerShape& m) {
  const double output = m.tied_embeddings ? 0.0 : output_layer_parameters(m);
  return input_embedding_parameters(m) + output;
}

double model_parameters(const TransformerShape& m) {
  const double layers = dbl(dense_layer_count(m)) * layer_parameters(m, LayerKind::kDense) +
                        dbl(moe_layer_count(m)) * layer_parameters(m, LayerKind::kMoe);
  return layers + embedding_parameters(m) + norm_parameters(m);
}

double active_parameters(const TransformerShape& m) {
  const double moe = layer_parameters_with(m, LayerKind::kMoe, dbl(m.topk));
  const double layers = dbl(dense_layer_count(m)) * layer_parameters(m, LayerKind::kDense) +
                        dbl(moe_layer_count(m)) * moe;
  return layers + embedding_parameters(m) + norm_parameters(m);
}

double layer_gemm_weights(const TransformerShape& m, LayerKind kind) {
  const double h = dbl(m.hidden);
  if (kind == LayerKind::kDense) return attention_weights(m) + mlp_matrices(m) * h * dbl(m.ffn);
  const double experts = (routed_copies(m) + dbl(m.shared_experts)) * mlp_matrices(m) * h *
                         expert_ffn(m);
  return attention_weights(m) + h * dbl(m.experts) + experts;
}

double full_attention_core_flops(const TransformerShape& m, double micro_batch) {
  const double s = dbl(m.seq);
  if (m.attention == AttentionKind::kMla) {
    const double widths = dbl(m.qk_nope_dim + m.qk_rope_dim + m.v_head_dim);
    return 2.0 * micro_batch * s * s * dbl(m.heads) * widths;
  }
  return 4.0 * micro_batch * s * s * attention_width(m);
}

double attention_core_flops(const TransformerShape& m, double micro_batch) {
  const double full = full_attention_core_flops(m, micro_batch);
  const bool partial = m.window_layers > 0 && m.window_layers < m.layers;
  if (!partial || m.attention_window <= 0 || m.attention_window >= m.seq) return full;
  // A windowed layer counts 2 s w - w^2 of the full core's s^2.
  const double s = dbl(m.seq);
  const double w = dbl(m.attention_window);
  const double windowed = full * (2.0 * s * w - w * w) / (s * s);
  const double share = dbl(m.window_layers) / dbl(m.layers);
  return (1.0 - share) * full + share * windowed;
}

double layer_forward_flops(const TransformerShape& m, double micro_batch) {
  return layer_forward_flops(m, micro_batch, LayerKind::kDense);
}

double layer_forward_flops(const TransformerShape& m, double micro_batch, LayerKind kind) {
  const double tokens = micro_batch * dbl(m.seq);
  return 2.0 * tokens * layer_gemm_weights(m, kind) + attention_core_flops(m, micro_batch);
}

double mean_layer_forward_flops(const TransformerShape& m, double micro_batch) {
  if (moe_layer_count(m) == 0) return layer_forward_flops(m, micro_batch, LayerKind::kDense);
  const double all = dbl(dense_layer_count(m)) * layer_forward_flops(m, micro_batch) +
                     dbl(moe_layer_count(m)) *
                         layer_forward_flops(m, micro_batch, LayerKind::kMoe);
  return all / dbl(m.layers);
}

double logits_forward_flops(const TransformerShape& m, double micro_batch) {
  return 2.0 * micro_batch * dbl(m.seq) * dbl(m.hidden) * dbl(m.vocab);
}

StepFlops step_flops(const TransformerShape& m, double global_batch, Recompute recompute) {
  StepFlops f;
  const double layers = dbl(m.layers);
  // The layers' forward: the dense ones and the MoE ones (none in a dense model: + 0).
  const double forward_layers =
      dbl(dense_layer_count(m)) * layer_forward_flops(m, global_batch, LayerKind::kDense) +
      dbl(moe_layer_count(m)) * layer_forward_flops(m, global_batch, LayerKind::kMoe);
  f.forward = forward_layers + logits_forward_flops(m, global_batch);
  f.backward = 2.0 * f.forward;
  switch (recompute) {
    case Recompute::kNone: f.recompute = 0.0; break;
    case Recompute::kSelective: f.recompute = layers * attention_core_flops(m, global_batch); break;
    case Recompute::kFull: f.recompute = forward_layers; break;
  }
  return f;
}

double kv_heads_per_rank(const TransformerShape& m, std::int64_t tp) {
  return tp > m.kv_heads ? 1.0 : dbl(m.kv_heads) / dbl(tp);
}

double rotary_traffic_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp) {
  if (m.position == PositionKind::kLearned) return 0.0;
  const double rope = dbl(m.qk_rope_dim);
  const double q_and_k =
      m.attention == AttentionKind::kMla
          ? dbl(m.heads) * rope / dbl(tp) + rope
          : attention_width(m) / dbl(tp) + kv_heads_per_rank(m, tp) * head_size(m);
  return 2.0 * 2.0 * micro_batch * dbl(m.seq) * q_and_k;  // read and write, 2 B each
}

namespace {

// Of one layer's attention activations per token, in units of 2 B x h as Korthikanti's
// table: the part every TP rank holds on its tokens (/ t only with sequence parallelism), the
// part tensor parallelism splits (before its / t), and K and V of the KV heads a rank holds.
struct ActivationParts {
  double outside = 0;
  double split = 0;
  double kv = 0;
};

// Multi-head attention: Q and the projection's input, q wide, and K and V, k' d, r = q / h
// (exactly 1 when the heads span h: Korthikanti's figures). MLA: the low-rank paths outside;
// Q and K, a d_qk, V and the projection's input, a d_v, split.
ActivationParts attention_activations(const TransformerShape& m, std::int64_t tp) {
  const double h = dbl(m.hidden);
  if (m.attention == AttentionKind::kMla) {
    const double a = dbl(m.heads);
    const double qk = dbl(m.qk_nope_dim + m.qk_rope_dim);
    const double v = dbl(m.v_head_dim);
    const double latent = 4.0 * dbl(m.q_lora_rank) + 4.0 * dbl(m.kv_lora_rank);
    return {latent / h, (4.0 * a * qk + 4.0 * a * v) / h, 0.0};
  }
  const double r = attention_width(m) / h;
  return {0.0, 2.0 * r + 2.0 * r, 4.0 * kv_heads_per_rank(m, tp) / dbl(m.heads) * r};
}

}  // namespace

double layer_activation_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp,
                              bool sequence_parallel, Recompute recompute) {
  return layer_activation_bytes(m, micro_batch, tp, sequence_parallel, recompute,
                                LayerKind::kDense);
}

double layer_activation_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp,
                              bool sequence_parallel, Recompute recompute, LayerKind kind) {
  const double s = dbl(m.seq);
  const double h = dbl(m.hidden);
  const double t = dbl(tp);
  const double sbh = s * micro_batch * h;
  // Korthikanti et al. 2022, section 4 and Table 2, extended to the gated MLP, to k' KV heads
  // per rank, to MLA and to the experts (see the header): 24/t at k = a, f = 4h, plain.
  const double inner = m.mlp == MlpKind::kGated ? 6.0 : 4.0;  // n'
  const ActivationParts attention = attention_activations(m, tp);
  double outside = 10.0 + attention.outside;
  double mlp = inner * dbl(m.ffn) / h;
  if (kind == LayerKind::kMoe) {
    const double fe = expert_ffn(m);
    outside += 8.0 * dbl(m.experts) / h;  // the router's probabilities
    mlp = inner * dbl(m.shared_experts) * fe / h;
  }
  double split = (attention.split + mlp) / t + attention.kv;
  if (kind == LayerKind::kMoe) {
    // Each routed copy: the experts' inner tensors (split over the TP ranks), its 2-byte
    // grouped-GEMM input and its 2-byte output kept for the combine (whole on every rank: the
    // tokens are gathered across the TP group before they are permuted).
    split += routed_copies(m) * (inner * expert_ffn(m) / (h * t) + 4.0);
  }
  const double scores = 5.0 * dbl(m.heads) * s / h;  // 5 a s / h: softmax, its dropout and mask
  const double held = sequence_parallel ? outside / t : outside;
  switch (recompute) {
    case Recompute::kNone: return sbh * (held + split + scores / t);
    case Recompute::kSelective: return sbh * (held + split);
    case Recompute::kFull: return sequence_parallel ? 2.0 * sbh / t : 2.0 * sbh;
  }
  SCALEWALL_CHECK(false && "unknown Recompute");
  return 0.0;
}

}  // namespace scalewall
