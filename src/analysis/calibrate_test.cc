// Tests of scalewall/analysis/calibrate.h: the Hockney fit recovers known alpha and bandwidth from
// synthetic ping-pong times (exact, and with small deterministic noise) under both
// weightings, refuses what it cannot fit, finds the LogGP gap where streaming data allow,
// fits bus bandwidth, validates the model against measured collectives, and writes a fabric
// file that load_fabric_file reads back to the same link.
#include "scalewall/analysis/calibrate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "scalewall/analysis/select.h"
#include "scalewall/model/collective.h"
#include "scalewall/base/error.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/platform/output_file.h"
#include "test_support.h"

namespace scalewall {
namespace {

constexpr double kAlpha = 2.5e-6;
constexpr double kBandwidth = 25e9;

// A deterministic +-0.5% multiplicative pattern: noise at every size, as timers give.
double noise(std::size_t i) {
  constexpr double kPattern[] = {1.004, 0.996, 1.005, 0.997, 1.002, 0.995, 1.003, 0.998};
  return kPattern[i % 8];
}

// Ping-pong points at 0 B and 1 B .. 16 MiB (powers of two), T = alpha + m / bandwidth,
// each time multiplied by factor(i).
template <typename F>
std::vector<PingPongPoint> synthetic(F factor) {
  std::vector<PingPongPoint> points;
  std::vector<double> sizes{0};
  for (double m = 1; m <= 16777216; m *= 2) sizes.push_back(m);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    PingPongPoint p;
    p.bytes = sizes[i];
    p.one_way_median_s = (kAlpha + sizes[i] / kBandwidth) * factor(i);
    p.one_way_min_s = p.one_way_median_s;
    p.one_way_max_s = p.one_way_median_s;
    points.push_back(p);
  }
  return points;
}

TEST(FitHockney, RecoversExactParametersUnderBothWeightings) {
  const auto points = synthetic([](std::size_t) { return 1.0; });
  for (const Weighting w : {Weighting::kRelative, Weighting::kOrdinary}) {
    FitOptions options;
    options.weighting = w;
    const HockneyFit fit = fit_hockney(points, options);
    EXPECT_NEAR(fit.alpha_s / kAlpha, 1.0, 1e-9) << weighting_name(w);
    EXPECT_NEAR(fit.bandwidth_Bps / kBandwidth, 1.0, 1e-9) << weighting_name(w);
    EXPECT_NEAR(fit.crossover_bytes, 62500.0, 1e-4);
    EXPECT_NEAR(fit.r_squared, 1.0, 1e-12);
    EXPECT_EQ(fit.points.size(), 26u);
    EXPECT_EQ(fit.min_bytes, 0.0);
    EXPECT_EQ(fit.max_bytes, 16777216.0);
    EXPECT_EQ(fit.weighting, w);
    for (const FitPoint& p : fit.points) EXPECT_NEAR(p.relative_residual, 0.0, 1e-9);
  }
}

TEST(FitHockney, RecoversParametersWithin1PercentUnderRelativeNoise) {
  const HockneyFit fit = fit_hockney(synthetic(noise));
  EXPECT_NEAR(fit.alpha_s / kAlpha, 1.0, 0.01);
  EXPECT_NEAR(fit.bandwidth_Bps / kBandwidth, 1.0, 0.01);
  EXPECT_GT(fit.r_squared, 0.999);
  EXPECT_LT(fit.r_squared, 1.0);
  for (const FitPoint& p : fit.points) EXPECT_LT(std::fabs(p.relative_residual), 0.01);
}

TEST(FitHockney, OrdinaryRecoversParametersWithin1PercentUnderAbsoluteNoise) {
  // Noise of +-0.5% of alpha added at every size: ordinary least squares' own assumption.
  auto points = synthetic([](std::size_t) { return 1.0; });
  for (std::size_t i = 0; i < points.size(); ++i) {
    points[i].one_way_median_s += (noise(i) - 1.0) * kAlpha;
  }
  FitOptions options;
  options.weighting = Weighting::kOrdinary;
  const HockneyFit fit = fit_hockney(points, options);
  EXPECT_NEAR(fit.alpha_s / kAlpha, 1.0, 0.01);
  EXPECT_NEAR(fit.bandwidth_Bps / kBandwidth, 1.0, 0.01);
  EXPECT_GT(fit.r_squared, 0.9999);
}

TEST(FitHockney, OrdinaryLosesAlphaUnderRelativeNoiseWhichIsWhyRelativeIsTheDefault) {
  FitOptions options;
  options.weighting = Weighting::kOrdinary;
  // +-0.5% at 16 MiB is +-3.4 us, more than alpha itself: the intercept goes astray.
  const HockneyFit fit = fit_hockney(synthetic(noise), options);
  EXPECT_GT(std::fabs(fit.alpha_s / kAlpha - 1.0), 0.01) << fit.alpha_s;  // 2.6% here
  EXPECT_NEAR(fit.bandwidth_Bps / kBandwidth, 1.0, 0.01);
}

TEST(FitHockney, ResidualsAndMedianPerSize) {
  std::vector<PingPongPoint> points;
  // Three pairs measure 1 KB; one of them is slow. The median is the middle one.
  for (const double t : {3.0e-6, 3.1e-6, 9.0e-6}) {
    PingPongPoint p;
    p.bytes = 1000;
    p.one_way_median_s = t;
    points.push_back(p);
  }
  for (const double m : {0.0, 1e5, 1e6}) {
    PingPongPoint p;
    p.bytes = m;
    p.one_way_median_s = kAlpha + m / kBandwidth;
    points.push_back(p);
  }
  const HockneyFit fit = fit_hockney(points);
  ASSERT_EQ(fit.points.size(), 4u);
  EXPECT_EQ(fit.points[1].bytes, 1000.0);
  EXPECT_EQ(fit.points[1].samples, 3);
  EXPECT_DOUBLE_EQ(fit.points[1].measured_s, 3.1e-6);
  for (const FitPoint& p : fit.points) {
    EXPECT_DOUBLE_EQ(p.fitted_s, fit.alpha_s + p.bytes / fit.bandwidth_Bps);
    EXPECT_DOUBLE_EQ(p.residual_s, p.measured_s - p.fitted_s);
    EXPECT_DOUBLE_EQ(p.relative_residual, p.residual_s / p.measured_s);
  }
}

TEST(FitHockney, SizeRange) {
  FitOptions options;
  options.min_bytes = 1024;
  options.max_bytes = 1048576;
  const HockneyFit fit = fit_hockney(synthetic(noise), options);
  EXPECT_EQ(fit.min_bytes, 1024.0);
  EXPECT_EQ(fit.max_bytes, 1048576.0);
  EXPECT_EQ(fit.points.size(), 11u);
  EXPECT_EQ(fit.excluded_sizes, 15);
  EXPECT_NEAR(fit.bandwidth_Bps / kBandwidth, 1.0, 0.01);
}

TEST(FitHockney, RefusesFewerThanThreeSizes) {
  std::vector<PingPongPoint> points;
  for (int i = 0; i < 10; ++i) {
    PingPongPoint p;
    p.bytes = i % 2 == 0 ? 8 : 1e6;
    p.one_way_median_s = kAlpha + p.bytes / kBandwidth;
    points.push_back(p);
  }
  const std::string e = input_error_of([&] { fit_hockney(points); });
  EXPECT_TRUE(contains(e, "from 2 distinct message size(s)")) << e;
  EXPECT_TRUE(contains(e, "at least 3 sizes")) << e;
  EXPECT_TRUE(contains(input_error_of([] { fit_hockney({}); }), "from 0 distinct")) << e;

  FitOptions narrow;
  narrow.min_bytes = 8e6;  // 2^23 and 2^24 only
  const std::string n = input_error_of([&] { fit_hockney(synthetic(noise), narrow); });
  EXPECT_TRUE(contains(n, "widen the size range")) << n;  // the CLI words it as its flags
}

TEST(FitHockney, RefusesNonPositiveAlphaOrBandwidth) {
  // Times that fall with size: no bandwidth.
  std::vector<PingPongPoint> falling;
  for (const double m : {1e3, 1e4, 1e5}) {
    PingPongPoint p;
    p.bytes = m;
    p.one_way_median_s = 1e-3 - m * 1e-9;
    falling.push_back(p);
  }
  const std::string slope = input_error_of([&] { fit_hockney(falling); });
  EXPECT_TRUE(contains(slope, "not positive: the times do not grow with size")) << slope;

  // Small sizes far below the line through the large ones: a negative intercept.
  std::vector<PingPongPoint> bent;
  for (const auto& [m, t] : std::vector<std::pair<double, double>>{
           {1e3, 0.1e-6}, {1e5, 20e-6}, {1e6, 200e-6}}) {
    PingPongPoint p;
    p.bytes = m;
    p.one_way_median_s = t;
    bent.push_back(p);
  }
  FitOptions ordinary;
  ordinary.weighting = Weighting::kOrdinary;
  const std::string alpha = input_error_of([&] { fit_hockney(bent, ordinary); });
  EXPECT_TRUE(contains(alpha, "the fitted alpha over")) << alpha;
  EXPECT_TRUE(contains(alpha, "not positive")) << alpha;
}

TEST(FitHockney, RelativeWeightingRefusesAZeroTime) {
  auto points = synthetic([](std::size_t) { return 1.0; });
  points[3].one_way_median_s = 0;
  EXPECT_TRUE(contains(input_error_of([&] { fit_hockney(points); }), "is 0 s"));
  FitOptions ordinary;
  ordinary.weighting = Weighting::kOrdinary;
  EXPECT_NO_THROW(fit_hockney(points, ordinary));
}

TEST(FitHockney, RefusesAnInvalidRange) {
  FitOptions options;
  options.min_bytes = 10;
  options.max_bytes = 5;
  EXPECT_TRUE(contains(input_error_of([&] { fit_hockney(synthetic(noise), options); }),
                       "empty or invalid"));
}

TEST(Weighting, NamesRoundTrip) {
  for (const Weighting w : {Weighting::kRelative, Weighting::kOrdinary}) {
    EXPECT_EQ(parse_weighting(weighting_name(w)), w);
  }
  EXPECT_TRUE(contains(input_error_of([] { parse_weighting("log"); }), "'log'"));
}

// ---- LogGP ----

TEST(FitLogGP, GapFromTheSmallestStreamedSize) {
  const HockneyFit hockney = fit_hockney(synthetic(noise));
  constexpr double kGap = 0.3e-6;
  std::vector<StreamPoint> stream;
  for (double m = 1; m <= 4194304; m *= 2) {
    stream.push_back({m, m / (kGap + m / kBandwidth)});
  }
  const LogGPFit fit = fit_loggp(hockney, stream);
  ASSERT_TRUE(fit.gap_s.has_value()) << fit.gap_note;
  EXPECT_NEAR(*fit.gap_s / kGap, 1.0, 0.01);
  ASSERT_TRUE(fit.streaming_bandwidth_Bps.has_value());
  EXPECT_NEAR(*fit.streaming_bandwidth_Bps / kBandwidth, 1.0, 0.01);
  EXPECT_TRUE(contains(fit.overhead_note, "not identifiable"));
}

TEST(FitLogGP, NotIdentifiableWithoutSmallMessagesOrWithoutStreams) {
  const HockneyFit hockney = fit_hockney(synthetic(noise));
  const std::vector<StreamPoint> large{{1048576, 24e9}, {4194304, 24.5e9}};
  const LogGPFit fit = fit_loggp(hockney, large);
  EXPECT_FALSE(fit.gap_s.has_value());
  EXPECT_TRUE(contains(fit.gap_note, "not identifiable")) << fit.gap_note;
  const LogGPFit none = fit_loggp(hockney, {});
  EXPECT_FALSE(none.gap_s.has_value());
  EXPECT_TRUE(contains(none.gap_note, "osu_bw")) << none.gap_note;
}

// ---- bus bandwidth ----

CollectivePoint allreduce_point(std::int64_t ranks, double bytes, double time_s,
                                const std::string& algorithm = "library") {
  CollectivePoint p;
  p.op = Op::kAllreduce;
  p.algorithm = parse_measured_algorithm(algorithm);
  p.ranks = ranks;
  p.bytes = bytes;
  p.time_min_s = p.time_median_s = p.time_max_s = time_s;
  p.algbw_Bps = bytes / time_s;
  p.busbw_Bps = p.algbw_Bps * busbw_factor(Op::kAllreduce, ranks);
  return p;
}

TEST(FitBusBandwidth, PerSizeAndAsymptote) {
  constexpr std::int64_t kRanks = 8;
  constexpr double kBus = 200e9;
  std::vector<CollectivePoint> points;
  for (double m = 1024; m <= 1 << 30; m *= 4) {
    const double t = 20e-6 + 2.0 * 7.0 / 8.0 * m / kBus;
    points.push_back(allreduce_point(kRanks, m, t));
  }
  points.push_back(allreduce_point(0, 1024, 1e-5));  // unknown rank count: skipped
  points.push_back(allreduce_point(1, 1024, 1e-7));  // one rank: skipped
  std::vector<std::string> warnings;
  const auto fits = fit_bus_bandwidth(points, {}, &warnings);
  ASSERT_EQ(fits.size(), 1u);
  const BusBandwidthFit& f = fits[0];
  EXPECT_EQ(f.op, Op::kAllreduce);
  EXPECT_EQ(f.ranks, kRanks);
  ASSERT_EQ(f.points.size(), 11u);
  for (const BusBandwidthPoint& p : f.points) {
    EXPECT_NEAR(p.busbw_Bps, p.bytes / p.time_s * 1.75, 1e-6 * p.busbw_Bps);
  }
  ASSERT_TRUE(f.asymptote_Bps.has_value());
  EXPECT_NEAR(*f.asymptote_Bps / kBus, 1.0, 1e-9);
  EXPECT_TRUE(contains(f.asymptote_method, "least squares over the 6 largest")) << f.asymptote_method;
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_TRUE(contains(warnings[0], "give the rank count")) << warnings[0];
  EXPECT_TRUE(contains(warnings[1], "one rank")) << warnings[1];
}

TEST(FitBusBandwidth, FewSizesUseTheLargest) {
  const std::vector<CollectivePoint> points{allreduce_point(4, 0, 1e-7),
                                            allreduce_point(4, 4096, 1e-5)};
  const auto fits = fit_bus_bandwidth(points, {}, nullptr);
  ASSERT_EQ(fits.size(), 1u);
  ASSERT_TRUE(fits[0].asymptote_Bps.has_value());
  EXPECT_EQ(fits[0].asymptote_method, "largest size");
  EXPECT_NEAR(*fits[0].asymptote_Bps, 4096 / 1e-5 * 1.5, 1e-3);
  EXPECT_EQ(fits[0].points[0].busbw_Bps, 0.0);
}

// ---- validation ----

TEST(ValidateCollectives, ErrorsRegimesAndSummaries) {
  const Link link{kAlpha, kBandwidth, 0, 0};
  const Topology fabric = flat_topology(2, link);
  std::vector<CollectivePoint> measured;
  // The measurement is 10% slower than the model everywhere: error = 1/1.1 - 1.
  for (const double m : {8.0, 4096.0, 1048576.0, 67108864.0}) {
    for (const char* algorithm : {"ring", "recursive-doubling"}) {
      const double t =
          collective_cost(Op::kAllreduce, parse_algorithm(algorithm), 8, m, link).total_s * 1.1;
      measured.push_back(allreduce_point(8, m, t, algorithm));
      measured.push_back(allreduce_point(8, m, t, algorithm));  // a repeat: one point, 2 samples
    }
  }
  const Validation v = validate_collectives(measured, fabric);
  ASSERT_EQ(v.points.size(), 8u);
  EXPECT_TRUE(v.skipped.empty());
  for (const ValidationPoint& p : v.points) {
    EXPECT_NEAR(p.relative_error, 1.0 / 1.1 - 1.0, 1e-12);
    EXPECT_EQ(p.samples, 2);
    EXPECT_EQ(MeasuredAlgorithm::model(p.modelled), p.algorithm);
    const bool latency = p.latency_s > p.bandwidth_s;
    EXPECT_EQ(p.regime, latency ? ValidationRegime::kLatencyBound
                                : ValidationRegime::kBandwidthBound);
  }
  EXPECT_EQ(v.points[0].regime, ValidationRegime::kLatencyBound);    // 8 B
  EXPECT_EQ(v.points[7].regime, ValidationRegime::kBandwidthBound);  // 64 MiB
  ASSERT_EQ(v.summaries.size(), 6u);
  EXPECT_EQ(v.summaries[0].group, "all");
  EXPECT_EQ(v.summaries[0].points, 8);
  EXPECT_NEAR(v.summaries[0].median_abs_error, 1.0 - 1.0 / 1.1, 1e-12);
  EXPECT_NEAR(v.summaries[0].worst_error, 1.0 / 1.1 - 1.0, 1e-12);
  EXPECT_EQ(v.summaries[1].name, "ring");
  EXPECT_EQ(v.summaries[2].name, "recursive-doubling");
  EXPECT_EQ(v.summaries[3].group, "ranks");
  EXPECT_EQ(v.summaries[3].name, "8");
  EXPECT_EQ(v.summaries[3].points, 8);
  EXPECT_EQ(v.summaries[4].name, "latency-bound");
  EXPECT_EQ(v.summaries[5].name, "bandwidth-bound");
}

// Pooled samples of one point that disagree: each point's spread is its slowest sample over
// its fastest, and the warning counts the points beyond 1.5x and names the worst.
TEST(SampleSpreads, PooledPointsThatDisagreeAreWarnedOf) {
  const Link link{kAlpha, kBandwidth, 0, 0};
  const Topology fabric = flat_topology(2, link);
  std::vector<CollectivePoint> measured;
  // 8 B: 1x and 2x the model; 4 KiB: 1x and 1.4x; 1 MiB: one sample, and a second of 0 s
  // (below the clock), which does not count.
  const auto model = [&](double m) {
    return collective_cost(Op::kAllreduce, parse_algorithm("ring"), 8, m, link).total_s;
  };
  measured.push_back(allreduce_point(8, 8, model(8), "ring"));
  measured.push_back(allreduce_point(8, 8, 2 * model(8), "ring"));
  measured.push_back(allreduce_point(8, 4096, model(4096), "ring"));
  measured.push_back(allreduce_point(8, 4096, 1.4 * model(4096), "ring"));
  measured.push_back(allreduce_point(8, 1048576, model(1048576), "ring"));
  const Validation v = validate_collectives(measured, fabric);
  ASSERT_EQ(v.points.size(), 3u);
  EXPECT_DOUBLE_EQ(v.points[0].spread, 2.0);
  EXPECT_DOUBLE_EQ(v.points[1].spread, 1.4);
  EXPECT_DOUBLE_EQ(v.points[2].spread, 1.0);
  const std::vector<SampleSpread> spreads = validation_spreads(v);
  ASSERT_EQ(spreads.size(), 3u);
  EXPECT_EQ(spreads[0].where, "allreduce ring N=8 8 B");
  const std::optional<std::string> w = spread_warning("collective", spreads);
  ASSERT_TRUE(w.has_value());
  EXPECT_TRUE(contains(*w, "collective samples disagree: at 1 of 2 pooled points")) << *w;
  EXPECT_TRUE(contains(*w, "worst 2.00x, allreduce ring N=8 8 B, 2 samples")) << *w;
  // Within the factor, or a single sample however slow: no warning.
  EXPECT_FALSE(spread_warning("collective", std::vector<SampleSpread>{{2, 1.5, "a"}}));
  EXPECT_FALSE(spread_warning("collective", std::vector<SampleSpread>{{1, 9.0, "b"}}));

  // A ping-pong fit over pooled files: each size's spread, named by its size.
  std::vector<PingPongPoint> pp;
  for (const double m : {0.0, 1024.0, 1048576.0}) {
    for (const double f : {1.0, m == 1024.0 ? 3.0 : 1.1}) {
      PingPongPoint p;
      p.bytes = m;
      p.one_way_median_s = f * (kAlpha + m / kBandwidth);
      pp.push_back(p);
    }
  }
  const PiecewiseFit fit = fit_piecewise(pp, {}, 1);
  const std::vector<SampleSpread> sizes = fit_spreads(fit);
  ASSERT_EQ(sizes.size(), 3u);
  EXPECT_NEAR(sizes[1].spread, 3.0, 1e-12);
  EXPECT_NEAR(sizes[2].spread, 1.1, 1e-12);
  const std::optional<std::string> pw = spread_warning("ping-pong", sizes);
  ASSERT_TRUE(pw.has_value());
  EXPECT_TRUE(contains(*pw, "at 1 of 3 pooled points")) << *pw;
  EXPECT_TRUE(contains(*pw, "worst 3.00x, 1.02 KB, 2 samples")) << *pw;
}

// Per rank count: the model 10% pessimistic at 4 ranks and 50% at 16 gives those errors
// there, and the overall median between them.
TEST(ValidateCollectives, ErrorsPerRankCount) {
  const Link link{kAlpha, kBandwidth, 0, 0};
  const Topology fabric = flat_topology(2, link);
  std::vector<CollectivePoint> measured;
  for (const std::int64_t n : {4, 16}) {
    const double slower = n == 4 ? 1.1 : 1.5;
    for (const double m : {8.0, 1048576.0}) {
      const double t =
          collective_cost(Op::kAllreduce, parse_algorithm("ring"), n, m, link).total_s / slower;
      measured.push_back(allreduce_point(n, m, t, "ring"));
    }
  }
  const Validation v = validate_collectives(measured, fabric);
  std::vector<const ValidationSummary*> per_ranks;
  for (const ValidationSummary& s : v.summaries) {
    if (s.group == "ranks") per_ranks.push_back(&s);
  }
  ASSERT_EQ(per_ranks.size(), 2u);
  EXPECT_EQ(per_ranks[0]->name, "4");
  EXPECT_EQ(per_ranks[0]->points, 2);
  EXPECT_NEAR(per_ranks[0]->median_abs_error, 0.1, 1e-12);
  EXPECT_EQ(per_ranks[1]->name, "16");
  EXPECT_NEAR(per_ranks[1]->worst_abs_error, 0.5, 1e-12);
  EXPECT_NEAR(v.summaries[0].median_abs_error, 0.3, 1e-12);  // between 0.1 and 0.5
}

TEST(ValidateCollectives, LibraryIsComparedWithTheModelsBest) {
  const Link link{kAlpha, kBandwidth, 0, 0};
  const Topology fabric = flat_topology(2, link);
  const std::vector<CollectivePoint> measured{allreduce_point(64, 4096, 20e-6)};
  const Validation v = validate_collectives(measured, fabric);
  ASSERT_EQ(v.points.size(), 1u);
  const auto specs = applicable_algorithms(Op::kAllreduce, flat_topology(64, link));
  const auto best = rank_algorithms(Op::kAllreduce, specs, 4096, flat_topology(64, link)).front();
  EXPECT_TRUE(v.points[0].algorithm.is_library());
  EXPECT_EQ(v.points[0].modelled, best.algorithm);
  EXPECT_DOUBLE_EQ(v.points[0].predicted_s, best.total_s);
  EXPECT_DOUBLE_EQ(v.points[0].relative_error, (best.total_s - 20e-6) / 20e-6);
}

// A library call of a series run by Open MPI is priced as Open MPI 4.1's fixed rules pick
// (select.h): at 2 ranks, 1 MiB, Rabenseifner, not the model's cheapest; --selector mpi keeps
// the cheapest, and ompi applies to a series that names no library.
TEST(ValidateCollectives, TheLibraryOfTheSeriesPicksTheAlgorithm) {
  const Link link{kAlpha, kBandwidth, 0, 0};
  const Topology fabric = flat_topology(2, link);
  std::vector<CollectivePoint> measured{allreduce_point(2, 1048576, 1e-4)};
  measured[0].series = 0;
  std::vector<MeasurementSeries> series(1);
  series[0].label = "coll.jsonl: scalewall-mpi collective";
  series[0].ranks = 2;
  series[0].mpi_library = "Open MPI v4.1.4, package: Debian OpenMPI";
  const LibraryChoice choice = library_choice(Selector::kOpenMpi, Op::kAllreduce, 2, 1048576);
  ASSERT_TRUE(choice.modelled.has_value());
  EXPECT_EQ(choice.modelled->algorithm, Algorithm::kRabenseifner);
  const double expected =
      collective_cost(Op::kAllreduce, *choice.modelled, 1048576, fabric).total_s;
  const Validation v = validate_collectives(measured, fabric, {}, series);
  ASSERT_EQ(v.points.size(), 1u);
  EXPECT_EQ(v.points[0].rules, "ompi");
  EXPECT_EQ(v.points[0].modelled_name, "ompi rabenseifner");
  EXPECT_DOUBLE_EQ(v.points[0].predicted_s, expected);
  const Validation cheapest =
      validate_collectives(measured, fabric, {}, series, ValidationSelector::kMpi);
  EXPECT_TRUE(cheapest.points[0].rules.empty());
  const auto specs = applicable_algorithms(Op::kAllreduce, fabric);
  EXPECT_DOUBLE_EQ(cheapest.points[0].predicted_s,
                   rank_algorithms(Op::kAllreduce, specs, 1048576, fabric).front().total_s);
  series[0].mpi_library.clear();
  EXPECT_TRUE(validate_collectives(measured, fabric, {}, series).points[0].rules.empty());
  EXPECT_EQ(validate_collectives(measured, fabric, {}, series, ValidationSelector::kOpenMpi)
                .points[0]
                .predicted_s,
            expected);
}

// The rules count elements of the size the log gives: where 4-byte and 8-byte elements lead
// MPICH's rules to different picks (its Rabenseifner needs count >= pof2), a point of 8-byte
// elements is priced by the 8-byte pick, and a point whose log gives none by the 4-byte one.
TEST(ValidateCollectives, TheRulesCountTheLogsElements) {
  for (const auto& [selector, library] : {std::pair{Selector::kMpich, "MPICH Version: 3.2"}}) {
    std::optional<std::pair<std::int64_t, double>> found;
    for (std::int64_t p = 2; p <= (1 << 20) && !found; p = p * 2 + (p % 3 == 0 ? 1 : 0)) {
      for (double m = 8; m <= 67108864 && !found; m *= 2) {
        const LibraryChoice four = library_choice(selector, Op::kAllreduce, p, m, 4);
        const LibraryChoice eight = library_choice(selector, Op::kAllreduce, p, m, 8);
        if (four.modelled && eight.modelled &&
            four.modelled->algorithm != eight.modelled->algorithm) {
          found = std::pair{p, m};
        }
      }
    }
    ASSERT_TRUE(found.has_value()) << library;
    const auto [ranks, bytes] = *found;
    const Topology fabric = flat_topology(ranks, Link{kAlpha, kBandwidth, 0, 0});
    std::vector<MeasurementSeries> series(1);
    series[0].ranks = ranks;
    series[0].mpi_library = library;
    for (const double element : {8.0, 0.0}) {
      std::vector<CollectivePoint> measured{allreduce_point(ranks, bytes, 1e-4)};
      measured[0].element_bytes = element;
      const LibraryChoice expected =
          library_choice(selector, Op::kAllreduce, ranks, bytes, element > 0 ? element : 4.0);
      const Validation v = validate_collectives(measured, fabric, {}, series);
      ASSERT_EQ(v.points.size(), 1u);
      EXPECT_EQ(v.points[0].modelled_name,
                std::string(selector_name(selector)) + " " +
                    std::string(algorithm_name(expected.modelled->algorithm)))
          << library << ", " << ranks << " ranks, " << bytes << " B, element " << element;
    }
  }
}

// validate prices each point with its calls' own element size: a 2-rank ring of one 8-byte
// element sends 8 B per step (collective_cost with element_bytes 8), and a point whose file
// names no element divides the bytes freely.
TEST(ValidateCollectives, APointsElementSizeRoundsItsSteps) {
  const Topology fabric = flat_topology(2, Link{kAlpha, kBandwidth, 0, 0});
  for (const double element : {8.0, 0.0}) {
    std::vector<CollectivePoint> measured{allreduce_point(2, 8, 1e-6, "ring")};
    measured[0].element_bytes = element;
    const Validation v = validate_collectives(measured, fabric);
    ASSERT_EQ(v.points.size(), 1u);
    CostOptions options;
    options.element_bytes = element;
    EXPECT_EQ(v.points[0].predicted_s,
              collective_cost(Op::kAllreduce, {Algorithm::kRing}, 2, 8, fabric.inter, options)
                  .total_s)
        << element;
    EXPECT_NEAR(v.points[0].predicted_s,
                2 * (kAlpha + (element > 0 ? 8.0 : 4.0) / kBandwidth), 1e-18)
        << element;
  }
}

// A library's call pays for the work buffers its code allocates (LibraryChoice::work_buffers)
// at the fabric's allocation cost: Open MPI's Rabenseifner allocates m per call and writes
// half of it.
TEST(ValidateCollectives, TheLibrarysWorkBuffersAtTheAllocationCost) {
  constexpr double kM = 64.0 * 1024 * 1024;
  Topology fabric = flat_topology(2, Link{kAlpha, kBandwidth, 0, 0});
  fabric.alloc.s_per_byte = 0.001e-9;
  fabric.alloc.above.above[0] = {33554432, 0.5e-9};
  fabric.alloc.above.count = 1;
  CostOptions options;
  use_fabric_local_costs(options, fabric);
  std::vector<CollectivePoint> measured{allreduce_point(2, kM, 0.1)};
  measured[0].series = 0;
  std::vector<MeasurementSeries> series(1);
  series[0].ranks = 2;
  series[0].mpi_library = "Open MPI v4.1.4";
  const LibraryChoice choice = library_choice(Selector::kOpenMpi, Op::kAllreduce, 2, kM);
  ASSERT_EQ(choice.work_buffers, (std::vector<WorkBuffer>{{kM, kM / 2}}));
  const double plain = collective_cost(Op::kAllreduce, *choice.modelled, kM, fabric).total_s;
  const Validation v = validate_collectives(measured, fabric, options, series);
  ASSERT_EQ(v.points.size(), 1u);
  EXPECT_DOUBLE_EQ(v.points[0].predicted_s, plain + kM / 2 * 0.5e-9);
  // The hand-written algorithms allocate nothing inside the call.
  measured[0].algorithm = parse_measured_algorithm("rabenseifner");
  EXPECT_DOUBLE_EQ(validate_collectives(measured, fabric, options, series).points[0].predicted_s,
                   plain);
}

TEST(ValidateCollectives, LeavesOutWhatItCannotScore) {
  const Topology fabric = flat_topology(2, Link{});
  std::vector<CollectivePoint> measured{
      allreduce_point(0, 4096, 1e-5),                 // unknown ranks
      allreduce_point(1, 4096, 1e-7),                 // one rank
      allreduce_point(4, 0, 3e-8),                    // zero bytes
      allreduce_point(4, 4096, 1e-5, "bine-tree"),    // not a model algorithm
      allreduce_point(4, 4096, 1e-5, "bruck"),        // does not implement all-reduce
      allreduce_point(4, 4096, 1e-5, "ring"),         // kept
  };
  measured.push_back(allreduce_point(4, 8192, 1e-5, "ring"));
  measured.back().verified = false;                   // a wrong result
  const Validation v = validate_collectives(measured, fabric);
  ASSERT_EQ(v.points.size(), 1u);
  EXPECT_EQ(v.skipped.size(), 6u);
  EXPECT_EQ(v.points_skipped, 6);

  const std::vector<CollectivePoint> nothing{allreduce_point(1, 4096, 1e-7)};
  const std::string e = input_error_of([&] { validate_collectives(nothing, fabric); });
  EXPECT_TRUE(contains(e, "no measured collective point left to validate")) << e;
  EXPECT_TRUE(contains(e, "one rank")) << e;
}

// Zero-byte library calls of one op at several rank counts: one reason, naming that op's
// MPI call, with the number of points it covers; a hand-written algorithm's zero-length
// messages still pay the latency terms, so its zero-byte point is scored.
TEST(ValidateCollectives, ZeroByteReasonNamesTheOpsCallOnceWithItsCount) {
  const Link link{kAlpha, kBandwidth, 0, 0};
  const Topology fabric = flat_topology(2, link);
  std::vector<CollectivePoint> measured;
  for (const std::int64_t ranks : {2, 4, 8}) {
    CollectivePoint zero = allreduce_point(ranks, 0, 3e-8);
    zero.op = Op::kBroadcast;
    measured.push_back(zero);
    CollectivePoint big = allreduce_point(ranks, 1 << 20, 1e-4);
    big.op = Op::kBroadcast;
    measured.push_back(big);
  }
  measured.push_back(allreduce_point(4, 0, 4e-5, "ring"));
  const Validation v = validate_collectives(measured, fabric);
  ASSERT_EQ(v.skipped.size(), 1u);
  EXPECT_EQ(v.points_skipped, 3);
  const std::string& why = v.skipped[0];
  EXPECT_TRUE(contains(why, "MPI_Bcast")) << why;
  EXPECT_FALSE(contains(why, "MPI_Allreduce")) << why;
  EXPECT_TRUE(contains(why, "broadcast library, 3 points at 2, 4 and 8 ranks, 0 B: ")) << why;
  ASSERT_EQ(v.points.size(), 4u);
  EXPECT_EQ(v.points.back().bytes, 0.0);
  EXPECT_EQ(v.points.back().algorithm.name(), "ring");
  EXPECT_DOUBLE_EQ(v.points.back().predicted_s,
                   collective_cost(Op::kAllreduce, parse_algorithm("ring"), 4, 0, link).total_s);
}
TEST(ValidateCollectives, FabricThatCannotHoldTheRanks) {
  Topology fabric = flat_topology(16, Link{});
  fabric.nodes = 2;
  fabric.ranks_per_node = 8;
  const std::vector<CollectivePoint> measured{allreduce_point(12, 4096, 1e-5, "ring"),
                                              allreduce_point(16, 4096, 1e-5, "ring")};
  const Validation v = validate_collectives(measured, fabric);
  ASSERT_EQ(v.points.size(), 1u);
  EXPECT_EQ(v.points[0].ranks, 16);
  ASSERT_EQ(v.skipped.size(), 1u);
  EXPECT_TRUE(contains(v.skipped[0], "does not fit 12 ranks")) << v.skipped[0];
}

// ---- the calibrated fabric ----

std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "scalewall_calibrate_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

TEST(CalibratedFabric, WrittenFileLoadsAndRoundTrips) {
  const HockneyFit fit = fit_hockney(synthetic(noise));
  const PiecewiseFit one = fit_piecewise(synthetic(noise), {}, 1);
  const Topology t = calibrated_topology(one, std::nullopt, 4, "lab \"shm\"");
  EXPECT_FALSE(t.nominal);
  EXPECT_EQ(t.ranks(), 4);
  const std::string path = temp_path("fabric.toml");
  const std::string text = fabric_toml(t, one, {"a.jsonl (scalewall-mpi pingpong)"});
  EXPECT_TRUE(contains(text, "# Calibrated by scalewall calibrate")) << text;
  EXPECT_TRUE(contains(text, "#   a.jsonl (scalewall-mpi pingpong)")) << text;
  EXPECT_TRUE(contains(text, "nominal = false")) << text;
  write_output_file(path, text);
  const Topology back = load_fabric_file(path);
  EXPECT_EQ(back.name, "lab \"shm\"");
  EXPECT_FALSE(back.nominal);
  EXPECT_EQ(back.nodes, 4);
  EXPECT_EQ(back.ranks_per_node, 1);
  EXPECT_EQ(back.nics_per_node, 1);
  EXPECT_EQ(back.inter.alpha_s, fit.alpha_s);
  EXPECT_EQ(back.inter.bandwidth_Bps, fit.bandwidth_Bps);
  EXPECT_EQ(back.intra.alpha_s, fit.alpha_s);
  EXPECT_EQ(back.intra.bandwidth_Bps, fit.bandwidth_Bps);
  EXPECT_EQ(back.inter.gap_s, 0.0);
  // Scaled to any rank count it costs exactly the flat closed form on the fitted link.
  for (const std::int64_t n : {2, 3, 8, 13}) {
    const Topology scaled = scaled_topology(back, n);
    for (const double m : {0.0, 1.0, 4096.0, 1e8}) {
      const auto spec = parse_algorithm("ring");
      EXPECT_DOUBLE_EQ(collective_cost(Op::kAllreduce, spec, m, scaled).total_s,
                       collective_cost(Op::kAllreduce, spec, n, m, fit.link()).total_s);
    }
  }
}

// An exchange fit becomes both links' exchange regimes, is written as [<link>.exchange]
// tables with its quality, and reads back to the same regimes.
TEST(CalibratedFabric, ExchangeRegimesRoundTrip) {
  const PiecewiseFit one = fit_piecewise(synthetic(noise), {}, 1);
  std::vector<PingPongPoint> exchanges = synthetic(noise);
  for (PingPongPoint& p : exchanges) p.one_way_median_s *= 1.4;
  const PiecewiseFit exchange = fit_piecewise(exchanges, {}, 1);
  const Topology t = with_exchange_fit(calibrated_topology(one, std::nullopt, 2, "x"), exchange);
  ASSERT_EQ(t.intra.exchange_count, 1u);
  EXPECT_DOUBLE_EQ(t.intra.exchange[0].alpha_s, exchange.regimes[0].fit.alpha_s);
  EXPECT_NEAR(t.inter.exchange[0].alpha_s, 1.4 * one.regimes[0].fit.alpha_s,
              1e-9 * one.regimes[0].fit.alpha_s);
  const std::string text = fabric_toml(t, one, {}, nullptr, &exchange);
  EXPECT_TRUE(contains(text, "[intra.exchange]")) << text;
  EXPECT_TRUE(contains(text, "[inter.exchange]")) << text;
  EXPECT_TRUE(contains(text, "# Exchanges (both ranks send at once)")) << text;
  const Topology back = parse_fabric(text, "x.toml");
  ASSERT_EQ(back.inter.exchange_count, 1u);
  EXPECT_EQ(back.inter.exchange[0], t.inter.exchange[0]);
  EXPECT_EQ(back.intra.exchange[0], t.intra.exchange[0]);
  // Priced on the written fabric, a 2-rank ring costs two exchanges of m/2.
  const double m = 1e6;
  const CollectiveCost ring =
      collective_cost(Op::kAllreduce, parse_algorithm("ring"), m, scaled_topology(back, 2));
  const LinkRegime& r = back.inter.exchange[0];
  EXPECT_DOUBLE_EQ(ring.total_s, 2 * (r.alpha_s + m / 2 / r.bandwidth_Bps));
}

// Pairs by their records' hosts: inside a node, across nodes, or not said. Three ranks on two
// hosts (0, 1 on a; 2 on b): 2 nodes, 2 ranks per node at most.
TEST(CalibratedFabric, PairsArePlacedByTheirHosts) {
  const auto pair = [](std::int64_t from, std::int64_t to, std::string a, std::string b) {
    PingPongPoint p;
    p.from = from;
    p.to = to;
    p.from_host = std::move(a);
    p.to_host = std::move(b);
    p.bytes = 8;
    p.one_way_median_s = 1e-6;
    return p;
  };
  const std::vector<PingPongPoint> points = {pair(0, 1, "a", "a"), pair(0, 2, "a", "b"),
                                             pair(1, 2, "a", "b"), pair(5, 6, "", "")};
  EXPECT_EQ(pair_placement(points[0]), PairPlacement::kInside);
  EXPECT_EQ(pair_placement(points[1]), PairPlacement::kAcross);
  EXPECT_EQ(pair_placement(points[3]), PairPlacement::kUnknown);
  EXPECT_EQ(placed_points(points, PairPlacement::kAcross).size(), 2u);
  EXPECT_EQ(placed_points(points, PairPlacement::kInside).size(), 1u);
  EXPECT_TRUE(mixed_placement(points));
  EXPECT_FALSE(mixed_placement(std::span(points).subspan(1)));
  EXPECT_EQ(placed_layout(points), (std::pair<std::int64_t, std::int64_t>{2, 2}));
  EXPECT_EQ(placed_layout(std::span(points).subspan(3)),
            (std::pair<std::int64_t, std::int64_t>{2, 1}));
  // The run's context counts ranks no pair measured: 4 hosts of 8 ranks.
  MeasurementRun run;
  run.command = "pingpong";
  run.ranks_per_host = 8;
  run.hosts = {"a", "a", "b", "b", "c", "c", "d", "d"};
  EXPECT_EQ(placed_layout(points, std::span(&run, 1)),
            (std::pair<std::int64_t, std::int64_t>{4, 8}));
  run.command = "collective";  // another mode's run says nothing of the ping-pong's
  EXPECT_EQ(placed_layout(points, std::span(&run, 1)),
            (std::pair<std::int64_t, std::int64_t>{2, 2}));
  const std::optional<std::string> w = placement_warning("exchange", points);
  ASSERT_TRUE(w.has_value());
  EXPECT_TRUE(contains(*w, "the exchange pools 1 rank pair inside a node (such as 0-1) and 2 "
                           "across nodes (such as 0-2)"))
      << *w;
  EXPECT_FALSE(placement_warning("exchange", std::span(points).subspan(1)).has_value());
}

// fit_links fits each set it has apart and names it to the fitter: a mixed ping-pong as two
// links (0.3 us inside a node, 2 us across), its exchanges split the same way; unmixed, or with
// two levels not allowed, one link over every pair; an empty set not at all.
TEST(CalibratedFabric, LinksAreFittedPerPlacement) {
  const auto sweep = [](std::int64_t from, std::int64_t to, const char* b, double alpha_s) {
    std::vector<PingPongPoint> out;
    for (double bytes = 1; bytes <= 1048576; bytes *= 4) {
      PingPongPoint p;
      p.from = from;
      p.to = to;
      p.from_host = "a";
      p.to_host = b;
      p.bytes = bytes;
      p.one_way_median_s = alpha_s + bytes / 10e9;
      out.push_back(p);
    }
    return out;
  };
  std::vector<PingPongPoint> link = sweep(0, 1, "a", 0.3e-6);
  const std::vector<PingPongPoint> across = sweep(0, 2, "b", 2e-6);
  link.insert(link.end(), across.begin(), across.end());
  const std::vector<PingPongPoint> exchanges = sweep(0, 1, "a", 0.5e-6);  // inside only
  std::vector<std::string> named;
  const PointFitter fit = [&](std::span<const PingPongPoint> points, const std::string& what) {
    named.push_back(what);
    return fit_piecewise(points, {}, 1);
  };
  const LinkFits two = fit_links(link, exchanges, true, fit);
  EXPECT_TRUE(two.two_level);
  EXPECT_EQ(named, (std::vector<std::string>{"the ping-pong's pairs across nodes",
                                             "the ping-pong's pairs inside a node",
                                             "the exchange times inside a node"}));
  ASSERT_TRUE(two.link && two.intra && two.intra_exchange);
  EXPECT_FALSE(two.exchange.has_value());  // no exchange across nodes
  EXPECT_NEAR(two.link->single.alpha_s, 2e-6, 1e-12);
  EXPECT_NEAR(two.intra->single.alpha_s, 0.3e-6, 1e-12);
  EXPECT_NEAR(two.intra_exchange->single.alpha_s, 0.5e-6, 1e-12);

  named.clear();
  const LinkFits flat = fit_links(link, exchanges, false, fit);
  EXPECT_FALSE(flat.two_level);
  EXPECT_EQ(named, (std::vector<std::string>{"the ping-pong", "the exchange times"}));
  EXPECT_TRUE(flat.link && flat.exchange);
  EXPECT_FALSE(flat.intra || flat.intra_exchange);

  named.clear();
  const LinkFits none = fit_links({}, {}, true, fit);
  EXPECT_TRUE(named.empty());
  EXPECT_FALSE(none.two_level || none.link || none.exchange);
}

// A two-level fabric: the node's fit as [intra], the network's as [inter], 2 nodes x 2 ranks,
// one NIC per node; written and read back to the same links, with each fit's comment.
TEST(CalibratedFabric, TwoLevelRoundTrips) {
  std::vector<PingPongPoint> inside = synthetic(noise);
  for (PingPongPoint& p : inside) p.one_way_median_s = 0.3e-6 + p.bytes / 10e9;
  const PiecewiseFit intra = fit_piecewise(inside, {}, 1);
  const PiecewiseFit inter = fit_piecewise(synthetic(noise), {}, 1);
  const Topology t = calibrated_two_level(intra, inter, std::nullopt, 2, 2, "two");
  EXPECT_EQ(t.nodes, 2);
  EXPECT_EQ(t.ranks_per_node, 2);
  EXPECT_EQ(t.nics_per_node, 1);
  EXPECT_NEAR(t.intra.alpha_s, 0.3e-6, 1e-12);
  EXPECT_NEAR(t.intra.bandwidth_Bps, 10e9, 1);
  EXPECT_DOUBLE_EQ(t.inter.alpha_s, inter.single.alpha_s);
  const std::string text = fabric_toml(t, inter, {}, nullptr, nullptr, nullptr, nullptr,
                                       nullptr, nullptr, &intra);
  EXPECT_TRUE(contains(text, "# [inter], the network: the ping-pong's pairs across nodes."))
      << text;
  EXPECT_TRUE(contains(text, "# A two-level fabric: 2 ranks per node")) << text;
  const Topology back = parse_fabric(text, "two.toml");
  EXPECT_EQ(back.ranks_per_node, 2);
  EXPECT_EQ(back.intra.alpha_s, t.intra.alpha_s);
  EXPECT_EQ(back.inter.bandwidth_Bps, t.inter.bandwidth_Bps);
  EXPECT_THROW(calibrated_two_level(intra, inter, std::nullopt, 2, 0, "x"), InputError);
}

TEST(CalibratedFabric, LogGPGapRoundTrips) {
  const HockneyFit fit = fit_hockney(synthetic(noise));
  const PiecewiseFit one = fit_piecewise(synthetic(noise), {}, 1);
  const Topology t = calibrated_topology(one, 0.3e-6, 2, "calibrated");
  EXPECT_EQ(t.inter.gap_s, 0.3e-6);
  EXPECT_EQ(t.inter.overhead_s, 0.0);
  const std::string path = temp_path("fabric_loggp.toml");
  write_output_file(path, fabric_toml(t, one, {}));
  const Topology back = load_fabric_file(path);
  EXPECT_EQ(back.inter.alpha_s, fit.alpha_s);
  EXPECT_EQ(back.inter.gap_s, 0.3e-6);
  EXPECT_EQ(back.inter.overhead_s, 0.0);
  EXPECT_DOUBLE_EQ(back.inter.bandwidth_Bps, fit.bandwidth_Bps);
}

TEST(CalibratedFabric, Refusals) {
  const PiecewiseFit fit = fit_piecewise(synthetic(noise), {}, 1);
  EXPECT_TRUE(contains(input_error_of([&] { calibrated_topology(fit, std::nullopt, 0, "x"); }),
                       "at least 1 node"));
}

// Whatever the names hold (a newline or quotes in a file name, bytes that are not UTF-8, a
// DEL), the written file is valid TOML and reads back with the same name.
TEST(CalibratedFabric, AnyNameOrSourceKeepsTheFileValid) {
  const PiecewiseFit fit = fit_piecewise(synthetic(noise), {}, 1);
  const std::string odd = "a\nname = \"x\"\r\n[inter]\t\\ \"q\" \x7f \x01 \u00e9";
  const Topology t = calibrated_topology(fit, std::nullopt, 2, odd);
  const std::vector<std::string> sources = {
      "run\nalpha = 1.jsonl (scalewall-mpi pingpong)", "bad\xff\xfe.txt (osu)",
      "q\"uote\\.txt (imb)", "\x1b[31m.txt (osu)"};
  const std::string text = fabric_toml(t, fit, sources);
  // Every comment stays on its line: the newline in the first source is written as \n.
  EXPECT_TRUE(contains(text, "#   run\\nalpha = 1.jsonl (scalewall-mpi pingpong)\n")) << text;
  EXPECT_TRUE(contains(text, "#   bad\\xFF\\xFE.txt (osu)\n")) << text;
  EXPECT_TRUE(contains(text, "#   \\x1B[31m.txt (osu)\n")) << text;
  const Topology back = parse_fabric(text, "written.toml");
  EXPECT_EQ(back.name, odd);
  EXPECT_EQ(back.inter.alpha_s, fit.single.alpha_s);
  EXPECT_EQ(back.nodes, 2);
  // Bytes that are not UTF-8 in the name become U+FFFD, the file stays readable.
  const Topology bad_utf8 = calibrated_topology(fit, std::nullopt, 2, "x\xc3(\xed\xa0\x80y");
  EXPECT_EQ(parse_fabric(fabric_toml(bad_utf8, fit, {}), "w.toml").name,
            "x\uFFFD(\uFFFD\uFFFD\uFFFDy");
}

// ---- the fit's quality ----

TEST(FitQuality, AGoodFitIsNotFlagged) {
  EXPECT_TRUE(fit_quality_warnings(fit_hockney(synthetic(noise))).empty());
}

// A fit like the issue's: R^2 0.87, residuals of +77% and -37% that alternate (no run).
TEST(FitQuality, LowRSquaredIsFlaggedWithItsThreshold) {
  HockneyFit fit = fit_hockney(synthetic(noise));
  fit.r_squared = 0.87;
  for (std::size_t i = 0; i < fit.points.size(); ++i) {
    fit.points[i].relative_residual = i % 2 == 0 ? 0.77 : -0.37;
  }
  const std::vector<std::string> w = fit_quality_warnings(fit);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w[0], "R^2 0.87 is below 0.95")) << w[0];
  EXPECT_TRUE(contains(w[0], "+77%")) << w[0];
  EXPECT_TRUE(contains(w[0], "-37%")) << w[0];
}

