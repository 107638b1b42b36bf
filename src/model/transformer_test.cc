// Tests of scalewall/model/transformer.h and accelerator.h against the closed forms of
// Narayanan et al. 2021 and Korthikanti et al. 2022, and the datasheet figures.
#include "scalewall/model/transformer.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "scalewall/model/accelerator.h"
#include "scalewall/model/model_presets.h"
#include "test_support.h"

namespace scalewall {
namespace {

// GPT 145.6B of Narayanan et al. 2021, Table 1: h 12288, 96 heads, 80 layers.
TransformerShape gpt_145b() {
  return {12288, 4 * 12288, 96, 96, 80, 2048, 51200};
}

TEST(Transformer, ParametersAreNarayanansClosedFormPlusTheFinalNorm) {
  const TransformerShape m = gpt_145b();
  const double h = 12288, l = 80, v = 51200, s = 2048;
  // P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)), plus the final layer norm's 2h.
  const double narayanan = 12 * l * h * h * (1 + 13 / (12 * h) + (v + s) / (12 * l * h));
  EXPECT_NEAR(model_parameters(m), narayanan + 2 * h, 1e-6 * narayanan);
  EXPECT_NEAR(model_parameters(m) / 1e9, 145.6, 0.05);  // the table's 145.6 billion
  EXPECT_DOUBLE_EQ(layer_parameters(m), 12 * h * h + 13 * h);
}

TEST(Transformer, GroupedQueryAttentionShrinksOnlyKeyAndValue) {
  TransformerShape m{4096, 14336, 32, 8, 32, 4096, 128256};  // a Llama-3-8B-like shape
  // QKV width h + 2 k d = 4096 + 2 * 8 * 128 = 6144.
  EXPECT_DOUBLE_EQ(qkv_width(m), 6144.0);
  EXPECT_DOUBLE_EQ(layer_parameters(m), 4096.0 * 6144 + 4096.0 * 4096 + 2.0 * 4096 * 14336 +
                                            6144 + 4096 + 14336 + 4096 + 4 * 4096);
}

TEST(Transformer, FullRecomputationStepIsNarayanansEquationThree) {
  const TransformerShape m = gpt_145b();
  const double h = 12288, l = 80, v = 51200, s = 2048, b = 2304;
  const StepFlops f = step_flops(m, b, Recompute::kFull);
  // 96 B s l h^2 (1 + s/(6h) + V/(16 l h)).
  const double eq3 = 96 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
  EXPECT_NEAR(f.executed(), eq3, 1e-9 * eq3);
  // Without recomputation the same step is 72 B s l h^2 (1 + s/(6h) + V/(12 l h)): 3 passes.
  const StepFlops none = step_flops(m, b, Recompute::kNone);
  EXPECT_NEAR(none.executed(), 72 * b * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h)),
              1e-9 * eq3);
  EXPECT_DOUBLE_EQ(f.model(), none.executed());
  // Selective recomputation adds only the attention core, 4 B s^2 h per layer.
  const StepFlops sel = step_flops(m, b, Recompute::kSelective);
  EXPECT_NEAR(sel.recompute, 4 * b * s * s * h * l, 1e-9 * sel.recompute);
}

TEST(Transformer, ActivationsPerLayerAreKorthikantisTable) {
  const TransformerShape m = gpt_145b();
  const double s = 2048, h = 12288, a = 96, b = 1, sbh = s * b * h;
  for (const std::int64_t t : {1, 2, 8}) {
    const double td = static_cast<double>(t);
    EXPECT_NEAR(layer_activation_bytes(m, b, t, false, Recompute::kNone),
                sbh * (10 + 24 / td + 5 * a * s / (h * td)), 1e-6 * sbh);
    EXPECT_NEAR(layer_activation_bytes(m, b, t, true, Recompute::kNone),
                sbh / td * (34 + 5 * a * s / h), 1e-6 * sbh);
    EXPECT_NEAR(layer_activation_bytes(m, b, t, false, Recompute::kSelective),
                sbh * (10 + 24 / td), 1e-6 * sbh);
    EXPECT_NEAR(layer_activation_bytes(m, b, t, true, Recompute::kSelective), sbh * 34 / td,
                1e-6 * sbh);
    EXPECT_DOUBLE_EQ(layer_activation_bytes(m, b, t, false, Recompute::kFull), 2 * sbh);
    EXPECT_DOUBLE_EQ(layer_activation_bytes(m, b, t, true, Recompute::kFull), 2 * sbh / td);
  }
}

