// scalewall-mpi pingpong and exchange: the time between rank pairs over a size sweep; see
// docs/mpi.md.
//
// pingpong: for each pair (a, b) and size, rank a sends the message to b and b sends it
// straight back, `warmup` times untimed and `iterations` times timed one by one; the one-way
// time is half of each round trip.
// exchange: both ranks of the pair send the message to each other at once (MPI_Sendrecv, as a
// ring or recursive-doubling step does), the message freshly written by its sender; the time
// is that of one exchange, both ranks' times pooled.
// The other ranks wait in a sleeping barrier so that, oversubscribed, they leave the cores to
// the pair.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <iostream>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "mpi/live_table.h"
#include "mpi/measure.h"
#include "mpi/modes.h"
#include "scalewall/base/error.h"
#include "scalewall/base/units.h"

namespace scalewall::mpi {
namespace {

constexpr int kPingTag = 7200;
constexpr int kSummaryTag = 7201;
constexpr int kSyncTag = 7202;

struct PingPongFlags {
  CommonFlags common;
  SizeFlags sizes;
  std::string pairs;
  RepeatFlags repeats;
  std::string exchange = "1";  // pingpong only: 1 also times each size as an exchange
};

using Pair = std::pair<int, int>;

std::vector<Pair> resolve_pairs(const std::string& text, int ranks) {
  std::vector<Pair> pairs;
  if (text == "all") {
    for (int i = 0; i < ranks; ++i) {
      for (int j = i + 1; j < ranks; ++j) pairs.emplace_back(i, j);
    }
    return pairs;
  }
  refuse_all_in_a_list("--pairs", text, "every pair of ranks");
  for (const std::string& item : split_list(text)) {
    const std::size_t dash = item.find('-');
    if (dash == std::string::npos) {
      throw InputError(fmt::format("--pairs: '{}' is not a pair (write A-B, a list 0-1,2-3, "
                                   "or all)",
                                   item));
    }
    const int a = flag_rank("--pairs", item.substr(0, dash), ranks);
    const int b = flag_rank("--pairs", item.substr(dash + 1), ranks);
    if (a == b) throw InputError(fmt::format("--pairs: '{}' pairs a rank with itself", item));
    pairs.emplace_back(a, b);
  }
  return pairs;
}

// Rank a's side: the timed round trips, as one-way times.
Summary measure_pair(int b, int bytes, int warmup, int iterations, std::vector<char>& out,
                     std::vector<char>& in, MPI_Comm comm) {
  std::vector<double> one_way;
  one_way.reserve(static_cast<std::size_t>(iterations));
  for (int i = 0; i < warmup + iterations; ++i) {
    const double t0 = now_s();
    MPI_Send(out.data(), bytes, MPI_BYTE, b, kPingTag, comm);
    MPI_Recv(in.data(), bytes, MPI_BYTE, b, kPingTag, comm, MPI_STATUS_IGNORE);
    const double t1 = now_s();
    if (i >= warmup) one_way.push_back((t1 - t0) / 2);
  }
  return summarize(std::move(one_way));
}

// Rank b's side: send every message straight back.
void serve_pair(int a, int bytes, int rounds, std::vector<char>& buffer, MPI_Comm comm) {
  for (int i = 0; i < rounds; ++i) {
    MPI_Recv(buffer.data(), bytes, MPI_BYTE, a, kPingTag, comm, MPI_STATUS_IGNORE);
    MPI_Send(buffer.data(), bytes, MPI_BYTE, a, kPingTag, comm);
  }
}

// One row of the live table: the size and the one-way times of its round trips.
std::vector<std::string> pingpong_row(int bytes, const Summary& s) {
  return {count_cell(bytes), us_cell(s.min), us_cell(s.median), us_cell(s.max),
          gbps_cell(s.median > 0 ? bytes / s.median : 0.0)};
}

// The two modes this file runs.
enum class PairMode { kPingPong, kExchange };

const char* mode_name(PairMode mode) { return mode == PairMode::kPingPong ? "pingpong" : "exchange"; }

// The repeats and buffers of one pair's measurements.
struct PairSettings {
  int warmup = 0;
  int iterations = 0;
  std::vector<char>* out = nullptr;
  std::vector<char>* in = nullptr;
};

// Either side of an exchange: `warmup` + `iterations` simultaneous sends and receives with
// `peer`, each timed as collective mode times a call: the message freshly written by its sender
// (a step of a collective sends what it has just produced: the copy of its input, or the sum
// of the step before), the receive buffer freshly written, the pair started together (a
// zero-byte exchange, the pair's barrier), then the timed exchange. So an exchange costs what
// one step of a measured ring or recursive doubling costs, not what back-to-back transfers
// between hot buffers do: on shared memory a message whose lines sit modified in the sender's
// cache takes up to twice as long to copy as one that both cores already hold (2 ranks of
// Open MPI 4.1 vader, 1-4 MiB). Returns this rank's timed exchanges.
std::vector<double> time_exchanges(int peer, int bytes, int warmup, int iterations,
                                   std::vector<char>& out, std::vector<char>& in, MPI_Comm comm) {
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(iterations));
  char token = 0;
  for (int i = 0; i < warmup + iterations; ++i) {
    std::fill(out.begin(), out.begin() + bytes, static_cast<char>(i));
    std::fill(in.begin(), in.begin() + bytes, '\0');
    MPI_Sendrecv(&token, 0, MPI_BYTE, peer, kSyncTag, &token, 0, MPI_BYTE, peer, kSyncTag, comm,
                 MPI_STATUS_IGNORE);
    const double t0 = now_s();
    MPI_Sendrecv(out.data(), bytes, MPI_BYTE, peer, kPingTag, in.data(), bytes, MPI_BYTE, peer,
                 kPingTag, comm, MPI_STATUS_IGNORE);
    const double t1 = now_s();
    if (i >= warmup) times.push_back(t1 - t0);
  }
  return times;
}

// Rank a's summary of an exchange between a and b: the times of both ranks pooled, as a
// collective record pools every rank's (a rank that leaves the pair's barrier late finds its
// partner's message waiting and times little; its partner times the wait).
Summary measure_exchange(int a, int b, int rank, int bytes, const PairSettings& p,
                         MPI_Comm comm) {
  const int peer = rank == a ? b : a;
  std::vector<double> times = time_exchanges(peer, bytes, p.warmup, p.iterations, *p.out, *p.in,
                                             comm);
  if (rank == b) {
    MPI_Send(times.data(), static_cast<int>(times.size()), MPI_DOUBLE, a, kSummaryTag, comm);
    return {};
  }
  std::vector<double> theirs(times.size());
  MPI_Recv(theirs.data(), static_cast<int>(theirs.size()), MPI_DOUBLE, b, kSummaryTag, comm,
           MPI_STATUS_IGNORE);
  times.insert(times.end(), theirs.begin(), theirs.end());
  return summarize(std::move(times));
}

// One size between ranks a and b, round trips or exchanges; rank a's summary, on rank 0 (sent
// there when a is another rank), and on a itself; the other ranks return an empty summary.
Summary timed_pair(const World& w, int a, int b, int bytes, bool exchange,
                   const PairSettings& p) {
  Summary s;
  if (w.rank == a) {
    s = exchange ? measure_exchange(a, b, w.rank, bytes, p, w.comm)
                 : measure_pair(b, bytes, p.warmup, p.iterations, *p.out, *p.in, w.comm);
    if (a != 0) {
      const double figures[3] = {s.min, s.median, s.max};
      MPI_Send(figures, 3, MPI_DOUBLE, 0, kSummaryTag, w.comm);
    }
  } else if (w.rank == b) {
    if (exchange) {
      measure_exchange(a, b, w.rank, bytes, p, w.comm);
    } else {
      serve_pair(a, bytes, p.warmup + p.iterations, *p.in, w.comm);
    }
  }
  if (w.is_root() && a != 0) {
    double figures[3] = {};
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Irecv(figures, 3, MPI_DOUBLE, a, kSummaryTag, w.comm, &request);
    quiet_wait(&request);
    s = {figures[0], figures[1], figures[2]};
  }
  return s;
}

// A "pingpong" record (one-way times) or an "exchange" record (times of one exchange).
nlohmann::ordered_json pair_record(const World& w, int a, int b, int bytes, int iterations,
                                   const Summary& s, bool exchange) {
  nlohmann::ordered_json record;
  record["from"] = a;
  record["to"] = b;
  record["from_host"] = w.rank_hosts[static_cast<std::size_t>(a)];
  record["to_host"] = w.rank_hosts[static_cast<std::size_t>(b)];
  record["bytes"] = bytes;
  record["iterations"] = iterations;
  // An exchange's times are both ranks' (measure_exchange): twice the iterations of each.
  if (exchange) record["samples"] = 2 * static_cast<std::int64_t>(iterations);
  const std::string stem = exchange ? "exchange" : "one_way";
  record[stem + "_min_s"] = s.min;
  record[stem + "_median_s"] = s.median;
  record[stem + "_max_s"] = s.max;
  return record;
}

// What a pair mode's flags resolve to, checked against the rank count and the memory.
struct PairPlan {
  std::vector<double> sizes;
  int iterations = 0;
  int warmup = 0;
  std::vector<Pair> pairs;
  double largest = 0;
  bool both = false;  // pingpong --exchange 1: each size's round trips, then the size exchanged
};

// Throws InputError naming the flag when a value is bad, on every rank.
PairPlan plan_pairs(const World& w, const PingPongFlags& flags, PairMode mode) {
  const char* name = mode_name(mode);
  if (w.size < 2) {
    throw InputError(fmt::format("{} needs at least 2 ranks; this run has {} (launch it as "
                                 "mpirun -np 2 scalewall-mpi {})",
                                 name, w.size, name));
  }
  PairPlan plan;
  plan.sizes = resolve_sizes(flags.sizes);
  const Repeats repeats = resolve_repeats(flags.repeats);
  plan.iterations = repeats.iterations;
  plan.warmup = repeats.warmup;
  plan.pairs = resolve_pairs(flags.pairs, w.size);
  for (const double s : plan.sizes) plan.largest = std::max(plan.largest, s);
  const char* size_flag = flags.sizes.sizes.empty() ? "--max-bytes" : "--sizes";
  if (plan.largest > INT_MAX) {
    throw InputError(fmt::format("{}: {} is above the largest single MPI message of this "
                                 "harness ({} bytes)",
                                 size_flag, format_bytes(plan.largest), INT_MAX));
  }
  check_memory(w, 2 * plan.largest,
               fmt::format("{} {}", size_flag, format_bytes(plan.largest)));
  plan.both = mode != PairMode::kExchange && flag_count("--exchange", flags.exchange, 0, 1) == 1;
  return plan;
}

int run_pairs(const World& w, const PingPongFlags& flags, PairMode mode) {
  const char* name = mode_name(mode);
  const PairPlan plan = plan_pairs(w, flags, mode);
  const std::vector<double>& sizes = plan.sizes;
  const int iterations = plan.iterations;
  const int warmup = plan.warmup;
  const std::vector<Pair>& pairs = plan.pairs;
  const double largest = plan.largest;
  const bool exchange = mode == PairMode::kExchange;
  const bool both = plan.both;
  RecordWriter writer(w, flags.common.out);
  nlohmann::ordered_json inputs;
  inputs["pairs"] = nlohmann::ordered_json::array();
  for (const auto& [a, b] : pairs) inputs["pairs"].push_back({a, b});
  inputs["sizes"] = nlohmann::ordered_json::array();
  for (const double s : sizes) inputs["sizes"].push_back(static_cast<std::int64_t>(s));
  inputs["iterations"] = iterations;
  inputs["warmup"] = warmup;
  if (mode == PairMode::kPingPong) inputs["exchange"] = both;
  writer.envelope(name, inputs, context_json(w));

  const auto buffer_bytes = static_cast<std::size_t>(std::max(1.0, largest));
  std::vector<char> out(buffer_bytes, 'p');
  std::vector<char> in(buffer_bytes, '\0');
  const Faults faults = flags.common.faults();
  std::int64_t unit = 0;
  std::vector<LiveColumn> columns = {{"size", "B", 12},
                                     {"min", "us", 10},
                                     {"median", "us", 10},
                                     {"max", "us", 10},
                                     {"bandwidth", "GB/s", 10}};
  if (both) columns.push_back({"exchange", "us", 10});
  LiveTable table(live_output(w, flags.common), columns);
  const PairSettings settings{warmup, iterations, &out, &in};
  for (const auto& [a, b] : pairs) {
    const std::string& host_a = w.rank_hosts[static_cast<std::size_t>(a)];
    const std::string& host_b = w.rank_hosts[static_cast<std::size_t>(b)];
    table.title(exchange
                    ? fmt::format("exchange {}<->{} ({} <-> {}): time of one exchange (each rank "
                                  "sends the size and receives it; both ranks' times), {} timed "
                                  "exchanges after {} warm-up per size; bandwidth: size / "
                                  "median, each way",
                                  a, b, host_a, host_b, iterations, warmup)
                    : fmt::format("pingpong {}->{} ({} -> {}): one-way time (half the round "
                                  "trip), {} timed round trips after {} warm-up per size; "
                                  "bandwidth: size / median{}",
                                  a, b, host_a, host_b, iterations, warmup,
                                  both ? "; exchange: the median time of one exchange of the "
                                         "size (both ranks send at once), as many timed"
                                         " exchanges"
                                       : ""));
    table.header();
    for (const double size : sizes) {
      maybe_fail(w, faults, unit++);
      const auto bytes = static_cast<int>(size);
      const Summary s = timed_pair(w, a, b, bytes, exchange, settings);
      if (w.is_root()) writer.record(name, pair_record(w, a, b, bytes, iterations, s, exchange));
      std::vector<std::string> row = pingpong_row(bytes, s);
      if (both) {
        const Summary x = timed_pair(w, a, b, bytes, true, settings);
        if (w.is_root()) {
          writer.record("exchange", pair_record(w, a, b, bytes, iterations, x, true));
          row.push_back(us_cell(x.median));
        }
      }
      if (w.is_root()) table.row(row);
    }
    quiet_barrier(w);
  }
  writer.end(true);
  return 0;
}

}  // namespace