// Rendezvous above 32 KiB: 4 us more per message, a step the straight line cannot follow.
// R^2 stays at 0.959, above the threshold, but the residuals keep one sign over the four
// sizes past the switch (+40%, +29%, +16%, +6%).
TEST(FitQuality, AProtocolSwitchShowsAsALongRunOfOneSign) {
  auto points = synthetic(noise);
  for (PingPongPoint& p : points) {
    if (p.bytes > 32768) p.one_way_median_s += 4e-6;
  }
  const HockneyFit fit = fit_hockney(points);
  EXPECT_GE(fit.r_squared, kPoorFitRSquared);
  const std::vector<std::string> w = fit_quality_warnings(fit);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(
      contains(w[0], "one sign over 4 consecutive sizes, 65.5 KB .. 524 KB (+40% .. +6%;"))
      << w[0];
  // The written fabric carries the warning as a comment, and still reads back.
  const PiecewiseFit one = fit_piecewise(points, {}, 1);
  const Topology t = calibrated_topology(one, std::nullopt, 2, "switch");
  const std::string text = fabric_toml(t, one, {});
  EXPECT_TRUE(contains(text, "# WARNING: " + w[0] + "\n")) << text;
  EXPECT_EQ(parse_fabric(text, "w.toml").inter.alpha_s, fit.alpha_s);
  EXPECT_FALSE(
      contains(fabric_toml(t, fit_piecewise(synthetic(noise), {}, 1), {}), "WARNING"));
}