TEST(Transformer, BadShapesAreNamed) {
  TransformerShape m = gpt_145b();
  m.heads = 100;
  EXPECT_EQ(input_error_of([&] { require_valid(m); }),
            "model.heads 100 does not divide model.hidden 12288");
  m = gpt_145b();
  m.kv_heads = 7;
  EXPECT_EQ(input_error_of([&] { require_valid(m); }),
            "model.kv_heads 7 does not divide model.heads 96");
  m.layers = 0;
  EXPECT_EQ(input_error_of([&] { require_valid(m); }), "model.layers 0 must be at least 1");
  EXPECT_EQ(input_error_of([] { parse_recompute("some"); }),
            "unknown recompute 'some' (expected one of: none, selective, full)");
}

// A Llama-like shape: gated, no biases, RMSNorm, untied, rotary (Llama 2 7B's dimensions).
TransformerShape llama2_7b() {
  return {4096,  11008, 32, 32, 32, 4096, 32000, MlpKind::kGated, false, PositionKind::kRotary,
          LinearBiases::kNone, NormKind::kRmsNorm, 0};
}

TEST(Transformer, LlamaParametersAreTheWeightsTheNormsAndTwoEmbeddings) {
  const TransformerShape m = llama2_7b();
  const double h = 4096, f = 11008, l = 32, v = 32000;
  // 4 h^2 (QKV and projection) + 3 h f (gate, up, down) + 2 h (two RMSNorm scales) per layer;
  // word embedding and output layer V h each; the final RMSNorm h.
  EXPECT_DOUBLE_EQ(layer_parameters(m), 4 * h * h + 3 * h * f + 2 * h);
  EXPECT_DOUBLE_EQ(model_parameters(m), l * (4 * h * h + 3 * h * f + 2 * h) + 2 * v * h + h);
  EXPECT_DOUBLE_EQ(model_parameters(m), 6738415616.0);  // Llama-2-7b-hf's 6,738,415,616
}

TEST(Transformer, AGatedMlpRunsThreeGemmsOfTwoThf) {
  TransformerShape plain = llama2_7b();
  plain.mlp = MlpKind::kPlain;
  const TransformerShape gated = llama2_7b();
  const double b = 3, tokens = b * 4096, h = 4096, f = 11008;
  EXPECT_DOUBLE_EQ(mlp_matrices(plain), 2.0);
  EXPECT_DOUBLE_EQ(mlp_matrices(gated), 3.0);
  EXPECT_DOUBLE_EQ(layer_forward_flops(gated, b) - layer_forward_flops(plain, b),
                   2 * tokens * h * f);
  // The whole layer: QKV and projection 2T(4h^2), the MLP 3 x 2T h f, the core 4 b s^2 h.
  EXPECT_DOUBLE_EQ(layer_forward_flops(gated, b),
                   2 * tokens * 4 * h * h + 3 * 2 * tokens * h * f + 4 * b * 4096.0 * 4096 * h);
  EXPECT_DOUBLE_EQ(layer_parameters(gated) - layer_parameters(plain), h * f);
  // With biases on every layer a gated MLP has two inner biases (gate and up).
  plain.biases = LinearBiases::kAll;
  TransformerShape gated_biased = gated;
  gated_biased.biases = LinearBiases::kAll;
  EXPECT_DOUBLE_EQ(layer_parameters(gated_biased) - layer_parameters(plain), h * f + f);
}

