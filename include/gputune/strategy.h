#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gputune/measurement.h"
#include "gputune/search_space.h"

namespace gputune {

// Measurements of another workload of the same kernel: another problem size, another GPU or
// an earlier kernel version. Configs are matched by their JSON, not their index, because the
// index changes with the space.
struct PriorData {
  std::vector<std::pair<std::string, double>> problem_values;  // as Problem::problem_values()
  std::string label;  // where it came from, for reports
  std::vector<Measurement> measurements;
};

// Ask/tell search driver. An empty proposal ends the search.
class Strategy {
 public:
  virtual ~Strategy() = default;
  // Before start(): this workload's problem values and what other workloads measured.
  // Strategies that cannot learn from them ignore them.
  virtual void use_prior(const std::vector<std::pair<std::string, double>>& /*problem_values*/,
                         std::vector<PriorData> /*prior*/) {}
  virtual void start(const SearchSpace& space, const std::vector<Measurement>& prior) = 0;
  virtual std::vector<uint64_t> propose(size_t max_batch) = 0;
  virtual void observe(const std::vector<Measurement>& results) = 0;
};

std::vector<std::string> strategy_names();
// Throws Error(kUsage) for an unknown name, listing the known ones.
std::unique_ptr<Strategy> make_strategy(const std::string& name, uint64_t seed);

}  // namespace gputune
