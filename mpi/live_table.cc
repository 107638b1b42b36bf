// The live stderr table of scalewall-mpi; see mpi/live_table.h.
#include "mpi/live_table.h"

#include <fmt/format.h>

#include <utility>

#include "scalewall/base/error.h"

namespace scalewall::mpi {

LiveTable::LiveTable(std::ostream* out, std::vector<LiveColumn> columns)
    : out_(out), columns_(std::move(columns)) {}

void LiveTable::title(const std::string& text) {
  if (out_ == nullptr) return;
  *out_ << "# " << text << "\n";
  out_->flush();
}

void LiveTable::header() {
  std::vector<std::string> names;
  std::vector<std::string> units;
  for (const LiveColumn& c : columns_) {
    names.push_back(c.name);
    units.push_back(c.unit.empty() ? "" : "(" + c.unit + ")");
  }
  line('#', names);
  line('#', units);
}

void LiveTable::row(const std::vector<std::string>& cells) { line(' ', cells); }

void LiveTable::line(char lead, const std::vector<std::string>& cells) {
  if (out_ == nullptr) return;
  SCALEWALL_CHECK(cells.size() == columns_.size());
  std::string text(1, lead);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    text += fmt::format(" {:>{}}", cells[i], columns_[i].width);
  }
  *out_ << text << "\n";
  out_->flush();
}

std::string us_cell(double seconds) { return fmt::format("{:.2f}", seconds * 1e6); }

std::string gbps_cell(double bytes_per_second) {
  return fmt::format("{:.2f}", bytes_per_second / 1e9);
}

std::string count_cell(std::int64_t n) { return fmt::format("{}", n); }

}  // namespace scalewall::mpi