// ---- the reduction cost ----

ReductionPoint reduction(double bytes, double seconds) {
  ReductionPoint p;
  p.bytes = bytes;
  p.ranks = 2;
  p.iterations = 10;
  p.time_min_s = p.time_median_s = p.time_max_s = p.slowest_rank_median_s = seconds;
  return p;
}

// Times exactly 0.5 ns per byte: gamma 0.5 ns, 2 GB/s, R^2 1, no warning.
TEST(FitGamma, ExactRateIsRecovered) {
  std::vector<ReductionPoint> points;
  for (double b = 1024; b <= 64.0 * 1024 * 1024; b *= 4) {
    points.push_back(reduction(b, 0.5e-9 * b));
  }
  points.push_back(reduction(0, 1e-7));  // a zero-byte size is left out
  const GammaFit fit = fit_gamma(points);
  EXPECT_NEAR(fit.gamma_s_per_byte, 0.5e-9, 1e-21);
  EXPECT_NEAR(fit.rate_Bps, 2e9, 1e-3);
  EXPECT_NEAR(fit.r_squared, 1.0, 1e-12);
  EXPECT_EQ(fit.ranks, 2);
  EXPECT_EQ(fit.points.size(), 9u);
  EXPECT_TRUE(gamma_fit_warnings(fit).empty());
}

