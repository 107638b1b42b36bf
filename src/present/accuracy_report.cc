// Implementation of scalewall/present/accuracy_report.h.
#include "scalewall/present/accuracy_report.h"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <utility>

namespace scalewall {
namespace {

Table groups_table(const std::string& name, const std::vector<AccuracyGroup>& groups) {
  Table t{name,
          {{"group", "group", Unit::kText},
           {"runs", "runs", Unit::kCount},
           {"median_abs_error", "median |error|", Unit::kFraction},
           {"p90_abs_error", "p90 |error|", Unit::kFraction},
           {"worst_abs_error", "worst |error|", Unit::kFraction},
           {"median_error", "bias (median error)", Unit::kFraction}},
          {},
          {}};
  for (const AccuracyGroup& g : groups) {
    t.add_row({g.name, g.count, g.median_abs, g.p90_abs, g.worst_abs, g.median_signed});
  }
  return t;
}

std::string split_text(const ParallelSplit& s) {
  return fmt::format("tp {}{} pp {} dp {}{} b {} v {}{}", s.tp,
                     s.cp > 1 ? fmt::format(" cp {}", s.cp) : "", s.pp, s.dp,
                     experts_apart(s) ? fmt::format(" ep {} etp {}", s.ep, expert_tp(s)) : "",
                     s.micro_batch, s.interleave,
                     s.zero > 0 ? fmt::format(" zero {}", s.zero) : "");
}

Table runs_table(const PublishedAccuracy& a) {
  Table t{"rows",
          {{"run", "run", Unit::kText},
           {"group", "group", Unit::kText},
           {"measured_step_s", "measured step", Unit::kSeconds},
           {"predicted_step_s", "predicted step", Unit::kSeconds},
           {"error", "error", Unit::kFraction},
           {"split", "split priced", Unit::kText},
           {"fits", "fits", Unit::kText}},
          {},
          {}};
  for (const PublishedCase& c : a.cases) {
    if (!c.skipped.empty()) continue;
    t.add_row({c.name, c.group, c.measured_step_s, c.predicted_step_s, c.error,
               split_text(c.split), std::string(c.fits ? "yes" : "no")});
  }
  return t;
}

}  // namespace

Report accuracy_report(const PublishedAccuracy& accuracy, bool rows) {
  Report report = model_report("accuracy");
  report.title = "The transformer model's step time against published training runs";
  if (rows) report.tables.push_back(runs_table(accuracy));
  report.tables.push_back(groups_table("groups", accuracy.groups));
  // The runs with context parallelism, across the groups above.
  if (accuracy.context_parallel) {
    report.tables.push_back(groups_table("context_parallel", {*accuracy.context_parallel}));
  }
  // The mixtures of experts, by model family and GPU, apart from the dense groups.
  if (!accuracy.mixture_of_experts.empty()) {
    report.tables.push_back(groups_table("mixture_of_experts", accuracy.mixture_of_experts));
  }
  std::vector<std::string> skipped, assumed;
  std::map<std::string, std::int64_t> kinds;
  std::int64_t priced = 0;
  for (const PublishedCase& c : accuracy.cases) {
    if (c.skipped.empty()) ++priced;
    if (!c.skipped.empty()) {
      ++kinds[c.skipped_kind];
      if (rows) skipped.push_back(fmt::format("{}: {}", c.name, c.skipped));
    }
    if (c.skipped.empty() && !c.assumptions.empty() && rows) {
      assumed.push_back(fmt::format("{}: {}", c.name, c.assumptions));
    }
  }
  report.add_field("runs", "runs in the tables", Unit::kCount,
                   static_cast<std::int64_t>(accuracy.cases.size()));
  report.add_field("priced", "runs priced", Unit::kCount, priced);
  std::vector<std::string> reasons;
  for (const auto& [kind, count] : kinds) reasons.push_back(fmt::format("{} ({})", kind, count));
  report.add_list("not_priced_reasons", "not priced", std::move(reasons));
  if (rows) {
    report.add_list("assumed", "assumed", std::move(assumed));
    report.add_list("not_priced", "not priced", std::move(skipped));
  }
  report.notes.push_back(
      "error = predicted / measured step - 1 (above 0: the model is too slow). The measured step "
      "is global batch x sequence / (tokens/s per GPU x GPUs), or, where a source gives TFLOP/s "
      "only, Megatron-LM's FLOP count over it. Each run is priced as plan prices it under the "
      "degrees its source states; 'scalewall accuracy --rows' lists every run, what its "
      "scenario assumes and why the others are not priced.");
  return report;
}

}  // namespace scalewall
