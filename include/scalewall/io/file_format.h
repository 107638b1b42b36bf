// scalewall/io/file_format.h: what an input file holds, told by its content, never by its
// name. The one detector behind `report` (scenario or measurements), `diagnose` (scaling
// table or measurements) and the measurement reader (which of the log formats).
#ifndef SCALEWALL_FILE_FORMAT_H_
#define SCALEWALL_FILE_FORMAT_H_

#include <string_view>

namespace scalewall {

enum class FileFormat {
  kScenario,          // TOML with a [workload] section (scenario_file.h)
  kFabric,            // TOML with an [intra] or [inter] section and no [workload] (fabric_file.h)
  kScalingTableCsv,   // CSV whose header names a `ranks` column (scaling_table.h)
  kScalingTableJson,  // JSON rows: '[', or '{' not from scalewall-mpi (scaling_table.h)
  kScalewallMpi,      // JSON Lines whose first line names "scalewall-mpi" (measurement.h)
  kNcclTests,         // all_reduce_perf and friends
  kOsu,               // osu_latency, osu_bw, osu_allreduce
  kImb,               // Intel MPI Benchmarks
  kUnknown,           // none of these (or nothing but blanks)
};

// "scenario", "fabric", "scaling table (CSV)", ..., "unknown".
std::string_view file_format_name(FileFormat format);

// Whether `format` is one of the measurement logs read by read_measurement_file.
bool is_measurement_log(FileFormat format);

// The format of `text`, tested in this order: a TOML section among the first 4000 lines
// ([workload] for a scenario, else [intra] or [inter] for a fabric); then the first line
// that is neither blank nor a '#' comment (JSON rows, or a CSV header naming `ranks`); then
// the measurement logs by their marks (scalewall-mpi's envelope on the first line, the
// nccl-tests, OSU and IMB headers). Open MPI's --tag-output prefixes ("[1,0]<stdout>:") and a
// UTF-8 byte-order mark are ignored. Never throws: whether the file is well formed is the
// reader's to say.
FileFormat detect_file_format(std::string_view text);

}  // namespace scalewall

#endif  // SCALEWALL_FILE_FORMAT_H_
