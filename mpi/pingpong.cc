// scalewall-mpi pingpong: one-way time between rank pairs over a size sweep; see docs/mpi.md.
//
// For each pair (a, b) and size, rank a sends the message to b and b sends it straight back,
// `warmup` times untimed and `iterations` times timed one by one; the one-way time is half
// of each round trip. The other ranks wait in a sleeping barrier so that, oversubscribed,
// they leave the cores to the pair.
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

struct PingPongFlags {
  CommonFlags common;
  SizeFlags sizes;
  std::string pairs;
  RepeatFlags repeats;
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

int run_pingpong(const World& w, const PingPongFlags& flags) {
  if (w.size < 2) {
    throw InputError(fmt::format("pingpong needs at least 2 ranks; this run has {} (launch it "
                                 "as mpirun -np 2 scalewall-mpi pingpong)",
                                 w.size));
  }
  const std::vector<double> sizes = resolve_sizes(flags.sizes);
  const auto [iterations, warmup] = resolve_repeats(flags.repeats);
  const std::vector<Pair> pairs = resolve_pairs(flags.pairs, w.size);
  double largest = 0;
  for (const double s : sizes) largest = std::max(largest, s);
  const char* size_flag = flags.sizes.sizes.empty() ? "--max-bytes" : "--sizes";
  if (largest > INT_MAX) {
    throw InputError(fmt::format("{}: {} is above the largest single MPI message of this "
                                 "harness ({} bytes)",
                                 size_flag, format_bytes(largest), INT_MAX));
  }
  check_memory(w, 2 * largest, fmt::format("{} {}", size_flag, format_bytes(largest)));

  RecordWriter writer(w, flags.common.out);
  nlohmann::ordered_json inputs;
  inputs["pairs"] = nlohmann::ordered_json::array();
  for (const auto& [a, b] : pairs) inputs["pairs"].push_back({a, b});
  inputs["sizes"] = nlohmann::ordered_json::array();
  for (const double s : sizes) inputs["sizes"].push_back(static_cast<std::int64_t>(s));
  inputs["iterations"] = iterations;
  inputs["warmup"] = warmup;
  writer.envelope("pingpong", inputs, context_json(w));

  const auto buffer_bytes = static_cast<std::size_t>(std::max(1.0, largest));
  std::vector<char> out(buffer_bytes, 'p');
  std::vector<char> in(buffer_bytes, '\0');
  const Faults faults = flags.common.faults();
  std::int64_t unit = 0;
  LiveTable table(live_output(w, flags.common), {{"size", "B", 12},
                                                 {"min", "us", 10},
                                                 {"median", "us", 10},
                                                 {"max", "us", 10},
                                                 {"bandwidth", "GB/s", 10}});
  for (const auto& [a, b] : pairs) {
    table.title(fmt::format(
        "pingpong {}->{} ({} -> {}): one-way time (half the round trip), {} timed round "
        "trips after {} warm-up per size; bandwidth: size / median",
        a, b, w.rank_hosts[static_cast<std::size_t>(a)],
        w.rank_hosts[static_cast<std::size_t>(b)], iterations, warmup));
    table.header();
    for (const double size : sizes) {
      maybe_fail(w, faults, unit++);
      const auto bytes = static_cast<int>(size);
      Summary s;
      if (w.rank == a) {
        s = measure_pair(b, bytes, warmup, iterations, out, in, w.comm);
        if (a != 0) {
          const double figures[3] = {s.min, s.median, s.max};
          MPI_Send(figures, 3, MPI_DOUBLE, 0, kSummaryTag, w.comm);
        }
      } else if (w.rank == b) {
        serve_pair(a, bytes, warmup + iterations, in, w.comm);
      }
      if (w.is_root()) {
        if (a != 0) {
          double figures[3] = {};
          MPI_Request request = MPI_REQUEST_NULL;
          MPI_Irecv(figures, 3, MPI_DOUBLE, a, kSummaryTag, w.comm, &request);
          quiet_wait(&request);
          s = {figures[0], figures[1], figures[2]};
        }
        nlohmann::ordered_json record;
        record["from"] = a;
        record["to"] = b;
        record["from_host"] = w.rank_hosts[static_cast<std::size_t>(a)];
        record["to_host"] = w.rank_hosts[static_cast<std::size_t>(b)];
        record["bytes"] = bytes;
        record["iterations"] = iterations;
        record["one_way_min_s"] = s.min;
        record["one_way_median_s"] = s.median;
        record["one_way_max_s"] = s.max;
        writer.record("pingpong", record);
        table.row(pingpong_row(bytes, s));
      }
    }
    quiet_barrier(w);
  }
  writer.end(true);
  return 0;
}

}  // namespace

Mode register_pingpong(CLI::App& app) {
  auto flags = std::make_shared<PingPongFlags>();
  const FlagGroup pairs = {
      {"--pairs", &flags->pairs,
       "Rank pairs: A-B, a list 0-1,2-3, or all (every pair i<j, so that a slow link or host "
       "stands out)",
       "LIST", "0-1"},
  };
  const FlagGroup repeats = repeat_flags(&flags->repeats, "Timed round trips per size", "50",
                                         "Untimed round trips before them", "5");
  CLI::App* cmd = add_command(app, {
      "pingpong",
      "One-way time (half the round trip) between rank pairs over a size sweep; needs 2 "
      "ranks or more.",
      {pairs, size_flags(&flags->sizes, "0", "4MiB"), repeats, common_flags(&flags->common)},
      "Example: mpirun -np 2 scalewall-mpi pingpong --max-bytes 64MiB --out pp.jsonl\n"
      "         then scalewall calibrate pp.jsonl fits alpha and beta."});
  return {cmd, [flags](const World& w) { return run_pingpong(w, *flags); }};
}

}  // namespace scalewall::mpi
