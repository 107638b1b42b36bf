// Tests of src/io/toml_input.h: the pieces both TOML readers share.
#include "io/toml_input.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "scalewall/base/units.h"
#include "test_support.h"

namespace scalewall {
namespace {

TEST(TomlInput, ASyntaxErrorNamesTheSourceAndLine) {
  const std::string message = input_error_of([] { parse_toml("a = 1\nb = = 2\n", "x.toml"); });
  EXPECT_EQ(message.rfind("x.toml: line 2: malformed TOML: ", 0), 0u) << message;
}

TEST(TomlInput, LinesAndValuesAsWritten) {
  const toml::table t = parse_toml("a = 'two\\nlines'\nb = 2.5\nc = [1, 2]\nd = true\n[e]\n",
                                   "x.toml");
  EXPECT_EQ(line_suffix(t.get("b")), " (line 2)");
  EXPECT_EQ(line_suffix(nullptr), "");
  EXPECT_EQ(written(*t.get("a")), "'two\\nlines'");
  EXPECT_EQ(written(*t.get("b")), "2.5");
  EXPECT_EQ(written(*t.get("c")), "[ 1, 2 ]");
  EXPECT_EQ(written(*t.get("d")), "true");
  EXPECT_EQ(type_noun(*t.get("a")), "a string");
  EXPECT_EQ(type_noun(*t.get("b")), "a number");
  EXPECT_EQ(type_noun(*t.get("c")), "a list");
  EXPECT_EQ(type_noun(*t.get("e")), "a table");
}

TEST(TomlInput, FirstUnknownKey) {
  const toml::table t = parse_toml("alpha = 1\nbandwdith = 2\n", "x.toml");
  const auto unknown = first_unknown_key(t, {"alpha", "bandwidth"});
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->key, "bandwdith");
  EXPECT_EQ(line_suffix(unknown->node), " (line 2)");
  EXPECT_FALSE(first_unknown_key(t, {"alpha", "bandwdith"}));
}

TEST(TomlInput, QuantitiesWithAUnitOrBare) {
  const toml::table t = parse_toml("a = '300ms'\nb = 0.3\nc = 2\nd = true\ne = '-1s'\n", "x.toml");
  EXPECT_DOUBLE_EQ(*read_toml_quantity(*t.get("a"), parse_seconds), 0.3);
  EXPECT_DOUBLE_EQ(*read_toml_quantity(*t.get("b"), parse_seconds), 0.3);
  EXPECT_DOUBLE_EQ(*read_toml_quantity(*t.get("c"), parse_seconds), 2.0);
  EXPECT_FALSE(read_toml_quantity(*t.get("d"), parse_seconds));
  EXPECT_FALSE(input_error_of([&] { read_toml_quantity(*t.get("e"), parse_seconds); }).empty());
}

TEST(TomlInput, AnEmptyFileIsNamed) {
  const std::string path = ::testing::TempDir() + "/scalewall_toml_input_empty.toml";
  std::ofstream(path) << " \n\t\n";
  EXPECT_EQ(input_error_of([&] { read_toml_file(path, "fabric file"); }),
            "fabric file '" + path + "' is empty");
  std::filesystem::remove(path);
}

// "a.a.a..." with `names` names.
std::string dotted(int names) {
  std::string out = "a";
  for (int i = 1; i < names; ++i) out += ".a";
  return out;
}

std::string repeated(std::string_view part, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += part;
  return out;
}

TEST(TomlInput, NestingIsRefusedPast64BeforeTheParser) {
  const std::string expected = "x.toml:2: TOML tables, arrays and dotted keys nested more "
                               "than 64 deep";
  // 50,000 levels crash the TOML library; the scan refuses them at the 65th.
  EXPECT_EQ(input_error_of([] { parse_toml("a = 1\n[" + dotted(50000) + "]\n", "x.toml"); }),
            expected);
  EXPECT_EQ(input_error_of([] { parse_toml("a = 1\nx." + dotted(50000) + " = 1\n", "x.toml"); }),
            expected);
  EXPECT_EQ(input_error_of([] {
              parse_toml("a = 1\nx = " + repeated("[", 65) + repeated("]", 65) + "\n", "x.toml");
            }),
            expected);
  EXPECT_EQ(input_error_of([] {
              parse_toml("a = 1\nx = " + repeated("{b = ", 65) + "1" + repeated("}", 65) + "\n",
                         "x.toml");
            }),
            expected);
  // A header 40 deep with a key 25 deep under it is 65 deep.
  EXPECT_EQ(input_error_of([] {
              parse_toml("a = 1\n[" + dotted(40) + "]\n" + dotted(25) + " = 1\n", "x.toml");
            }),
            "x.toml:3: TOML tables, arrays and dotted keys nested more than 64 deep");
}

TEST(TomlInput, NestingOf64IsRead) {
  const toml::table t = parse_toml("[" + dotted(63) + "]\nb = 1\n", "x.toml");
  EXPECT_TRUE(t.at_path(dotted(63) + ".b").is_integer());
  // x is 1 deep, each array one more.
  EXPECT_NO_THROW(parse_toml("x = " + repeated("[", 63) + repeated("]", 63) + "\n", "x.toml"));
  EXPECT_NO_THROW(parse_toml(dotted(64) + " = 1\n", "x.toml"));
}

TEST(TomlInput, BracketsDotsAndQuotesInStringsAndCommentsAreText) {
  const std::string deep = repeated("[{.", 100);
  const std::string text = "a = \"" + deep + "\\\"\" # " + deep + "\n" +  //
                           "b = '" + deep + "'\n" +                         //
                           "c = \"\"\"\n" + deep + "\"\"\"\"\n" +           //
                           "d = '''" + deep + "''''\n" +                    //
                           "\"e." + dotted(100) + "\" = 1985-05-27 07:32:00\n" +
                           "[f]\n'g.h' = [1, {i = 2}, [3]] # ]]\n";
  const toml::table t = parse_toml(text, "x.toml");
  EXPECT_EQ(t["a"].value_or(std::string()), deep + "\"");
  EXPECT_EQ(t["c"].value_or(std::string()), deep + "\"");
  EXPECT_EQ(t["d"].value_or(std::string()), deep + "'");
  EXPECT_TRUE(t["e." + dotted(100)].is_date_time());
  EXPECT_TRUE(t.at_path("f").as_table()->get("g.h")->is_array());
}

TEST(TomlInput, TooManyValuesOrTooMuchTextIsRefusedBeforeTheParser) {
  std::string many = "x = [0";
  for (std::int64_t i = 0; i < kMaxTomlValues; ++i) many += ",0";
  many += "]\n";
  EXPECT_EQ(input_error_of([&] { parse_toml(many, "x.toml"); }),
            "x.toml:1: more than 2097152 TOML values (the limit for a scenario or fabric file, "
            "twice a rank_to_node list of 2^20 ranks)");
  const std::string text = "a = 1\nx = '" + std::string(kMaxTomlTextBytes, 'a') + "'\n";
  EXPECT_EQ(input_error_of([&] { parse_toml(text, "x.toml"); }),
            "x.toml:2: more than 16000000 bytes of TOML keys and values (the limit for a "
            "scenario or fabric file)");
}

TEST(TomlInput, CommentsAndBlanksLeftOutOfTheParseKeepTheLines) {
  const std::string text = "# " + std::string(1000, 'c') + "\n" + std::string(1000, ' ') +
                           "\n  a   =   'x  y' # note\nb = = 2\n";
  EXPECT_EQ(input_error_of([&] { parse_toml(text, "x.toml"); }).rfind("x.toml: line 4: ", 0), 0u);
  const toml::table t = parse_toml("# c\n\n  a   =   'x  y'   # note\n\tb\t=\t[1,   2]\n", "x.toml");
  EXPECT_EQ(t["a"].value_or(std::string()), "x  y");
  EXPECT_EQ(line_suffix(t.get("b")), " (line 4)");
  EXPECT_EQ(input_error_of([] { parse_toml(std::string(kMaxTomlLines + 1, '\n'), "x.toml"); }),
            "x.toml:4194305: more than 4194304 lines (the limit for a scenario or fabric file)");
}

TEST(TomlInput, ARankToNodeListOf2To20RanksIsRead) {
  std::string text = "rank_to_node = [";
  constexpr std::int64_t kRanks = std::int64_t{1} << 20;
  for (std::int64_t r = 0; r < kRanks; ++r) text += std::to_string(r / 8) + ", ";
  text += "]\n";
  const toml::table t = parse_toml(text, "x.toml");
  EXPECT_EQ(t["rank_to_node"].as_array()->size(), static_cast<std::size_t>(kRanks));
}

}  // namespace
}  // namespace scalewall
