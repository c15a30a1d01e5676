#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gputune/device.h"
#include "gputune/spec.h"
#include "space/problem.h"
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

// Of `workloads`, the one measured on `gpu` (counters taken there belong to it, and its copy
// bandwidth is that GPU's), or none. Without a GPU to compare (none listed: a profiler stood in
// for one), the first.
const WorkloadSummary* workload_on(const std::vector<WorkloadSummary>& workloads,
                                   const std::optional<DeviceInfo>& gpu);

// The workload a search of `problem` on `device` with `toolchain` stores its results under: the
// one it measures as (so a search after an annotation goes on with the results measured
// before it), else a new one keyed by this exact text.
int64_t workload_measured_as(Store& store, const Problem& problem, const DeviceInfo& device,
                             const std::string& toolchain);

}  // namespace gputune
