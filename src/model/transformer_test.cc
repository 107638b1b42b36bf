// Tests of scalewall/model/transformer.h and accelerator.h against the closed forms of
// Narayanan et al. 2021 and Korthikanti et al. 2022, and the datasheet figures.
#include "scalewall/model/transformer.h"

#include <gtest/gtest.h>

#include "scalewall/model/accelerator.h"
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
