// Implementation of src/io/toml_input.h.
#include "toml_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "scalewall/base/error.h"
#include "scalewall/io/input_file.h"

namespace scalewall {

std::string read_toml_file(const std::string& path, std::string_view what) {
  std::string text = read_input_file(path, what);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw InputError(fmt::format("{} '{}' is empty", what, path));
  }
  return text;
}

namespace {

// Refuses, before the TOML library sees the text, what would cost it more than a scenario or
// fabric can need: nesting past kMaxTomlDepth (the library recurses once per level, and a
// 100 KB header of 50,000 dotted names exhausts the stack), more than kMaxTomlValues values,
// or more than kMaxTomlTextBytes of strings and keys (each value costs the library about 70
// bytes, so a 256 MB array would need 9 GB). The scan follows TOML's grammar closely enough
// to count what the library would build: strings, comments, keys (bare, quoted, dotted),
// headers, arrays and inline tables. It stops at the first text it cannot place, where the
// library's own parse stops with a syntax error.
class TomlScan {
 public:
  TomlScan(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  // The text the library is given: the same lines, with comments emptied and runs of blanks
  // made one, so that neither costs the library time (it reads about 30 MB/s).
  std::string run() {
    try {
      document();
    } catch (const Stop&) {
      // A syntax error at or before this point; the library names it.
    }
    out_.append(text_.substr(copied_));
    return std::move(out_);
  }

 private:
  struct Stop {};

  bool at_end() const { return at_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[at_]; }
  bool next_is(std::string_view s) const { return text_.substr(at_).starts_with(s); }

  void advance() {
    if (text_[at_] == '\n') new_line();
    ++at_;
  }

  void new_line() {
    if (++line_ > kMaxTomlLines) {
      throw InputError(fmt::format("{}:{}: more than {} lines (the limit for a scenario or "
                                   "fabric file)",
                                   source_, line_, kMaxTomlLines));
    }
  }

  // Leaves text_[from, to) out of the text the library is given.
  void cut(std::size_t from, std::size_t to) {
    out_.append(text_.substr(copied_, from - copied_));
    copied_ = to;
  }

  void skip_blanks() {
    const std::size_t start = at_;
    while (!at_end() && (peek() == ' ' || peek() == '\t')) ++at_;
    if (at_ - start > 1) cut(start + 1, at_);
  }

  // A comment, up to its line break.
  void skip_comment() {
    const std::size_t start = ++at_;
    while (!at_end() && peek() != '\n') ++at_;
    cut(start, at_);
  }

  // Blanks, line breaks and comments: between a document's lines and an array's values.
  void skip_space() {
    for (;;) {
      skip_blanks();
      if (peek() == '\n' || peek() == '\r') {
        advance();
      } else if (peek() == '#') {
        skip_comment();
      } else {
        return;
      }
    }
  }

  void document() {
    for (skip_space(); !at_end(); skip_space()) {
      if (peek() == '[') {
        header();
      } else {
        key_value(section_depth_);
      }
      skip_blanks();
      if (peek() == '#') skip_comment();
      if (!at_end() && peek() != '\n' && peek() != '\r') throw Stop{};
    }
  }

  void header() {
    ++at_;
    if (peek() == '[') ++at_;
    section_depth_ = key(0);
    skip_blanks();
    if (peek() != ']') throw Stop{};
    ++at_;
    if (peek() == ']') ++at_;
    count_value();
  }

  void key_value(int depth) {
    const int value_depth = key(depth);
    skip_blanks();
    if (peek() != '=') throw Stop{};
    ++at_;
    skip_blanks();
    value(value_depth);
  }

  // A key's dotted names from `depth`: the depth of the value it names.
  int key(int depth) {
    for (;;) {
      skip_blanks();
      const std::size_t start = at_;
      if (peek() == '"' || peek() == '\'') {
        string();
      } else {
        while (!at_end() && bare_key_char(peek())) ++at_;
        if (at_ == start) throw Stop{};
        count_text(at_ - start);
      }
      deeper(++depth);
      skip_blanks();
      if (peek() != '.') return depth;
      ++at_;
    }
  }

  static bool bare_key_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || static_cast<unsigned char>(c) >= 0x80;
  }

  void value(int depth) {
    count_value();
    if (peek() == '"' || peek() == '\'') {
      string();
    } else if (peek() == '[') {
      array(depth + 1);
    } else if (peek() == '{') {
      inline_table(depth + 1);
    } else {
      scalar();
    }
  }

  void array(int depth) {
    deeper(depth);
    ++at_;
    for (skip_space(); peek() != ']'; skip_space()) {
      value(depth);
      skip_space();
      if (peek() == ']') break;
      if (peek() != ',') throw Stop{};
      ++at_;
    }
    ++at_;
  }

  void inline_table(int depth) {
    deeper(depth);
    ++at_;
    for (skip_space(); peek() != '}'; skip_space()) {
      key_value(depth);
      skip_space();
      if (peek() == '}') break;
      if (peek() != ',') throw Stop{};
      ++at_;
    }
    ++at_;
  }

