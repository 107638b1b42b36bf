// Implementation of scalewall/model/transformer.h.
#include "scalewall/model/transformer.h"

#include <fmt/format.h>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

double dbl(std::int64_t v) { return static_cast<double>(v); }

void require_positive(std::string_view what, std::int64_t value) {
  if (value < 1) throw InputError(fmt::format("{} {} must be at least 1", what, value));
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
  for (const Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
    if (text == recompute_name(r)) return r;
  }
  throw InputError(
      fmt::format("unknown recompute '{}' (expected one of: none, selective, full)", text));
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
}

double qkv_width(const TransformerShape& m) {
  const double head = dbl(m.hidden) / dbl(m.heads);
  return dbl(m.hidden) + 2.0 * dbl(m.kv_heads) * head;
}

double layer_parameters(const TransformerShape& m) {
  const double h = dbl(m.hidden);
  const double f = dbl(m.ffn);
  const double qkv = qkv_width(m);
  const double weights = h * qkv + h * h + 2.0 * h * f;
  const double biases = qkv + h + f + h + 4.0 * h;
  return weights + biases;
}

double embedding_parameters(const TransformerShape& m) {
  return dbl(m.vocab) * dbl(m.hidden) + dbl(m.seq) * dbl(m.hidden);
}

double model_parameters(const TransformerShape& m) {
  return dbl(m.layers) * layer_parameters(m) + embedding_parameters(m) + 2.0 * dbl(m.hidden);
}

double attention_core_flops(const TransformerShape& m, double micro_batch) {
  const double s = dbl(m.seq);
  return 4.0 * micro_batch * s * s * dbl(m.hidden);
}

double layer_forward_flops(const TransformerShape& m, double micro_batch) {
  const double h = dbl(m.hidden);
  const double tokens = micro_batch * dbl(m.seq);
  const double gemms = 2.0 * tokens * (h * qkv_width(m) + h * h + 2.0 * h * dbl(m.ffn));
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

double layer_activation_bytes(const TransformerShape& m, double micro_batch, std::int64_t tp,
                              bool sequence_parallel, Recompute recompute) {
  const double s = dbl(m.seq);
  const double h = dbl(m.hidden);
  const double t = dbl(tp);
  const double sbh = s * micro_batch * h;
  // Korthikanti et al. 2022, section 4 and Table 2 (see the header).
  const double kv_share = dbl(m.kv_heads) / dbl(m.heads);
  const double split = 2.0 + 4.0 * kv_share + 2.0 + 4.0 * dbl(m.ffn) / h;  // 24 at k = a, f = 4h
  const double replicated = 10.0;
  const double scores = 5.0 * dbl(m.heads) * s / h;  // 5 a s / h: softmax, its dropout and mask
  const double outside = sequence_parallel ? replicated / t : replicated;
  switch (recompute) {
    case Recompute::kNone: return sbh * (outside + split / t + scores / t);
    case Recompute::kSelective: return sbh * (outside + split / t);
    case Recompute::kFull: return sequence_parallel ? 2.0 * sbh / t : 2.0 * sbh;
  }
  SCALEWALL_CHECK(false && "unknown Recompute");
  return 0.0;
}

}  // namespace scalewall
