// Scenario loading and overrides for the step-model commands; see cli/scenario_flags.h.
#include "cli/scenario_flags.h"

#include <fmt/format.h>

#include "cli/common.h"
#include "scalewall/io/fabric_file.h"
#include "scalewall/io/fabric_presets.h"
#include "scalewall/io/gpu_file.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/nccl.h"
#include "scalewall/base/units.h"
#include "scalewall/model/accelerator.h"
#include "scalewall/model/transformer.h"

namespace scalewall::cli {
namespace {

bool flag_on_off(std::string_view flag, const std::string& text) {
  if (text == "on" || text == "true" || text == "yes") return true;
  if (text == "off" || text == "false" || text == "no") return false;
  throw InputError(fmt::format("{}: '{}' is not on or off", flag, text));
}

// --fabric replaces the scenario's network with a fabric file; the override flags then change
// that fabric, or the one the scenario names. A flat link or a bus bandwidth has no fabric
// figures to change.
void apply_network_flags(const FabricFlags& flags, ScenarioFile& file) {
  Scenario& s = file.scenario;
  if (!flags.fabric.empty()) {
    s.network = Network{};
    s.network.fabric = with_flag("--fabric", [&] { return load_fabric(flags.fabric); });
    file.network_is_fabric_file = true;
  }
  if (!has_fabric_overrides(flags)) {
    if (!flags.fabric.empty()) file.network_description = describe_scenario_fabric(*s.network.fabric);
    return;
  }
  if (!file.network_is_fabric_file) {
    throw InputError(fmt::format(
        "{}: changes a fabric file's figures; the scenario's network is a flat link or a bus "
        "bandwidth (give a fabric with --fabric)",
        first_override(flags)));
  }
  apply_fabric_overrides(flags, *s.network.fabric);
  file.network_description = describe_scenario_fabric(*s.network.fabric);
}

// The levels of the four remedies that a scenario's [remedies] sets and its [what_if] tries,
// under the same keys in both: Settings and WhatIfOptions name them alike.
template <typename Levels>
void add_remedy_levels(nlohmann::ordered_json& j, const Levels& levels) {
  j["compression_ratio"] = levels.compression_ratio;
  j["compression_s_per_byte"] = levels.compression_s_per_byte;
  j["accumulation_steps"] = levels.accumulation_steps;
  j["batch_scale"] = levels.batch_scale;
}

// The first transformer flag given, or "".
std::string_view first_transformer_flag(const TransformerFlags& t) {
  const std::pair<std::string_view, const std::string*> all[] = {
      {"--tp", &t.tp}, {"--pp", &t.pp}, {"--dp", &t.dp}, {"--cp", &t.cp},
      {"--cp-comm", &t.cp_comm}, {"--ep", &t.ep}, {"--etp", &t.etp},
      {"--micro-batch", &t.micro_batch},
      {"--interleave", &t.interleave}, {"--sequence-parallel", &t.sequence_parallel},
      {"--recompute", &t.recompute}, {"--zero", &t.zero}, {"--dp-overlap", &t.dp_overlap},
      {"--gpu", &t.gpu}, {"--gpus", &t.gpus}, {"--global-batch", &t.global_batch},
      {"--dtype", &t.dtype}};
  for (const auto& [name, value] : all) {
    if (!value->empty()) return name;
  }
  return "";
}

// The data-parallel overrides a transformer scenario refuses: its compute and communication
// come from the model and the split.
void reject_data_parallel_flags(const ScenarioFlags& f) {
  const std::pair<std::string_view, const std::string*> all[] = {
      {"--overlap", &f.overlap}, {"--bucket", &f.bucket},
      {"--hierarchical", &f.hierarchical}, {"--algorithm", &f.algorithm},
      {"--selector", &f.selector}, {"--compression-ratio", &f.compression_ratio},
      {"--accumulation-steps", &f.accumulation_steps}, {"--batch-scale", &f.batch_scale}};
  for (const auto& [name, value] : all) {
    if (!value->empty()) {
      throw InputError(fmt::format(
          "{}: applies to a data-parallel scenario ([workload]); {} is a transformer scenario "
          "(its compute and communication follow from [model] and [parallel])",
          name, f.path));
    }
  }
}

constexpr std::int64_t kMaxDegree = std::int64_t{1} << 40;

// --scaling: strong or weak, on either kind of scenario.
ScalingMode flag_scaling(const std::string& text) {
  const std::optional<ScalingMode> mode = parse_scaling_mode(text);
  if (!mode) throw InputError(fmt::format("--scaling: '{}' is not strong or weak", text));
  return *mode;
}

// --sigma: a fraction in [0, 1], as the scenario key variance.sigma takes.
double flag_sigma(const std::string& text) {
  const double sigma = flag_fraction("--sigma", text);
  if (!(sigma >= 0.0 && sigma <= 1.0)) {
    throw InputError(fmt::format("--sigma: jitter sigma '{}' ({:g}) is outside [0, 1] (a "
                                 "fraction of the compute time: write 2% as 0.02)",
                                 text, sigma));
  }
  return sigma;
}

// The dtype must have tensor cores on the accelerator; the flag that set either is named.
void require_dtype_on_gpu(const ScenarioFlags& flags, const TransformerJob& job) {
  const DType dtype = job.training.dtype;
  if (job.gpu.supports(dtype)) return;
  const TransformerFlags& f = flags.transformer;
  if (f.dtype.empty()) {
    throw InputError(fmt::format(
        "--gpu: {} has no {} tensor cores, which training.dtype in {} asks for (use --dtype "
        "bf16 or fp16, or an accelerator that has them)",
        f.gpu, dtype_name(dtype), flags.path));
  }
  throw InputError(fmt::format("--dtype: '{}' needs {} tensor cores, and {} ({}) has none (use "
                               "bf16 or fp16)",
                               f.dtype, dtype_name(dtype), job.gpu.name,
                               f.gpu.empty() ? fmt::format("system.gpu in {}", flags.path)
                                             : std::string("--gpu")));
}

// The first of --tp, --pp, --dp and --cp given, for an error about their product.
std::string_view first_degree_flag(const TransformerFlags& f) {
  if (!f.tp.empty()) return "--tp";
  if (!f.pp.empty()) return "--pp";
  if (!f.dp.empty()) return "--dp";
  return "--cp";
}

void apply_parallel_flags(const TransformerFlags& f, SplitConstraints& c) {
  if (!f.tp.empty()) c.tp = flag_count("--tp", f.tp, 1, kMaxDegree);
  if (!f.pp.empty()) c.pp = flag_count("--pp", f.pp, 1, kMaxDegree);
  if (!f.dp.empty()) c.dp = flag_count("--dp", f.dp, 1, kMaxDegree);
  if (!f.cp.empty()) c.cp = flag_count("--cp", f.cp, 1, kMaxDegree);
  if (!f.cp_comm.empty()) {
    c.cp_comm = with_flag("--cp-comm", [&] { return parse_cp_comm(f.cp_comm); });
  }
  if (!f.ep.empty()) c.ep = flag_count("--ep", f.ep, 1, kMaxDegree);
  if (!f.etp.empty()) c.etp = flag_count("--etp", f.etp, 1, kMaxDegree);
  if (!f.micro_batch.empty()) c.micro_batch = flag_count("--micro-batch", f.micro_batch, 1, kMaxDegree);
  if (!f.interleave.empty()) c.interleave = flag_count("--interleave", f.interleave, 1, kMaxDegree);
  if (!f.sequence_parallel.empty()) {
    c.sequence_parallel = flag_on_off("--sequence-parallel", f.sequence_parallel);
  }
  if (!f.recompute.empty()) {
    c.recompute = with_flag("--recompute", [&] { return parse_recompute(f.recompute); });
  }
  if (!f.zero.empty()) c.zero = static_cast<int>(flag_count("--zero", f.zero, 0, 3));
  if (!f.dp_overlap.empty()) c.dp_overlap = flag_on_off("--dp-overlap", f.dp_overlap);
}

// --cp and --cp-comm under a framework without context parallelism are refused as the
// scenario's keys are, and cp_a2a sizes the hierarchical exchange only.
void require_context_parallel(const ScenarioFlags& flags, const TransformerScenario& t) {
  const TransformerFlags& f = flags.transformer;
  FrameworkChoices choices;
  choices.cp = t.parallel.cp;
  choices.cp_comm = t.parallel.cp_comm;
  if (const auto no = framework_refusal(t.job.framework, choices); no && !f.cp.empty()) {
    throw InputError(fmt::format("--cp: {}", no->reason));
  } else if (no && !f.cp_comm.empty()) {
    throw InputError(fmt::format("--cp-comm: {}", no->reason));
  }
  const CpComm comm = t.parallel.cp_comm.value_or(t.job.framework.cp_comm);
  if (!f.cp_comm.empty() && t.parallel.cp_a2a && comm != CpComm::kA2aP2p) {
    throw InputError(fmt::format("--cp-comm: parallel.cp_a2a in {} applies to a2a+p2p only",
                                 flags.path));
  }
  if (!f.cp.empty() && t.parallel.cp_a2a && *t.parallel.cp % *t.parallel.cp_a2a != 0) {
    throw InputError(fmt::format("--cp: {} is not a multiple of parallel.cp_a2a {} in {}",
                                 *t.parallel.cp, *t.parallel.cp_a2a, flags.path));
  }
}

// --ep and --etp as the scenario's keys are checked: a mixture of experts, ep dividing its
// experts, a framework with expert parallelism.
void require_expert_parallel(const ScenarioFlags& flags, const TransformerScenario& t) {
  const TransformerFlags& f = flags.transformer;
  const TransformerShape& m = t.job.model;
  for (const auto& [flag, text] : {std::pair<std::string_view, const std::string*>{"--ep", &f.ep},
                                   std::pair<std::string_view, const std::string*>{"--etp", &f.etp}}) {
    if (text->empty()) continue;
    if (!is_moe(m)) {
      throw InputError(fmt::format("{}: needs a mixture of experts (model.experts is 0 in {})",
                                   flag, flags.path));
    }
    FrameworkChoices choices;
    choices.tp = t.parallel.tp;
    choices.ep = t.parallel.ep;
    choices.etp = t.parallel.etp;
    if (const auto no = framework_refusal(t.job.framework, choices)) {
      throw InputError(fmt::format("{}: {}", flag, no->reason));
    }
  }
  if (!f.ep.empty() && m.experts % *t.parallel.ep != 0) {
    throw InputError(fmt::format("--ep: {} does not divide model.experts {} in {}", *t.parallel.ep,
                                 m.experts, flags.path));
  }
}

// The GPU count against the degrees: --gpus (or predict's --ranks) when it gives one count,
// else system.gpus, else tp x cp x pp x dp. Where predict's one count is not the product and dp
// came from the file, dp follows it: N / (tp cp pp).
void settle_gpus(const ScenarioFlags& flags, TransformerScenario& t) {
  const TransformerFlags& f = flags.transformer;
  const bool alias = f.gpus.empty() && !flags.ranks_alias.empty();
  const std::string& text = alias ? flags.ranks_alias : f.gpus;
  const std::string_view flag = alias ? "--ranks" : "--gpus";
  const bool one_count = text.find_first_of(",.") == std::string::npos;
  const bool counted = !text.empty() && (one_count || !flags.gpus_curve);
  SplitConstraints& c = t.parallel;
  const std::int64_t product =
      c.degrees_fixed() ? with_flag(first_degree_flag(f), [&] {
        return split_gpus(*c.tp, *c.pp, *c.dp, c.cp.value_or(1));
      })
                        : 0;
  if (counted) {
    t.gpus = flag_count(flag, text, 1, kMaxDegree);
  } else if (product != 0 && !t.gpus_given) {
    t.gpus = product;
  }
  if (product != 0 && t.gpus != 0 && product != t.gpus) {
    if (counted && flags.gpus_curve && f.dp.empty()) {
      const std::int64_t cp = c.cp.value_or(1);
      const std::int64_t fixed = *c.tp * cp * *c.pp;
      if (t.gpus % fixed != 0) {
        throw InputError(
            cp == 1 ? fmt::format("{}: {} GPUs is not a whole multiple of tp x pp = {} x {} = {} "
                                  "(the scenario's split is scaled in data parallelism, dp = N / "
                                  "(tp pp))",
                                  flag, t.gpus, *c.tp, *c.pp, fixed)
                    : fmt::format("{}: {} GPUs is not a whole multiple of tp x cp x pp = {} x {} "
                                  "x {} = {} (the scenario's split is scaled in data "
                                  "parallelism, dp = N / (tp cp pp))",
                                  flag, t.gpus, *c.tp, cp, *c.pp, fixed));
      }
      c.dp = t.gpus / fixed;
      return;
    }
    if (c.cp.value_or(1) == 1) {
      throw InputError(fmt::format("tp x pp x dp = {} x {} x {} = {} is not the {} GPUs", *c.tp,
                                   *c.pp, *c.dp, product, t.gpus));
    }
    throw InputError(fmt::format("tp x cp x pp x dp = {} x {} x {} x {} = {} is not the {} GPUs",
                                 *c.tp, *c.cp, *c.pp, *c.dp, product, t.gpus));
  }
  if (t.gpus == 0) {
    throw InputError(fmt::format(
        "{}: system.gpus is missing (give it, --gpus N, or all of tp, pp and dp)", flags.path));
  }
}

void apply_transformer_flags(const ScenarioFlags& flags, ScenarioFile& file) {
  reject_data_parallel_flags(flags);
  TransformerScenario& t = *file.transformer;
  const TransformerFlags& f = flags.transformer;
  apply_parallel_flags(f, t.parallel);
  require_context_parallel(flags, t);
  require_expert_parallel(flags, t);
  if (!f.micro_batch.empty()) t.job.training.micro_batch = *t.parallel.micro_batch;
  if (!f.gpu.empty()) t.job.gpu = with_flag("--gpu", [&] { return load_accelerator(f.gpu); });
  if (!f.global_batch.empty()) {
    t.job.training.global_batch = flag_count("--global-batch", f.global_batch, 1, kMaxDegree);
  }
  if (!f.dtype.empty()) t.job.training.dtype = with_flag("--dtype", [&] { return parse_dtype(f.dtype); });
  if (!flags.sigma.empty()) t.job.sigma = flag_sigma(flags.sigma);
  if (!flags.scaling.empty()) t.scaling = flag_scaling(flags.scaling);
  if (!f.gpu.empty() || !f.dtype.empty()) require_dtype_on_gpu(flags, t.job);
  if (!flags.network.fabric.empty()) {
    t.job.fabric = with_flag("--fabric", [&] { return load_fabric(flags.network.fabric); });
    t.fabric_name = flags.network.fabric;
  }
  if (has_fabric_overrides(flags.network)) apply_fabric_overrides(flags.network, t.job.fabric);
  file.network_description = describe_node_fabric(t.job.fabric);
  settle_gpus(flags, t);
}

}  // namespace

FlagGroup scenario_flags(ScenarioFlags* flags, bool optional) {
  FlagGroup group = {
      {"scenario", &flags->path,
       "Scenario file (TOML): workload, network, variance, remedies, checkpoint; see "
       "docs/scenarios.md and examples/",
       "SCENARIO", {}, optional ? FlagKind::kOptional : FlagKind::kRequired},
      {"--scaling", &flags->scaling, "Override: strong or weak scaling", "MODE"},
      {"--overlap", &flags->overlap, "Override: overlap the all-reduce with backward (on/off)",
       "on|off"},
      {"--bucket", &flags->bucket, "Override: bucket size (0: one fused call)", "SIZE"},
      {"--hierarchical", &flags->hierarchical, "Override: allow hierarchical all-reduce (on/off)",
       "on|off"},
  };
  const FlagGroup network = fabric_flags(&flags->network, FabricUse::kScenario);
  group.insert(group.end(), network.begin(), network.end());
  group.insert(group.end(), {
      {"--algorithm", &flags->algorithm,
       "Override: all-reduce algorithm (auto: the cheapest per call)", "NAME"},
      {"--selector", &flags->selector,
       "Override: what prices each all-reduce (SELECTOR): nccl (NCCL's algorithm and protocol "
       "choice, for GPU fabrics), mpi (the cheapest MPI algorithm), or auto (nccl on a fabric "
       "whose ranks are GPUs, mpi otherwise; the default)",
       "SELECTOR"},
      {"--compression-ratio", &flags->compression_ratio,
       "Override: gradient compression ratio (>= 1)", "R"},
      {"--accumulation-steps", &flags->accumulation_steps,
       "Override: micro-batches accumulated per all-reduce", "A"},
      {"--batch-scale", &flags->batch_scale, "Override: per-rank batch relative to the scenario's",
       "X"},
      {"--sigma", &flags->sigma, "Override: per-rank compute jitter (0.02 or 2%)", "F"},
  });
  TransformerFlags& t = flags->transformer;
  group.insert(group.end(), {
      {"--tp", &t.tp, "Transformer scenarios: tensor-parallel degree (parallel.tp)", "N"},
      {"--pp", &t.pp, "Transformer scenarios: pipeline-parallel degree (parallel.pp)", "N"},
      {"--dp", &t.dp, "Transformer scenarios: data-parallel degree (parallel.dp)", "N"},
      {"--cp", &t.cp,
       "Transformer scenarios: context-parallel degree, the sequence split over N ranks "
       "(parallel.cp)",
       "N"},
      {"--cp-comm", &t.cp_comm,
       "Transformer scenarios: the context-parallel exchange, p2p, a2a or a2a+p2p "
       "(parallel.cp_comm)",
       "MODE"},
      {"--ep", &t.ep,
       "Transformer scenarios: expert-parallel degree, a mixture of experts' experts over N "
       "ranks (parallel.ep)",
       "N"},
      {"--etp", &t.etp,
       "Transformer scenarios: the experts' tensor-parallel degree (parallel.etp; default tp)",
       "N"},
      {"--micro-batch", &t.micro_batch, "Transformer scenarios: sequences per micro-batch",
       "B"},
      {"--interleave", &t.interleave, "Transformer scenarios: model chunks per pipeline stage",
       "V"},
      {"--sequence-parallel", &t.sequence_parallel,
       "Transformer scenarios: sequence parallelism (on/off)", "on|off"},
      {"--recompute", &t.recompute,
       "Transformer scenarios: activation recomputation (none, selective, full)", "MODE"},
      {"--zero", &t.zero, "Transformer scenarios: ZeRO stage (0-3; 3: FSDP)", "Z"},
      {"--dp-overlap", &t.dp_overlap,
       "Transformer scenarios: overlap the gradient reduction with backward (on/off)", "on|off"},
      {"--gpu", &t.gpu,
       "Transformer scenarios: accelerator preset or GPU file (system.gpu; scalewall gpus)",
       "NAME|FILE"},
      {"--gpus", &t.gpus, "Transformer scenarios: GPU count (system.gpus)", "N"},
      {"--global-batch", &t.global_batch, "Transformer scenarios: sequences per step", "B"},
      {"--dtype", &t.dtype, "Transformer scenarios: bf16, fp16 or fp8", "DTYPE"},
  });
  return group;
}

ScenarioFile load_scenario(const ScenarioFlags& flags) {
  ScenarioFile file = load_scenario_file(flags.path);
  if (file.transformer) {
    apply_transformer_flags(flags, file);
    return file;
  }
  if (const std::string_view name = first_transformer_flag(flags.transformer); !name.empty()) {
    throw InputError(fmt::format(
        "{}: applies to a transformer scenario (one with [model]); {} is a data-parallel "
        "scenario",
        name, flags.path));
  }
  Scenario& s = file.scenario;
  if (!flags.scaling.empty()) s.workload.mode = flag_scaling(flags.scaling);
  if (!flags.overlap.empty()) s.settings.overlap = flag_on_off("--overlap", flags.overlap);
  if (!flags.bucket.empty()) {
    s.settings.bucket_bytes = flag_bytes("--bucket", flags.bucket);
    with_flag("--bucket",
              [&] { require_in_range("bucket", s.settings.bucket_bytes, kScenarioBytes); });
  }
  if (!flags.hierarchical.empty()) {
    s.settings.hierarchical = flag_on_off("--hierarchical", flags.hierarchical);
    if (s.settings.hierarchical && !file.network_is_fabric_file) {
      throw InputError(
          "--hierarchical: hierarchical collectives need a fabric file (nodes of several ranks); "
          "the scenario's network is a flat link or a bus bandwidth");
    }
  }
  apply_network_flags(flags.network, file);
  if (!flags.algorithm.empty()) {
    if (flags.algorithm == "auto") {
      s.settings.algorithm.reset();
    } else {
      const AlgorithmSpec a = with_flag("--algorithm", [&] { return parse_algorithm(flags.algorithm); });
      if (!implements(Op::kAllreduce, a)) {
        throw InputError(fmt::format("--algorithm: '{}' is not an all-reduce algorithm",
                                     flags.algorithm));
      }
      s.settings.algorithm = a;
    }
  }
  if (!flags.selector.empty()) {
    s.settings.selector = with_flag("--selector", [&] { return parse_call_selector(flags.selector); });
  }
  // Checked after every flag: --fabric may have replaced the GPU fabric network.selector chose
  // NCCL for.
  if (s.settings.selector == CallSelector::kNccl &&
      !(s.network.fabric && s.network.fabric->rank_kind == RankKind::kGpu)) {
    throw InputError(fmt::format(
        "{} nccl: NCCL's choice needs a fabric whose ranks are GPUs (a GPU preset, or a fabric "
        "file with ranks = \"gpu\")",
        flags.selector.empty() ? "network.selector" : "--selector"));
  }
  if (!flags.compression_ratio.empty()) {
    s.settings.compression_ratio = flag_number("--compression-ratio", flags.compression_ratio);
    with_flag("--compression-ratio", [&] {
      require_in_range("compression ratio", s.settings.compression_ratio, kScenarioFactor);
    });
  }
  if (!flags.accumulation_steps.empty()) {
    s.settings.accumulation_steps =
        flag_count("--accumulation-steps", flags.accumulation_steps, 1, 1000000);
  }
  if (!flags.batch_scale.empty()) {
    s.settings.batch_scale = flag_number("--batch-scale", flags.batch_scale);
    with_flag("--batch-scale", [&] {
      require_in_range("batch scale", s.settings.batch_scale, kScenarioBatchScale);
    });
  }
  if (!flags.sigma.empty()) s.variance.sigma = flag_sigma(flags.sigma);
  with_flag(flags.path, [&] { require_valid(s); });
  return file;
}

std::string selector_used(const ScenarioFile& file) {
  const Scenario& s = file.scenario;
  return s.network.fabric && prices_with_nccl(s.settings, *s.network.fabric) ? "nccl" : "mpi";
}

std::string selector_used_text(const ScenarioFile& file) {
  if (selector_used(file) != "nccl") return "mpi (the cheapest MPI algorithm per call)";
  return fmt::format(
      "nccl (NCCL {}'s algorithm and protocol choice)",
      nccl_release_name(nccl_tables_release(file.scenario.network.fabric->gpu.nccl_release)));
}

namespace {

// The attention's and the experts' keys as the model uses them: head_dim resolved (MHA), the
// latent attention's ranks (MLA), and the experts' keys of a mixture of experts (moe_ffn
// resolved; capacity_factor null when dropless).
void model_structure_inputs(const TransformerShape& model, nlohmann::ordered_json& m) {
  m["attention"] = std::string(attention_name(model.attention));
  if (model.attention == AttentionKind::kMla) {
    m["q_lora_rank"] = model.q_lora_rank;
    m["kv_lora_rank"] = model.kv_lora_rank;
    m["qk_nope_dim"] = model.qk_nope_dim;
    m["qk_rope_dim"] = model.qk_rope_dim;
    m["v_head_dim"] = model.v_head_dim;
  } else {
    m["head_dim"] = model.head_dim > 0 ? model.head_dim : model.hidden / model.heads;
  }
  m["experts"] = model.experts;
  if (!is_moe(model)) return;
  m["topk"] = model.topk;
  m["moe_ffn"] = model.moe_ffn > 0 ? model.moe_ffn : model.ffn;
  m["shared_experts"] = model.shared_experts;
  m["moe_every"] = model.moe_every;
  m["dense_layers"] = model.dense_layers;
  m["capacity_factor"] = model.capacity_factor > 0.0 ? nlohmann::ordered_json(model.capacity_factor)
                                                     : nlohmann::ordered_json();
}

nlohmann::ordered_json model_inputs(const TransformerShape& m) {
  nlohmann::ordered_json j;
  j["hidden"] = m.hidden;
  j["ffn"] = m.ffn;
  j["heads"] = m.heads;
  j["kv_heads"] = m.kv_heads;
  j["layers"] = m.layers;
  j["seq"] = m.seq;
  j["vocab"] = m.vocab;
  j["mlp"] = mlp_name(m.mlp);
  j["tied_embeddings"] = m.tied_embeddings;
  j["position"] = position_name(m.position);
  model_structure_inputs(m, j);
  j["parameters"] = model_parameters(m);
  j["active_parameters"] = active_parameters(m);
  return j;
}

// The [parallel] choices as written: null where the scenario leaves one open.
nlohmann::ordered_json parallel_inputs(const SplitConstraints& c) {
  const auto opt = [](const auto& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
  };
  nlohmann::ordered_json p;
  p["tp"] = opt(c.tp);
  p["pp"] = opt(c.pp);
  p["dp"] = opt(c.dp);
  p["cp"] = opt(c.cp);
  p["cp_comm"] = c.cp_comm ? nlohmann::ordered_json(std::string(cp_comm_name(*c.cp_comm)))
                           : nlohmann::ordered_json();
  p["cp_a2a"] = opt(c.cp_a2a);
  p["ep"] = opt(c.ep);
  p["etp"] = opt(c.etp);
  p["interleave"] = opt(c.interleave);
  p["sequence_parallel"] = opt(c.sequence_parallel);
  p["recompute"] = c.recompute ? nlohmann::ordered_json(std::string(recompute_name(*c.recompute)))
                               : nlohmann::ordered_json();
  p["zero"] = opt(c.zero);
  p["dp_overlap"] = opt(c.dp_overlap);
  p["tp_overlap"] = opt(c.tp_overlap);
  p["first_stage_layers"] = opt(c.first_stage_layers);
  p["last_stage_layers"] = opt(c.last_stage_layers);
  p["embedding_in_split"] = opt(c.embedding_in_split);
  p["loss_in_split"] = opt(c.loss_in_split);
  return p;
}

nlohmann::ordered_json system_inputs(const TransformerScenario& t) {
  const TransformerJob& job = t.job;
  nlohmann::ordered_json y;
  y["gpu"] = job.gpu.name;
  y["peak_flops_per_s"] = job.gpu.peak_flops_per_s(job.training.dtype);
  y["hbm_bytes"] = job.gpu.hbm_bytes;
  y["hbm_Bps"] = job.gpu.hbm_Bps;
  y["fabric"] = t.fabric_name;
  add_fabric_figures(job.fabric, y["fabric_figures"]);
  y["gpus"] = t.gpus;
  y["gpus_per_node"] = job.fabric.ranks_per_node;
  y["framework"] = std::string(job.framework.name);
  y["memory_reserve"] = job.memory_reserve;
  return y;
}

}  // namespace

namespace {

// training.tokens, system.gpu_hour_cost, [checkpoint] and [failures] as read (null: not given;
// a checkpoint's null bytes: the model's 14 B per parameter; a null interval: the best).
nlohmann::ordered_json run_inputs(const TrainingRun& run) {
  const auto opt = [](const auto& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
  };
  nlohmann::ordered_json j;
  j["tokens"] = opt(run.tokens);
  j["gpu_hour_cost"] = opt(run.gpu_hour_cost);
  const CheckpointPlan& c = run.checkpoint;
  if (c.given) {
    nlohmann::ordered_json& k = j["checkpoint"];
    k["bytes"] = opt(c.bytes);
    k["write_bandwidth_Bps"] = c.write_bandwidth_Bps;
    k["write_bandwidth_per"] = std::string(write_scope_name(c.write_scope));
    k["interval_steps"] = opt(c.interval_steps);
    k["interval_s"] = opt(c.interval_s);
    k["async"] = c.async;
    k["host_bandwidth_Bps"] = c.host_copy_Bps;
  } else {
    j["checkpoint"] = nullptr;
  }
  if (run.failures.given) {
    j["failures"]["gpu_mtbf_s"] = run.failures.gpu_mtbf_s;
    j["failures"]["restart_s"] = run.failures.restart_s;
  } else {
    j["failures"] = nullptr;
  }
  return j;
}

}  // namespace

nlohmann::ordered_json transformer_inputs(const ScenarioFile& file) {
  const TransformerScenario& t = *file.transformer;
  const TransformerJob& job = t.job;
  nlohmann::ordered_json j;
  j["name"] = file.scenario.name;
  j["model"] = model_inputs(job.model);
  nlohmann::ordered_json& tr = j["training"];
  tr["global_batch"] = job.training.global_batch;
  tr["micro_batch"] = t.parallel.micro_batch ? nlohmann::ordered_json(*t.parallel.micro_batch)
                                             : nlohmann::ordered_json();
  tr["dtype"] = std::string(dtype_name(job.training.dtype));
  tr["scaling"] = std::string(scaling_mode_name(t.scaling));
  j["parallel"] = parallel_inputs(t.parallel);
  j["parallel"]["moe_imbalance"] =
      job.moe_imbalance > 0.0 ? nlohmann::ordered_json(job.moe_imbalance) : nlohmann::ordered_json();
  j["system"] = system_inputs(t);
  j["variance"]["sigma"] = job.sigma;
  if (job.bad_node_slowdown > 1.0) j["variance"]["bad_node_slowdown"] = job.bad_node_slowdown;
  if (job.bad_link_bandwidth_Bps > 0) {
    j["variance"]["bad_link_bandwidth_Bps"] = job.bad_link_bandwidth_Bps;
  }
  if (t.run.any()) j["run"] = run_inputs(t.run);
  return j;
}

nlohmann::ordered_json scenario_inputs(const ScenarioFile& file) {
  const Scenario& s = file.scenario;
  nlohmann::ordered_json j;
  j["name"] = s.name;
  nlohmann::ordered_json& w = j["workload"];
  w["gradient_bytes"] = s.workload.gradient_bytes;
  w["compute_s"] = s.workload.compute_s;
  w["reference_ranks"] = s.workload.reference_ranks;
  w["serial_s"] = s.workload.serial_s;
  w["scaling"] = std::string(scaling_mode_name(s.workload.mode));
  w["backward_fraction"] = s.workload.backward_fraction;
  nlohmann::ordered_json& n = j["network"];
  if (s.network.fabric) {
    const Topology& t = *s.network.fabric;
    n["fabric"] = t.name;
    add_fabric_figures(t, n);
    n["intra"] = link_inputs(t.intra);
    n["inter"] = link_inputs(t.inter);
  } else {
    n["busbw_Bps"] = s.network.busbw_Bps;
    n["alpha_s"] = s.network.busbw_alpha_s;
  }
  n["algorithm"] = s.settings.algorithm ? algorithm_name(*s.settings.algorithm) : "auto";
  n["selector"] = std::string(call_selector_name(s.settings.selector));
  n["selector_used"] = selector_used(file);
  n["gamma_s_per_byte"] = s.settings.cost.gamma_s_per_byte;
  n["tree_chunk_bytes"] = s.settings.cost.tree_chunk_bytes;
  nlohmann::ordered_json& v = j["variance"];
  v["sigma"] = s.variance.sigma;
  v["bad_node_slowdown"] = s.variance.bad_node_slowdown;
  v["bad_link_bandwidth_Bps"] = s.variance.bad_link_bandwidth_Bps;
  nlohmann::ordered_json& r = j["remedies"];
  r["overlap"] = s.settings.overlap;
  r["bucket_bytes"] = s.settings.bucket_bytes;
  r["hierarchical"] = s.settings.hierarchical;
  add_remedy_levels(r, s.settings);
  nlohmann::ordered_json& c = j["checkpoint"];
  c["bytes"] = s.checkpoint.bytes;
  c["write_bandwidth_Bps"] = s.checkpoint.write_bandwidth_Bps;
  c["shared"] = s.checkpoint.shared;
  c["interval_steps"] = s.checkpoint.interval_steps;
  c["async"] = s.checkpoint.async;
  add_remedy_levels(j["what_if"], file.what_if);
  return j;
}

}  // namespace scalewall::cli
