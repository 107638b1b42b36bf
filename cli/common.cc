// Shared pieces of the scalewall subcommands; see cli/common.h.
#include "cli/common.h"

#include <iostream>
#include <sstream>

#include "scalewall/scaling.h"
#include "scalewall/units.h"

namespace scalewall::cli {

void add_format_option(CLI::App* command, std::string* format) {
  command->add_option("--format", *format, "Output format: table (for people), csv, json")
      ->default_val("table")
      ->type_name("table|csv|json");
}

double flag_bytes(std::string_view flag, const std::string& text) {
  return with_flag(flag, [&] { return parse_bytes(text); });
}
double flag_seconds(std::string_view flag, const std::string& text) {
  return with_flag(flag, [&] { return parse_seconds(text); });
}
double flag_rate(std::string_view flag, const std::string& text) {
  return with_flag(flag, [&] { return parse_rate(text); });
}
double flag_fraction(std::string_view flag, const std::string& text) {
  return with_flag(flag, [&] { return parse_fraction(text); });
}
double flag_number(std::string_view flag, const std::string& text) {
  return with_flag(flag, [&] { return parse_number(text); });
}
std::int64_t flag_count(std::string_view flag, const std::string& text, std::int64_t min_value,
                        std::int64_t max_value) {
  return with_flag(flag, [&] { return parse_count(text, min_value, max_value); });
}

std::vector<std::int64_t> flag_rank_list(std::string_view flag, const std::string& text) {
  std::vector<std::int64_t> ranks;
  std::string_view rest = text;
  for (;;) {
    const std::size_t comma = rest.find(',');
    const std::string item(rest.substr(0, comma));
    ranks.push_back(flag_count(flag, item, 1, kMaxRanks));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return ranks;
}

void emit(const Report& report, const std::string& format) {
  const Format f = with_flag("--format", [&] { return parse_format(format); });
  std::ostringstream text;
  write_report(report, f, text);
  std::cout << text.str() << std::flush;
}

}  // namespace scalewall::cli
