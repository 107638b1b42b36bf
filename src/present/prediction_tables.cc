// Implementation of scalewall/present/prediction_tables.h.
#include "scalewall/present/prediction_tables.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "scalewall/present/record_names.h"

namespace scalewall {

Table scaling_curve_table(const Prediction& p, TableWords words) {
  const bool page = words == TableWords::kPage;
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
               std::string(mechanism_name(r.binding)), step_collective_name(r.algorithm)},
              mark);
  }
  return t;
}

Table what_if_table(const WhatIf& w, TableWords words) {
  const bool page = words == TableWords::kPage;
  Table t{"remedies",
          {{"name", "remedy", Unit::kText},
           {"applicable", "applies", Unit::kText},
           {"step_s", "step", Unit::kSeconds},
           {"time_per_work_s", "time/work", Unit::kSeconds},
           {"efficiency", "efficiency", Unit::kFraction},
           {"gain", "gain", Unit::kRatio},
           {"binding", "then binds", Unit::kText},
           {"change", "change", Unit::kText}},
          {},
          {}};
  constexpr std::size_t kTimePerWork = 3;  // the column the page leaves out
  if (page) t.columns.erase(t.columns.begin() + kTimePerWork);
  const auto add = [&](const Remedy& r, std::string mark) {
    std::vector<Value> row;
    row.emplace_back(r.name);
    if (page) {
      row.emplace_back(std::string(r.applicable ? "yes" : "no"));
    } else {
      row.emplace_back(r.applicable);
    }
    row.emplace_back(r.step.step_s);
    if (!page) row.emplace_back(r.time_per_work_s);
    row.emplace_back(r.step.efficiency);
    row.emplace_back(r.gain);
    row.emplace_back(std::string(mechanism_name(r.step.binding)));
    row.emplace_back(r.change);
    t.add_row(std::move(row), std::move(mark));
  };
  add(w.baseline, "");
  const Remedy* first = first_remedy(w);
  for (const Remedy& r : w.remedies) {
    if (page) {
      add(r, &r == first ? "first to try" : "");
    } else {
      add(r, &r == first ? "<-- first" : gains_nothing(r) ? "(no gain)" : "");
    }
  }
  return t;
}

}  // namespace scalewall
