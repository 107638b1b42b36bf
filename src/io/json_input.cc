// Implementation of src/json_input.h.
//
// The text is first scanned for its size (values, and bytes of keys and values), which the
// library would otherwise learn only by building the document. The parse then runs through the
// library's SAX interface with a handler that builds the same document as json::parse and also
// remembers the last object key it saw, so that an error can name the field it happened in.
#include "json_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

using Json = nlohmann::json;

class KeyTrackingParser : public nlohmann::detail::json_sax_dom_parser<Json> {
  using Base = nlohmann::detail::json_sax_dom_parser<Json>;

 public:
  explicit KeyTrackingParser(Json& result) : Base(result, false) {}
  // One level deeper; false (the parse stops) past kMaxJsonDepth.
  bool deeper() {
    if (++depth <= kMaxJsonDepth) return true;
    too_deep = true;
    return false;
  }

  bool key(std::string& name) {
    last_key = name;
    return Base::key(name);
  }
  bool start_object(std::size_t length) { return deeper() && Base::start_object(length); }
  bool start_array(std::size_t length) { return deeper() && Base::start_array(length); }
  bool end_object() {
    last_key.clear();
    --depth;
    return Base::end_object();
  }
  bool end_array() {
    --depth;
    return Base::end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t byte, const std::string& token, const Exception& error) {
    failed = true;
    error_byte = byte;
    error_token = token;
    error_id = error.id;
    error_text = error.what();
    return false;
  }

  std::string last_key;
  int depth = 0;
  bool too_deep = false;
  bool failed = false;
  std::size_t error_byte = 0;
  std::string error_token;
  int error_id = 0;
  std::string error_text;
};

// A blank or one of {}[],: (the JSON around keys and values).
bool is_structure(char c) {
  switch (c) {
    case ' ':
    case '\t':
    case '\r':
    case '\n':
    case '{':
    case '}':
    case '[':
    case ']':
    case ',':
    case ':':
      return true;
    default:
      return false;
  }
}

// The quote that closes the string opened at `open`, or the end of the text.
std::size_t closing_quote(std::string_view text, std::size_t open) {
  std::size_t i = open + 1;
  while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2u : 1u;
  return std::min(i, text.size());
}

// Counts the values of `text` and the bytes of its keys and values, before the library reads
// it, as json_input.h defines them: a string is a value unless a colon follows it (a key);
// a run of other bytes that are not structure is one value (a number, true, false, null).
// The library would build a document of every value, and gather each string and number whole
// before looking at it (one 256 MB number costs it gigabytes).
class SizeScan {
 public:
  SizeScan(std::string_view text, const std::string& source, std::int64_t first_line,
           std::int64_t max_values, std::size_t max_bytes)
      : text_(text), source_(source), line_(first_line), max_values_(max_values),
        max_bytes_(max_bytes) {}

  void run() {
    std::size_t i = 0;
    while (i < text_.size()) {
      const char c = text_[i];
      if (c == '"') {
        const std::size_t close = closing_quote(text_, i);
        const std::size_t end = std::min(close + 1, text_.size());
        const std::size_t next = text_.find_first_not_of(" \t\r\n", end);
        count(next == std::string_view::npos || text_[next] != ':', close - i - 1);
        line_ += std::count(text_.begin() + static_cast<std::ptrdiff_t>(i),
                            text_.begin() + static_cast<std::ptrdiff_t>(end), '\n');
        i = end;
      } else if (!is_structure(c)) {
        std::size_t end = i;
        while (end < text_.size() && !is_structure(text_[end]) && text_[end] != '"') ++end;
        count(true, end - i);
        i = end;
      } else {
        if (c == '\n') ++line_;
        if (c == '{' || c == '[') count(true, 0);
        ++i;
      }
    }
  }

