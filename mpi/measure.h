// mpi/measure.h: the MPI-free pieces of the measurement harness: the clock, busy-waiting,
// seeded jitter, summary statistics and the message-size sweep (flag values are read by
// cli/flags.h, shared with scalewall).
//
// Layer: mpi/ (scalewall-mpi). Nothing here includes <mpi.h>, so these helpers can be read
// and reasoned about without an MPI installation; the files that do include it are
// world.h, algorithms.h and the mode files.
#ifndef SCALEWALL_MPI_MEASURE_H_
#define SCALEWALL_MPI_MEASURE_H_

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "cli/flags.h"  // flag_bytes, flag_count, ...: shared with scalewall

namespace scalewall::mpi {

// ---- clock ----

// Seconds on std::chrono::steady_clock (CLOCK_MONOTONIC on Linux). Every process on one host
// reads the same clock, so times taken by different ranks of one host compare directly;
// across hosts they differ by an offset that world.h's clock synchronisation estimates.
double now_s();

// Spins (no sleep, no yield) until now_s() >= deadline_s. Returns at once when the deadline
// has passed. A spinning rank keeps its core busy, as a compute kernel would.
void busy_wait_until(double deadline_s);

// ---- injected delay ----

// The busy-wait that the arrival and step modes give each rank: `base_s` scaled by a
// truncated normal draw, max(0, 1 + sigma z), and by `slow_factor` on the slow rank.
// The draws come from a generator seeded with (seed, rank), so a run is reproducible and
// the ranks' draws are independent. z is made by the Box-Muller transform from 53-bit
// uniform draws of std::mt19937_64, so the sequence is the same with every standard library.
class DelayPlan {
 public:
  // REQUIRES: base_s >= 0, sigma >= 0, slow_factor >= 1; slow_rank < 0 means no slow rank.
  DelayPlan(double base_s, double sigma, std::uint64_t seed, int rank, int slow_rank,
            double slow_factor);

  // The next delay for this rank, in seconds.
  double next();

 private:
  double standard_normal();

  double base_s_;
  double sigma_;
  double factor_;
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0;
};

// ---- statistics ----

// Minimum, median and maximum of a sample. The median of an even count is the mean of the
// two middle values. An empty sample gives zeros.
struct Summary {
  double min = 0;
  double median = 0;
  double max = 0;
};
Summary summarize(std::vector<double> values);

// ---- message sizes ----

// The sizes a sweep visits, in bytes, ascending and without repeats: 0 when min is 0, every
// power of two in [min, max], and min and max themselves. REQUIRES: 0 <= min <= max.
std::vector<double> size_sweep(double min_bytes, double max_bytes);

// nccl-tests' geometric sweep (-f): 0 when min is 0; then from max(min, 1) on, each size
// the one before times `factor`, rounded down to whole bytes (and at least one byte more),
// while at most max; and max itself. Stops after `limit` + 1 sizes, so that a caller can
// tell a sweep that is too long without building it. REQUIRES: 0 <= min <= max, factor > 1.
std::vector<double> geometric_sweep(double min_bytes, double max_bytes, double factor,
                                    std::size_t limit);

// The current UTC time as ISO 8601, "2026-11-30T05:00:00Z".
std::string utc_timestamp();

// Physical memory this host can still give, in bytes: MemAvailable from /proc/meminfo, else
// the free pages sysconf reports. 0 when neither can be read.
double available_memory_bytes();

}  // namespace scalewall::mpi

#endif  // SCALEWALL_MPI_MEASURE_H_
