// End-to-end tests of scalewall-mpi under mpirun with 1 to 5 ranks (oversubscribed on a
// small machine, so they assert correctness and well-formed output, never speed).
//
// What they establish:
//   * every hand-written algorithm of every op equals the MPI library's result exactly for
//     sizes 0, one element, odd counts and over 1 MiB, on 1, 2, 3, 4 and 5 ranks;
//   * the harness's own check catches a wrong result (--inject-error) for every algorithm;
//   * pingpong, arrival and step write well-formed JSON Lines (measurement.h);
//   * bad input is "error: ..." with exit 2, and an aborting or killed rank ends the job
//     with a non-zero status, never a hang (every run has a timeout).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/mpi/mpi_runner.h"

namespace scalewall::testing {
namespace {

// The hand-written algorithms the harness promises for each op (docs/mpi.md).
const std::map<std::string, std::vector<std::string>>& promised_algorithms() {
  static const std::map<std::string, std::vector<std::string>> algorithms = {
      {"allreduce", {"ring", "recursive-doubling", "rabenseifner", "binomial-tree"}},
      {"reduce-scatter", {"ring", "recursive-halving"}},
      {"all-gather", {"ring", "recursive-doubling", "bruck"}},
      {"broadcast", {"binomial-tree", "scatter-allgather"}},
      {"all-to-all", {"pairwise"}},
  };
  return algorithms;
}

// 0 bytes; one element; 13 bytes (rounded up to 2 elements); 7 elements; 125 elements;
// 1 MiB + 8 bytes (131073 elements, odd, over 1 MiB).
const std::vector<std::string> kAwkwardSizes = {"--sizes", "0,8,13,56,1000,1048584"};

class CollectiveRanks : public ::testing::TestWithParam<int> {};

TEST_P(CollectiveRanks, EveryHandWrittenAlgorithmMatchesTheLibraryExactly) {
  const int ranks = GetParam();
  std::vector<std::string> args = {"collective", "--op",         "all", "--algorithm", "all",
                                   "--iterations", "1", "--warmup", "1"};
  args.insert(args.end(), kAwkwardSizes.begin(), kAwkwardSizes.end());
  const MpiResult result = run_mpi(ranks, args, 90);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "collective", "collective", ranks);

