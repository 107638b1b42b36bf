// Ranks, hosts, context, the common clock, the memory check and the writer; see mpi/world.h.
#include "mpi/world.h"

#include <fmt/format.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>

#include "mpi/measure.h"
#include "scalewall/base/error.h"
#include "scalewall/base/units.h"

namespace scalewall::mpi {
namespace {

constexpr int kClockTag = 7001;

std::string first_line(const char* text) {
  std::string s(text);
  const std::size_t newline = s.find('\n');
  if (newline != std::string::npos) s.resize(newline);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

World make_world() {
  World w;
  MPI_Comm_rank(w.comm, &w.rank);
  MPI_Comm_size(w.comm, &w.size);

  char name[MPI_MAX_PROCESSOR_NAME + 1] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  w.host.assign(name, static_cast<std::size_t>(length));

  // Every rank's host name, as fixed-width records.
  constexpr int kWidth = MPI_MAX_PROCESSOR_NAME + 1;
  std::vector<char> mine(kWidth, '\0');
  std::copy(w.host.begin(), w.host.end(), mine.begin());
  std::vector<char> all(static_cast<std::size_t>(kWidth) * static_cast<std::size_t>(w.size));
  MPI_Allgather(mine.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, w.comm);
  for (int r = 0; r < w.size; ++r) {
    const char* text = all.data() + static_cast<std::size_t>(r) * kWidth;
    w.rank_hosts.emplace_back(text);
    if (std::find(w.hosts.begin(), w.hosts.end(), w.rank_hosts.back()) == w.hosts.end()) {
      w.hosts.push_back(w.rank_hosts.back());
    }
  }

  MPI_Comm_split_type(w.comm, MPI_COMM_TYPE_SHARED, w.rank, MPI_INFO_NULL, &w.node_comm);
  MPI_Comm_rank(w.node_comm, &w.node_rank);
  MPI_Comm_size(w.node_comm, &w.node_size);
  MPI_Allreduce(&w.node_size, &w.ranks_per_host, 1, MPI_INT, MPI_MAX, w.comm);
  return w;
}

void free_world(World& world) {
  if (world.node_comm != MPI_COMM_NULL) MPI_Comm_free(&world.node_comm);
}

nlohmann::ordered_json context_json(const World& world) {
  char library[MPI_MAX_LIBRARY_VERSION_STRING + 1] = {};
  int length = 0;
  MPI_Get_library_version(library, &length);
  int version = 0;
  int subversion = 0;
  MPI_Get_version(&version, &subversion);
  nlohmann::ordered_json context;
  context["mpi_library"] = first_line(library);
  context["mpi_version"] = fmt::format("{}.{}", version, subversion);
  context["ranks"] = world.size;
  context["ranks_per_host"] = world.ranks_per_host;
  context["hosts"] = world.hosts;
  context["date"] = utc_timestamp();
  return context;
}

void quiet_wait(MPI_Request* request) {
  int done = 0;
  MPI_Test(request, &done, MPI_STATUS_IGNORE);
  while (done == 0) {
    timespec pause{0, 50'000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
    MPI_Test(request, &done, MPI_STATUS_IGNORE);
  }
}

void quiet_barrier(const World& world) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(world.comm, &request);
  quiet_wait(&request);
}

ClockSync sync_clocks(const World& world, int rounds) {
  ClockSync sync;
  // The lowest world rank of each host leads it (node_comm is ordered by world rank).
  int leader = world.rank;
  MPI_Bcast(&leader, 1, MPI_INT, 0, world.node_comm);
  const int my_leader_flag = leader == world.rank ? world.rank : -1;
  std::vector<int> leaders(static_cast<std::size_t>(world.size));
  MPI_Allgather(&my_leader_flag, 1, MPI_INT, leaders.data(), 1, MPI_INT, world.comm);

  double offset = 0;
  double error = 0;
  for (const int l : leaders) {
    // Rank 0 leads its own host; its clock is the reference.
    if (l <= 0) continue;
    ++sync.hosts_synchronised;
    if (world.rank == 0) {
      for (int k = 0; k < rounds; ++k) {
        char ping = 0;
        MPI_Recv(&ping, 1, MPI_CHAR, l, kClockTag, world.comm, MPI_STATUS_IGNORE);
        const double t0 = now_s();
        MPI_Send(&t0, 1, MPI_DOUBLE, l, kClockTag, world.comm);
      }
    } else if (world.rank == l) {
      double best_round_trip = std::numeric_limits<double>::infinity();
      for (int k = 0; k < rounds; ++k) {
        const char ping = 0;
        const double ta = now_s();
        MPI_Send(&ping, 1, MPI_CHAR, 0, kClockTag, world.comm);
        double t0 = 0;
        MPI_Recv(&t0, 1, MPI_DOUBLE, 0, kClockTag, world.comm, MPI_STATUS_IGNORE);
        const double tb = now_s();
        if (tb - ta < best_round_trip) {
          best_round_trip = tb - ta;
          offset = t0 - (ta + tb) / 2;
          error = (tb - ta) / 2;
        }
      }
    }
  }
  double shared[2] = {offset, error};
  MPI_Bcast(shared, 2, MPI_DOUBLE, 0, world.node_comm);
  sync.offset_s = shared[0];
  MPI_Allreduce(&shared[1], &sync.max_error_s, 1, MPI_DOUBLE, MPI_MAX, world.comm);
  return sync;
}

nlohmann::ordered_json clock_json(const World& world, const ClockSync& sync) {
  nlohmann::ordered_json clock;
  clock["source"] = "std::chrono::steady_clock";
  clock["method"] = world.hosts.size() > 1
                        ? "ranks on rank 0's host share its clock; each other host's offset "
                          "from the shortest of 32 time-stamp round trips with rank 0"
                        : "every rank shares rank 0's host and clock";
  clock["hosts_synchronised"] = sync.hosts_synchronised;
  clock["max_error_s"] = sync.max_error_s;
  return clock;
}

void check_memory(const World& world, double bytes_per_rank, std::string_view what) {
  const double need = bytes_per_rank * world.node_size;
  const double available = available_memory_bytes();
  // When the host does not say, nothing is refused here; the allocation itself still fails
  // loudly if it must.
  struct {
    double ratio;
    int rank;
  } mine{available > 0 ? need / available : 0.0, world.rank}, worst{0.0, 0};
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, world.comm);
  constexpr double kUsable = 0.8;
  if (worst.ratio <= kUsable) return;
  double figures[3] = {need, available, static_cast<double>(world.node_size)};
  MPI_Bcast(figures, 3, MPI_DOUBLE, worst.rank, world.comm);
  const std::string& host = world.rank_hosts[static_cast<std::size_t>(worst.rank)];
  throw InputError(fmt::format(
      "{} does not fit in memory: it needs {} per rank, {} for the {} ranks on host '{}', "
      "which has {} available (at most 80% is used)",
      what, format_bytes(bytes_per_rank), format_bytes(figures[0]),
      static_cast<int>(figures[2]), host, format_bytes(figures[1])));
}

RecordWriter::RecordWriter(const World& world, const std::string& path)
    : active_(world.is_root()) {
  int ok = 1;
  std::string reason;
  if (active_) {
    if (path.empty()) {
      file_ = stdout;
    } else {
      file_ = std::fopen(path.c_str(), "w");
      owns_file_ = file_ != nullptr;
      if (file_ == nullptr) {
        ok = 0;
        reason = std::strerror(errno);
      }
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, world.comm);
  if (ok == 0) {
    active_ = false;
    throw RunError(fmt::format("--out: cannot write '{}'{}{}", path, reason.empty() ? "" : ": ",
                               reason));
  }
}

RecordWriter::~RecordWriter() {
  if (owns_file_) std::fclose(file_);
}

void RecordWriter::write_line(const nlohmann::ordered_json& line) {
  if (!active_) return;
  const std::string text = line.dump() + "\n";
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0) {
    // Rank 0 alone sees this; main ends the job with MPI_Abort.
    throw std::runtime_error(fmt::format("cannot write the output: {}", std::strerror(errno)));
  }
}

void RecordWriter::envelope(std::string_view command, const nlohmann::ordered_json& inputs,
                            const nlohmann::ordered_json& context) {
  nlohmann::ordered_json line;
  line["tool"] = "scalewall-mpi";
  line["version"] = SCALEWALL_VERSION;
  line["command"] = command;
  line["kind"] = "measurement";
  line["format"] = "jsonl";
  line["inputs"] = inputs;
  line["context"] = context;
  write_line(line);
}

void RecordWriter::record(std::string_view kind, const nlohmann::ordered_json& fields) {
  SCALEWALL_CHECK(fields.is_object());
  nlohmann::ordered_json line;
  line["record"] = kind;
  for (const auto& [key, value] : fields.items()) line[key] = value;
  write_line(line);
  ++records_;
}

void RecordWriter::end(bool complete, const std::string& error) {
  nlohmann::ordered_json line;
  line["record"] = "end";
  line["status"] = complete ? "complete" : "failed";
  line["records"] = records_;
  if (!complete) line["error"] = error;
  write_line(line);
}

void maybe_fail(const World& world, const Faults& faults, std::int64_t unit) {
  if (unit != 1) return;
  if (world.rank == faults.abort_rank) {
    std::fprintf(stderr, "scalewall-mpi: rank %d aborting as asked (--abort-rank)\n", world.rank);
    MPI_Abort(world.comm, 3);
  }
  if (world.rank == faults.kill_rank) {
    std::fprintf(stderr, "scalewall-mpi: rank %d killing itself as asked (--kill-rank)\n",
                 world.rank);
    std::fflush(stderr);
    ::raise(SIGKILL);
  }
}

}  // namespace scalewall::mpi
