// Tests of src/io/json_input.h: the limits every JSON text is read within.
#include "io/json_input.h"

#include <gtest/gtest.h>

#include <string>

#include "test_support.h"

namespace scalewall {
namespace {

// "[0,0,...,0]": an array of `zeros` zeros, 1 + `zeros` values.
std::string array_of_zeros(std::int64_t zeros) {
  std::string text = "[";
  text.reserve(static_cast<std::size_t>(2 * zeros + 2));
  for (std::int64_t i = 0; i < zeros; ++i) text += i == 0 ? "0" : ",0";
  return text + "]";
}

TEST(JsonInput, AFileOfMoreValuesThanTheLimitIsRefused) {
  const std::string at_limit = array_of_zeros(kMaxJsonValues - 1);
  EXPECT_EQ(parse_json_input(at_limit, "t.json").size(),
            static_cast<std::size_t>(kMaxJsonValues - 1));
  const std::string past = array_of_zeros(kMaxJsonValues);
  EXPECT_EQ(input_error_of([&] { parse_json_input(past, "t.json"); }),
            "t.json:1: more than 2097152 JSON values (the limit for a JSON file or JSON Lines "
            "record)");
  // The line is the file's: a JSON Lines record names its own.
  EXPECT_EQ(input_error_of([&] { parse_json_input(past, "x.jsonl", 7); }),
            "x.jsonl:7: more than 2097152 JSON values (the limit for a JSON file or JSON Lines "
            "record)");
}

TEST(JsonInput, AHugeNumberOrStringIsRefusedBeforeTheLibraryReadsIt) {
  const std::string number = "[" + std::string(kMaxJsonTextBytes + 1, '1') + "]";
  const std::string expected =
      "n.json:1: more than 32000000 bytes of JSON keys and values (the limit for a JSON file or "
      "JSON Lines record)";
  EXPECT_EQ(input_error_of([&] { parse_json_input(number, "n.json"); }), expected);
  const std::string string = "[\"" + std::string(kMaxJsonTextBytes + 1, 'x') + "\"]";
  EXPECT_EQ(input_error_of([&] { parse_json_input(string, "n.json"); }), expected);
}

TEST(JsonInput, ValuesAndBytesAreCountedAsWritten) {
  // Values: the object, 1, the array, true, null and "x:y"; a key is not one. Bytes: a, 1, b,
  // true, null, x:y.
  const std::string text = R"({"a": 1, "b" : [true, null, "x:y"]})";
  EXPECT_NO_THROW(check_json_size(text, "v.json", 1, 6, 14));
  EXPECT_EQ(input_error_of([&] { check_json_size(text, "v.json", 1, 5, 14); }),
            "v.json:1: more than 5 JSON values (the limit for a JSON file or JSON Lines record)");
  EXPECT_EQ(input_error_of([&] { check_json_size(text, "v.json", 1, 6, 13); }),
            "v.json:1: more than 13 bytes of JSON keys and values (the limit for a JSON file or "
            "JSON Lines record)");
  // An escaped quote does not end its string: 3 values, 5 bytes (a\"b and 2).
  const std::string escaped = R"(["a\"b", 2])";
  EXPECT_NO_THROW(check_json_size(escaped, "e.json", 1, 3, 5));
  EXPECT_THROW(check_json_size(escaped, "e.json", 1, 2, 5), InputError);
  EXPECT_THROW(check_json_size(escaped, "e.json", 1, 3, 4), InputError);
  // The message names the line of the first value past the limit.
  EXPECT_EQ(input_error_of([] { check_json_size("[\n1,\n2,\n\"3\"\n]", "l.json", 1, 3); }),
            "l.json:4: more than 3 JSON values (the limit for a JSON file or JSON Lines record)");
  EXPECT_EQ(input_error_of([] { check_json_size("{\"k\":\n\"a\nb\",\n\"x\"}", "l.json", 1, 9, 4); }),
            "l.json:4: more than 4 bytes of JSON keys and values (the limit for a JSON file or "
            "JSON Lines record)");
}

TEST(JsonInput, AProbeIsDiscardedForTextThatIsNotJsonAndRefusesTextPastTheLimits) {
  EXPECT_TRUE(probe_json_input("{\"a\":", "p.json").is_discarded());
  EXPECT_TRUE(probe_json_input("[1e400]", "p.json").is_discarded());
  EXPECT_EQ(probe_json_input(R"({"a":[1,2]})", "p.json")["a"].size(), 2u);
  const std::string past = array_of_zeros(kMaxJsonValues);
  EXPECT_EQ(input_error_of([&] { probe_json_input(past, "p.json"); }),
            "p.json:1: more than 2097152 JSON values (the limit for a JSON file or JSON Lines "
            "record)");
}

}  // namespace
}  // namespace scalewall