  // Every (op, algorithm) ran at 6 sizes (fewer only where rounding merged two), all verified.
  std::map<std::pair<std::string, std::string>, std::set<double>> seen;
  for (const auto& r : file.records) {
    EXPECT_TRUE(r["verified"].get<bool>()) << r.dump();
    seen[{r["op"].get<std::string>(), r["algorithm"].get<std::string>()}].insert(
        r["bytes"].get<double>());
  }
  for (const auto& [op, algorithms] : promised_algorithms()) {
    std::vector<std::string> all = algorithms;
    all.push_back("library");
    for (const std::string& algorithm : all) {
      const auto& sizes = seen[{op, algorithm}];
      EXPECT_GE(sizes.size(), 5u) << op << " " << algorithm;
      EXPECT_TRUE(sizes.count(0.0)) << op << " " << algorithm << ": no 0-byte run";
      EXPECT_GT(*std::max_element(sizes.begin(), sizes.end()), 1048576.0)
          << op << " " << algorithm << ": nothing over 1 MiB";
    }
  }
  // Sizes are whole elements, and whole blocks per rank where the op splits the buffer.
  for (const auto& r : file.records) {
    const auto bytes = static_cast<std::int64_t>(r["bytes"].get<double>());
    EXPECT_EQ(bytes % 8, 0) << r.dump();
    const std::string op = r["op"];
    if (op == "reduce-scatter" || op == "all-gather" || op == "all-to-all") {
      EXPECT_EQ(bytes % (8 * ranks), 0) << r.dump();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OneToFiveRanks, CollectiveRanks, ::testing::Values(1, 2, 3, 4, 5),
                         [](const ::testing::TestParamInfo<int>& ranks) {
                           return std::to_string(ranks.param) + "ranks";
                         });

TEST(MpiCollective, InjectedErrorIsCaughtForEveryAlgorithm) {
  const MpiResult result = run_mpi(
      3, {"collective", "--op", "all", "--sizes", "0,8,1000", "--iterations", "1",
          "--warmup", "0", "--inject-error"});
  EXPECT_EQ(result.exit_code, 1) << describe(result);
  EXPECT_NE(result.err.find("error: verification failed: allreduce ring at 8 bytes (1 element) "
                            "on 3 ranks: rank 2 element 0 is"),
            std::string::npos)
      << result.err;
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "collective", "collective", 3, /*complete=*/false);
  ASSERT_FALSE(file.end.is_null()) << describe(result);
  EXPECT_EQ(file.end["status"], "failed");
  EXPECT_NE(file.end["error"].get<std::string>().find("allreduce ring"), std::string::npos);
  int wrong = 0;
  for (const auto& r : file.records) {
    const bool hand_written = r["algorithm"] != "library";
    const bool has_data = r["bytes"].get<double>() > 0;
    // A corrupted element exists only where there is data; the library is the reference.
    EXPECT_EQ(r["verified"].get<bool>(), !(hand_written && has_data)) << r.dump();
    // --check counts the corrupted element too: one, on the last rank.
    EXPECT_EQ(r["wrong"], hand_written && has_data ? 1 : 0) << r.dump();
    wrong += r["verified"].get<bool>() ? 0 : 1;
  }
  EXPECT_EQ(wrong, 2 * 12);  // 12 hand-written algorithms at two non-empty sizes
}

// --check compares every call's result, the library's too, with the sum the inputs' formula
// gives: 0 wrong elements on a correct run.
TEST(MpiCollective, CheckFindsNoWrongElementOnACorrectRun) {
  const MpiResult result = run_mpi(3, {"collective", "--op", "all", "--sizes", "0,8,1000",
                                       "-n", "1", "-w", "1"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "collective", "collective", 3);
  EXPECT_EQ(file.envelope["inputs"]["check"], true);
  EXPECT_EQ(file.envelope["inputs"]["iterations"], 1);
  ASSERT_FALSE(file.records.empty());
  for (const auto& r : file.records) {
    ASSERT_TRUE(r.contains("wrong")) << r.dump();
    EXPECT_EQ(r["wrong"], 0) << r.dump();
  }
}

// Every size up to 64 KiB is warmed up with 50 calls (more when --warmup asks for more), a
// larger one with --warmup's alone; the envelope and the table's title say so.
TEST(MpiCollective, SmallSizesAreWarmedUpLonger) {
  struct Case {
    const char* warmup;
    int small;
  };
  for (const Case c : {Case{"1", 50}, Case{"2", 50}, Case{"80", 80}}) {
    const MpiResult result =
        run_mpi(2, {"collective", "--sizes", "8,64KiB,128KiB", "--algorithm", "library", "-n",
                    "1", "-w", c.warmup});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    const Jsonl file = parse_jsonl(result.out);
    EXPECT_EQ(file.envelope["inputs"]["small_size_warmup"], c.small) << c.warmup;
    EXPECT_EQ(file.envelope["inputs"]["small_size_max_bytes"], 65536) << c.warmup;
    EXPECT_EQ(file.envelope["inputs"]["warmup"], std::stoi(c.warmup)) << c.warmup;
    const std::string small = std::to_string(c.small);
    const std::string title =
        std::string("after ") + c.warmup + " warm-up per size" +
        (small == c.warmup ? "" : " (" + small + " up to 64 KiB)") + ";";
    EXPECT_NE(result.err.find(title), std::string::npos) << c.warmup << "\n" << result.err;
  }
}

// A wrong input on rank 0 makes every result that depends on its first element differ from
// the expected sum, the library's as well, so the comparison with the library passes and
// only --check sees it: allreduce, all-gather and broadcast carry it to every rank (3
// wrong), reduce-scatter and all-to-all to rank 0 alone (1).
TEST(MpiCollective, CheckCatchesAWrongSumThatTheLibraryShares) {
  const MpiResult result = run_mpi(3, {"collective", "--op", "all", "--sizes", "64", "-n",
                                       "2", "-w", "0", "--inject-wrong-input"});
  EXPECT_EQ(result.exit_code, 1) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "collective", "collective", 3, /*complete=*/false);
  const std::map<std::string, int> wrong = {{"allreduce", 3}, {"reduce-scatter", 1},
                                            {"all-gather", 3}, {"broadcast", 3},
                                            {"all-to-all", 1}};
  ASSERT_EQ(file.records.size(), 17u);  // 5 library calls and 12 hand-written algorithms
  for (const auto& r : file.records) {
    EXPECT_TRUE(r["verified"].get<bool>()) << r.dump();
    EXPECT_EQ(r["wrong"], wrong.at(r["op"].get<std::string>())) << r.dump();
  }
  ASSERT_FALSE(file.end.is_null()) << describe(result);
  EXPECT_EQ(file.end["status"], "failed");
  EXPECT_NE(file.end["error"].get<std::string>().find(
                "check failed: allreduce library at 64 bytes (8 elements) on 3 ranks: 3 "
                "elements differ from the expected result"),
            std::string::npos)
      << file.end.dump();
  EXPECT_NE(result.err.find("error: check failed: all-to-all pairwise at 72 bytes (9 "
                            "elements) on 3 ranks: 1 element differs from the expected result"),
            std::string::npos)
      << result.err;

  // -c 0: no check, so the same run passes (the library agrees with every algorithm).
  const MpiResult unchecked = run_mpi(3, {"collective", "--op", "allreduce", "--sizes", "64",
                                          "-n", "1", "-c", "0", "--inject-wrong-input"});
  ASSERT_EQ(unchecked.exit_code, 0) << describe(unchecked);
  const Jsonl plain = parse_jsonl(unchecked.out);
  expect_well_formed(plain, "collective", "collective", 3);
  EXPECT_EQ(plain.envelope["inputs"]["check"], false);
  for (const auto& r : plain.records) EXPECT_FALSE(r.contains("wrong")) << r.dump();
}

TEST(MpiCollective, NamedAlgorithmsRunOnlyWhereTheyApply) {
  const MpiResult result =
      run_mpi(2, {"collective", "--op", "allreduce,all-gather", "--algorithm", "ring,library",
                  "--sizes", "64", "--iterations", "2"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "collective", "collective", 2);
  ASSERT_EQ(file.records.size(), 4u);
  EXPECT_EQ(file.records[0]["algorithm"], "library");  // the library runs first
  EXPECT_EQ(file.records[1]["algorithm"], "ring");
  EXPECT_EQ(file.records[1]["iterations"], 2);
}

// The harness's algorithms are the model catalogue's, filtered by what it implements: every
// name it accepts for an op is one that the model costs for that op, and --algorithm's help
// lists exactly the names it runs.
TEST(MpiCollective, EveryAlgorithmItAcceptsIsACatalogueName) {
  const MpiResult result = run_mpi(2, {"collective", "--op", "all", "--algorithm", "all",
                                       "--sizes", "16", "--iterations", "1", "--warmup", "0"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  std::vector<std::string> every;
  for (const auto& op_json : file.envelope["inputs"]["ops"]) {  // in the harness's order
    const std::string op = op_json;
    const auto& names = file.envelope["inputs"]["algorithms"][op];
    ASSERT_FALSE(names.empty()) << op;
    EXPECT_EQ(names[0], "library") << op;
    for (std::size_t i = 1; i < names.size(); ++i) {
      const std::string name = names[i];
      const MpiResult model = run_scalewall_cli(
          {"collective", "--op", op, "--ranks", "4", "--bytes", "64", "--algorithms", name});
      EXPECT_EQ(model.exit_code, 0) << op << " " << name << ": " << describe(model);
      if (std::find(every.begin(), every.end(), name) == every.end()) every.push_back(name);
    }
  }
  const MpiResult help = run_singleton({"collective", "--help"});
  ASSERT_EQ(help.exit_code, 0) << describe(help);
  std::string listed;
  for (const std::string& name : every) listed += (listed.empty() ? "" : ", ") + name;
  EXPECT_NE(help.out.find("library (MPI's own call), " + listed + "; or all"), std::string::npos)
      << help.out;
}

// Each size's round trips, then the same size exchanged: a pingpong and an exchange record
// per size; --exchange 0 writes the pingpong records alone.
TEST(MpiPingPong, DefaultPairOverASweep) {
  const MpiResult result =
      run_mpi(2, {"pingpong", "--max-bytes", "64KiB", "--iterations", "5", "--warmup", "1"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "pingpong", "pingpong", 2);
  ASSERT_EQ(file.records.size(), 36u);  // 0 and 1, 2, 4, ..., 64 KiB, twice
  EXPECT_EQ(file.envelope["inputs"]["exchange"], true);
  for (std::size_t i = 0; i < file.records.size(); ++i) {
    const auto& r = file.records[i];
    EXPECT_EQ(r["record"], i % 2 == 0 ? "pingpong" : "exchange") << r;
    EXPECT_EQ(r["bytes"], file.records[i - i % 2]["bytes"]) << r;
    EXPECT_EQ(r["from"], 0);
    EXPECT_EQ(r["to"], 1);
    EXPECT_EQ(r["iterations"], 5);
  }
  EXPECT_EQ(file.records.front()["bytes"], 0);
  EXPECT_EQ(file.records.back()["bytes"], 65536);
  EXPECT_NE(result.err.find("pingpong 0->1"), std::string::npos) << result.err;

  const MpiResult alone = run_mpi(2, {"pingpong", "--max-bytes", "64KiB", "--iterations", "2",
                                      "--warmup", "0", "--exchange", "0"});
  ASSERT_EQ(alone.exit_code, 0) << describe(alone);
  const Jsonl only = parse_jsonl(alone.out);
  expect_well_formed(only, "pingpong", "pingpong", 2);
  ASSERT_EQ(only.records.size(), 18u);
  for (const auto& r : only.records) EXPECT_EQ(r["record"], "pingpong") << r;
  EXPECT_EQ(only.envelope["inputs"]["exchange"], false);
  const MpiResult bad = run_mpi(2, {"pingpong", "--exchange", "2"});
  EXPECT_EQ(bad.exit_code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("--exchange"), std::string::npos) << bad.err;
}

// nccl-tests' short flags: -b, -e, -f (a geometric sweep, max included), K/M/G binary; -n, -w.
TEST(MpiSizes, NcclTestsShortFlagsSetTheSweepAndTheRepeats) {
  const std::vector<std::pair<std::vector<std::string>, std::vector<double>>> cases = {
      {{"-b", "8", "-e", "64", "-f", "2"}, {8, 16, 32, 64}},
      {{"-b", "1", "-e", "100", "-f", "3"}, {1, 3, 9, 27, 81, 100}},
      {{"-b", "0", "-e", "4", "-f", "2"}, {0, 1, 2, 4}},
      {{"-b", "1K", "-e", "2K"}, {1024, 2048}},
      {{"-b", "1000", "-e", "1600", "-f", "1.5"}, {1000, 1500, 1600}},
      {{"--sizes", "1k,1M"}, {1024, 1048576}},
  };
  for (const auto& [flags, sizes] : cases) {
    std::vector<std::string> args = {"pingpong", "-n", "3", "-w", "0"};
    args.insert(args.end(), flags.begin(), flags.end());
    const MpiResult result = run_mpi(2, args);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    const Jsonl file = parse_jsonl(result.out);
    expect_well_formed(file, "pingpong", "pingpong", 2);
    EXPECT_EQ(file.envelope["inputs"]["sizes"].get<std::vector<double>>(), sizes)
        << file.envelope.dump();
    EXPECT_EQ(file.envelope["inputs"]["iterations"], 3);
    EXPECT_EQ(file.envelope["inputs"]["warmup"], 0);
    for (const auto& r : file.records) EXPECT_EQ(r["iterations"], 3) << r.dump();
  }
}

TEST(MpiSizes, BadFactorsAreRefused) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"pingpong", "-f", "1"}, "error: --step-factor: 1 is not above 1"},
      {{"collective", "-f", "0.5"}, "error: --step-factor: 0.5 is not above 1"},
      {{"reduce", "-b", "1", "-e", "1G", "-f", "1.001"},
       "error: --step-factor 1.001 from 1 to 1G is more than the 1024 sizes one run measures"},
      {{"pingpong", "--sizes", "8", "-f", "2"},
       "error: --sizes lists the sizes to measure and cannot be combined with --min-bytes, "
       "--max-bytes or --step-factor"},
      {{"collective", "-c", "2"}, "error: --check: "},
      {{"pingpong", "-e", "64Q"}, "error: --max-bytes: "},
  };
  for (const auto& [args, message] : cases) {
    const MpiResult result = run_mpi(2, args, 30);
    EXPECT_EQ(result.exit_code, 2) << args.front() << " " << message << "\n" << describe(result);
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
}

TEST(MpiPingPong, AllPairsWithThreeRanks) {
  const MpiResult result = run_mpi(3, {"pingpong", "--pairs", "all", "--sizes", "0,1000,1MiB",
                                       "--iterations", "3", "--warmup", "1"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "pingpong", "pingpong", 3);
  std::set<std::pair<int, int>> pairs;
  for (const auto& r : file.records) {
    pairs.insert({r["from"].get<int>(), r["to"].get<int>()});
    // Each record names both ranks' hosts: one host here, the envelope's only one.
    EXPECT_EQ(r["from_host"], file.envelope["context"]["hosts"][0]) << r;
    EXPECT_EQ(r["to_host"], file.envelope["context"]["hosts"][0]) << r;
  }
  EXPECT_EQ(pairs, (std::set<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 2}}));
  EXPECT_EQ(file.records.size(), 18u);  // a pingpong and an exchange record per pair and size
}

TEST(MpiPingPong, NeedsTwoRanks) {
  for (const std::string mode : {"pingpong", "exchange"}) {
    const MpiResult result = run_mpi(1, {mode});
    EXPECT_EQ(result.exit_code, 2) << describe(result);
    EXPECT_NE(result.err.find("error: " + mode + " needs at least 2 ranks; this run has 1 "
                              "(launch it as mpirun -np 2 scalewall-mpi " + mode + ")"),
              std::string::npos)
        << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
  const MpiResult self = run_mpi(2, {"exchange", "--pairs", "1-1"});
  EXPECT_EQ(self.exit_code, 2) << describe(self);
  EXPECT_NE(self.err.find("--pairs: '1-1' pairs a rank with itself"), std::string::npos)
      << self.err;
}

TEST(MpiArrival, SlowRankAndJitterShowInTheRecords) {
  const MpiResult result =
      run_mpi(4, {"arrival", "--iterations", "5", "--warmup", "1", "--compute", "1ms",
                  "--jitter-sigma", "10%", "--seed", "7", "--slow-rank", "2", "--slow-factor",
                  "3"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "arrival", "arrival", 4);
  ASSERT_EQ(file.records.size(), 20u);
  EXPECT_TRUE(file.envelope["context"].contains("clock")) << file.envelope.dump();
  EXPECT_EQ(file.envelope["inputs"]["slow_rank"], 2);
  std::map<int, int> earliest_per_iteration;
  for (const auto& r : file.records) {
    const double injected = r["injected_s"];
    if (r["rank"] == 2) {
      EXPECT_GT(injected, 2e-3) << r.dump();  // 3 x 1 ms x (1 + 0.1 z), z > -3.3
    } else {
      EXPECT_LT(injected, 1.5e-3) << r.dump();
    }
    if (r["arrival_s"].get<double>() == 0) ++earliest_per_iteration[r["iteration"].get<int>()];
  }
  // Arrival times are relative to the earliest rank of each iteration.
  EXPECT_EQ(earliest_per_iteration.size(), 5u);
}

TEST(MpiArrival, SeededJitterRepeats) {
  const std::vector<std::string> args = {"arrival", "--iterations", "3", "--warmup", "0",
                                         "--compute", "200us", "--jitter-sigma", "0.2",
                                         "--seed", "11", "--collective", "allreduce"};
  const MpiResult a = run_mpi(3, args);
  const MpiResult b = run_mpi(3, args);
  ASSERT_EQ(a.exit_code, 0) << describe(a);
  ASSERT_EQ(b.exit_code, 0) << describe(b);
  const Jsonl fa = parse_jsonl(a.out);
  const Jsonl fb = parse_jsonl(b.out);
  expect_well_formed(fa, "arrival", "arrival", 3);
  ASSERT_EQ(fa.records.size(), fb.records.size());
  for (std::size_t i = 0; i < fa.records.size(); ++i) {
    EXPECT_EQ(fa.records[i]["injected_s"], fb.records[i]["injected_s"]);
  }
}

TEST(MpiArrival, OneRank) {
  const MpiResult result = run_mpi(1, {"arrival", "--iterations", "3"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "arrival", "arrival", 1);
  EXPECT_EQ(file.records.size(), 3u);
}

TEST(MpiStep, BlockingWithASlowRankMakesTheOthersWait) {
  const MpiResult result =
      run_mpi(3, {"step", "--steps", "6", "--warmup", "1", "--compute", "2ms", "--bytes",
                  "64KiB", "--slow-rank", "1", "--slow-factor", "10"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "step", "step", 3);
  ASSERT_EQ(file.records.size(), 18u);
  std::vector<double> waits_others;
  std::vector<double> waits_slow;
  for (const auto& r : file.records) {
    const double compute = r["compute_s"];
    const double total = r["step_s"];
    EXPECT_GE(compute, 2e-3) << r.dump();
    // The parts never exceed the step (up to rounding).
    EXPECT_LE(compute + r["communication_s"].get<double>() + r["wait_s"].get<double>(),
              total + 1e-9)
        << r.dump();
    (r["rank"] == 1 ? waits_slow : waits_others).push_back(r["wait_s"].get<double>());
  }
  // The slow rank computes 20 ms, the others 2 ms: they wait for it, it waits for no one.
  // Three ranks share two cores here, so the barrier that starts a step releases them up to a
  // scheduler slice apart (4 ms seen); the 18 ms gap leaves the others' wait well above 4 ms.
  std::sort(waits_others.begin(), waits_others.end());
  std::sort(waits_slow.begin(), waits_slow.end());
  EXPECT_GT(waits_others[waits_others.size() / 2], 4e-3) << result.out;
  EXPECT_LT(waits_slow[waits_slow.size() / 2], waits_others[waits_others.size() / 2])
      << result.out;
}

TEST(MpiStep, OverlappedInBuckets) {
  const MpiResult result =
      run_mpi(5, {"step", "--steps", "3", "--warmup", "1", "--compute", "2ms", "--bytes",
                  "100001", "--overlap", "--buckets", "3", "--jitter-sigma", "5%"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "step", "step", 5);
  EXPECT_EQ(file.records.size(), 15u);
  EXPECT_EQ(file.envelope["inputs"]["overlap"], true);
  EXPECT_EQ(file.envelope["inputs"]["buckets"], 3);
  EXPECT_EQ(file.envelope["inputs"]["bytes"], 100008);  // rounded up to whole elements
}

TEST(MpiOutput, OutFileHoldsTheLinesAndStdoutStaysEmpty) {
  const std::filesystem::path path =
      std::filesystem::path(::testing::TempDir()) / "scalewall_mpi_arrival.jsonl";
  std::filesystem::remove(path);
  const MpiResult result =
      run_mpi(2, {"arrival", "--iterations", "2", "--out", path.string()});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_TRUE(result.out.empty()) << result.out;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const Jsonl file = parse_jsonl(text.str());
  expect_well_formed(file, "arrival", "arrival", 2);
  EXPECT_EQ(file.records.size(), 4u);
}

// The 10-second budget of a default run is a speed target, checked by
// bench/mpi_default_runs.sh on a quiet machine; here, on a shared one, only correctness.
TEST(MpiDefaults, EveryModesDefaultRunOnFourRanksIsWellFormed) {
  const std::vector<std::pair<std::string, std::string>> modes = {
      {"pingpong", "pingpong"}, {"collective", "collective"}, {"arrival", "arrival"},
      {"step", "step"}};
  for (const auto& [mode, kind] : modes) {
    const MpiResult result = run_mpi(4, {mode});
    ASSERT_EQ(result.exit_code, 0) << mode << "\n" << describe(result);
    expect_well_formed(parse_jsonl(result.out), mode, kind, 4);
  }
}

TEST(MpiFailure, AbortingRankEndsTheJobCleanly) {
  const MpiResult result =
      run_mpi(3, {"collective", "--sizes", "8,64,512", "--abort-rank", "1"}, 30);
  EXPECT_FALSE(result.timed_out) << describe(result);
  EXPECT_NE(result.exit_code, 0) << describe(result);
  // What was measured before the abort is on stdout, without an end record.
  const Jsonl file = parse_jsonl(result.out);
  expect_well_formed(file, "collective", "collective", 3, /*complete=*/false);
  EXPECT_TRUE(file.end.is_null());
}

TEST(MpiFailure, KilledRankEndsTheJob) {
  const MpiResult result =
      run_mpi(3, {"step", "--steps", "50", "--compute", "1ms", "--kill-rank", "2"}, 30);
  EXPECT_FALSE(result.timed_out) << describe(result);
  EXPECT_NE(result.exit_code, 0) << describe(result);
}

TEST(MpiFailure, BadInputIsAnErrorWithStatusTwo) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"collective", "--op", "reduce"}, "error: --op: the harness does not measure reduce"},
      {{"collective", "--algorithm", "pairwise"}, "error: --algorithm: the harness has no"},
      {{"collective", "--sizes", "15GiB"}, "does not fit in memory"},
      {{"reduce", "--sizes", "17GiB"}, "above MPI's count limit of 2147483647"},
      {{"pingpong", "--max-bytes", "4XB"}, "error: --max-bytes: "},
      {{"arrival", "--slow-rank", "2"}, "error: --slow-rank: rank 2 does not exist"},
      {{"step", "--buckets", "4"}, "error: --buckets 4 needs --overlap"},
      {{"step", "--no-such-flag"}, "error: "},
      {{"warp"}, "error: unknown mode 'warp'"},
  };
  for (const auto& [args, message] : cases) {
    const MpiResult result = run_mpi(2, args, 30);
    EXPECT_EQ(result.exit_code, 2) << args.front() << " " << message << "\n" << describe(result);
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
}

// Flags that used to be quietly reinterpreted: an empty --sizes (read as "the sweep"), --sizes
// beside the sweep's bounds, a repeated op or algorithm; and busy-waits past their stated
// limit of 1 h (a longer one would look like a hang).
TEST(MpiFailure, AmbiguousSizeAndRepeatedChoicesAreRefused) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"pingpong", "--sizes", ""}, "error: --sizes: the list is empty"},
      {{"collective", "--sizes", ""}, "error: --sizes: the list is empty"},
      {{"pingpong", "--sizes", "8,64", "--min-bytes", "4"},
       "error: --sizes lists the sizes to measure and cannot be combined with --min-bytes"},
      {{"collective", "--sizes", "8", "--max-bytes", "1MiB"},
       "error: --sizes lists the sizes to measure and cannot be combined"},
      {{"collective", "--op", "allreduce,allreduce"},
       "error: --op: allreduce is given twice in 'allreduce,allreduce'"},
      {{"collective", "--op", "allreduce", "--algorithm", "ring,ring"},
       "error: --algorithm: ring is given twice in 'ring,ring'"},
      {{"collective", "--op", "allreduce", "--algorithm", "library,ring,library"},
       "error: --algorithm: library is given twice"},
      {{"step", "--compute", "1e308h"}, "error: --compute: time '1e308h' is out of range"},
      {{"step", "--compute", "2h"}, "error: --compute: '2h' is above the limit of 1 h"},
      {{"arrival", "--compute", "1e300"}, "error: --compute: '1e300' is above the limit of 1 h"},
      {{"arrival", "--compute", "10min", "--slow-rank", "1", "--slow-factor", "7"},
       "error: --slow-factor: 7 x --compute 10min is above the limit of 1 h"},
      {{"step", "--jitter-sigma", "1e300"}, "error: --jitter-sigma: '1e300' is above 1"},
      // An empty output name is no "stdout" or "the current directory".
      {{"pingpong", "-o", ""}, "error: --out: the file name is empty"},
      {{"suite", "-o", ""}, "error: --out-dir: the directory name is empty"},
      // "all" stands alone; the suite names --min-bytes' default when the user gave none.
      {{"collective", "--op", "all,allreduce"},
       "error: --op: 'all' (every collective the harness measures) stands alone: give all, or "
       "a list without it, not 'all,allreduce'"},
      {{"collective", "--algorithm", "ring,all"}, "error: --algorithm: 'all' (the library"},
      {{"pingpong", "--pairs", "all,0-1"}, "error: --pairs: 'all' (every pair of ranks)"},
      {{"suite", "-o", "unused-suite-dir", "-e", "8"},
       "error: --max-bytes 8 is below 1KiB, where the reduce part's sweep starts when "
       "--min-bytes (8, the default) is below it"},
  };
  for (const auto& [args, message] : cases) {
    const MpiResult result = run_mpi(2, args, 30);
    EXPECT_EQ(result.exit_code, 2) << args.front() << " " << message << "\n" << describe(result);
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
}

TEST(MpiFailure, UnwritableOutputIsStatusOne) {
  const MpiResult result =
      run_mpi(2, {"arrival", "--out", "/nonexistent-directory/arrival.jsonl"}, 30);
  EXPECT_EQ(result.exit_code, 1) << describe(result);
  EXPECT_NE(result.err.find("error: --out: cannot write '/nonexistent-directory/arrival.jsonl'"),
            std::string::npos)
      << result.err;
}

// The measurement loop of the issue: measure this machine with pingpong and collective,
// fit alpha and beta with calibrate, and hold the model's prediction against the measured
// collectives with validate.
// The local reduction sweep: whole 8-byte elements, every rank at once, rank 0's times and
// the slowest rank's median; calibrate fits gamma from it and writes it into the fabric.
TEST(MpiReduce, SweepThenCalibrateFitsGamma) {
  const std::filesystem::path dir = ::testing::TempDir();
  const std::string reduce = (dir / "scalewall_reduce.jsonl").string();
  const std::string pingpong = (dir / "scalewall_reduce_pingpong.jsonl").string();
  const std::string fabric = (dir / "scalewall_reduce_fabric.toml").string();
  const MpiResult result = run_mpi(2, {"reduce", "--sizes", "4,8,1KiB,64KiB,1MiB",
                                       "--iterations", "5", "--out", reduce});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  std::ifstream in(reduce);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const Jsonl file = parse_jsonl(text);
  expect_well_formed(file, "reduce", "reduction", 2);
  // 4 B is below one element and left out; a reduction, a copy, an alloc and (two ranks) a
  // sent_reduction and a sent_exchange record per size.
  ASSERT_EQ(file.records.size(), 20u);
  EXPECT_EQ(file.records.front()["bytes"], 8);
  EXPECT_EQ(file.records.back()["bytes"], 1048576);
  const char* kinds[] = {"reduction", "copy", "alloc", "sent_reduction", "sent_exchange"};
  for (std::size_t i = 0; i < file.records.size(); ++i) {
    EXPECT_EQ(file.records[i]["record"], kinds[i % 5]) << file.records[i];
    EXPECT_EQ(file.records[i]["bytes"], file.records[i - i % 5]["bytes"]) << file.records[i];
  }
  for (const auto& r : file.records) {
    EXPECT_EQ(r["ranks"], 2);
    EXPECT_LE(r["time_min_s"].get<double>(), r["time_median_s"].get<double>());
    EXPECT_LE(r["time_median_s"].get<double>(), r["time_max_s"].get<double>());
    EXPECT_GE(r["slowest_rank_median_s"].get<double>(), r["time_median_s"].get<double>());
  }
  const MpiResult pp = run_mpi(2, {"pingpong", "--max-bytes", "64KiB", "--iterations", "5",
                                   "--out", pingpong});
  ASSERT_EQ(pp.exit_code, 0) << describe(pp);
  const MpiResult cal = run_scalewall_cli(
      {"calibrate", pingpong, reduce, "--out", fabric, "--format", "json"});
  ASSERT_EQ(cal.exit_code, 0) << describe(cal);
  const nlohmann::json fit = nlohmann::json::parse(cal.out);
  const double gamma = fit["gamma_s_per_byte"].get<double>();
  EXPECT_GT(gamma, 0.0) << cal.out;
  EXPECT_NEAR(fit["reduction_rate_Bps"].get<double>() * gamma, 1.0, 1e-12);
  EXPECT_EQ(fit["reduction"].size(), 4u);
  EXPECT_EQ(fit["copy"].size(), 4u);
  const double copy = fit["copy_s_per_byte"].get<double>();
  EXPECT_GT(copy, 0.0) << cal.out;
  EXPECT_EQ(fit["alloc"].size(), 4u);
  EXPECT_GT(fit["alloc_s_per_byte"].get<double>(), 0.0) << cal.out;
  EXPECT_EQ(fit["sent_reduction"].size(), 4u);
  EXPECT_GT(fit["sent_reduction_s_per_byte"].get<double>(), 0.0) << cal.out;
  EXPECT_EQ(fit["sent_exchange"].size(), 4u);
  EXPECT_GT(fit["sent_exchange_s_per_byte"].get<double>(), 0.0) << cal.out;
  // The passes ran 2 ranks on one host at once: the working set's ranks.
  EXPECT_EQ(fit["working_set_ranks"], 2) << cal.out;
  EXPECT_EQ(fit["local_min_bytes"], 8) << cal.out;  // 4 B is below one element
  // The fabric carries it, and the collective cost charges it.
  const MpiResult coll = run_scalewall_cli({"collective", "--fabric", fabric, "--bytes", "1MB",
                                            "--algorithms", "ring", "--format", "json"});
  ASSERT_EQ(coll.exit_code, 0) << describe(coll);
  const nlohmann::json cost = nlohmann::json::parse(coll.out);
  EXPECT_DOUBLE_EQ(cost["inputs"]["gamma_s_per_byte"].get<double>(), gamma);
  EXPECT_GT(cost["algorithms"][0]["compute_s"].get<double>(), 0.0) << coll.out;
  // Fabric file text: the copy cost beside gamma.
  std::ifstream toml(fabric);
  const std::string written((std::istreambuf_iterator<char>(toml)),
                            std::istreambuf_iterator<char>());
  EXPECT_NE(written.find("copy = "), std::string::npos) << written;
  EXPECT_NE(written.find("alloc = "), std::string::npos) << written;
  EXPECT_NE(written.find("sent_reduction = "), std::string::npos) << written;
  EXPECT_NE(written.find("sent_exchange = "), std::string::npos) << written;
  EXPECT_NE(written.find("\nworking_set_ranks = 2\n"), std::string::npos) << written;
}

TEST(MpiEndToEnd, PingPongThenCalibrateThenValidate) {
  const std::filesystem::path dir = ::testing::TempDir();
  const std::string pingpong = (dir / "scalewall_e2e_pingpong.jsonl").string();
  const std::string collective = (dir / "scalewall_e2e_collective.jsonl").string();
  const std::string fabric = (dir / "scalewall_e2e_fabric.toml").string();

  const MpiResult pp = run_mpi(2, {"pingpong", "--max-bytes", "1MiB", "--iterations", "20",
                                   "--out", pingpong});
  ASSERT_EQ(pp.exit_code, 0) << describe(pp);
  const MpiResult coll =
      run_mpi(2, {"collective", "--algorithm", "library,ring,recursive-doubling", "--sizes",
                  "8,1KiB,64KiB,1MiB", "--iterations", "5", "--out", collective});
  ASSERT_EQ(coll.exit_code, 0) << describe(coll);

  const MpiResult cal =
      run_scalewall_cli({"calibrate", pingpong, "--out", fabric, "--format", "json"});
  ASSERT_EQ(cal.exit_code, 0) << describe(cal);
  const nlohmann::json fit = nlohmann::json::parse(cal.out);
  EXPECT_EQ(fit["command"], "calibrate");
  EXPECT_GT(fit["alpha_s"].get<double>(), 0.0) << cal.out;
  EXPECT_GT(fit["bandwidth_Bps"].get<double>(), 0.0) << cal.out;
  EXPECT_EQ(fit["fit_sizes"], 22) << cal.out;  // 0 and 1 B .. 1 MiB
  EXPECT_TRUE(std::filesystem::exists(fabric));

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"validate", pingpong, collective, "--format", "json"},
        std::vector<std::string>{"validate", collective, "--fabric", fabric, "--format",
                                 "json"}}) {
    const MpiResult val = run_scalewall_cli(args);
    ASSERT_EQ(val.exit_code, 0) << describe(val);
    const nlohmann::json report = nlohmann::json::parse(val.out);
    EXPECT_EQ(report["command"], "validate");
    EXPECT_EQ(report["points"].size(), 12u) << val.out;  // 3 algorithms x 4 sizes
    EXPECT_GE(report["median_abs_error"].get<double>(), 0.0) << val.out;
  }
}

