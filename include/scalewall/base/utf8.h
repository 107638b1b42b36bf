// scalewall/base/utf8.h: where text from input is valid UTF-8, for the writers that pass it
// on (a TOML string, a terminal table, an error line, an HTML page) and must treat other
// bytes apart.
#ifndef SCALEWALL_BASE_UTF8_H_
#define SCALEWALL_BASE_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace scalewall {

// The length of the valid UTF-8 sequence at the start of `text`, or 0 when it is not one
// (a stray continuation byte, a truncated or overlong sequence, a surrogate, above U+10FFFF).
// REQUIRES: `text` is not empty.
inline std::size_t utf8_sequence(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  char32_t code = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07u;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0u) != 0x80u) return 0;
    code = (code << 6) | (byte(i) & 0x3Fu);
  }
  if ((length == 3 && code < 0x800) || (length == 4 && code < 0x10000) || code > 0x10FFFF ||
      (code >= 0xD800 && code <= 0xDFFF)) {
    return 0;
  }
  return length;
}

// `text` on one line of a terminal: valid UTF-8 as it is; control characters, which a
// terminal obeys (ESC starts a sequence that can clear the screen or write the clipboard) or
// which break a line (a table's row, an error message), written visibly: \n, \r, \t, \x1b
// for C0 and DEL, \u009b for C1, and \xff for a byte that is not UTF-8. The table writer
// (present/report.h) and the executables' error and warning lines write input through it.
std::string visible(std::string_view text);

// `text` with its ASCII letters in lower case; every other byte as it is.
std::string ascii_lower(std::string_view text);

}  // namespace scalewall

#endif  // SCALEWALL_BASE_UTF8_H_
