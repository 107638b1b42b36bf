// scalewall collective: the cost of every applicable algorithm for one collective call,
// cheapest first, each with its steps, bytes and terms, and where each ties the winner
// (seed D01 section 3.3, Lab 3, exercise 3).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string_view>
#include <vector>

#include "cli/common.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/nccl.h"
#include "scalewall/model/scaling.h"
#include "scalewall/analysis/select.h"
#include "scalewall/base/units.h"

namespace scalewall::cli {
namespace {

struct CollectiveFlags {
  std::string op = "allreduce";
  std::string ranks;
  std::string bytes;
  FabricFlags fabric;
  std::string gamma;  // empty: the fabric's gamma (0 without one)
  std::string chunk = "512KiB";
  std::string algorithms = "all";
  std::string selector;
  std::string gpus_per_thread = "1";
  std::string format = "table";
};

// "all", or comma-separated names, each once, each implementing `op`.
std::vector<AlgorithmSpec> read_algorithms(const std::string& text, Op op,
                                           const Topology& topology) {
  if (text == "all") return applicable_algorithms(op, topology);
  std::vector<AlgorithmSpec> specs;
  std::string_view rest = text;
  for (;;) {
    const std::size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    const AlgorithmSpec s = with_flag("--algorithms", [&] { return parse_algorithm(name); });
    if (!implements(op, s)) {
      std::string known;
      for (const AlgorithmSpec& a : applicable_algorithms(op, topology)) {
        known += (known.empty() ? "" : ", ") + algorithm_name(a);
      }
      throw InputError(fmt::format("--algorithms: '{}' does not implement {} (it has: {})", name,
                                   op_name(op), known));
    }
    if (std::find(specs.begin(), specs.end(), s) != specs.end()) {
      throw InputError(fmt::format("--algorithms: '{}' is listed twice in '{}'", name, text));
    }
    specs.push_back(s);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return specs;
}

std::string ring_rd_no_tie_text(std::int64_t ranks, const Topology& topology,
                                const CostOptions& options) {
  if (ranks == 1) return "none (N = 1: a single rank communicates nothing; every algorithm is free)";
  const AlgorithmSpec ring{Algorithm::kRing, Algorithm::kRing};
  const AlgorithmSpec rd{Algorithm::kRecursiveDoubling, Algorithm::kRing};
  const double r = collective_cost(Op::kAllreduce, ring, 1.0, topology, options).total_s;
  const double d = collective_cost(Op::kAllreduce, rd, 1.0, topology, options).total_s;
  if (r == d) return "none (the two cost the same at every size)";
  return fmt::format("none ({} is cheaper at every size for N = {})",
                     algorithm_name(d < r ? rd : ring), ranks);
}

// The selector the call is priced by: --selector, else NCCL's on a GPU fabric for an op it
// chooses for (unless --algorithms names MPI algorithms), else the MPI catalogue.
std::string pick_selector(const CollectiveFlags& flags, Op op, const Topology& topology) {
  if (!flags.selector.empty() && flags.selector != "auto") return flags.selector;
  return nccl_is_default(op, topology) && flags.algorithms == "all" ? "nccl" : "mpi";
}

// NCCL's candidates for the call, cheapest first, its pick marked.
Report nccl_collective(const CollectiveFlags& flags, Op op, double bytes,
                       const Topology& topology, std::int64_t gpus_per_thread) {
  // A fabric NCCL cannot price is the fabric's fault, unless --selector nccl asked for it.
  const std::string blame = flags.selector == "nccl" ? "--selector" : fabric_blame(flags.fabric);
  NcclFabric fabric = with_blame(blame, [&] { return nccl_fabric(topology); });
  fabric.gpus_per_thread = gpus_per_thread;
  if (gpus_per_thread > topology.ranks()) {
    throw InputError(fmt::format("--gpus-per-thread: {} GPUs per thread is more than the {} "
                                 "ranks of the call",
                                 gpus_per_thread, topology.ranks()));
  }
  const std::vector<NcclCost> all = with_flag("--op", [&] { return nccl_costs(op, bytes, fabric); });
  const std::int64_t n = topology.ranks();
  Report report = model_report("collective");
  report.title = fmt::format("{} of {} ({} B) per rank over {} GPU{}; {}; NCCL's choice",
                             op_name(op), format_bytes(bytes), bytes, n, n == 1 ? "" : "s",
                             describe_topology(topology));
  report.inputs["op"] = std::string(op_name(op));
  report.inputs["ranks"] = n;
  report.inputs["bytes"] = bytes;
  report.inputs["fabric"] = topology_inputs(topology);
  report.inputs["selector"] = "nccl";
  report.inputs["gpus_per_thread"] = gpus_per_thread;
  // The release that picks, where it is not the model's own: its estimate orders the rows.
  const NcclRelease release = nccl_tables_release(fabric.release);
  const bool own_release = release == kNcclModelRelease;
  const std::string release_column = fmt::format("NCCL {}'s time", nccl_release_name(release));
  Table table{"nccl",
              {{"algorithm", "NCCL_ALGO", Unit::kText},
               {"protocol", "NCCL_PROTO", Unit::kText},
               {"channels", "channels", Unit::kCount},
               {"latency_s", "latency", Unit::kSeconds},
               {"bandwidth_Bps", "algorithm bandwidth", Unit::kRate},
               {"bandwidth_s", "bandwidth", Unit::kSeconds},
               {"nccl_estimate_s", "NCCL's time", Unit::kSeconds},
               {"fill_s", "fill", Unit::kSeconds},
               {"slice_sync_s", "slice syncs", Unit::kSeconds},
               {"peer_write_s", "peer writes", Unit::kSeconds},
               {"launch_s", "launch", Unit::kSeconds},
               {"net_hop_s", "network hops", Unit::kSeconds},
               {"total_s", "total", Unit::kSeconds},
               {"busbw_Bps", "busbw", Unit::kRate}},
              {},
              {}};
  // After NCCL's time, the picking release's own where that is another release.
  constexpr std::ptrdiff_t kPickColumn = 7;
  if (!own_release) {
    table.columns.insert(table.columns.begin() + kPickColumn,
                         Column{"pick_s", release_column, Unit::kSeconds});
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    const NcclCost& c = all[i];
    std::vector<Value> row = {std::string(nccl_algorithm_name(c.algorithm)),
                              std::string(nccl_protocol_name(c.protocol)),
                              std::int64_t{c.channels},
                              c.latency_s,
                              c.bandwidth_Bps,
                              c.bandwidth_s,
                              c.nccl_estimate_s,
                              c.fill_s,
                              c.slice_sync_s,
                              c.peer_write_s,
                              c.launch_s,
                              c.net_hop_s,
                              c.total_s,
                              c.busbw_Bps ? Value{*c.busbw_Bps} : Value{}};
    if (!own_release) row.insert(row.begin() + kPickColumn, c.pick_s);
    table.add_row(std::move(row), i == 0 ? "<-- NCCL's pick" : "");
  }
  report.tables.push_back(std::move(table));
  report.add_field("selector", "selector", Unit::kText, std::string("nccl"));
  report.add_field("nccl_version", "NCCL release that picks", Unit::kText,
                   nccl_release_name(release));
  Value algo;
  Value proto;
  Value total;
  if (!all.empty()) {
    algo = std::string(nccl_algorithm_name(all.front().algorithm));
    proto = std::string(nccl_protocol_name(all.front().protocol));
    total = all.front().total_s;
  }
  report.add_field("nccl_algorithm", "NCCL_ALGO", Unit::kText, algo, "none (one GPU)");
  report.add_field("nccl_protocol", "NCCL_PROTO", Unit::kText, proto, "none (one GPU)");
  report.add_field("total_s", "predicted time", Unit::kSeconds, total, "0 (one GPU)");
  report.notes.push_back(
      "NCCL's own tuning model (NCCL 2.30.7, src/graph/tuning.cc): latency + bytes / "
      "bandwidth per algorithm and protocol, the least wins; channels from its topology "
      "search reduced to the fabric's figures (docs/models.md). The predicted time adds what "
      "NCCL's figure leaves out: the pipeline fill of an NVLS or NVLSTree all-reduce, two "
      "rounds of its chunks (src/enqueue.cc's chunk sizes); inside one node, the ring "
      "kernel's step latency on every slice of every loop of its chunks, where NCCL counts "
      "it once per step (slice syncs), and on Ampere the LL and LL128 lines written into the "
      "peer at 0.77 of the link's bandwidth, where Simple reads (peer writes); and with "
      "--gpus-per-thread G > 1 the later kernel "
      "launches of a thread that drives G GPUs, (G - 1) x 4 us. Where the fabric gives a "
      "network hop's own time (nccl_net_hop, aws-p5), the hops cost that in place of the "
      "latency the network plugin reports to NCCL, which still makes the pick (network hops, "
      "negative where the report is the larger). --selector mpi prices the MPI "
      "algorithms instead.");
  if (fabric.release && nccl_tables_release(*fabric.release) != *fabric.release) {
    report.notes.push_back(fmt::format(
        "The model holds the tuning tables of NCCL {} to {}: NCCL {} picks as {} does.",
        nccl_release_name(kNcclOldestRelease), kNcclModelVersion,
        nccl_release_name(*fabric.release), nccl_release_name(release)));
  }
  if (!own_release) {
    report.notes.push_back(fmt::format(
        "NCCL {}'s tuning tables pick: its own estimate (the \"{}\" column) orders the rows. "
        "What the pick costs is priced by NCCL {}'s tables, the latest NCCL has measured, as "
        "for every release{} (docs/models.md, \"NCCL releases\").",
        nccl_release_name(release), release_column, kNcclModelVersion,
        topology.gpu.generation == GpuGeneration::kBlackwell
            ? "; on Blackwell 2.30.7's tables also pick, whatever the release"
            : ""));
  }
  if (topology.nics_per_node > topology.ranks_per_node && topology.nodes > 1) {
    report.notes.push_back(fmt::format(
        "NCCL sees the node's {} NICs of {} as {} network devices of {}, one per GPU (the NICs "
        "nearest each GPU grouped, as aws-ofi-nccl's multi-rail devices; docs/models.md).",
        topology.nics_per_node, format_rate(topology.inter.bandwidth_Bps), fabric.nics_per_node,
        format_rate(fabric.nic_Bps)));
  }
  if (topology.nominal) {
    report.notes.push_back("The fabric's link figures are nominal (datasheet values), not measured.");
  }
  return report;
}

Report run_collective(const CollectiveFlags& flags) {
  const Op op = with_flag("--op", [&] { return parse_op(flags.op); });
  std::optional<std::int64_t> ranks;
  if (!flags.ranks.empty()) ranks = flag_count("--ranks", flags.ranks, 1, kMaxRanks);
  double bytes = 0.0;
  if (op != Op::kBarrier) {
    if (flags.bytes.empty()) {
      throw InputError(fmt::format("--bytes is required for {} (the buffer per rank)",
                                   op_name(op)));
    }
    bytes = flag_bytes("--bytes", flags.bytes);
  } else if (!flags.bytes.empty()) {
    bytes = flag_bytes("--bytes", flags.bytes);  // read (and checked), then ignored
  }
  const Topology topology = resolve_topology(flags.fabric, ranks);
  const std::string selector_text = pick_selector(flags, op, topology);
  const std::int64_t gpus_per_thread =
      flag_count("--gpus-per-thread", flags.gpus_per_thread, 1, kMaxRanks);
  if (selector_text == "nccl") {
    return nccl_collective(flags, op, bytes, topology, gpus_per_thread);
  }
  if (gpus_per_thread != 1) {
    throw InputError(fmt::format(
        "--gpus-per-thread {}: the launches of a thread that drives several GPUs are priced by "
        "NCCL's selector only (a GPU fabric, --selector nccl), not by {}",
        flags.gpus_per_thread, selector_text));
  }
  CostOptions options;
  use_local_costs(options, topology, flags.gamma);
  options.tree_chunk_bytes = flag_bytes("--chunk", flags.chunk);
  if (!(options.tree_chunk_bytes > 0)) {
    throw InputError(fmt::format("--chunk: chunk size '{}' must be above zero", flags.chunk));
  }
  const std::vector<AlgorithmSpec> specs = read_algorithms(flags.algorithms, op, topology);
  const std::int64_t n = topology.ranks();

  // Costing refuses two things. A rank count too large to cost edge by edge shows at 0 B
  // already: --ranks when given, else the fabric that holds them. A call too long for a double
  // is the size's: --bytes when given (a fabric's figures lie in bounded ranges).
  with_blame(flags.ranks.empty() ? fabric_blame(flags.fabric) : "--ranks",
             [&] { return rank_algorithms(op, specs, 0.0, topology, options); });
  const auto ranked = with_blame(flags.bytes.empty() ? fabric_blame(flags.fabric) : "--bytes", [&] {
    return rank_algorithms(op, specs, bytes, topology, options);
  });
  SCALEWALL_CHECK(!ranked.empty());
  const CollectiveCost& best = ranked.front();

  Report report = model_report("collective");
  report.title = fmt::format("{} of {} ({} B) per rank over {} rank{}; {}; gamma {}/B",
                             op_name(op), format_bytes(bytes), bytes, n, n == 1 ? "" : "s",
                             describe_topology(topology), format_seconds(options.gamma_s_per_byte));
  report.inputs["op"] = std::string(op_name(op));
  report.inputs["ranks"] = n;
  report.inputs["bytes"] = op == Op::kBarrier ? 0.0 : bytes;
  if (topology.kind == TopologyKind::kFlatLink) {
    report.inputs["alpha_s"] = topology.inter.alpha_s;
    report.inputs["bandwidth_Bps"] = topology.inter.bandwidth_Bps;
  } else {
    report.inputs["fabric"] = topology_inputs(topology);
  }
  report.inputs["gamma_s_per_byte"] = options.gamma_s_per_byte;
  report.inputs["tree_chunk_bytes"] = options.tree_chunk_bytes;
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const AlgorithmSpec& s : specs) names.push_back(algorithm_name(s));
  report.inputs["algorithms"] = std::move(names);

  Table table{"algorithms",
              {{"name", "algorithm", Unit::kText},
               {"steps", "steps", Unit::kCount},
               {"bytes_per_rank", "bytes/rank", Unit::kBytes},
               {"latency_s", "latency", Unit::kSeconds},
               {"bandwidth_s", "bandwidth", Unit::kSeconds},
               {"compute_s", "compute", Unit::kSeconds},
               {"total_s", "total", Unit::kSeconds},
               {"busbw_Bps", "busbw", Unit::kRate},
               {"tie_with_winner_bytes", "ties winner at", Unit::kBytes}},
              {},
              {}};
  // A LogGP link's o gets a column of its own: the part of the latency that overlap cannot
  // hide.
  const bool loggp = topology.intra.overhead_s > 0 || topology.inter.overhead_s > 0;
  constexpr std::ptrdiff_t kAfterLatency = 4;
  if (loggp) {
    table.columns.insert(table.columns.begin() + kAfterLatency,
                         Column{"overhead_s", "of which o", Unit::kSeconds});
  }
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const CollectiveCost& c = ranked[i];
    Value tie;
    if (i > 0) {
      if (const auto t = tie_bytes(op, c.algorithm, best.algorithm, topology, options)) tie = *t;
    }
    std::vector<Value> row = {algorithm_name(c.algorithm), c.steps, c.bytes_per_rank, c.latency_s,
                              c.bandwidth_s, c.compute_s, c.total_s,
                              c.busbw_Bps ? Value{*c.busbw_Bps} : Value{}, tie};
    if (loggp) row.insert(row.begin() + kAfterLatency, c.overhead_s);
    table.add_row(std::move(row), i == 0 && ranked.size() > 1 ? "<-- winner" : "");
  }
  report.tables.push_back(std::move(table));
  if (loggp) {
    report.notes.push_back(
        "of which o: the LogGP overhead inside the latency, 2o per step (one send, one "
        "receive), processor time that overlap cannot hide; predict charges it to the step "
        "even with overlap on.");
  }

