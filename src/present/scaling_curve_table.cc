// Implementation of scalewall/present/scaling_curve_table.h.
#include "scalewall/present/scaling_curve_table.h"

#include <fmt/format.h>

#include <string>

namespace scalewall {

Table scaling_curve_table(const Prediction& p, CurveWords words) {
  const bool page = words == CurveWords::kPage;
  Table t{"rows",
          {{"ranks", "ranks", Unit::kCount},
           {"compute_s", "compute", Unit::kSeconds},
           {"serial_s", "serial", Unit::kSeconds},
           {"communication_s", page ? "all-reduce" : "comm", Unit::kSeconds},
           {"exposed_communication_s", "exposed", Unit::kSeconds},
           {"variance_s", "variance", Unit::kSeconds},
           {"checkpoint_s", page ? "checkpoint" : "ckpt", Unit::kSeconds},
           {"step_s", "step", Unit::kSeconds},
           {"speedup", "speedup", Unit::kRatio},
           {"efficiency", "efficiency", Unit::kFraction},
           {"binding", "binding", Unit::kText},
           {"algorithm", "algorithm", Unit::kText}},
          {},
          {}};
  bool knee_marked = false;
  for (const StepTime& r : p.rows) {
    std::string mark;
    if (p.knee_ranks && !knee_marked && r.ranks >= *p.knee_ranks) {
      mark = fmt::format("{}knee at {} ranks", page ? "" : "<-- ", *p.knee_ranks);
      knee_marked = true;
    }
    t.add_row({r.ranks, r.compute_s, r.serial_s, r.communication_s, r.exposed_communication_s,
               r.variance_s, r.checkpoint_s, r.step_s, r.speedup, r.efficiency,
               std::string(mechanism_name(r.binding)), r.algorithm},
              mark);
  }
  return t;
}

}  // namespace scalewall
