// End-to-end tests of `scalewall diagnose` on scaling tables and scalewall-mpi records.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/cli_runner.h"

namespace scalewall::testing {
namespace {

// The seed's interview case as a table: 94% at 128 ranks, 61% at 1024, same problem.
TEST(DiagnoseCli, InterviewCaseNamesCandidatesAndTheNextMeasurement) {
  const double t128 = 1.0 / (128 * 0.94);
  const double t1024 = 1.0 / (1024 * 0.61);
  const std::string path = write_temp_file(
      "drill.csv", "ranks,step_s,problem_size\n128," + std::to_string(t128) + ",1\n1024," +
                       std::to_string(t1024) + ",1\n");
  const auto j = run_json({"diagnose", path});
  EXPECT_EQ(j["command"], "diagnose");
  EXPECT_EQ(j["kind"], "measurement");
  EXPECT_EQ(j["scaling"], "strong");
  EXPECT_EQ(j["baseline_ranks"], 128);
  EXPECT_NEAR(j["efficiency_at_largest"].get<double>(), 0.61 / 0.94, 1e-4);
  EXPECT_TRUE(j["binding"].is_null());
  std::vector<std::string> candidates = j["binding_candidates"];
  for (const char* m : {"bandwidth", "latency", "variance"}) {
    EXPECT_NE(std::find(candidates.begin(), candidates.end(), m), candidates.end()) << m;
  }
  EXPECT_FALSE(j["cannot_separate"].empty());
  // The step split comes first in the measurement order, the arrival run after the
  // collective.
  const std::string next = j["next_measurement"];
  EXPECT_EQ(next.rfind("mpirun -np 1024 scalewall-mpi step", 0), 0u) << next;
  EXPECT_LT(next.find("scalewall-mpi collective"), next.find("scalewall-mpi arrival")) << next;
}

TEST(DiagnoseCli, LatencyBoundWeakTableIsNamed) {
  std::string csv = "ranks,step_s,problem_size\n";
  for (int n = 1; n <= 4096; n *= 2) {
    csv += std::to_string(n) + "," + std::to_string(1.0 + 0.01 * std::log2(n)) + "," +
           std::to_string(n) + "\n";
  }
  const auto j = run_json({"diagnose", write_temp_file("weak.csv", csv)});
  EXPECT_EQ(j["scaling"], "weak");
  EXPECT_EQ(j["binding"], "latency");
  EXPECT_NEAR(j["efficiency_at_largest"].get<double>(), 1.0 / 1.12, 1e-4);
  ASSERT_EQ(j["rows"].size(), 13u);
  EXPECT_LT(std::fabs(j["rows"][12]["residual"].get<double>()), 1e-4);
}

TEST(DiagnoseCli, ScenarioPredictionBesideTheMeasurement) {
  const std::string path = write_temp_file(
      "seed.csv", "ranks,step_s,problem_size\n8,0.8,1\n64,0.6,1\n512,0.57,1\n");
  const auto j = run_json(
      {"diagnose", path, "--scenario", source_path("examples/seed-7b-bf16.toml")});
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_NEAR(j["rows"][0]["predicted_efficiency"].get<double>(), 2.4 / (8 * 0.79), 1e-9);
}

// A scalewall-mpi step file in which the two ranks of host n1 compute 30% slower.
std::string StepFile() {
  std::string text =
      R"({"tool":"scalewall-mpi","version":"0.1.0","command":"step","kind":"measurement",)"
      R"("format":"jsonl","inputs":{"compute_s":0.1,"bytes":1000000},"context":{"ranks":6,)"
      R"("ranks_per_host":2,"hosts":["n0","n1","n2"]}})"
      "\n";
  int records = 0;
  for (int step = 0; step < 4; ++step) {
    for (int r = 0; r < 6; ++r) {
      const bool slow = r == 2 || r == 3;
      const double compute = slow ? 0.13 : 0.10;
      const double wait = 0.13 - compute;
      text += "{\"record\":\"step\",\"step\":" + std::to_string(step) +
              ",\"rank\":" + std::to_string(r) + ",\"host\":\"n" + std::to_string(r / 2) +
              "\",\"compute_s\":" + std::to_string(compute) +
              ",\"communication_s\":0.01,\"wait_s\":" + std::to_string(wait) +
              ",\"step_s\":" + std::to_string(compute + 0.01 + wait) + "}\n";
      ++records;
    }
  }
  text += "{\"record\":\"end\",\"status\":\"complete\",\"records\":" + std::to_string(records) +
          "}\n";
  return text;
}

TEST(DiagnoseCli, StepRecordsNameTheBadNode) {
  const auto j = run_json({"diagnose", write_temp_file("step.jsonl", StepFile())});
  EXPECT_EQ(j["kind"], "measurement");
  EXPECT_EQ(j["ranks"].size(), 6u);
  std::vector<std::string> what;
  for (const auto& o : j["outliers"]) what.push_back(o["what"]);
  EXPECT_NE(std::find(what.begin(), what.end(), "host n1"), what.end());
  EXPECT_NE(std::find(what.begin(), what.end(), "rank 2 (n1)"), what.end());
  EXPECT_EQ(j["binding"], "variance");
  EXPECT_NE(j["next_measurement"].get<std::string>().find("arrival"), std::string::npos);
}

// The suggested runs come back as the exact command lines a user pastes, each with its purpose.
TEST(DiagnoseCli, NextMeasurementsAreExactCommandLines) {
  const auto step = run_json({"diagnose", write_temp_file("step.jsonl", StepFile())});
  EXPECT_EQ(step["next_measurement"],
            "mpirun -np 6 scalewall-mpi arrival (a zero-byte collective and per-rank arrival "
            "times separate latency from variance)");
  const auto table = run_json(
      {"diagnose", write_temp_file("two.csv", "ranks,step_s\n1,1\n2,0.6\n")});
  // The measurement order: the step split first, then the collective alone and its
  // variance, then placement (inside one node, one rank per node).
  EXPECT_EQ(table["next_measurement"],
            "mpirun -np 2 scalewall-mpi step (compute, communication and wait per rank and "
            "step), then mpirun -np 2 scalewall-mpi collective --op allreduce --algorithm "
            "library (the collective alone, against 2m/busbw), then mpirun -np 2 scalewall-mpi "
            "arrival --iterations 1000 (the zero-byte collective (latency) and the per-rank "
            "arrival spread (variance)), then mpirun -np 2 --map-by ppr:2:node scalewall-mpi "
            "collective --op allreduce --algorithm library (inside one node), then mpirun -np 2 "
            "--map-by ppr:1:node scalewall-mpi collective --op allreduce --algorithm library "
            "(one rank per node)");
  const auto plan = run_json({"plan", "--observed", "128:94%,1024:61%"});
  EXPECT_EQ(plan["next_measurement"].get<std::string>().rfind(
                "mpirun -np 1024 scalewall-mpi step (compute, communication and wait per rank "
                "and step), then mpirun -np 1024 scalewall-mpi collective --op allreduce "
                "--algorithm library (the collective alone, against 2m/busbw), then mpirun -np "
                "1024 scalewall-mpi arrival --iterations 1000",
                0),
            0u)
      << plan["next_measurement"];
  std::vector<std::string> measurements;
  for (const auto& e : plan["explanations"]) measurements.push_back(e["measurement"]);
  EXPECT_NE(std::find(measurements.begin(), measurements.end(),
                      "mpirun -np 1024 scalewall-mpi arrival --iterations 1000: per-rank arrival "
                      "times at the collective; look at the spread, not the mean"),
            measurements.end());
  const auto confirm =
      run_json({"plan", source_path("examples/seed-7b-bf16.toml"), "--ranks", "512"});
  const std::string text = confirm["confirm_measurement"];
  EXPECT_EQ(text.rfind("mpirun -np 512 scalewall-mpi ", 0), 0u) << text;
  EXPECT_NE(text.find("  ("), std::string::npos) << text;  // two spaces before the purpose
}

// An envelope line for a scalewall-mpi file of `command` on `hosts` (`per_host` ranks each).
std::string Envelope(const std::string& command, int ranks, int per_host,
                     const std::string& hosts, const std::string& date) {
  return R"({"tool":"scalewall-mpi","version":"0.1.0","command":")" + command +
         R"(","kind":"measurement","format":"jsonl","inputs":{},"context":{"ranks":)" +
         std::to_string(ranks) + R"(,"ranks_per_host":)" + std::to_string(per_host) +
         R"(,"hosts":[)" + hosts + R"(],"date":")" + date + "\"}}\n";
}

