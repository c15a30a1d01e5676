#include "strategy/workload_features.h"

#include <utility>

namespace gputune {

namespace {

std::vector<std::string> names_of(const std::vector<std::pair<std::string, double>>& values) {
  std::vector<std::string> names;
  for (const auto& [name, value] : values) names.push_back(name);
  return names;
}

std::vector<double> values_of(const std::vector<std::pair<std::string, double>>& values) {
  std::vector<double> out;
  for (const auto& [name, value] : values) out.push_back(value);
  return out;
}

}  // namespace

WorkloadFeatures::WorkloadFeatures(const StrategyContext& context)
    : space_(context.space),
      problem_names_(names_of(context.problem_values)),
      problem_values_(gputune::values_of(context.problem_values)),
      map_(context.space, problem_names_),
      launch_(context.launch),
      sm_count_(context.sm_count) {
  if (!geometry()) return;
  for (const PriorData& set : context.prior) {
    for (const Measurement& pm : set.measurements) {
      if (pm.registers <= 0) continue;
      std::optional<uint64_t> index = index_from_json(space_, pm.config);
      if (!index) continue;
      known_resources_.emplace(*index,
                               ResourceUsage{pm.registers, pm.shared_bytes, pm.spill_bytes, 0});
    }
  }
}

size_t WorkloadFeatures::width() const {
  return map_.size() + (geometry() ? geometry_feature_names().size() : 0);
}

std::vector<double> WorkloadFeatures::values_of(const PriorData& set) const {
  std::vector<double> values = problem_values_;
  for (size_t p = 0; p < problem_names_.size(); ++p) {
    for (const auto& [name, value] : set.problem_values) {
      if (name == problem_names_[p]) values[p] = value;
    }
  }
  return values;
}

std::vector<double> WorkloadFeatures::row(uint64_t index) const {
  return with_geometry(index, map_.row(index, problem_values_), problem_values_, sm_count_);
}

std::vector<double> WorkloadFeatures::row_at(uint64_t index, const std::vector<double>& values,
                                             int sm_count) const {
  return with_geometry(index, map_.row(index, values), values, sm_count);
}

std::optional<std::vector<double>> WorkloadFeatures::prior_row(const Measurement& m,
                                                               const std::vector<double>& values,
                                                               int sm_count) const {
  auto row = map_.row_from_json(m.config, values);
  if (!row || !geometry()) return row;
  std::optional<uint64_t> index = index_from_json(space_, m.config);
  if (!index) return std::nullopt;
  return with_geometry(*index, std::move(*row), values, sm_count);
}

std::vector<double> WorkloadFeatures::with_geometry(uint64_t index, std::vector<double> row,
                                                    const std::vector<double>& values,
                                                    int sms) const {
  if (!geometry()) return row;
  std::vector<std::pair<std::string, double>> named;
  for (size_t p = 0; p < problem_names_.size(); ++p) {
    named.push_back({problem_names_[p], values[p]});
  }
  std::optional<LaunchShape> shape = launch_(index, named);
  auto known = known_resources_.find(index);
  std::vector<double> extra = geometry_features(
      shape ? *shape : LaunchShape{1, 256, 0},
      known == known_resources_.end() ? nullptr : &known->second, sms > 0 ? sms : sm_count_);
  row.insert(row.end(), extra.begin(), extra.end());
  return row;
}

}  // namespace gputune
