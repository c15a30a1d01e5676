#include "search/prior.h"

#include <filesystem>

#include "core/config_codec.h"

namespace gputune {

namespace {
std::string spec_stem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}
}  // namespace

std::vector<PriorData> prior_from_store(const Store& store, int64_t workload,
                                        const WorkloadKey& key) {
  std::vector<PriorData> prior;
  for (const auto& other : store.workloads()) {
    // The same kernel of the same spec file, wherever the file lies now.
    if (other.id == workload || other.key.kernel_name != key.kernel_name ||
        spec_stem(other.key.spec_path) != spec_stem(key.spec_path) || other.ok == 0) {
      continue;
    }
    PriorData data;
    data.problem_values = problem_from_json(other.key.problem_json).value_or(ProblemValues{});
    data.label = other.key.device.name + " " + other.key.problem_json;
    data.sm_count = other.key.device.sm_count;
    data.measurements = store.measured(other.id);
    prior.push_back(std::move(data));
  }
  return prior;
}

}  // namespace gputune