std::string EndRecord(int records) {
  return "{\"record\":\"end\",\"status\":\"complete\",\"records\":" + std::to_string(records) +
         "}\n";
}

// 4 ranks on h0, h1 whose steps spend 30% in communication and wait little: bandwidth.
std::string BandwidthStepFile(const std::string& date) {
  std::string text = Envelope("step", 4, 2, R"("h0","h1")", date);
  for (int step = 0; step < 3; ++step) {
    for (int r = 0; r < 4; ++r) {
      text += "{\"record\":\"step\",\"step\":" + std::to_string(step) + ",\"rank\":" +
              std::to_string(r) + ",\"host\":\"h" + std::to_string(r / 2) +
              "\",\"compute_s\":0.07,\"communication_s\":0.03,\"wait_s\":0.001,"
              "\"step_s\":0.101}\n";
    }
  }
  return text + EndRecord(12);
}

// An arrival run of 4 ranks on `hosts` in which rank 3 is held back 500 us by the harness.
std::string SlowRankArrivalFile(int per_host, const std::string& hosts,
                                const std::string& host_of_rank, const std::string& date) {
  std::string text = Envelope("arrival", 4, per_host, hosts, date);
  for (int it = 0; it < 5; ++it) {
    for (int r = 0; r < 4; ++r) {
      const double arrival = r == 3 ? 500e-6 : 1e-6 * r;
      const double collective = r == 3 ? 10e-6 : 510e-6 - arrival;
      text += "{\"record\":\"arrival\",\"iteration\":" + std::to_string(it) + ",\"rank\":" +
              std::to_string(r) + ",\"host\":\"" + host_of_rank + std::to_string(r / per_host) +
              "\",\"arrival_s\":" + std::to_string(arrival) + ",\"injected_s\":" +
              std::to_string(r == 3 ? 500e-6 : 0.0) + ",\"collective_s\":" +
              std::to_string(collective) + "}\n";
    }
  }
  return text + EndRecord(20);
}