// Least squares through the origin: the single rate gamma = sum(b t) / sum(b^2), which the
// large sizes decide; with a cache regime (fast up to 1 MiB, 5x slower above) the sweep splits
// into two rates, each exact, and no warning remains.
TEST(FitGamma, ACacheRegimeBecomesItsOwnRate) {
  std::vector<ReductionPoint> points;
  double sbt = 0;
  double sbb = 0;
  for (double b = 1024; b <= 64.0 * 1024 * 1024; b *= 2) {
    const double t = b * (b <= 1048576 ? 0.1e-9 : 0.5e-9);
    points.push_back(reduction(b, t));
    sbt += b * t;
    sbb += b * b;
  }
  const GammaFit fit = fit_gamma(points);
  EXPECT_DOUBLE_EQ(fit.gamma_s_per_byte, sbt / sbb);
  EXPECT_GT(fit.gamma_s_per_byte, 0.45e-9);  // one rate: the memory regime, not the cache one
  ASSERT_EQ(fit.regimes.size(), 2u) << fit.rule;
  EXPECT_NEAR(fit.regimes[0].gamma_s_per_byte, 0.1e-9, 1e-21);
  EXPECT_NEAR(fit.regimes[1].gamma_s_per_byte, 0.5e-9, 1e-21);
  EXPECT_EQ(fit.regimes[0].max_bytes, 1048576);
  EXPECT_DOUBLE_EQ(fit.regimes[1].from_bytes, std::sqrt(1048576.0 * 2097152.0));
  EXPECT_NEAR(fit.r_squared, 1.0, 1e-12);
  EXPECT_TRUE(gamma_fit_warnings(fit).empty());
  // A step's gamma follows the bytes it reduces.
  CostOptions options;
  options.gamma_s_per_byte = fit.first_gamma();
  options.gamma_above = fit.regimes_above();
  EXPECT_NEAR(options.gamma_at(65536), 0.1e-9, 1e-21);
  EXPECT_NEAR(options.gamma_at(8e6), 0.5e-9, 1e-21);
  // The ring all-reduce of 16 MiB over 8 ranks reduces 2 MiB chunks: the slow rate; of 4 MiB,
  // 512 KiB chunks: the fast one.
  const auto compute = [&](double m) {
    return collective_cost(Op::kAllreduce, {Algorithm::kRing}, 8, m, kDefaultLink, options)
        .compute_s;
  };
  EXPECT_NEAR(compute(16777216), 7 * 2097152 * 0.5e-9, 1e-15);
  EXPECT_NEAR(compute(4194304), 7 * 524288 * 0.1e-9, 1e-15);
}

