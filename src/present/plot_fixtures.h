// src/present/plot_fixtures.h: the step rows and the strong-scaling prediction that the plot
// script tests (plot_test.cc) and the gnuplot runner's tests (platform/gnuplot_test.cc) draw.
#ifndef SCALEWALL_SRC_PRESENT_PLOT_FIXTURES_H_
#define SCALEWALL_SRC_PRESENT_PLOT_FIXTURES_H_

#include <cstdint>

#include "scalewall/analysis/predict.h"
#include "scalewall/model/step_model.h"

namespace scalewall::testing_fixtures {

inline StepTime Row(std::int64_t ranks, double compute, double comm, double comm_latency,
             double exposed, double ideal, double speedup, double efficiency) {
  StepTime t;
  t.ranks = ranks;
  t.compute_s = compute;
  t.communication_s = comm;
  t.communication_latency_s = comm_latency;
  t.exposed_communication_s = exposed;
  t.step_s = compute + exposed;
  t.ideal_step_s = ideal;
  t.speedup = speedup;
  t.efficiency = efficiency;
  return t;
}

// A strong-scaling curve with exact binary fractions, so the data lines are exact.
inline Prediction StrongPrediction() {
  Prediction p;
  p.mode = ScalingMode::kStrong;
  p.rows = {Row(1, 2.4, 0, 0, 0, 2.4, 1, 1), Row(2, 1.2, 0.5, 0.25, 0.5, 1.2, 1.5, 0.75),
            Row(4, 0.6, 0.5, 0.125, 0.5, 0.6, 2, 0.5), Row(8, 0.3, 1.0, 0.5, 0.5, 0.3, 3, 0.375)};
  p.knee_ranks = 3;
  p.target_efficiency = 0.5;
  p.max_ranks_at_target = 4;
  return p;
}

}  // namespace scalewall::testing_fixtures

#endif  // SCALEWALL_SRC_PRESENT_PLOT_FIXTURES_H_
