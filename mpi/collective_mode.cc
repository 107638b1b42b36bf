// scalewall-mpi collective: hand-written algorithms raced against the MPI library's own call
// on the same buffers, every result checked against the library's; see docs/mpi.md.
//
// For each op and size: the library's call runs first (its last result is the reference),
// then each hand-written algorithm. Every call, warm-up included, starts after an
// MPI_Barrier on a destination filled with a sentinel, is timed on every rank, and (for the
// hand-written ones) is compared element by element with the reference. Data are int64 sums,
// so a correct algorithm matches exactly.
#include <algorithm>
#include <climits>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "mpi/algorithms.h"
#include "mpi/live_table.h"
#include "mpi/measure.h"
#include "mpi/modes.h"
#include "scalewall/base/error.h"
#include "scalewall/base/units.h"
#include "scalewall/io/measurement.h"

namespace scalewall::mpi {
namespace {

constexpr Element kSentinel = -0x5A5A5A5A5A5A5A5ALL;
constexpr std::size_t kElementBytes = sizeof(Element);
// The buffers one rank holds: input, reference, result and two scratch areas, each up to
// the whole buffer.
constexpr double kBuffersPerRank = 5;

struct CollectiveFlags {
  CommonFlags common;
  SizeFlags sizes;
  std::string op;
  std::string algorithm;
  RepeatFlags repeats;
  std::string check;
  bool inject_error = false;
  bool inject_wrong_input = false;
};

// A contender: the library's call or a hand-written algorithm, as the records name it.
using Contender = MeasuredAlgorithm;

Contender hand_written(Algorithm algorithm) {
  return MeasuredAlgorithm::model({algorithm, Algorithm::kRing});
}

// The hand-written algorithm of a contender that is not the library's call.
Algorithm algorithm_of(const Contender& c) {
  SCALEWALL_CHECK(c.spec().has_value());
  return c.spec()->algorithm;
}

std::string list_names(const std::vector<Algorithm>& algorithms) {
  std::string text;
  for (const Algorithm a : algorithms) text += (text.empty() ? "" : ", ") + algorithm_name(a);
  return text;
}

// The ops the harness measures, for help and messages: "allreduce, ..., all-to-all".
std::string measured_op_names() {
  std::string text;
  for (const Op op : kMeasuredOps) text += (text.empty() ? "" : ", ") + std::string(op_name(op));
  return text;
}

std::vector<Op> resolve_ops(const std::string& text) {
  if (text == "all") return {std::begin(kMeasuredOps), std::end(kMeasuredOps)};
  refuse_all_in_a_list("--op", text, "every collective the harness measures");
  std::vector<Op> ops;
  for (const std::string& item : split_list(text)) {
    Op op{};
    try {
      op = parse_op(item);
    } catch (const InputError& e) {
      throw InputError(std::string("--op: ") + e.what());
    }
    if (!measured(op)) {
      throw InputError(fmt::format("--op: the harness does not measure {} (it measures {}, "
                                   "or all)",
                                   op_name(op), measured_op_names()));
    }
    if (std::find(ops.begin(), ops.end(), op) != ops.end()) {
      throw InputError(fmt::format("--op: {} is given twice in '{}'", op_name(op), text));
    }
    ops.push_back(op);
  }
  return ops;
}

// The contenders for each op, in the order asked for except that the library, when asked
// for, comes first: "all" is the library and every hand-written algorithm of the op. A named algorithm runs for the ops it implements and is
// an error when it implements none of them.
std::vector<std::vector<Contender>> resolve_contenders(const std::string& text,
                                                       const std::vector<Op>& ops) {
  std::vector<std::vector<Contender>> per_op(ops.size());
  if (text == "all") {
    for (std::size_t i = 0; i < ops.size(); ++i) {
      per_op[i].push_back(Contender::library());
      for (const Algorithm a : hand_written_algorithms(ops[i])) {
        per_op[i].push_back(hand_written(a));
      }
    }
    return per_op;
  }
  refuse_all_in_a_list("--algorithm", text, "the library and every hand-written algorithm");
  bool library_seen = false;
  std::vector<Algorithm> seen;
  for (const std::string& item : split_list(text)) {
    if (item == kLibraryAlgorithmName) {
      if (library_seen) {
        throw InputError(fmt::format("--algorithm: library is given twice in '{}'", text));
      }
      library_seen = true;
      for (auto& contenders : per_op) {
        if (std::find(contenders.begin(), contenders.end(), Contender::library()) ==
            contenders.end()) {
          contenders.insert(contenders.begin(), Contender::library());
        }
      }
      continue;
    }
    AlgorithmSpec spec;
    try {
      spec = parse_algorithm(item);
    } catch (const InputError& e) {
      throw InputError(std::string("--algorithm: ") + e.what());
    }
    if (std::find(seen.begin(), seen.end(), spec.algorithm) != seen.end()) {
      throw InputError(fmt::format("--algorithm: {} is given twice in '{}'",
                                   algorithm_name(spec.algorithm), text));
    }
    seen.push_back(spec.algorithm);
    bool used = false;
    std::string available;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const std::vector<Algorithm> hand = hand_written_algorithms(ops[i]);
      available += fmt::format("{}{}: library, {}", available.empty() ? "" : "; ",
                               op_name(ops[i]), list_names(hand));
      if (spec.algorithm == Algorithm::kHierarchical ||
          std::find(hand.begin(), hand.end(), spec.algorithm) == hand.end()) {
        continue;
      }
      used = true;
      if (std::find(per_op[i].begin(), per_op[i].end(), hand_written(spec.algorithm)) ==
          per_op[i].end()) {
        per_op[i].push_back(hand_written(spec.algorithm));
      }
    }
    if (!used) {
      throw InputError(fmt::format("--algorithm: the harness has no hand-written '{}' for "
                                   "the op{} asked for (it has {})",
                                   item, ops.size() == 1 ? "" : "s", available));
    }
  }
  return per_op;
}

// Element counts for the requested sizes: ceil(bytes / 8), rounded up to a multiple of the
// rank count for the ops that split the buffer into one block per rank; repeats dropped.
std::vector<std::size_t> element_counts(Op op, const std::vector<double>& sizes, int ranks) {
  const bool blocked = op == Op::kReduceScatter || op == Op::kAllgather || op == Op::kAlltoall;
  const double granule = blocked ? static_cast<double>(ranks) : 1.0;
  std::vector<std::size_t> counts;
  for (const double bytes : sizes) {
    const double elements =
        std::ceil(std::ceil(bytes / static_cast<double>(kElementBytes)) / granule) * granule;
    const auto count = static_cast<std::size_t>(elements);
    if (std::find(counts.begin(), counts.end(), count) == counts.end()) counts.push_back(count);
  }
  return counts;
}

// The part of every input element that depends on its index alone.
Element element_hash(std::size_t i) {
  return static_cast<Element>((i * 2'654'435'761ULL) % 1'000'033ULL);
}

constexpr Element kRankScale = 1'000'003;

Element input_value(int rank, std::size_t i) {
  // Distinct per rank and per element, so that a misplaced block or a missing contribution
  // changes the result; sums stay far below 2^63.
  return static_cast<Element>(rank + 1) * kRankScale + element_hash(i);
}

// sum over ranks r < n of input_value(r, i), in closed form.
Element input_sum(int ranks, std::size_t i) {
  const auto n = static_cast<Element>(ranks);
  return kRankScale * n * (n + 1) / 2 + n * element_hash(i);
}

// What element k of `rank`'s output must hold (algorithms.h's table of buffers), from the
// inputs' formula alone: the reference of --check, independent of every MPI call.
Element expected_element(Op op, std::size_t count, int rank, int ranks, std::size_t k) {
  const std::size_t block = count / static_cast<std::size_t>(ranks);
  const auto r = static_cast<std::size_t>(rank);
  switch (op) {
    case Op::kAllreduce:
      return input_sum(ranks, k);
    case Op::kReduceScatter:
      return input_sum(ranks, r * block + k);
    case Op::kAllgather:
      return input_value(static_cast<int>(k / block), k % block);
    case Op::kBroadcast:
      return input_value(0, k);
    case Op::kAlltoall:
      return input_value(static_cast<int>(k / block), r * block + k % block);
    case Op::kReduce:
    case Op::kBarrier:
      break;
  }
  SCALEWALL_CHECK(false && "the harness does not measure this op");
  return 0;
}

// Elements of `got` (this rank's output of `op`) that differ from the expected result.
std::int64_t wrong_elements(Op op, std::size_t count, std::span<const Element> got,
                            const World& w) {
  std::int64_t wrong = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (got[k] != expected_element(op, count, w.rank, w.size, k)) ++wrong;
  }
  return wrong;
}

std::string elements_text(std::size_t count) {
  return fmt::format("{} element{}", count, count == 1 ? "" : "s");
}

struct Mismatch {
  std::size_t index = 0;
  Element got = 0;
  Element want = 0;
};

std::optional<Mismatch> first_mismatch(std::span<const Element> got,
                                       std::span<const Element> want) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) return Mismatch{i, got[i], want[i]};
  }
  return std::nullopt;
}

