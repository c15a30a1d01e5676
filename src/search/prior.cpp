#include "search/prior.h"

#include <algorithm>

#include "core/config_codec.h"

namespace gputune {

namespace {

std::vector<std::string> parameters_of(const std::vector<Measurement>& measurements) {
  std::vector<std::string> names;
  for (const Measurement& m : measurements) {
    auto config = config_from_json(m.config);
    if (!config) continue;
    for (const auto& [name, value] : *config) names.push_back(name);
    break;
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

PriorKey prior_key(const Problem& problem) {
  PriorKey key;
  key.kernel_name = problem.spec().kernel_name.text;
  for (const Dimension& d : problem.space().dimensions()) key.parameters.push_back(d.name);
  std::sort(key.parameters.begin(), key.parameters.end());
  return key;
}

std::vector<PriorData> prior_from_store(const Store& store, int64_t workload,
                                        const PriorKey& kernel) {
  std::vector<PriorData> prior;
  for (const auto& other : store.workloads()) {
    if (other.id == workload || other.key.kernel_name != kernel.kernel_name || other.ok == 0) {
      continue;
    }
    std::vector<Measurement> measurements = store.measured(other.id);
    if (parameters_of(measurements) != kernel.parameters) continue;
    PriorData data;
    data.problem_values = problem_from_json(other.key.problem_json).value_or(ProblemValues{});
    data.label = other.key.device.name + " " + other.key.problem_json;
    data.sm_count = other.key.device.sm_count;
    data.measurements = std::move(measurements);
    prior.push_back(std::move(data));
  }
  return prior;
}

}  // namespace gputune
