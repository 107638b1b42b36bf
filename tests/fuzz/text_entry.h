// tests/fuzz/text_entry.h: the readers' text entry points, for the fuzz targets.
//
// The readers take a path; until they take text, the text goes through a file of this
// process's own in /dev/shm (or the temporary directory), named after the reader's kind.
#ifndef SCALEWALL_TESTS_FUZZ_TEXT_ENTRY_H_
#define SCALEWALL_TESTS_FUZZ_TEXT_ENTRY_H_

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/calibrate.h"
#include "scalewall/diagnose.h"
#include "scalewall/measurement.h"
#include "scalewall/times_file.h"

namespace scalewall::fuzz {

inline std::string text_file(std::string_view text, const char* kind) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::is_directory("/dev/shm", ec)
                                        ? std::filesystem::path("/dev/shm")
                                        : std::filesystem::temp_directory_path();
  const std::string path =
      (dir / ("scalewall-fuzz-" + std::to_string(getpid()) + "-" + kind)).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return path;
}

inline void measurement_text(std::string_view text, MeasurementSet& set) {
  read_measurement_file(text_file(text, "measurement"), set);
}
inline std::vector<double> times_text(std::string_view text, const std::string& column) {
  return read_times_file(text_file(text, "times"), column);
}
inline ScalingTable scaling_table_text(std::string_view text) {
  return read_scaling_table(text_file(text, "scaling"));
}
inline std::vector<StreamPoint> stream_points_text(std::string_view text) {
  return read_stream_points(text_file(text, "stream"));
}

}  // namespace scalewall::fuzz

#endif  // SCALEWALL_TESTS_FUZZ_TEXT_ENTRY_H_
