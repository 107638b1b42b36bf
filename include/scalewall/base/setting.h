// scalewall/base/setting.h: how a message names a setting the caller can change.
//
// A library message that suggests a remedy ("give the rank count", "widen the size range")
// names the setting by this enum, never by a front end's spelling of it. A front end installs
// its own words once at start (the command-line tool: its flag names, "--ranks"); until then
// the plain words below are used.
#ifndef SCALEWALL_BASE_SETTING_H_
#define SCALEWALL_BASE_SETTING_H_

#include <string>
#include <string_view>

namespace scalewall {

enum class Setting {
  kRankCount,  // the rank count of measurements that do not record it ("the rank count")
  kSizeRange,  // the message-size range a fit uses ("the size range")
};

// The words for `setting` in messages: the installed ones, else the plain default.
std::string_view setting_words(Setting setting);

// Installs the words for `setting`. Not thread-safe: call before any other library call.
void set_setting_words(Setting setting, std::string words);

}  // namespace scalewall

#endif  // SCALEWALL_BASE_SETTING_H_
