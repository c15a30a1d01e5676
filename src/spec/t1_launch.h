#pragma once
// A T1 file's launch of its kernel: block, grid and dynamic shared memory.
#include <nlohmann/json.hpp>

#include "gputune/spec.h"
#include "spec/t1_fields.h"

namespace gputune {

// The launch, into spec->launches, after ProblemSize, the parameters and the Arguments are read:
// LocalSize is the block; the grid is GlobalSize (GlobalSizeType CUDA) or GlobalSize's threads
// over the block (OpenCL), or, where the file gives ProblemSize with grid divisors or without
// GlobalSize, ProblemSize over GridDivX/GridDivY as BAT's runners launch it (a GlobalSize that
// disagrees at the Defaults is a warning); SharedMemory is the dynamic shared memory.
void read_t1_launch(const nlohmann::json& kernel, const T1Fields& fields, Spec* spec);

}  // namespace gputune
