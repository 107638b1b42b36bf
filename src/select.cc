// Implementation of scalewall/select.h (being written).
#include "scalewall/select.h"

#include <stdexcept>

namespace scalewall {

SelectionMap selection_map(Op, std::span<const std::int64_t>, std::span<const double>,
                           const std::function<Topology(std::int64_t)>&, const CostOptions&) {
  throw std::logic_error("selection_map: not yet implemented");
}
std::string_view selector_name(Selector) { return "?"; }
Selector parse_selector(std::string_view) { throw std::logic_error("not yet implemented"); }
LibraryChoice library_choice(Selector, Op, std::int64_t, double, double) {
  throw std::logic_error("library_choice: not yet implemented");
}

}  // namespace scalewall