TEST(Transformer, UntiedEmbeddingsAddVhButNoFlops) {
  TransformerShape tied = llama2_7b();
  tied.tied_embeddings = true;
  const TransformerShape untied = llama2_7b();
  EXPECT_DOUBLE_EQ(model_parameters(untied) - model_parameters(tied), 32000.0 * 4096);
  EXPECT_DOUBLE_EQ(output_layer_parameters(untied), 32000.0 * 4096);
  EXPECT_DOUBLE_EQ(input_embedding_parameters(untied), 32000.0 * 4096);  // rotary: no table
  EXPECT_DOUBLE_EQ(step_flops(untied, 64, Recompute::kNone).executed(),
                   step_flops(tied, 64, Recompute::kNone).executed());
}

TEST(Transformer, RotaryPositionsHaveNoSequenceTable) {
  TransformerShape learned = llama2_7b();
  learned.position = PositionKind::kLearned;
  const TransformerShape rotary = llama2_7b();
  EXPECT_DOUBLE_EQ(model_parameters(learned) - model_parameters(rotary), 4096.0 * 4096);
  EXPECT_DOUBLE_EQ(input_embedding_parameters(learned), (32000.0 + 4096) * 4096);
  // Rotary's traffic: read and write Q and K, 2 B each, per rank: 4 b s (h/t + k' d).
  EXPECT_DOUBLE_EQ(rotary_traffic_bytes(learned, 2, 4), 0.0);
  EXPECT_DOUBLE_EQ(rotary_traffic_bytes(rotary, 2, 4), 4 * 2 * 4096.0 * (1024 + 8 * 128));
  EXPECT_DOUBLE_EQ(step_flops(learned, 8, Recompute::kFull).executed(),
                   step_flops(rotary, 8, Recompute::kFull).executed());
}

TEST(Transformer, GatedActivationsKeepSixFOverHOfMlpTensors) {
  TransformerShape plain = llama2_7b();
  plain.mlp = MlpKind::kPlain;
  const TransformerShape gated = llama2_7b();
  const double sbh = 4096.0 * 4096, f_over_h = 11008.0 / 4096;
  for (const std::int64_t t : {1, 2, 8}) {
    const double td = static_cast<double>(t);
    // Korthikanti's table with f: 10 + (Q 2 + projection 2 + K and V 4 + MLP 4 f/h) / t.
    EXPECT_NEAR(layer_activation_bytes(plain, 1, t, false, Recompute::kSelective),
                sbh * (10 + (4 + 4 + 4 * f_over_h) / td), 1e-6 * sbh);
    EXPECT_NEAR(layer_activation_bytes(gated, 1, t, false, Recompute::kSelective) -
                    layer_activation_bytes(plain, 1, t, false, Recompute::kSelective),
                sbh * 2 * f_over_h / td, 1e-6 * sbh);
  }
}

TEST(Transformer, FewerKvHeadsThanRanksHoldOneWholeHeadEach) {
  TransformerShape m = llama2_7b();
  m.kv_heads = 8;  // a = 32, d = 128
  EXPECT_DOUBLE_EQ(kv_heads_per_rank(m, 1), 8.0);
  EXPECT_DOUBLE_EQ(kv_heads_per_rank(m, 8), 1.0);
  EXPECT_DOUBLE_EQ(kv_heads_per_rank(m, 16), 1.0);  // two ranks hold each head
  const double sbh = 4096.0 * 4096, f_over_h = 11008.0 / 4096;
  // K and V: 4 k'/a of s b h per rank, k' = 8/8 = 1 at t 8 and 1 (not 1/2) at t 16.
  EXPECT_NEAR(layer_activation_bytes(m, 1, 16, true, Recompute::kSelective),
              sbh * ((10 + 4 + 6 * f_over_h) / 16 + 4.0 / 32), 1e-6 * sbh);
  EXPECT_NEAR(layer_activation_bytes(m, 1, 8, true, Recompute::kSelective),
              sbh * ((10 + 4 + 6 * f_over_h) / 8 + 4.0 / 32), 1e-6 * sbh);
}

