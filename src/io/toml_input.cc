// Implementation of src/io/toml_input.h.
#include "toml_input.h"

#include <fmt/format.h>

#include <algorithm>
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

toml::table parse_toml(std::string_view text, const std::string& source) {
  try {
    return toml::parse(text, source);
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

std::string written(const toml::node& node) {
  if (const auto* s = node.as_string()) return fmt::format("'{}'", one_line(s->get()));
  if (const auto* i = node.as_integer()) return fmt::format("{}", i->get());
  if (const auto* f = node.as_floating_point()) return fmt::format("{}", f->get());
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
