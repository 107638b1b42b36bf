// scalewall/io/fabric_file.h: reading a fabric description from a TOML file.
//
// A fabric file describes a two-level Topology (topology.h). Values with units are strings
// read by units.h ("2.5us", "400Gb/s"); a bare number is in SI base units (s, B/s). Every key
// is optional except the two links; defaults are those of Topology.
//
//   name = "dgx-h100-ndr"         # shown in reports
//   nominal = true                # datasheet figures, not measured (default true)
//   nodes = 16
//   ranks_per_node = 8
//   nics_per_node = 8
//   oversubscription = 1          # or "2:1"
//   placement = "packed"          # or "scattered"; or give rank_to_node = [0, 0, 1, 1, ...]
//   gamma = "0.5ns"               # reduction cost per byte reduced (scalewall-mpi reduce;
//                                 # calibrate fits it); default 0, the --gamma default
//   [[gamma_regimes]]             # optional: from this many bytes reduced in one step on,
//   from = "16MiB"                # this gamma (ascending; the top-level gamma prices the
//   gamma = "0.7ns"               # steps below the first)
//   local_min_bytes = "1KiB"      # the smallest size of the local passes: a copy or
//                                 # reduction over fewer bytes costs what it cost
//                                 # (CostOptions::local_min_bytes; calibrate writes it). 0
//   working_set_ranks = 2         # CPU ranks only: the ranks of one node that ran the
//                                 # measurements at once; steps are priced by the memory the
//                                 # whole call touches (CostOptions::working_set_ranks;
//                                 # calibrate writes it with local rates). Default 0: off
//   ranks = "gpu"                 # what the ranks are: "cpu" (default; MPI processes, the
//                                 # MPI selector) or "gpu" (NCCL/RCCL, the NCCL selector)
//   gpu = "hopper"                # GPU ranks only: volta, ampere, hopper (default),
//                                 # blackwell, cdna3 (MI300X under RCCL)
//   nvls = true                   # GPU ranks only: NVSwitches with NVLink SHARP (default false)
//   collnet = false               # GPU ranks only: SHARP in the network (default false)
//
//   [intra]                       # between ranks of one node
//   alpha = "2us"                 # start-up latency ("latency" is accepted too)
//   bandwidth = "450GB/s"
//
//   [inter]                       # one NIC into the inter-node fabric; alpha-beta as above,
//   L = "1.5us"                   # or LogGP: L latency, o overhead, g gap (times),
//   o = "0.5us"                   # G seconds per byte, or bandwidth instead of G.
//   g = "1us"                     # alpha becomes L + 2o and bandwidth 1/G.
//   G = "0.02ns"
//
//   duplex = "full"               # or "half": a step where every rank sends and receives
//   reverse_traffic = 0.05        # shares one rate; a full-duplex link loses this fraction
//                                 # of each message to reverse traffic (default 0)
//
//   [[inter.regimes]]             # optional further size regimes of a link (link.h): from
//   from = "64KiB"                # this message size on, this alpha and bandwidth (or LogGP
//   alpha = "5us"                 # L, o, g, G); the section's own figures price messages
//   bandwidth = "48GB/s"          # below the first `from`. Ascending, at most 10 in all.
//
//   [inter.exchange]              # optional: measured exchanges (both ranks send at once;
//   alpha = "3us"                 # scalewall-mpi exchange, calibrate fits them): a step where
//   bandwidth = "30GB/s"          # every rank sends and receives is priced by these, with
//   [[inter.exchange.regimes]]    # their own regimes, instead of the one-way figures x the
//   from = "64KiB"                # duplex factor (link.h). Figures and regimes as above; no
//   alpha = "9us"                 # duplex keys.
//   bandwidth = "20GB/s"
//
// Unknown keys are errors (a typo must not silently fall back to a default). Every error is an
// InputError naming the file, and where it applies the key and the line.
#ifndef SCALEWALL_FABRIC_FILE_H_
#define SCALEWALL_FABRIC_FILE_H_

#include <string>
#include <string_view>

#include "scalewall/model/topology.h"

namespace scalewall {

// Reads and validates the fabric file at `path`.
Topology load_fabric_file(const std::string& path);

// Parses fabric TOML held in memory; `source_name` names it in error messages.
Topology parse_fabric(std::string_view toml_text, const std::string& source_name);

}  // namespace scalewall

#endif  // SCALEWALL_FABRIC_FILE_H_