TEST(Transformer, NamesAndASlidingWindowAreRefusedNamingTheValue) {
  EXPECT_EQ(parse_mlp("gated"), MlpKind::kGated);
  EXPECT_EQ(parse_position("rotary"), PositionKind::kRotary);
  EXPECT_EQ(input_error_of([] { parse_mlp("swiglu"); }),
            "unknown mlp 'swiglu' (expected one of: plain, gated)");
  EXPECT_EQ(input_error_of([] { parse_position("alibi"); }),
            "unknown position 'alibi' (expected one of: learned, rotary)");
  TransformerShape m = llama2_7b();
  m.attention_window = 4096;
  require_valid(m);  // seq 4096: full attention, exact
  m.seq = 8192;
  EXPECT_EQ(input_error_of([&] { require_valid(m); }),
            "model.seq 8192 is longer than the model's sliding attention window of 4096 tokens "
            "(sliding-window attention is not modelled: give seq = 4096 or less)");
}

// A small mixture of experts: a Llama-like layer (h 1024, 16 heads, 4 KV heads, gated, no
// biases, RMSNorm) with 8 experts of 1408, top-2, one shared expert, the first layer dense.
TransformerShape small_moe() {
  TransformerShape m{1024, 4096, 16, 4, 4, 2048, 32000, MlpKind::kGated, false,
                     PositionKind::kRotary, LinearBiases::kNone, NormKind::kRmsNorm, 0};
  m.experts = 8;
  m.topk = 2;
  m.moe_ffn = 1408;
  m.shared_experts = 1;
  m.dense_layers = 1;
  return m;
}

TEST(TransformerMoe, LayersAreMoeFromTheDenseOnesOnEveryKth) {
  TransformerShape m = small_moe();
  m.layers = 9;
  m.moe_every = 2;  // Megatron-Core's moe_layer_freq: i % 2 == 0, past the first dense layer
  int counted = 0;
  for (std::int64_t i = 0; i < m.layers; ++i) counted += is_moe_layer(m, i) ? 1 : 0;
  EXPECT_EQ(counted, 4);  // layers 2, 4, 6, 8
  EXPECT_EQ(moe_layer_count(m), 4);
  EXPECT_EQ(dense_layer_count(m), 5);
  EXPECT_EQ(moe_layers_between(m, 0, 3), 1);
  EXPECT_EQ(moe_layers_between(m, 3, 9), 3);
  EXPECT_EQ(moe_layers_between(m, 5, 5), 0);
  m.experts = 0;
  EXPECT_EQ(moe_layer_count(m), 0);
  EXPECT_FALSE(is_moe_layer(m, 2));
}

TEST(TransformerMoe, ParametersAreTheRouterTheExpertsAndTheSharedOnes) {
  const TransformerShape m = small_moe();
  const double h = 1024, f = 4096, fe = 1408, e = 8, k = 2, shared = 1;
  // The router h E, the experts E 3 h f_e and the shared one 3 h f_e replace the MLP's 3 h f.
  EXPECT_DOUBLE_EQ(layer_parameters(m, LayerKind::kMoe) - layer_parameters(m, LayerKind::kDense),
                   h * e + (e + shared) * 3 * h * fe - 3 * h * f);
  EXPECT_DOUBLE_EQ(layer_parameters(m), layer_parameters(m, LayerKind::kDense));
  EXPECT_DOUBLE_EQ(model_parameters(m), layer_parameters(m, LayerKind::kDense) +
                                            3 * layer_parameters(m, LayerKind::kMoe) +
                                            2 * 32000 * h + h);
  // One token uses k of the E experts of each of the three MoE layers.
  EXPECT_DOUBLE_EQ(model_parameters(m) - active_parameters(m), 3 * (e - k) * 3 * h * fe);
  // A router bias (DeepSeek-V3's) or biases everywhere add E per MoE layer to the router.
  TransformerShape biased = m;
  biased.router_bias = true;
  EXPECT_DOUBLE_EQ(model_parameters(biased) - model_parameters(m), 3 * e);
  // A dense model's active parameters are all of them.
  TransformerShape dense = m;
  dense.experts = 0;
  EXPECT_DOUBLE_EQ(active_parameters(dense), model_parameters(dense));
  EXPECT_DOUBLE_EQ(model_parameters(dense), 4 * layer_parameters(dense) + 2 * 32000 * h + h);
}

