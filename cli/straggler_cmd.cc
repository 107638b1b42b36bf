// placeholder
#include "cli/common.h"
namespace scalewall::cli {
void register_straggler(CLI::App&) {}
}  // namespace scalewall::cli
