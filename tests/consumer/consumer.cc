// Uses one function of each kind from the installed library and checks it against its closed
// form: Amdahl's law, a ring all-reduce on a flat alpha-beta link, and a fabric read from
// memory. Exit status 0 when all agree, 1 with the disagreement on stderr otherwise.
#include <cmath>
#include <cstdio>

#include "scalewall/base/units.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/scaling.h"

namespace {

int failures = 0;

void expect_near(const char* what, double got, double want) {
  if (!(std::fabs(got - want) <= 1e-12 * std::fabs(want))) {
    std::fprintf(stderr, "%s: got %.17g, want %.17g\n", what, got, want);
    ++failures;
  }
}

}  // namespace

int main() {
  // Amdahl: E(N) = 1 / (N s + 1 - s).
  expect_near("amdahl_efficiency(0.05, 8)", scalewall::amdahl_efficiency(0.05, 8),
              1.0 / (8 * 0.05 + 0.95));

  // Ring all-reduce of m bytes over N ranks: 2(N-1) alpha + 2(N-1)/N m / B.
  const double m = scalewall::parse_bytes("1GiB");
  expect_near("parse_bytes(1GiB)", m, 1073741824.0);
  const scalewall::Link link{2.5e-6, 25e9};
  const auto ring = scalewall::collective_cost(scalewall::Op::kAllreduce,
                                               scalewall::parse_algorithm("ring"), 8, m, link);
  expect_near("ring all-reduce, 8 ranks, 1 GiB", ring.total_s,
              2 * 7 * 2.5e-6 + 2.0 * 7 / 8 * m / 25e9);

  // A fabric file's text, read from memory.
  const scalewall::Topology fabric = scalewall::parse_fabric(
      "name = \"two-nodes\"\nnodes = 2\nranks_per_node = 4\n"
      "[intra]\nalpha = \"1us\"\nbandwidth = \"100GB/s\"\n"
      "[inter]\nalpha = \"5us\"\nbandwidth = \"10GB/s\"\n",
      "two-nodes.toml");
  expect_near("fabric ranks", static_cast<double>(fabric.ranks()), 8);

  if (failures == 0) std::puts("scalewall consumer: every check agrees");
  return failures == 0 ? 0 : 1;
}
