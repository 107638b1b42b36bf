// Implementation of scalewall/io/gpu_file.h on top of toml++.
#include "scalewall/io/gpu_file.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include "scalewall/base/error.h"
#include "scalewall/base/units.h"
#include "scalewall/model/step_model.h"
#include "toml_input.h"

namespace scalewall {
namespace {

// Peaks: 1 GFLOP/s to 1 EFLOP/s, in TFLOP/s as the file writes them.
constexpr double kMinTflops = 1e-3;
constexpr double kMaxTflops = 1e6;
// A curve's e_max: 0.001 to 1 of the peak (a lower one makes no part's GEMMs; the floor keeps
// every GEMM's time finite at every scenario dimension). Its F_half: 0 to 1e18 FLOP.
constexpr double kMinEfficiency = 1e-3;
constexpr double kMaxHalfFlops = 1e18;
// The fused attention kernel's s_half: 0 to 1e9 tokens (its e_max as a curve's).
constexpr double kMaxHalfSeq = 1e9;
constexpr std::int64_t kMaxComputeUnits = 1'000'000;
// HBM: 1 B to 1 EB; its bandwidth 1 B/s to 1 PB/s (a scenario's ranges, step_model.h).
constexpr ValueRange kGpuBytes{RangeUnit::kBytes, 1.0, 1e18, false};
constexpr ValueRange kGpuRate = kScenarioRate;

const std::vector<std::string_view> kTopKeys = {
    "name",       "description", "bf16_tflops",   "fp16_tflops", "fp8_tflops",
    "hbm",        "hbm_bandwidth", "compute_units", "matmul",     "matmul_fp8",
    "fused_attention"};
const std::vector<std::string_view> kCurveKeys = {"max_efficiency", "half_flops"};
const std::vector<std::string_view> kAttentionKeys = {
    "forward_max_efficiency", "forward_half_seq", "backward_max_efficiency", "backward_half_seq"};

// One section of the file: its name ("" at the top) and table, for messages
// "gpu.toml: [matmul] half_flops (line 9): ...".
struct GpuSection {
  const std::string& source;
  std::string_view name;
  const toml::table& table;

  std::string place(std::string_view key) const {
    const std::string section = name.empty() ? "" : fmt::format("[{}] ", name);
    return fmt::format("{}: {}{}{}", source, section, key, line_suffix(table.get(key)));
  }
  [[noreturn]] void fail(std::string_view key, std::string_view what) const {
    throw InputError(fmt::format("{}: {}", place(key), what));
  }
  void reject_unknown(const std::vector<std::string_view>& known) const {
    const std::optional<TomlKey> unknown = first_unknown_key(table, known);
    if (!unknown) return;
    std::string list;
    for (const std::string_view k : known) list += fmt::format("{}{}", list.empty() ? "" : ", ", k);
    fail(unknown->key, fmt::format("unknown key (expected one of: {})", list));
  }
  const toml::node& need(std::string_view key, std::string_view what) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) {
      const std::string section = name.empty() ? "" : fmt::format("[{}] ", name);
      throw InputError(fmt::format("{}: {}{} is missing ({})", source, section, key, what));
    }
    return *node;
  }
};

// The largest decimal exponent a finite number's text can carry (its digits are bounded by
// the file's size); beyond it the text is refused before the exponent is moved.
constexpr long long kMaxExponentText = 1'000'000'000;

// A TFLOP/s figure as written ("989.4", "1.5e3") to FLOP/s: the decimal exponent moved by 12
// on the text itself, so the result is the double nearest the decimal value (989.4e12 exactly
// as the literal), which a multiplication by 1e12 is not always.
double parse_tflops(std::string_view text) {
  const auto bad = [&] { return InputError(fmt::format("'{}' is not a number", one_line(text))); };
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) throw bad();
  const std::size_t e = text.find_first_of("eE");
  long long exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view digits = text.substr(e + 1);
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    const auto [e_end, e_ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    if (e_ec != std::errc() || e_end != digits.data() + digits.size()) throw bad();
    if (exponent > kMaxExponentText || exponent < -kMaxExponentText) throw bad();
  }
  const std::string scaled = fmt::format("{}e{}", text.substr(0, e), exponent + 12);
  double flops = 0;
  const auto scaled_ec = std::from_chars(scaled.data(), scaled.data() + scaled.size(), flops).ec;
  // Out of range here is an overflow (the exponent only grew): above every peak's range.
  if (scaled_ec == std::errc::result_out_of_range) return HUGE_VAL;
  if (scaled_ec != std::errc()) throw bad();
  return flops;
}