struct Buffers {
  std::vector<Element> in;
  std::vector<Element> reference;
  std::vector<Element> result;
  Scratch scratch;
};

struct Outcome {
  std::vector<double> times_s;         // this rank's timed iterations
  std::optional<Mismatch> mismatch;  // this rank's first, hand-written only
  std::int64_t wrong = 0;            // --check: the most wrong elements of any one call
};

// The fewest untimed calls each contender makes at every small size of an op's sweep. The
// first calls of a launch are slow, and so are the first calls after a change of size: 2 ranks
// of Open MPI 4.1 (vader) on a 2-vCPU machine, 10 timed calls of 8 B after 2 warm-up calls,
// the library's all-reduce took 0.71-1.07 us in 5 launches of 5, against 0.59-0.61 us at 16 B
// in the same launches and 0.60-0.66 us at 8 B after 10 or more warm-up calls; and the
// hand-written ring at 16 B, right after the three contenders at 8 B, took 1.14-1.30 us after
// 2 or 20 warm-up calls and 0.97-1.08 us after 50 or 500 (three launches each). Only the small
// sizes get them: there 50 calls cost well under a millisecond, and above 64 KiB a first
// call's extra microsecond is lost in the call.
constexpr int kSmallSizeWarmup = 50;
constexpr double kSmallSizeWarmupMaxBytes = 65536;  // the title says "64 KiB"


