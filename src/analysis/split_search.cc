// Implementation of scalewall/analysis/split_search.h.
#include "scalewall/analysis/split_search.h"

#include <fmt/format.h>

#include <algorithm>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 1; i * i <= n; ++i) {
    if (n % i == 0) {
      out.push_back(i);
      if (i != n / i) out.push_back(n / i);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::int64_t> powers_of_two(std::int64_t max) {
  std::vector<std::int64_t> out;
  for (std::int64_t v = 1; v <= max; v *= 2) out.push_back(v);
  return out;
}

template <typename T>
std::vector<T> choices(const std::optional<T>& fixed, std::vector<T> all) {
  if (fixed) return {*fixed};
  return all;
}

// Keeps the best `keep` of the splits offered, in rank order.
class Best {
 public:
  explicit Best(std::size_t keep) : keep_(keep) {}
  void offer(const SplitStep& s) {
    if (kept_.size() == keep_ && !ranks_before(s, kept_.back())) return;
    const auto at = std::upper_bound(kept_.begin(), kept_.end(), s, ranks_before);
    kept_.insert(at, s);
    if (kept_.size() > keep_) kept_.pop_back();
  }
  std::vector<SplitStep> take() { return std::move(kept_); }

 private:
  std::size_t keep_;
  std::vector<SplitStep> kept_;
};

// Every option of one (tp, pp, dp): micro-batch, interleave, recompute, ZeRO, sequence parallel.
void search_degrees(const TransformerJob& job, ParallelSplit base, const SplitConstraints& c,
                    Best& best, SplitSearch& out) {
  const auto micro = choices(c.micro_batch, powers_of_two(kMaxSearchMicroBatch));
  const auto chunks =
      base.pp > 1 ? choices(c.interleave, powers_of_two(kMaxSearchInterleave))
                  : std::vector<std::int64_t>{c.interleave.value_or(1)};
  const auto recompute =
      choices(c.recompute, {Recompute::kNone, Recompute::kSelective, Recompute::kFull});
  const auto zero = base.dp > 1 ? choices(c.zero, {0, 1, 2, 3}) : std::vector<int>{c.zero.value_or(0)};
  const auto sp = base.tp > 1 ? choices(c.sequence_parallel, {false, true})
                              : std::vector<bool>{c.sequence_parallel.value_or(false)};
  for (const std::int64_t b : micro) {
    if (job.training.global_batch % (base.dp * b) != 0) continue;
    for (const std::int64_t v : chunks) {
      for (const Recompute r : recompute) {
        for (const int z : zero) {
          for (const bool q : sp) {
            ParallelSplit s = base;
            s.micro_batch = b;
            s.interleave = v;
            s.recompute = r;
            s.zero = z;
            s.sequence_parallel = q;
            const SplitStep step = evaluate_split(job, s);
            if (step.problem != SplitProblem::kNone) continue;
            ++out.evaluated;
            if (step.fits) ++out.fitting;
            best.offer(step);
          }
        }
      }
    }
  }
}

}  // namespace

bool ranks_before(const SplitStep& a, const SplitStep& b) {
  if (a.fits != b.fits) return a.fits;
  if (a.fits) return a.step_s < b.step_s;
  return a.lacks_bytes < b.lacks_bytes;
}

SplitSearch search_splits(const TransformerJob& job, std::int64_t gpus,
                          const SplitConstraints& constraints, std::size_t keep) {
  if (gpus < 1) throw InputError(fmt::format("gpus {} must be at least 1", gpus));
  if (keep < 1) throw InputError("the search must keep at least one split");
  SplitSearch out;
  out.gpus = gpus;
  Best best(keep);
  for (const std::int64_t tp : choices(constraints.tp, divisors(gpus))) {
    if (gpus % tp != 0) continue;
    for (const std::int64_t pp : choices(constraints.pp, divisors(gpus / tp))) {
      if ((gpus / tp) % pp != 0) continue;
      const std::int64_t dp = gpus / (tp * pp);
      if (constraints.dp && *constraints.dp != dp) continue;
      ParallelSplit base;
      base.tp = tp;
      base.pp = pp;
      base.dp = dp;
      base.dp_overlap = constraints.defaults().dp_overlap;  // not searched: the framework's
      search_degrees(job, base, constraints, best, out);
    }
  }
  out.ranked = best.take();
  return out;
}

std::vector<NamedSplit> pure_alternatives(const TransformerJob& job, std::int64_t gpus,
                                          SplitConstraints constraints) {
  constraints.tp = 1;
  constraints.pp = 1;
  constraints.dp = gpus;
  constraints.interleave = 1;
  constraints.sequence_parallel = false;
  std::vector<NamedSplit> out;
  for (const auto& [name, zero] : {std::pair<const char*, int>{"pure data parallel", 0},
                                   std::pair<const char*, int>{"pure ZeRO-3", 3}}) {
    SplitConstraints c = constraints;
    c.zero = zero;
    const SplitSearch s = search_splits(job, gpus, c, 1);
    NamedSplit n{name, std::nullopt, SplitProblem::kNone};
    if (!s.ranked.empty()) {
      n.best = s.ranked.front();
    } else {
      n.problem = evaluate_split(job, c.defaults()).problem;
    }
    out.push_back(std::move(n));
  }
  return out;
}

Decomposition change_decomposition(const TransformerJob& job, std::int64_t gpus,
                                   const SplitConstraints& constraints) {
  Decomposition d;
  d.gpus = gpus;
  SplitConstraints open;
  open.dp_overlap = constraints.dp_overlap;
  const SplitSearch search = search_splits(job, gpus, open, 1);
  if (!search.ranked.empty()) d.best = search.ranked.front();
  d.pure = pure_alternatives(job, gpus, constraints);
  if (constraints.degrees_fixed() && constraints.defaults().gpus() == gpus) {
    d.baseline_name = "the scenario's split";
    const SplitSearch own = search_splits(job, gpus, constraints, 1);
    if (!own.ranked.empty()) {
      d.baseline = own.ranked.front();
    } else {
      d.baseline_problem = evaluate_split(job, constraints.defaults()).problem;
    }
  } else {
    d.baseline_name = d.pure.front().name;
    d.baseline = d.pure.front().best;
    d.baseline_problem = d.pure.front().problem;
  }
  if (d.baseline && d.best && d.baseline->fits && d.best->fits && d.best->step_s > 0) {
    d.gain = d.baseline->step_s / d.best->step_s;
  }
  return d;
}

ScaleRegime scale_regime(std::int64_t gpus) {
  // Seed D01 section 3.5, the scale-boundary table: its five rows by rank count.
  if (gpus <= 8) return {"1-8 (one node)", "intra-node link bandwidth"};
  if (gpus <= 64) return {"8-64", "inter-node bandwidth, injection gap"};
  if (gpus <= 1024) return {"64-1k", "topology and oversubscription"};
  if (gpus <= 10240) return {"1k-10k", "latency term, O(N) step counts; variance"};
  return {"10k+", "failure rate; bisection bandwidth"};
}

std::vector<SplitSearch> best_split_curve(const TransformerJob& job,
                                          const std::vector<std::int64_t>& grid,
                                          const SplitConstraints& constraints) {
  std::vector<SplitSearch> out;
  for (const std::int64_t n : grid) {
    SplitConstraints c = constraints;
    // Degrees fixed by the scenario for one count cannot all hold at another: the data
    // parallel degree follows N.
    c.dp.reset();
    out.push_back(search_splits(job, n, c, 1));
  }
  return out;
}

}  // namespace scalewall
