#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gputune/measurement.h"
#include "model/cost_model.h"
#include "model/launch_shape.h"
#include "space/search_space.h"
#include "strategy/variant_profiler.h"

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

// Everything a search knows before its first proposal, built by the search driver for every
// strategy alike; a strategy takes what it can use and ignores the rest. The space (and so the
// context) must outlive the strategy's search.
struct StrategyContext {
  explicit StrategyContext(const SearchSpace& search_space) : space(search_space) {}

  const SearchSpace& space;
  // This workload's problem values, which place it among the prior data's. The driver leaves
  // them empty, like `prior`, for a search told not to learn from other workloads: the model
  // then sees the parameters alone.
  std::vector<std::pair<std::string, double>> problem_values;
  std::vector<PriorData> prior;  // other workloads of the same kernel
  // How configs launch, and this workload's GPU's SM count; both set: launch-geometry features.
  LaunchOf launch;
  int sm_count = 0;
  CostModelFactory cost_model;  // unset: a learning strategy's own default
  // Hardware counters of measured variants, for a strategy that follows the bottleneck; null
  // when the search has none. Owned by the search's caller, it outlives the search.
  VariantProfiler* profiler = nullptr;
  // How far the search is to go where its budget says (an evaluation or time limit): at most
  // this many evaluations (the valid configs within the limit; 0: no limit was given) and
  // seconds (0: no time limit). A strategy that spends a share of the search's wall time can
  // spend it early on such a plan.
  uint64_t planned_evaluations = 0;
  double planned_seconds = 0;
  // Configs every strategy proposes first, after the baseline (the method's rules' pick,
  // space/rule_pick.h, wherever the spec has engine knobs); empty: none.
  std::vector<uint64_t> first_configs;
};

// Ask/tell search driver. An empty proposal ends the search.
class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual void start(const StrategyContext& context) = 0;
  virtual std::vector<uint64_t> propose(size_t max_batch) = 0;
  virtual void observe(const std::vector<Measurement>& results) = 0;
  // A strategy with GPU work of its own between evaluations (profiling a variant) says so
  // here: the search then sends nothing more to the GPU, and once nothing runs there calls
  // use_idle_gpu(), so that the work never runs beside a timing.
  virtual bool wants_idle_gpu() const { return false; }
  virtual void use_idle_gpu() {}
};

// The registered strategies' names, in their registration rank (strategy/registry.h).
std::vector<std::string> strategy_names();
// Throws Error(kUsage) for an unknown name, listing the known ones.
std::unique_ptr<Strategy> make_strategy(const std::string& name, uint64_t seed);

}  // namespace gputune