// ---- the live table on stderr ----

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The table's rows: the stderr lines whose first word is a number.
std::vector<std::vector<std::string>> table_rows(const std::string& err) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> w = words(line);
    if (!w.empty() && std::all_of(w[0].begin(), w[0].end(), ::isdigit)) rows.push_back(w);
  }
  return rows;
}

// The '#' lines that follow a title line starting with `title`: the names, then the units.
std::pair<std::vector<std::string>, std::vector<std::string>> table_header(
    const std::string& err, const std::string& title) {
  const std::size_t at = err.find("# " + title);
  if (at == std::string::npos) return {};
  std::istringstream in(err.substr(at));
  std::string line;
  std::getline(in, line);
  std::string names;
  std::string units;
  std::getline(in, names);
  std::getline(in, units);
  std::vector<std::string> n = words(names);
  std::vector<std::string> u = words(units);
  if (!n.empty()) n.erase(n.begin());  // the '#'
  if (!u.empty()) u.erase(u.begin());
  return {n, u};
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++n;
  }
  return n;
}

// A number as the table prints it: two decimals.
std::string two_decimals(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}
std::string us(double seconds) { return two_decimals(seconds * 1e6); }
std::string gbps(double rate) { return two_decimals(rate / 1e9); }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The run, `mpirun -np 2 scalewall-mpi collective -b 8 -e 64M -f 2`, with the library
// alone and fewer repetitions: rank 0 prints one nccl-tests row per size as it goes, each row
// the record's own figures, and the file calibrates as before.
TEST(MpiLive, CollectiveTableIsTheRecordsAndTheFileFeedsCalibrate) {
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / "scalewall_live_collective.jsonl").string();
  const MpiResult result =
      run_mpi(2, {"collective", "-b", "8", "-e", "64M", "-f", "2", "--algorithm", "library",
                  "-n", "2", "-w", "1", "--out", path},
              150);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_TRUE(result.out.empty()) << result.out;
  const Jsonl file = parse_jsonl(read_text(path));
  expect_well_formed(file, "collective", "collective", 2);
  ASSERT_EQ(file.records.size(), 24u);  // 8 B, 16 B, ..., 64 MiB

  EXPECT_EQ(occurrences(result.err, "# allreduce on 2 ranks (1 host): int64 sum, 2 timed calls "
                                    "after 1 warm-up per size"),
            1u)
      << result.err;  // rank 0 alone prints
  const auto [names, units] = table_header(result.err, "allreduce on 2 ranks");
  EXPECT_EQ(names, (std::vector<std::string>{"size", "count", "type", "redop", "time", "algbw",
                                             "busbw", "#wrong"}))
      << result.err;
  EXPECT_EQ(units, (std::vector<std::string>{"(B)", "(elements)", "(us)", "(GB/s)", "(GB/s)"}))
      << result.err;
  const auto rows = table_rows(result.err);
  ASSERT_EQ(rows.size(), file.records.size()) << result.err;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = file.records[i];
    const auto& row = rows[i];
    ASSERT_EQ(row.size(), 8u) << result.err;
    const auto bytes = r["bytes"].get<std::int64_t>();
    EXPECT_EQ(bytes, std::int64_t{8} << i);
    EXPECT_EQ(row[0], std::to_string(bytes));
    EXPECT_EQ(row[1], std::to_string(bytes / 8));
    EXPECT_EQ(row[2], "int64");
    EXPECT_EQ(row[3], "sum");
    EXPECT_EQ(row[4], us(r["time_median_s"].get<double>())) << r.dump();
    EXPECT_EQ(row[5], gbps(r["algbw_Bps"].get<double>())) << r.dump();
    EXPECT_EQ(row[6], gbps(r["busbw_Bps"].get<double>())) << r.dump();
    EXPECT_EQ(row[7], "0");
    EXPECT_EQ(r["wrong"], 0);
  }
  EXPECT_NE(result.err.find("# Out of bounds values : 0 OK"), std::string::npos) << result.err;

  // calibrate reads the file as before: one bus bandwidth per record, the record's own.
  const MpiResult cal = run_scalewall_cli({"calibrate", path, "--format", "json"});
  ASSERT_EQ(cal.exit_code, 0) << describe(cal);
  const nlohmann::json fit = nlohmann::json::parse(cal.out);
  ASSERT_EQ(fit["busbw"].size(), 24u) << cal.out;
  for (std::size_t i = 0; i < 24; ++i) {
    EXPECT_EQ(fit["busbw"][i]["bytes"].get<double>(), file.records[i]["bytes"].get<double>());
    EXPECT_DOUBLE_EQ(fit["busbw"][i]["busbw_Bps"].get<double>(),
                     file.records[i]["busbw_Bps"].get<double>());
  }
}

