#include "search/prior.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace gputune {

namespace {

std::vector<std::string> parameters_of(const std::vector<Measurement>& measurements) {
  std::vector<std::string> names;
  for (const Measurement& m : measurements) {
    auto config = nlohmann::json::parse(m.config, nullptr, false);
    if (!config.is_object()) continue;
    for (auto it = config.begin(); it != config.end(); ++it) names.push_back(it.key());
    break;
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::pair<std::string, double>> problem_values_of(const std::string& problem_json) {
  std::vector<std::pair<std::string, double>> values;
  auto problem = nlohmann::json::parse(problem_json, nullptr, false);
  if (problem.is_object()) {
    for (auto it = problem.begin(); it != problem.end(); ++it) {
      if (it->is_number()) values.emplace_back(it.key(), it->get<double>());
    }
  }
  return values;
}

}  // namespace

KernelIdentity kernel_identity(const Problem& problem) {
  KernelIdentity identity;
  identity.kernel_name = problem.spec().kernel_name.text;
  for (const Dimension& d : problem.space().dimensions()) identity.parameters.push_back(d.name);
  std::sort(identity.parameters.begin(), identity.parameters.end());
  return identity;
}

std::vector<PriorData> prior_from_store(const Store& store, int64_t workload,
                                        const KernelIdentity& kernel) {
  std::vector<PriorData> prior;
  for (const auto& other : store.workloads()) {
    if (other.id == workload || other.key.kernel_name != kernel.kernel_name || other.ok == 0) {
      continue;
    }
    std::vector<Measurement> measurements = store.measured(other.id);
    if (parameters_of(measurements) != kernel.parameters) continue;
    PriorData data;
    data.problem_values = problem_values_of(other.key.problem_json);
    data.label = other.key.device.name + " " + other.key.problem_json;
    data.sm_count = other.key.device.sm_count;
    data.measurements = std::move(measurements);
    prior.push_back(std::move(data));
  }
  return prior;
}

}  // namespace gputune
