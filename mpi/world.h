// mpi/world.h: what every scalewall-mpi mode shares once MPI is running: who and where the
// ranks are, the run's context block, the JSON Lines writer (rank 0), a barrier that idle
// ranks wait in without spinning, the common clock, the memory check and the hidden fault
// injection used by the tests.
//
// Layer: mpi/. One of the few files that include <mpi.h>; the library never does.
//
// Collective calls: every function marked COLLECTIVE must be called by all ranks in the same
// order, with the same arguments where the comment says so; an InputError it throws is
// thrown on every rank, so that all of them leave through the same exit path.
#ifndef SCALEWALL_MPI_WORLD_H_
#define SCALEWALL_MPI_WORLD_H_

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace scalewall::mpi {

// A run that failed for a reason other than its input, detected on every rank together
// (rank 0 cannot open --out and has told the others): exit status 1. A failure that only one
// rank sees is any other exception, and main ends the job with MPI_Abort.
class RunError : public std::runtime_error {
 public:
  explicit RunError(const std::string& message) : std::runtime_error(message) {}
};

struct World {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0;
  int size = 1;
  std::string host;                     // this rank's MPI_Get_processor_name
  std::vector<std::string> rank_hosts;  // every rank's host, by rank
  std::vector<std::string> hosts;       // distinct hosts, in order of their first rank
  MPI_Comm node_comm = MPI_COMM_NULL;   // the ranks sharing memory with this one
  int node_rank = 0;                    // this rank's place on its host
  int node_size = 1;                    // ranks on this rank's host
  int ranks_per_host = 1;               // the most ranks on any one host

  bool is_root() const { return rank == 0; }
};

// COLLECTIVE. Learns rank, size, host names and ranks per host (MPI_Comm_split_type with
// MPI_COMM_TYPE_SHARED). free_world releases the node communicator.
World make_world();
void free_world(World& world);

// The envelope's context block: {"mpi_library","mpi_version","ranks","ranks_per_host",
// "hosts","date"}. mpi_library is MPI_Get_library_version's first line; mpi_version is
// MPI_Get_version's "3.1"; date is UTC.
nlohmann::ordered_json context_json(const World& world);

// COLLECTIVE. A barrier that polls MPI_Ibarrier with 50 us sleeps between tests, so ranks
// that have nothing to do while two others measure (pingpong) give up their core instead of
// spinning in MPI's progress loop. Ranks that are busy pay at most one extra sleep when they
// arrive last. Its exit skew is larger than MPI_Barrier's: use it only between measurements.
void quiet_barrier(const World& world);

// Completes `request` the same way: MPI_Test with 50 us sleeps between tests.
void quiet_wait(MPI_Request* request);

// ---- the common clock ----

// How this rank's now_s() maps onto rank 0's: global = now_s() + offset_s.
struct ClockSync {
  double offset_s = 0;
  // The largest error of any rank's offset, the same on every rank: half the shortest round
  // trip of the exchange that set it; 0 when every rank shares rank 0's host and clock.
  double max_error_s = 0;
  int hosts_synchronised = 0;  // hosts other than rank 0's whose offset was estimated
};

// COLLECTIVE. Ranks on rank 0's host share its steady clock (offset 0, exact). On every other
// host, the lowest rank exchanges `rounds` time stamps with rank 0 (Cristian's method: it
// sends at t_a, rank 0 replies with its time t_0, the reply arrives at t_b; the offset is
// t_0 - (t_a + t_b) / 2, in error by at most (t_b - t_a) / 2), keeps the exchange with the
// shortest round trip, and shares the offset with its host's ranks. Drift after the
// exchange is not corrected (about 1e-5 s per second for unsynchronised hosts).
ClockSync sync_clocks(const World& world, int rounds = 32);

// The "clock" entry of a context block for the modes that use the common clock.
nlohmann::ordered_json clock_json(const World& world, const ClockSync& sync);

// ---- memory ----

// COLLECTIVE (same arguments on every rank). Throws InputError on every rank when some host
// cannot give `bytes_per_rank` to each of its ranks from 80% of its available memory,
// naming `what` (e.g. "--max-bytes 64 GiB"), the need and the host.
void check_memory(const World& world, double bytes_per_rank, std::string_view what);

// ---- the output file ----

// JSON Lines as include/scalewall/io/measurement.h specifies: the envelope, one record per
// line, and an end record. Only rank 0 writes; on other ranks every call does nothing.
// Every line is flushed as it is written, so an interrupted run keeps its records.
class RecordWriter {
 public:
  // COLLECTIVE. Rank 0 opens `path` (stdout when empty) and tells the others whether it
  // could; throws RunError on every rank when it could not.
  RecordWriter(const World& world, const std::string& path);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  // The first line: {"tool":"scalewall-mpi","version","command","kind":"measurement",
  // "format":"jsonl","inputs","context"}.
  void envelope(std::string_view command, const nlohmann::ordered_json& inputs,
                const nlohmann::ordered_json& context);
  // One {"record":kind, ...fields} line. `fields` must be an object.
  void record(std::string_view kind, const nlohmann::ordered_json& fields);
  // The last line: {"record":"end","status":"complete","records":N}, or with
  // "status":"failed" and "error":message.
  void end(bool complete, const std::string& error = {});

  std::int64_t records() const { return records_; }

 private:
  void write_line(const nlohmann::ordered_json& line);

  bool active_ = false;
  std::FILE* file_ = nullptr;
  bool owns_file_ = false;
  std::int64_t records_ = 0;
};

// ---- fault injection (hidden flags, for the tests) ----

// --abort-rank R makes rank R call MPI_Abort, --kill-rank R makes it raise SIGKILL, each at
// the start of the second measured unit (size, pair, iteration or step), so that the file
// already holds a record. Negative: no fault.
struct Faults {
  int abort_rank = -1;
  int kill_rank = -1;
};

// Called by every mode at the start of measured unit `unit` (0, 1, 2, ...).
void maybe_fail(const World& world, const Faults& faults, std::int64_t unit);

}  // namespace scalewall::mpi

#endif  // SCALEWALL_MPI_WORLD_H_
