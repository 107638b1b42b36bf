// Flag values through the unit parsers; see cli/flags.h.
#include "cli/flags.h"

#include <fmt/format.h>

#include "scalewall/base/units.h"
#include "scalewall/model/scaling.h"

namespace scalewall {

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

double flag_within(std::string_view flag, std::string_view what, const std::string& text,
                   double value, const ValueRange& range) {
  if (!in_range(value, range)) {
    throw InputError(fmt::format("{}: {} '{}' is outside the range {}", flag, what, text,
                                 range_text(range)));
  }
  return value;
}

double flag_link_latency(std::string_view flag, const std::string& text) {
  return flag_within(flag, "latency", text, flag_seconds(flag, text), kLinkLatency);
}

double flag_link_rate(std::string_view flag, const std::string& text) {
  return flag_within(flag, "bandwidth", text, flag_rate(flag, text), kScenarioRate);
}

std::vector<std::int64_t> flag_rank_list(std::string_view flag, const std::string& text) {
  std::vector<std::int64_t> ranks;
  std::string_view rest = text;
  for (;;) {
    const std::size_t comma = rest.find(',');
    const std::string item(rest.substr(0, comma));
    if (ranks.size() == kMaxRankListItems) {
      throw InputError(fmt::format("{}: the list holds more than {} rank counts (the most one "
                                   "command takes)",
                                   flag, kMaxRankListItems));
    }
    ranks.push_back(flag_count(flag, item, 1, kMaxRanks));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return ranks;
}

std::vector<std::int64_t> flag_rank_range(std::string_view flag, const std::string& text) {
  const auto dots = text.find("..");
  if (dots == std::string::npos) return flag_rank_list(flag, text);
  const std::int64_t a = flag_count(flag, text.substr(0, dots), 1, kMaxRanks);
  const std::int64_t b = flag_count(flag, text.substr(dots + 2), 1, kMaxRanks);
  if (a > b) {
    throw InputError(fmt::format("{}: range '{}' runs backwards ({} > {})", flag, text, a, b));
  }
  // Both ends are rows, and every power of two between them.
  std::vector<std::int64_t> ranks = {a};
  std::int64_t r = 1;
  while (r <= a) r *= 2;
  for (; r < b; r *= 2) ranks.push_back(r);
  if (b > a) ranks.push_back(b);
  return ranks;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  for (;;) {
    const std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

std::vector<double> flag_size_list(std::string_view flag, const std::string& text) {
  std::vector<double> sizes;
  for (const std::string& item : split_list(text)) sizes.push_back(flag_bytes(flag, item));
  return sizes;
}

}  // namespace scalewall
