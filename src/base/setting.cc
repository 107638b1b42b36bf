// Implementation of scalewall/base/setting.h.
#include "scalewall/base/setting.h"

#include <array>
#include <cstddef>
#include <utility>

namespace scalewall {
namespace {

constexpr std::size_t kSettings = 2;

std::array<std::string, kSettings>& installed() {
  static std::array<std::string, kSettings> words = {"the rank count", "the size range"};
  return words;
}

}  // namespace

std::string_view setting_words(Setting setting) {
  return installed()[static_cast<std::size_t>(setting)];
}

void set_setting_words(Setting setting, std::string words) {
  installed()[static_cast<std::size_t>(setting)] = std::move(words);
}

}  // namespace scalewall
