// scalewall select: the selection map of one collective: the cheapest algorithm on a grid of
// rank counts x message sizes, the exact size at which the winner changes for each rank
// count, and, with --selector, what MPICH's or Open MPI's fixed rules pick for the same calls
// and what that costs against the model's best.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/common.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/nccl.h"
#include "scalewall/platform/gnuplot.h"
#include "scalewall/present/plot.h"
#include "scalewall/model/scaling.h"
#include "scalewall/analysis/select.h"
#include "scalewall/analysis/select_compare.h"
#include "scalewall/present/select_report.h"
#include "scalewall/base/units.h"

namespace scalewall::cli {
namespace {

constexpr std::size_t kMaxAxis = 64;  // rank counts, and sizes: at most 64 x 64 cells

struct SelectFlags {
  std::string op = "allreduce";
  std::string ranks = "2..1024";
  std::string bytes = "1..1GiB";
  std::string step = "4";
  FabricFlags fabric;
  std::string gamma;  // empty: the fabric's gamma (0 without one)
  std::string chunk = "512KiB";
  std::string selector;
  std::string plot;
  std::string format = "table";
  const CLI::Option* ranks_option = nullptr;
  const CLI::Option* bytes_option = nullptr;
};

// "A,B,C": those sizes, in order, each at least 1 B and given once.
std::vector<double> read_size_list(const std::string& text) {
  std::vector<double> sizes;
  for (std::size_t from = 0; from <= text.size();) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const std::string item = text.substr(from, comma - from);
    if (item.find("..") != std::string::npos) {
      throw InputError(fmt::format("--bytes: '{}' mixes a range and a list; give A..B or a "
                                   "list A,B,C",
                                   text));
    }
    const double m = flag_bytes("--bytes", item);
    if (m < 1.0) {
      throw InputError(fmt::format("--bytes: size '{}' in '{}' is below 1 B", item, text));
    }
    if (sizes.size() == kMaxAxis) {
      throw InputError(fmt::format("--bytes: '{}' holds more than {} sizes", text, kMaxAxis));
    }
    sizes.push_back(m);
    from = comma + 1;
  }
  std::sort(sizes.begin(), sizes.end());
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    if (sizes[i] == sizes[i - 1]) {
      throw InputError(fmt::format("--bytes: {} B is listed twice in '{}'", sizes[i], text));
    }
  }
  return sizes;
}

// What an error costing the map is reported under: --ranks or --bytes when given (a rank
// count the fabric cannot place, a size too large to cost), else the network.
std::string costing_blame(const SelectFlags& flags) {
  if (given(flags.ranks_option)) return "--ranks";
  if (given(flags.bytes_option)) return "--bytes";
  if (!flags.fabric.fabric.empty()) return fabric_blame(flags.fabric);
  if (!flags.fabric.alpha.empty()) return "--alpha";
  return flags.fabric.bandwidth.empty() ? "" : "--bandwidth";
}

// "A..B": A, A*step, A*step^2, ... up to B, and B itself (the upper end of a range is always
// a row, "1..1GB" ends at 1 GB, not at 256 MiB); a list "A,B,C"; or a single size "A". A >= 1
// (the grid is logarithmic).
std::vector<double> read_size_grid(const std::string& text, double step) {
  if (text.find(',') != std::string::npos) return read_size_list(text);
  const auto dots = text.find("..");
  const double a = flag_bytes("--bytes", dots == std::string::npos ? text : text.substr(0, dots));
  const double b = dots == std::string::npos ? a : flag_bytes("--bytes", text.substr(dots + 2));
  if (a < 1.0) {
    throw InputError(fmt::format(
        "--bytes: range '{}' starts at {} B; the sizes grow by a factor, so start at 1 B or "
        "more",
        text, a));
  }
  if (a > b) {
    throw InputError(fmt::format("--bytes: range '{}' runs backwards ({} B > {} B)", text, a, b));
  }
  std::vector<double> sizes;
  for (double m = a; m <= b; m *= step) {
    if (sizes.size() == kMaxAxis) {
      throw InputError(fmt::format(
          "--bytes: range '{}' with step {} holds more than {} sizes; narrow it or use --step 4",
          text, step, kMaxAxis));
    }
    sizes.push_back(m);
  }
  // B off the grid: one more column. A relative tolerance, since B is read from text
  // and A*step^k is exact only for powers of two.
  constexpr double kSameSize = 1e-12;
  if (b > sizes.back() * (1 + kSameSize)) {
    if (sizes.size() == kMaxAxis) {
      throw InputError(fmt::format(
          "--bytes: range '{}' with step {} holds more than {} sizes; narrow it or use --step 4",
          text, step, kMaxAxis));
    }
    sizes.push_back(b);
  }
  return sizes;
}

std::vector<std::int64_t> read_rank_grid(const std::string& text) {
  std::vector<std::int64_t> ranks = flag_rank_range("--ranks", text);
  std::sort(ranks.begin(), ranks.end());
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    if (ranks[i] == ranks[i - 1]) {
      throw InputError(fmt::format("--ranks: {} is listed twice in '{}'", ranks[i], text));
    }
  }
  if (ranks.size() > kMaxAxis) {
    throw InputError(fmt::format("--ranks: '{}' holds {} rank counts; at most {} fit a map",
                                 text, ranks.size(), kMaxAxis));
  }
  return ranks;
}

