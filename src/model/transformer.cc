// Implementation of scalewall/model/transformer.h.
#include "scalewall/model/transformer.h"

#include <fmt/format.h>

#include <array>
#include <string>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

double dbl(std::int64_t v) { return static_cast<double>(v); }

void require_positive(std::string_view what, std::int64_t value) {
  if (value < 1) throw InputError(fmt::format("{} {} must be at least 1", what, value));
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

void require_valid(const TransformerShape& shape) {
  require_positive("model.hidden", shape.hidden);
  require_positive("model.ffn", shape.ffn);
  require_positive("model.heads", shape.heads);
  require_positive("model.kv_heads", shape.kv_heads);
  require_positive("model.layers", shape.layers);
  require_positive("model.seq", shape.seq);
  require_positive("model.vocab", shape.vocab);
  if (shape.hidden % shape.heads != 0) {
    throw InputError(fmt::format("model.heads {} does not divide model.hidden {}", shape.heads,
                                 shape.hidden));
  }
  if (shape.heads % shape.kv_heads != 0) {
    throw InputError(fmt::format("model.kv_heads {} does not divide model.heads {}",
                                 shape.kv_heads, shape.heads));
  }
  if (shape.attention_window > 0 && shape.seq > shape.attention_window) {
    throw InputError(fmt::format(
        "model.seq {} is longer than the model's sliding attention window of {} tokens "
        "(sliding-window attention is not modelled: give seq = {} or less)",
        shape.seq, shape.attention_window, shape.attention_window));
  }
}

double mlp_matrices(const TransformerShape& m) {
  switch (m.mlp) {
    case MlpKind::kPlain: return 2.0;
    case MlpKind::kGated: return 3.0;
  }
  SCALEWALL_CHECK(false && "unknown MlpKind");
  return 0.0;
}

double qkv_width(const TransformerShape& m) {
  const double head = dbl(m.hidden) / dbl(m.heads);
  return dbl(m.hidden) + 2.0 * dbl(m.kv_heads) * head;
}

namespace {

// The parameters of one norm: LayerNorm's scale and shift, RMSNorm's scale.
double norm_parameters(const TransformerShape& m) {
  switch (m.norm) {
    case NormKind::kLayerNorm: return 2.0 * dbl(m.hidden);
    case NormKind::kRmsNorm: return dbl(m.hidden);
  }
  SCALEWALL_CHECK(false && "unknown NormKind");
  return 0.0;
}

// The biases of one layer's linear layers: the QKV output, the projection's h, the MLP's
// inner width(s) ((n - 1) f: one f plain, the gate's and the up projection's f gated) and its
// output h.
double bias_parameters(const TransformerShape& m) {
  const double h = dbl(m.hidden);
  switch (m.biases) {
    case LinearBiases::kAll: return qkv_width(m) + h + (mlp_matrices(m) - 1.0) * dbl(m.ffn) + h;
    case LinearBiases::kQkvOnly: return qkv_width(m);
    case LinearBiases::kNone: return 0.0;
  }
  SCALEWALL_CHECK(false && "unknown LinearBiases");
  return 0.0;
}

}  // namespace

double layer_parameters(const TransformerShape& m) {
  const double h = dbl(m.hidden);
  const double weights = h * qkv_width(m) + h * h + mlp_matrices(m) * h * dbl(m.ffn);
  return weights + bias_parameters(m) + 2.0 * norm_parameters(m);
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
  return dbl(m.layers) * layer_parameters(m) + embedding_parameters(m) + norm_parameters(m);
}

double attention_core_flops(const TransformerShape& m, double micro_batch) {
  const double s = dbl(m.seq);
  return 4.0 * micro_batch * s * s * dbl(m.hidden);
}

double layer_forward_flops(const TransformerShape& m, double micro_batch) {
  const double h = dbl(m.hidden);
  const double tokens = micro_batch * dbl(m.seq);
  const double gemms =
      2.0 * tokens * (h * qkv_width(m) + h * h + mlp_matrices(m) * h * dbl(m.ffn));
  return gemms + attention_core_flops(m, micro_batch);
}

double logits_forward_flops(const TransformerShape& m, double micro_batch) {
  return 2.0 * micro_batch * dbl(m.seq) * dbl(m.hidden) * dbl(m.vocab);
}

StepFlops step_flops(const TransformerShape& m, double global_batch, Recompute recompute) {
  StepFlops f;
  const double layers = dbl(m.layers);
  f.forward = layers * layer_forward_flops(m, global_batch) + logits_forward_flops(m, global_batch);
  f.backward = 2.0 * f.forward;
  switch (recompute) {
    case Recompute::kNone: f.recompute = 0.0; break;
    case Recompute::kSelective: f.recompute = layers * attention_core_flops(m, global_batch); break;
    case Recompute::kFull: f.recompute = layers * layer_forward_flops(m, global_batch); break;
  }
  return f;
}

double kv_heads_per_rank(const TransformerShape& m, std::int64_t tp) {
  return tp > m.kv_heads ? 1.0 : dbl(m.kv_heads) / dbl(tp);
}

double rotary_traffic_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp) {
  if (m.position == PositionKind::kLearned) return 0.0;
  const double head = dbl(m.hidden) / dbl(m.heads);
  const double q_and_k = dbl(m.hidden) / dbl(tp) + kv_heads_per_rank(m, tp) * head;
  return 2.0 * 2.0 * micro_batch * dbl(m.seq) * q_and_k;  // read and write, 2 B each
}

double layer_activation_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp,
                              bool sequence_parallel, Recompute recompute) {
  const double s = dbl(m.seq);
  const double h = dbl(m.hidden);
  const double t = dbl(tp);
  const double sbh = s * micro_batch * h;
  // Korthikanti et al. 2022, section 4 and Table 2, extended to the gated MLP and to k' KV
  // heads per rank (see the header): 24/t at k = a, f = 4h, plain.
  const double mlp_inner = (m.mlp == MlpKind::kGated ? 6.0 : 4.0) * dbl(m.ffn) / h;
  const double split = (2.0 + 2.0 + mlp_inner) / t + 4.0 * kv_heads_per_rank(m, tp) / dbl(m.heads);
  const double replicated = 10.0;
  const double scores = 5.0 * dbl(m.heads) * s / h;  // 5 a s / h: softmax, its dropout and mask
  const double outside = sequence_parallel ? replicated / t : replicated;
  switch (recompute) {
    case Recompute::kNone: return sbh * (outside + split + scores / t);
    case Recompute::kSelective: return sbh * (outside + split);
    case Recompute::kFull: return sequence_parallel ? 2.0 * sbh / t : 2.0 * sbh;
  }
  SCALEWALL_CHECK(false && "unknown Recompute");
  return 0.0;
}

}  // namespace scalewall
