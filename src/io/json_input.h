// src/json_input.h: JSON text from an input file, parsed with errors in the project's words.
//
// The readers of JSON and JSON Lines (scalewall-mpi measurements, scaling tables) parse through
// parse_json_input, so that a syntax error, a number out of range (1e400) or a value of the
// wrong type becomes an InputError naming the file, the line and the field, never the JSON
// library's own message.
#ifndef SCALEWALL_SRC_JSON_INPUT_H_
#define SCALEWALL_SRC_JSON_INPUT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace scalewall {

// The limits of one JSON text (a JSON file, or one record of a JSON Lines file), checked on
// the text before the JSON library reads it: at most kMaxJsonValues values (every number,
// string, true, false, null, array and object counts; a key does not) and kMaxJsonTextBytes
// bytes of keys and values as written (strings without their quotes, numbers, true, false,
// null: every byte but blanks and {}[],:). Arrays and objects nest at most kMaxJsonDepth deep
// (code that walks a document recurses once per level), checked as the text is parsed. No
// input comes near them: a scaling table of 2^21 values is about 700,000 rows of ranks and
// step_s (19 MB of keys and values), an nccl-tests document about 116,000 results. A value
// costs the library at most about 130 bytes, so the document of a 256 MB file stays under
// about 300 MB.
inline constexpr int kMaxJsonDepth = 64;
inline constexpr std::int64_t kMaxJsonValues = 2'097'152;  // 2^21
inline constexpr std::size_t kMaxJsonTextBytes = 32'000'000;

// Parses `text`. `source` names the file and `first_line` is the file line `text` starts on;
// messages read "<source>:<line>: field \"time_s\": number 1e400 is out of range" or
// "<source>:<line>: <malformed>: <what the parser expected>". Past a limit above, InputError
// "<source>:<line>: more than 2097152 JSON values (the limit for a JSON file or JSON Lines
// record)", naming the line of the first value past it.
nlohmann::json parse_json_input(std::string_view text, const std::string& source,
                                std::int64_t first_line = 1,
                                std::string_view malformed = "not valid JSON");

// The check of the values and bytes of `text` that parse_json_input makes before the JSON
// library reads it (the limits are parameters for tests): InputError "<source>:<line>: more
// than <max_values> JSON values ..." or "... more than <max_bytes> bytes of JSON keys and
// values ...", naming the line of the first key or value past the limit.
void check_json_size(std::string_view text, const std::string& source, std::int64_t first_line,
                     std::int64_t max_values = kMaxJsonValues,
                     std::size_t max_bytes = kMaxJsonTextBytes);

// Parses `text` to look at what it is: the document, or a discarded value (is_discarded())
// when it is not valid JSON or holds a number out of range. Past a limit above, the same
// InputError as parse_json_input, since no reader could take the text either.
nlohmann::json probe_json_input(std::string_view text, const std::string& source);

// "an object", "an array", "a string", "a number", "true or false", "null": what `value` is.
std::string json_type_words(const nlohmann::json& value);

// `value` as JSON text for a message, cut to at most 60 characters.
std::string json_shown(const nlohmann::json& value);

// The string field `key` of `object`, or `fallback` when it is absent or null. Throws
// InputError "<place>: field \"<key>\" must be a string, not an object" for any other type.
std::string optional_json_string(const nlohmann::json& object, const char* key,
                                 const std::string& fallback, const std::string& place);

}  // namespace scalewall

#endif  // SCALEWALL_SRC_JSON_INPUT_H_
