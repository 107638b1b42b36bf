// Implementation of scalewall/io/published_runs.h.
#include "scalewall/io/published_runs.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <tuple>
#include <utility>

#include "scalewall/base/error.h"
#include "scalewall/base/units.h"
#include "scalewall/io/csv_table.h"
#include "scalewall/io/input_file.h"

namespace scalewall {
namespace {

// The largest count a table may state: 2^40, as every rank count.
constexpr std::int64_t kMaxTableCount = std::int64_t{1} << 40;

bool not_stated(const std::string& cell) { return cell.empty() || cell == "n/a"; }

std::string where(const CsvTable& table, const CsvRow& row, std::string_view column) {
  return fmt::format("{}:{}: {} = '{}'", table.path, row.line, column, table.cell(row, column));
}

std::optional<std::int64_t> count_cell(const CsvTable& table, const CsvRow& row,
                                       std::string_view column, std::int64_t least) {
  const std::string cell = table.cell(row, column);
  if (not_stated(cell)) return std::nullopt;
  try {
    return parse_count(cell, least, kMaxTableCount);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", where(table, row, column), e.what()));
  }
}

std::optional<double> rate_cell(const CsvTable& table, const CsvRow& row,
                                std::string_view column) {
  const std::string cell = table.cell(row, column);
  if (not_stated(cell)) return std::nullopt;
  double v = 0;
  try {
    v = parse_number(cell);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", where(table, row, column), e.what()));
  }
  if (!(v > 0) || !std::isfinite(v) || v > 1e15) {
    throw InputError(fmt::format("{}: must be a number above 0 and at most 1e15",
                                 where(table, row, column)));
  }
  return v;
}

PublishedRun run_of(const CsvTable& table, const CsvRow& row, const std::string& source) {
  PublishedRun r;
  r.source = source;
  r.line = row.line;
  for (auto [field, column] : std::array<std::pair<std::string PublishedRun::*, const char*>, 8>{
           {{&PublishedRun::model, "model"},
            {&PublishedRun::task, "task"},
            {&PublishedRun::release, "release"},
            {&PublishedRun::variant, "variant"},
            {&PublishedRun::system, "system"},
            {&PublishedRun::gpu, "gpu"},
            {&PublishedRun::precision, "precision"},
            {&PublishedRun::notes, "notes"}}}) {
    r.*field = table.cell(row, column);
  }
  using Count = std::optional<std::int64_t> PublishedRun::*;
  for (auto [field, column, least] : std::array<std::tuple<Count, const char*, std::int64_t>, 21>{
           {{&PublishedRun::layers, "layers", 1},
            {&PublishedRun::hidden, "hidden", 1},
            {&PublishedRun::ffn, "ffn_hidden", 1},
            {&PublishedRun::heads, "heads", 1},
            {&PublishedRun::kv_heads, "kv_heads", 1},
            {&PublishedRun::vocab, "vocab", 1},
            {&PublishedRun::experts, "experts", 0},
            {&PublishedRun::topk, "topk", 1},
            {&PublishedRun::moe_ffn, "moe_ffn_hidden", 1},
            {&PublishedRun::shared_experts, "shared_experts", 0},
            {&PublishedRun::gpus, "gpus", 1},
            {&PublishedRun::seq, "seq_len", 1},
            {&PublishedRun::global_batch, "global_batch", 1},
            {&PublishedRun::micro_batch, "micro_batch", 1},
            {&PublishedRun::fsdp, "fsdp", 0},
            {&PublishedRun::tp, "tp", 1},
            {&PublishedRun::pp, "pp", 1},
            {&PublishedRun::cp, "cp", 1},
            {&PublishedRun::vp, "vp", 1},
            {&PublishedRun::ep, "ep", 1},
            {&PublishedRun::dp, "dp", 1}}}) {
    r.*field = count_cell(table, row, column, least);
  }
  r.tokens_per_s_per_gpu = rate_cell(table, row, "tokens_per_s_per_gpu");
  r.tflops_per_gpu = rate_cell(table, row, "tflops_per_gpu");
  return r;
}

}  // namespace

std::vector<PublishedRun> parse_published_runs(std::string_view text, const std::string& path) {
  const CsvTable table = parse_csv_table(text, path);
  const std::string source = std::filesystem::path(path).filename().string();
  std::vector<PublishedRun> runs;
  runs.reserve(table.rows.size());
  for (const CsvRow& row : table.rows) runs.push_back(run_of(table, row, source));
  return runs;
}

std::vector<PublishedRun> read_published_runs(const std::string& path) {
  return parse_published_runs(read_input_file(path, "table of published runs"), path);
}

}  // namespace scalewall