// How each contender is run: the repetitions, whether every result is checked against the
// expected sum, and the hidden corruption of the hand-written results.
struct RaceSettings {
  int iterations = 1;
  int warmup = 0;
  bool check = true;
  bool inject_error = false;
};

// The untimed calls of each contender at a size of 64 KiB or less: more than --warmup's.
int small_size_warmup(const RaceSettings& settings) {
  return std::max(settings.warmup, kSmallSizeWarmup);
}

Outcome race(Op op, const Contender& contender, std::size_t count, const RaceSettings& settings,
             Buffers& buffers, const World& w) {
  const std::size_t in_n = input_elements(op, count, w.size);
  const std::size_t out_n = output_elements(op, count, w.size);
  const std::span<const Element> in(buffers.in.data(), in_n);
  const bool library = contender.is_library();
  const std::span<Element> dest(library ? buffers.reference.data() : buffers.result.data(),
                                out_n);
  Outcome outcome;
  outcome.times_s.reserve(static_cast<std::size_t>(settings.iterations));
  for (int i = 0; i < settings.warmup + settings.iterations; ++i) {
    std::fill(dest.begin(), dest.end(), kSentinel);
    MPI_Barrier(w.comm);
    const double t0 = now_s();
    if (library) {
      run_library(op, count, in, dest, w.comm);
    } else {
      run_hand_written(op, algorithm_of(contender), count, in, dest, buffers.scratch, w.comm);
    }
    const double t1 = now_s();
    if (i >= settings.warmup) outcome.times_s.push_back(t1 - t0);
    // Everything below is outside the timed region.
    if (!library && settings.inject_error && w.rank == w.size - 1 && out_n > 0) {
      dest[out_n / 2] += 1;
    }
    if (settings.check) {
      outcome.wrong = std::max(outcome.wrong, wrong_elements(op, count, dest, w));
    }
    if (library) continue;
    if (!outcome.mismatch) {
      outcome.mismatch = first_mismatch(dest, {buffers.reference.data(), out_n});
    }
  }
  return outcome;
}