TEST(TransformerMoe, FlopsAreTheRouterAndTheRoutedAndSharedExperts) {
  TransformerShape m = small_moe();
  const double h = 1024, f = 4096, fe = 1408, e = 8, k = 2, b = 2, tokens = b * 2048;
  const double dense = layer_forward_flops(m, b, LayerKind::kDense);
  const double moe = layer_forward_flops(m, b, LayerKind::kMoe);
  // 2 T h E (router) + k 3 2 T h f_e (routed) + 3 2 T h f_e (shared) for the MLP's 3 2 T h f.
  EXPECT_DOUBLE_EQ(moe - dense, 2 * tokens * (h * e + (k + 1) * 3 * h * fe - 3 * h * f));
  const StepFlops step = step_flops(m, b, Recompute::kFull);
  EXPECT_DOUBLE_EQ(step.forward, dense + 3 * moe + logits_forward_flops(m, b));
  EXPECT_DOUBLE_EQ(step.recompute, dense + 3 * moe);
  EXPECT_DOUBLE_EQ(mean_layer_forward_flops(m, b), (dense + 3 * moe) / 4);
  // A capacity factor pads each expert to c k T / E tokens: c k copies of each token's work.
  m.capacity_factor = 1.25;
  EXPECT_DOUBLE_EQ(layer_forward_flops(m, b, LayerKind::kMoe) - moe,
                   2 * tokens * (1.25 - 1) * k * 3 * h * fe);
}

TEST(TransformerMoe, ActivationsAreTheRoutedCopiesAndTheRouterProbabilities) {
  const TransformerShape m = small_moe();
  const double s = 2048, h = 1024, a = 16, e = 8, k = 2, fe = 1408, b = 1, sbh = s * b * h;
  for (const std::int64_t t : {1, 2, 4}) {
    const double td = static_cast<double>(t);
    const double kv = 4 * (4 / td) / a;  // K and V of the 4/t KV heads a rank holds
    // 10 + 8E/h outside; Q and the projection input, the shared expert's 6 f_e/h, over t; each
    // routed copy's inner tensors 6 f_e / (h t) and its input and output, 4.
    const double x = (2 + 2 + 6 * fe / h) / td + kv + k * (6 * fe / (h * td) + 4);
    EXPECT_NEAR(layer_activation_bytes(m, b, t, false, Recompute::kSelective, LayerKind::kMoe),
                sbh * (10 + 8 * e / h + x), 1e-9 * sbh);
    EXPECT_NEAR(layer_activation_bytes(m, b, t, true, Recompute::kNone, LayerKind::kMoe),
                sbh * ((10 + 8 * e / h) / td + x + 5 * a * s / (h * td)), 1e-9 * sbh);
    EXPECT_DOUBLE_EQ(layer_activation_bytes(m, b, t, true, Recompute::kFull, LayerKind::kMoe),
                     2 * sbh / td);
  }
}