TEST(FitGamma, NeedsTwoSizes) {
  const std::vector<ReductionPoint> one = {reduction(4096, 1e-6), reduction(4096, 1.1e-6)};
  EXPECT_THROW(fit_gamma(one), InputError);
}

// The calibrated fabric carries gamma and reads back to the same value.
TEST(FitGamma, TheFabricFileCarriesGamma) {
  const PiecewiseFit link = fit_piecewise(synthetic([](std::size_t) { return 1.0; }));
  std::vector<ReductionPoint> points;
  for (double b = 1024; b <= 1048576; b *= 4) points.push_back(reduction(b, 0.25e-9 * b));
  const GammaFit gamma = fit_gamma(points);
  Topology t = calibrated_topology(link, std::nullopt, 4, "calibrated");
  t.gamma_s_per_byte = gamma.gamma_s_per_byte;
  const std::string toml = fabric_toml(t, link, {"a.jsonl"}, &gamma);
  EXPECT_NE(toml.find("gamma = "), std::string::npos) << toml;
  const Topology back = parse_fabric(toml, "calibrated.toml");
  EXPECT_DOUBLE_EQ(back.gamma_s_per_byte, t.gamma_s_per_byte);
  // Without a gamma fit the file has no gamma, and reads back as 0.
  const Topology plain = parse_fabric(fabric_toml(t, link, {"a.jsonl"}), "plain.toml");
  EXPECT_EQ(plain.gamma_s_per_byte, 0.0);
}


