// Implementation of scalewall/present/split_plots.h.
#include "scalewall/present/split_plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <string>
#include <vector>

#include "plot_text.h"
#include "scalewall/base/error.h"
#include "scalewall/base/units.h"
#include "scalewall/present/split_tables.h"

namespace scalewall {
namespace {

using plot_text::data_column;
using plot_text::number;
using plot_text::quoted;

// The stacks' axis reaches this far above the tallest bar (or the capacity line), so that the
// label over the bar stays inside the frame.
constexpr double kStackAxisHeadroom = 1.18;

// Memory is drawn in GB (decimal, as every size that leaves the tool).
constexpr double kBytesPerGB = 1e9;

// The memory axis stops at this many times the GPU's capacity: a split far beyond it (pure data
// parallelism of 175B needs 35 times an 80 GB GPU) would otherwise flatten every bar that fits.
// Such a bar is cut at the top of the axis; its label there gives its size and what it lacks.
constexpr double kMemoryAxisCapacities = 1.6;

template <typename... Args>
void put(std::string& out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
  out += '\n';
}

// The colour of each breakdown part (kStepParts) and each memory part (kMemoryParts), in
// their order.
constexpr std::array<std::string_view, kStepParts.size()> kStepColours = {
    "#4c72b0", "#64b5cd", "#dd8452", "#da8bc3", "#a1c9f4", "#ccb974", "#937860",
    "#c44e52", "#55a868", "#8172b3", "#8c8c8c"};

// The colour of `part` (one of kStepParts).
std::string_view step_colour(const StepPart& part) {
  for (std::size_t k = 0; k < kStepParts.size(); ++k) {
    if (kStepParts[k].seconds == part.seconds) return kStepColours[k];
  }
  SCALEWALL_CHECK(false && "not a part of kStepParts");
  return "";
}
constexpr std::array<std::string_view, kMemoryParts.size()> kMemoryColours = {
    "#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8c8c8c"};

void require_splits(std::span<const SplitStep> splits, std::span<const std::string> labels,
                    std::string_view what) {
  if (splits.empty()) throw InputError(fmt::format("{} plot: there are no splits", what));
  if (!labels.empty() && labels.size() != splits.size()) {
    throw InputError(fmt::format("{} plot: {} labels for {} splits", what, labels.size(),
                                 splits.size()));
  }
  for (std::size_t i = 0; i < splits.size(); ++i) {
    if (splits[i].problem != SplitProblem::kNone) {
      throw InputError(fmt::format("{} plot: split {} cannot run ({})", what, i + 1,
                                   split_problem_text(splits[i].problem)));
    }
  }
}

std::string bar_label(std::size_t index, const SplitStep& s,
                      std::span<const std::string> labels) {
  if (!labels.empty()) return labels[index];
  return fmt::format("#{} {}", index + 1, degrees_label(s.split));
}

// The histogram settings both figures share: stacked bars, the key below the plot.
void stack_axes(std::string& c, std::string_view y_label, double top) {
  put(c, "set style data histograms");
  put(c, "set style histogram rowstacked");
  put(c, "set style fill solid 0.9 border rgb '#404040'");
  put(c, "set boxwidth 0.6 relative");
  put(c, "set key outside below center horizontal");
  put(c, "set grid ytics lc rgb '#dddddd'");
  put(c, "set xlabel 'split (tensor, pipeline and data parallel degrees)'");
  put(c, "set ylabel {}", quoted(y_label));
  put(c, "set yrange [0:{}]", number(top));
  // The bar labels are long ("pure ZeRO-3 (tp 1 pp 1 dp 1024)"): slanted, they do not overlap.
  put(c, "set xtics nomirror rotate by 20 right");
  put(c, "set ytics nomirror");
  put(c, "set format y '%g'");
}

// The plot's stacked columns (`columns`: 1-based datablock columns, each scaled by `scale`),
// then a label over each bar from column `label_column` at the height of `top_column`.
std::string stack_command(std::string_view block, const std::vector<int>& columns,
                          const std::vector<std::string_view>& titles,
                          const std::vector<std::string_view>& colours, double scale,
                          int top_column, int label_column) {
  std::string line = "plot ";
  for (std::size_t k = 0; k < columns.size(); ++k) {
    line += fmt::format("${} using (column({}) / {}){} title {} lc rgb '{}', \\\n     ", block,
                        columns[k], number(scale), k == 0 ? ":xtic(1)" : "", quoted(titles[k]),
                        colours[k]);
  }
  line += fmt::format(
      "${} using 0:(column({}) / {}):{} with labels offset character 0, 0.8 notitle", block,
      top_column, number(scale), label_column);
  return line;
}

}  // namespace

Plot split_breakdown_plot(std::span<const SplitStep> splits, std::string_view subject,
                          std::string_view network, std::span<const std::string> labels) {
  require_splits(splits, labels, "split breakdown");
  const std::vector<StepPart> parts = shown_step_parts(splits);
  std::string header = "# split";
  for (const StepPart& p : parts) header += fmt::format(" {}", p.key);
  header += " step_s step_label";
  Plot plot;
  plot.name = "split-breakdown";
  plot.title = fmt::format("MODEL: step time by mechanism of the best splits of {}", subject);
  put(plot.data, "$split_breakdown << EOD");
  put(plot.data, "{}", header);
  double top = 0;
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const SplitStep& s = splits[i];
    std::string row = data_column(bar_label(i, s, labels));
    for (const StepPart& p : parts) row += fmt::format(" {}", number(s.*p.seconds));
    row += fmt::format(" {} {}", number(s.step_s),
                       data_column(s.fits ? format_seconds(s.step_s)
                                          : fmt::format("{}, does not fit",
                                                        format_seconds(s.step_s))));
    put(plot.data, "{}", row);
    top = std::max(top, s.step_s);
  }
  put(plot.data, "EOD");
  std::vector<int> columns;
  std::vector<std::string_view> titles, colours;
  std::string zero;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const StepPart& p = parts[k];
    const bool any = std::any_of(splits.begin(), splits.end(),
                                 [&](const SplitStep& s) { return s.*p.seconds > 0; });
    if (!any && k != 0) {
      zero += (zero.empty() ? "" : ", ") + std::string(p.title);
      continue;
    }
    columns.push_back(static_cast<int>(k) + 2);
    titles.push_back(p.title);
    colours.push_back(step_colour(p));
  }
  plot.subtitle = std::string(network);
  if (!zero.empty()) plot.subtitle += fmt::format("; zero in every split: {}", zero);
  stack_axes(plot.commands, "time per step (s)", (top > 0 ? top : 1.0) * kStackAxisHeadroom);
  const int step_column = static_cast<int>(parts.size()) + 2;
  put(plot.commands, "{}",
      stack_command("split_breakdown", columns, titles, colours, 1.0, step_column,
                    step_column + 1));
  return plot;
}