TEST(TransformerMoe, DeepSeekV3sLatentAttentionIsMegatronsCount) {
  // DeepSeek-V3's MLA (h 7168, a 128, r_q 1536, r_kv 512, d_n 128, d_r 64, d_v 128, RMSNorm),
  // its dense layer (f 18432) alone.
  TransformerShape m = model_preset("deepseek-v3");
  m.experts = 0;
  require_valid(m);
  // theoretical_memory_usage.py: q_lora_rank (h + a (d_n + d_r) + 1) + kv_lora_rank (h +
  // a (d_n + d_v) + 1) + h d_r + a d_v h.
  EXPECT_DOUBLE_EQ(attention_parameters(m),
                   1536.0 * (7168 + 128 * 192 + 1) + 512.0 * (7168 + 128 * 256 + 1) +
                       7168.0 * 64 + 128.0 * 128 * 7168);
  EXPECT_DOUBLE_EQ(attention_parameters(m), 187107328.0);
  // QK^T over d_qk = 192 and AV over d_v = 128.
  const double s = 4096;
  EXPECT_DOUBLE_EQ(attention_core_flops(m, 1), 2 * s * s * 128 * (192 + 128));
  EXPECT_DOUBLE_EQ(layer_forward_flops(m, 1) - attention_core_flops(m, 1),
                   2 * s * (187107328.0 - 1536 - 512 + 3 * 7168.0 * 18432));
  // Activations: the low-rank paths 4 (r_q + r_kv) outside, Q and K of a d_qk and V and the
  // projection input of a d_v over t.
  const double h = 7168, sbh = s * h;
  const double outside = 10 + 4.0 * (1536 + 512) / h;
  const double x = (4.0 * 128 * 192 + 4.0 * 128 * 128 + 6 * 18432) / (h * 8);
  EXPECT_NEAR(layer_activation_bytes(m, 1, 8, true, Recompute::kSelective),
              sbh * (outside / 8 + x), 1e-9 * sbh);
  EXPECT_DOUBLE_EQ(rotary_traffic_bytes(m, 1, 8), 4 * s * (128.0 * 64 / 8 + 64));
}

TEST(TransformerMoe, HeadDimSetsTheAttentionWidthApartFromTheHiddenSize) {
  // Qwen3-30B-A3B's attention: h 2048, 32 heads and 4 KV heads of 128: q = 4096.
  TransformerShape m{2048, 6144, 32, 4, 48, 4096, 151936, MlpKind::kGated, false,
                     PositionKind::kRotary, LinearBiases::kNone, NormKind::kRmsNorm, 0};
  m.head_dim = 128;
  require_valid(m);
  EXPECT_DOUBLE_EQ(qkv_width(m), 4096 + 2 * 4 * 128);
  EXPECT_DOUBLE_EQ(attention_parameters(m), 2048.0 * 5120 + 4096.0 * 2048);
  EXPECT_DOUBLE_EQ(attention_core_flops(m, 1), 4 * 4096.0 * 4096 * 4096);
  // Q and the projection input are q wide: 2 x 2 q/h = 8 at t 1; K and V 4 k d / h = 1.
  EXPECT_NEAR(layer_activation_bytes(m, 1, 1, false, Recompute::kSelective),
              4096.0 * 2048 * (10 + 8 + 1 + 6 * 6144.0 / 2048), 1e-6);
  m.head_dim = 0;  // 32 heads of 64
  EXPECT_DOUBLE_EQ(qkv_width(m), 2048 + 2 * 4 * 64);
}

TEST(TransformerMoe, WindowedLayersCountTheirBand) {
  // gpt-oss: half of the layers attend over 128 tokens.
  TransformerShape m{2880, 2880, 64, 8, 36, 4096, 201088, MlpKind::kGated, false,
                     PositionKind::kRotary, LinearBiases::kAll, NormKind::kRmsNorm, 128};
  m.head_dim = 64;
  m.window_layers = 18;
  require_valid(m);  // seq 4096 past the window of half of the layers
  const double s = 4096, w = 128, full = 4 * s * s * 4096;
  EXPECT_DOUBLE_EQ(full_attention_core_flops(m, 1), full);
  EXPECT_DOUBLE_EQ(attention_core_flops(m, 1),
                   0.5 * full + 0.5 * 4 * 4096 * (2 * s * w - w * w));
  m.seq = 128;  // a sequence inside the window: every layer is full
  EXPECT_DOUBLE_EQ(attention_core_flops(m, 1), full_attention_core_flops(m, 1));
}

