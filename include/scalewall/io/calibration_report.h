// scalewall/io/calibration_report.h: the JSON report of `scalewall calibrate --format json`
// read back as the calibrated fabric it describes, so that a calibration kept as JSON
// compares (scalewall compare) like the fabric file that calibrate's --out writes.
//
// What is read: the link's size regimes from the "regimes" rows (from_bytes, alpha_s,
// bandwidth_Bps; a report without rows gives one regime from the top-level alpha_s and
// bandwidth_Bps), and the reduction cost gamma_s_per_byte (0 when null) with its further
// regimes from the "reduction_regimes" rows (from_bytes, gamma_s_per_byte). The fabric is flat
// (one rank per node, intra = inter), as calibrate's --out writes it. Every other field is
// left alone.
#ifndef SCALEWALL_CALIBRATION_REPORT_H_
#define SCALEWALL_CALIBRATION_REPORT_H_

#include <string>
#include <string_view>

#include "scalewall/model/topology.h"

namespace scalewall {

// Whether `text` is such a report: one JSON object whose "tool" is "scalewall" and whose
// "command" is "calibrate". Throws only for a text past the limits of every JSON file (2^21
// values; InputError naming `source_name`), which no reader takes.
bool is_calibration_report(std::string_view text, const std::string& source_name);

// The fabric of the report in `text`; `source_name` names it in messages. Throws InputError
// naming the source and the field when a field is missing or of the wrong type, or the
// regimes do not make a valid link (link.h's piecewise_link).
Topology parse_calibration_report(std::string_view text, const std::string& source_name);

}  // namespace scalewall

#endif  // SCALEWALL_CALIBRATION_REPORT_H_