  report.add_field("winner", "winner", Unit::kText, algorithm_name(best.algorithm));
  if (op == Op::kAllreduce) {
    const std::optional<double> tie =
        tie_bytes(op, {Algorithm::kRing, Algorithm::kRing},
                  {Algorithm::kRecursiveDoubling, Algorithm::kRing}, topology, options);
    report.add_field("tie_bytes", "ring = recursive-doubling at", Unit::kBytes,
                     tie ? Value{*tie} : Value{}, ring_rd_no_tie_text(n, topology, options));
    if (n > 1 && tie) {
      report.notes.push_back(fmt::format(
          "Below {} recursive doubling beats the ring (fewer steps, each paying alpha); above "
          "it the ring wins (fewer bytes, each paying beta).",
          format_bytes(*tie)));
    }
  }

  if (selector_text != "mpi") {
    const Selector selector = with_flag("--selector", [&] { return parse_selector(selector_text); });
    const LibraryChoice choice = library_choice(selector, op, n, bytes);
    report.add_field("selector", "selector", Unit::kText, std::string(selector_name(selector)));
    report.add_field("selector_choice", "it picks", Unit::kText, choice.library_algorithm);
    report.add_field("selector_rule", "by the rule", Unit::kText, choice.rule);
    Value modelled;
    Value total;
    Value penalty;
    if (choice.modelled && implements(op, *choice.modelled)) {
      const CollectiveCost c =
          with_work_buffers(collective_cost(op, *choice.modelled, bytes, topology, options),
                            choice.work_buffers, options.alloc,
                               options.local_min_bytes);
      modelled = algorithm_name(*choice.modelled);
      total = c.total_s;
      if (best.total_s > 0) penalty = c.total_s / best.total_s;
    }
    report.add_field("selector_algorithm", "modelled as", Unit::kText, modelled,
                     "not modelled (no counterpart among the model's algorithms)");
    report.add_field("selector_total_s", "its modelled cost", Unit::kSeconds, total, "-");
    report.add_field("selector_cost_ratio", "against the best", Unit::kRatio, penalty, "-");
  }

