// Tests of scalewall/analysis/compare.h: matching by key, exact ratios, the verdict against
// the spread at its edges, the notes, and the refused inputs.
#include "scalewall/analysis/compare.h"

#include <gtest/gtest.h>

#include <cmath>

#include "scalewall/base/error.h"
#include "test_support.h"

namespace scalewall {
namespace {

CompareRun run_of(const std::string& label, std::vector<CollectivePoint> points, bool spread) {
  CompareRun run;
  run.label = label;
  run.measurements.collectives = std::move(points);
  run.has_spread = spread;
  return run;
}

CollectivePoint point(double bytes, double min_s, double median_s, double max_s,
                      const std::string& algorithm = "ring") {
  CollectivePoint p;
  p.bytes = bytes;
  p.time_min_s = min_s;
  p.time_median_s = median_s;
  p.time_max_s = max_s;
  p.ranks = 4;
  p.algorithm = parse_measured_algorithm(algorithm);
  return p;
}

TEST(Compare, RangesThatTouchAreWithinTheSpread) {
  // B's max equals A's min: not every repetition of B beat every one of A.
  const Comparison c = compare_runs({run_of("a", {point(8, 4, 5, 6)}, true),
                                     run_of("b", {point(8, 2, 3, 4)}, true)});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].ratio, 0.6);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kWithinSpread);
  const Comparison beyond = compare_runs({run_of("a", {point(8, 4, 5, 6)}, true),
                                          run_of("b", {point(8, 2, 3, 3.5)}, true)});
  EXPECT_EQ(beyond.rows[0].verdict, Verdict::kFasterBeyondSpread);
  EXPECT_EQ(verdict_name(beyond.rows[0].verdict), "faster beyond spread");
}

TEST(Compare, KeysMatchByAlgorithmAndSizeAndTheRestIsCounted) {
  const Comparison c = compare_runs(
      {run_of("a", {point(8, 1, 1, 1), point(8, 1, 2, 2, "library"), point(16, 1, 1, 1)}, true),
       run_of("b", {point(8, 1, 4, 4, "library"), point(32, 1, 1, 1)}, false)});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].variant, "library");
  EXPECT_EQ(c.rows[0].ratio, 2.0);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kNoSpread);
  EXPECT_FALSE(c.rows[0].min_s.has_value());
  ASSERT_EQ(c.notes.size(), 3u);
  EXPECT_EQ(c.notes[0], "b: the file records one time per size and no spread (min and max): "
                        "its differences are ratios only");
  EXPECT_EQ(c.notes[1], "b: 2 point(s) of a are not in it");
  EXPECT_EQ(c.notes[2], "b: 1 point(s) are not in a and are left out");
  ASSERT_EQ(c.geomean_ratio.size(), 2u);
  EXPECT_FALSE(c.geomean_ratio[0].has_value());
  EXPECT_EQ(*c.geomean_ratio[1], 2.0);
}

TEST(Compare, RepeatedKeysKeepTheFirstWithANote) {
  const Comparison c = compare_runs({run_of("a", {point(8, 1, 1, 1), point(8, 1, 9, 9)}, true),
                                     run_of("b", {point(8, 1, 3, 3)}, true)});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].baseline_s, 1.0);
  EXPECT_EQ(c.notes.front(), "a: 1 point(s) repeat a measurement and size seen earlier in the "
                             "file; compare keeps the first of each");
}

TEST(Compare, CalibrationSizesSpanALink) {
  const std::vector<double> sizes = calibration_sizes();
  ASSERT_EQ(sizes.size(), 17u);
  EXPECT_EQ(sizes[0], 0.0);
  EXPECT_EQ(sizes[1], 1.0);
  EXPECT_EQ(sizes[2], 4.0);
  EXPECT_EQ(sizes.back(), 1073741824.0);
}

TEST(Compare, RefusesOneInputAndMixedInputs) {
  EXPECT_THROW(compare_runs({run_of("a", {point(8, 1, 1, 1)}, true)}), InputError);
  CompareRun fabric;
  fabric.label = "f.toml";
  fabric.fabric = flat_topology(2, Link{});
  try {
    compare_runs({run_of("a", {point(8, 1, 1, 1)}, true), fabric});
    FAIL() << "mixed inputs were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.toml is a calibration and a a run"),
              std::string::npos)
        << e.what();
  }
}

// A ratio past the largest double is refused, naming the inputs and the figures, never a
// non-finite number on its way to the output.
TEST(Compare, ARatioBeyondTheLargestDoubleIsRefused) {
  CompareRun base;
  base.label = "base.toml";
  base.fabric = flat_topology(2, Link{1e-300, 1e9});
  CompareRun slow;
  slow.label = "slow.toml";
  slow.fabric = flat_topology(2, Link{1e308, 1e9});
  const std::string message = input_error_of([&] { compare_runs({base, slow}); });
  EXPECT_EQ(message,
            "slow.toml: inter of 0 B takes 1e+308 s against 1e-300 s in base.toml: the ratio is "
            "beyond the largest double");
  const std::string runs = input_error_of([&] {
    compare_runs({run_of("a", {point(8, 1e-300, 1e-300, 1e-300)}, true),
                  run_of("b", {point(8, 1e300, 1e300, 1e300)}, true)});
  });
  EXPECT_EQ(runs, "b: allreduce ring of 8 B takes 1e+300 s against 1e-300 s in a: the ratio is "
                  "beyond the largest double");
  // Within the fabric ranges every ratio is finite: 1e6 s against 1e-12 s.
  base.fabric = flat_topology(2, Link{1e-12, 1e15});
  slow.fabric = flat_topology(2, Link{1e6, 1});
  const Comparison c = compare_runs({base, slow});
  for (const CompareRow& r : c.rows) EXPECT_TRUE(std::isfinite(r.ratio)) << r.bytes;
  for (const CompareParameter& p : c.parameters) EXPECT_TRUE(std::isfinite(p.ratio)) << p.key;
}

}  // namespace
}  // namespace scalewall