// Several contenders add an algorithm column; a corrupted result shows in #wrong at once.
TEST(MpiLive, AlgorithmColumnAndWrongElementsInTheTable) {
  const MpiResult result =
      run_mpi(3, {"collective", "--op", "allreduce,all-gather", "--algorithm", "library,ring",
                  "--sizes", "64,4096", "-n", "1", "--inject-error"});
  EXPECT_EQ(result.exit_code, 1) << describe(result);
  const Jsonl file = parse_jsonl(result.out);
  const auto [names, units] = table_header(result.err, "all-gather on 3 ranks");
  EXPECT_EQ(names, (std::vector<std::string>{"size", "count", "type", "redop", "algorithm",
                                             "time", "algbw", "busbw", "#wrong"}))
      << result.err;
  const auto rows = table_rows(result.err);
  ASSERT_EQ(rows.size(), 8u) << result.err;
  ASSERT_EQ(file.records.size(), 8u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = file.records[i];
    ASSERT_EQ(rows[i].size(), 9u) << result.err;
    EXPECT_EQ(rows[i][3], r["op"] == "allreduce" ? "sum" : "none") << r.dump();
    EXPECT_EQ(rows[i][4], r["algorithm"]) << r.dump();
    EXPECT_EQ(rows[i][5], us(r["time_median_s"].get<double>())) << r.dump();
    EXPECT_EQ(rows[i][6], gbps(r["algbw_Bps"].get<double>())) << r.dump();
    // On 3 ranks busbw is 4/3 (all-reduce) or 2/3 (all-gather) of algbw: the columns differ.
    EXPECT_EQ(rows[i][7], gbps(r["busbw_Bps"].get<double>())) << r.dump();
    EXPECT_EQ(rows[i][8], r["algorithm"] == "ring" ? "1" : "0") << r.dump();
  }
  EXPECT_NE(result.err.find("# Out of bounds values : 4 FAILED"), std::string::npos)
      << result.err;

  const MpiResult unchecked =
      run_mpi(2, {"collective", "--algorithm", "library", "--sizes", "8", "-c", "0"});
  ASSERT_EQ(unchecked.exit_code, 0) << describe(unchecked);
  const auto plain = table_rows(unchecked.err);
  ASSERT_EQ(plain.size(), 1u) << unchecked.err;
  EXPECT_EQ(plain[0].back(), "N/A") << unchecked.err;
}

