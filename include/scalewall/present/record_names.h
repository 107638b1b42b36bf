// scalewall/present/record_names.h: how reports name the typed values of the model's results
// that are not a model name already (op_name and algorithm_name are the model's own).
#ifndef SCALEWALL_RECORD_NAMES_H_
#define SCALEWALL_RECORD_NAMES_H_

#include <string>

#include "scalewall/model/step_model.h"

namespace scalewall {

// A step's all-reduce as the scaling tables print it: the algorithm's name ("ring",
// "hierarchical-ring", ...), "busbw" for a given bus bandwidth, "" when the step makes no
// call.
std::string step_collective_name(const StepCollective& collective);

}  // namespace scalewall

#endif  // SCALEWALL_RECORD_NAMES_H_
