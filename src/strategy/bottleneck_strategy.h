#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strategy/model_strategy.h"

namespace gputune {

struct BottleneckStrategyOptions {
  // Profiling may take at most this share of the search's wall time: of its planned length
  // where the budget gives one (the context's plan), else of the time so far.
  double profile_share = 0.10;
  // Proposals of each batch, at most, that apply the remedy to the variant that steers: the
  // model's choice among the configs that change only the knobs addressing its bottleneck,
  // each the way the spec says it helps.
  size_t remedy_moves = 1;
  ModelStrategyOptions model;
};

struct BottleneckStrategyStats {
  size_t profiled = 0;     // variants with counters
  size_t failed = 0;       // profiles that gave none
  size_t over_budget = 0;  // batches whose best was not profiled for the budget
  double profile_s = 0;    // what profiling cost
  double elapsed_s = 0;    // the search's wall time when it last profiled
  double planned_s = 0;    // the planned wall time the budget was last a share of (0: none)
  std::string step;        // the bottleneck it steers by ("" before the first)
  std::vector<std::string> knobs;
  std::optional<uint64_t> steering;  // the profiled variant whose remedy it applies
  size_t remedy_moves = 0;           // proposals that applied it
  std::string message;               // the last profile's reason for having no counters
};

// The bottleneck method as a search: the model strategy proposes; the best variant of each
// batch is profiled (within a share of the wall time), and the remedy for the bottleneck of
// the fastest profiled variant is applied to it: part of each batch is the model's pick among
// the configs that change only the knobs addressing that bottleneck, each the advised way.
// Without a profiler (or once it is refused), or with no such config left, it is the model
// strategy.
class BottleneckStrategy : public Strategy {
 public:
  explicit BottleneckStrategy(uint64_t seed, BottleneckStrategyOptions options = {});
  ~BottleneckStrategy() override;

  void start(const StrategyContext& context) override;
  std::vector<uint64_t> propose(size_t max_batch) override;
  void observe(const std::vector<Measurement>& results) override;
  bool wants_idle_gpu() const override;
  void use_idle_gpu() override;

  const BottleneckStrategyStats& stats() const;
  const ModelStrategy& model() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gputune
