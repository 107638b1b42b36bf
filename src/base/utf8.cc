// Implementation of the visible text of scalewall/base/utf8.h.
#include "scalewall/base/utf8.h"

#include <fmt/format.h>

#include <cctype>

namespace scalewall {

std::string visible(std::string_view text) {
  std::string out;
  while (!text.empty()) {
    const auto c = static_cast<unsigned char>(text.front());
    const std::size_t length = utf8_sequence(text);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
    } else if (c < 0x20 || c == 0x7F || length == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
    } else if (length == 2 && c == 0xC2 && static_cast<unsigned char>(text[1]) < 0xA0) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[1]));  // U+0080..U+009F
      text.remove_prefix(2);
      continue;
    } else {
      out += text.substr(0, length);
      text.remove_prefix(length);
      continue;
    }
    text.remove_prefix(1);
  }
  return out;
}

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace scalewall