// The value of `key`: a string through `parse`, or a bare number given to it as written;
// `expected` says what else was wanted.
double quantity(const GpuSection& s, std::string_view key, double (*parse)(std::string_view),
                std::string_view expected) {
  std::optional<double> value;
  try {
    value = read_toml_quantity(*s.table.get(key), parse);
  } catch (const InputError& e) {
    s.fail(key, e.what());
  }
  if (!value) s.fail(key, expected);
  return *value;
}

// A peak in TFLOP/s: 0.001 to 1e6, or 0 where `zero_is_none` (no such tensor cores).
double read_peak(const GpuSection& s, std::string_view key, bool zero_is_none) {
  const double flops =
      quantity(s, key, parse_tflops, "expected a number of TFLOP/s, such as 989.4");
  if (zero_is_none && flops == 0.0) return 0.0;
  if (!(flops >= kMinTflops * 1e12 && flops <= kMaxTflops * 1e12)) {
    s.fail(key, fmt::format("{} is outside the range {}{} to {} TFLOP/s", written(*s.table.get(key)),
                            zero_is_none ? "0 (none) or " : "", kMinTflops, kMaxTflops));
  }
  return flops;
}

// A size or rate: a string with a unit or a bare SI number, in `range`.
double read_amount(const GpuSection& s, std::string_view key, double (*parse)(std::string_view),
                   const ValueRange& range) {
  const double value = quantity(s, key, parse, "expected a number or a string with a unit");
  if (!in_range(value, range)) {
    s.fail(key, fmt::format("{} is outside the range {}", written(*s.table.get(key)),
                            range_text(range)));
  }
  return value;
}

// A plain number (integer or float) in [lo, hi]; a string is refused (a number in quotes).
double read_number(const GpuSection& s, std::string_view key, double lo, double hi,
                   std::string_view unit) {
  const toml::node& node = *s.table.get(key);
  if (node.is_string()) s.fail(key, "expected a number, not a string");
  const double value = quantity(s, key, parse_number, "expected a number");
  if (!(value >= lo && value <= hi)) {
    s.fail(key, fmt::format("{} is outside the range {} to {}{}", written(node), lo, hi, unit));
  }
  return value;
}

// One line of text (a name or a description): a string without control characters.
std::string read_text(const GpuSection& s, std::string_view key) {
  const toml::node& node = *s.table.get(key);
  const auto* text = node.as_string();
  if (text == nullptr) s.fail(key, fmt::format("expected a string, not {}", type_noun(node)));
  for (const char c : text->get()) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      s.fail(key, fmt::format("{} holds a control character (it is one line of text)",
                              written(node)));
    }
  }
  return text->get();
}

// [matmul] or [matmul_fp8]: e_max and F_half, both required.
MatmulCurve read_curve(const GpuSection& top, std::string_view key) {
  const toml::node& node = top.need(key, "max_efficiency and half_flops of the GEMMs' curve");
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    top.fail(key, fmt::format("expected a [{}] table (max_efficiency, half_flops)", key));
  }
  const GpuSection s{top.source, key, *table};
  s.reject_unknown(kCurveKeys);
  s.need("max_efficiency", "e_max, the fraction of the peak large GEMMs reach");
  s.need("half_flops", "F_half, the GEMM size in FLOPs that runs at half of e_max");
  return {read_number(s, "max_efficiency", kMinEfficiency, 1.0, " of the peak"),
          read_number(s, "half_flops", 0.0, kMaxHalfFlops, " FLOP")};
}

// One direction of [fused_attention]: `<direction>_max_efficiency` and `<direction>_half_seq`.
AttentionCurve read_attention_curve(const GpuSection& s, std::string_view direction) {
  const std::string e = fmt::format("{}_max_efficiency", direction);
  const std::string half = fmt::format("{}_half_seq", direction);
  s.need(e, fmt::format("e_max of the kernel's {}, the fraction of the BF16 peak it reaches on "
                        "long sequences", direction));
  s.need(half, fmt::format("s_half of the kernel's {}, the sequence length in tokens that runs "
                           "at half of e_max", direction));
  return {read_number(s, e, kMinEfficiency, 1.0, " of the peak"),
          read_number(s, half, 0.0, kMaxHalfSeq, " tokens")};
}

