// Implementation of scalewall/base/error.h.
#include "scalewall/base/error.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#ifndef SCALEWALL_SOURCE_DIR
#define SCALEWALL_SOURCE_DIR ""
#endif
#ifndef SCALEWALL_SOURCE_FROM_BUILD
#define SCALEWALL_SOURCE_FROM_BUILD ""
#endif

namespace scalewall {
namespace {

// `file` (a __FILE__) as a path in the project, "src/model/link.cc": without the source
// directory's absolute path or the build directory's relative way to it ("../").
std::string_view source_path(std::string_view file) {
  constexpr std::string_view kAbsolute = SCALEWALL_SOURCE_DIR "/";
  constexpr std::string_view kFromBuild = SCALEWALL_SOURCE_FROM_BUILD "/";
  for (const std::string_view root : {kAbsolute, kFromBuild}) {
    if (root.size() > 1 && file.starts_with(root)) return file.substr(root.size());
  }
  while (file.starts_with("./") || file.starts_with("../")) file.remove_prefix(file.find('/') + 1);
  return file;
}

}  // namespace

void check_failed(const char* condition, const char* file_name, int line,
                  std::string_view detail) {
  const std::string_view path = source_path(file_name);
  const int path_size = static_cast<int>(path.size());
  if (detail.empty()) {
    std::fprintf(stderr, "scalewall: internal check failed: %s at %.*s:%d\n", condition,
                 path_size, path.data(), line);
  } else {
    std::fprintf(stderr, "scalewall: internal check failed: %s at %.*s:%d: %.*s\n", condition,
                 path_size, path.data(), line, static_cast<int>(detail.size()), detail.data());
  }
  std::abort();
}

}  // namespace scalewall