// The envelope's inputs: every flag as resolved.
nlohmann::ordered_json envelope_inputs(const std::vector<Op>& ops,
                                       const std::vector<std::vector<Contender>>& contenders,
                                       const std::vector<double>& sizes,
                                       const RaceSettings& settings, bool wrong_input) {
  nlohmann::ordered_json inputs;
  inputs["ops"] = nlohmann::ordered_json::array();
  for (const Op op : ops) inputs["ops"].push_back(op_name(op));
  inputs["algorithms"] = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    auto& names = inputs["algorithms"][std::string(op_name(ops[i]))];
    names = nlohmann::ordered_json::array();
    for (const Contender& c : contenders[i]) names.push_back(c.name());
  }
  inputs["sizes"] = nlohmann::ordered_json::array();
  for (const double s : sizes) inputs["sizes"].push_back(static_cast<std::int64_t>(s));
  inputs["element_bytes"] = kElementBytes;
  inputs["iterations"] = settings.iterations;
  inputs["warmup"] = settings.warmup;
  inputs["small_size_warmup"] = small_size_warmup(settings);
  inputs["small_size_max_bytes"] = static_cast<std::int64_t>(kSmallSizeWarmupMaxBytes);
  inputs["check"] = settings.check;
  if (settings.inject_error) inputs["inject_error"] = true;
  if (wrong_input) inputs["inject_wrong_input"] = true;
  return inputs;
}

// The buffers for calls of up to `largest` elements, the input filled for `rank`; with
// `wrong_input`, rank 0's first element is one more than the formula says, so that every
// result that depends on it differs from the expected sum (and the library agrees).
Buffers make_buffers(std::size_t largest, int rank, bool wrong_input) {
  Buffers buffers;
  const std::size_t allocated = std::max<std::size_t>(largest, 1);
  buffers.in.resize(allocated);
  for (std::size_t i = 0; i < allocated; ++i) buffers.in[i] = input_value(rank, i);
  if (wrong_input && rank == 0) buffers.in[0] += 1;
  buffers.reference.assign(allocated, kSentinel);
  buffers.result.assign(allocated, kSentinel);
  buffers.scratch.a.assign(allocated, 0);
  buffers.scratch.b.assign(allocated, 0);
  return buffers;
}

// Collective over every rank: "" when no rank saw a mismatch, else the first one (lowest
// element index, then lowest rank) as the error text.
std::string verify(const Outcome& outcome, Op op, const Contender& contender, std::size_t count,
                   const World& w) {
  struct {
    long index;
    int rank;
  } mine{outcome.mismatch ? static_cast<long>(outcome.mismatch->index) : LONG_MAX, w.rank},
      first{LONG_MAX, 0};
  MPI_Allreduce(&mine, &first, 1, MPI_LONG_INT, MPI_MINLOC, w.comm);
  if (first.index == LONG_MAX) return "";
  Element values[2] = {};
  if (w.rank == first.rank) {
    values[0] = outcome.mismatch->got;
    values[1] = outcome.mismatch->want;
  }
  MPI_Bcast(values, 2, MPI_INT64_T, first.rank, w.comm);
  const double bytes = static_cast<double>(count * kElementBytes);
  return fmt::format(
      "verification failed: {} {} at {} bytes ({}) on {} ranks: rank {} element {} is {} but "
      "{} gives {}",
      op_name(op), contender.name(), bytes, elements_text(count), w.size, first.rank,
      first.index, values[0], mpi_call_name(op), values[1]);
}

// One contender at one size, over every rank: its times, whether its result matched the
// library's, and (with --check) how many elements were wrong against the expected sum.
struct Measured {
  Summary times;       // over every rank and timed iteration; rank 0 only
  bool verified = true;
  std::int64_t wrong = 0;  // the most wrong elements of any one call, summed over the ranks
  std::string failure;     // empty when verified and nothing wrong; the same on every rank
};