Plot split_memory_plot(std::span<const SplitStep> splits, std::string_view subject,
                       std::string_view network, std::span<const std::string> labels) {
  require_splits(splits, labels, "memory");
  std::string header = "# split";
  for (const MemoryPart& p : kMemoryParts) header += fmt::format(" {}", p.key);
  header += " memory_per_gpu_bytes memory_limit_bytes label_at_bytes memory_label";
  Plot plot;
  plot.name = "memory";
  plot.title = fmt::format("MODEL: memory per GPU of the best splits of {}", subject);
  put(plot.data, "$memory << EOD");
  put(plot.data, "{}", header);
  const double limit = splits.front().memory_limit_bytes;
  const double cut = kMemoryAxisCapacities * limit;
  double top = limit;
  for (const SplitStep& s : splits) top = std::max(top, std::min(s.memory.total(), cut));
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const SplitStep& s = splits[i];
    std::string row = data_column(bar_label(i, s, labels));
    for (const MemoryPart& p : kMemoryParts) row += fmt::format(" {}", number(s.memory.*p.bytes));
    const std::string label =
        s.fits ? format_bytes(s.memory.total())
               : fmt::format("{}, lacks {}", format_bytes(s.memory.total()),
                             format_bytes(s.lacks_bytes));
    row += fmt::format(" {} {} {} {}", number(s.memory.total()), number(s.memory_limit_bytes),
                       number(std::min(s.memory.total(), top)), data_column(label));
    put(plot.data, "{}", row);
  }
  put(plot.data, "EOD");
  plot.subtitle = fmt::format("{}; GPU memory {} (dashed)", network, format_bytes(limit));
  stack_axes(plot.commands, "memory per GPU (GB), first pipeline stage",
             (top > 0 ? top : 1.0) / kBytesPerGB * kStackAxisHeadroom);
  put(plot.commands,
      "set arrow from graph 0, first {0} to graph 1, first {0} nohead dt 2 lw 2 lc rgb 'black' "
      "front",
      number(limit / kBytesPerGB));
  std::vector<int> columns;
  std::vector<std::string_view> titles, colours;
  for (std::size_t k = 0; k < kMemoryParts.size(); ++k) {
    columns.push_back(static_cast<int>(k) + 2);
    titles.push_back(kMemoryParts[k].title);
    colours.push_back(kMemoryColours[k]);
  }
  const int total_column = static_cast<int>(kMemoryParts.size()) + 2;
  put(plot.commands, "{}",
      stack_command("memory", columns, titles, colours, kBytesPerGB, total_column + 2,
                    total_column + 3));
  return plot;
}

}  // namespace scalewall
