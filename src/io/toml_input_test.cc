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

}  // namespace
}  // namespace scalewall
