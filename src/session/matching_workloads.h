#pragma once
#include <string>
#include <vector>

#include "gputune/spec.h"
#include "store/store.h"

namespace gputune {

// Whether `spec` measures what the workload keyed `key` measured: the same kernel source, and a
// spec text that differs at most where no config or measurement depends on it (remedies:,
// description:, search:; spec/measurement_hash.h). A spec annotated after its search still
// finds that search's results.
bool measures_as(const Spec& spec, const WorkloadKey& key);

// The workloads at `problem_json` that `spec` measures as, those stored with this very spec
// text first.
std::vector<WorkloadSummary> workloads_measured_as(const Store& store, const Spec& spec,
                                                   const std::string& problem_json);

}  // namespace gputune