// ---- the piecewise link ----

// Exact times of three regimes at 1 B .. 64 MiB: eager (1 us, 5 GB/s) below 4 KiB,
// rendezvous (4 us, 20 GB/s) up to 512 KiB, then 15 GB/s (out of cache) from 1 MiB.
std::vector<PingPongPoint> three_regime_points() {
  std::vector<PingPongPoint> points;
  for (double m = 1; m <= 67108864; m *= 2) {
    PingPongPoint p;
    p.bytes = m;
    p.one_way_median_s = m < 4096 ? 1e-6 + m / 5e9 : m < 1048576 ? 4e-6 + m / 20e9 : 4e-6 + m / 15e9;
    p.one_way_min_s = p.one_way_max_s = p.one_way_median_s;
    points.push_back(p);
  }
  return points;
}

TEST(PiecewiseFit, NoiseAloneKeepsOneRegime) {
  const PiecewiseFit fit = fit_piecewise(synthetic(noise));
  ASSERT_EQ(fit.regimes.size(), 1u);
  const HockneyFit one = fit_hockney(synthetic(noise));
  EXPECT_EQ(fit.regimes[0].fit.alpha_s, one.alpha_s);
  EXPECT_EQ(fit.regimes[0].fit.bandwidth_Bps, one.bandwidth_Bps);
  EXPECT_EQ(fit.regimes[0].from_bytes, 0.0);
  EXPECT_FALSE(fit.link().piecewise());
  EXPECT_TRUE(contains(fit.rule, "1 regime: the least BIC over 1 .. ")) << fit.rule;
}

TEST(PiecewiseFit, ExactRegimesAreRecovered) {
  const PiecewiseFit fit = fit_piecewise(three_regime_points());
  ASSERT_EQ(fit.regimes.size(), 3u) << fit.rule;
  const double alpha[] = {1e-6, 4e-6, 4e-6};
  const double bandwidth[] = {5e9, 20e9, 15e9};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(fit.regimes[i].fit.alpha_s, alpha[i], 1e-9 * alpha[i]) << i;
    EXPECT_NEAR(fit.regimes[i].fit.bandwidth_Bps, bandwidth[i], 1e-9 * bandwidth[i]) << i;
    EXPECT_NEAR(fit.regimes[i].fit.r_squared, 1.0, 1e-9) << i;
  }
  // Each regime starts between the last size of the one before and its own first size.
  EXPECT_GT(fit.regimes[1].from_bytes, 2048);
  EXPECT_LE(fit.regimes[1].from_bytes, 4096);
  EXPECT_GT(fit.regimes[2].from_bytes, 524288);
  EXPECT_LE(fit.regimes[2].from_bytes, 1048576);
  // The lines 4 us + m/20 GB/s and 4 us + m/15 GB/s cross only at 0 B: the geometric mean.
  EXPECT_DOUBLE_EQ(fit.regimes[2].from_bytes, std::sqrt(524288.0 * 1048576.0));
  // The link prices every measured size as measured.
  const Link link = fit.link();
  for (const PingPongPoint& p : three_regime_points()) {
    EXPECT_NEAR(message_cost(link, p.bytes).total_s, p.one_way_median_s,
                1e-9 * p.one_way_median_s) << p.bytes;
  }
  EXPECT_TRUE(piecewise_fit_warnings(fit).empty());
  // The criterion fell from one to three regimes.
  EXPECT_LT(fit.bic[2], fit.bic[1]);
  EXPECT_LT(fit.bic[1], fit.bic[0]);
}

TEST(PiecewiseFit, AProtocolSwitchInNoisyTimesBecomesTwoRegimes) {
  auto points = synthetic(noise);
  for (PingPongPoint& p : points) {
    if (p.bytes > 32768) p.one_way_median_s += 4e-6;
  }
  const PiecewiseFit fit = fit_piecewise(points);
  ASSERT_EQ(fit.regimes.size(), 2u) << fit.rule;
  EXPECT_EQ(fit.regimes[0].fit.max_bytes, 32768);
  EXPECT_EQ(fit.regimes[1].fit.min_bytes, 65536);
  EXPECT_NEAR(fit.regimes[0].fit.alpha_s, kAlpha, 0.02 * kAlpha);
  EXPECT_NEAR(fit.regimes[1].fit.bandwidth_Bps, kBandwidth, 0.02 * kBandwidth);
  EXPECT_TRUE(piecewise_fit_warnings(fit).empty());
  // The one line over every size keeps its warning; the written fabric carries the regimes.
  EXPECT_FALSE(fit_quality_warnings(fit.single).empty());
  const Topology t = calibrated_topology(fit, std::nullopt, 2, "switch");
  const std::string text = fabric_toml(t, fit, {});
  EXPECT_TRUE(contains(text, "[[inter.regimes]]")) << text;
  EXPECT_TRUE(contains(text, "# Size regimes (segmented least squares; 2 regimes")) << text;
  EXPECT_FALSE(contains(text, "WARNING")) << text;
  const Topology back = parse_fabric(text, "w.toml");
  ASSERT_EQ(back.inter.regime_count(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.inter.regime(i), t.inter.regime(i)) << i;
    EXPECT_EQ(back.intra.regime(i), t.intra.regime(i)) << i;
  }
}

// Where the rate halves from 2 MiB up (the buffers leave a cache) the times grow faster than
// the sizes: the unconstrained line through 2-16 MiB crosses zero, so that run's line holds
// alpha at its 1 ns floor, and the fit gives the slow sizes a regime of their own at the slow
// rate instead of stretching the fast one over them.
TEST(PiecewiseFit, ARateThatFallsWithSizeGetsARegimeWithAlphaAtItsFloor) {
  auto points = synthetic([](std::size_t) { return 1.0; });
  for (PingPongPoint& p : points) {
    if (p.bytes >= 2097152) p.one_way_median_s = p.bytes / (kBandwidth / 2);
  }
  const PiecewiseFit fit = fit_piecewise(points);
  ASSERT_GE(fit.regimes.size(), 2u) << fit.rule;
  const HockneyFit& top = fit.regimes.back().fit;
  EXPECT_EQ(top.min_bytes, 2097152) << fit.rule;
  EXPECT_EQ(top.alpha_s, 1e-9);
  // 1 ns of alpha against 168 us or more: the slow rate to within 10 parts in a million.
  EXPECT_NEAR(top.bandwidth_Bps, kBandwidth / 2, 1e-5 * kBandwidth / 2);
  EXPECT_GT(top.r_squared, 0.999999);
  const Link link = fit.link();
  for (const PingPongPoint& p : points) {
    EXPECT_NEAR(message_cost(link, p.bytes).total_s, p.one_way_median_s,
                1e-3 * p.one_way_median_s) << p.bytes;
  }
  // One line over the fast sizes and the slow ones misprices the largest by far more.
  EXPECT_LT(message_cost(fit.single.link(), 16777216).total_s,
            0.8 * points.back().one_way_median_s);
}

TEST(PiecewiseFit, AGivenCountIsKeptAndImpossibleCountsRefused) {
  const PiecewiseFit two = fit_piecewise(three_regime_points(), {}, 2);
  EXPECT_EQ(two.regimes.size(), 2u);
  EXPECT_TRUE(contains(two.rule, "2 regimes, as given")) << two.rule;
  EXPECT_TRUE(contains(input_error_of([] { fit_piecewise(three_regime_points(), {}, 0); }),
                       "0 regimes: a link has 1 to 10"));
  EXPECT_TRUE(contains(input_error_of([] { fit_piecewise(three_regime_points(), {}, 11); }),
                       "11 regimes"));
  // Four sizes admit at most two regimes of two sizes each.
  const std::vector<PingPongPoint> all = three_regime_points();
  const std::vector<PingPongPoint> four(all.begin(), all.begin() + 4);
  const std::string e = input_error_of([&] { fit_piecewise(four, {}, 3); });
  EXPECT_TRUE(contains(e, "3 regimes do not fit")) << e;
  // With gap: every regime carries it.
  const Topology t = calibrated_topology(two, 0.3e-6, 2, "g");
  EXPECT_EQ(t.inter.regime(1).gap_s, 0.3e-6);
  EXPECT_EQ(t.inter.regime(0).gap_s, 0.3e-6);
}


