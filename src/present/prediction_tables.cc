// Implementation of scalewall/present/prediction_tables.h.
#include "scalewall/present/prediction_tables.h"

#include <fmt/format.h>

#include <algorithm>
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
    const bool cliff = std::any_of(p.cliffs.begin(), p.cliffs.end(),
                                   [&](const Cliff& c) { return c.ranks == r.ranks; });
    if (cliff) {
      mark = fmt::format("{}cliff, not the knee", page ? "" : "<-- ");
    } else if (p.knee_ranks && !knee_marked && r.ranks >= *p.knee_ranks) {
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

std::vector<std::string> cliff_lines(const Prediction& p) {
  std::vector<std::string> lines;
  for (const Cliff& c : p.cliffs) {
    lines.push_back(fmt::format(
        "{} ranks: {} efficient against {} at {} ranks; the algorithm pays for a count that is "
        "not a power of two (a fold), so this count, not the curve, falls off: a cliff, not "
        "the knee",
        c.ranks, format_cell(c.efficiency, Unit::kFraction),
        format_cell(c.regular_efficiency, Unit::kFraction), c.regular_ranks));
  }
  return lines;
}

std::string algorithm_spread_text(const Prediction& p) {
  std::string text;
  for (const AlgorithmOutcome& a : p.algorithm_spread) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {}{}", algorithm_name(a.algorithm),
                        format_cell(a.efficiency, Unit::kFraction), a.chosen ? " (chosen)" : "");
  }
  return text;
}

nlohmann::ordered_json algorithm_spread_json(const Prediction& p) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const AlgorithmOutcome& a : p.algorithm_spread) {
    out.push_back({{"algorithm", algorithm_name(a.algorithm)},
                   {"step_s", a.step_s},
                   {"efficiency", a.efficiency},
                   {"chosen", a.chosen}});
  }
  return out;
}

nlohmann::ordered_json cliffs_json(std::span<const Cliff> cliffs) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Cliff& c : cliffs) {
    out.push_back({{"ranks", c.ranks},
                   {"efficiency", c.efficiency},
                   {"regular_ranks", c.regular_ranks},
                   {"regular_efficiency", c.regular_efficiency}});
  }
  return out;
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
  for (const Remedy& r : w.selectors) add(r, page ? "selector" : "(selector)");
  if (!w.decomposition.name.empty()) add(w.decomposition, "");
  return t;
}

}  // namespace scalewall
