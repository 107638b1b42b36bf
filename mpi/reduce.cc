// scalewall-mpi reduce: the local reduction rate over a size sweep; see docs/mpi.md.
//
// Every rank adds a buffer of b bytes into another (acc[i] += x[i] on 64-bit integers, the
// reduction every hand-written algorithm runs on what it receives), all ranks at once, so that
// the ranks of a node share its memory bandwidth as they do inside a reducing collective. Each
// size is run `warmup` times untimed and `iterations` times timed one by one; rank 0 writes
// one record per size with its own times and the slowest rank's median. The time per byte is
// the model's gamma: calibrate fits time = c + gamma b. The same sweep times a copy (acc = x,
// one "copy" record per size): the local copy of its input that an out-of-place call makes
// before it communicates, which calibrate fits as the copy cost per byte. And it times a fresh
// work buffer of each size (one "alloc" record per size): what a library pays for the work
// buffer it allocates inside a call, receives into and reduces from: the allocation (malloc,
// a write to each page, free) and the first read's extra cost over a resident buffer's. Above
// the allocator's mapping threshold (glibc: at most 32 MiB) every call maps fresh pages, each
// page faults on its first touch, and on this project's VM the first read of pages a receive
// has just filled is slower still; calibrate fits the time per byte as the allocation cost.
// With two ranks or more it also times a reduction into a buffer just sent (one
// "sent_reduction" record per size): ranks 2i and 2i+1 exchange acc and x (untimed), then each
// times acc += x, as every step of recursive doubling adds into the vector it has just sent.
// On shared memory the partner has just read acc, so each write first takes its cache line
// back: measured here (Open MPI 4.1 vader, 2 ranks) that reduction took 3.5-4.5 times a local
// one from 16 KiB to 1 MiB. And it times an exchange into a buffer just sent (one
// "sent_exchange" record per size): each rank sends x to its partner (untimed), rewrites acc,
// then times the exchange that sends acc and receives into x, as the all-gather half of a ring
// all-reduce receives each block into the one it sent in the reduce-scatter half. Measured
// here (2 ranks, vader) such an exchange took 1.4-1.9 times one into a buffer the partner never
// read at 64-256 KiB.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "mpi/algorithms.h"
#include "mpi/live_table.h"
#include "mpi/measure.h"
#include "mpi/modes.h"
#include "scalewall/base/error.h"
#include "scalewall/base/units.h"

namespace scalewall::mpi {
namespace {

struct ReduceFlags {
  CommonFlags common;
  SizeFlags sizes;
  RepeatFlags repeats;
};

using LocalPass = void (*)(Element*, const Element*, std::size_t);

// Bytes per element of the sweep: int64.
constexpr double kElement = sizeof(Element);

// This rank's timed passes (a reduction or a copy) over `count` elements. add_into and
// copy_into live in algorithms.cc, another translation unit, so the compiler cannot drop a
// pass whose result is never read.
Summary time_passes(LocalPass pass, std::vector<Element>& acc, const std::vector<Element>& x,
                    std::size_t count, int warmup, int iterations) {
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(iterations));
  for (int i = 0; i < warmup + iterations; ++i) {
    const double t0 = now_s();
    pass(acc.data(), x.data(), count);
    const double t1 = now_s();
    if (i >= warmup) times.push_back(t1 - t0);
  }
  return summarize(std::move(times));
}

// Fills `into` with `count` elements as a step of a call fills the buffer it reduces from:
// received from `partner` while acc is sent to it (MPI_Sendrecv), or, without a partner,
// copied from acc.
void fill_work_buffer(Element* into, const std::vector<Element>& acc, std::size_t count,
                      int partner, MPI_Comm comm) {
  if (partner < 0) {
    copy_into(into, acc.data(), count);
    return;
  }
  constexpr int kWorkTag = 7301;
  const int n = static_cast<int>(count);
  MPI_Sendrecv(acc.data(), n, MPI_INT64_T, partner, kWorkTag, into, n, MPI_INT64_T, partner,
               kWorkTag, comm, MPI_STATUS_IGNORE);
}

// This rank's timed reductions acc += x right after sending acc to `partner` and receiving x
// from it (the exchange untimed, acc rewritten before each); an empty summary without a
// partner (the last rank of an odd count).
Summary time_sent_reductions(std::vector<Element>& acc, std::vector<Element>& x,
                             std::size_t count, int partner, int warmup, int iterations,
                             MPI_Comm comm) {
  if (partner < 0) return {};
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(iterations));
  for (int i = 0; i < warmup + iterations; ++i) {
    std::fill(acc.begin(), acc.begin() + static_cast<std::ptrdiff_t>(count), Element{i});
    fill_work_buffer(x.data(), acc, count, partner, comm);
    const double t0 = now_s();
    add_into(acc.data(), x.data(), count);
    const double t1 = now_s();
    if (i >= warmup) times.push_back(t1 - t0);
  }
  return summarize(std::move(times));
}

