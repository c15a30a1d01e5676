#pragma once
#include <string>

#include "analysis/bottleneck.h"
#include "gputune/spec.h"

namespace gputune {

// The four steps with their numbers, then the verdict and the knobs of `spec` that address it.
std::string format_bottleneck_report(const BottleneckAnalysis& analysis, const Spec& spec);

}  // namespace gputune
