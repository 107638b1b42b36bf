// scalewall/platform/gnuplot.h: drawing a Plot (present/plot.h) to an SVG or PNG file by
// running gnuplot, the only place that starts a process.
#ifndef SCALEWALL_PLATFORM_GNUPLOT_H_
#define SCALEWALL_PLATFORM_GNUPLOT_H_

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "scalewall/present/plot.h"

namespace scalewall {

// gnuplot is missing, failed, or wrote nothing. The message says which, with gnuplot's own
// error text. A run that fails this way is not bad input: the command-line tool exits 1.
class PlotError : public std::runtime_error {
 public:
  explicit PlotError(const std::string& message) : std::runtime_error(message) {}
};

// The first executable named "gnuplot" in the directories of $PATH; empty when there is none.
std::optional<std::string> find_gnuplot();

struct RenderOptions {
  std::string gnuplot;  // the executable; empty: find_gnuplot()
  std::chrono::seconds timeout{60};  // gnuplot is killed after this long. Default: 60 s.
  // The run's input files: a plot whose path names one of them is refused (InputError)
  // before gnuplot starts. Default: none.
  std::vector<std::string> inputs;
};

// Writes `plot` to `output_path` as SVG or PNG (by its extension): runs gnuplot as a child
// process (no shell) with the script on its standard input, its stdout discarded and its
// stderr collected, into a temporary file beside the output that is renamed over it only on
// success, so a failure leaves no partial file. Returns what gnuplot printed on stderr
// (warnings; empty for a clean script).
// Throws InputError (bad input, exit status 2) naming the path when the extension is neither
// .svg nor .png or the path is one of options.inputs; OutputError (exit status 1) when the file
// cannot be written there; PlotError (exit status 1) when gnuplot is missing, fails, times out
// or writes an empty or incomplete file.
std::string render_plot(const Plot& plot, const std::string& output_path,
                        const RenderOptions& options = {});

}  // namespace scalewall

#endif  // SCALEWALL_PLATFORM_GNUPLOT_H_
