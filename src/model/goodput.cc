// Implementation of scalewall/model/goodput.h.
#include "scalewall/model/goodput.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

constexpr std::array<std::pair<WriteScope, std::string_view>, 3> kWriteScopes = {{
    {WriteScope::kNode, "node"},
    {WriteScope::kGpu, "gpu"},
    {WriteScope::kJob, "job"},
}};

}  // namespace

std::string_view write_scope_name(WriteScope scope) {
  for (const auto& [s, name] : kWriteScopes) {
    if (s == scope) return name;
  }
  SCALEWALL_CHECK(false && "unknown WriteScope");
  return {};
}

std::optional<WriteScope> parse_write_scope(std::string_view name) {
  for (const auto& [s, text] : kWriteScopes) {
    if (text == name) return s;
  }
  return std::nullopt;
}

double young_interval_s(double stall_s, double mtbf_s) {
  SCALEWALL_CHECK(stall_s >= 0 && mtbf_s > 0);
  return std::sqrt(2.0 * stall_s * mtbf_s);
}

double daly_interval_s(double stall_s, double mtbf_s) {
  SCALEWALL_CHECK(stall_s >= 0 && mtbf_s > 0);
  if (stall_s >= 2.0 * mtbf_s) return mtbf_s;
  const double x = stall_s / (2.0 * mtbf_s);
  return young_interval_s(stall_s, mtbf_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - stall_s;
}

double job_mtbf_s(double gpu_mtbf_s, std::int64_t gpus) {
  SCALEWALL_CHECK(gpus >= 1);
  return gpu_mtbf_s / static_cast<double>(gpus);
}

CheckpointCost checkpoint_cost(const CheckpointPlan& plan, double bytes, std::int64_t gpus,
                               std::int64_t gpus_per_node) {
  SCALEWALL_CHECK(bytes >= 0 && gpus >= 1 && gpus_per_node >= 1);
  SCALEWALL_CHECK(plan.write_bandwidth_Bps > 0 && plan.host_copy_Bps > 0);
  const double n = static_cast<double>(gpus);
  double writers = 1.0;
  switch (plan.write_scope) {
    case WriteScope::kNode:
      // A job smaller than a node is one node; a partly filled last node still writes.
      writers = std::ceil(n / static_cast<double>(gpus_per_node));
      break;
    case WriteScope::kGpu: writers = n; break;
    case WriteScope::kJob: writers = 1.0; break;
  }
  CheckpointCost c;
  c.bytes = bytes;
  c.write_s = bytes / (writers * plan.write_bandwidth_Bps);
  c.stall_s = plan.async ? bytes / n / plan.host_copy_Bps : c.write_s;
  return c;
}

Goodput goodput_of(const GoodputInputs& in) {
  for (const double v : {in.useful_s, in.interval_s, in.stall_s, in.exposed_write_s, in.mtbf_s,
                         in.restart_s}) {
    SCALEWALL_CHECK(std::isfinite(v) && v >= 0);
  }
  Goodput g;
  const double tau = in.interval_s;
  const double stall_share = tau > 0 ? in.stall_s / tau : 0.0;
  const double work_wall = in.useful_s * (1.0 + stall_share);  // W (1 + delta / tau)
  g.checkpoints = tau > 0 ? in.useful_s / tau : 0.0;
  g.stall_total_s = g.checkpoints * in.stall_s;
  if (in.mtbf_s <= 0) {
    g.wall_s = work_wall;
    g.goodput = 1.0 / (1.0 + stall_share);
    return g;
  }
  // Without checkpoints a failure goes back to the start: half the run on average.
  const double segment = tau > 0 ? tau : in.useful_s;
  const double per_failure = in.restart_s + segment / 2.0 + in.exposed_write_s;
  const double kept = 1.0 - per_failure / in.mtbf_s;
  if (!(kept > 0)) {
    g.finishes = false;
    g.goodput = 0.0;
    return g;
  }
  g.wall_s = work_wall / kept;
  g.goodput = kept / (1.0 + stall_share);
  g.expected_failures = g.wall_s / in.mtbf_s;
  g.failure_loss_s = g.expected_failures * per_failure;
  return g;
}

}  // namespace scalewall
