// src/io/fabric_ranges.h: the ranges of a fabric's figures, for both of its readers (a fabric
// file, fabric_file.cc; calibrate's JSON report, calibration_report.cc).
//
// They are a scenario's ranges (step_model.h), so that every fabric a command reads costs
// every call it accepts in finite time, and no ratio of two fabrics' figures overflows. A
// link's latency and bandwidth are above zero.
#ifndef SCALEWALL_SRC_FABRIC_RANGES_H_
#define SCALEWALL_SRC_FABRIC_RANGES_H_

#include "scalewall/model/step_model.h"

namespace scalewall {

// LogGP L, o, g; the network plugin's latency and a network hop: 0 or 1e-12 s to 1e6 s.
inline constexpr ValueRange kFabricTime = kScenarioSeconds;
// A link's latency alpha: 1e-12 s to 1e6 s.
inline constexpr ValueRange kFabricLatency = kLinkLatency;
// A link's bandwidth: 1 B/s to 1 PB/s.
inline constexpr ValueRange kFabricRate = kScenarioRate;
// A regime's start, the smallest local size: 0 or 1 B to 1 EB.
inline constexpr ValueRange kFabricSize = kScenarioBytes;
// Local costs (gamma, copy, alloc, the sent-buffer ones): 0 or 1e-15 to 1 s/B.
inline constexpr ValueRange kFabricSecondsPerByte = kScenarioSecondsPerByte;
// LogGP G, the inverse of a bandwidth: 1e-15 to 1 s/B.
inline constexpr ValueRange kFabricPerByteAboveZero{
    RangeUnit::kSecondsPerByte, kScenarioSecondsPerByte.lo, kScenarioSecondsPerByte.hi, false};
// Oversubscription: 1 to 1e6.
inline constexpr ValueRange kFabricFactor = kScenarioFactor;

}  // namespace scalewall

#endif  // SCALEWALL_SRC_FABRIC_RANGES_H_