TEST(TransformerMoe, WhatCannotRunIsRefusedNamingTheKey) {
  const auto problem = [](const TransformerShape& m) {
    const std::optional<ShapeProblem> p = shape_problem(m);
    return p ? p->key + ": " + p->message : std::string();
  };
  TransformerShape m = small_moe();
  EXPECT_EQ(problem(m), "");
  m.topk = 9;
  EXPECT_EQ(problem(m), "topk: model.topk 9 is outside [1, model.experts 8]: each token is "
                        "routed to 1 to 8 experts");
  m.topk = 2;
  m.dense_layers = 4;
  EXPECT_EQ(problem(m), "dense_layers: model.dense_layers 4 leaves no MoE layer among the 4 "
                        "layers (an MoE layer is one at or past dense_layers whose index "
                        "model.moe_every 1 divides)");
  m.dense_layers = 1;
  m.capacity_factor = 5;
  EXPECT_EQ(problem(m), "capacity_factor: model.capacity_factor 5 is outside (0, experts / "
                        "topk = 4]: at experts / topk each expert has room for every token of "
                        "the micro-batch (leave it out for dropless routing)");
  m.capacity_factor = 0;
  m.moe_every = 0;
  EXPECT_EQ(problem(m), "moe_every: model.moe_every 0 must be at least 1");
  m.moe_every = 1;
  m.attention = AttentionKind::kMla;
  EXPECT_EQ(problem(m), "kv_lora_rank: model.kv_lora_rank 0 must be at least 1 (model.attention "
                        "\"mla\" needs it)");
  m.kv_lora_rank = 512;
  m.qk_nope_dim = m.qk_rope_dim = m.v_head_dim = 64;
  EXPECT_EQ(problem(m), "kv_heads: model.kv_heads 4 is not model.heads 16: multi-head latent "
                        "attention has a key and a value per head");
  m.kv_heads = 16;
  EXPECT_EQ(problem(m), "");
  EXPECT_EQ(input_error_of([] { parse_attention("gqa"); }),
            "unknown attention 'gqa' (expected one of: mha, mla)");
  EXPECT_EQ(attention_name(parse_attention("mla")), "mla");
}

TEST(Accelerator, PresetsCarryTheirDatasheetFigures) {
  EXPECT_EQ(accelerator_names(),
            "a100-40gb, a100-80gb, h100-sxm, h200, b200, b300, gb200, gb300, mi300x");
  const Accelerator& a100 = accelerator_preset("a100-80gb");
  EXPECT_DOUBLE_EQ(a100.peak_flops_per_s(DType::kBf16), 312e12);
  EXPECT_DOUBLE_EQ(a100.hbm_bytes, 80e9);
  EXPECT_DOUBLE_EQ(a100.hbm_Bps, 2039e9);
  EXPECT_EQ(input_error_of([&] { (void)a100.peak_flops_per_s(DType::kFp8); }),
            "accelerator a100-80gb has no fp8 tensor cores");
  EXPECT_DOUBLE_EQ(accelerator_preset("h100-sxm").peak_flops_per_s(DType::kFp8), 1979e12);
  EXPECT_DOUBLE_EQ(accelerator_preset("h200").hbm_bytes, 141e9);
  EXPECT_DOUBLE_EQ(accelerator_preset("mi300x").hbm_Bps, 5.3e12);
  EXPECT_EQ(input_error_of([] { (void)accelerator_preset("v100"); }),
            "unknown gpu 'v100' (expected one of: a100-40gb, a100-80gb, h100-sxm, h200, b200, "
            "b300, gb200, gb300, mi300x)");
  EXPECT_EQ(parse_dtype("fp8"), DType::kFp8);
}

TEST(Accelerator, MatmulCurveIsHalfEfficientAtItsHalfSize) {
  const MatmulCurve c = accelerator_preset("a100-80gb").matmul;
  EXPECT_DOUBLE_EQ(c.efficiency(c.half_flops), c.max_efficiency / 2);
  EXPECT_NEAR(c.efficiency(1e15), c.max_efficiency, 1e-5);
  EXPECT_DOUBLE_EQ(c.efficiency(0), 0.0);
  // Time = (F + F_half) / (e_max peak): a GEMM at F_half takes twice its ideal time at e_max.
  EXPECT_DOUBLE_EQ(c.gemm_time_s(c.half_flops, 312e12),
                   2 * c.half_flops / (c.max_efficiency * 312e12));
}

}  // namespace
}  // namespace scalewall
