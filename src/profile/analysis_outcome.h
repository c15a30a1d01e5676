#pragma once
// The verdict, knobs, report and plot shares of a variant's counters, the same for `gputune
// analyze` (counters just taken) and stored counters (Python's Results).
#include <map>
#include <string>

#include "analysis/bottleneck.h"
#include "analysis/ncu_csv.h"
#include "gputune/analysis.h"
#include "gputune/spec.h"
#include "space/problem.h"
#include "store/store.h"

namespace gputune {

// Fills `outcome`'s step, verdict, knobs, counters, shares and report; `heading` is the
// report's first line ("Variant TILE=32 PAD=1 (transpose_kernel)").
// The one number that decided the verdict, for a table ("15.70 bank conflicts per request").
std::string key_number(const BottleneckAnalysis& analysis);

// `copy_bandwidth_gbs`: the device's measured copy bandwidth, the practical DRAM limit the
// verdict judges against (0 when unknown: the theoretical peak alone).
void classify_into(const Spec& spec, const std::string& heading,
                   const std::map<std::string, double>& counters, double copy_bandwidth_gbs,
                   AnalysisOutcome* outcome);

// Counters just taken of the variant at `index`: classified into `outcome` (source, cost,
// verdict, report) and, where the workload is in the database, stored keyed by it; the
// verdict judges DRAM throughput against the copy bandwidth the database holds for the
// workload's device, where it holds one.
void record_profile(const Problem& problem, uint64_t index, const KernelCounters& counters,
                    const std::string& source, double cost_s, Store& store,
                    const WorkloadSummary* workload, AnalysisOutcome* outcome);

}  // namespace gputune
