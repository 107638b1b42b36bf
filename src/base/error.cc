// Implementation of scalewall/base/error.h.
#include "scalewall/base/error.h"

#include <cstdio>
#include <cstdlib>

namespace scalewall {

void check_failed(const char* condition, const char* file, int line, std::string_view detail) {
  if (detail.empty()) {
    std::fprintf(stderr, "scalewall: internal check failed: %s at %s:%d\n", condition, file,
                 line);
  } else {
    std::fprintf(stderr, "scalewall: internal check failed: %s at %s:%d: %.*s\n", condition,
                 file, line, static_cast<int>(detail.size()), detail.data());
  }
  std::abort();
}

}  // namespace scalewall