// [fused_attention], optional: the fused attention kernel's forward and backward curves, all
// four keys required when the table is given.
std::optional<FusedAttention> read_fused_attention(const GpuSection& top) {
  const toml::node* node = top.table.get("fused_attention");
  if (node == nullptr) return std::nullopt;
  const toml::table* table = node->as_table();
  if (table == nullptr) {
    top.fail("fused_attention",
             "expected a [fused_attention] table (forward_max_efficiency, forward_half_seq, "
             "backward_max_efficiency, backward_half_seq)");
  }
  const GpuSection s{top.source, "fused_attention", *table};
  s.reject_unknown(kAttentionKeys);
  return FusedAttention{read_attention_curve(s, "forward"), read_attention_curve(s, "backward")};
}

// The peaks and curves: bf16 (required), fp16 (default bf16), fp8 (0 or absent: none) with
// [matmul_fp8] exactly when fp8 is above 0.
void read_compute(const GpuSection& top, Accelerator& out) {
  top.need("bf16_tflops", "the dense BF16 peak in TFLOP/s");
  out.bf16_flops_per_s = read_peak(top, "bf16_tflops", false);
  out.fp16_flops_per_s =
      top.table.contains("fp16_tflops") ? read_peak(top, "fp16_tflops", false) : out.bf16_flops_per_s;
  if (top.table.contains("fp8_tflops")) out.fp8_flops_per_s = read_peak(top, "fp8_tflops", true);
  out.matmul = read_curve(top, "matmul");
  if (out.fp8_flops_per_s > 0.0) {
    out.matmul_fp8 = read_curve(top, "matmul_fp8");
  } else if (top.table.contains("matmul_fp8")) {
    top.fail("matmul_fp8", "is given, but fp8_tflops is 0 or absent (the part has no FP8 curve)");
  } else {
    out.matmul_fp8 = out.matmul;
  }
  out.fused_attention = read_fused_attention(top);
}

}  // namespace

Accelerator parse_gpu(std::string_view toml_text, const std::string& source) {
  const toml::table root = parse_toml(toml_text, source);
  const GpuSection top{source, "", root};
  top.reject_unknown(kTopKeys);
  Accelerator out;
  out.name = root.contains("name") ? read_text(top, "name") : source;
  if (out.name.empty()) top.fail("name", "is empty");
  if (root.contains("description")) out.description = read_text(top, "description");
  read_compute(top, out);
  top.need("hbm", "the HBM capacity, such as \"80GB\"");
  out.hbm_bytes = read_amount(top, "hbm", parse_bytes, kGpuBytes);
  top.need("hbm_bandwidth", "the HBM bandwidth, such as \"3.35TB/s\"");
  out.hbm_Bps = read_amount(top, "hbm_bandwidth", parse_rate, kGpuRate);
  if (root.contains("compute_units")) {
    const toml::node& node = *root.get("compute_units");
    const auto* i = node.as_integer();
    if (i == nullptr) {
      top.fail("compute_units", fmt::format("{} is {}", written(node), whole_number_problem(node)));
    }
    if (i->get() < 0 || i->get() > kMaxComputeUnits) {
      top.fail("compute_units", fmt::format("{} is outside the range 0 (not known) to {}",
                                            i->get(), kMaxComputeUnits));
    }
    out.compute_units = static_cast<double>(i->get());
  }
  return out;
}

Accelerator load_gpu_file(const std::string& path) {
  return parse_gpu(read_toml_file(path, "gpu file"), path);
}

bool names_gpu_file(std::string_view name_or_path) {
  if (name_or_path.find('/') != std::string_view::npos) return true;
  return name_or_path.ends_with(".toml") && find_accelerator(name_or_path) == nullptr;
}

Accelerator load_accelerator(const std::string& name_or_path) {
  if (names_gpu_file(name_or_path)) return load_gpu_file(name_or_path);
  return accelerator_preset(name_or_path);
}