// This rank's timed exchanges of `count` elements with `partner` that receive into x right
// after x was sent to it (untimed, into acc), acc rewritten after that and sent; the pair
// started together by a zero-byte exchange before each. An empty summary without a partner.
Summary time_sent_exchanges(std::vector<Element>& acc, std::vector<Element>& x,
                            std::size_t count, int partner, int warmup, int iterations,
                            MPI_Comm comm) {
  if (partner < 0) return {};
  constexpr int kSentTag = 7302;
  constexpr int kSyncTag = 7303;
  const int n = static_cast<int>(count);
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(iterations));
  char token = 0;
  for (int i = 0; i < warmup + iterations; ++i) {
    std::fill(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(count), Element{0});
    MPI_Sendrecv(x.data(), n, MPI_INT64_T, partner, kSentTag, acc.data(), n, MPI_INT64_T,
                 partner, kSentTag, comm, MPI_STATUS_IGNORE);
    std::fill(acc.begin(), acc.begin() + static_cast<std::ptrdiff_t>(count), Element{i});
    MPI_Sendrecv(&token, 0, MPI_BYTE, partner, kSyncTag, &token, 0, MPI_BYTE, partner,
                 kSyncTag, comm, MPI_STATUS_IGNORE);
    const double t0 = now_s();
    MPI_Sendrecv(acc.data(), n, MPI_INT64_T, partner, kSentTag, x.data(), n, MPI_INT64_T,
                 partner, kSentTag, comm, MPI_STATUS_IGNORE);
    const double t1 = now_s();
    if (i >= warmup) times.push_back(t1 - t0);
  }
  return summarize(std::move(times));
}

// This rank's timed fresh work buffers of `count` elements, each the sum of two clean parts:
// the allocation (malloc, one write to each page, free: the first touch faults a freshly
// mapped page in) and what the first read of a fresh buffer filled by a receive costs beyond
// the same read of a resident one (acc += buffer, timed alone, after the buffer is filled:
// received from the partner, or copied without one). On this project's VM pages that a
// receive has just faulted in read many times slower the first time; elsewhere the second
// part is about 0.
Summary time_fresh_buffers(std::vector<Element>& acc, std::vector<Element>& x,
                           std::size_t count, int partner, std::size_t page_bytes, int warmup,
                           int iterations, MPI_Comm comm) {
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(iterations));
  for (int i = 0; i < warmup + iterations; ++i) {
    const double t0 = now_s();
    touch_fresh_buffer(count * sizeof(Element), page_bytes);
    const double t1 = now_s();
    Element* fresh = fresh_elements(count);
    fill_work_buffer(fresh, acc, count, partner, comm);
    const double t2 = now_s();
    add_into(acc.data(), fresh, count);
    const double t3 = now_s();
    std::free(fresh);
    fill_work_buffer(x.data(), acc, count, partner, comm);
    const double t4 = now_s();
    add_into(acc.data(), x.data(), count);
    const double t5 = now_s();
    if (i >= warmup) times.push_back((t1 - t0) + std::max(0.0, (t3 - t2) - (t5 - t4)));
  }
  return summarize(std::move(times));
}

