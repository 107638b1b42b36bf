// The model against SimGrid SMPI's simulated MPI (tests/data/smpi/, written by
// scripts/smpi_reference.sh; the README there gives the platforms, the command lines and
// SMPI's schedules and network formula).
//
// (a) Under SMPI's ideal alpha-beta network, the all-reduce times of its ring (lr) and
//     recursive doubling (rdb) are the model's closed forms within 0.5%, except where SMPI's
//     own implementation leaves its schedule (ExcludedBecause names each case).
// (b) Under SMPI's default network model, calibrate's piecewise flat link fitted to SMPI's
//     ping-pong predicts the same all-reduces; the median and worst error per algorithm and
//     rank count are printed, and asserted against issue 12's target
//     (kDefaultModelMedianLimit, kDefaultModelWorstLimit).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "scalewall/analysis/calibrate.h"
#include "scalewall/io/measurement.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/link.h"

namespace scalewall {
namespace {

// Done-when of issue 12: the ideal alpha-beta case within 0.5% of the closed forms. SMPI adds
// a 16-byte envelope to every message (0.064% of a 2 us or 20 us latency-bound message on
// these platforms), which the closed forms leave out.
constexpr double kIdealTolerance = 0.005;

// The default-model accuracy asked of the model: calibrate's piecewise link, fitted to SMPI's
// ping-pong (the regimes chosen by the criterion), predicts the last rank's time of the ring and
// recursive doubling points of each platform with a median error of at most 2% and a worst of
// at most 10% (it reaches a median of 1.40% and a worst of 4.74% on flat-10g and flat-100g,
// 1.48% and 4.75% on flat-25g, 1.59% and 4.75% on flat-1g; one Hockney line gave 5.9-6.5% and
// 63.8%, the 64 KiB messages just above SMPI's 65472 B latency jump).
constexpr double kDefaultModelMedianLimit = 0.02;
constexpr double kDefaultModelWorstLimit = 0.10;
// SimGrid's network/crosstraffic default: each message loads the reverse route with 5% of it.
constexpr double kSmpiCrossTraffic = 0.05;

// SMPI's MPI_Allreduce buffers are int32 sums: bytes / 4 elements.
constexpr double kElementBytes = 4;

std::string SmpiFile(const std::string& name) {
  return std::string(SCALEWALL_SOURCE_DIR) + "/tests/data/smpi/" + name;
}

struct Platform {
  const char* name;
  Link link;  // a route crosses two host links: alpha is twice a link's latency
};
const Platform kPlatforms[] = {{"flat-10g", {20e-6, 1.25e9}},
                               {"flat-100g", {2e-6, 12.5e9}},
                               {"flat-25g", {5e-6, 3.125e9}},
                               {"flat-1g", {100e-6, 0.125e9}}};

struct Variant {
  const char* file;  // SMPI's algorithm name, as in the data files
  Algorithm algorithm;
};
const Variant kVariants[] = {{"lr", Algorithm::kRing}, {"rdb", Algorithm::kRecursiveDoubling}};

// Why SMPI's all-reduce at this point does not run the schedule the model costs; empty when
// it does (src/smpi/colls/allreduce/allreduce-lr.cpp, SimGrid 3.32).
std::string ExcludedBecause(Algorithm algorithm, std::int64_t ranks, double bytes) {
  const double elements = bytes / kElementBytes;
  if (algorithm == Algorithm::kRabenseifnerLinear) {
    if (std::fmod(elements, static_cast<double>(ranks)) != 0) {
      return "rab1 pads a count that is not a multiple of N to the next multiple (here: "
             "below one element per rank)";
    }
    return "";
  }
  if (algorithm != Algorithm::kRing) return "";
  if (elements < static_cast<double>(ranks)) {
    return "lr falls back to redbcast (a linear reduce to rank 0, then a binomial broadcast) "
           "below one element per rank";
  }
  if (std::fmod(elements, static_cast<double>(ranks)) != 0) {
    return "lr hands the count % N leftover elements to a second all-reduce";
  }
  return "";
}

MeasurementSet Read(const std::string& name) {
  MeasurementSet set;
  read_measurement_file(SmpiFile(name), set);
  return set;
}

// The points the model's schedule describes, the others counted by reason.
std::vector<CollectivePoint> Comparable(const std::vector<CollectivePoint>& points,
                                        Algorithm algorithm,
                                        std::map<std::string, int>* excluded) {
  std::vector<CollectivePoint> kept;
  for (const CollectivePoint& p : points) {
    const std::string reason = ExcludedBecause(algorithm, p.ranks, p.bytes);
    if (reason.empty()) {
      kept.push_back(p);
    } else if (excluded != nullptr) {
      ++(*excluded)[reason];
    }
  }
  return kept;
}

TEST(SmpiReference, IdealNetworkMatchesTheClosedForms) {
  int compared = 0;
  std::map<std::string, int> excluded;
  for (const Platform& platform : kPlatforms) {
    for (const Variant& variant : kVariants) {
      const std::string file = fmt::format("{}.ideal.{}.jsonl", platform.name, variant.file);
      const MeasurementSet set = Read(file);
      ASSERT_FALSE(set.collectives.empty()) << file;
      for (const CollectivePoint& p : Comparable(set.collectives, variant.algorithm, &excluded)) {
        const CollectiveCost cost =
            collective_cost(Op::kAllreduce, {variant.algorithm, Algorithm::kRing}, p.ranks,
                            p.bytes, platform.link);
        // The model costs the critical path: the last rank to finish.
        EXPECT_NEAR(p.time_max_s / cost.total_s - 1, 0, kIdealTolerance)
            << file << " N=" << p.ranks << " " << p.bytes << " B: SMPI " << p.time_max_s
            << " s, model " << cost.total_s << " s";
        ++compared;
      }
    }
  }
  for (const auto& [reason, n] : excluded) std::printf("excluded %d points: %s\n", n, reason.c_str());
  // flat-10g: 9 rank counts x 25 sizes per algorithm; flat-100g: 7; flat-25g and flat-1g: 6
  // each. lr keeps its power-of-two rank counts at sizes of one element per rank or more
  // (1178 points in all).
  EXPECT_GT(compared, 1100);
}

// ---- SMPI's default network, as the README writes it ----

// smpi/bw-factor and smpi/lat-factor's defaults (SimGrid 3.32 src/simgrid/sg_config.cpp),
// sorted: a message of S bytes takes the value of the largest threshold below S, 1 at S <= 0.
struct Factor {
  double above_bytes;
  double bandwidth;
  double latency;
};
constexpr Factor kSmpiFactors[] = {
    {0, 0.812084, 2.01467},     {257, 0.338112, 1.95341},  {732, 0.341987, 1.9503},
    {1426, 0.608902, 1.61075},  {3484, 0.77493, 1.88101},  {5776, 1.08739, 2.18796},
    {9376, 0.58729, 2.59299},   {15424, 0.697866, 3.48845}, {65472, 0.940694, 11.6436}};
// SMPI's MPI envelope, simulated with every message (smpi_request.cpp: size_ + 16).
constexpr double kEnvelopeBytes = 16;
// network/crosstraffic: each flow loads its reverse route with 5% of its rate, so a rank
// that sends and receives at once has 1.05 flows on each of its links.
constexpr double kBothWays = 1.05;

// One message of `bytes` that shares its links with `flows` (1: alone; kBothWays: with the
// reverse load of one flow the other way): f_lat(S) alpha + S / (f_bw(S) B / flows).
double SmpiMessage(double bytes, const Link& link, double flows) {
  const double s = bytes + kEnvelopeBytes;
  Factor f{0, 1, 1};
  for (const Factor& entry : kSmpiFactors) {
    if (s > entry.above_bytes) f = entry;
  }
  return f.latency * link.alpha_s + s / (f.bandwidth * link.bandwidth_Bps / flows);
}

// The last rank's time of SMPI's lr, rdb and rab1 schedules (README), for the points they do
// not hand to another algorithm; int32 elements.
double SmpiSchedule(const std::string& algorithm, std::int64_t ranks, double bytes,
                    const Link& link) {
  const auto n = static_cast<double>(ranks);
  std::int64_t p = 1;
  while (p * 2 <= ranks) p *= 2;
  int steps = 0;
  for (std::int64_t q = p; q > 1; q /= 2) ++steps;
  if (algorithm == "lr") return 2 * (n - 1) * SmpiMessage(bytes / n, link, kBothWays);
  if (algorithm == "rdb") {
    const double fold = p == ranks ? 0 : 2 * SmpiMessage(bytes, link, 1);
    return steps * SmpiMessage(bytes, link, kBothWays) + fold;
  }
  // rab1: recursive halving, then every block to every rank at once; fewer elements than
  // ranks are padded to one element per rank.
  const double padded = std::max(bytes, n * kElementBytes);
  double t = 0;
  for (int k = 1; k <= steps; ++k) t += SmpiMessage(padded / std::ldexp(1.0, k), link, kBothWays);
  return t + SmpiMessage(padded / n, link, kBothWays * (n - 1));
}

// The README's formula and schedules reproduce SMPI's default-model times: what the model's
// piecewise link and SMPI variants are to be built from.
TEST(SmpiReference, DefaultModelFollowsTheDocumentedFormula) {
  // 0.01%: every point but one agrees to 1e-11; flat-100g rdb at 12 ranks and 16 B is 3.3e-5
  // short, SimGrid's solver rounding (its maxmin precision is 1e-5).
  constexpr double kExact = 1e-4;
  int compared = 0;
  for (const Platform& platform : kPlatforms) {
    const MeasurementSet pp = Read(fmt::format("{}.default.pingpong.jsonl", platform.name));
    for (const PingPongPoint& p : pp.pingpong) {
      EXPECT_NEAR(p.one_way_median_s / SmpiMessage(p.bytes, platform.link, 1) - 1, 0, kExact)
          << platform.name << " ping-pong " << p.bytes << " B";
      ++compared;
    }
    for (const char* algorithm : {"lr", "rdb", "rab1"}) {
      const std::string file = fmt::format("{}.default.{}.jsonl", platform.name, algorithm);
      if (std::string(algorithm) == "rab1" && std::string(platform.name) != "flat-10g") continue;
      const MeasurementSet set = Read(file);
      const Algorithm modelled =
          std::string(algorithm) == "lr" ? Algorithm::kRing : Algorithm::kRecursiveDoubling;
      for (const CollectivePoint& p : Comparable(set.collectives, modelled, nullptr)) {
        EXPECT_NEAR(p.time_max_s / SmpiSchedule(algorithm, p.ranks, p.bytes, platform.link) - 1,
                    0, kExact)
            << file << " N=" << p.ranks << " " << p.bytes << " B";
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 1400);  // 1436: 4 ping-pongs of 27 sizes, and the kept all-reduces
}

struct Accuracy {
  double median = 0;
  double worst = 0;
};

// Which time of a point validate compares: the median over the ranks (time_median_s, as
// scalewall-mpi records it), or the last rank's completion (time_max_s), the critical path
// that the model costs. They differ where SMPI's ranks finish apart: rdb at a rank count
// that is not a power of two, below 64 KiB, where the folded ranks' partners return one
// message before them (the median is (log2 p + 1) / (log2 p + 2) of the last). lr's ranks
// finish together at every point kept.
enum class Measured { kMedianRank, kLastRank };

// Calibrates from `model`'s ping-pong on `platform` and validates its all-reduces of
// `variants`; prints every summary and returns the "all" one.
Accuracy Validate(const std::string& platform, const std::string& model,
                  const std::vector<Variant>& variants, Measured measured,
                  double reverse_traffic = 0.0) {
  const MeasurementSet pingpong = Read(fmt::format("{}.{}.pingpong.jsonl", platform, model));
  const PiecewiseFit fit = fit_piecewise(pingpong.pingpong);
  Topology fabric = calibrated_topology(fit, std::nullopt, 2, "calibrated");
  fabric.intra.reverse_traffic = fabric.inter.reverse_traffic = reverse_traffic;
  std::vector<CollectivePoint> points;
  for (const Variant& v : variants) {
    const MeasurementSet set = Read(fmt::format("{}.{}.{}.jsonl", platform, model, v.file));
    for (CollectivePoint p : Comparable(set.collectives, v.algorithm, nullptr)) {
      if (measured == Measured::kLastRank) p.time_median_s = p.time_max_s;
      p.algorithm = MeasuredAlgorithm::model({v.algorithm, Algorithm::kRing});
      points.push_back(p);
    }
  }
  const Validation validation = validate_collectives(points, fabric);
  std::printf("%s, %s network, %s, reverse traffic %.2f; calibrated: %s\n", platform.c_str(),
              model.c_str(), measured == Measured::kLastRank ? "last rank" : "median rank",
              reverse_traffic, fit.rule.c_str());
  for (const RegimeFit& r : fit.regimes) {
    std::printf("  regime from %.6g B: alpha %.4g us, bandwidth %.5g GB/s, %zu sizes, R^2 %.4f\n",
                r.from_bytes, r.fit.alpha_s * 1e6, r.fit.bandwidth_Bps / 1e9, r.fit.points.size(),
                r.fit.r_squared);
  }
  for (const ValidationSummary& s : validation.summaries) {
    if (s.group == "regime") continue;
    std::printf("  %-9s %-20s %4lld points  median %6.2f%%  worst %7.2f%%\n", s.group.c_str(),
                s.name.c_str(), static_cast<long long>(s.points), 100 * s.median_abs_error,
                100 * s.worst_abs_error);
  }
  return {validation.summaries.front().median_abs_error,
          validation.summaries.front().worst_abs_error};
}

const std::vector<Variant> kRingAndDoubling = {std::begin(kVariants), std::end(kVariants)};

// The ideal network through calibrate and validate: the fitted link is the platform's, and
// every last-rank time is its closed form.
TEST(SmpiReference, IdealNetworkValidatesFromItsPingPong) {
  for (const Platform& platform : kPlatforms) {
    const Accuracy last = Validate(platform.name, "ideal", kRingAndDoubling, Measured::kLastRank);
    EXPECT_LT(last.worst, kIdealTolerance) << platform.name;
    // The median rank: rdb's folded partners at 6, 12 and 48 ranks finish a message early.
    const Accuracy median =
        Validate(platform.name, "ideal", kRingAndDoubling, Measured::kMedianRank);
    EXPECT_LT(median.median, kIdealTolerance) << platform.name;
  }
}

TEST(SmpiReference, DefaultModelAccuracy) {
  for (const Platform& platform : kPlatforms) {
    const Accuracy a = Validate(platform.name, "default", kRingAndDoubling, Measured::kLastRank);
    EXPECT_LE(a.median, kDefaultModelMedianLimit) << platform.name;
    EXPECT_LE(a.worst, kDefaultModelWorstLimit) << platform.name;
    Validate(platform.name, "default", kRingAndDoubling, Measured::kMedianRank);
    // SMPI's 5% cross-traffic (README: a rank that sends and receives at once gets B / 1.05),
    // which a ping-pong cannot show, given to the fabric by hand: closer still.
    const Accuracy crossed = Validate(platform.name, "default", kRingAndDoubling,
                                      Measured::kLastRank, kSmpiCrossTraffic);
    EXPECT_LE(crossed.median, a.median) << platform.name;
    EXPECT_LE(crossed.worst, kDefaultModelWorstLimit) << platform.name;
  }
}

// SMPI's default network as a piecewise link: one regime per factor-table entry, a message of
// m bytes in the regime of m + 16 (the envelope), alpha f_lat L plus the envelope's 16 bytes,
// bandwidth f_bw B; the 5% cross-traffic as reverse traffic.
Topology SmpiDefaultFabric(const Platform& platform) {
  std::vector<LinkRegime> regimes;
  for (const Factor& f : kSmpiFactors) {
    const double bandwidth = f.bandwidth * platform.link.bandwidth_Bps;
    regimes.push_back({f.above_bytes == 0 ? 0.0 : f.above_bytes - kEnvelopeBytes + 1,
                       f.latency * platform.link.alpha_s + kEnvelopeBytes / bandwidth, bandwidth,
                       0.0, 0.0});
  }
  Link link = piecewise_link(regimes);
  link.reverse_traffic = kBothWays - 1;
  Topology t;
  t.name = "smpi-default";
  t.nodes = 2;
  t.intra = t.inter = link;
  t.nominal = false;
  return t;
}

// Validates `variants` of `platform`'s default network on SMPI's own link (no calibration).
Accuracy ValidateOnSmpiLink(const Platform& platform, const std::vector<Variant>& variants) {
  std::vector<CollectivePoint> points;
  for (const Variant& v : variants) {
    const MeasurementSet set = Read(fmt::format("{}.default.{}.jsonl", platform.name, v.file));
    for (CollectivePoint p : Comparable(set.collectives, v.algorithm, nullptr)) {
      p.time_median_s = p.time_max_s;
      p.algorithm = MeasuredAlgorithm::model({v.algorithm, Algorithm::kRing});
      points.push_back(p);
    }
  }
  const Validation validation = validate_collectives(points, SmpiDefaultFabric(platform));
  const ValidationSummary& all = validation.summaries.front();
  std::printf("%s, default network on its own link: %lld points, median %.2f%%, worst %.2f%%\n",
              platform.name, static_cast<long long>(all.points), 100 * all.median_abs_error,
              100 * all.worst_abs_error);
  return {all.median_abs_error, all.worst_abs_error};
}

// Each message of rab1's one all-gather round carries SMPI's 16-byte envelope on a link the
// round's p - 1 messages share, where the model charges one message's envelope: (p - 2) x 16
// bytes more, 0.56% of the worst point's time on the ideal network (64 ranks).
constexpr double kRab1EnvelopeTolerance = 0.01;

// rab1 against its named variant, rabenseifner-linear. On SMPI's own link (the schedule alone)
// and on the ideal network it is the closed form, to the envelope. Calibrated from the default
// network's ping-pong, the regimes the criterion keeps (four, for SMPI's nine factor segments)
// average each segment's bandwidth with its latency factor's change, and the one round
// multiplies a message's bandwidth term by (p - 1) x 1.05: median 3.1%, worst 45% (64 ranks,
// 512 KiB, blocks of 8 KiB), against 33% and 71% for the textbook schedule.
TEST(SmpiReference, Rab1IsRabenseifnerLinear) {
  const std::vector<Variant> rab1 = {{"rab1", Algorithm::kRabenseifnerLinear}};
  const Accuracy ideal = Validate("flat-10g", "ideal", rab1, Measured::kLastRank);
  EXPECT_LT(ideal.worst, kRab1EnvelopeTolerance);
  const Accuracy own = ValidateOnSmpiLink(kPlatforms[0], rab1);
  EXPECT_LT(own.worst, kRab1EnvelopeTolerance);
  // The same link reproduces lr and rdb too (they pay one envelope per message).
  const Accuracy others = ValidateOnSmpiLink(kPlatforms[0], kRingAndDoubling);
  EXPECT_LT(others.worst, kIdealTolerance);
  const Accuracy calibrated = Validate("flat-10g", "default", rab1, Measured::kLastRank);
  const Accuracy textbook = Validate("flat-10g", "default", {{"rab1", Algorithm::kRabenseifner}},
                                     Measured::kLastRank);
  EXPECT_LE(calibrated.median, kDefaultModelMedianLimit * 2);
  EXPECT_LT(calibrated.median, textbook.median / 5);
  EXPECT_LT(calibrated.worst, textbook.worst);
}

}  // namespace
}  // namespace scalewall
