// placeholder
#include "cli/common.h"
namespace scalewall::cli {
void register_collective(CLI::App&) {}
}  // namespace scalewall::cli
