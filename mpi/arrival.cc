// scalewall-mpi arrival: a zero-byte collective with every rank's arrival time on a common
// clock, to separate the collective's latency from the ranks' variance; see docs/mpi.md.
//
// Each iteration: an MPI_Barrier, then rank 0 names a start time `kLead` ahead on its clock
// and broadcasts it; every rank spins until that instant on its own clock (through the
// clock offset), busy-waits its injected delay (--compute scaled by jitter, longer on the
// slow rank), notes its arrival, runs the collective and notes when it leaves. The start
// instant takes the barrier's exit skew out of the arrival times.
#include <algorithm>
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

// How far ahead of the broadcast the common start lies: long enough for the broadcast to
// reach every rank, also oversubscribed, where a rank may wait a scheduler slice.
constexpr double kLead_s = 2e-3;

struct ArrivalFlags {
  CommonFlags common;
  DelayFlags delays;
  std::string collective;
  RepeatFlags repeats;
};

int run_arrival(const World& w, const ArrivalFlags& flags) {
  if (flags.collective != "barrier" && flags.collective != "allreduce") {
    throw InputError(fmt::format("--collective: '{}' is not barrier or allreduce",
                                 flags.collective));
  }
  const bool barrier = flags.collective == "barrier";
  const auto [iterations, warmup] = resolve_repeats(flags.repeats);
  const DelaySettings delays = resolve_delays(flags.delays, w.size);

  const ClockSync clock = sync_clocks(w);
  RecordWriter writer(w, flags.common.out);
  nlohmann::ordered_json inputs;
  inputs["collective"] = flags.collective;
  inputs["collective_bytes"] = barrier ? 0 : 8;
  inputs["iterations"] = iterations;
  inputs["warmup"] = warmup;
  add_delay_inputs(inputs, delays);
  inputs["lead_s"] = kLead_s;
  nlohmann::ordered_json context = context_json(w);
  context["clock"] = clock_json(w, clock);
  writer.envelope("arrival", inputs, context);

  DelayPlan plan(delays.compute_s, delays.jitter_sigma, delays.seed, w.rank, delays.slow_rank,
                 delays.slow_factor);
  const Faults faults = flags.common.faults();
  std::vector<double> gathered(w.is_root() ? 3 * static_cast<std::size_t>(w.size) : 0);
  std::vector<double> spreads;
  std::vector<double> latencies;
  std::vector<int> last_ranks(static_cast<std::size_t>(w.size), 0);
  for (int i = 0; i < warmup + iterations; ++i) {
    const int iteration = i - warmup;
    if (iteration >= 0) maybe_fail(w, faults, iteration);
    MPI_Barrier(w.comm);
    double start_global = w.is_root() ? now_s() + kLead_s : 0.0;
    MPI_Bcast(&start_global, 1, MPI_DOUBLE, 0, w.comm);
    const double start = start_global - clock.offset_s;
    busy_wait_until(start);
    const double injected = plan.next();
    busy_wait_until(start + injected);
    const double arrive = now_s();
    if (barrier) {
      MPI_Barrier(w.comm);
    } else {
      const std::int64_t one = 1;
      std::int64_t sum = 0;
      MPI_Allreduce(&one, &sum, 1, MPI_INT64_T, MPI_SUM, w.comm);
    }
    const double leave = now_s();
    if (iteration < 0) continue;
    const double mine[3] = {arrive + clock.offset_s, injected, leave - arrive};
    MPI_Gather(mine, 3, MPI_DOUBLE, gathered.data(), 3, MPI_DOUBLE, 0, w.comm);
    if (!w.is_root()) continue;
    double earliest = gathered[0];
    std::size_t last = 0;
    for (std::size_t r = 0; r < static_cast<std::size_t>(w.size); ++r) {
      earliest = std::min(earliest, gathered[3 * r]);
      if (gathered[3 * r] > gathered[3 * last]) last = r;
    }
    for (std::size_t r = 0; r < static_cast<std::size_t>(w.size); ++r) {
      nlohmann::ordered_json record;
      record["iteration"] = iteration;
      record["rank"] = r;
      record["host"] = w.rank_hosts[r];
      record["arrival_s"] = gathered[3 * r] - earliest;
      record["injected_s"] = gathered[3 * r + 1];
      record["collective_s"] = gathered[3 * r + 2];
      writer.record("arrival", record);
    }
    spreads.push_back(gathered[3 * last] - earliest);
    latencies.push_back(gathered[3 * last + 2]);
    ++last_ranks[last];
  }
  if (std::ostream* out = live_output(w, flags.common)) {
    const auto most_often = std::max_element(last_ranks.begin(), last_ranks.end());
    *out << fmt::format(
        "arrival ({}, {} ranks, {} iterations): median arrival spread {}, median collective "
        "time of the last rank to arrive {} (the latency); rank {} arrived last {} times; "
        "clock error at most {}\n",
        flags.collective, w.size, iterations, format_seconds(summarize(spreads).median),
        format_seconds(summarize(latencies).median), most_often - last_ranks.begin(),
        *most_often, format_seconds(clock.max_error_s));
  }
  writer.end(true);
  return 0;
}

}  // namespace

Mode register_arrival(CLI::App& app) {
  auto flags = std::make_shared<ArrivalFlags>();
  const FlagGroup own = {
      {"--collective", &flags->collective,
       "The zero-byte collective: barrier (MPI_Barrier) or allreduce (MPI_Allreduce of one "
       "int64: a count of 0 may return without synchronising)",
       "barrier|allreduce", "barrier"},
  };
  const FlagGroup repeats = repeat_flags(&flags->repeats, "Timed iterations", "20",
                                         "Untimed iterations before them", "2");
  CLI::App* cmd = add_command(app, {
      "arrival",
      "A zero-byte collective with every rank's arrival time on a common clock, with optional "
      "injected jitter and one slow rank, to separate latency from variance.",
      {own, repeats, delay_flags(&flags->delays, "1ms"), common_flags(&flags->common)},
      "Example: mpirun -np 8 scalewall-mpi arrival --jitter-sigma 5% --slow-rank 3 "
      "--slow-factor 1.5"});
  return {cmd, [flags](const World& w) { return run_arrival(w, *flags); }};
}

}  // namespace scalewall::mpi