  // A number, boolean, date or time: up to the next delimiter ("1979-05-27 07:32:00" may hold
  // one blank, between its date and its time).
  void scalar() {
    const std::size_t start = at_;
    const auto delimiter = [](char c) {
      return c == ',' || c == ']' || c == '}' || c == '#' || c == ' ' || c == '\t' ||
             c == '\n' || c == '\r' || c == '\0';
    };
    while (!at_end() && !delimiter(peek())) ++at_;
    if (at_ == start) throw Stop{};
    count_text(at_ - start);
    const bool date = at_ - start == 10 && text_[start + 4] == '-' && text_[start + 7] == '-';
    if (date && next_is(" ") && at_ + 1 < text_.size() && text_[at_ + 1] >= '0' &&
        text_[at_ + 1] <= '9') {
      ++at_;
      while (!at_end() && !delimiter(peek())) ++at_;
    }
  }

  // A string of any of TOML's four kinds, its text counted.
  void string() {
    const char quote = peek();
    const bool multi_line = next_is(quote == '"' ? "\"\"\"" : "'''");
    at_ += multi_line ? 3 : 1;
    const std::size_t start = at_;
    for (;;) {
      if (at_end()) throw Stop{};
      const char c = peek();
      if (c == '\\' && quote == '"') {
        advance();
        if (!at_end()) advance();
        continue;
      }
      if (c == '\n' && !multi_line) throw Stop{};
      if (c == quote && (!multi_line || (at_ + 2 < text_.size() && text_[at_ + 1] == quote &&
                                         text_[at_ + 2] == quote))) {
        break;
      }
      advance();
    }
    count_text(at_ - start);
    at_ += multi_line ? 3 : 1;
    // A multi-line string may end in one or two of its quotes before the closing three.
    for (int extra = 0; multi_line && extra < 2 && peek() == quote; ++extra) ++at_;
  }

  void deeper(int depth) const {
    if (depth > kMaxTomlDepth) {
      throw InputError(fmt::format("{}:{}: TOML tables, arrays and dotted keys nested more "
                                   "than {} deep",
                                   source_, line_, kMaxTomlDepth));
    }
  }

  void count_value() {
    if (++values_ > kMaxTomlValues) {
      throw InputError(fmt::format("{}:{}: more than {} TOML values (the limit for a scenario "
                                   "or fabric file, twice a rank_to_node list of 2^20 ranks)",
                                   source_, line_, kMaxTomlValues));
    }
  }

  void count_text(std::size_t bytes) {
    text_bytes_ += bytes;
    if (text_bytes_ > kMaxTomlTextBytes) {
      throw InputError(fmt::format("{}:{}: more than {} bytes of TOML keys and values (the "
                                   "limit for a scenario or fabric file)",
                                   source_, line_, kMaxTomlTextBytes));
    }
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t at_ = 0;
  std::int64_t line_ = 1;
  int section_depth_ = 0;
  std::int64_t values_ = 0;
  std::size_t text_bytes_ = 0;
  std::string out_;
  std::size_t copied_ = 0;
};

}  // namespace

std::string checked_toml_text(std::string_view text, const std::string& source) {
  return TomlScan(text, source).run();
}

toml::table parse_toml(std::string_view text, const std::string& source) {
  const std::string checked = checked_toml_text(text, source);
  try {
    return toml::parse(checked, source);
  } catch (const toml::parse_error& e) {
    throw InputError(fmt::format("{}: line {}: malformed TOML: {}", source,
                                 e.source().begin.line, e.description()));
  }
}

std::string line_suffix(const toml::node* node) {
  if (node == nullptr || node->source().begin.line == 0) return "";
  return fmt::format(" (line {})", node->source().begin.line);
}

std::string one_line(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

// A float in its shortest round-trip form, as TOML writes a float: 12288.0, not 12288.
std::string float_text(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEni") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

std::string written(const toml::node& node) {
  if (const auto* s = node.as_string()) return fmt::format("'{}'", one_line(s->get()));
  if (const auto* i = node.as_integer()) return fmt::format("{}", i->get());
  if (const auto* f = node.as_floating_point()) return float_text(f->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  std::ostringstream out;
  if (const auto* a = node.as_array()) {
    out << *a;
  } else if (const auto* d = node.as_date()) {
    out << *d;
  } else if (const auto* t = node.as_time()) {
    out << *t;
  } else if (const auto* dt = node.as_date_time()) {
    out << *dt;
  }
  return out.str();
}

std::string type_noun(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "a list";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time:
      return "a date or time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

std::string whole_number_problem(const toml::node& node) {
  if (const auto* f = node.as_floating_point()) {
    const double v = f->get();
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 0x1p63) {
      return fmt::format("a float; write a whole number ({:.0f})", v + 0.0);
    }
    return "a float, not a whole number";
  }
  if (const auto* s = node.as_string()) {
    const std::string& text = s->get();
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (!text.empty() && error == std::errc() && end == text.data() + text.size()) {
      return fmt::format("a string; write a whole number without quotes ({})", value);
    }
  }
  return fmt::format("{}, not a whole number", type_noun(node));
}

std::optional<TomlKey> first_unknown_key(const toml::table& table,
                                         const std::vector<std::string_view>& known) {
  for (const auto& [key, node] : table) {
    if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
      return TomlKey{key.str(), &node};
    }
  }
  return std::nullopt;
}

std::optional<double> read_toml_quantity(const toml::node& node,
                                         double (*parse)(std::string_view)) {
  if (const auto* s = node.as_string()) return parse(s->get());
  if (const auto* f = node.as_floating_point()) return parse(fmt::format("{}", f->get()));
  if (const auto* i = node.as_integer()) return parse(fmt::format("{}", i->get()));
  return std::nullopt;
}

}  // namespace scalewall