TEST(MpiLive, PingPongAndReducePrintARowPerSize) {
  const MpiResult pp =
      run_mpi(2, {"pingpong", "--sizes", "0,1K,64K", "-n", "3", "-w", "1"});
  ASSERT_EQ(pp.exit_code, 0) << describe(pp);
  const Jsonl pfile = parse_jsonl(pp.out);
  const auto [pnames, punits] = table_header(pp.err, "pingpong 0->1");
  EXPECT_EQ(pnames, (std::vector<std::string>{"size", "min", "median", "max", "bandwidth",
                                              "exchange"}))
      << pp.err;
  const auto prows = table_rows(pp.err);
  ASSERT_EQ(prows.size(), 3u) << pp.err;
  for (std::size_t i = 0; i < prows.size(); ++i) {
    const auto& r = pfile.records[2 * i];
    EXPECT_EQ(prows[i][5], us(pfile.records[2 * i + 1]["exchange_median_s"].get<double>()));
    EXPECT_EQ(prows[i][0], std::to_string(r["bytes"].get<int>()));
    EXPECT_EQ(prows[i][1], us(r["one_way_min_s"].get<double>()));
    EXPECT_EQ(prows[i][2], us(r["one_way_median_s"].get<double>()));
    EXPECT_EQ(prows[i][3], us(r["one_way_max_s"].get<double>()));
    EXPECT_EQ(prows[i][4], gbps(r["bytes"].get<double>() / r["one_way_median_s"].get<double>()));
  }

  const MpiResult red = run_mpi(2, {"reduce", "--sizes", "8,1M", "-n", "3"});
  ASSERT_EQ(red.exit_code, 0) << describe(red);
  const Jsonl rfile = parse_jsonl(red.out);
  const auto rrows = table_rows(red.err);
  ASSERT_EQ(rrows.size(), 2u) << red.err;
  EXPECT_EQ(rrows[1][0], "1048576");
  EXPECT_EQ(rrows[1][1], "131072");
  // Records per size: reduction, copy, alloc, sent_reduction, sent_exchange.
  EXPECT_EQ(rrows[1][3], us(rfile.records[5]["time_median_s"].get<double>()));
  EXPECT_EQ(rrows[1][5], us(rfile.records[5]["slowest_rank_median_s"].get<double>()));
  EXPECT_EQ(rrows[1][7], us(rfile.records[6]["slowest_rank_median_s"].get<double>()));
  EXPECT_EQ(rrows[1][9], us(rfile.records[7]["slowest_rank_median_s"].get<double>()));
  EXPECT_EQ(rrows[1][10], us(rfile.records[8]["slowest_rank_median_s"].get<double>()));
  EXPECT_EQ(rrows[1][11], us(rfile.records[9]["slowest_rank_median_s"].get<double>()));
}

