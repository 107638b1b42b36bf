// Fuzz target: the Hugging Face config.json reader (hf_config.h), then what a transformer
// scenario does with an accepted shape: its parameters and FLOPs, and one split's step and
// memory, which must come out finite.
#include <algorithm>
#include <cstdint>

#include "scalewall/io/hf_config.h"
#include "scalewall/model/accelerator.h"
#include "scalewall/model/parallel_step.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scalewall;
  fuzz::guarded([&] {
    TransformerShape m = parse_hf_config(fuzz::as_text(data, size), "fuzz.json");
    if (m.seq == 0) m.seq = 2048;  // a scenario gives it when the file does not
    require_valid(m);
    fuzz::require_finite(model_parameters(m), "parameters");
    fuzz::require_finite(step_flops(m, 8, Recompute::kSelective).executed(), "flops");
    TransformerJob job;
    job.model = m;
    job.training = {8, 1, DType::kBf16};
    job.gpu = accelerator_preset("h100-sxm");
    job.fabric.name = "node";
    job.fabric.ranks_per_node = 8;
    job.fabric.nics_per_node = 8;
    job.fabric.intra.alpha_s = 2e-6;
    job.fabric.intra.bandwidth_Bps = 450e9;
    job.fabric.inter.alpha_s = 3e-6;
    job.fabric.inter.bandwidth_Bps = 50e9;
    ParallelSplit s;
    s.tp = std::min<std::int64_t>(m.kv_heads, 8);
    const SplitStep r = evaluate_split(job, s);
    if (r.problem != SplitProblem::kNone) return;
    fuzz::require_finite(r.step_s, "step_s");
    fuzz::require_finite(r.memory.total(), "memory");
  });
  return 0;
}