// The page size that a first touch faults in.
std::size_t page_size() {
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<std::size_t>(page) : 4096;
}

// One size's record of a reduction, a copy or a fresh buffer: rank 0's times and the slowest rank's median.
nlohmann::ordered_json pass_record(double bytes, int ranks, int iterations, const Summary& s,
                                   double slowest) {
  nlohmann::ordered_json record;
  record["bytes"] = static_cast<std::int64_t>(bytes);
  record["ranks"] = ranks;
  record["iterations"] = iterations;
  record["time_min_s"] = s.min;
  record["time_median_s"] = s.median;
  record["time_max_s"] = s.max;
  record["slowest_rank_median_s"] = slowest;
  return record;
}

// The sizes reduce visits (whole elements) and its repeats, checked against the memory.
// Throws InputError naming the flag when a value is bad, on every rank.
struct ReducePlan {
  std::vector<double> sizes;
  Repeats repeats;
};
ReducePlan plan_reduce(const World& w, const ReduceFlags& flags) {
  const std::vector<double> sizes = resolve_sizes(flags.sizes);
  ReducePlan plan{{}, resolve_repeats(flags.repeats)};
  // Whole elements only: a size is rounded down to a multiple of the element (8 B), and
  // sizes below one element are left out.
  for (const double s : sizes) {
    const double b = std::floor(s / kElement) * kElement;
    if (b >= kElement && (plan.sizes.empty() || plan.sizes.back() != b)) plan.sizes.push_back(b);
  }
  if (plan.sizes.empty()) {
    throw InputError(fmt::format("--max-bytes: the sweep holds no size of at least one "
                                 "{}-byte element",
                                 sizeof(Element)));
  }
  const double largest = plan.sizes.back();
  // The work buffer and the sent-buffer reduction exchange the whole buffer in one message.
  if (w.size >= 2 && largest / kElement > INT_MAX) {
    throw InputError(fmt::format(
        "{}: {} is {:.0f} elements of 8 bytes, above MPI's count limit of {} (the work buffer "
        "and the sent-buffer reduction exchange the whole buffer)",
        flags.sizes.sizes.empty() ? "--max-bytes" : "--sizes", format_bytes(largest),
        largest / kElement, INT_MAX));
  }
  check_memory(w, 3 * largest, fmt::format("--max-bytes {}", format_bytes(largest)));
  return plan;
}

