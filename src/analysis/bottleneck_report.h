#pragma once
#include <string>

#include "analysis/bottleneck.h"
#include "analysis/remedies.h"
#include "gputune/spec.h"

namespace gputune {

// The four steps with their numbers, then the verdict and the knobs that address it (a
// Diagnosis's).
std::string format_bottleneck_report(const BottleneckAnalysis& analysis, const RemedyKnobs& knobs);
// The same, with the knobs of `spec` for the analysis's remedies.
std::string format_bottleneck_report(const BottleneckAnalysis& analysis, const Spec& spec);

}  // namespace gputune
