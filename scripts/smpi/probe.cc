// The SMPI reference probe: built with smpicxx and run under smpirun by
// scripts/smpi_reference.sh, it writes the JSON Lines records of scalewall-mpi (the envelope,
// "pingpong" or "collective" records, the end record; include/scalewall/io/measurement.h) from
// SimGrid's simulated clock.
//
//   smpi-probe pingpong  MIN_BYTES MAX_BYTES
//   smpi-probe allreduce MIN_BYTES MAX_BYTES ALGORITHM_NAME
//
// Sizes are every power of two from MIN_BYTES to MAX_BYTES. The all-reduce is MPI_Allreduce
// of bytes / 4 MPI_INT32_T elements; SMPI runs whatever --cfg=smpi/allreduce selects, and
// ALGORITHM_NAME is the model name written in the records ("ring" for lr, ...). Its operation
// is a commutative user-defined op that leaves the data as they are: SMPI's algorithms call it
// where they would add (and choose their schedule exactly as for MPI_SUM), and with
// computation not simulated its cost is no simulated time either way, but 64 ranks adding
// 64 MiB buffers for real would take the host minutes.
//
// Every call starts on every rank at the same simulated instant (each rank sleeps until a
// common start), so a rank's time is from that start to its own completion: no barrier skew.
// One call per size: the simulation is deterministic. time_median_s is the median over the
// ranks, as scalewall-mpi writes it; time_max_s is the last rank's completion.
// Buffers are SMPI_SHARED_MALLOC: every rank shares one copy (the values are not used),
// so 64 ranks of 64 MiB fit in memory and SMPI skips the payload copies.
#include <mpi.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/version.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kTag = 7200;
// Time between the end of one call's bookkeeping and the next call's common start: far more
// than the MAX all-reduce of one double takes on any platform the script writes (under 1 ms).
constexpr double kStartMarginS = 0.01;

double clock_s() { return simgrid::s4u::Engine::get_clock(); }

void leave_as_is(void* /*in*/, void* /*inout*/, int* /*count*/, MPI_Datatype* /*type*/) {}

// Every rank returns the same start instant, later than every rank's present clock.
double common_start(MPI_Comm comm) {
  double now = clock_s();
  double latest = 0;
  MPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, comm);
  const double start = latest + kStartMarginS;
  if (clock_s() >= start) {
    std::fprintf(stderr, "smpi-probe: the start margin is too short\n");
    MPI_Abort(comm, 1);
  }
  simgrid::s4u::this_actor::sleep_until(start);
  return start;
}

void print_envelope(const char* command, int ranks) {
  std::printf(
      "{\"tool\":\"scalewall-mpi\",\"version\":\"smpi-probe\",\"command\":\"%s\","
      "\"kind\":\"measurement\",\"format\":\"jsonl\",\"inputs\":{\"iterations\":1,"
      "\"warmup\":0},\"context\":{\"mpi_library\":\"SimGrid SMPI %d.%d\",\"mpi_version\":"
      "\"3.1\",\"ranks\":%d,\"ranks_per_host\":1,\"hosts\":[],\"date\":\"simulated\"}}\n",
      command, SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR, ranks);
}

std::vector<std::int64_t> sizes(std::int64_t min_bytes, std::int64_t max_bytes) {
  std::vector<std::int64_t> out;
  for (std::int64_t b = min_bytes; b <= max_bytes; b *= 2) out.push_back(b);
  return out;
}

