#pragma once
// The verdict, knobs, report and plot shares of a variant's counters, the same for `gputune
// analyze` (counters just taken) and stored counters (Python's Results).
#include <map>
#include <string>

#include "analysis/bottleneck.h"
#include "gputune/analysis.h"
#include "gputune/spec.h"

namespace gputune {

// Fills `outcome`'s step, verdict, knobs, counters, shares and report; `heading` is the
// report's first line ("Variant TILE=32 PAD=1 (transpose_kernel)").
// The one number that decided the verdict, for a table ("15.70 bank conflicts per request").
std::string key_number(const BottleneckAnalysis& analysis);

void classify_into(const Spec& spec, const std::string& heading,
                   const std::map<std::string, double>& counters, AnalysisOutcome* outcome);

}  // namespace gputune