// COLLECTIVE.
Measured measure(Op op, const Contender& contender, std::size_t count,
                 const RaceSettings& settings, Buffers& buffers, const World& w) {
  const Outcome outcome = race(op, contender, count, settings, buffers, w);
  std::vector<double> all_times(
      w.is_root() ? outcome.times_s.size() * static_cast<std::size_t>(w.size) : 0);
  MPI_Gather(outcome.times_s.data(), settings.iterations, MPI_DOUBLE, all_times.data(),
             settings.iterations, MPI_DOUBLE, 0, w.comm);
  Measured m;
  m.times = summarize(std::move(all_times));
  m.failure = verify(outcome, op, contender, count, w);
  m.verified = m.failure.empty();
  if (settings.check) {
    MPI_Allreduce(&outcome.wrong, &m.wrong, 1, MPI_INT64_T, MPI_SUM, w.comm);
  }
  if (m.failure.empty() && m.wrong > 0) {
    m.failure = fmt::format(
        "check failed: {} {} at {} bytes ({}) on {} ranks: {} {} from the expected result",
        op_name(op), contender.name(), count * kElementBytes, elements_text(count), w.size,
        m.wrong, m.wrong == 1 ? "element differs" : "elements differ");
  }
  return m;
}

// One "collective" record (measurement.h), from the times over every rank and iteration;
// "wrong" only when the results were checked.
nlohmann::ordered_json collective_record(Op op, const Contender& contender, int ranks,
                                         std::size_t count, const RaceSettings& settings,
                                         const Measured& m) {
  const Summary& s = m.times;
  const double bytes = static_cast<double>(count * kElementBytes);
  const double algbw = s.median > 0 ? bytes / s.median : 0.0;
  nlohmann::ordered_json record;
  record["op"] = op_name(op);
  record["algorithm"] = contender.name();
  record["ranks"] = ranks;
  record["bytes"] = count * kElementBytes;
  record["element_bytes"] = kElementBytes;
  record["iterations"] = settings.iterations;
  record["time_min_s"] = s.min;
  record["time_median_s"] = s.median;
  record["time_max_s"] = s.max;
  record["algbw_Bps"] = algbw;
  record["busbw_Bps"] = algbw * busbw_factor(op, ranks);
  record["verified"] = m.verified;
  if (settings.check) record["wrong"] = m.wrong;
  return record;
}

// The element counts of every op, and the largest; throws InputError when the largest is
// beyond MPI's count or this machine's memory.
std::vector<std::vector<std::size_t>> checked_counts(const std::vector<Op>& ops,
                                                     const std::vector<double>& sizes,
                                                     const SizeFlags& size_flags,
                                                     const World& w, std::size_t& largest) {
  std::vector<std::vector<std::size_t>> counts;
  largest = 0;
  for (const Op op : ops) {
    counts.push_back(element_counts(op, sizes, w.size));
    for (const std::size_t c : counts.back()) largest = std::max(largest, c);
  }
  const char* size_flag = size_flags.sizes.empty() ? "--max-bytes" : "--sizes";
  const double largest_bytes = static_cast<double>(largest * kElementBytes);
  if (largest > static_cast<std::size_t>(INT_MAX)) {
    throw InputError(fmt::format("{}: {} is {} elements of 8 bytes, above MPI's count limit "
                                 "of {}",
                                 size_flag, format_bytes(largest_bytes), largest, INT_MAX));
  }
  check_memory(w, kBuffersPerRank * largest_bytes,
               fmt::format("{} {}", size_flag, format_bytes(largest_bytes)));
  return counts;
}

// The live table's columns: nccl-tests' (size, count, type, redop, time, algbw, busbw,
// #wrong), with the algorithm after redop when some op runs more than one contender.
std::vector<LiveColumn> collective_columns(bool several) {
  std::vector<LiveColumn> columns = {
      {"size", "B", 12}, {"count", "elements", 12}, {"type", "", 6}, {"redop", "", 6}};
  // The longest algorithm name, recursive-doubling, is 18 characters.
  if (several) columns.push_back({"algorithm", "", 18});
  columns.insert(columns.end(), {{"time", "us", 10},
                                 {"algbw", "GB/s", 8},
                                 {"busbw", "GB/s", 8},
                                 {"#wrong", "", 6}});
  return columns;
}

