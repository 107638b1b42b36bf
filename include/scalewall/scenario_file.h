// scalewall/scenario_file.h: reading a training scenario (workload, network, variance,
// remedies, checkpoint, what-if parameters) from a TOML file.
//
// Values with units are strings read by units.h ("14GB", "300ms", "50GB/s"); bare numbers are
// SI base units (B, s, B/s) or plain counts and fractions. Unknown keys and sections are
// errors. Every error is an InputError naming the file, the key (as section.key) and the
// value, and the line where there is one.
//
//   name = "seed-7b"                       # optional; default: the file name
//   description = "..."                    # optional, free text
//
//   [workload]
//   parameters = 7e9                       # with gradient_dtype or bytes_per_gradient ...
//   gradient_dtype = "bf16"                #   fp32 | tf32 (4 B) | bf16 | fp16 (2 B) | fp8 (1 B)
//   # bytes_per_gradient = 2               #   ... or give the bytes per element directly
//   # gradient_bytes = "14GB"              # ... or the gradient size directly (not both)
//   compute = "300ms"                      # per-rank forward+backward of one step ...
//   reference_ranks = 8                    #   ... at this rank count (default 1)
//   serial = "0s"                          # per-step serial time (default 0)
//   scaling = "strong"                     # strong | weak (required)
//   backward_fraction = 0.667              # default 2/3
//
//   [network]                              # exactly one of:
//   fabric = "../fabrics/dgx-h100-ndr.toml"  # a fabric file (path relative to this file)
//   # alpha = "2.5us"; bandwidth = "25GB/s"  # a flat link
//   # busbw = "50GB/s"; alpha = "0us"        # a measured all-reduce bus bandwidth (alpha
//                                            #   optional, default 0)
//   # [network.fabric_inline] ...            # (not supported: put fabrics in their own file)
//   algorithm = "auto"                     # auto (cheapest per call) or an all-reduce name
//   gamma = "0ns"                          # reduction cost per byte (default 0)
//   tree_chunk = "512KiB"                  # double binary tree chunk (default 512 KiB)
//
//   [variance]                             # optional
//   sigma = 0.02                           # or "2%"
//   bad_node_slowdown = 1.0                # >= 1
//   bad_link_bandwidth = "10GB/s"          # optional
//
//   [remedies]                             # how the job runs now (all optional)
//   overlap = false
//   bucket = "25MB"                        # "0" or "none": one fused call
//   hierarchical = false
//   placement = "packed"                   # overrides the fabric's (fabric networks only)
//   compression_ratio = 1.0                # >= 1
//   compression_cost = "0ns"               # per gradient byte
//   accumulation_steps = 1
//   batch_scale = 1.0
//
//   [checkpoint]                           # optional
//   bytes = "100GB"
//   write_bandwidth = "5GB/s"
//   shared = true                          # false: per node
//   interval_steps = 1000
//   async = false
//
//   [what_if]                              # parameters of the what-if remedies (optional)
//   compression_ratio = 2.0
//   compression_cost = "0ns"
//   accumulation_steps = 4
//   batch_scale = 2.0
#ifndef SCALEWALL_SCENARIO_FILE_H_
#define SCALEWALL_SCENARIO_FILE_H_

#include <string>
#include <string_view>

#include "scalewall/predict.h"
#include "scalewall/step_model.h"

namespace scalewall {

struct ScenarioFile {
  Scenario scenario;
  WhatIfOptions what_if;
  std::string description;
  std::string network_description;  // one line: "fabric dgx-h100-ndr (...)", "busbw 50 GB/s"
};

// Reads and validates the scenario at `path` (a fabric path inside it is resolved relative to
// the scenario's directory).
ScenarioFile load_scenario_file(const std::string& path);

// Parses scenario TOML held in memory; `source_name` names it in errors and `base_dir`
// resolves a relative fabric path.
ScenarioFile parse_scenario(std::string_view toml_text, const std::string& source_name,
                            const std::string& base_dir);

}  // namespace scalewall

#endif  // SCALEWALL_SCENARIO_FILE_H_
