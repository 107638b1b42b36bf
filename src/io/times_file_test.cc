// Tests of scalewall/io/times_file.h: each accepted layout, and each error naming the file and
// the 1-based line. The files are written to a per-test temporary directory.
#include "scalewall/io/times_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

class TimesFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("scalewall-times-" + std::to_string(::getpid())) / info->name();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string write(const std::string& name, const std::string& text) {
    const std::filesystem::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  // The message of the InputError read_times_file throws; fails the test if none.
  static std::string error_of(const std::string& path, const std::string& column = "") {
    try {
      read_times_file(path, column);
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no InputError reading " << path;
    return "";
  }

  std::filesystem::path dir_;
};

using Times = std::vector<double>;

TEST_F(TimesFile, OneNumberPerLine) {
  const std::string path = write("plain.txt", "1.0\n1.02\n0.98\n1.5\n");
  EXPECT_EQ(read_times_file(path), (Times{1.0, 1.02, 0.98, 1.5}));
}

TEST_F(TimesFile, UnitsCommentsBlankLinesAndCrlf) {
  const std::string path =
      write("mixed.txt", "# per-rank step times\r\n\r\n1020ms\r\n  0.98 s \r\n\r\n# end\r\n2.5us");
  const Times times = read_times_file(path);
  ASSERT_EQ(times.size(), 3u);
  EXPECT_DOUBLE_EQ(times[0], 1.02);
  EXPECT_DOUBLE_EQ(times[1], 0.98);
  EXPECT_DOUBLE_EQ(times[2], 2.5e-6);
}

TEST_F(TimesFile, CsvPicksAKnownColumnName) {
  const std::string path = write("ranks.csv", "rank,host,step_s\n0,a,1.0\n1,a,1.25\n2,b,0.5\n");
  EXPECT_EQ(read_times_file(path), (Times{1.0, 1.25, 0.5}));
  // Each of the four known names, quoted or not, with a byte-order mark in front.
  for (const std::string name : {"time_s", "\"seconds\"", "t_s"}) {
    const std::string p = write("named.csv", "\xEF\xBB\xBF" "rank," + name + "\n0,2\n1,3\n");
    EXPECT_EQ(read_times_file(p), (Times{2.0, 3.0})) << name;
  }
}

TEST_F(TimesFile, CsvColumnByNameOrIndex) {
  const std::string path = write("two.csv", "rank,compute_s,step_s\n0,0.5,1\n1,0.75,2\n");
  EXPECT_EQ(read_times_file(path, "compute_s"), (Times{0.5, 0.75}));
  EXPECT_EQ(read_times_file(path, "3"), (Times{1.0, 2.0}));
  EXPECT_EQ(read_times_file(path, "2"), (Times{0.5, 0.75}));
  // A single named column needs no name.
  const std::string single = write("single.csv", "anything\n4\n5\n");
  EXPECT_EQ(read_times_file(single), (Times{4.0, 5.0}));
}

TEST_F(TimesFile, HeaderlessCsvNeedsAnIndex) {
  const std::string path = write("bare.csv", "0,1.5\n1,2.5\n");
  EXPECT_EQ(read_times_file(path, "2"), (Times{1.5, 2.5}));
  EXPECT_EQ(read_times_file(path, "1"), (Times{0.0, 1.0}));
  EXPECT_NE(error_of(path).find(path + ":1:"), std::string::npos) << error_of(path);
  EXPECT_NE(error_of(path, "step_s").find("1-based index"), std::string::npos);
  EXPECT_NE(error_of(path, "3").find(path + ":1:"), std::string::npos);
}

TEST_F(TimesFile, MissingFileIsNamed) {
  const std::string path = (dir_ / "nope.txt").string();
  const std::string message = error_of(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("no such file"), std::string::npos) << message;
  const std::string dir_message = error_of(dir_.string());
  EXPECT_NE(dir_message.find("directory"), std::string::npos) << dir_message;
}

TEST_F(TimesFile, EmptyFilesHoldNoTimes) {
  for (const std::string text : {"", "\n\n", "# only a comment\n", "step_s\n"}) {
    const std::string path = write("empty.txt", text);
    const std::string message = error_of(path);
    EXPECT_NE(message.find("holds no times"), std::string::npos) << message;
    EXPECT_NE(message.find(path), std::string::npos) << message;
  }
}

TEST_F(TimesFile, BadValuesNameFileAndLine) {
  struct Case {
    std::string text;
    std::string column;
    std::string where;  // expected "path:line" suffix
    std::string what;   // a piece of the message
  };
  const Case cases[] = {
      {"1.0\n# c\nabc1\n", "", ":3:", "abc1"},          // not a number (after a data line)
      {"1.0\n-0.5\n", "", ":2:", "-0.5"},               // negative
      {"1.0\n2.0\n\nnan\n", "", ":4:", "nan"},          // not finite
      {"inf\n1\n", "", ":1:", "inf"},                   // not finite, first line
      {"1.0x\n1\n", "", ":1:", "1.0x"},                 // bad first value, not a header
      {"1\n2 parsecs\n", "", ":2:", "parsecs"},         // unknown unit
      {"a,step_s\n0,1\n1\n", "", ":3:", "short"},       // short row
      {"a,b\n0,1\n", "", ":1:", "none named step_s"},   // no known column
      {"a,b\n0,1\n", "c", ":1:", "no column 'c'"},      // named column absent
      {"a,b\n0,1\n", "5", ":1:", "no column '5'"},      // index past the header
      {"a,step_s\n0,\n", "", ":2:", "empty"},           // empty cell
  };
  for (const Case& c : cases) {
    const std::string path = write("bad.csv", c.text);
    const std::string message = error_of(path, c.column);
    EXPECT_NE(message.find(path + c.where), std::string::npos) << c.text << " -> " << message;
    EXPECT_NE(message.find(c.what), std::string::npos) << c.text << " -> " << message;
  }
}

}  // namespace
}  // namespace scalewall

namespace scalewall {
namespace {

// The text reader reads what the file reader reads, naming the source it is given.
TEST(TimesText, ParsesTextAndNamesTheSource) {
  EXPECT_EQ(parse_times_text("step_s\n1.0\n1020ms\n", "t.csv"),
            (std::vector<double>{1.0, 1.02}));
  EXPECT_EQ(parse_times_text("a,b\n1,2\n3,4", "t.csv", "b"), (std::vector<double>{2, 4}));
  try {
    parse_times_text("1.0\nfast\n", "t.csv");
    ADD_FAILURE() << "accepted 'fast'";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("t.csv:2: ", 0), 0U) << e.what();
  }
  EXPECT_THROW(parse_times_text("", "t.csv"), InputError);
  EXPECT_THROW(read_times_file("/dev/zero"), InputError);
}

// A times file holds one time per rank, at most kMaxTimes of them; the limit itself is read.
TEST(TimesText, AFileOfMoreTimesThanTheLimitIsRefused) {
  std::string text = "step_s\n";
  for (std::int64_t i = 0; i < kMaxTimes; ++i) text += "1\n";
  EXPECT_EQ(parse_times_text(text, "t.csv").size(), static_cast<std::size_t>(kMaxTimes));
  text += "1\n";
  try {
    parse_times_text(text, "t.csv");
    ADD_FAILURE() << "accepted " << kMaxTimes + 1 << " times";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.csv:1000002: more than 1000000 times (the limit for a times file: "
                           "one per rank)");
  }
}

}  // namespace
}  // namespace scalewall
