#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/measurement.h"
#include "space/search_space.h"

namespace gputune {

// Measurements of another workload of the same kernel: another problem size, another GPU or
// an earlier kernel version. Configs are matched by their JSON, not their index, because the
// index changes with the space.
struct PriorData {
  std::vector<std::pair<std::string, double>> problem_values;  // as Problem::problem_values()
  std::string label;                                           // where it came from, for reports
  int sm_count = 0;  // of its GPU; 0: unknown (taken as this workload's)
  std::vector<Measurement> measurements;
};

// How a config launches at some problem values: what the launch-geometry features (waves,
// tail wave, SM fill) are computed from.
struct LaunchShape {
  double blocks = 0;             // every block of the variant's launches
  double threads_per_block = 0;  // of its largest block
  double dynamic_shared_bytes = 0;
};
// A config's launch shape at the given problem values (by name); nullopt where the spec's
// launch expressions give no valid launch there.
using LaunchOf = std::function<std::optional<LaunchShape>(
    uint64_t index, const std::vector<std::pair<std::string, double>>& problem_values)>;

// Ask/tell search driver. An empty proposal ends the search.
class Strategy {
 public:
  virtual ~Strategy() = default;
  // Before start(): this workload's problem values and what other workloads measured.
  // Strategies that cannot learn from them ignore them.
  virtual void use_prior(const std::vector<std::pair<std::string, double>>& /*problem_values*/,
                         std::vector<PriorData> /*prior*/) {}
  // Before start(): how configs launch, and this workload's GPU's SM count.
  virtual void use_launches(LaunchOf /*launch*/, int /*sm_count*/) {}
  virtual void start(const SearchSpace& space, const std::vector<Measurement>& prior) = 0;
  virtual std::vector<uint64_t> propose(size_t max_batch) = 0;
  virtual void observe(const std::vector<Measurement>& results) = 0;
};

std::vector<std::string> strategy_names();
// Throws Error(kUsage) for an unknown name, listing the known ones.
std::unique_ptr<Strategy> make_strategy(const std::string& name, uint64_t seed);

}  // namespace gputune
