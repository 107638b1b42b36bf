// Commands and flags as data, registered with CLI11; see cli/flag_table.h.
#include "cli/flag_table.h"

#include <type_traits>

namespace scalewall {
namespace {

// What an empty value of `flag` is called in its error: "--plot: the file name is empty".
std::string empty_value_words(const FlagSpec& flag) {
  if (flag.kind == FlagKind::kFileName || flag.type_name == "FILE") {
    return "the file name is empty";
  }
  if (flag.type_name == "DIR") return "the directory name is empty";
  if (flag.type_name == "LIST") return "the list is empty";
  if (flag.kind == FlagKind::kRequired) return "the value is empty";
  return "the value is empty (leave the flag out for its default)";
}

// Every flag that takes a value refuses an empty one ("--tp ''", "--out ''"): an empty value is
// never read as "not given" or "no output". Positional arguments are left to their readers,
// which name the file.
CLI::Validator non_empty(const FlagSpec& flag) {
  return CLI::Validator(
      [words = empty_value_words(flag)](const std::string& text) {
        return text.empty() ? words : std::string();
      },
      "");  // no description: the option's type name already says what it takes
}

bool positional(const FlagSpec& flag) { return !flag.names.starts_with("-"); }

}  // namespace

CLI::Option* add_flag(CLI::App* command, const FlagSpec& flag) {
  CLI::Option* option = std::visit(
      [&](auto* target) {
        if constexpr (std::is_same_v<decltype(target), bool*>) {
          return command->add_flag(flag.names, *target, flag.help);
        } else {
          return command->add_option(flag.names, *target, flag.help);
        }
      },
      flag.target);
  if (!flag.type_name.empty()) option->type_name(flag.type_name);
  if (flag.default_value) option->default_val(*flag.default_value);
  const bool takes_text = !std::holds_alternative<bool*>(flag.target) &&
                          !std::holds_alternative<int*>(flag.target);
  if (takes_text && !positional(flag)) option->check(non_empty(flag));
  switch (flag.kind) {
    case FlagKind::kOptional:
      break;
    case FlagKind::kRequired:
      option->required();
      break;
    case FlagKind::kFileName:  // refused empty, as every flag that takes text
      break;
    case FlagKind::kHidden:
      option->group("");
      break;
  }
  if (flag.given != nullptr) *flag.given = option;
  return option;
}

CLI::App* add_command(CLI::App& app, const CommandSpec& command) {
  CLI::App* sub = app.add_subcommand(command.name, command.description);
  for (const FlagGroup& group : command.flags) {
    for (const FlagSpec& flag : group) add_flag(sub, flag);
  }
  if (!command.footer.empty()) sub->footer(command.footer);
  return sub;
}

bool given(const CLI::Option* option) { return option != nullptr && option->count() > 0; }

}  // namespace scalewall