// A flat regime of latency-bound sizes with 1% noise has a low R^2 and no warning; a regime
// whose times bend away from its line (20% slower above 1 MiB) keeps its warning, named by
// regime.
TEST(PiecewiseFit, WarningsNameTheRegimeAndSpareAFlatOne) {
  std::vector<PingPongPoint> flat;
  std::vector<PingPongPoint> bent;
  for (double m = 1; m <= 67108864; m *= 2) {
    PingPongPoint p;
    p.bytes = m;
    const std::size_t i = flat.size() + bent.size();
    p.one_way_median_s = m <= 1024 ? (2e-6 + m / 80e9) * noise(i) * noise(i + 3)
                                   : (10e-6 + m / 10e9) * (m > 1048576 ? 1.2 : 1.0);
    p.one_way_min_s = p.one_way_max_s = p.one_way_median_s;
    (m <= 1024 ? flat : bent).push_back(p);
  }
  PiecewiseFit fit;
  fit.regimes.push_back({0.0, fit_hockney(flat)});
  fit.regimes.push_back({1448.0, fit_hockney(bent)});
  EXPECT_LT(fit.regimes[0].fit.r_squared, kPoorFitRSquared);
  EXPECT_FALSE(fit_quality_warnings(fit.regimes[0].fit).empty());
  const std::vector<std::string> w = piecewise_fit_warnings(fit);
  ASSERT_FALSE(w.empty());
  for (const std::string& line : w) {
    EXPECT_TRUE(line.starts_with("regime 2 of 2 (2.05 KB .. 67.1 MB): ")) << line;
  }
}


TEST(FitGamma, TheFabricFileCarriesTheRateRegimes) {
  std::vector<ReductionPoint> points;
  for (double b = 1024; b <= 64.0 * 1024 * 1024; b *= 2) {
    points.push_back(reduction(b, b * (b <= 1048576 ? 0.1e-9 : 0.5e-9)));
  }
  const GammaFit gamma = fit_gamma(points);
  const PiecewiseFit link = fit_piecewise(synthetic([](std::size_t) { return 1.0; }));
  Topology t = calibrated_topology(link, std::nullopt, 2, "calibrated");
  t.gamma_s_per_byte = gamma.first_gamma();
  t.gamma_above = gamma.regimes_above();
  const std::string text = fabric_toml(t, link, {"r.jsonl"}, &gamma);
  EXPECT_TRUE(contains(text, "[[gamma_regimes]]")) << text;
  const Topology back = parse_fabric(text, "g.toml");
  EXPECT_EQ(back.gamma_s_per_byte, t.gamma_s_per_byte);
  ASSERT_EQ(back.gamma_above.count, 1u);
  EXPECT_EQ(back.gamma_above.above[0], t.gamma_above.above[0]);
  EXPECT_TRUE(contains(input_error_of([] {
    parse_fabric("gamma = 1\n[[gamma_regimes]]\nfrom = 0\ngamma = 1\n"
                 "[intra]\nalpha = 1\nbandwidth = 1\n[inter]\nalpha = 1\nbandwidth = 1\n",
                 "g.toml");
  }), "[gamma_regimes[1]] from 0 B is not above"));
}

// The copy fit: the same rates through the origin, named "copy" in its warnings, and carried
// by the fabric file as copy and [[copy_regimes]] (after gamma's keys) that read back exactly.
TEST(FitGamma, TheCopyFitAndItsFabricKeys) {
  std::vector<ReductionPoint> reductions;
  std::vector<ReductionPoint> copies;
  for (double b = 1024; b <= 64.0 * 1024 * 1024; b *= 2) {
    reductions.push_back(reduction(b, b * (b <= 1048576 ? 0.1e-9 : 0.5e-9)));
    copies.push_back(reduction(b, b * (b <= 4194304 ? 0.05e-9 : 0.3e-9)));
  }
  const GammaFit gamma = fit_gamma(reductions);
  const GammaFit copy = fit_gamma(copies, "copy");
  EXPECT_EQ(copy.what, "copy");
  ASSERT_EQ(copy.regimes.size(), 2u) << copy.rule;
  EXPECT_NEAR(copy.regimes[1].gamma_s_per_byte, 0.3e-9, 1e-21);
  const PiecewiseFit link = fit_piecewise(synthetic([](std::size_t) { return 1.0; }));
  Topology t = calibrated_topology(link, std::nullopt, 2, "calibrated");
  t.gamma_s_per_byte = gamma.first_gamma();
  t.gamma_above = gamma.regimes_above();
  t.copy = copy.copy_cost();
  const std::string text = fabric_toml(t, link, {"r.jsonl"}, &gamma, nullptr, &copy);
  EXPECT_TRUE(contains(text, "[[copy_regimes]]")) << text;
  EXPECT_LT(text.find("copy = "), text.find("[[gamma_regimes]]")) << text;
  const Topology back = parse_fabric(text, "c.toml");
  EXPECT_EQ(back.copy.s_per_byte, t.copy.s_per_byte);
  ASSERT_EQ(back.copy.above.count, 1u);
  EXPECT_EQ(back.copy.above.above[0], t.copy.above.above[0]);
  EXPECT_EQ(back.gamma_above.above[0], t.gamma_above.above[0]);
  // A poor fit warns in the copy's words.
  GammaFit poor = copy;
  poor.r_squared = 0.5;
  const std::vector<std::string> w = gamma_fit_warnings(poor);
  ASSERT_FALSE(w.empty());
  EXPECT_TRUE(contains(w.front(), "poor copy fit: R^2 0.50")) << w.front();
  EXPECT_TRUE(contains(input_error_of([] {
    parse_fabric("copy = -1\n[intra]\nalpha = 1\nbandwidth = 1\n[inter]\nalpha = 1\n"
                 "bandwidth = 1\n",
                 "c.toml");
  }), "copy (line 1): negative time '-1' is not allowed"));
}

// Reads a written fabric back and checks that one two-regime local rate (a rate and one
// regime above it) came through exactly.
Topology read_back_rate(const std::string& text, const Topology& written,
                        CopyCost Topology::*rate) {
  const Topology back = parse_fabric(text, "s.toml");
  const CopyCost& got = back.*rate;
  const CopyCost& want = written.*rate;
  EXPECT_EQ(got.s_per_byte, want.s_per_byte);
  EXPECT_EQ(got.above.count, 1u);
  if (got.above.count == 1u) {
    EXPECT_EQ(got.above.above[0], want.above.above[0]);
  }
  return back;
}

// The sent-buffer reduction fit: written as sent_reduction and [[sent_reduction_regimes]],
// read back exactly into the fabric, whose cost options then price recursive doubling's
// reductions with it; a negative rate in a file is refused, naming the key.
TEST(FitGamma, TheSentReductionFitAndItsFabricKeys) {
  std::vector<ReductionPoint> sent;
  for (double b = 1024; b <= 64.0 * 1024 * 1024; b *= 2) {
    sent.push_back(reduction(b, b * (b <= 2097152 ? 0.25e-9 : 0.1e-9)));
  }
  const GammaFit fit = fit_gamma(sent, "sent reduction");
  ASSERT_EQ(fit.regimes.size(), 2u) << fit.rule;
  EXPECT_NEAR(fit.regimes[0].gamma_s_per_byte, 0.25e-9, 1e-21);
  EXPECT_NEAR(fit.regimes[1].gamma_s_per_byte, 0.1e-9, 1e-21);
  const PiecewiseFit link = fit_piecewise(synthetic([](std::size_t) { return 1.0; }));
  Topology t = calibrated_topology(link, std::nullopt, 2, "calibrated");
  t.sent_reduction = fit.copy_cost();
  const std::string text =
      fabric_toml(t, link, {"r.jsonl"}, nullptr, nullptr, nullptr, nullptr, &fit);
  EXPECT_TRUE(contains(text, "[[sent_reduction_regimes]]")) << text;
  const Topology back = read_back_rate(text, t, &Topology::sent_reduction);
  CostOptions options;
  use_fabric_local_costs(options, back);
  const double m = 8.0 * 1024 * 1024;
  const CollectiveCost rd =
      collective_cost(Op::kAllreduce, {Algorithm::kRecursiveDoubling}, 2, m, back.intra, options);
  EXPECT_NEAR(rd.compute_s, m * 0.1e-9, 1e-15);
  EXPECT_TRUE(contains(input_error_of([] {
    parse_fabric("sent_reduction = -1\n[intra]\nalpha = 1\nbandwidth = 1\n[inter]\nalpha = 1\n"
                 "bandwidth = 1\n",
                 "s.toml");
  }), "sent_reduction (line 1): negative time '-1' is not allowed"));
}

// The sent-buffer exchange fit: written as sent_exchange and [[sent_exchange_regimes]], read
// back exactly into the fabric, whose cost options then price the ring all-reduce's
// all-gather half with it; a negative rate in a file is refused, naming the key.
TEST(FitGamma, TheSentExchangeFitAndItsFabricKeys) {
  MeasurementSet set;
  for (double b = 1024; b <= 64.0 * 1024 * 1024; b *= 2) {
    set.sent_exchanges.push_back(reduction(b, b * (b <= 2097152 ? 0.1e-9 : 0.3e-9)));
  }
  const LocalRateFits fits = fit_local_rates(set);
  ASSERT_TRUE(fits.sent_exchange.has_value());
  EXPECT_FALSE(fits.sent_reduction.has_value());
  const GammaFit& fit = *fits.sent_exchange;
  EXPECT_EQ(fit.what, "sent exchange");
  ASSERT_EQ(fit.regimes.size(), 2u) << fit.rule;
  EXPECT_NEAR(fit.regimes[0].gamma_s_per_byte, 0.1e-9, 1e-21);
  EXPECT_NEAR(fit.regimes[1].gamma_s_per_byte, 0.3e-9, 1e-21);
  const PiecewiseFit link = fit_piecewise(synthetic([](std::size_t) { return 1.0; }));
  const Topology t = with_local_rates(calibrated_topology(link, std::nullopt, 2, "calibrated"),
                                      fits);
  EXPECT_EQ(t.sent_exchange.s_per_byte, fit.copy_cost().s_per_byte);
  const std::string text = fabric_toml(t, link, {"r.jsonl"}, nullptr, nullptr, nullptr, nullptr,
                                       nullptr, &fit);
  EXPECT_TRUE(contains(text, "[[sent_exchange_regimes]]")) << text;
  const Topology back = read_back_rate(text, t, &Topology::sent_exchange);
  CostOptions options;
  use_fabric_local_costs(options, back);
  const double m = 16.0 * 1024 * 1024;  // 2 ranks: one all-gather step of m/2 = 8 MiB
  const CollectiveCost with =
      collective_cost(Op::kAllreduce, {Algorithm::kRing}, 2, m, back.intra, options);
  const CollectiveCost without =
      collective_cost(Op::kAllreduce, {Algorithm::kRing}, 2, m, back.intra, CostOptions{});
  const double link_term = without.bandwidth_s / 2.0;  // one step of each half
  EXPECT_NEAR(with.bandwidth_s,
              link_term + std::max(link_term, m / 2 * 0.3e-9 - without.latency_s / 2.0),
              1e-12);
  EXPECT_TRUE(contains(input_error_of([] {
    parse_fabric("sent_exchange = -1\n[intra]\nalpha = 1\nbandwidth = 1\n[inter]\nalpha = 1\n"
                 "bandwidth = 1\n",
                 "s.toml");
  }), "sent_exchange (line 1): negative time '-1' is not allowed"));
}

