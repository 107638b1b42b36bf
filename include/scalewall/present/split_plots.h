// scalewall/present/split_plots.h: figures of a transformer's parallel splits (split_search.h):
// each split's step time by mechanism and its memory per GPU by part against the device's
// capacity, as gnuplot scripts (plot.h's Plot; the same title and quoting rules).
//
// Each bar is one split, labelled "#rank tp T pp P dp D" or by `labels` (one per split when not
// empty: "pure data parallel"). The data are written as they are in
// the split's JSON (split_tables.h's add_split_fields): the breakdown in seconds, one column per
// *_s key (compute_s, recompute_s, tp_comm_s, cp_comm_s and ep_comm_s where a split has them,
// pp_bubble_s, pp_transfer_s, dp_comm_s, optimizer_s, variance_s, serial_s) and step_s; memory in bytes, one column per part and
// memory_per_gpu_bytes and memory_limit_bytes. The axes show seconds and GB (1e9 B).
#ifndef SCALEWALL_SPLIT_PLOTS_H_
#define SCALEWALL_SPLIT_PLOTS_H_

#include <span>
#include <string>
#include <string_view>

#include "scalewall/model/parallel_step.h"
#include "scalewall/present/plot.h"

namespace scalewall {

// The step of each split stacked by mechanism (seconds), its step time marked on top. Name
// "split-breakdown"; title "MODEL: step time by mechanism of the best splits of <subject>".
// Mechanisms that are zero in every split are left out of the stack and named in the subtitle.
// REQUIRES: at least one split, each one that can run (problem kNone), and labels empty or one
// per split (throws InputError).
Plot split_breakdown_plot(std::span<const SplitStep> splits, std::string_view subject,
                          std::string_view network, std::span<const std::string> labels = {});

// The memory per GPU of each split (its first pipeline stage) stacked by part: weights,
// gradients, optimizer state, activations, buffers, with the GPU's capacity as a dashed line;
// a split that does not fit is labelled with what it lacks. The axis stops at 1.6 times the
// capacity (or the tallest bar below that): a bar beyond it is cut at the top, its label there. Name "memory"; title "MODEL:
// memory per GPU of the best splits of <subject>". REQUIRES: as split_breakdown_plot.
Plot split_memory_plot(std::span<const SplitStep> splits, std::string_view subject,
                       std::string_view network, std::span<const std::string> labels = {});

}  // namespace scalewall

#endif  // SCALEWALL_SPLIT_PLOTS_H_
