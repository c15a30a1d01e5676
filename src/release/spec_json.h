#pragma once
#include <string>

#include "gputune/spec.h"

namespace gputune {

// What the run time needs of a checked spec without the spec file (docs/release-format.md,
// kernels.spec_json): problem values, parameters and transforms with their values, constraints,
// launches, baseline and arguments, expressions as written. Canonical JSON (keys sorted).
std::string spec_json(const Spec& spec);

}  // namespace gputune
