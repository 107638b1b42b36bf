// cli/flag_table.h: commands and their flags as data. Both executables, scalewall (cli/) and
// scalewall-mpi (mpi/), register every subcommand through add_command: a CommandSpec (name,
// description, footer) with one FlagSpec per flag, in the order --help lists them, so that a
// new flag is one more entry in its command's table. Part of the static library scalewall_flags, with cli/flags.h, which reads
// the values afterwards.
//
// Layer: beside cli/ and mpi/; includes CLI11 and no library header.
#ifndef SCALEWALL_CLI_FLAG_TABLE_H_
#define SCALEWALL_CLI_FLAG_TABLE_H_

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace scalewall {

// Where a flag's value goes: text (read after parsing by the cli/flags.h parsers, so that
// every error names the flag and the value), a list of texts (the positional files), a
// switch that takes no value, or a whole number (the hidden fault injection of
// scalewall-mpi).
using FlagTarget = std::variant<std::string*, std::vector<std::string>*, bool*, int*>;

enum class FlagKind {
  kOptional,  // may be left out
  kRequired,  // the command line is refused without it
  kFileName,  // names an output file (an empty value is refused, as for every flag)
  kHidden,    // left out of --help: fault injection for the tests of clean failure
};

// One flag. Entries are written in this order: {names, target, help, type_name,
// default_value, kind, given}; the last four may be left out.
struct FlagSpec {
  // CLI11's list of names: "--ranks,-n", "--out,--output,-o"; a name without dashes is a
  // positional argument ("files").
  std::string names;
  FlagTarget target;
  std::string help;
  // The value's placeholder in --help ("N", "FILE", "table|csv|json"). Empty: CLI11's own
  // (a switch shows none).
  std::string type_name = {};
  // Stored in the target before parsing and shown in --help as NAME=VALUE. None: the target
  // keeps what it holds, and the command decides what a missing flag means.
  std::optional<std::string> default_value = {};
  FlagKind kind = FlagKind::kOptional;
  // When set, receives the registered option, so that the command can ask whether the flag
  // was given (given(option)) where a default value cannot tell.
  const CLI::Option** given = nullptr;
};

// Flags that --help lists together: a command's own, or a set that several commands share
// (the network flags of cli/common.h, the size sweep of mpi/modes.h).
using FlagGroup = std::vector<FlagSpec>;

// A subcommand as data, in the order its --help shows it.
struct CommandSpec {
  std::string name;
  std::string description;       // the paragraph --help starts with
  std::vector<FlagGroup> flags;  // every flag, group after group
  std::string footer = {};       // what --help ends with: how to read the output, examples
};

// Adds the subcommand and its flags to `app`; the caller says what it runs.
CLI::App* add_command(CLI::App& app, const CommandSpec& command);

// Registers `flag` on `command`: a switch for a bool target, an option otherwise.
CLI::Option* add_flag(CLI::App* command, const FlagSpec& flag);

// Whether the flag registered into `option` was on the command line; false for none.
bool given(const CLI::Option* option);

}  // namespace scalewall

#endif  // SCALEWALL_CLI_FLAG_TABLE_H_
