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

// Parses `text`. `source` names the file and `first_line` is the file line `text` starts on;
// messages read "<source>:<line>: field \"time_s\": number 1e400 is out of range" or
// "<source>:<line>: <malformed>: <what the parser expected>".
nlohmann::json parse_json_input(std::string_view text, const std::string& source,
                                std::int64_t first_line = 1,
                                std::string_view malformed = "not valid JSON");

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