namespace {

// What a pair mode's --help says.
struct PairModeText {
  const char* pairs_help;
  const char* timed_help;
  const char* untimed_help;
  const char* summary;
  const char* example;
};

// A pair mode's subcommand: --pairs, the size sweep, the repeats and the common flags.
Mode register_pair_mode(CLI::App& app, PairMode mode, const PairModeText& text) {
  auto flags = std::make_shared<PingPongFlags>();
  FlagGroup pairs = {{"--pairs", &flags->pairs, text.pairs_help, "LIST", "0-1"}};
  if (mode == PairMode::kPingPong) {
    pairs.push_back(
        {"--exchange", &flags->exchange,
         "1: after each size's round trips, also time the size exchanged (both ranks send at "
         "once, as in the exchange mode) and write an exchange record, so that this one file "
         "calibrates the steps of rings and recursive doubling too; 0: round trips only",
         "0|1", "1"});
  }
  const FlagGroup repeats =
      repeat_flags(&flags->repeats, text.timed_help, "50", text.untimed_help, "5");
  CLI::App* cmd = add_command(
      app, {mode_name(mode), text.summary,
            {pairs, size_flags(&flags->sizes, "0", "4MiB"), repeats, common_flags(&flags->common)},
            text.example});
  return {cmd, [flags, mode](const World& w) { return run_pairs(w, *flags, mode); },
          [flags, mode](const World& w) { plan_pairs(w, *flags, mode); }};
}

}  // namespace

