#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/features.h"
#include "strategy/strategy.h"

namespace gputune {

// The model strategy's features of a config at a workload: the FeatureMap's (parameters and
// problem values), then, with a launch function and an SM count, the launch-geometry features
// at that workload's problem values and GPU.
class WorkloadFeatures {
 public:
  explicit WorkloadFeatures(const StrategyContext& context);

  bool geometry() const { return launch_ && sm_count_ > 0; }
  size_t base_width() const { return map_.size(); }  // without the geometry features
  size_t width() const;
  const std::vector<std::string>& problem_names() const { return problem_names_; }
  const std::vector<double>& problem_values() const { return problem_values_; }  // this workload's
  // A prior workload's problem values in the order of problem_names(); this workload's where
  // it names none.
  std::vector<double> values_of(const PriorData& set) const;

  // A config of this workload.
  std::vector<double> row(uint64_t index) const;
  // A config of this space at other problem values (in problem_names()' order) on a GPU of
  // `sm_count` SMs (0: this workload's).
  std::vector<double> row_at(uint64_t index, const std::vector<double>& values, int sm_count) const;
  // `m` of a prior workload at `values` on a GPU of `sm_count` SMs (0: this workload's);
  // nullopt where its config does not fit this space.
  std::optional<std::vector<double>> prior_row(const Measurement& m,
                                               const std::vector<double>& values,
                                               int sm_count) const;

 private:
  std::vector<double> with_geometry(uint64_t index, std::vector<double> row,
                                    const std::vector<double>& values, int sms) const;

  const SearchSpace& space_;
  std::vector<std::string> problem_names_;
  std::vector<double> problem_values_;
  FeatureMap map_;
  LaunchOf launch_;
  int sm_count_ = 0;
  // What the prior data says each config uses (registers do not change with problem values),
  // so that geometry features know how many blocks an SM holds before anything compiles.
  std::unordered_map<uint64_t, ResourceUsage> known_resources_;
};

}  // namespace gputune