// One row, from the record itself, so that the table and the file say the same.
std::vector<std::string> collective_row(Op op, const nlohmann::ordered_json& record,
                                        bool several) {
  const auto bytes = record["bytes"].get<std::int64_t>();
  const bool reducing = op == Op::kAllreduce || op == Op::kReduceScatter;
  std::vector<std::string> row = {count_cell(bytes),
                                  count_cell(bytes / static_cast<std::int64_t>(kElementBytes)),
                                  "int64", reducing ? "sum" : "none"};
  if (several) row.push_back(record["algorithm"].get<std::string>());
  row.push_back(us_cell(record["time_median_s"].get<double>()));
  row.push_back(gbps_cell(record["algbw_Bps"].get<double>()));
  row.push_back(gbps_cell(record["busbw_Bps"].get<double>()));
  row.push_back(record.contains("wrong") ? count_cell(record["wrong"].get<std::int64_t>())
                                         : "N/A");
  return row;
}

// The title and header of one op's table.
void start_op_table(LiveTable& table, Op op, const RaceSettings& settings, const World& w) {
  const bool reducing = op == Op::kAllreduce || op == Op::kReduceScatter;
  table.title(fmt::format(
      "{} on {} rank{} ({} host{}): int64 {}, {} timed call{} after {} warm-up per size{}; "
      "time: the median over ranks and calls; #wrong: {}",
      op_name(op), w.size, w.size == 1 ? "" : "s", w.hosts.size(),
      w.hosts.size() == 1 ? "" : "s", reducing ? "sum" : "copy", settings.iterations,
      settings.iterations == 1 ? "" : "s", settings.warmup,
      small_size_warmup(settings) == settings.warmup
          ? ""
          : fmt::format(" ({} up to 64 KiB)", small_size_warmup(settings)),
      settings.check ? "elements unlike the expected result, summed over the ranks"
                     : "N/A, not checked (--check 0)"));
  table.header();
}

// What the collective flags resolve to, checked against the rank count and the memory.
// Throws InputError naming the flag when a value is bad, on every rank.
struct CollectivePlan {
  std::vector<Op> ops;
  std::vector<std::vector<Contender>> contenders;
  std::vector<double> sizes;
  RaceSettings settings;
  std::vector<std::vector<std::size_t>> counts;
  std::size_t largest = 0;
};
CollectivePlan plan_collective(const World& w, const CollectiveFlags& flags) {
  CollectivePlan plan;
  plan.ops = resolve_ops(flags.op);
  plan.contenders = resolve_contenders(flags.algorithm, plan.ops);
  plan.sizes = resolve_sizes(flags.sizes);
  const Repeats repeats = resolve_repeats(flags.repeats);
  plan.settings = RaceSettings{repeats.iterations, repeats.warmup,
                               flag_count("--check", flags.check, 0, 1) == 1,
                               flags.inject_error};
  plan.counts = checked_counts(plan.ops, plan.sizes, flags.sizes, w, plan.largest);
  return plan;
}

int run_collective(const World& w, const CollectiveFlags& flags) {
  const CollectivePlan plan = plan_collective(w, flags);
  const std::vector<Op>& ops = plan.ops;
  const std::vector<std::vector<Contender>>& contenders = plan.contenders;
  const std::vector<double>& sizes = plan.sizes;
  const RaceSettings& settings = plan.settings;
  const std::size_t largest = plan.largest;
  const std::vector<std::vector<std::size_t>>& counts = plan.counts;

  RecordWriter writer(w, flags.common.out);
  writer.envelope("collective",
                  envelope_inputs(ops, contenders, sizes, settings, flags.inject_wrong_input),
                  context_json(w));
  Buffers buffers = make_buffers(largest, w.rank, flags.inject_wrong_input);
  bool several = false;
  for (const auto& c : contenders) several = several || c.size() > 1;
  LiveTable table(live_output(w, flags.common), collective_columns(several));
  std::int64_t wrong = 0;
  double busbw_sum = 0;
  std::int64_t rows = 0;

  const Faults faults = flags.common.faults();
  std::int64_t unit = 0;
  std::int64_t failures = 0;
  std::string first_failure;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const Op op = ops[k];
    start_op_table(table, op, settings, w);
    for (std::size_t j = 0; j < counts[k].size(); ++j) {
      const std::size_t count = counts[k][j];
      maybe_fail(w, faults, unit++);
      RaceSettings these = settings;
      if (static_cast<double>(count * kElementBytes) <= kSmallSizeWarmupMaxBytes) {
        these.warmup = small_size_warmup(settings);
      }
      // The library's result is the reference. When it is a contender it is the first
      // (resolve_contenders puts it there); otherwise one untimed call makes the reference.
      if (contenders[k].empty() || !contenders[k].front().is_library()) {
        race(op, Contender::library(), count, {1, 0, false, false}, buffers, w);
      }
      for (const Contender& contender : contenders[k]) {
        const Measured m = measure(op, contender, count, these, buffers, w);
        if (!m.failure.empty()) {
          ++failures;
          if (first_failure.empty()) first_failure = m.failure;
        }
        if (!w.is_root()) continue;
        if (!m.failure.empty()) std::cerr << "error: " << m.failure << "\n";
        const nlohmann::ordered_json record =
            collective_record(op, contender, w.size, count, settings, m);
        writer.record("collective", record);
        table.row(collective_row(op, record, several));
        wrong += m.wrong;
        busbw_sum += record["busbw_Bps"].get<double>();
        ++rows;
      }
    }
  }
  if (settings.check) {
    table.title(fmt::format("Out of bounds values : {} {}", wrong, wrong == 0 ? "OK" : "FAILED"));
  }
  table.title(fmt::format("Avg bus bandwidth    : {} GB/s (the mean of the rows' busbw)",
                          gbps_cell(rows > 0 ? busbw_sum / static_cast<double>(rows) : 0.0)));
  if (failures > 0) {
    const std::string error =
        failures == 1 ? first_failure
                      : fmt::format("{} (and {} more)", first_failure, failures - 1);
    writer.end(false, error);
    return 1;
  }
  writer.end(true);
  return 0;
}

}  // namespace

