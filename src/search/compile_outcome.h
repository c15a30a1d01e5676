#pragma once
#include "compile/compiler.h"
#include "gputune/measurement.h"
#include "space/problem.h"

namespace gputune {

// A variant that did not compile, as the measurement stored for it (with the compiler's log).
Measurement compile_failure(const Variant& variant, const CompiledKernel& kernel);

}  // namespace gputune