 private:
  // One more key or value of `bytes` bytes; InputError past a limit.
  void count(bool is_value, std::size_t bytes) {
    values_ += is_value ? 1 : 0;
    bytes_ += bytes;
    if (values_ > max_values_) {
      throw InputError(fmt::format("{}:{}: more than {} JSON values (the limit for a JSON file "
                                   "or JSON Lines record)",
                                   source_, line_, max_values_));
    }
    if (bytes_ > max_bytes_) {
      throw InputError(fmt::format("{}:{}: more than {} bytes of JSON keys and values (the limit "
                                   "for a JSON file or JSON Lines record)",
                                   source_, line_, max_bytes_));
    }
  }

  std::string_view text_;
  const std::string& source_;
  std::int64_t line_;
  std::int64_t max_values_;
  std::size_t max_bytes_;
  std::int64_t values_ = 0;
  std::size_t bytes_ = 0;
};

// The library's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 5: " prefix.
std::string plain_words(const std::string& text) {
  std::string out = text;
  const std::size_t bracket = out.find("] ");
  if (out.starts_with("[json.exception") && bracket != std::string::npos) {
    out.erase(0, bracket + 2);
  }
  const std::size_t colon = out.find(": ");
  if (out.starts_with("parse error") && colon != std::string::npos) out.erase(0, colon + 2);
  if (out.size() > 120) out = out.substr(0, 117) + "...";
  return out;
}

std::string shorten(std::string text) {
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

}  // namespace

void check_json_size(std::string_view text, const std::string& source, std::int64_t first_line,
                     std::int64_t max_values, std::size_t max_bytes) {
  SizeScan(text, source, first_line, max_values, max_bytes).run();
}

Json parse_json_input(std::string_view text, const std::string& source, std::int64_t first_line,
                      std::string_view malformed) {
  check_json_size(text, source, first_line);
  Json result;
  KeyTrackingParser parser(result);
  const bool ok = Json::sax_parse(text.begin(), text.end(), &parser);
  if (ok && !parser.failed) return result;
  // The line of the error: the parser counts bytes from the start of `text`, one past the
  // offending character.
  const std::size_t byte = std::min(parser.error_byte, text.size());
  const std::int64_t line =
      first_line +
      static_cast<std::int64_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(
                                                                            byte > 0 ? byte - 1 : 0),
                                           '\n'));
  const std::string place = fmt::format("{}:{}", source, line);
  if (parser.too_deep) {
    // The parser gives no position here: the line is known only for one-line text.
    const bool one_line = text.find('\n') == std::string_view::npos;
    throw InputError(fmt::format("{}: JSON arrays and objects nested more than {} deep",
                                 one_line ? fmt::format("{}:{}", source, first_line) : source,
                                 kMaxJsonDepth));
  }
  if (parser.error_id == 406) {
    const std::string field = parser.last_key.empty()
                                  ? std::string()
                                  : fmt::format("field \"{}\": ", shorten(parser.last_key));
    throw InputError(fmt::format("{}: {}number {} is out of range", place, field,
                                 shorten(parser.error_token)));
  }
  throw InputError(fmt::format("{}: {}: {}", place, malformed, plain_words(parser.error_text)));
}

Json probe_json_input(std::string_view text, const std::string& source) {
  check_json_size(text, source, 1);
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

std::string json_type_words(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "true or false";
    case Json::value_t::null:
      return "null";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "a number";
    case Json::value_t::binary:
    case Json::value_t::discarded:
      break;
  }
  return "not a JSON value";
}

std::string json_shown(const Json& value) {
  if (value.is_object() || value.is_array()) {
    return fmt::format("{} of {} element{}", json_type_words(value), value.size(),
                       value.size() == 1 ? "" : "s");
  }
  return shorten(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

std::string optional_json_string(const Json& object, const char* key, const std::string& fallback,
                                 const std::string& place) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_string()) {
    throw InputError(fmt::format("{}: field \"{}\" must be a string, not {}", place, key,
                                 json_type_words(*it)));
  }
  return it->get<std::string>();
}

}  // namespace scalewall
