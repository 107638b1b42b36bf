// src/test_support.h: small helpers shared by the unit tests (src/*_test.cc); not installed.
#ifndef SCALEWALL_SRC_TEST_SUPPORT_H_
#define SCALEWALL_SRC_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <string>

#include "scalewall/base/error.h"
#include "scalewall/model/parallel_step.h"
#include "scalewall/model/topology.h"

namespace scalewall {

// Runs `body`, requires an InputError, and returns its message (empty, with a test failure,
// when none is thrown).
template <typename F>
std::string input_error_of(F&& body) {
  try {
    body();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

// A DGX A100-like node as the fabric preset has it (8 GPUs on 300 GB/s NVLink, 8 NICs of
// 25 GB/s), built here so that the model layer's tests need no reader.
inline Topology dgx_a100_node() {
  Topology t;
  t.name = "dgx-a100";
  t.nodes = 1;
  t.ranks_per_node = 8;
  t.nics_per_node = 8;
  t.intra.alpha_s = 2e-6;
  t.intra.bandwidth_Bps = 300e9;
  t.inter.alpha_s = 3e-6;
  t.inter.bandwidth_Bps = 25e9;
  t.rank_kind = RankKind::kGpu;
  t.gpu.generation = GpuGeneration::kAmpere;
  return t;
}

// GPT 1.7B of Narayanan et al. 2021, Table 1 (fp16, a global batch of 512 sequences of 2,048
// tokens) on DGX A100 nodes under megatron-lm-2021, and the split tp 2 x pp 4 x dp 4 with full
// recomputation: a 32-GPU job of four nodes for the tests of a run and its variance.
inline TransformerJob gpt_1p7b_on_a100() {
  TransformerJob job;
  job.framework = framework_preset("megatron-lm-2021");
  job.model = {2304, 4 * 2304, 24, 24, 24, 2048, 51200};
  job.training = {512, 1, DType::kFp16};
  job.gpu = accelerator_preset("a100-80gb");
  job.fabric = dgx_a100_node();
  return job;
}
inline ParallelSplit tp2_pp4_dp4_full_recompute() {
  ParallelSplit s;
  s.tp = 2;
  s.pp = 4;
  s.dp = 4;
  s.recompute = Recompute::kFull;
  return s;
}

// Whether `part` occurs in `text`.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace scalewall

#endif  // SCALEWALL_SRC_TEST_SUPPORT_H_
