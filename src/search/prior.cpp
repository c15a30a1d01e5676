#include "search/prior.h"

#include <algorithm>
#include <iterator>

namespace gputune {

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

PriorKey prior_key(const Problem& problem) {
  PriorKey key;
  key.kernel_name = problem.spec().kernel_name.text;
  const SearchSpace& space = problem.space();
  const std::vector<Value> baseline = space.values(problem.baseline_index());
  for (size_t d = 0; d < space.dimensions().size(); ++d) {
    key.parameters.push_back(space.dimensions()[d].name);
    key.baseline.push_back({space.dimensions()[d].name, baseline[d]});
  }
  std::sort(key.parameters.begin(), key.parameters.end());
  return key;
}

std::optional<std::vector<Measurement>> measurements_in_terms_of(
    const PriorKey& kernel, const std::string& their_kernel_name,
    const std::vector<std::string>& their_parameters, const std::string& their_baseline,
    std::vector<Measurement> measurements, std::string* changes) {
  if (their_kernel_name != kernel.kernel_name) return std::nullopt;
  std::vector<std::string> shared, added, dropped;
  std::set_intersection(kernel.parameters.begin(), kernel.parameters.end(),
                        their_parameters.begin(), their_parameters.end(),
                        std::back_inserter(shared));
  std::set_difference(kernel.parameters.begin(), kernel.parameters.end(), their_parameters.begin(),
                      their_parameters.end(), std::back_inserter(added));
  std::set_difference(their_parameters.begin(), their_parameters.end(), kernel.parameters.begin(),
                      kernel.parameters.end(), std::back_inserter(dropped));
  if (shared.empty() || shared.size() <= added.size() + dropped.size()) return std::nullopt;
  if (changes) {
    changes->clear();
    for (const auto& name : added) *changes += (changes->empty() ? "+" : " +") + name;
    for (const auto& name : dropped) *changes += (changes->empty() ? "-" : " -") + name;
  }
  if (added.empty() && dropped.empty()) return measurements;
  const Config baseline = config_from_json(their_baseline).value_or(Config{});
  std::vector<Measurement> out;
  for (Measurement& m : measurements) {
    const std::optional<Config> config = config_from_json(m.config);
    if (!config) continue;
    bool at_their_baseline = true;
    for (const auto& name : dropped) {
      const Value* value = find_value(*config, name);
      const Value* theirs = find_value(baseline, name);
      at_their_baseline =
          at_their_baseline && value && theirs && symbol_text(*value) == symbol_text(*theirs);
    }
    if (!at_their_baseline) continue;
    Config mapped;
    for (const auto& [name, value] : kernel.baseline) {
      const Value* found = find_value(*config, name);
      mapped.push_back({name, found ? *found : value});
    }
    m.config = config_to_json(mapped);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<PriorData> prior_from_store(const Store& store, int64_t workload,
                                        const PriorKey& kernel) {
  std::vector<PriorData> prior;
  for (const auto& other : store.workloads()) {
    if (other.id == workload || other.ok == 0) continue;
    if (other.key.kernel_name != kernel.kernel_name) continue;
    std::vector<Measurement> measured = store.measured(other.id);
    const std::vector<std::string> parameters = parameters_of(measured);
    std::string changes;
    std::optional<std::vector<Measurement>> measurements = measurements_in_terms_of(
        kernel, other.key.kernel_name, parameters, other.baseline ? other.baseline->config : "",
        std::move(measured), &changes);
    if (!measurements || measurements->empty()) continue;
    PriorData data;
    data.problem_values = problem_from_json(other.key.problem_json).value_or(ProblemValues{});
    data.label = other.key.device.name + " " + other.key.problem_json +
                 (changes.empty() ? "" : " (kernel version " + changes + ")");
    data.sm_count = other.key.device.sm_count;
    data.measurements = std::move(*measurements);
    prior.push_back(std::move(data));
  }
  return prior;
}

}  // namespace gputune
