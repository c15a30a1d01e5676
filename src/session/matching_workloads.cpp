#include "session/matching_workloads.h"

#include <algorithm>

#include "spec/measurement_hash.h"

namespace gputune {

bool measures_as(const Spec& spec, const WorkloadKey& key) {
  if (key.source_hash != spec.source_hash()) return false;
  if (key.spec_hash == spec.spec_hash()) return true;
  return !key.spec_text.empty() && measurement_hash_of(key.spec_text) == spec.measurement_hash();
}

std::vector<WorkloadSummary> workloads_measured_as(const Store& store, const Spec& spec,
                                                   const std::string& problem_json) {
  std::vector<WorkloadSummary> out;
  for (WorkloadSummary& w : store.workloads("", problem_json)) {
    if (measures_as(spec, w.key)) out.push_back(std::move(w));
  }
  const std::string exact = spec.spec_hash();
  std::stable_partition(out.begin(), out.end(),
                        [&](const WorkloadSummary& w) { return w.key.spec_hash == exact; });
  return out;
}

}  // namespace gputune