// NCCL's pick per (rank count, size): one row each, NCCL_ALGO and NCCL_PROTO names.
Report nccl_select(Op op, const std::vector<std::int64_t>& ranks, const std::vector<double>& bytes,
                   const Topology& base, const std::string& blame) {
  const std::vector<NcclSelectionRow> map = with_blame(blame, [&] {
    return nccl_selection_map(op, ranks, bytes,
                              [&](std::int64_t r) { return scaled_topology(base, r); });
  });
  Report report = model_report("select");
  report.title = fmt::format("NCCL's choice for {} on {}: {} rank counts x {} sizes",
                             op_name(op), describe_topology(base), ranks.size(), bytes.size());
  report.inputs["op"] = std::string(op_name(op));
  report.inputs["ranks"] = ranks;
  report.inputs["bytes"] = bytes;
  report.inputs["fabric"] = topology_inputs(base);
  report.inputs["selector"] = "nccl";
  Table table{"picks",
              {{"ranks", "ranks", Unit::kCount},
               {"bytes", "size", Unit::kBytes},
               {"algorithm", "NCCL_ALGO", Unit::kText},
               {"protocol", "NCCL_PROTO", Unit::kText},
               {"channels", "channels", Unit::kCount},
               {"total_s", "total", Unit::kSeconds},
               {"busbw_Bps", "busbw", Unit::kRate}},
              {},
              {}};
  for (const NcclSelectionRow& row : map) {
    for (std::size_t i = 0; i < row.picks.size(); ++i) {
      const NcclCost& c = row.picks[i];
      const bool changes = i > 0 && (c.algorithm != row.picks[i - 1].algorithm ||
                                     c.protocol != row.picks[i - 1].protocol);
      Value algo;
      Value proto;
      if (row.ranks > 1) {
        algo = std::string(nccl_algorithm_name(c.algorithm));
        proto = std::string(nccl_protocol_name(c.protocol));
      }
      table.add_row({row.ranks, bytes[i], algo, proto, std::int64_t{c.channels}, c.total_s,
                     c.busbw_Bps ? Value{*c.busbw_Bps} : Value{}},
                    changes ? "<-- NCCL switches" : "");
    }
  }
  report.tables.push_back(std::move(table));
  report.add_field("selector", "selector", Unit::kText, std::string("nccl"));
  const NcclRelease release = nccl_tables_release(base.gpu.nccl_release);
  report.add_field("nccl_version", "NCCL release that picks", Unit::kText,
                   nccl_release_name(release));
  if (release != kNcclModelRelease) {
    report.notes.push_back(fmt::format(
        "NCCL {}'s tuning tables pick (--nccl-version or the fabric's nccl_version{}); NCCL "
        "{}'s price the pick (docs/models.md, \"NCCL releases\").",
        nccl_release_name(release),
        release != *base.gpu.nccl_release
            ? fmt::format(": {} picks as {} does, the nearest release the model holds",
                          nccl_release_name(*base.gpu.nccl_release), nccl_release_name(release))
            : "",
        kNcclModelVersion));
  }
  report.notes.push_back(
      "NCCL's own tuning model (NCCL 2.30.7): per call the (algorithm, protocol) of least "
      "latency + bytes / bandwidth; docs/models.md has its constants. The total adds what "
      "NCCL's figure leaves out: the pipeline fill of an NVLS or NVLSTree all-reduce, "
      "inside one node the ring kernel's step latency on every slice it passes, and inside "
      "one Ampere node the LL and LL128 lines written into the peer at 0.77 of the link's "
      "bandwidth. "
      "--selector mpi maps the MPI algorithms instead.");
  return report;
}

