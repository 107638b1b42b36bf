// Commands and flags as data, registered with CLI11; see cli/flag_table.h.
#include "cli/flag_table.h"

#include <type_traits>

namespace scalewall {
namespace {

// For a flag that names an output file (--plot, --out): an empty name is refused.
CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](const std::string& text) {
        return text.empty() ? std::string("the file name is empty") : std::string();
      },
      "");  // no description: the option's type name already says FILE
}

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
  switch (flag.kind) {
    case FlagKind::kOptional:
      break;
    case FlagKind::kRequired:
      option->required();
      break;
    case FlagKind::kFileName:
      option->check(non_empty_path());
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
