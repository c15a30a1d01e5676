#pragma once
#include <string>

#include "run/cuda_driver.h"
#include "space/problem.h"

namespace gputune {

// Empty when `launch` fits `function` and the device of `context`; else why not. Raises the
// function's dynamic shared memory limit where the launch needs more than the default (opt-in).
std::string fit_launch(const cuda::Context& context, CUfunction function, const Launch& launch);

}  // namespace gputune
