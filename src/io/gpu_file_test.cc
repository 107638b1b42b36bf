// Tests of scalewall/io/gpu_file.h: a good file, each bad value refused naming its key and
// value, unknown keys, the name-or-path rule, and every preset written and read back.
#include "scalewall/io/gpu_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "scalewall/base/error.h"
#include "test_support.h"

namespace scalewall {
namespace {

constexpr const char* kGood =
    "name = \"my-gpu\"\n"
    "description = \"a test part\"\n"
    "bf16_tflops = 989.4\n"
    "fp8_tflops = 1979\n"
    "hbm = \"80GB\"\n"
    "hbm_bandwidth = \"3.35TB/s\"\n"
    "compute_units = 132\n"
    "[matmul]\n"
    "max_efficiency = 0.8\n"
    "half_flops = 2e9\n"
    "[matmul_fp8]\n"
    "max_efficiency = 0.7\n"
    "half_flops = 4e9\n";

std::string error_of(const std::string& text) {
  return input_error_of([&] { (void)parse_gpu(text, "g.toml"); });
}

// kGood with the first line starting `start` ("hbm =", "half_flops = 4e9") replaced by
// `line`, or dropped when `line` is empty; a bare key stands for "key =".
std::string with(const std::string& start, const std::string& line) {
  std::string text = kGood;
  const std::string prefix = start.find('=') == std::string::npos ? start + " =" : start;
  const std::size_t at = text.find(prefix);
  EXPECT_NE(at, std::string::npos) << start;
  const std::size_t end = text.find('\n', at);
  text.replace(at, end - at + 1, line.empty() ? "" : line + "\n");
  return text;
}

TEST(GpuFile, AGoodFileReadsEveryFigure) {
  const Accelerator a = parse_gpu(kGood, "g.toml");
  EXPECT_EQ(a.name, "my-gpu");
  EXPECT_EQ(a.description, "a test part");
  EXPECT_EQ(a.bf16_flops_per_s, 989.4e12);  // the decimal scaled, not 989.4 x 1e12
  EXPECT_EQ(a.fp16_flops_per_s, 989.4e12);  // defaults to bf16
  EXPECT_EQ(a.fp8_flops_per_s, 1979e12);
  EXPECT_EQ(a.hbm_bytes, 80e9);
  EXPECT_DOUBLE_EQ(a.hbm_Bps, 3.35e12);
  EXPECT_EQ(a.compute_units, 132);
  EXPECT_EQ(a.matmul.max_efficiency, 0.8);
  EXPECT_EQ(a.matmul.half_flops, 2e9);
  EXPECT_EQ(a.curve(DType::kFp8).max_efficiency, 0.7);
  EXPECT_EQ(a.curve(DType::kFp8).half_flops, 4e9);
  // Without FP8: no [matmul_fp8], and the name defaults to the file's.
  const Accelerator b = parse_gpu(
      "bf16_tflops = 100\nhbm = 1e9\nhbm_bandwidth = 1e12\n[matmul]\nmax_efficiency = 1\n"
      "half_flops = 0\n",
      "dir/b.toml");
  EXPECT_EQ(b.name, "dir/b.toml");
  EXPECT_FALSE(b.supports(DType::kFp8));
  EXPECT_EQ(b.compute_units, 0);
  EXPECT_EQ(b.matmul.half_flops, 0);
}

TEST(GpuFile, EachBadValueIsRefusedNamingItsKeyAndValue) {
  EXPECT_EQ(error_of(with("bf16_tflops", "bf16_tflops = -5")),
            "g.toml: bf16_tflops (line 3): -5 is outside the range 0.001 to 1000000 TFLOP/s");
  EXPECT_EQ(error_of(with("bf16_tflops", "bf16_tflops = 0")),
            "g.toml: bf16_tflops (line 3): 0 is outside the range 0.001 to 1000000 TFLOP/s");
  EXPECT_EQ(error_of(with("bf16_tflops", "bf16_tflops = nan")),
            "g.toml: bf16_tflops (line 3): 'nan' is not a number");
  EXPECT_EQ(error_of(with("bf16_tflops", "bf16_tflops = 2e6")),
            "g.toml: bf16_tflops (line 3): 2000000.0 is outside the range 0.001 to 1000000 "
            "TFLOP/s");
  EXPECT_EQ(error_of(with("bf16_tflops", "bf16_tflops = true")),
            "g.toml: bf16_tflops (line 3): expected a number of TFLOP/s, such as 989.4");
  EXPECT_EQ(error_of(with("fp8_tflops", "fp8_tflops = -1")),
            "g.toml: fp8_tflops (line 4): -1 is outside the range 0 (none) or 0.001 to "
            "1000000 TFLOP/s");
  EXPECT_EQ(error_of(with("hbm", "hbm = \"80Gb\"")).substr(0, 27), "g.toml: hbm (line 5): unkno");
  EXPECT_EQ(error_of(with("hbm", "hbm = 0")),
            "g.toml: hbm (line 5): 0 is outside the range 1 B to 1 EB");
  EXPECT_EQ(error_of(with("hbm_bandwidth", "hbm_bandwidth = \"2PB/s\"")),
            "g.toml: hbm_bandwidth (line 6): '2PB/s' is outside the range 1 B/s to 1 PB/s");
  EXPECT_EQ(error_of(with("compute_units", "compute_units = 1.5")),
            "g.toml: compute_units (line 7): 1.5 is a float, not a whole number");
  EXPECT_EQ(error_of(with("compute_units", "compute_units = -1")),
            "g.toml: compute_units (line 7): -1 is outside the range 0 (not known) to 1000000");
  EXPECT_EQ(error_of(with("max_efficiency = 0.8", "max_efficiency = 1.5")),
            "g.toml: [matmul] max_efficiency (line 9): 1.5 is outside the range 0.001 to 1 of "
            "the peak");
  EXPECT_EQ(error_of(with("max_efficiency = 0.8", "max_efficiency = 0")),
            "g.toml: [matmul] max_efficiency (line 9): 0 is outside the range 0.001 to 1 of the "
            "peak");
  EXPECT_EQ(error_of(with("half_flops = 4e9", "half_flops = -1")),
            "g.toml: [matmul_fp8] half_flops (line 13): negative number '-1' is not allowed");
  EXPECT_EQ(error_of(with("half_flops = 4e9", "half_flops = 2e18")),
            "g.toml: [matmul_fp8] half_flops (line 13): 2e+18 is outside the range 0 to 1e+18 "
            "FLOP");
  EXPECT_EQ(error_of(with("half_flops = 4e9", "half_flops = nan")),
            "g.toml: [matmul_fp8] half_flops (line 13): number 'nan' is not a finite number");
  EXPECT_EQ(error_of(with("half_flops = 2e9", "half_flops = \"2e9\"")),
            "g.toml: [matmul] half_flops (line 10): expected a number, not a string");
  EXPECT_EQ(error_of(with("name", "name = \"a\\nb\"")),
            "g.toml: name (line 1): 'a\\nb' holds a control character (it is one line of "
            "text)");
}

TEST(GpuFile, MissingAndUnknownKeysAreRefused) {
  EXPECT_EQ(error_of(with("bf16_tflops", "")),
            "g.toml: bf16_tflops is missing (the dense BF16 peak in TFLOP/s)");
  EXPECT_EQ(error_of(with("hbm", "")),
            "g.toml: hbm is missing (the HBM capacity, such as \"80GB\")");
  EXPECT_EQ(error_of(with("name", "sms = 132")),
            "g.toml: sms (line 1): unknown key (expected one of: name, description, "
            "bf16_tflops, fp16_tflops, fp8_tflops, hbm, hbm_bandwidth, compute_units, matmul, "
            "matmul_fp8, fused_attention)");
  EXPECT_EQ(error_of(with("half_flops = 2e9", "f_half = 2e9")),
            "g.toml: [matmul] f_half (line 10): unknown key (expected one of: max_efficiency, "
            "half_flops)");
  EXPECT_EQ(error_of(with("fp8_tflops", "")),
            "g.toml: matmul_fp8 (line 10): is given, but fp8_tflops is 0 or absent (the part "
            "has no FP8 curve)");
  const std::string good = kGood;
  const std::string no_fp8_curve = good.substr(0, good.find("[matmul_fp8]"));
  EXPECT_EQ(error_of(no_fp8_curve),
            "g.toml: matmul_fp8 is missing (max_efficiency and half_flops of the GEMMs' curve)");
  EXPECT_EQ(error_of("bf16_tflops = 1\nhbm = 1e9\nhbm_bandwidth = 1e9\nmatmul = 3\n"),
            "g.toml: matmul (line 4): expected a [matmul] table (max_efficiency, half_flops)");
}

constexpr const char* kAttention =
    "[fused_attention]\n"
    "forward_max_efficiency = 0.7\n"
    "forward_half_seq = 863\n"
    "backward_max_efficiency = 0.59\n"
    "backward_half_seq = 1168\n";

TEST(GpuFile, FusedAttentionIsOptionalAndReadWhole) {
  EXPECT_FALSE(parse_gpu(kGood, "g.toml").fused_attention.has_value());
  const Accelerator a = parse_gpu(std::string(kGood) + kAttention, "g.toml");
  ASSERT_TRUE(a.fused_attention.has_value());
  EXPECT_EQ(a.fused_attention->forward.max_efficiency, 0.7);
  EXPECT_EQ(a.fused_attention->forward.half_seq, 863);
  EXPECT_EQ(a.fused_attention->backward.max_efficiency, 0.59);
  EXPECT_EQ(a.fused_attention->backward.half_seq, 1168);
}

TEST(GpuFile, BadFusedAttentionIsRefusedNamingItsKey) {
  // Each case: the key whose line in kAttention (after kGood's 13 lines) is replaced, the line
  // put there ("": dropped), and the message after "g.toml: [fused_attention] ".
  struct Case {
    const char* key;
    const char* line;
    const char* message;
  };
  const Case cases[] = {
      {"backward_half_seq", "",
       "backward_half_seq is missing (s_half of the kernel's backward, the sequence length in "
       "tokens that runs at half of e_max)"},
      {"forward_max_efficiency", "forward_max_efficiency = 0",
       "forward_max_efficiency (line 15): 0 is outside the range 0.001 to 1 of the peak"},
      {"forward_max_efficiency", "forward_max_efficiency = 1.5",
       "forward_max_efficiency (line 15): 1.5 is outside the range 0.001 to 1 of the peak"},
      {"forward_half_seq", "forward_half_seq = 2e9",
       "forward_half_seq (line 16): 2000000000.0 is outside the range 0 to 1000000000 tokens"},
      {"forward_half_seq", "forward_half_seq = -1",
       "forward_half_seq (line 16): negative number '-1' is not allowed"},
      {"backward_half_seq", "half_seq = 3",
       "half_seq (line 18): unknown key (expected one of: forward_max_efficiency, "
       "forward_half_seq, backward_max_efficiency, backward_half_seq)"},
  };
  for (const Case& c : cases) {
    std::string text = std::string(kGood) + kAttention;
    const std::size_t at = text.find(std::string(c.key) + " =");
    const std::string line = *c.line == '\0' ? "" : std::string(c.line) + "\n";
    text.replace(at, text.find('\n', at) - at + 1, line);
    EXPECT_EQ(error_of(text), std::string("g.toml: [fused_attention] ") + c.message) << c.line;
  }
  EXPECT_EQ(error_of("fused_attention = 1\n" + std::string(kGood)),
            "g.toml: fused_attention (line 1): expected a [fused_attention] table "
            "(forward_max_efficiency, forward_half_seq, backward_max_efficiency, "
            "backward_half_seq)");
}

TEST(GpuFile, APresetNameOrAPath) {
  EXPECT_FALSE(names_gpu_file("h100-sxm"));
  EXPECT_FALSE(names_gpu_file("v100"));  // an unknown preset, refused as one
  EXPECT_TRUE(names_gpu_file("my.toml"));
  EXPECT_TRUE(names_gpu_file("gpus/h100-sxm"));
  EXPECT_EQ(load_accelerator("h200").hbm_bytes, 141e9);
  EXPECT_EQ(input_error_of([] { (void)load_accelerator("v100"); }).substr(0, 40),
            "unknown gpu 'v100' (expected one of: a10");
  EXPECT_EQ(input_error_of([] { (void)load_accelerator("missing.toml"); }).substr(0, 40),
            "cannot open gpu file 'missing.toml': no ");
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "scalewall_gpu_file_test.toml";
  std::ofstream(path) << kGood;
  EXPECT_EQ(load_accelerator(path.string()).name, "my-gpu");
  std::filesystem::remove(path);
}

bool same(const MatmulCurve& a, const MatmulCurve& b) {
  return a.max_efficiency == b.max_efficiency && a.half_flops == b.half_flops;
}

// `scalewall gpus NAME --toml` of every preset reads back the same part, every double bit for
// bit.
TEST(GpuFile, EveryPresetWrittenReadsBackTheSame) {
  for (const Accelerator& p : accelerator_presets()) {
    const std::string text = gpu_toml(p);
    const Accelerator a = parse_gpu(text, "preset.toml");
    EXPECT_EQ(a.name, p.name);
    EXPECT_EQ(a.description, p.description);
    EXPECT_EQ(a.bf16_flops_per_s, p.bf16_flops_per_s) << text;
    EXPECT_EQ(a.fp16_flops_per_s, p.fp16_flops_per_s) << text;
    EXPECT_EQ(a.fp8_flops_per_s, p.fp8_flops_per_s) << text;
    EXPECT_EQ(a.hbm_bytes, p.hbm_bytes) << text;
    EXPECT_EQ(a.hbm_Bps, p.hbm_Bps) << text;
    EXPECT_EQ(a.compute_units, p.compute_units) << text;
    EXPECT_TRUE(same(a.matmul, p.matmul)) << text;
    EXPECT_TRUE(same(a.matmul_fp8, p.matmul_fp8)) << text;
    ASSERT_EQ(a.fused_attention.has_value(), p.fused_attention.has_value()) << text;
    if (p.fused_attention) {
      for (const auto member : {&FusedAttention::forward, &FusedAttention::backward}) {
        const AttentionCurve& got = (*a.fused_attention).*member;
        const AttentionCurve& want = (*p.fused_attention).*member;
        EXPECT_EQ(got.max_efficiency, want.max_efficiency) << text;
        EXPECT_EQ(got.half_seq, want.half_seq) << text;
      }
    }
  }
}

}  // namespace
}  // namespace scalewall
