// Tests for cli/flag_table.h: a CommandSpec's flags reach CLI11 as their table says.
#include "cli/flag_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace scalewall {
namespace {

struct Flags {
  std::vector<std::string> files;
  std::string ranks;
  std::string plot;
  bool what_if = false;
  int abort_rank = -1;
  const CLI::Option* ranks_option = nullptr;
};

// One command with one flag of each kind, as the executables declare theirs.
CLI::App* add_example(CLI::App& app, Flags& f) {
  return add_command(
      app, {"example",
            "An example command.",
            {{{"files", &f.files, "Input files", "FILE", {}, FlagKind::kRequired}},
             {{"--ranks,-n", &f.ranks, "Rank counts", "LIST", "2..8", FlagKind::kOptional,
               &f.ranks_option},
              {"--plot", &f.plot, "Plot file", "FILE", {}, FlagKind::kFileName},
              {"--what-if", &f.what_if, "Rank the remedies"},
              {"--abort-rank", &f.abort_rank, "Test only", "", {}, FlagKind::kHidden}}},
            "The footer."});
}

void parse(CLI::App& app, std::vector<std::string> args) {
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  app.parse(args);
}

TEST(FlagTable, DefaultsAreStoredAndShownInHelpInTableOrder) {
  CLI::App app{"test", "test"};
  Flags f;
  CLI::App* cmd = add_example(app, f);
  EXPECT_EQ(f.ranks, "2..8");
  const std::string help = cmd->help();
  EXPECT_NE(help.find("An example command."), std::string::npos);
  EXPECT_NE(help.find("-n,--ranks LIST=2..8"), std::string::npos);
  EXPECT_NE(help.find("--plot FILE "), std::string::npos);
  EXPECT_NE(help.find("The footer."), std::string::npos);
  EXPECT_LT(help.find("--ranks"), help.find("--plot"));
  EXPECT_LT(help.find("--plot"), help.find("--what-if"));
  EXPECT_EQ(help.find("--abort-rank"), std::string::npos);  // hidden
}

TEST(FlagTable, ValuesKindsAndGivenAfterParsing) {
  CLI::App app{"test", "test"};
  Flags f;
  add_example(app, f);
  EXPECT_FALSE(given(f.ranks_option));
  parse(app, {"example", "a.jsonl", "b.jsonl", "-n", "8,64", "--what-if", "--abort-rank", "3"});
  EXPECT_EQ(f.files, (std::vector<std::string>{"a.jsonl", "b.jsonl"}));
  EXPECT_EQ(f.ranks, "8,64");
  EXPECT_TRUE(given(f.ranks_option));
  EXPECT_TRUE(f.what_if);
  EXPECT_EQ(f.abort_rank, 3);
  EXPECT_FALSE(given(nullptr));
}

TEST(FlagTable, RequiredAndFileNameFlagsRefuseWhatTheyMust) {
  {
    CLI::App app{"test", "test"};
    Flags f;
    add_example(app, f);
    EXPECT_THROW(parse(app, {"example"}), CLI::RequiredError);
  }
  {
    CLI::App app{"test", "test"};
    Flags f;
    add_example(app, f);
    EXPECT_THROW(parse(app, {"example", "a.jsonl", "--plot", ""}), CLI::ValidationError);
  }
}

// An empty value is refused for every flag that takes one, naming the flag, never read as
// "not given"; an empty positional is left to the reader of the file.
TEST(FlagTable, EveryFlagRefusesAnEmptyValue) {
  const auto message = [](std::vector<std::string> args) -> std::string {
    CLI::App app{"test", "test"};
    Flags f;
    add_example(app, f);
    try {
      parse(app, std::move(args));
    } catch (const CLI::ValidationError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(message({"example", "a.jsonl", "--ranks", ""}), "--ranks: the list is empty");
  EXPECT_EQ(message({"example", "a.jsonl", "-n", ""}), "--ranks: the list is empty");
  EXPECT_EQ(message({"example", "a.jsonl", "--plot", ""}), "--plot: the file name is empty");
  EXPECT_EQ(message({"example", ""}), "accepted");
  EXPECT_EQ(message({"example", "a.jsonl", "--ranks", "8"}), "accepted");
}

}  // namespace
}  // namespace scalewall
