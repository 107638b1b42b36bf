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
