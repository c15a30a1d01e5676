#include "search/matching_workloads.h"

#include <algorithm>

#include "search/search.h"
#include "spec/measurement_hash.h"

namespace gputune {

namespace {

// A spec's hashes, taken once for many workloads (the measurement hash parses the text).
struct SpecHashes {
  explicit SpecHashes(const Spec& spec)
      : spec(spec.spec_hash()), source(spec.source_hash()), measurement(spec.measurement_hash()) {}
  std::string spec, source, measurement;
};

bool measured_as(const SpecHashes& hashes, const WorkloadKey& key) {
  if (key.source_hash != hashes.source) return false;
  if (key.spec_hash == hashes.spec) return true;
  return !key.spec_text.empty() && measurement_hash_of(key.spec_text) == hashes.measurement;
}

}  // namespace

bool measures_as(const Spec& spec, const WorkloadKey& key) {
  return measured_as(SpecHashes(spec), key);
}

std::vector<WorkloadSummary> workloads_measured_as(const Store& store, const Spec& spec,
                                                   const std::string& problem_json) {
  const SpecHashes hashes(spec);
  std::vector<WorkloadSummary> out;
  for (WorkloadSummary& w : store.workloads("", problem_json)) {
    if (measured_as(hashes, w.key)) out.push_back(std::move(w));
  }
  const std::string& exact = hashes.spec;
  std::stable_partition(out.begin(), out.end(),
                        [&](const WorkloadSummary& w) { return w.key.spec_hash == exact; });
  return out;
}

const WorkloadSummary* workload_on(const std::vector<WorkloadSummary>& workloads,
                                   const std::optional<DeviceInfo>& gpu) {
  if (!gpu) return workloads.empty() ? nullptr : &workloads.front();
  for (const WorkloadSummary& w : workloads) {
    if (w.key.device.key() == gpu->key()) return &w;
  }
  return nullptr;
}

int64_t workload_measured_as(Store& store, const Problem& problem, const DeviceInfo& device,
                             const std::string& toolchain) {
  const WorkloadKey key = workload_key(problem, device, toolchain);
  for (const WorkloadSummary& w : workloads_measured_as(store, problem.spec(), key.problem_json)) {
    if (w.key.device.key() == key.device.key() && w.key.nvrtc_version == toolchain) return w.id;
  }
  return store.workload(key);
}

}  // namespace gputune
