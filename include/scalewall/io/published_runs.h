// scalewall/io/published_runs.h: tables of published training runs (tests/data/published/):
// what was trained (the model's dimensions), on what (GPU, system, count), how (precision,
// batch, parallel degrees) and what it measured (tokens/s or TFLOP/s per GPU).
//
// A table is a CSV (csv_table.h) whose header names its columns; the reader takes the columns it
// knows by name, in any order, and leaves the others:
//   model, task, release, variant, system, gpu, precision, notes          text
//   layers, hidden, ffn_hidden, heads, kv_heads, vocab, experts, topk,    counts; an empty cell
//   moe_ffn_hidden, shared_experts, gpus, seq_len, global_batch,          or "n/a" is not stated
//   micro_batch, fsdp, tp, pp, cp, vp, ep, dp
//   tokens_per_s_per_gpu, tflops_per_gpu                                 numbers (> 0)
// Every count is a whole number from 0 (fsdp, experts, shared_experts) or 1 up to 2^40; an error names the file,
// the line, the column and the cell.
#ifndef SCALEWALL_IO_PUBLISHED_RUNS_H_
#define SCALEWALL_IO_PUBLISHED_RUNS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scalewall {

struct PublishedRun {
  std::string source;   // the table's file name ("megatron_lm_readme_h100_scaling_2024.csv")
  std::int64_t line = 0;
  std::string model, task, release, variant, system, gpu, precision, notes;
  std::optional<std::int64_t> layers, hidden, ffn, heads, kv_heads, vocab, experts;
  std::optional<std::int64_t> topk, moe_ffn, shared_experts;  // a mixture of experts' routing
  std::optional<std::int64_t> gpus, seq, global_batch, micro_batch, fsdp;
  std::optional<std::int64_t> tp, pp, cp, vp, ep, dp;
  std::optional<double> tokens_per_s_per_gpu, tflops_per_gpu;
};

// Reads the table at `path` (through read_input_file). Throws InputError naming the file.
std::vector<PublishedRun> read_published_runs(const std::string& path);
// The same from text held in memory; `path` names it in errors and is the runs' source (its
// file name).
std::vector<PublishedRun> parse_published_runs(std::string_view text, const std::string& path);

}  // namespace scalewall

#endif  // SCALEWALL_IO_PUBLISHED_RUNS_H_
