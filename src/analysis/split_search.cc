// Implementation of scalewall/analysis/split_search.h.
#include "scalewall/analysis/split_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "scalewall/base/checked_count.h"
#include "scalewall/base/error.h"

namespace scalewall {
namespace {

// n as a product of primes, each with its exponent, by trial division (n <= 2^40: at most
// 2^20 trials).
struct PrimePower {
  std::int64_t prime;
  int exponent;
};
std::vector<PrimePower> prime_factors(std::int64_t n) {
  std::vector<PrimePower> out;
  for (std::int64_t p = 2; p * p <= n; p += p == 2 ? 1 : 2) {
    int e = 0;
    for (; n % p == 0; n /= p) ++e;
    if (e > 0) out.push_back({p, e});
  }
  if (n > 1) out.push_back({n, 1});
  return out;
}

// The exponent of `prime` in n (n >= 1).
int exponent_in(std::int64_t n, std::int64_t prime) {
  int e = 0;
  for (; n % prime == 0; n /= prime) ++e;
  return e;
}

// Every product of primes[i]^x_i with lo[i] <= x_i <= hi[i], in increasing order.
std::vector<std::int64_t> divisors_between(const std::vector<std::int64_t>& primes,
                                           const std::vector<int>& lo, const std::vector<int>& hi) {
  std::vector<std::int64_t> out = {1};
  for (std::size_t i = 0; i < primes.size(); ++i) {
    if (lo[i] > hi[i]) return {};
    std::int64_t base = 1;
    for (int e = 0; e < lo[i]; ++e) base *= primes[i];
    std::vector<std::int64_t> next;
    for (const std::int64_t d : out) {
      std::int64_t v = d * base;
      for (int e = lo[i]; e <= hi[i]; ++e, v *= primes[i]) {
        next.push_back(v);
        if (e == hi[i]) break;
      }
    }
    out = std::move(next);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The layers the split may count under Megatron-Core beside the model's: 1 and 2 for the
// embedding and/or the loss counted as a layer (stage_layout.h), where the scenario leaves
// them open or sets them and gives no first or last stage layers.
std::vector<std::int64_t> counted_extras(const TransformerJob& job, const SplitConstraints& c) {
  const bool can = job.framework.partition == LayerPartition::kMegatronEnds &&
                   !c.first_stage_layers && !c.last_stage_layers;
  const auto options = [&](const std::optional<bool>& fixed) {
    if (fixed) return std::vector<std::int64_t>{*fixed ? 1 : 0};
    return can ? std::vector<std::int64_t>{0, 1} : std::vector<std::int64_t>{0};
  };
  std::vector<std::int64_t> out;
  for (const std::int64_t e : options(c.embedding_in_split)) {
    for (const std::int64_t l : options(c.loss_in_split)) {
      if (std::find(out.begin(), out.end(), e + l) == out.end()) out.push_back(e + l);
    }
  }
  return out;
}

// The degrees (tp, pp, dp) with tp x pp x dp = N that can divide the model: tp the heads
// (split_problem then holds it to a divisor or multiple of the KV heads), pp the layers (over
// the interleave when it is fixed; under Megatron-Core also the layers with the embedding
// and/or the loss counted), dp the global batch (over the micro-batch when fixed), and held
// to the fixed degrees. Built from the primes of those counts, so that it visits no degree
// that cannot divide, whatever N is.
class DegreeSpace {
 public:
  DegreeSpace(const TransformerJob& job, const SplitConstraints& c) : c_(c) {
    const std::int64_t v = c.interleave.value_or(1);
    const std::int64_t b = c.micro_batch.value_or(1);
    for (const std::int64_t extra : counted_extras(job, c)) {
      if ((job.model.layers + extra) % v == 0) layer_counts_.push_back(job.model.layers + extra);
    }
    if (layer_counts_.empty() || job.training.global_batch % b != 0) {
      empty_ = true;
      return;
    }
    const std::int64_t heads = job.model.heads;
    const std::int64_t batch = job.training.global_batch / b;
    std::vector<std::int64_t> counts = {heads, batch};
    for (const std::int64_t n : layer_counts_) counts.push_back(n / v);
    for (const std::int64_t n : counts) {
      for (const PrimePower& f : prime_factors(n)) {
        if (std::find(primes_.begin(), primes_.end(), f.prime) == primes_.end()) {
          primes_.push_back(f.prime);
        }
      }
    }
    for (const std::int64_t p : primes_) {
      heads_.push_back(exponent_in(heads, p));
      int most = 0;  // the layer counts' divisors together: filtered by pp_divides_layers
      for (const std::int64_t n : layer_counts_) most = std::max(most, exponent_in(n / v, p));
      layers_.push_back(most);
      batch_.push_back(exponent_in(batch, p));
    }
    g_ = job.fabric.ranks_per_node;
    // Where the layout need not divide the layers by pp (DeepSpeed's partition; Megatron-Core
    // with the first or last stage's layers given), pp takes any factor of N, up to the
    // weighed layers (stage_layout.h: a stage without a layer cannot run).
    const LayerPartition partition = job.framework.partition;
    free_pp_ = partition == LayerPartition::kTypeTransformer ||
               partition == LayerPartition::kTypeTransformerEmbedding ||
               (partition == LayerPartition::kMegatronEnds &&
                (c.first_stage_layers || c.last_stage_layers));
    layers_count_ = job.model.layers;
    partition_ = partition;
  }

  // Calls visit(tp, pp, dp) for each tp x pp x dp = gpus / cp, tp then pp increasing, until
  // it returns false. REQUIRES: cp divides gpus.
  template <typename Visit>
  void for_each(std::int64_t all_gpus, std::int64_t cp, Visit&& visit) const {
    if (empty_ || (all_gpus > g_ && all_gpus % g_ != 0)) return;
    const std::int64_t gpus = all_gpus / cp;
    // N's primes that divide none of the three counts join with exponent 0 in each: no
    // degree takes them but a fixed one or a pp free of the layers.
    DegreeSpace space = *this;
    for (const PrimePower& f : prime_factors(gpus)) {
      if (std::find(primes_.begin(), primes_.end(), f.prime) != primes_.end()) continue;
      space.primes_.push_back(f.prime);
      for (auto* counts : {&space.heads_, &space.layers_, &space.batch_}) counts->push_back(0);
    }
    std::vector<int> e(space.primes_.size());
    std::int64_t rest = gpus;
    for (std::size_t i = 0; i < space.primes_.size(); ++i) {
      for (; rest % space.primes_[i] == 0; rest /= space.primes_[i]) ++e[i];
    }
    for (const std::int64_t tp : space.tp_choices(e, gpus)) {
      if (tp > g_ && tp % g_ != 0) continue;
      const std::int64_t m = gpus / tp;
      for (const std::int64_t pp : space.pp_choices(e, tp, m)) {
        if (free_pp_ && !c_.pp && !pp_holds_layers(pp)) continue;
        if (!free_pp_ && !c_.pp && !pp_divides_layers(pp)) continue;
        if (!visit(tp, pp, m / pp)) return;
      }
    }
  }

 private:
  std::vector<std::int64_t> tp_choices(const std::vector<int>& e, std::int64_t gpus) const {
    if (c_.tp) return gpus % *c_.tp == 0 ? std::vector<std::int64_t>{*c_.tp} : std::vector<std::int64_t>{};
    std::vector<int> hi(e.size());
    for (std::size_t i = 0; i < e.size(); ++i) hi[i] = std::min(e[i], heads_[i]);
    return divisors_between(primes_, std::vector<int>(e.size(), 0), hi);
  }

  std::vector<std::int64_t> pp_choices(const std::vector<int>& e, std::int64_t tp,
                                       std::int64_t m) const {
    if (c_.pp) return m % *c_.pp == 0 ? std::vector<std::int64_t>{*c_.pp} : std::vector<std::int64_t>{};
    if (c_.dp) return m % *c_.dp == 0 ? std::vector<std::int64_t>{m / *c_.dp} : std::vector<std::int64_t>{};
    std::vector<int> lo(e.size());
    std::vector<int> hi(e.size());
    for (std::size_t i = 0; i < e.size(); ++i) {
      const int left = e[i] - exponent_in(tp, primes_[i]);
      lo[i] = std::max(0, left - batch_[i]);  // what dp cannot take
      hi[i] = free_pp_ ? left : std::min(left, layers_[i]);
    }
    return divisors_between(primes_, lo, hi);
  }

  const SplitConstraints& c_;
  bool empty_ = false;
  bool free_pp_ = false;
  std::int64_t layers_count_ = 1;
  LayerPartition partition_ = LayerPartition::kMegatronEven;

  // Whether pp stages can each hold a layer: DeepSpeed's partition at one chunk per stage;
  // Megatron-Core's given ends, at most one stage per layer (split_problem decides the rest).
  bool pp_holds_layers(std::int64_t pp) const {
    if (pp > layers_count_) return false;
    if (partition_ == LayerPartition::kMegatronEnds) return true;
    return stage_layout(partition_, {layers_count_, pp, 1, 0, 0}).layout.has_value();
  }
  // Whether pp divides one of the layer counts (the model's, or with the embedding and/or
  // the loss counted).
  bool pp_divides_layers(std::int64_t pp) const {
    return std::any_of(layer_counts_.begin(), layer_counts_.end(),
                       [&](std::int64_t n) { return n % pp == 0; });
  }
  std::vector<std::int64_t> layer_counts_;
  std::int64_t g_ = 1;
  std::vector<std::int64_t> primes_;
  std::vector<int> heads_, layers_, batch_;
};

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

// The context-parallel degrees the search tries: the one the scenario fixes; else 1 and, where
// the framework splits sequences, every power of two c whose 2c divides the sequence and that
// leaves each rank at least kMinContextParallelBlock tokens (and, with cp_a2a given, a
// multiple of it).
std::vector<std::int64_t> cp_choices(const TransformerJob& job, const SplitConstraints& c) {
  if (c.cp) return {*c.cp};
  std::vector<std::int64_t> out = {1};
  if (!job.framework.can_context_parallel) return out;
  const std::int64_t s = job.model.seq;
  for (std::int64_t cp = 2; s % (2 * cp) == 0 && s / cp >= kMinContextParallelBlock; cp *= 2) {
    if (!c.cp_a2a || cp % *c.cp_a2a == 0) out.push_back(cp);
  }
  return out;
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

// One setting of the choices tried on each runnable split: recomputation, ZeRO stage,
// sequence parallelism, and the experts' ep and etp.
struct Setting {
  Recompute recompute = Recompute::kNone;
  int zero = 0;
  bool sp = false;
  std::int64_t ep = 1, etp = 0;
};

// The choices the search tries for one (tp, pp, dp), each fixed or open.
struct Options {
  std::vector<std::int64_t> micro, chunks;
  std::vector<bool> embedding, loss;  // counted in the split (Megatron-Core)
  bool counted_searched = false;      // either of the two left open to the search
  // recompute x ZeRO x sequence parallel x (ep, etp), less the ones expert_refusal refuses
  std::vector<Setting> settings;
  std::int64_t per_runnable() const { return static_cast<std::int64_t>(settings.size()); }
};

// The experts' (ep, etp) the search tries on `base`, each one whose grid fits the stage's
// ranks (ep divides the experts, etp x ep divides tp x cp x dp: Megatron-Core's expert grid
// over the same ranks): a dense model's (1, 0); the scenario's ep and etp where it fixes them;
// else, for a mixture of experts under a framework with expert parallelism, etp 0 (tp, the
// framework's default) and 1 (with tp > 1), and ep each power of two up to the experts.
std::vector<std::pair<std::int64_t, std::int64_t>> expert_choices(const TransformerJob& job,
                                                                  const ParallelSplit& base,
                                                                  const SplitConstraints& c) {
  if (!is_moe(job.model)) return {{c.ep.value_or(1), c.etp.value_or(0)}};
  const bool open = job.framework.can_expert_parallel;
  std::vector<std::int64_t> etps = {c.etp.value_or(0)};
  if (!c.etp && open && base.tp > 1) etps.push_back(1);
  std::vector<std::int64_t> eps = {c.ep.value_or(1)};
  if (!c.ep && open) {
    for (std::int64_t ep = 2; ep <= job.model.experts; ep *= 2) eps.push_back(ep);
  }
  const std::int64_t experts = job.model.experts;
  const std::int64_t ranks = base.tp * base.cp * base.dp;
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const std::int64_t etp : etps) {
    const std::int64_t et = etp > 0 ? etp : base.tp;
    for (const std::int64_t ep : eps) {
      if (experts % ep == 0 && ranks % et == 0 && (ranks / et) % ep == 0) {
        out.emplace_back(ep, etp);
      }
    }
  }
  return out;
}

// The choices the framework runs (framework.h): selective recomputation, sequence
// parallelism and the ZeRO stages where it has them (ZeRO-2/3 beside pipeline parallelism
// only where it runs them so), and expert parallelism (expert_choices).
Options options_of(const TransformerJob& job, const ParallelSplit& base,
                   const SplitConstraints& c) {
  const FrameworkProfile& f = job.framework;
  Options o;
  o.micro = choices(c.micro_batch, powers_of_two(kMaxSearchMicroBatch));
  const bool chunked = f.partition == LayerPartition::kMegatronEven ||
                       f.partition == LayerPartition::kMegatronEnds;
  o.chunks = base.pp > 1 && chunked ? choices(c.interleave, powers_of_two(kMaxSearchInterleave))
                                    : std::vector<std::int64_t>{c.interleave.value_or(1)};
  std::vector<Recompute> modes = {Recompute::kNone, Recompute::kFull};
  if (f.can_selective) modes.insert(modes.begin() + 1, Recompute::kSelective);
  const std::vector<Recompute> recompute = choices(c.recompute, modes);
  const int top = base.pp > 1 && !f.zero3_with_pp ? std::min(f.max_zero, 1) : f.max_zero;
  std::vector<int> stages;
  for (int z = 0; z <= top; ++z) stages.push_back(z);
  // ZeRO shards over the data-parallel group with context parallelism, d c ranks.
  const std::vector<int> zero = base.dp * base.cp > 1 ? choices(c.zero, stages)
                                                      : std::vector<int>{c.zero.value_or(0)};
  const std::vector<bool> can_sp =
      f.can_sequence_parallel ? std::vector<bool>{false, true} : std::vector<bool>{false};
  const std::vector<bool> sp = base.tp > 1
                                   ? choices(c.sequence_parallel, can_sp)
                                   : std::vector<bool>{c.sequence_parallel.value_or(false)};
  const auto experts = expert_choices(job, base, c);
  for (const Recompute r : recompute) {
    for (const int z : zero) {
      for (const bool q : sp) {
        for (const auto& [ep, etp] : experts) {
          ParallelSplit s = base;
          s.recompute = r;
          s.zero = z;
          s.sequence_parallel = q;
          s.ep = ep;
          s.etp = etp;
          if (!expert_refusal(job, s)) o.settings.push_back({r, z, q, ep, etp});
        }
      }
    }
  }
  // The embedding and the loss counted as a layer: tried where Megatron-Core has them and no
  // first or last stage layers are given (its TransformerConfig refuses both together).
  const bool countable = f.partition == LayerPartition::kMegatronEnds && base.pp > 1 &&
                         !c.first_stage_layers && !c.last_stage_layers;
  const std::vector<bool> both =
      countable ? std::vector<bool>{false, true} : std::vector<bool>{false};
  o.embedding = choices(c.embedding_in_split, both);
  o.loss = choices(c.loss_in_split, both);
  o.counted_searched = o.embedding.size() > 1 || o.loss.size() > 1;
  return o;
}

// A split of the three degrees with what is not searched at the framework's setting (or the
// scenario's): dp_overlap and tp_overlap, on where the framework overlaps.
ParallelSplit degrees(const TransformerJob& job, std::int64_t tp, std::int64_t cp,
                      std::int64_t pp, std::int64_t dp, const SplitConstraints& c) {
  ParallelSplit base;
  base.tp = tp;
  base.cp = cp;
  base.pp = pp;
  base.dp = dp;
  const ParallelSplit d = c.defaults(job.framework);
  base.cp_comm = d.cp_comm;
  base.cp_a2a = d.cp_a2a;
  // ep and etp are set with the other settings (expert_choices); the base keeps the plain
  // grid (every expert over tp), which any stage's ranks hold.
  base.dp_overlap = d.dp_overlap;
  base.tp_overlap = d.tp_overlap;
  base.first_stage_layers = d.first_stage_layers;
  base.last_stage_layers = d.last_stage_layers;
  base.embedding_in_split = d.embedding_in_split;
  base.loss_in_split = d.loss_in_split;
  return base;
}

// The first and last stage layers (0: not given) the search tries for pp stages of v chunks:
// the ones `base` has; where Megatron-Core lays stages out unevenly and neither is given, also
// uneven layouts where they help: where p v does not divide the layers, or where the logits'
// forward FLOPs are at least one layer's (the last stage then runs the longest). Each has its
// middle stages at c layers (c0, the fewest that hold the model, and c0 + v) and moves what
// the ends lack off the last stage (the logits), off the first (the embedding and the most
// micro-batches in flight), or half off each: at most six layouts beside the even one.
std::vector<std::pair<std::int64_t, std::int64_t>> end_stage_choices(const TransformerJob& job,
                                                                     const ParallelSplit& base,
                                                                     std::int64_t v) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out = {
      {base.first_stage_layers, base.last_stage_layers}};
  const std::int64_t layers = job.model.layers;
  const std::int64_t p = base.pp;
  if (job.framework.partition != LayerPartition::kMegatronEnds || p < 2 ||
      base.first_stage_layers > 0 || base.last_stage_layers > 0) {
    return out;
  }
  const bool divides = layers % p == 0 && (layers / p) % v == 0;
  const double logits =
      logits_forward_flops(job.model, 1.0) / mean_layer_forward_flops(job.model, 1.0);
  if (divides && logits < 1.0) return out;
  const std::int64_t c0 = ((layers + p - 1) / p + v - 1) / v * v;
  for (const std::int64_t c : {c0, c0 + v}) {
    const std::int64_t ends = layers - (p - 2) * c;
    const std::int64_t half = ends / 2 / v * v;
    for (const auto& [f, l] : {std::pair{c, ends - c}, std::pair{ends - c, c},
                               std::pair{half, ends - half}}) {
      const bool fits = f >= v && l >= v && f <= c && l <= c && f % v == 0 && l % v == 0;
      const bool even = divides && f == layers / p && l == layers / p;
      const std::pair<std::int64_t, std::int64_t> layout{f, l};
      if (fits && !even && std::find(out.begin(), out.end(), layout) == out.end()) {
        out.push_back(layout);
      }
    }
  }
  return out;
}

// One stage layout the search tries: the first and last stage layers (0: not given) and
// whether the embedding and the loss count as a layer.
struct LayoutChoice {
  std::int64_t first = 0, last = 0;
  bool embedding = false, loss = false;
};

// The layouts the search tries for pp stages of v chunks: end_stage_choices with neither
// counted; with the embedding and/or the loss counted (each as the scenario sets it, or
// both ways where open), where the search chooses them only where p v does not divide the
// layers (Megatron-Bridge's Llama 3.1 405B recipes count both for 126 layers on pp 8 or 16
// with interleave), split_problem keeping those p v divides.
std::vector<LayoutChoice> layout_choices(const TransformerJob& job, const ParallelSplit& base,
                                         const Options& o, std::int64_t v) {
  std::vector<LayoutChoice> out;
  const std::optional<std::int64_t> chunks = try_mul(base.pp, v);
  const bool divides = chunks && job.model.layers % *chunks == 0;
  for (const bool e : o.embedding) {
    for (const bool l : o.loss) {
      if (!e && !l) {
        for (const auto& [first, last] : end_stage_choices(job, base, v)) {
          out.push_back({first, last, false, false});
        }
      } else if (!(o.counted_searched && divides)) {
        out.push_back({0, 0, e, l});
      }
    }
  }
  return out;
}

// Calls run(split) for each micro-batch, interleave and stage layout of `base` that can run
// (the other choices at base's).
template <typename Run>
void for_each_runnable(const TransformerJob& job, const ParallelSplit& base, const Options& o,
                       Run&& run) {
  for (const std::int64_t b : o.micro) {
    for (const std::int64_t v : o.chunks) {
      for (const LayoutChoice& layout : layout_choices(job, base, o, v)) {
        ParallelSplit s = base;
        s.micro_batch = b;
        s.interleave = v;
        s.first_stage_layers = layout.first;
        s.last_stage_layers = layout.last;
        s.embedding_in_split = layout.embedding;
        s.loss_in_split = layout.loss;
        if (split_problem(job, s) == SplitProblem::kNone) run(s);
      }
    }
  }
}

// The best split at each ep the search tries, ep increasing.
using BestByEp = std::map<std::int64_t, Best>;

// Every option of one (tp, cp, pp, dp): micro-batch, interleave, recompute, ZeRO, sequence
// parallel, ep and etp; each split offered to `best`, to `at_cp`, the best of its cp, and to
// the best of its ep.
void search_degrees(const TransformerJob& job, const ParallelSplit& base,
                    const SplitConstraints& c, Best& best, Best& at_cp, BestByEp& at_ep,
                    SplitSearch& out) {
  const Options o = options_of(job, base, c);
  for_each_runnable(job, base, o, [&](const ParallelSplit& runnable) {
    for (const Setting& x : o.settings) {
      ParallelSplit s = runnable;
      s.recompute = x.recompute;
      s.zero = x.zero;
      s.sequence_parallel = x.sp;
      s.ep = x.ep;
      s.etp = x.etp;
      const SplitStep step = evaluate_split(job, s);
      ++out.evaluated;
      if (step.fits) ++out.fitting;
      best.offer(step);
      at_cp.offer(step);
      at_ep.try_emplace(x.ep, 1).first->second.offer(step);
    }
  });
}

// The splits a search of `gpus` would evaluate, counted without evaluating any, and stopped
// once past `limit`. A (tp, pp, dp) that offers none counts as one: visiting it is work too.
std::int64_t count_candidates(const TransformerJob& job, const DegreeSpace& space,
                              std::int64_t gpus, const SplitConstraints& c, std::int64_t limit) {
  std::int64_t count = 0;
  for (const std::int64_t cp : cp_choices(job, c)) {
    if (gpus % cp != 0 || count > limit) continue;
    space.for_each(gpus, cp, [&](std::int64_t tp, std::int64_t pp, std::int64_t dp) {
      if (c.dp && *c.dp != dp) return true;
      const ParallelSplit base = degrees(job, tp, cp, pp, dp, c);
      const Options o = options_of(job, base, c);
      std::int64_t runnable = 0;
      for_each_runnable(job, base, o, [&](const ParallelSplit&) { ++runnable; });
      count += std::max<std::int64_t>(1, runnable * o.per_runnable());
      return count <= limit;
    });
  }
  return count;
}

// Whether the search tries the experts' grid: a mixture of experts under a framework with
// expert parallelism, ep or etp left open.
bool searches_experts(const TransformerJob& job, const SplitConstraints& c) {
  return is_moe(job.model) && job.framework.can_expert_parallel && (!c.ep || !c.etp);
}

// `where` is "N GPUs" or "the K GPU counts (A to B)": both plural. cp is named where the
// search tries a degree other than 1, ep and etp where it tries the experts' grid.
std::string too_many_candidates(std::string_view where, const TransformerJob& job,
                                const SplitConstraints& c) {
  const std::vector<std::int64_t> cps = cp_choices(job, c);
  const bool cp = cps.size() > 1 || cps.front() > 1;
  const bool ep = searches_experts(job, c);
  return fmt::format(
      "{} leave more than {} candidate splits to evaluate ({}, micro-batch, "
      "interleave, recomputation, ZeRO stage, sequence parallelism{}), the most one search "
      "takes: fix some of these choices (--tp, --pp, --dp, {}{}--micro-batch, --interleave, "
      "--recompute, --zero, or their keys in [parallel] and [training])",
      where, kMaxSearchCandidates, cp ? "tp x cp x pp x dp" : "tp x pp x dp",
      ep ? ", ep and etp" : "", cp ? "--cp, " : "", ep ? "--ep, --etp, " : "");
}

SplitSearch search_in(const TransformerJob& job, const DegreeSpace& space, std::int64_t gpus,
                      const SplitConstraints& constraints, std::size_t keep) {
  SplitSearch out;
  out.gpus = gpus;
  Best best(keep);
  BestByEp at_ep;
  for (const std::int64_t cp : cp_choices(job, constraints)) {
    if (gpus % cp != 0) continue;
    Best at_cp(1);
    space.for_each(gpus, cp, [&](std::int64_t tp, std::int64_t pp, std::int64_t dp) {
      if (constraints.dp && *constraints.dp != dp) return true;
      search_degrees(job, degrees(job, tp, cp, pp, dp, constraints), constraints, best, at_cp,
                     at_ep, out);
      return true;
    });
    for (SplitStep& s : at_cp.take()) out.best_by_cp.push_back(std::move(s));
  }
  for (auto& [ep, at] : at_ep) {
    for (SplitStep& s : at.take()) out.best_by_ep.push_back(std::move(s));
  }
  out.ranked = best.take();
  return out;
}

}  // namespace

bool ranks_before(const SplitStep& a, const SplitStep& b) {
  if (a.fits != b.fits) return a.fits;
  if (a.fits) return a.step_s < b.step_s;
  return a.lacks_bytes < b.lacks_bytes;
}

std::int64_t count_candidate_splits(const TransformerJob& job, std::int64_t gpus,
                                    const SplitConstraints& constraints, std::int64_t limit) {
  if (gpus < 1) throw InputError(fmt::format("gpus {} must be at least 1", gpus));
  require_valid(job.model);
  return count_candidates(job, DegreeSpace(job, constraints), gpus, constraints, limit);
}

SplitSearch search_splits(const TransformerJob& job, std::int64_t gpus,
                          const SplitConstraints& constraints, std::size_t keep) {
  if (gpus < 1) throw InputError(fmt::format("gpus {} must be at least 1", gpus));
  if (keep < 1) throw InputError("the search must keep at least one split");
  require_valid(job.model);
  const DegreeSpace space(job, constraints);
  const std::int64_t candidates =
      count_candidates(job, space, gpus, constraints, kMaxSearchCandidates);
  if (candidates > kMaxSearchCandidates) {
    throw InputError(too_many_candidates(fmt::format("{} GPUs", gpus), job, constraints));
  }
  return search_in(job, space, gpus, constraints, keep);
}

namespace {

// Why a number of splits cannot run, with the model's numbers: "because pp x interleave does
// not divide the 96 layers".
std::string problem_in_numbers(const TransformerJob& job, SplitProblem problem) {
  const TransformerShape& m = job.model;
  switch (problem) {
    case SplitProblem::kLayers:
      if (job.framework.partition == LayerPartition::kTypeTransformer ||
          job.framework.partition == LayerPartition::kTypeTransformerEmbedding) {
        return fmt::format("because DeepSpeed's partition leaves a stage without any of the {} "
                           "layers",
                           m.layers);
      }
      return fmt::format("because pp x interleave does not divide the {} layers", m.layers);
    case SplitProblem::kHeads:
      return fmt::format(
          "because tp does not divide the {} heads or is neither a divisor nor a multiple of "
          "the {} KV heads",
          m.heads, m.kv_heads);
    case SplitProblem::kBatch:
      return fmt::format("because dp x micro-batch does not divide the global batch {}",
                         job.training.global_batch);
    case SplitProblem::kFabric:
      return fmt::format("because the TP group does not fill whole nodes of {}",
                         job.fabric.ranks_per_node);
    case SplitProblem::kSequence:
      return fmt::format("because 2 x cp does not divide the sequence of {} tokens", m.seq);
    case SplitProblem::kCpHeads:
      return fmt::format("because the all-to-all's cp ranks do not divide the heads ({}) or the "
                         "KV heads ({}) of a TP rank",
                         m.heads, m.kv_heads);
    case SplitProblem::kExperts:
      return fmt::format("because ep does not divide the {} experts or etp x ep does not divide "
                         "tp x cp x dp",
                         m.experts);
    default: return fmt::format("because {}", split_problem_text(problem));
  }
}

// The tp x cp x pp x dp = N that the constraints allow at one cp, each at its plainest
// choices (micro-batch and interleave 1 unless fixed: the ones most splits can run), counted
// by why it cannot run.
struct SplitTally {
  std::map<SplitProblem, std::int64_t> by_problem;
  std::int64_t total = 0;
  std::optional<ParallelSplit> last;
};
void tally_splits(const TransformerJob& job, std::int64_t gpus, std::int64_t cp,
                  const SplitConstraints& constraints, SplitTally& tally) {
  const std::int64_t rest = gpus / cp;
  std::vector<std::int64_t> primes;
  std::vector<int> top;
  for (const PrimePower& f : prime_factors(rest)) {
    primes.push_back(f.prime);
    top.push_back(f.exponent);
  }
  const std::vector<int> zero(primes.size(), 0);
  for (const std::int64_t tp : choices(constraints.tp, divisors_between(primes, zero, top))) {
    if (rest % tp != 0) continue;
    std::vector<int> left(primes.size());
    for (std::size_t i = 0; i < primes.size(); ++i) left[i] = top[i] - exponent_in(tp, primes[i]);
    for (const std::int64_t pp : choices(constraints.pp, divisors_between(primes, zero, left))) {
      if ((rest / tp) % pp != 0) continue;
      const std::int64_t dp = rest / tp / pp;
      if (constraints.dp && *constraints.dp != dp) continue;
      ParallelSplit s = constraints.defaults(job.framework);
      s.tp = tp;
      s.cp = cp;
      s.pp = pp;
      s.dp = dp;
      ++tally.by_problem[split_problem(job, s)];
      ++tally.total;
      tally.last = s;
    }
  }
}

}  // namespace

std::string why_no_split(const TransformerJob& job, std::int64_t gpus,
                         const SplitConstraints& constraints) {
  const std::int64_t g = job.fabric.ranks_per_node;
  if (gpus > g && gpus % g != 0) {
    return fmt::format("the {} GPUs do not fill whole nodes of {}", gpus, g);
  }
  // Every tp x cp x pp x dp = N the constraints allow, by why it cannot run; cp is named
  // where a degree other than 1 is tried.
  const std::vector<std::int64_t> cps = cp_choices(job, constraints);
  const bool with_cp = cps.size() > 1 || cps.front() > 1;
  const std::string_view product = with_cp ? "tp x cp x pp x dp" : "tp x pp x dp";
  SplitTally tally;
  for (const std::int64_t cp : cps) {
    if (gpus % cp == 0) tally_splits(job, gpus, cp, constraints, tally);
  }
  if (tally.total == 0) {
    return fmt::format("no {} with the degrees given makes {} GPUs", product, gpus);
  }
  if (tally.total == 1) {
    const ParallelSplit& last = *tally.last;
    const std::string cp = last.cp > 1 ? fmt::format(" cp {}", last.cp) : "";
    return fmt::format("its one split, tp {}{} pp {} dp {}, cannot run: {}", last.tp, cp,
                       last.pp, last.dp,
                       split_problem_detail(job, last, split_problem(job, last)));
  }
  std::string reasons;
  for (const auto& [problem, count] : tally.by_problem) {
    if (problem == SplitProblem::kNone) continue;
    reasons += fmt::format("{}{} fail {}", reasons.empty() ? "" : ", ", count,
                           problem_in_numbers(job, problem));
  }
  // The experts' grid the tally is at: the scenario's ep and etp where it fixes either.
  const ParallelSplit d = constraints.defaults(job.framework);
  const std::string experts =
      is_moe(job.model) && (constraints.ep || constraints.etp)
          ? fmt::format(", ep {}, etp {}", d.ep, d.etp > 0 ? fmt::format("{}", d.etp) : "tp")
          : "";
  return fmt::format("of the {} ways to make them {} (at micro-batch {}, interleave {}{}), {}",
                     tally.total, product, constraints.micro_batch.value_or(1),
                     constraints.interleave.value_or(1), experts, reasons);
}

std::vector<NamedSplit> pure_alternatives(const TransformerJob& job, std::int64_t gpus,
                                          SplitConstraints constraints) {
  constraints.tp = 1;
  constraints.cp = 1;  // the whole sequence on each rank
  constraints.cp_a2a.reset();
  constraints.ep = 1;  // every expert on each GPU
  constraints.etp.reset();
  constraints.pp = 1;
  constraints.dp = gpus;
  constraints.interleave = 1;
  constraints.sequence_parallel = false;
  constraints.first_stage_layers.reset();  // one stage: no first or last to give
  constraints.last_stage_layers.reset();
  constraints.embedding_in_split.reset();
  constraints.loss_in_split.reset();
  std::vector<NamedSplit> out;
  for (const auto& [name, zero] : {std::pair<const char*, int>{"pure data parallel", 0},
                                   std::pair<const char*, int>{"pure ZeRO-3", 3}}) {
    // A framework that does not shard that far (megatron-lm-2021: ZeRO 0) has no pure ZeRO-3
    // of its own: it is priced as DeepSpeed runs it, and named so.
    TransformerJob run = job;
    std::string named = name;
    if (zero > job.framework.max_zero) {
      run.framework = framework_preset("deepspeed-zero");
      named = fmt::format("{} (as {} runs it)", name, run.framework.name);
    }
    SplitConstraints c = constraints;
    c.zero = zero;
    const SplitSearch s = search_splits(run, gpus, c, 1);
    NamedSplit n{named, std::nullopt, SplitProblem::kNone};
    if (!s.ranked.empty()) {
      n.best = s.ranked.front();
    } else {
      n.problem = evaluate_split(run, c.defaults(run.framework)).problem;
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
  open.tp_overlap = constraints.tp_overlap;
  open.cp_comm = constraints.cp_comm;  // as the framework runs it, or the scenario asks
  open.cp_a2a = constraints.cp_a2a;
  const SplitSearch search = search_splits(job, gpus, open, 1);
  if (!search.ranked.empty()) d.best = search.ranked.front();
  d.pure = pure_alternatives(job, gpus, constraints);
  if (constraints.degrees_fixed() && constraints.defaults(job.framework).gpus() == gpus) {
    d.baseline_name = "the scenario's split";
    // The split predict evaluates: its open choices at their defaults, none searched.
    const SplitStep own = evaluate_split(job, constraints.defaults(job.framework));
    if (own.problem == SplitProblem::kNone) {
      d.baseline = own;
    } else {
      d.baseline_problem = own.problem;
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

std::vector<SplitSearch> best_split_curve(const TransformerJob& job,
                                          const std::vector<std::int64_t>& grid,
                                          const SplitConstraints& constraints) {
  require_valid(job.model);
  // Degrees fixed by the scenario for one count cannot all hold at another: the data
  // parallel degree follows N.
  SplitConstraints c = constraints;
  c.dp.reset();
  const DegreeSpace space(job, c);
  std::int64_t candidates = 0;
  for (const std::int64_t n : grid) {
    if (n < 1) throw InputError(fmt::format("gpus {} must be at least 1", n));
    candidates += count_candidates(job, space, n, c, kMaxSearchCandidates - candidates);
    if (candidates > kMaxSearchCandidates) {
      const std::string where =
          grid.size() == 1
              ? fmt::format("{} GPUs", n)
              : fmt::format("the {} GPU counts ({} to {})", grid.size(),
                            *std::min_element(grid.begin(), grid.end()),
                            *std::max_element(grid.begin(), grid.end()));
      throw InputError(too_many_candidates(where, job, c));
    }
  }
  std::vector<SplitSearch> out;
  for (const std::int64_t n : grid) out.push_back(search_in(job, space, n, c, 1));
  return out;
}

}  // namespace scalewall