  if (n == 1) report.notes.push_back("N = 1: there is nothing to exchange, so every cost is zero.");
  if (options.working_set_ranks > 0 && topology.rank_kind == RankKind::kCpu) {
    report.notes.push_back(fmt::format(
        "The working set (working_set_ranks = {}: the fabric's rates were measured by {} "
        "rank{} of one host at once): each bandwidth-bound step costs the slower of its own "
        "size's rate and the rate measured where as much memory was touched as the whole call "
        "touches, its input, output and largest receive block (docs/models.md, \"The working "
        "set\").",
        options.working_set_ranks, options.working_set_ranks,
        options.working_set_ranks == 1 ? "" : "s"));
  }
  if (topology.kind != TopologyKind::kFlatLink && topology.nominal) {
    report.notes.push_back(
        "The fabric's link figures are nominal (datasheet values), not measured.");
  }
  report.notes.push_back(
      "busbw: nccl-tests' bus bandwidth, algbw x (2(N-1)/N all-reduce; (N-1)/N reduce-scatter, "
      "all-gather, all-to-all; 1 broadcast, reduce), to lay beside a measured busbw.");
  report.notes.push_back("Each algorithm's steps and bytes are in docs/models.md with sources.");
  return report;
}

}  // namespace

void register_collective(CLI::App& app) {
  auto flags = std::make_shared<CollectiveFlags>();
  const FlagGroup call = {
      {"--op", &flags->op, "Collective: " + op_names(), "OP", "allreduce"},
      {"--ranks,-n", &flags->ranks,
       "Rank count N, 1 to 2^40 (with --fabric: default the fabric's, else a multiple of its "
       "ranks per node)",
       "N"},
      {"--bytes,-m", &flags->bytes,
       "Buffer per rank m as nccl-tests sizes it: the all-reduce vector, the reduce-scatter "
       "input, the all-gather output, the all-to-all send buffer",
       "SIZE"},
  };
  const FlagGroup cost = {
      {"--gamma", &flags->gamma,
       "Reduction arithmetic cost per byte reduced (0.1ns means 10 GB/s of reduction; 0 makes "
       "it free). Default: the fabric's gamma, else 0",
       "G"},
      {"--chunk", &flags->chunk, "Pipeline chunk of the double binary tree", "SIZE", "512KiB"},
      {"--algorithms", &flags->algorithms,
       "Comma-separated algorithms to compare, or all (every one that implements the op; "
       "hierarchical ones on a multi-node fabric)",
       "LIST", "all"},
      {"--selector", &flags->selector,
       "What prices the call (SELECTOR): nccl (NCCL's algorithm x protocol choice, NCCL_ALGO "
       "and NCCL_PROTO names; the default on a GPU fabric such as --fabric dgx-h100), mpi "
       "(every MPI algorithm, cheapest first; the default otherwise), or mpi plus what MPICH's "
       "classic rules (mpich) or Open MPI 4.1's tuned fixed rules (ompi) pick and what that "
       "costs; auto: the default",
       "SELECTOR"},
      {"--gpus-per-thread", &flags->gpus_per_thread,
       "NCCL's selector: GPUs one host thread drives (nccl-tests -g G; 1, one GPU per process, "
       "as frameworks run). Each call then launches G kernels in turn and ends (G - 1) launches "
       "of 4 us later",
       "G", "1"},
      format_flag(&flags->format),
  };
  CLI::App* cmd = add_command(app, {
      "collective",
      "Cost of every algorithm of one collective call, cheapest first: steps x alpha + bytes "
      "per rank x beta + reduced bytes x gamma, on a flat link or a two-level fabric, with the "
      "size at which each ties the winner.",
      {call, fabric_flags(&flags->fabric), cost},
      "Recursive doubling takes log2 N steps but moves m log2 N bytes per rank; the ring takes\n"
      "2(N-1) steps but moves only 2m(N-1)/N. Small messages pay for steps, large ones for\n"
      "bytes, so the winner flips with size, and the size where it flips moves with N.\n"
      "\n"
      "Examples (seed Lab 3):\n"
      "  scalewall collective --ranks 64 --bytes 4096\n"
      "      recursive doubling wins: 6 steps against 126\n"
      "  scalewall collective --ranks 64 --bytes 1GiB --algorithms ring,recursive-doubling\n"
      "      the ring wins: about 2.1 GB per rank against 6.4 GB\n"
      "  scalewall collective --fabric examples/fabrics/dgx-h100-ndr.toml --bytes 1GB\n"
      "      on 16 nodes of 8 GPUs, the hierarchical all-reduce moves m/8 across nodes\n"
      "  scalewall collective --op all-to-all --ranks 64 --bytes 1MB --selector ompi\n"
      "  scalewall collective --fabric dgx-h100 --ranks 16 --bytes 1GiB\n"
      "      NCCL's pick on two DGX H100: NVLSTree/Simple, and every Ring/Tree x LL/LL128/Simple\n"
      "  scalewall collective --fabric dgx-h100 --ranks 16 --bytes 1GiB --selector mpi\n"
      "      the MPI algorithms on the same fabric"});
  cmd->callback([flags] { emit(run_collective(*flags), flags->format); });
}

}  // namespace scalewall::cli
