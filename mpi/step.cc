// scalewall-mpi step: a synthetic data-parallel training step (busy-wait compute, then an
// all-reduce of the gradient buffer, blocking or overlapped in buckets) with every rank's
// compute, communication and wait; see docs/mpi.md.
//
// Each step starts after an MPI_Barrier. A rank computes (busy-waits) for its drawn time,
// then either calls MPI_Allreduce on the whole buffer or, with --overlap, has already started
// one MPI_Iallreduce per bucket as the compute passed each bucket's share (the last bucket
// is ready only at the end of the compute, as the first layer's gradient is in a backward
// pass), testing them every 20 us to drive their progress, and waits for all of them.
//
// The time from the end of the compute to the end of the all-reduce is split afterwards,
// outside the timed region, using the common clock: wait_s is how much later the slowest
// rank finished its compute than this one (capped at that time), communication_s the rest.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "mpi/measure.h"
#include "mpi/modes.h"
#include "scalewall/base/error.h"
#include "scalewall/base/units.h"

namespace scalewall::mpi {
namespace {

constexpr double kTestInterval_s = 20e-6;
constexpr std::size_t kElementBytes = sizeof(std::int64_t);

struct StepFlags {
  CommonFlags common;
  DelayFlags delays;
  std::string steps;
  std::string warmup;
  std::string bytes;
  std::string buckets;
  bool overlap = false;
};

int mpi_int(std::size_t n) { return static_cast<int>(n); }

int run_step(const World& w, const StepFlags& flags) {
  const auto steps = static_cast<int>(flag_count("--steps", flags.steps, 1, 100'000'000));
  const auto warmup = static_cast<int>(flag_count("--warmup", flags.warmup, 0, 100'000'000));
  const double requested = flag_bytes("--bytes", flags.bytes);
  const double elements = std::ceil(requested / static_cast<double>(kElementBytes));
  if (elements > INT_MAX) {
    throw InputError(fmt::format("--bytes: {} is {} elements of 8 bytes, above MPI's count "
                                 "limit of {}",
                                 flags.bytes, elements, INT_MAX));
  }
  if (!flags.buckets.empty() && !flags.overlap) {
    throw InputError(fmt::format("--buckets {} needs --overlap (without it the all-reduce is "
                                 "one blocking call)",
                                 flags.buckets));
  }
  const int buckets =
      flags.overlap
          ? static_cast<int>(flag_count("--buckets", flags.buckets.empty() ? "4" : flags.buckets,
                                        1, 1 << 20))
          : 1;
  const DelaySettings delays = resolve_delays(flags.delays, w.size);
  const auto count = static_cast<std::size_t>(elements);
  const double bytes = static_cast<double>(count * kElementBytes);
  check_memory(w, 2 * bytes, fmt::format("--bytes {}", format_bytes(bytes)));

  const ClockSync clock = sync_clocks(w);
  RecordWriter writer(w, flags.common.out);
  nlohmann::ordered_json inputs;
  inputs["steps"] = steps;
  inputs["warmup"] = warmup;
  inputs["bytes"] = count * kElementBytes;
  inputs["overlap"] = flags.overlap;
  inputs["buckets"] = buckets;
  add_delay_inputs(inputs, delays);
  nlohmann::ordered_json context = context_json(w);
  context["clock"] = clock_json(w, clock);
  writer.envelope("step", inputs, context);

  std::vector<std::int64_t> gradient(std::max<std::size_t>(count, 1), w.rank + 1);
  std::vector<std::int64_t> reduced(std::max<std::size_t>(count, 1), 0);
  std::vector<std::size_t> bounds(static_cast<std::size_t>(buckets) + 1);
  for (std::size_t k = 0; k < bounds.size(); ++k) {
    bounds[k] = count * k / static_cast<std::size_t>(buckets);
  }
  std::vector<MPI_Request> requests(static_cast<std::size_t>(buckets), MPI_REQUEST_NULL);
  const auto start_bucket = [&](int k) {
    const auto b = static_cast<std::size_t>(k);
    MPI_Iallreduce(gradient.data() + bounds[b], reduced.data() + bounds[b],
                   mpi_int(bounds[b + 1] - bounds[b]), MPI_INT64_T, MPI_SUM, w.comm,
                   &requests[b]);
  };

  DelayPlan plan(delays.compute_s, delays.jitter_sigma, delays.seed, w.rank, delays.slow_rank,
                 delays.slow_factor);
  const Faults faults = flags.common.faults();
  std::vector<double> gathered(w.is_root() ? 4 * static_cast<std::size_t>(w.size) : 0);
  std::vector<double> step_times;
  std::vector<double> waits;
  std::vector<double> comms;
  for (int i = 0; i < warmup + steps; ++i) {
    const int step = i - warmup;
    if (step >= 0) maybe_fail(w, faults, step);
    const double compute = plan.next();
    MPI_Barrier(w.comm);
    const double t0 = now_s();
    double computed = 0;
    if (!flags.overlap) {
      busy_wait_until(t0 + compute);
      computed = now_s();
      MPI_Allreduce(gradient.data(), reduced.data(), mpi_int(count), MPI_INT64_T, MPI_SUM,
                    w.comm);
    } else {
      int started = 0;
      double next_test = t0;
      for (;;) {
        const double t = now_s();
        while (started < buckets - 1 &&
               t >= t0 + compute * static_cast<double>(started + 1) / buckets) {
          start_bucket(started++);
        }
        if (t >= t0 + compute) break;
        if (started > 0 && t >= next_test) {
          int done = 0;
          MPI_Testall(started, requests.data(), &done, MPI_STATUSES_IGNORE);
          next_test = t + kTestInterval_s;
        }
      }
      computed = now_s();
      while (started < buckets) start_bucket(started++);
      MPI_Waitall(buckets, requests.data(), MPI_STATUSES_IGNORE);
    }
    const double done = now_s();
    if (step < 0) continue;

    // Outside the timed region: who finished computing last, on the common clock.
    const double arrived = computed + clock.offset_s;
    double last_arrival = arrived;
    MPI_Allreduce(&arrived, &last_arrival, 1, MPI_DOUBLE, MPI_MAX, w.comm);
    const double exposed = done - computed;
    const double wait = std::clamp(last_arrival - arrived, 0.0, exposed);
    const double mine[4] = {computed - t0, exposed - wait, wait, done - t0};
    MPI_Gather(mine, 4, MPI_DOUBLE, gathered.data(), 4, MPI_DOUBLE, 0, w.comm);
    if (!w.is_root()) continue;
    for (std::size_t r = 0; r < static_cast<std::size_t>(w.size); ++r) {
      nlohmann::ordered_json record;
      record["step"] = step;
      record["rank"] = r;
      record["host"] = w.rank_hosts[r];
      record["compute_s"] = gathered[4 * r];
      record["communication_s"] = gathered[4 * r + 1];
      record["wait_s"] = gathered[4 * r + 2];
      record["step_s"] = gathered[4 * r + 3];
      writer.record("step", record);
      comms.push_back(gathered[4 * r + 1]);
      waits.push_back(gathered[4 * r + 2]);
      step_times.push_back(gathered[4 * r + 3]);
    }
  }
  if (std::ostream* out = live_output(w, flags.common)) {
    *out << fmt::format(
        "step ({}, {} ranks, {} steps, {} gradient{}): median step {}, communication {}, "
        "wait {}\n",
        flags.overlap ? "overlapped" : "blocking", w.size, steps, format_bytes(bytes),
        flags.overlap ? fmt::format(" in {} buckets", buckets) : "",
        format_seconds(summarize(step_times).median), format_seconds(summarize(comms).median),
        format_seconds(summarize(waits).median));
  }
  writer.end(true);
  return 0;
}

}  // namespace

Mode register_step(CLI::App& app) {
  auto flags = std::make_shared<StepFlags>();
  const FlagGroup own = {
      {"--steps,-n", &flags->steps, "Timed steps", "N", "20"},
      {"--warmup,-w", &flags->warmup, "Untimed steps before them", "N", "2"},
      {"--bytes", &flags->bytes,
       "Gradient buffer per rank (int64 elements; rounded up to a whole one)", "M", "4MiB"},
      {"--overlap", &flags->overlap,
       "Start one MPI_Iallreduce per bucket during the compute instead of one MPI_Allreduce "
       "after it"},
      {"--buckets", &flags->buckets,
       "Buckets of the overlapped all-reduce (with --overlap; default 4)", "K"},
  };
  CLI::App* cmd = add_command(app, {
      "step",
      "A synthetic data-parallel step: busy-wait compute, then an all-reduce of the gradient "
      "(blocking, or overlapped in buckets); per rank and step: compute, communication, "
      "wait.",
      {own, delay_flags(&flags->delays, "10ms"), common_flags(&flags->common)},
      "Example: mpirun -np 8 scalewall-mpi step --compute 50ms --bytes 64MiB --overlap "
      "--buckets 8 --jitter-sigma 2%"});
  return {cmd, [flags](const World& w) { return run_step(w, *flags); }};
}

}  // namespace scalewall::mpi