Report run_select(const SelectFlags& flags) {
  const Format format = with_flag("--format", [&] { return parse_format(flags.format); });
  if (!flags.plot.empty()) with_flag("--plot", [&] { return plot_format_for_path(flags.plot); });
  const Op op = with_flag("--op", [&] { return parse_op(flags.op); });
  const std::int64_t step = flag_count("--step", flags.step, 1, 1 << 20);
  if (step != 2 && step != 4) {
    throw InputError(fmt::format("--step: {} is not 2 or 4 (the factor between sizes)", step));
  }
  std::vector<std::int64_t> ranks = read_rank_grid(flags.ranks);
  std::vector<double> bytes = read_size_grid(flags.bytes, static_cast<double>(step));
  CostOptions options;
  options.tree_chunk_bytes = flag_bytes("--chunk", flags.chunk);
  if (!(options.tree_chunk_bytes > 0)) {
    throw InputError(fmt::format("--chunk: chunk size '{}' must be above zero", flags.chunk));
  }
  // The network: a flat link, or a fabric scaled to each rank count.
  const bool on_fabric = !flags.fabric.fabric.empty();
  const Topology base =
      on_fabric ? resolve_topology(flags.fabric, std::nullopt)
                : resolve_topology(flags.fabric, std::optional<std::int64_t>{1});
  const bool gpu = on_fabric && base.rank_kind == RankKind::kGpu;
  if (flags.selector == "nccl") with_flag("--selector", [&] { return nccl_fabric(base); });
  const bool automatic = flags.selector.empty() || flags.selector == "auto";
  if (flags.selector == "nccl" || (automatic && gpu && nccl_is_default(op, base))) {
    if (!flags.plot.empty()) {
      throw InputError("--plot: the plot draws the MPI selection map; add --selector mpi");
    }
    return nccl_select(op, ranks, bytes, base, costing_blame(flags));
  }
  std::optional<Selector> selector;
  if (!automatic && flags.selector != "mpi") {
    selector = with_flag("--selector", [&] { return parse_selector(flags.selector); });
  }
  use_local_costs(options, base, flags.gamma);
  const std::size_t rows = ranks.size();
  const std::size_t columns = bytes.size();
  SelectionGrid grid = with_blame(costing_blame(flags), [&] {
    return selection_grid(op, std::move(ranks), std::move(bytes), options, base, on_fabric);
  });
  const Progress progress("select");
  progress.say(fmt::format("costing {} rank counts x {} sizes", rows, columns));
  const SelectionStudy study = study_selection(std::move(grid), selector);

  SelectionCall call;
  call.step = step;
  call.network = on_fabric ? describe_topology(base)
                           : describe_topology(flat_topology(1, base.inter));
  if (on_fabric) call.fabric_inputs = topology_inputs(base);
  if (!flags.plot.empty()) {
    RenderOptions plot_options;
    plot_options.inputs = {flags.fabric.fabric};
    with_output_flag("--plot", [&] {
      return render_plot(selection_map_plot(study.map, call.network), flags.plot, plot_options);
    });
  }
  return selection_report(study, format, call);
}

}  // namespace

void register_select(CLI::App& app) {
  auto flags = std::make_shared<SelectFlags>();
  const FlagGroup own = {
      {"--op", &flags->op, "Collective: " + op_names(), "OP", "allreduce"},
      {"--ranks,-n", &flags->ranks,
       "Rank counts: A..B (A, the powers of two between, and B) or a list 8,24,64; with "
       "--fabric each must fill whole nodes or fit in one",
       "A..B", "2..1024", FlagKind::kOptional, &flags->ranks_option},
      {"--bytes,-m", &flags->bytes,
       "Message sizes m per rank (nccl-tests convention): A..B is A, A*step, ... up to B, "
       "A >= 1; or a list 4KiB,1MiB,64MiB",
       "A..B", "1..1GiB", FlagKind::kOptional, &flags->bytes_option},
      {"--step", &flags->step, "Factor between neighbouring sizes: 2 or 4", "2|4", "4"},
  };
  const FlagGroup cost = {
      {"--gamma", &flags->gamma,
       "Reduction arithmetic cost per byte reduced (0.1ns means 10 GB/s). Default: the "
       "fabric's gamma, else 0",
       "G"},
      {"--chunk", &flags->chunk, "Pipeline chunk of the double binary tree", "SIZE", "512KiB"},
      {"--selector", &flags->selector,
       "What picks per cell (SELECTOR): nccl (NCCL's algorithm and protocol, NCCL_ALGO and "
       "NCCL_PROTO names; the default on a GPU fabric such as --fabric dgx-h100), mpi (the "
       "cheapest MPI algorithm; the default otherwise), or mpi plus what MPICH's classic rules "
       "(mpich) or Open MPI 4.1's tuned fixed rules (ompi) pick, and its cost against the "
       "model's best; auto: the default",
       "SELECTOR"},
      {"--plot", &flags->plot,
       "Also draw the selection map to FILE (.svg or .png; needs gnuplot)", "FILE", {},
       FlagKind::kFileName},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "select",
      "Selection map of one collective: the cheapest algorithm for each rank count and "
      "message size, the exact sizes where the winner changes, and (--selector) what MPICH or "
      "Open MPI would pick instead and what that costs.",
      {own, fabric_flags(&flags->fabric), cost},
      "Small messages pay for steps (alpha), large ones for bytes (beta), so the winner\n"
      "changes with size, and where it changes moves with the rank count.\n"
      "\n"
      "Examples:\n"
      "  scalewall select --ranks 64 --bytes 1..1GiB\n"
      "      recursive doubling below about 93 KB, Rabenseifner above\n"
      "  scalewall select --fabric examples/fabrics/dgx-h100-ndr.toml --ranks 8..128\n"
      "      where the hierarchical all-reduce takes over on 8-GPU nodes\n"
      "  scalewall select --ranks 2..4096 --bytes 1..64MiB --selector ompi\n"
      "      where Open MPI's fixed rules differ from the model, and by how much\n"
      "  scalewall select --fabric dgx-a100 --ranks 8,16,64 --bytes 1KiB..1GiB\n"
      "      NCCL's Ring/Tree x LL/LL128/Simple pick per size on DGX A100 nodes"});
  cmd->callback([flags] { emit(run_select(*flags), flags->format); });
}

}  // namespace scalewall::cli