// A step file alone says "bandwidth"; another job's arrival run (other hosts, one slow rank
// injected) added beside it keeps that verdict and gets one of its own; the same job's
// arrival run is diagnosed with it.
TEST(DiagnoseCli, AnotherJobsRunDoesNotChangeTheVerdict) {
  const std::string step = write_temp_file("bw_step.jsonl", BandwidthStepFile("2026-11-30T05:00:00Z"));
  const auto alone = run_json({"diagnose", step});
  EXPECT_EQ(alone["binding"], "bandwidth");
  const std::string other = write_temp_file(
      "other_arrival.jsonl",
      SlowRankArrivalFile(4, R"("x0")", "x", "2026-11-30T07:00:00Z"));
  const auto both = run_json({"diagnose", step, other});
  ASSERT_EQ(both["runs"].size(), 2u) << both["runs"];
  EXPECT_EQ(both["runs"][0]["binding"], "bandwidth");
  EXPECT_EQ(both["runs"][0]["files"], step + " (scalewall-mpi step)");
  EXPECT_EQ(both["runs"][1]["binding"], "variance");
  EXPECT_TRUE(both["binding"].is_null());
  for (const auto& row : both["ranks"]) EXPECT_EQ(row["run"], 1);
  ASSERT_EQ(both["verdicts"].size(), 2u);
  EXPECT_EQ(both["verdicts"][0].get<std::string>().rfind("run 1 (" + step, 0), 0u);
  EXPECT_NE(both["verdicts"][0].get<std::string>().find("): binding bandwidth; per step"),
            std::string::npos)
      << both["verdicts"][0];
  EXPECT_NE(both["verdicts"][1].get<std::string>().find("): binding variance; "),
            std::string::npos)
      << both["verdicts"][1];
  // CSV: the rows (each with its run), then every run's verdict as a comment line.
  const CliResult csv = run_scalewall({"diagnose", step, other, "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("run,rank,host,", 0), 0u) << csv.out;
  EXPECT_NE(csv.out.find("\n# verdict: " + both["verdicts"][1].get<std::string>() + "\n"),
            std::string::npos)
      << csv.out;
  // The same hosts and rank count on the same day: one job, diagnosed together.
  const std::string same = write_temp_file(
      "same_arrival.jsonl",
      SlowRankArrivalFile(2, R"("h0","h1")", "h", "2026-11-30T06:00:00Z"));
  const auto joined = run_json({"diagnose", step, same});
  ASSERT_EQ(joined["runs"].size(), 1u);
  EXPECT_EQ(joined["binding"], "variance");
  EXPECT_FALSE(joined["arrival_spread_s"].is_null());
  // The same hosts two days later: another job.
  const std::string later = write_temp_file(
      "later_arrival.jsonl",
      SlowRankArrivalFile(2, R"("h0","h1")", "h", "2026-12-02T06:00:00Z"));
  EXPECT_EQ(run_json({"diagnose", step, later})["runs"].size(), 2u);
}

// 66 ping-pong records: 3 ranks on one host, every pair, 22 sizes (0 B and 1 B .. 1 MiB);
// the pair 1->2 has 4x the latency of the others.
std::string PingPongAllPairsFile() {
  std::string text = Envelope("pingpong", 3, 3, R"("node1")", "2026-11-30T05:00:00Z");
  int records = 0;
  for (int a = 0; a < 3; ++a) {
    for (int b = a + 1; b < 3; ++b) {
      const double alpha = a == 1 && b == 2 ? 3.2e-6 : 0.8e-6;
      for (double m = 0; m <= 1048576; m = m == 0 ? 1 : 2 * m) {
        const double t = alpha + m / 6e9;
        char times[160];
        std::snprintf(times, sizeof times,
                      "\"one_way_min_s\":%.9g,\"one_way_median_s\":%.9g,\"one_way_max_s\":%.9g",
                      t, t, t);
        text += "{\"record\":\"pingpong\",\"from\":" + std::to_string(a) + ",\"to\":" +
                std::to_string(b) + ",\"bytes\":" + std::to_string(static_cast<long>(m)) +
                ",\"iterations\":1000," + times + "}\n";
        ++records;
      }
    }
  }
  EXPECT_EQ(records, 66);
  return text + EndRecord(records);
}

TEST(DiagnoseCli, PingPongAloneIsDiagnosedPerPair) {
  const auto j = run_json({"diagnose", write_temp_file("pairs.jsonl", PingPongAllPairsFile())});
  const std::string verdict = j["verdict"];
  EXPECT_EQ(verdict.find("no step, arrival, collective or ping-pong records"), std::string::npos)
      << verdict;
  EXPECT_NE(verdict.find("ping-pong over 3 pairs of ranks, up to 22 sizes each"),
            std::string::npos)
      << verdict;
  EXPECT_NE(verdict.find("inside a node"), std::string::npos) << verdict;
  ASSERT_EQ(j["links"].size(), 3u);
  for (const auto& l : j["links"]) {
    EXPECT_EQ(l["same_host"], "yes");
    EXPECT_EQ(l["sizes"], 22);
    const double alpha = l["from"] == 1 && l["to"] == 2 ? 3.2e-6 : 0.8e-6;
    EXPECT_NEAR(l["alpha_s"].get<double>() / alpha, 1.0, 1e-3) << l;
    EXPECT_NEAR(l["bandwidth_Bps"].get<double>() / 6e9, 1.0, 1e-3) << l;
  }
  std::vector<std::string> what;
  for (const auto& o : j["outliers"]) what.push_back(o["what"]);
  EXPECT_EQ(what, std::vector<std::string>{"link 1->2"});
  EXPECT_EQ(j["next_measurement"].get<std::string>().rfind("mpirun -np 3 scalewall-mpi step", 0),
            0u)
      << j["next_measurement"];
}

// Ping-pong records that name their ranks' hosts: 4 ranks, 2 on each of a and b. Pairs inside
// a node (alpha 1 us) and across nodes (5 us; 1->3 20 us) are summarised and judged apart.
TEST(DiagnoseCli, PingPongPairsInsideAndAcrossNodes) {
  std::string text = Envelope("pingpong", 4, 2, R"("a","b")", "2026-11-30T05:00:00Z");
  int records = 0;
  for (int x = 0; x < 4; ++x) {
    for (int y = x + 1; y < 4; ++y) {
      const bool same = x / 2 == y / 2;
      const double alpha = same ? 1e-6 : (x == 1 && y == 3 ? 20e-6 : 5e-6);
      for (const double m : {0.0, 1024.0, 65536.0, 1048576.0}) {
        const double t = alpha + m / (same ? 50e9 : 10e9);
        char line[320];
        std::snprintf(line, sizeof line,
                      "{\"record\":\"pingpong\",\"from\":%d,\"to\":%d,\"from_host\":\"%s\","
                      "\"to_host\":\"%s\",\"bytes\":%.0f,\"iterations\":100,"
                      "\"one_way_min_s\":%.9g,\"one_way_median_s\":%.9g,"
                      "\"one_way_max_s\":%.9g}\n",
                      x, y, x < 2 ? "a" : "b", y < 2 ? "a" : "b", m, t, t, t);
        text += line;
        ++records;
      }
    }
  }
  const auto j = run_json(
      {"diagnose", write_temp_file("two_hosts.jsonl", text + EndRecord(records))});
  const std::string verdict = j["verdict"];
  EXPECT_NE(verdict.find("2 pairs inside a node: median latency 1 us, bandwidth 50 GB/s"),
            std::string::npos)
      << verdict;
  EXPECT_NE(verdict.find("4 pairs across nodes: median latency 5 us, bandwidth 10 GB/s"),
            std::string::npos)
      << verdict;
  ASSERT_EQ(j["links"].size(), 6u);
  EXPECT_EQ(j["links"][0]["same_host"], "yes");  // 0->1 on a
  EXPECT_EQ(j["links"][1]["same_host"], "no");   // 0->2, a to b
  EXPECT_EQ(j["links"][1]["to_host"], "b");
  std::vector<std::string> what;
  for (const auto& o : j["outliers"]) what.push_back(o["what"]);
  EXPECT_EQ(what, std::vector<std::string>{"link 1->3"});
  EXPECT_NE(j["outliers"][0]["evidence"].get<std::string>().find("among 4 pairs across nodes"),
            std::string::npos)
      << j["outliers"][0];
}

TEST(DiagnoseCli, PlotsTheMainFigure) {
  const std::string table = write_temp_file("plot.csv", "ranks,step_s\n1,10\n2,5.2\n4,2.8\n8,1.6\n");
  const std::string svg = write_temp_file("eff.svg", "");
  const CliResult r = run_scalewall({"diagnose", table, "--plot", svg});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("MEASUREMENT"), std::string::npos);
  const std::string png = write_temp_file("wait.png", "");
  const CliResult w =
      run_scalewall({"diagnose", write_temp_file("step.jsonl", StepFile()), "--plot", png});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  std::ifstream pin(png, std::ios::binary);
  char magic[4] = {};
  pin.read(magic, 4);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

TEST(DiagnoseCli, BadOrMixedInputNamesFileAndRow) {
  struct Bad {
    std::vector<std::string> args;
    std::string named;
  };
  const std::string mixed = write_temp_file(
      "mixed.csv", "ranks,step_s,problem_size\n1,1,10\n2,0.5,10\n4,1,40\n");
  const std::string junk = write_temp_file("junk.csv", "ranks,step_s\n1,1\n2,oops\n");
  const std::string ok = write_temp_file("ok.csv", "ranks,step_s\n1,1\n2,0.6\n");
  const std::vector<Bad> cases = {
      {{"diagnose"}, "files"},
      {{"diagnose", mixed}, "strong and weak scaling mixed"},
      {{"diagnose", junk}, "junk.csv:3"},
      {{"diagnose", "/no/such/file.csv"}, "/no/such/file.csv"},
      {{"diagnose", ok, ok}, "one scaling table at a time"},
      {{"diagnose", ok, "--fabric", source_path("examples/fabrics/tcp-100gbe.toml")}, "--fabric"},
  };
  for (const Bad& c : cases) {
    const CliResult r = run_scalewall(c.args);
    std::string joined;
    for (const auto& a : c.args) joined += " " + a;
    EXPECT_EQ(r.exit_code, 2) << joined << "\nstderr: " << r.err;
    EXPECT_EQ(r.err.rfind("error:", 0), 0u) << joined << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(c.named), std::string::npos) << joined << "\nstderr: " << r.err;
    EXPECT_TRUE(r.out.empty()) << joined;
  }
}

// A JSON table holds at most 2^21 values (699,050 rows of ranks and step_s); past them it is
// refused before the JSON library builds it, in a fraction of a second.
TEST(DiagnoseCli, AJsonTableOfMoreValuesThanTheLimitIsRefused) {
  std::string json = "[";
  for (int n = 1; n <= 699'051; ++n) {
    json += (n == 1 ? "{\"ranks\":" : ",{\"ranks\":") + std::to_string(n) + ",\"step_s\":1}";
  }
  const std::string path = write_temp_file("many_rows.json", json + "]\n");
  const CliResult r = run_scalewall({"diagnose", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: " + path +
                       ":1: more than 2097152 JSON values (the limit for a JSON file or JSON "
                       "Lines record)\n");
}

}  // namespace
}  // namespace scalewall::testing
