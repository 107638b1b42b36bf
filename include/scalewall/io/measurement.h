// scalewall/io/measurement.h: measurements of a real fabric, as scalewall-mpi writes them and as
// nccl-tests, OSU Micro-Benchmarks and Intel MPI Benchmarks print them, read into one set of
// records that calibrate, validate and diagnose use.
//
// scalewall-mpi's file format is JSON Lines, one JSON object per line, written as measured so
// that an interrupted run keeps everything it measured:
//
//   line 1   the envelope: {"tool":"scalewall-mpi","version":"0.1.0","command":"pingpong",
//            "kind":"measurement","format":"jsonl","inputs":{...every flag, SI units...},
//            "context":{"mpi_library":"Open MPI v4.1.4 ...","mpi_version":"3.1","ranks":4,
//            "ranks_per_host":4,"hosts":["node1"],"date":"2026-11-30T05:00:00Z"}}
//   then     one record per line, {"record":"<kind>", ...fields below...}
//   last     {"record":"end","status":"complete","records":N} (or "status":"failed",
//            "error":"..."); a file without it is read, and flagged as incomplete.
//
// Record kinds and their fields (times in seconds, sizes in bytes, rates in bytes per second):
//   "pingpong"    from, to (ranks), from_host, to_host (optional: their hosts), bytes,
//                 iterations, one_way_min_s, one_way_median_s, one_way_max_s (half the
//                 round trip)
//   "collective"  op ("allreduce", "reduce-scatter", "all-gather", "broadcast", "all-to-all"),
//                 algorithm ("library" or a model name such as "ring"), ranks, bytes
//                 (nccl-tests' size convention, as collective.h), iterations, time_min_s,
//                 time_median_s, time_max_s (over ranks and iterations), algbw_Bps,
//                 busbw_Bps (from the median), verified (true when the result matched the
//                 library's exactly), wrong (optional, written when the run checked its
//                 results, -c 1: the most wrong elements in one call against the expected
//                 sum, summed over the ranks), element_bytes (optional: bytes per element,
//                 8 for scalewall-mpi's int64)
//   "arrival"     iteration, rank, host, arrival_s (time the rank reached the collective,
//                 relative to the earliest rank in that iteration), injected_s (busy-wait the
//                 harness added to that rank), collective_s (the zero-byte collective's time on
//                 that rank, from its arrival)
//   "step"        step, rank, host, compute_s, communication_s, wait_s, step_s
//                 (wait_s: time blocked in the all-reduce beyond its own transfer: the rank
//                 arrived before the slowest)
//   "reduction"   bytes, ranks (reducing at once), iterations, time_min_s, time_median_s,
//                 time_max_s (rank 0's local acc += x of `bytes`), slowest_rank_median_s
//   "copy"        the same fields, for a local copy (dest = x) of `bytes`
//   "alloc"       the same fields, for a fresh work buffer of `bytes`: malloc, a write to
//                 each page and free, plus what the first read of a fresh buffer filled by a
//                 receive costs over a resident one's
//   "sent_reduction"  the same fields, for acc += x where acc is the buffer the rank has just
//                 sent to its partner and x what it received (recursive doubling's step)
//   "sent_exchange"  the same fields, for an exchange of `bytes` with the partner (both send
//                 at once) that receives into the buffer the partner has just read (a ring
//                 all-reduce's all-gather step receives into a block it sent earlier)
#ifndef SCALEWALL_MEASUREMENT_H_
#define SCALEWALL_MEASUREMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/model/collective.h"

namespace scalewall {

// The algorithm a measured collective ran. The MPI library's (or NCCL's) own call is a value
// of its own, not an Algorithm: which algorithm the library chose is unknown, so the model
// cannot cost it as such (validate and diagnose compare it with the model's cheapest), and
// keeping it out of Algorithm keeps the catalogue and every cost function free of a value
// they would all have to refuse. A name that is neither (a file may carry any, from a harness
// of its own) is kept as written, so that the file still reads and validation can say which
// points it leaves out.
class MeasuredAlgorithm {
 public:
  MeasuredAlgorithm() = default;  // the library's call
  static MeasuredAlgorithm library() { return {}; }
  static MeasuredAlgorithm model(AlgorithmSpec spec);
  static MeasuredAlgorithm unknown(std::string name);

  bool is_library() const { return kind_ == Kind::kLibrary; }
  // The model's algorithm; empty for the library's call and for an unknown name.
  std::optional<AlgorithmSpec> spec() const;
  // The name as files spell it: "library", the model's name, or the unknown name as written.
  std::string name() const;

  friend bool operator==(const MeasuredAlgorithm& a, const MeasuredAlgorithm& b) {
    return a.name() == b.name();
  }
  // By name: a strict order for map keys (distinct values have distinct names).
  friend bool operator<(const MeasuredAlgorithm& a, const MeasuredAlgorithm& b) {
    return a.name() < b.name();
  }