int run_reduce(const World& w, const ReduceFlags& flags) {
  const ReducePlan plan = plan_reduce(w, flags);
  const std::vector<double>& whole = plan.sizes;
  const auto [iterations, warmup] = plan.repeats;
  const double largest = whole.back();

  RecordWriter writer(w, flags.common.out);
  nlohmann::ordered_json inputs;
  inputs["sizes"] = nlohmann::ordered_json::array();
  for (const double s : whole) inputs["sizes"].push_back(static_cast<std::int64_t>(s));
  inputs["iterations"] = iterations;
  inputs["warmup"] = warmup;
  inputs["element"] = "int64 add";
  writer.envelope("reduce", inputs, context_json(w));

  const auto elements = static_cast<std::size_t>(largest / kElement);
  std::vector<Element> acc(elements, 1);
  std::vector<Element> x(elements, 2);
  const Faults faults = flags.common.faults();
  std::int64_t unit = 0;
  LiveTable table(live_output(w, flags.common), {{"size", "B", 12},
                                                 {"count", "elements", 12},
                                                 {"min", "us", 10},
                                                 {"median", "us", 10},
                                                 {"max", "us", 10},
                                                 {"slowest", "us", 10},
                                                 {"rate", "GB/s", 8},
                                                 {"copy", "us", 10},
                                                 {"copy", "GB/s", 8},
                                                 {"alloc", "us", 10},
                                                 {"sent", "us", 10},
                                                 {"sent x", "us", 10}});
  table.title(fmt::format(
      "reduce on {} rank{} at once: acc += x (int64 add), {} timed after {} warm-up per size; "
      "min, median, max: rank 0's; slowest: the slowest rank's median; rate: size / median; "
      "copy: the slowest rank's median of acc = x, and size / it; alloc: the slowest rank's "
      "median of what a fresh work buffer of that size adds to a receive into it and a "
      "reduction from it; sent: the slowest rank's median of acc += x right after sending acc "
      "to a partner (2+ ranks); sent x: the slowest rank's median of an exchange with the "
      "partner that receives into the buffer just sent to it (2+ ranks)",
      w.size, w.size == 1 ? "" : "s", iterations, warmup));
  // Ranks 2i and 2i+1 are partners for the sent-buffer reduction; an odd last rank has none.
  const int partner = (w.rank ^ 1) < w.size ? (w.rank ^ 1) : -1;
  const std::size_t page = page_size();
  table.header();
  for (const double bytes : whole) {
    maybe_fail(w, faults, unit++);
    const auto count = static_cast<std::size_t>(bytes / kElement);
    quiet_barrier(w);
    const Summary s = time_passes(add_into, acc, x, count, warmup, iterations);
    quiet_barrier(w);
    const Summary c = time_passes(copy_into, acc, x, count, warmup, iterations);
    quiet_barrier(w);
    const Summary a =
        time_fresh_buffers(acc, x, count, partner, page, warmup, iterations, w.comm);
    quiet_barrier(w);
    const Summary r = time_sent_reductions(acc, x, count, partner, warmup, iterations, w.comm);
    quiet_barrier(w);
    const Summary e = time_sent_exchanges(acc, x, count, partner, warmup, iterations, w.comm);
    const double medians[5] = {s.median, c.median, a.median, r.median, e.median};
    double slowest[5] = {0, 0, 0, 0, 0};
    MPI_Reduce(medians, slowest, 5, MPI_DOUBLE, MPI_MAX, 0, w.comm);
    if (w.is_root()) {
      writer.record("reduction", pass_record(bytes, w.size, iterations, s, slowest[0]));
      writer.record("copy", pass_record(bytes, w.size, iterations, c, slowest[1]));
      writer.record("alloc", pass_record(bytes, w.size, iterations, a, slowest[2]));
      if (w.size >= 2) {
        writer.record("sent_reduction", pass_record(bytes, w.size, iterations, r, slowest[3]));
        writer.record("sent_exchange", pass_record(bytes, w.size, iterations, e, slowest[4]));
      }
      const auto b = static_cast<std::int64_t>(bytes);
      table.row({count_cell(b), count_cell(b / static_cast<std::int64_t>(kElement)),
                 us_cell(s.min), us_cell(s.median), us_cell(s.max), us_cell(slowest[0]),
                 gbps_cell(s.median > 0 ? bytes / s.median : 0.0), us_cell(slowest[1]),
                 gbps_cell(slowest[1] > 0 ? bytes / slowest[1] : 0.0), us_cell(slowest[2]),
                 w.size >= 2 ? us_cell(slowest[3]) : std::string("-"),
                 w.size >= 2 ? us_cell(slowest[4]) : std::string("-")});
    }
  }
  writer.end(true);
  return 0;
}

}  // namespace

Mode register_reduce(CLI::App& app) {
  auto flags = std::make_shared<ReduceFlags>();
  const FlagGroup repeats = repeat_flags(&flags->repeats, "Timed reductions per size", "20",
                                         "Untimed reductions before them", "3");
  CLI::App* cmd = add_command(app, {
      "reduce",
      "Local reduction time (acc += x, 64-bit integers) over a size sweep, every rank at "
      "once: the cost per byte reduced that the model calls gamma.",
      {size_flags(&flags->sizes, "1KiB", "64MiB"), repeats, common_flags(&flags->common)},
      "Example: mpirun -np 2 scalewall-mpi reduce --out reduce.jsonl\n"
      "         then scalewall calibrate pingpong.jsonl reduce.jsonl fits gamma too."});
  return {cmd, [flags](const World& w) { return run_reduce(w, *flags); },
          [flags](const World& w) { plan_reduce(w, *flags); }};
}

}  // namespace scalewall::mpi