Mode register_collective(CLI::App& app) {
  auto flags = std::make_shared<CollectiveFlags>();
  const FlagGroup calls = {
      {"--op", &flags->op,
       fmt::format("Collective(s), comma-separated: {}, or all", measured_op_names()), "OP",
       "allreduce"},
      {"--algorithm", &flags->algorithm,
       fmt::format("Comma-separated: {} (MPI's own call), {}; or all (the library and every "
                   "hand-written one of the op)",
                   kLibraryAlgorithmName, list_names(every_hand_written_algorithm())),
       "LIST", "all"},
  };
  FlagGroup repeats = repeat_flags(&flags->repeats, "Timed calls per algorithm and size", "10",
                                   "Untimed (but verified) calls before them", "2");
  repeats.push_back(
      {"--check,-c", &flags->check,
       "1: check every call's result (warm-up and timed, the library's too) against the "
       "expected result, outside the timed region, and count wrong elements into #wrong; 0: "
       "only the hand-written algorithms' comparison with the library (nccl-tests' -c)",
       "0|1", "1"});
  const FlagGroup faults = {
      {"--inject-error", &flags->inject_error,
       "Corrupt one element of every hand-written result on the last rank, to show that "
       "verification catches it",
       "", {}, FlagKind::kHidden},
      {"--inject-wrong-input", &flags->inject_wrong_input,
       "Add one to rank 0's first input element, so that every result (the library's too) "
       "differs from the expected sum where it depends on it, to show that --check catches "
       "it",
       "", {}, FlagKind::kHidden},
  };
  CLI::App* cmd = add_command(app, {
      "collective",
      "Hand-written collective algorithms over point-to-point, raced against the MPI "
      "library's own call on the same buffers; every result is checked against the "
      "library's, exactly (int64 sums).",
      {calls, size_flags(&flags->sizes, "0", "1MiB"), repeats, common_flags(&flags->common),
       faults},
      "Sizes follow nccl-tests: the whole buffer per rank (the all-reduce vector, the\n"
      "reduce-scatter input, the all-gather output, the all-to-all send buffer), in int64\n"
      "elements, rounded up to whole elements (and to a multiple of the ranks where the\n"
      "buffer is one block per rank); records carry the bytes actually used.\n"
      "While it runs, rank 0 prints nccl-tests' table on stderr, a row per record (--quiet:\n"
      "none); the JSON Lines go to --out or stdout.\n"
      "Examples: mpirun -np 2 scalewall-mpi collective -b 8 -e 64M -f 2 --out allreduce.jsonl\n"
      "          mpirun -np 4 scalewall-mpi collective --op all --max-bytes 16MiB"});
  return {cmd, [flags](const World& w) { return run_collective(w, *flags); },
          [flags](const World& w) { plan_collective(w, *flags); }};
}

}  // namespace scalewall::mpi