TEST(MpiLive, QuietPrintsNothingOnStderr) {
  const std::vector<std::vector<std::string>> runs = {
      {"collective", "--sizes", "8", "-n", "1", "--quiet"},
      {"pingpong", "--sizes", "8", "-n", "1", "-q"},
      {"reduce", "--sizes", "8", "-n", "1", "-q"},
      {"arrival", "-n", "1", "-q"},
      {"step", "-n", "1", "--compute", "1ms", "--bytes", "8", "-q"},
  };
  for (const auto& args : runs) {
    const MpiResult result = run_mpi(2, args);
    ASSERT_EQ(result.exit_code, 0) << args.front() << "\n" << describe(result);
    EXPECT_TRUE(result.err.empty()) << args.front() << "\n" << result.err;
    EXPECT_FALSE(parse_jsonl(result.out).records.empty()) << args.front();
  }
}

TEST(MpiHelp, ListsTheModesWithoutALauncher) {
  const MpiResult result = run_singleton({"--help"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  for (const char* mode : {"pingpong", "collective", "arrival", "step"}) {
    EXPECT_NE(result.out.find(mode), std::string::npos) << result.out;
  }
  const MpiResult version = run_singleton({"--version"});
  EXPECT_EQ(version.exit_code, 0) << describe(version);
  EXPECT_NE(version.out.find(SCALEWALL_VERSION_TEXT), std::string::npos) << version.out;
}

// exchange: one record per size with the exchange's min <= median <= max, a live table, and
// calibrate fits the file into [<link>.exchange] regimes that the collective cost then uses.
TEST(MpiExchange, SweepThenCalibrateWritesExchangeRegimes) {
  const std::filesystem::path dir = ::testing::TempDir();
  const std::string exchange = (dir / "scalewall_exchange.jsonl").string();
  const std::string pingpong = (dir / "scalewall_exchange_pingpong.jsonl").string();
  const std::string fabric = (dir / "scalewall_exchange_fabric.toml").string();
  const MpiResult result = run_mpi(2, {"exchange", "--max-bytes", "64KiB", "-n", "5", "-w",
                                       "1", "--out", exchange});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const Jsonl file = parse_jsonl(read_text(exchange));
  expect_well_formed(file, "exchange", "exchange", 2);
  ASSERT_EQ(file.records.size(), 18u);  // 0 and 1, 2, 4, ..., 64 KiB
  for (const auto& r : file.records) {
    EXPECT_EQ(r["from"], 0);
    EXPECT_EQ(r["to"], 1);
    EXPECT_EQ(r["iterations"], 5);
    EXPECT_FALSE(r.contains("one_way_median_s")) << r.dump();
    EXPECT_EQ(r["samples"], 2 * r["iterations"].get<std::int64_t>()) << r;  // both ranks'
    EXPECT_LE(r["exchange_min_s"].get<double>(), r["exchange_median_s"].get<double>());
    EXPECT_LE(r["exchange_median_s"].get<double>(), r["exchange_max_s"].get<double>());
    EXPECT_GT(r["exchange_min_s"].get<double>(), 0.0);
  }
  EXPECT_NE(result.err.find("# exchange 0<->1"), std::string::npos) << result.err;
  EXPECT_EQ(table_rows(result.err).size(), 18u) << result.err;

  // Round trips alone (--exchange 0): the exchanges come from the exchange file.
  const MpiResult pp = run_mpi(2, {"pingpong", "--max-bytes", "64KiB", "-n", "5", "--exchange",
                                   "0", "--out", pingpong});
  ASSERT_EQ(pp.exit_code, 0) << describe(pp);
  const MpiResult cal = run_scalewall_cli(
      {"calibrate", pingpong, exchange, "--regimes", "1", "--out", fabric, "--format", "json"});
  ASSERT_EQ(cal.exit_code, 0) << describe(cal);
  const nlohmann::json fit = nlohmann::json::parse(cal.out);
  ASSERT_EQ(fit["exchange_regime_count"], 1) << cal.out;
  ASSERT_EQ(fit["exchange_regimes"].size(), 1u) << cal.out;
  const std::string toml = read_text(fabric);
  EXPECT_NE(toml.find("[inter.exchange]"), std::string::npos) << toml;
  EXPECT_NE(toml.find("[intra.exchange]"), std::string::npos) << toml;
  // A 2-rank recursive doubling is one exchange of m: its cost is the exchange line at m.
  {
    const MpiResult coll = run_scalewall_cli({"collective", "--fabric", fabric, "--bytes", "4KiB",
                                              "--ranks", "2", "--algorithms",
                                              "recursive-doubling", "--format", "json"});
    ASSERT_EQ(coll.exit_code, 0) << describe(coll);
    const nlohmann::json cost = nlohmann::json::parse(coll.out);
    const auto& r = fit["exchange_regimes"][0];
    EXPECT_NEAR(cost["algorithms"][0]["total_s"].get<double>(),
                r["alpha_s"].get<double>() + 4096 / r["bandwidth_Bps"].get<double>(), 1e-12)
        << coll.out;
  }
}


// The suite: two passes of pingpong, reduce and collective in one launch, each to files of
// its own, that validate --pool reads as one calibration and one validation set.
TEST(MpiSuite, TwoPassesToOneFolderThatValidatePools) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "scalewall_suite";
  std::filesystem::remove_all(dir);
  const MpiResult result =
      run_mpi(2, {"suite", "--out-dir", dir.string(), "--sizes", "8,1KiB,64KiB,1MiB",
                  "--algorithm", "library,ring", "--passes", "2", "--pingpong-iterations", "5",
                  "--reduce-iterations", "3", "--collective-iterations", "3"},
              150);
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  std::vector<std::string> files;
  for (const int pass : {1, 2}) {
    const std::string n = std::to_string(pass);
    const std::string pp = (dir / ("pingpong-" + n + ".jsonl")).string();
    const std::string red = (dir / ("reduce-" + n + ".jsonl")).string();
    const std::string coll = (dir / ("collective-" + n + ".jsonl")).string();
    const Jsonl pp_file = parse_jsonl(read_text(pp));
    expect_well_formed(pp_file, "pingpong", "pingpong", 2);
    EXPECT_EQ(pp_file.records.size(), 8u);  // 4 sizes, a pingpong and an exchange record each
    EXPECT_EQ(pp_file.envelope["inputs"]["iterations"], 5);
    const Jsonl red_file = parse_jsonl(read_text(red));
    EXPECT_EQ(red_file.envelope["command"], "reduce");
    // The list as given (8 B too: only a sweep's start is raised to 1 KiB), a reduction, a
    // copy, an allocation, a sent-buffer reduction and a sent-buffer exchange record each.
    EXPECT_EQ(red_file.records.size(), 20u);
    const Jsonl coll_file = parse_jsonl(read_text(coll));
    expect_well_formed(coll_file, "collective", "collective", 2);
    EXPECT_EQ(coll_file.records.size(), 8u);  // 2 algorithms x 4 sizes
    for (const auto& r : coll_file.records) EXPECT_EQ(r["iterations"], 3);
    files.insert(files.end(), {pp, red, coll});
  }
  EXPECT_NE(result.err.find("# suite pass 2/2, part 3/3: collective"), std::string::npos)
      << result.err;
  std::vector<std::string> args = {"validate", "--pool"};
  args.insert(args.end(), files.begin(), files.end());
  args.insert(args.end(), {"--format", "json"});
  const MpiResult val = run_scalewall_cli(args);
  ASSERT_EQ(val.exit_code, 0) << describe(val);
  const nlohmann::json report = nlohmann::json::parse(val.out);
  ASSERT_EQ(report["points"].size(), 8u) << val.out;  // the two passes pooled per point
  for (const auto& p : report["points"]) EXPECT_EQ(p["samples"], 2) << p.dump();
}

// A bad value for any part is refused before the first part measures anything.
TEST(MpiSuite, EveryPartsFlagsAreCheckedFirst) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "scalewall_suite_bad";
  std::filesystem::remove_all(dir);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--algorithm", "nosuch"},
        std::vector<std::string>{"--pairs", "0-7"},
        std::vector<std::string>{"--passes", "0"},
        std::vector<std::string>{"--sizes", "8"},  // beside --max-bytes: refused as a sweep's
        std::vector<std::string>{"--reduce-iterations", "-1"}}) {
    std::vector<std::string> args = {"suite", "--out-dir", dir.string(), "--max-bytes", "1KiB"};
    args.insert(args.end(), bad.begin(), bad.end());
    const MpiResult result = run_mpi(2, args);
    EXPECT_EQ(result.exit_code, 2) << bad[0] << ": " << describe(result);
    EXPECT_NE(result.err.find("error: " + bad[0]), std::string::npos) << result.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "pingpong-1.jsonl")) << bad[0];
  }
}

}  // namespace
}  // namespace scalewall::testing
