// src/io/toml_input.h: TOML text from an input file, read with errors in the project's words.
//
// The two TOML readers (scenario_file.cc, fabric_file.cc) read through these: the file's text
// (an empty file refused), the parse (a syntax error names the file and line), the line of a
// value, the value as written, unknown keys and quantities given as a string with a unit or
// a bare SI number. Each reader words its own messages around them.
#ifndef SCALEWALL_SRC_TOML_INPUT_H_
#define SCALEWALL_SRC_TOML_INPUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <vector>

namespace scalewall {

// The text of the TOML file at `path`; throws InputError "<what> '<path>' is empty" when it
// holds nothing but blanks, and as read_input_file (input_file.h) does otherwise.
std::string read_toml_file(const std::string& path, std::string_view what);

// The limits of a TOML input, checked on its text before it is parsed: tables, arrays and
// dotted keys nest at most kMaxTomlDepth deep (a header [a.b.c] is 3 deep, a key x.y under it
// 5, each array or inline table one more), a file holds at most kMaxTomlValues values (every
// value, array element and table header counts), kMaxTomlTextBytes bytes of keys and values
// (strings, numbers, dates) and kMaxTomlLines lines. No scenario or fabric comes near them:
// a fabric's rank_to_node list for 2^20 ranks is half the values and 7.5 MB. Beyond one,
// InputError "<source>:<line>: ..." naming the limit. Returns the text to parse: the same
// lines, with comments emptied and runs of blanks made one.
inline constexpr int kMaxTomlDepth = 64;
inline constexpr std::int64_t kMaxTomlValues = 2'097'152;  // 2^21
inline constexpr std::size_t kMaxTomlTextBytes = 16'000'000;
inline constexpr std::int64_t kMaxTomlLines = 4'194'304;  // 2^22
std::string checked_toml_text(std::string_view text, const std::string& source);

// Parses `text` (within the limits above); a syntax error is InputError "<source>: line N:
// malformed TOML: <what the parser expected>".
toml::table parse_toml(std::string_view text, const std::string& source);

// " (line N)" for a node whose line is known, else "".
std::string line_suffix(const toml::node* node);

// The value as the file wrote it, for messages: strings quoted (line breaks escaped),
// numbers and booleans bare (a float always with its point or exponent: 12288.0), lists, dates and times in TOML syntax; "" for a table.
std::string written(const toml::node& node);

// Text on one line: line breaks written as \n and \r.
std::string one_line(std::string_view text);

// "a string", "a number", "a boolean", "a list", "a table", "a date or time": what `node` is.
std::string type_noun(const toml::node& node);

// What `node`, which is not a TOML integer, is instead, for a message that follows the value
// as written: "a float; write a whole number (12288)" for 12288.0, "a float, not a whole
// number" for 2.5, "a string; write a whole number without quotes (8)" for '8', "a list, not
// a whole number".
std::string whole_number_problem(const toml::node& node);

// The first key of `table` not in `known`, with its node; empty when every key is known.
struct TomlKey {
  std::string_view key;
  const toml::node* node = nullptr;
};
std::optional<TomlKey> first_unknown_key(const toml::table& table,
                                         const std::vector<std::string_view>& known);

// A quantity: a string with a unit ("14GB", "300ms") through `parse`, or a bare number given
// to `parse` in its shortest round-trip form, so the parser sees exactly the number the file
// holds. Empty when the node is neither a string nor a number; an InputError from `parse`
// goes to the caller.
std::optional<double> read_toml_quantity(const toml::node& node,
                                         double (*parse)(std::string_view));

}  // namespace scalewall

#endif  // SCALEWALL_SRC_TOML_INPUT_H_