Mode register_pingpong(CLI::App& app) {
  return register_pair_mode(
      app, PairMode::kPingPong,
      {"Rank pairs: A-B, a list 0-1,2-3, or all (every pair i<j, so that a slow link or host "
       "stands out)",
       "Timed round trips per size", "Untimed round trips before them",
       "One-way time (half the round trip) between rank pairs over a size sweep; needs 2 "
       "ranks or more.",
       "Example: mpirun -np 2 scalewall-mpi pingpong --max-bytes 64MiB --out pp.jsonl\n"
       "         then scalewall calibrate pp.jsonl fits alpha and beta."});
}

Mode register_exchange(CLI::App& app) {
  return register_pair_mode(
      app, PairMode::kExchange,
      {"Rank pairs: A-B, a list 0-1,2-3, or all (every pair i<j)", "Timed exchanges per size",
       "Untimed exchanges before them",
       "Time of one exchange between rank pairs over a size sweep: both ranks send the size to "
       "each other at once (MPI_Sendrecv), as every step of a ring or recursive doubling does; "
       "needs 2 ranks or more.",
       "Example: mpirun -np 2 scalewall-mpi exchange --max-bytes 64MiB --out ex.jsonl\n"
       "         then scalewall calibrate pp.jsonl ex.jsonl prices such steps by the exchanges."});
}

}  // namespace scalewall::mpi