int pingpong(std::int64_t min_bytes, std::int64_t max_bytes, MPI_Comm comm, int rank) {
  char* buffer = static_cast<char*>(SMPI_SHARED_MALLOC(static_cast<std::size_t>(max_bytes)));
  if (rank == 0) print_envelope("pingpong", 2);
  std::int64_t records = 0;
  for (const std::int64_t bytes : sizes(min_bytes, max_bytes)) {
    const int count = static_cast<int>(bytes);
    const double start = common_start(comm);
    if (rank == 0) {
      MPI_Send(buffer, count, MPI_BYTE, 1, kTag, comm);
      MPI_Recv(buffer, count, MPI_BYTE, 1, kTag, comm, MPI_STATUS_IGNORE);
      const double one_way = (clock_s() - start) / 2;
      std::printf(
          "{\"record\":\"pingpong\",\"from\":0,\"to\":1,\"bytes\":%lld,\"iterations\":1,"
          "\"one_way_min_s\":%.12g,\"one_way_median_s\":%.12g,\"one_way_max_s\":%.12g}\n",
          static_cast<long long>(bytes), one_way, one_way, one_way);
      std::fprintf(stderr, "pingpong %lld B: %.6g s one way\n", static_cast<long long>(bytes),
                   one_way);
      ++records;
    } else if (rank == 1) {
      MPI_Recv(buffer, count, MPI_BYTE, 0, kTag, comm, MPI_STATUS_IGNORE);
      MPI_Send(buffer, count, MPI_BYTE, 0, kTag, comm);
    }
  }
  if (rank == 0) std::printf("{\"record\":\"end\",\"status\":\"complete\",\"records\":%lld}\n",
                             static_cast<long long>(records));
  SMPI_SHARED_FREE(buffer);
  return 0;
}

void print_collective(const char* name, int ranks, std::int64_t bytes,
                      std::vector<double> times) {
  std::sort(times.begin(), times.end());
  const std::size_t n = times.size();
  const double median = n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  const double algbw = static_cast<double>(bytes) / median;
  const double busbw = algbw * 2.0 * (ranks - 1) / ranks;
  std::printf(
      "{\"record\":\"collective\",\"op\":\"allreduce\",\"algorithm\":\"%s\",\"ranks\":%d,"
      "\"bytes\":%lld,\"iterations\":1,\"time_min_s\":%.12g,\"time_median_s\":%.12g,"
      "\"time_max_s\":%.12g,\"algbw_Bps\":%.12g,\"busbw_Bps\":%.12g,\"verified\":true}\n",
      name, ranks, static_cast<long long>(bytes), times.front(), median, times.back(), algbw,
      busbw);
  std::fprintf(stderr, "allreduce %s N=%d %lld B: median %.6g s, max %.6g s\n", name, ranks,
               static_cast<long long>(bytes), median, times.back());
}

int allreduce(std::int64_t min_bytes, std::int64_t max_bytes, const char* name, MPI_Comm comm,
              int rank, int ranks) {
  const auto largest = static_cast<std::size_t>(max_bytes);
  auto* in = static_cast<std::int32_t*>(SMPI_SHARED_MALLOC(largest));
  auto* out = static_cast<std::int32_t*>(SMPI_SHARED_MALLOC(largest));
  if (rank == 0) print_envelope("collective", ranks);
  std::int64_t records = 0;
  std::vector<double> times(static_cast<std::size_t>(ranks));
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(&leave_as_is, 1, &op);
  for (const std::int64_t bytes : sizes(min_bytes, max_bytes)) {
    const int count = static_cast<int>(bytes / 4);
    const double start = common_start(comm);
    MPI_Allreduce(in, out, count, MPI_INT32_T, op, comm);
    double mine = clock_s() - start;
    MPI_Gather(&mine, 1, MPI_DOUBLE, times.data(), 1, MPI_DOUBLE, 0, comm);
    if (rank == 0) {
      print_collective(name, ranks, bytes, times);
      ++records;
    }
  }
  if (rank == 0) std::printf("{\"record\":\"end\",\"status\":\"complete\",\"records\":%lld}\n",
                             static_cast<long long>(records));
  MPI_Op_free(&op);
  SMPI_SHARED_FREE(in);
  SMPI_SHARED_FREE(out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::string mode = argc > 1 ? argv[1] : "";
  int status = 2;
  if (mode == "pingpong" && argc == 4 && ranks >= 2) {
    status = pingpong(std::atoll(argv[2]), std::atoll(argv[3]), MPI_COMM_WORLD, rank);
  } else if (mode == "allreduce" && argc == 5) {
    status = allreduce(std::atoll(argv[2]), std::atoll(argv[3]), argv[4], MPI_COMM_WORLD, rank,
                       ranks);
  } else if (rank == 0) {
    std::fprintf(stderr,
                 "usage: smpi-probe pingpong MIN MAX | smpi-probe allreduce MIN MAX NAME\n");
  }
  std::fflush(stdout);
  MPI_Finalize();
  return status;
}