 private:
  enum class Kind { kLibrary, kModel, kUnknown };
  Kind kind_ = Kind::kLibrary;
  AlgorithmSpec spec_;
  std::string unknown_;
};

// How files name the library's own call.
inline constexpr std::string_view kLibraryAlgorithmName = "library";

// "library" is the library's call, a name parse_algorithm knows is that algorithm, anything
// else an unknown name. Never throws.
MeasuredAlgorithm parse_measured_algorithm(std::string_view text);

struct PingPongPoint {
  std::size_t series = 0;  // index into MeasurementSet::series: the table it was read from
  std::int64_t from = 0;
  std::int64_t to = 1;
  std::string from_host;  // the ranks' hosts; empty when the record does not say
  std::string to_host;
  double bytes = 0;
  std::int64_t iterations = 0;
  double one_way_min_s = 0;
  double one_way_median_s = 0;
  double one_way_max_s = 0;
};

// One size of a timed sweep of calls (collectives, local reductions): the size, the timed
// repetitions, and the smallest, median and largest time of one.
struct TimedSize {
  double bytes = 0;
  std::int64_t iterations = 0;
  double time_min_s = 0;
  double time_median_s = 0;
  double time_max_s = 0;
};

// bytes in nccl-tests' size convention.
struct CollectivePoint : TimedSize {
  std::size_t series = 0;  // index into MeasurementSet::series: the table it was read from
  Op op = Op::kAllreduce;
  MeasuredAlgorithm algorithm;  // the library's call, or a model algorithm
  std::int64_t ranks = 0;    // 0 when the log does not say (OSU collectives without an
                             // mpirun -np line); calibrate and validate then take --ranks
  double algbw_Bps = 0;
  double busbw_Bps = 0;
  bool verified = true;
  // The most elements wrong against the expected sum in one call, summed over the ranks
  // (scalewall-mpi's "wrong"); empty when the run did not check its results (-c 0).
  std::optional<std::int64_t> wrong;
  // True when `bytes` is still the log's per-peer size (osu_alltoall, IMB Alltoall print the
  // bytes one rank sends to each other rank) because the rank count is unknown: bytes x ranks
  // is nccl-tests' size, and assign_unknown_ranks (calibrate.h) converts it with the count.
  bool bytes_per_peer = false;
  // Bytes per element of the call, where the log says (nccl-tests' type column, OSU's
  // "# Datatype:" line, IMB's datatype for reductions, scalewall-mpi's element_bytes); 0 when
  // it does not. The libraries' rules count elements (select.h's library_choice).
  double element_bytes = 0;
};

// One size of a local reduction sweep (scalewall-mpi reduce): the time to add `bytes` of
// received data into a buffer, every rank at once. Its time per byte is the model's gamma.
struct ReductionPoint : TimedSize {
  std::int64_t ranks = 1;
  double slowest_rank_median_s = 0;
};

// What every per-rank record (arrival, step) starts with: the rank it is of and that rank's
// host.
struct RankRecord {
  std::int64_t rank = 0;
  std::string host;
};

struct ArrivalPoint : RankRecord {
  std::int64_t iteration = 0;
  double arrival_s = 0;
  double injected_s = 0;
  double collective_s = 0;
};

struct StepPoint : RankRecord {
  std::int64_t step = 0;
  double compute_s = 0;
  double communication_s = 0;
  double wait_s = 0;
  double step_s = 0;
};

// The run a file's records came from, as far as the file says: scalewall-mpi's envelope
// names its mode and its context (ranks, hosts, date); the benchmarks' logs say none of it.
struct MeasurementRun {
  std::string source;                          // as in MeasurementSet::sources
  std::string command;                         // "step", "arrival", ...; empty for a log
  std::optional<std::int64_t> ranks;           // context.ranks
  std::optional<std::int64_t> ranks_per_host;  // context.ranks_per_host
  std::vector<std::string> hosts;              // context.hosts, as written
  std::string date;                            // context.date, as written; empty if none
  std::string mpi_library;                     // context.mpi_library, as written ("Open MPI
                                               // v4.1.4, ..."); empty if none
};

// One table of one file: the points of one run of one benchmark. Tables are never pooled by
// the reader: two runs of one op in one file, or two files, are two series.
struct MeasurementSeries {
  std::string label;      // "run.txt: all_reduce_perf", "osu.log, table 3: osu_bw"
  std::string source;     // the file, as given
  std::int64_t table = 1; // its place among the series of its file, from 1
  std::string benchmark;  // "all_reduce_perf", "osu_latency", "IMB Allreduce",
                          // "scalewall-mpi collective"
  std::int64_t ranks = 0; // the run's rank count; 0 when the log does not say
  std::optional<std::int64_t> nodes;           // from the log's host names or launcher line
  std::optional<std::int64_t> ranks_per_node;  // likewise; empty when the log does not say
  std::int64_t first_line = 0;                 // where the table starts in its file
  std::int64_t gpus_per_thread = 1;  // GPUs one thread drove (nccl-tests' nGpus, -g); 1 else
  std::string nccl_version;  // the NCCL that ran it ("2.23.4"), where an nccl-tests log states
                             // it (nccl-library=, an NCCL_DEBUG=INFO line, -J's nccl_version)
  std::string mpi_library;  // the MPI library that ran it, as its run names it (scalewall-mpi's
                            // context.mpi_library); empty when the file does not say
};

// Everything read from one or more files.
struct MeasurementSet {
  std::vector<MeasurementSeries> series;  // every table of every file, in reading order
  std::vector<std::string> sources;  // "path (format)", one per file read
  std::vector<MeasurementRun> runs;  // one per file read, in the order of `sources`
  std::vector<std::string> warnings; // e.g. "run.jsonl: incomplete (no end record)"
  std::vector<PingPongPoint> pingpong;
  // scalewall-mpi exchange: both ranks of a pair send `bytes` to each other at once; the
  // one_way_* fields hold the time of one whole exchange (what a ring or recursive-doubling
  // step costs a rank), not half a round trip.
  std::vector<PingPongPoint> exchanges;
  std::vector<CollectivePoint> collectives;
  std::vector<ArrivalPoint> arrivals;
  std::vector<StepPoint> steps;
  std::vector<ReductionPoint> reductions;
  // scalewall-mpi reduce's "copy" records: the time to copy `bytes` (dest = x), every rank at
  // once; the local copy of its input an out-of-place call makes (CostOptions::copy).
  std::vector<ReductionPoint> copies;
  // scalewall-mpi reduce's "alloc" records: the time of a fresh work buffer of `bytes` (malloc,
  // the first touch of each page, free, plus the first read's extra cost after a receive
  // filled it), every rank at once; what a library pays for the work buffers it allocates
  // inside a call (CostOptions::alloc).
  std::vector<ReductionPoint> allocs;
  // scalewall-mpi reduce's "sent_reduction" records: the time of acc += x right after acc was
  // sent to a partner and x received from it, every rank at once; what a recursive-doubling
  // step pays to add into the vector it has just sent (CostOptions::sent_reduction).
  std::vector<ReductionPoint> sent_reductions;
  // scalewall-mpi reduce's "sent_exchange" records: the time of an exchange with a partner
  // that receives into the buffer this rank has just sent to it, every pair at once; what a
  // step pays that receives into a block it sent earlier in the call
  // (CostOptions::sent_exchange).
  std::vector<ReductionPoint> sent_exchanges;
};

// The formats read_measurement_file recognises by content (not by file name).
enum class MeasurementFormat {
  kScalewallMpi,  // JSON Lines as above
  kNcclTests,     // all_reduce_perf and friends
  kOsu,           // osu_latency, osu_multi_lat, osu_bw, osu_bibw, osu_mbw_mr, osu_allreduce,
                  // osu_reduce, osu_bcast, osu_alltoall
  kImb,           // Intel MPI Benchmarks PingPong, Allreduce, Reduce, Bcast, Barrier,
                  // Alltoall
};

// The label of series `index` of `set`, or "" when the set has no such series (points built
// by hand).
std::string series_label(const MeasurementSet& set, std::size_t index);

// Reads one file, detecting its format by content, and appends to `set`. Throws InputError
// naming the file (and line) when the file is missing, empty, of no known format, or holds a
// malformed or truncated record.
void read_measurement_file(const std::string& path, MeasurementSet& set);

// The same for text already read: `source_name` stands for the file in messages and sources.
// read_measurement_file is read_input_file (input_file.h) followed by this.
void parse_measurement_text(std::string_view text, const std::string& source_name,
                            MeasurementSet& set);

// ---- Streaming bandwidth (the LogGP gap is fitted from it in analysis/calibrate.h) ----

// One size of a streaming bandwidth test (osu_bw): bytes per second with a window of
// messages in flight.
struct StreamPoint {
  double bytes = 0;
  double bandwidth_Bps = 0;
  std::string benchmark = "osu_bw";  // osu_bw (one direction), osu_bibw (both directions
                                     // summed), osu_mbw_mr (every pair summed)
};

// The streaming points of an OSU bandwidth log (osu_bw, osu_bibw, osu_mbw_mr tables), in file
// order; empty when `path` is a measurement file of another kind. Throws InputError as read_measurement_file does
// (the file is read by the same OSU table reader).
std::vector<StreamPoint> read_stream_points(const std::string& path);

// The same for text already read, `source_name` standing for the file in messages.
std::vector<StreamPoint> parse_stream_points(std::string_view text,
                                             const std::string& source_name);

}  // namespace scalewall

#endif  // SCALEWALL_MEASUREMENT_H_
