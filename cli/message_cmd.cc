// placeholder
#include "cli/common.h"
namespace scalewall::cli {
void register_message(CLI::App&) {}
}  // namespace scalewall::cli
