#pragma once
#include "gputune/spec.h"

namespace gputune {

// The CUDA C++ spelling of a scalar type, for the kernels gputune compiles itself.
const char* device_type_name(ScalarType type);

}  // namespace gputune
