// Implementation of scalewall/present/record_names.h.
#include "scalewall/present/record_names.h"

#include <type_traits>
#include <variant>

namespace scalewall {

std::string step_collective_name(const StepCollective& collective) {
  return std::visit(
      [](const auto& c) -> std::string {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, AlgorithmSpec>) {
          return algorithm_name(c);
        } else if constexpr (std::is_same_v<T, BusBandwidthGiven>) {
          return "busbw";
        } else if constexpr (std::is_same_v<T, NcclPick>) {
          return std::string(nccl_algorithm_name(c.algorithm)) + "/" +
                 std::string(nccl_protocol_name(c.protocol));
        } else {
          return "";
        }
      },
      collective);
}

}  // namespace scalewall