namespace {

// `value` / 10^shift in decimal, from the shortest digits that read back as `value`: "989.4"
// for 989.4e12 and shift 12, "80" for 80e9 and shift 9; an exponent beyond 1e15 or below
// 1e-6 in scientific notation ("1.5e20").
std::string scaled_decimal(double value, int shift) {
  if (value == 0.0) return "0";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  SCALEWALL_CHECK(ec == std::errc());
  const std::string_view text(buf, static_cast<std::size_t>(end - buf));
  const std::size_t e = text.find('e');
  std::string digits;
  for (const char c : text.substr(0, e)) {
    if (c != '.' && c != '-') digits += c;
  }
  const std::string_view sign = value < 0 ? "-" : "";
  std::string_view exp_text = text.substr(e + 1);
  if (exp_text.front() == '+') exp_text.remove_prefix(1);
  int exponent = 0;
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  exponent -= shift;
  if (exponent > 15 || exponent < -6) {
    const std::string_view all(digits);
    return fmt::format("{}{}{}{}e{}", sign, all.substr(0, 1), all.size() > 1 ? "." : "",
                       all.substr(1), exponent);
  }
  // Here -6 <= exponent <= 15: the point falls within a few places of the digits.
  if (exponent < 0) {
    return fmt::format("{}0.{}{}", sign, std::string(static_cast<std::size_t>(-exponent - 1), '0'),
                       digits);
  }
  const auto point = static_cast<std::size_t>(exponent) + 1;  // digits before the point
  if (point >= digits.size()) {
    return fmt::format("{}{}{}", sign, digits, std::string(point - digits.size(), '0'));
  }
  return fmt::format("{}{}.{}", sign, digits.substr(0, point), digits.substr(point));
}

// A size or rate in T (from 1e12) or G units where it reads back exactly ("3.35TB/s",
// "2039GB/s", "80GB"), else the bare number.
std::string amount_text(double value, std::string_view unit, double (*parse)(std::string_view)) {
  for (const auto& [shift, prefix] : {std::pair{12, "T"}, std::pair{9, "G"}}) {
    if (value < std::pow(10.0, shift) && shift > 9) continue;  // "80GB", not "0.08TB"
    const std::string with_unit = fmt::format("{}{}{}", scaled_decimal(value, shift), prefix, unit);
    if (parse(with_unit) == value) return fmt::format("\"{}\"", with_unit);
  }
  return scaled_decimal(value, 0);
}

std::string toml_string(const std::string& text) {
  std::ostringstream out;
  out << toml::value<std::string>(text);
  return out.str();
}

std::string curve_text(std::string_view section, const MatmulCurve& c) {
  return fmt::format("\n[{}]\nmax_efficiency = {}\nhalf_flops = {}  # FLOP\n", section,
                     scaled_decimal(c.max_efficiency, 0), scaled_decimal(c.half_flops, 0));
}

// [fused_attention]: absent where the kernel runs on the matmul curve.
std::string attention_text(const FusedAttention& a) {
  return fmt::format(
      "\n# The fused attention kernel at head dimension 128, causal: a kernel of F FLOPs over\n"
      "# s tokens takes F (s + half_seq) / (max_efficiency x s x peak) (docs/models.md).\n"
      "[fused_attention]\nforward_max_efficiency = {}\nforward_half_seq = {}  # tokens\n"
      "backward_max_efficiency = {}\nbackward_half_seq = {}  # tokens\n",
      scaled_decimal(a.forward.max_efficiency, 0), scaled_decimal(a.forward.half_seq, 0),
      scaled_decimal(a.backward.max_efficiency, 0), scaled_decimal(a.backward.half_seq, 0));
}

}  // namespace

std::string gpu_toml(const Accelerator& gpu) {
  SCALEWALL_CHECK(gpu.compute_units == std::floor(gpu.compute_units));
  std::string out = fmt::format(
      "# {}\n# Dense peaks (no sparsity) in TFLOP/s; fp8_tflops = 0: no FP8 tensor cores.\n"
      "# A GEMM of F FLOPs takes (F + half_flops) / (max_efficiency x peak) (docs/models.md).\n"
      "name = {}\ndescription = {}\nbf16_tflops = {}\nfp16_tflops = {}\nfp8_tflops = {}\n"
      "hbm = {}\nhbm_bandwidth = {}\ncompute_units = {}  # SMs or CUs; 0: not known\n",
      gpu.description, toml_string(gpu.name), toml_string(gpu.description),
      scaled_decimal(gpu.bf16_flops_per_s, 12), scaled_decimal(gpu.fp16_flops_per_s, 12),
      scaled_decimal(gpu.fp8_flops_per_s, 12), amount_text(gpu.hbm_bytes, "B", parse_bytes),
      amount_text(gpu.hbm_Bps, "B/s", parse_rate),
      static_cast<std::int64_t>(gpu.compute_units));
  out += curve_text("matmul", gpu.matmul);
  if (gpu.fp8_flops_per_s > 0.0) out += curve_text("matmul_fp8", gpu.matmul_fp8);
  if (gpu.fused_attention) out += attention_text(*gpu.fused_attention);
  return out;
}

}  // namespace scalewall
