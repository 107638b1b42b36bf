// Implementation of scalewall/present/split_tables.h.
#include "scalewall/present/split_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "scalewall/base/units.h"

namespace scalewall {
namespace {

std::string on_off(bool on) { return on ? "on" : "off"; }

// The two parts that grow most from `best` to `other`, as "+1.2 s pipeline bubble".
std::string largest_increases(const SplitStep& other, const SplitStep& best) {
  std::vector<std::pair<double, std::string_view>> grown;
  for (const StepPart& p : kStepParts) {
    if (other.*p.seconds > best.*p.seconds) {
      grown.emplace_back(other.*p.seconds - best.*p.seconds, p.title);
    }
  }
  std::sort(grown.begin(), grown.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::string text;
  for (std::size_t i = 0; i < grown.size() && i < 2; ++i) {
    if (!text.empty()) text += ", ";
    text += fmt::format("+{} {}", format_seconds(grown[i].first), grown[i].second);
  }
  return text;
}

// Which of the optional degrees a table shows: cp where a split of it has cp > 1, ep and etp
// where one holds its experts apart.
struct Shown {
  bool cp = false;
  bool ep = false;
};
Shown shown_of(std::span<const SplitStep> steps) {
  return {any_context_parallel(steps), any_expert_parallel(steps)};
}

// The degrees every split table shows, in this order: tp, (cp), pp, dp, (ep, etp),
// micro-batch, recompute, zero. degree_cells gives one split's values for them.
std::vector<Column> degree_columns(Shown shown) {
  std::vector<Column> out = {{"tp", "tp", Unit::kCount},          {"pp", "pp", Unit::kCount},
                             {"dp", "dp", Unit::kCount},          {"micro_batch", "mb", Unit::kCount},
                             {"recompute", "recompute", Unit::kText}, {"zero", "zero", Unit::kCount}};
  if (shown.ep) {
    out.insert(out.begin() + 3, {{"ep", "ep", Unit::kCount}, {"etp", "etp", Unit::kCount}});
  }
  if (shown.cp) out.insert(out.begin() + 1, {"cp", "cp", Unit::kCount});
  return out;
}

std::vector<Value> degree_cells(const ParallelSplit& p, Shown shown) {
  std::vector<Value> out = {p.tp, p.pp, p.dp, p.micro_batch,
                            std::string(recompute_name(p.recompute)),
                            static_cast<std::int64_t>(p.zero)};
  if (shown.ep) out.insert(out.begin() + 3, {p.ep, expert_tp(p)});
  if (shown.cp) out.insert(out.begin() + 1, p.cp);
  return out;
}

// Columns, then the degree columns inserted after the first `before` of them.
std::vector<Column> with_degrees(std::vector<Column> columns, std::size_t before, Shown shown) {
  const std::vector<Column> degrees = degree_columns(shown);
  columns.insert(columns.begin() + static_cast<std::ptrdiff_t>(before), degrees.begin(),
                 degrees.end());
  return columns;
}

// Cells, then the split's degree cells inserted after the first `before` of them.
std::vector<Value> with_degree_cells(std::vector<Value> cells, std::size_t before,
                                     const ParallelSplit& p, Shown shown) {
  const std::vector<Value> degrees = degree_cells(p, shown);
  cells.insert(cells.begin() + static_cast<std::ptrdiff_t>(before), degrees.begin(),
               degrees.end());
  return cells;
}

// The context-parallel degree and exchange in words: "cp 16 (p2p)", "cp 16 (a2a+p2p, a2a 2)".
std::string cp_words(const ParallelSplit& s) {
  const std::string a2a =
      s.cp_comm == CpComm::kA2aP2p && s.cp_a2a > 0 ? fmt::format(", a2a {}", s.cp_a2a) : "";
  return fmt::format("cp {} ({}{})", s.cp, cp_comm_name(s.cp_comm), a2a);
}

}  // namespace

bool any_context_parallel(std::span<const SplitStep> steps) {
  return std::any_of(steps.begin(), steps.end(), [](const SplitStep& s) { return s.split.cp > 1; });
}

bool any_expert_parallel(std::span<const SplitStep> steps) {
  return std::any_of(steps.begin(), steps.end(),
                     [](const SplitStep& s) { return experts_apart(s.split); });
}

std::vector<StepPart> shown_step_parts(std::span<const SplitStep> steps) {
  const bool cp = any_context_parallel(steps);
  const bool ep = any_expert_parallel(steps);
  std::vector<StepPart> out;
  for (const StepPart& p : kStepParts) {
    if (!cp && p.seconds == &SplitStep::cp_comm_s) continue;
    if (!ep && p.seconds == &SplitStep::ep_comm_s) continue;
    out.push_back(p);
  }
  return out;
}

std::string degrees_label(const ParallelSplit& s) {
  const std::string cp = s.cp > 1 ? fmt::format(" cp {}", s.cp) : "";
  const std::string ep =
      experts_apart(s) ? fmt::format(" ep {} etp {}", s.ep, expert_tp(s)) : "";
  return fmt::format("tp {}{} pp {} dp {}{}", s.tp, cp, s.pp, s.dp, ep);
}

std::string split_text(const ParallelSplit& s) {
  std::string ends;
  if (s.first_stage_layers > 0) ends += fmt::format(", first stage layers {}", s.first_stage_layers);
  if (s.last_stage_layers > 0) ends += fmt::format(", last stage layers {}", s.last_stage_layers);
  if (s.embedding_in_split) ends += ", embedding in split";
  if (s.loss_in_split) ends += ", loss in split";
  const std::string cp = s.cp > 1 ? cp_words(s) + ", " : "";
  const std::string ep =
      experts_apart(s) ? fmt::format(", ep {} (etp {})", s.ep, expert_tp(s)) : "";
  return fmt::format(
      "tp {}, {}pp {}, dp {}{}, micro-batch {}, interleave {}, recompute {}, zero {}, sequence "
      "parallel {}, dp overlap {}{}",
      s.tp, cp, s.pp, s.dp, ep, s.micro_batch, s.interleave, recompute_name(s.recompute), s.zero,
      on_off(s.sequence_parallel), on_off(s.dp_overlap), ends);
}

void add_split_fields(Report& r, const SplitStep& s) {
  r.add_field("split", "split", Unit::kText, split_text(s.split));
  r.add_field("tp", "tensor parallel", Unit::kCount, s.split.tp);
  if (s.split.cp > 1) {
    r.add_field("cp", "context parallel", Unit::kCount, s.split.cp);
    r.add_field("cp_comm", "context-parallel exchange", Unit::kText,
                std::string(cp_comm_name(s.split.cp_comm)));
  } else {
    r.extra["cp"] = s.split.cp;
  }
  r.add_field("pp", "pipeline parallel", Unit::kCount, s.split.pp);
  r.add_field("dp", "data parallel", Unit::kCount, s.split.dp);
  if (experts_apart(s.split)) {
    r.add_field("ep", "expert parallel", Unit::kCount, s.split.ep);
    r.add_field("etp", "expert tensor parallel", Unit::kCount, expert_tp(s.split));
  } else {
    r.extra["ep"] = s.split.ep;
  }
  r.add_field("micro_batches", "micro-batches per pipeline", Unit::kCount, s.micro_batches);
  r.add_field("step_s", "step", Unit::kSeconds, s.step_s);
  r.add_field("fits", "fits in memory", Unit::kText, s.fits);
  r.add_field("memory_per_gpu_bytes",
              fmt::format("memory per GPU ({})", pipeline_stage_name(s.memory.stage)),
              Unit::kBytes, s.memory.total());
  r.extra["memory_stage"] = std::string(pipeline_stage_name(s.memory.stage));
  if (!s.layout.even()) {
    // An uneven layout (stage_layout.h): the layers of each kind of stage, and which paces it.
    const StageLayout& l = s.layout;
    const std::string middle =
        l.stages > 2 ? fmt::format(", {} x {} middle", l.stages - 2, l.middle) : "";
    r.add_field("stage_layers", "layers per stage", Unit::kText,
                fmt::format("{} first{}, {} last", l.first, middle, l.last));
    r.add_field("slowest_stage", "slowest stage", Unit::kText,
                std::string(pipeline_stage_name(s.slowest)));
  }
  r.add_field("memory_limit_bytes", "GPU memory", Unit::kBytes, s.memory_limit_bytes);
  r.add_field("lacks_bytes", "memory lacking", Unit::kBytes, s.lacks_bytes);
  r.add_field("tflops_per_gpu", "TFLOP/s per GPU (executed, with recomputation)", Unit::kPlain,
              s.tflops_per_gpu);
  r.add_field("mfu", "MFU (model FLOPs / peak)", Unit::kFraction, s.mfu);
  r.add_field("tokens_per_s", "tokens per second", Unit::kPlain, s.tokens_per_s);
  for (const StepPart& p : shown_step_parts({&s, 1})) {
    r.add_field(std::string(p.key), std::string(p.title), Unit::kSeconds, s.*p.seconds);
  }
  if (s.split.cp == 1) r.extra["cp_comm_s"] = s.cp_comm_s;
  if (!experts_apart(s.split)) r.extra["ep_comm_s"] = s.ep_comm_s;
  r.add_field("binding", "binding", Unit::kText, std::string(split_binding_name(s.binding)));
}

Table split_breakdown_table(const SplitStep& s) {
  Table t{"breakdown",
          {{"mechanism", "mechanism", Unit::kText},
           {"time_s", "time", Unit::kSeconds},
           {"share", "share of step", Unit::kFraction}},
          {},
          {}};
  for (const StepPart& p : shown_step_parts({&s, 1})) {
    const double seconds = s.*p.seconds;
    t.add_row({std::string(p.title), seconds, s.step_s > 0 ? seconds / s.step_s : 0.0});
  }
  t.add_row({std::string("step"), s.step_s, 1.0});
  return t;
}

Table split_memory_table(const SplitStep& s) {
  Table t{"memory",
          {{"part", "part", Unit::kText}, {"bytes", "per GPU", Unit::kBytes}},
          {},
          {}};
  const SplitMemory& m = s.memory;
  for (const MemoryPart& p : kMemoryParts) t.add_row({std::string(p.title), m.*p.bytes});
  t.add_row({std::string("total"), m.total()},
            s.fits ? "" : fmt::format("<-- lacks {}", format_bytes(s.lacks_bytes)));
  t.add_row({std::string("limit"), s.memory_limit_bytes});
  return t;
}

Table splits_table(const SplitSearch& search) {
  Table t{"splits",
          {{"rank", "rank", Unit::kCount},
           {"tp", "tp", Unit::kCount},
           {"pp", "pp", Unit::kCount},
           {"dp", "dp", Unit::kCount},
           {"micro_batch", "mb", Unit::kCount},
           {"interleave", "v", Unit::kCount},
           {"recompute", "recompute", Unit::kText},
           {"zero", "zero", Unit::kCount},
           {"sequence_parallel", "sp", Unit::kText},
           {"step_s", "step", Unit::kSeconds},
           {"fits", "fits", Unit::kText},
           {"memory_per_gpu_bytes", "memory", Unit::kBytes},
           {"tflops_per_gpu", "TFLOP/s", Unit::kPlain},
           {"mfu", "MFU", Unit::kFraction},
           {"tokens_per_s", "tokens/s", Unit::kPlain}},
          {},
          {}};
  const std::vector<StepPart> parts = shown_step_parts(search.ranked);
  for (const StepPart& p : parts) {
    t.columns.push_back({std::string(p.key), std::string(p.key.substr(0, p.key.size() - 2)),
                         Unit::kSeconds});
  }
  t.columns.push_back({"binding", "binding", Unit::kText});
  // Where a ranked split lays its stages out unevenly, the layers of its first, middle and
  // last stage ("5/6/5"), after v; where one splits the sequence, its cp after tp.
  const bool uneven = std::any_of(search.ranked.begin(), search.ranked.end(),
                                  [](const SplitStep& s) { return !s.layout.even(); });
  const bool cp = any_context_parallel(search.ranked);
  const bool ep = any_expert_parallel(search.ranked);
  if (uneven) t.columns.insert(t.columns.begin() + 6, {"stage_layers", "layers", Unit::kText});
  if (ep) {
    t.columns.insert(t.columns.begin() + 4,
                     {{"ep", "ep", Unit::kCount}, {"etp", "etp", Unit::kCount}});
  }
  if (cp) t.columns.insert(t.columns.begin() + 2, {"cp", "cp", Unit::kCount});
  std::int64_t rank = 1;
  for (const SplitStep& s : search.ranked) {
    const ParallelSplit& p = s.split;
    std::vector<Value> row = {rank++, p.tp, p.pp, p.dp, p.micro_batch, p.interleave,
                              std::string(recompute_name(p.recompute)),
                              static_cast<std::int64_t>(p.zero), p.sequence_parallel,
                              s.step_s, s.fits, s.memory.total(), s.tflops_per_gpu, s.mfu,
                              s.tokens_per_s};
    if (uneven) {
      const StageLayout& l = s.layout;
      const std::string middle = l.stages > 2 ? fmt::format("{}/", l.middle) : "";
      row.insert(row.begin() + 6, fmt::format("{}/{}{}", l.first, middle, l.last));
    }
    if (ep) row.insert(row.begin() + 4, {p.ep, expert_tp(p)});
    if (cp) row.insert(row.begin() + 2, p.cp);
    for (const StepPart& part : parts) row.emplace_back(s.*part.seconds);
    row.emplace_back(std::string(split_binding_name(s.binding)));
    t.add_row(std::move(row));
  }
  return t;
}

std::string alternative_line(const std::string& name, const SplitStep& alt, const SplitStep& best) {
  if (!alt.fits) {
    return fmt::format("{} ({}): does not fit, needs {} per GPU of {} (lacks {})", name,
                       split_text(alt.split), format_bytes(alt.memory.total()),
                       format_bytes(alt.memory_limit_bytes), format_bytes(alt.lacks_bytes));
  }
  const double slower = best.step_s > 0 ? alt.step_s / best.step_s - 1.0 : 0.0;
  const std::string why = largest_increases(alt, best);
  return fmt::format("{} ({}): step {}, {} slower than the best{}", name, split_text(alt.split),
                     format_seconds(alt.step_s), format_percent(slower),
                     why.empty() ? "" : fmt::format(" ({})", why));
}

std::vector<std::string> runner_up_lines(const SplitSearch& search) {
  std::vector<std::string> lines;
  if (search.ranked.empty()) return lines;
  const SplitStep& best = search.ranked.front();
  for (std::size_t i = 1; i < search.ranked.size(); ++i) {
    lines.push_back(alternative_line(fmt::format("#{}", i + 1), search.ranked[i], best));
  }
  return lines;
}

namespace {

// The best split at each degree of one kind beside the best's own: `best_by` (the search's
// best_by_cp or best_by_ep), the degree in `degree`, named `name` ("cp"), and the exposed time
// of its exchange in `comm` with its title ("cp comm").
std::vector<std::string> choice_lines(const SplitSearch& search,
                                      const std::vector<SplitStep>& best_by,
                                      std::int64_t ParallelSplit::*degree, std::string_view name,
                                      double SplitStep::*comm, std::string_view comm_title) {
  std::vector<std::string> lines;
  if (search.ranked.empty() || best_by.size() < 2) return lines;
  const SplitStep& best = search.ranked.front();
  for (const SplitStep& s : best_by) {
    if (s.split.*degree != best.split.*degree) {
      lines.push_back(
          alternative_line(fmt::format("best at {} {}", name, s.split.*degree), s, best));
      continue;
    }
    lines.push_back(fmt::format(
        "{} {}, the best split's: {} {} ({} of the step), memory {} of {}", name,
        s.split.*degree, comm_title, format_seconds(best.*comm),
        format_percent(best.step_s > 0 ? best.*comm / best.step_s : 0.0),
        format_bytes(best.memory.total()), format_bytes(best.memory_limit_bytes)));
  }
  return lines;
}

}  // namespace

std::vector<std::string> cp_choice_lines(const SplitSearch& search) {
  return choice_lines(search, search.best_by_cp, &ParallelSplit::cp, "cp", &SplitStep::cp_comm_s,
                      "cp comm");
}

std::vector<std::string> ep_choice_lines(const SplitSearch& search) {
  return choice_lines(search, search.best_by_ep, &ParallelSplit::ep, "ep", &SplitStep::ep_comm_s,
                      "ep comm");
}

namespace {

// One row of the decomposition table: a split that runs, or one that cannot (`step` empty).
void add_decomposition_row(Table& t, const std::string& name, const std::optional<SplitStep>& step,
                           SplitProblem problem, const std::optional<SplitStep>& baseline,
                           Shown shown) {
  if (!step) {
    std::vector<Value> row = {name, Value{}, Value{}, Value{}, Value{}, Value{}, Value{},
                              Value{}, false, Value{}, Value{},
                              std::string(split_problem_text(problem))};
    if (shown.ep) row.insert(row.begin() + 4, {Value{}, Value{}});
    if (shown.cp) row.insert(row.begin() + 2, Value{});
    t.add_row(std::move(row), "cannot run");
    return;
  }
  const SplitStep& s = *step;
  const bool comparable = baseline && baseline->fits && s.fits && s.step_s > 0;
  const ParallelSplit& p = s.split;
  t.add_row(with_degree_cells({name, s.step_s, s.fits, s.memory.total(),
                               comparable ? Value{baseline->step_s / s.step_s} : Value{},
                               split_text(p)},
                              1, p, shown),
            s.fits ? "" : fmt::format("does not fit: lacks {} per GPU", format_bytes(s.lacks_bytes)));
}

}  // namespace

Table decomposition_table(const Decomposition& d) {
  std::vector<SplitStep> all;
  for (const std::optional<SplitStep>* s : {&d.baseline, &d.best}) {
    if (*s) all.push_back(**s);
  }
  const Shown shown = shown_of(all);
  Table t{"remedies",
          with_degrees({{"name", "remedy", Unit::kText},
           {"step_s", "step", Unit::kSeconds},
           {"fits", "fits", Unit::kText},
           {"memory_per_gpu_bytes", "memory", Unit::kBytes},
           {"gain", "gain", Unit::kRatio},
           {"change", "split", Unit::kText}}, 1, shown),
          {},
          {}};
  add_decomposition_row(t, "baseline: " + d.baseline_name, d.baseline, d.baseline_problem,
                        d.baseline, shown);
  for (const NamedSplit& n : d.pure) {
    if (n.name != d.baseline_name) {
      add_decomposition_row(t, n.name, n.best, n.problem, d.baseline, shown);
    }
  }
  add_decomposition_row(t, "change the decomposition", d.best, SplitProblem::kFabric, d.baseline,
                        shown);
  return t;
}

namespace {

// The lost-time columns of the curve: key, title and the SplitLoss member.
struct LossPart {
  std::string_view key;
  std::string_view title;
  double SplitLoss::*seconds;
};
constexpr std::array<LossPart, 5> kLossParts = {{
    {"lost_bubble_s", "bubble", &SplitLoss::bubble_s},
    {"lost_latency_s", "latency", &SplitLoss::latency_s},
    {"lost_bandwidth_s", "bandwidth", &SplitLoss::bandwidth_s},
    {"lost_variance_s", "variance", &SplitLoss::variance_s},
    {"lost_serial_s", "serial", &SplitLoss::serial_s},
}};

// Why a curve row has no time: no split runs, or the one found does not fit; null otherwise.
Value curve_problem(const SplitCurveRow& row) {
  if (!row.step) return fmt::format("no split runs: {}", row.why);
  if (!row.step->fits) {
    return fmt::format("does not fit: lacks {} per GPU", format_bytes(row.step->lacks_bytes));
  }
  return Value{};
}

// The mark of one curve row that fits: the knee (the first at or past it) or a cliff.
std::string curve_mark(const SplitCurve& curve, const SplitCurveRow& row, bool& knee_marked,
                       bool page) {
  const std::string arrow = page ? "" : "<-- ";
  if (!row.fits()) return "";
  const bool cliff = std::any_of(curve.cliffs.begin(), curve.cliffs.end(),
                                 [&](const Cliff& c) { return c.ranks == row.gpus; });
  if (cliff) return arrow + "cliff, not the knee";
  if (curve.knee_gpus && !knee_marked && row.gpus >= *curve.knee_gpus) {
    knee_marked = true;
    return fmt::format("{}knee at {} GPUs", arrow, *curve.knee_gpus);
  }
  return "";
}

}  // namespace

Table split_curve_table(const SplitCurve& curve, TableWords words) {
  const bool page = words == TableWords::kPage;
  std::vector<SplitStep> steps;
  for (const SplitCurveRow& row : curve.rows) {
    if (row.step) steps.push_back(*row.step);
  }
  const Shown shown = shown_of(steps);
  Table table{"rows",
              with_degrees({{"gpus", "GPUs", Unit::kCount},
                            {"global_batch", "batch", Unit::kCount},
                            {"step_s", "step", Unit::kSeconds},
                            {"tokens_per_s", "tokens/s", Unit::kPlain},
                            {"mfu", "MFU", Unit::kFraction},
                            {"speedup", "speedup", Unit::kRatio},
                            {"efficiency", "efficiency", Unit::kFraction},
                            {"binding", "binding", Unit::kText},
                            {"fits", "fits", Unit::kText}},
                           2, shown),
              {},
              {}};
  for (const LossPart& part : kLossParts) {
    table.columns.push_back({std::string(part.key),
                             fmt::format("{}{}", page ? "lost to " : "", part.title),
                             Unit::kSeconds});
  }
  table.columns.push_back({"problem", "problem", Unit::kText});
  bool knee_marked = false;
  for (const SplitCurveRow& row : curve.rows) {
    std::string mark = curve_mark(curve, row, knee_marked, page);
    const Value batch = row.global_batch > 0 ? Value{row.global_batch} : Value{};
    if (!row.step) {
      std::vector<Value> cells = {row.gpus, batch};
      cells.resize(table.columns.size() - 1);
      cells.push_back(curve_problem(row));
      table.add_row(std::move(cells), std::move(mark));
      continue;
    }
    const SplitStep& s = *row.step;
    // A split that does not fit cannot run: it shows no time, throughput or loss.
    const auto if_fits = [&](double v) { return s.fits ? Value{v} : Value{}; };
    const auto optional = [](const std::optional<double>& v) { return v ? Value{*v} : Value{}; };
    std::vector<Value> cells = with_degree_cells(
        {row.gpus, batch, if_fits(s.step_s), if_fits(s.tokens_per_s), if_fits(s.mfu),
         optional(row.speedup), optional(row.efficiency),
         std::string(split_binding_name(s.binding)), s.fits},
        2, s.split, shown);
    const SplitLoss lost = lost_time(s);
    for (const LossPart& part : kLossParts) cells.push_back(if_fits(lost.*part.seconds));
    cells.push_back(curve_problem(row));
    table.add_row(std::move(cells), std::move(mark));
  }
  return table;
}

std::vector<std::string> split_cliff_lines(const SplitCurve& curve) {
  std::vector<std::string> lines;
  for (const Cliff& c : curve.cliffs) {
    lines.push_back(fmt::format(
        "{} GPUs: {} efficient against {} at {} GPUs, the next regular count: this count, not "
        "the curve, falls off (a cliff, not the knee)",
        c.ranks, format_cell(c.efficiency, Unit::kFraction),
        format_cell(c.regular_efficiency, Unit::kFraction), c.regular_ranks));
  }
  return lines;
}

}  // namespace scalewall