// A set's local rates are fitted where it holds records of them and left out where it holds
// none; the fabric takes each fitted one at the rate the fit gives, and keeps the others.
TEST(FitLocalRates, EachRateFromItsOwnRecordsTheOthersKept) {
  MeasurementSet set;
  for (double b = 1024; b <= 1024.0 * 1024; b *= 2) {
    set.reductions.push_back(reduction(b, b * 0.2e-9));
    set.allocs.push_back(reduction(b, b * 0.05e-9));
  }
  const LocalRateFits fits = fit_local_rates(set);
  ASSERT_TRUE(fits.gamma.has_value());
  ASSERT_TRUE(fits.alloc.has_value());
  EXPECT_FALSE(fits.copy.has_value());
  EXPECT_FALSE(fits.sent_reduction.has_value());
  EXPECT_EQ(fits.gamma->what, "reduction");
  EXPECT_EQ(fits.alloc->what, "alloc");
  EXPECT_NEAR(fits.gamma->first_gamma(), 0.2e-9, 1e-21);
  EXPECT_NEAR(fits.alloc->first_gamma(), 0.05e-9, 1e-21);

  Topology before = calibrated_topology(fit_piecewise(synthetic([](std::size_t) { return 1.0; })),
                                        std::nullopt, 2, "calibrated");
  before.copy.s_per_byte = 0.3e-9;  // no copy records: this stays
  const Topology after = with_local_rates(before, fits);
  EXPECT_EQ(after.gamma_s_per_byte, fits.gamma->first_gamma());
  EXPECT_EQ(after.alloc.s_per_byte, fits.alloc->first_gamma());
  EXPECT_EQ(after.copy.s_per_byte, 0.3e-9);
  EXPECT_TRUE(after.sent_reduction.free());
  // One size is not a rate: the fit refuses it, naming what it fits.
  MeasurementSet one;
  one.copies.push_back(reduction(4096, 1e-6));
  EXPECT_THROW(fit_local_rates(one), InputError);
}

// The local passes' ranks per host become the fabric's working_set_ranks: from their run's
// context where it says (here 4 ranks on one host), else the ranks of the passes; calibrate
// writes the key and it reads back. A set without local passes leaves it 0 (off).
TEST(FitLocalRates, TheirRanksPerHostAreTheWorkingSetRanks) {
  MeasurementSet set;
  for (double b = 1024; b <= 1024.0 * 1024; b *= 2) set.copies.push_back(reduction(b, b * 1e-11));
  const PiecewiseFit link = fit_piecewise(synthetic([](std::size_t) { return 1.0; }));
  const Topology base = calibrated_topology(link, std::nullopt, 2, "calibrated");
  EXPECT_EQ(fit_local_rates(set).ranks_per_host, 2);  // no run says: the passes' 2 ranks
  MeasurementRun run;
  run.command = "reduce";
  run.ranks_per_host = 4;
  set.runs.push_back(run);
  const LocalRateFits fits = fit_local_rates(set);
  EXPECT_EQ(fits.ranks_per_host, 4);
  const Topology t = with_local_rates(base, fits);
  EXPECT_EQ(t.working_set_ranks, 4);
  const std::string text =
      fabric_toml(t, link, {"r.jsonl"}, nullptr, nullptr, &*fits.copy);
  EXPECT_TRUE(contains(text, "\nworking_set_ranks = 4\n")) << text;
  EXPECT_EQ(parse_fabric(text, "w.toml").working_set_ranks, 4);
  // The passes' smallest size (1 KiB) is the local floor, written and read back.
  EXPECT_EQ(fits.min_bytes, 1024.0);
  EXPECT_EQ(t.local_min_bytes, 1024.0);
  EXPECT_TRUE(contains(text, "\nlocal_min_bytes = 1024    # 1.02 KB\n")) << text;
  EXPECT_EQ(parse_fabric(text, "w.toml").local_min_bytes, 1024.0);
  EXPECT_EQ(with_local_rates(base, fit_local_rates(MeasurementSet{})).local_min_bytes, 0.0);
  EXPECT_EQ(fit_local_rates(MeasurementSet{}).ranks_per_host, 0);
  EXPECT_EQ(with_local_rates(base, fit_local_rates(MeasurementSet{})).working_set_ranks, 0);
  EXPECT_FALSE(contains(fabric_toml(base, link, {"r.jsonl"}), "working_set_ranks")) << text;
}

// A fresh work buffer costs next to nothing while the allocator reuses its heap, and each
// page's first touch above its mapping threshold (glibc: 32 MiB at most): the fit finds the
// two rates, calibrate writes them as `alloc` and [[alloc_regimes]], and they read back.
TEST(FitGamma, TheAllocationFitAndItsFabricKeys) {
  constexpr double kThreshold = 32.0 * 1024 * 1024;
  constexpr double kReused = 0.001e-9;  // s/B: the heap's memory, already mapped
  constexpr double kFaulted = 0.5e-9;   // s/B: 2 us per 4 KiB page
  std::vector<ReductionPoint> allocs;
  for (double b = 1024; b <= 128.0 * 1024 * 1024; b *= 2) {
    allocs.push_back(reduction(b, b * (b < kThreshold ? kReused : kFaulted)));
  }
  const GammaFit alloc = fit_gamma(allocs, "alloc");
  EXPECT_EQ(alloc.what, "alloc");
  ASSERT_EQ(alloc.regimes.size(), 2u) << alloc.rule;
  EXPECT_NEAR(alloc.regimes[0].gamma_s_per_byte, kReused, 1e-24);
  EXPECT_NEAR(alloc.regimes[1].gamma_s_per_byte, kFaulted, 1e-21);
  EXPECT_GT(alloc.regimes[1].from_bytes, kThreshold / 2);
  EXPECT_LE(alloc.regimes[1].from_bytes, kThreshold);
  const PiecewiseFit link = fit_piecewise(synthetic([](std::size_t) { return 1.0; }));
  Topology t = calibrated_topology(link, std::nullopt, 2, "calibrated");
  t.alloc = alloc.copy_cost();
  const std::string text = fabric_toml(t, link, {"r.jsonl"}, nullptr, nullptr, nullptr, &alloc);
  EXPECT_TRUE(contains(text, "[[alloc_regimes]]")) << text;
  EXPECT_LT(text.find("alloc = "), text.find("[[alloc_regimes]]")) << text;
  const Topology back = parse_fabric(text, "a.toml");
  EXPECT_EQ(back.alloc.s_per_byte, t.alloc.s_per_byte);
  ASSERT_EQ(back.alloc.above.count, 1u);
  EXPECT_EQ(back.alloc.above.above[0], t.alloc.above.above[0]);
  GammaFit poor = alloc;
  poor.r_squared = 0.5;
  const std::vector<std::string> w = gamma_fit_warnings(poor);
  ASSERT_FALSE(w.empty());
  EXPECT_TRUE(contains(w.front(), "poor alloc fit: R^2 0.50")) << w.front();
  EXPECT_TRUE(contains(w.front(), "first touch")) << w.front();
  EXPECT_TRUE(contains(input_error_of([] {
    parse_fabric("alloc = -1\n[intra]\nalpha = 1\nbandwidth = 1\n[inter]\nalpha = 1\n"
                 "bandwidth = 1\n",
                 "a.toml");
  }), "alloc (line 1): negative time '-1' is not allowed"));
}

}  // namespace
}  // namespace scalewall

namespace scalewall {
namespace {

// An nccl-tests log alone (16 A100s in 2 nodes, tests/data/nccl/SOURCES.md): its all-reduce
// read as 2(N-1) ring steps of m/N gives a link on which the ring reproduces every measured
// size from one byte per rank up, within the fit's residuals.
TEST(RingEquivalent, TheRingOnTheFittedLinkIsTheMeasuredAllReduce) {
  MeasurementSet set;
  read_measurement_file(
      std::string(SCALEWALL_SOURCE_DIR) + "/tests/data/nccl/a100_2node_16gpu_oci-hpc-oke.txt", set);
  const std::vector<PingPongPoint> steps = ring_equivalent_points(set);
  ASSERT_EQ(steps.size(), 30u);  // 31 sizes, 8 B below one byte per rank
  EXPECT_DOUBLE_EQ(steps.front().bytes, 1.0);  // 16 B on 16 ranks
  EXPECT_DOUBLE_EQ(steps.front().one_way_median_s * 30, set.collectives[1].time_median_s);
  const PiecewiseFit fit = fit_piecewise(steps);
  ASSERT_GE(fit.regimes.size(), 2u);
  const Topology t = calibrated_topology(fit, std::nullopt, 16, "ring");
  // The regimes' own residuals (relative least squares through 2-5 sizes each).
  constexpr double kRingTolerance = 0.02;
  for (const CollectivePoint& p : set.collectives) {
    if (p.bytes < 16) continue;
    const CollectiveCost c = collective_cost(Op::kAllreduce, {Algorithm::kRing, Algorithm::kRing},
                                             p.bytes, t);
    EXPECT_NEAR(c.total_s / p.time_median_s, 1.0, kRingTolerance) << p.bytes;
  }
}

TEST(RingEquivalent, RefusesWhatIsNotOneRingSeries) {
  MeasurementSet none;
  EXPECT_TRUE(contains(input_error_of([&] { ring_equivalent_points(none); }),
                       "no collective series to fit a ring-equivalent link to"));
  MeasurementSet two;
  const std::string dir = std::string(SCALEWALL_SOURCE_DIR) + "/tests/data/nccl/";
  read_measurement_file(dir + "a100_2node_16gpu_oci-hpc-oke.txt", two);
  read_measurement_file(dir + "h100_2node_16gpu_ocitutorials.txt", two);
  EXPECT_TRUE(contains(input_error_of([&] { ring_equivalent_points(two); }),
                       "2 collective series ("));
}

}  // namespace
}  // namespace scalewall
