#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "strategy/strategy.h"

namespace gputune {

// Pruning by the prior (docs/pruning.md): a cost model fit on what the database holds for the
// same kernel under other workloads ranks this workload's whole space, and configs predicted,
// with confidence, to be far slower than the best are left out of the search.
struct PruneOptions {
  // A config is pruned when even its optimistic prediction (the mean less `z` standard
  // deviations of the model) is more than `above` times the predicted best's time, or more
  // where the prior's own held-out check needs more (see PruneResult::held_out_factor).
  double above = 1.5;
  double z = 2.0;
  // Held-out workloads are judged on keeping a config within this factor of their best.
  double near = 1.01;
  // The held-out check's factor assumed where the prior cannot be checked: its workloads all
  // share one place (problem values and GPU), so none can be held out against another.
  double unchecked = 1.5;
  // The held-out check's factor is raised by this much again before it applies: a few
  // held-out workloads are a small sample of the transfer error.
  double margin = 1.1;
  // Spaces with more valid configs than this are not pruned (the model would rank them all).
  uint64_t max_configs = 200000;
  size_t points = 300;         // prior measurements the model is fit on, at most
  double failure_penalty = 1;  // a failure's target, as the model strategy's
};

struct PruneResult {
  std::vector<uint64_t> pruned;  // config indices, ascending
  uint64_t considered = 0;       // valid configs the model ranked
  // The factor applied: PruneOptions::above, or the held-out check's need times the margin
  // where that is larger.
  double factor = 0;
  // What the held-out check needed (the largest over held-out workloads; 1 where the
  // model's bound ranked each held-out best first), 0 where there was no check: fewer than two
  // prior workloads that differ.
  double held_out_factor = 0;
  size_t held_out = 0;                    // prior workloads held out in that check
  size_t prior_workloads = 0;             // prior workloads the model used
  size_t prior_measurements = 0;          // their measurements that fit this space
  size_t fit_points = 0;                  // of those, the model was fit on
  std::vector<std::string> prior_labels;  // where the prior data came from
  double seconds = 0;                     // what deciding took
  std::string skipped;                    // why the rule did not run; "" when it did
};

// Ranks every valid config of the context's space with a model fit on its prior data, and
// prunes as PruneOptions says; `keep` (the baseline) is never pruned. Without prior data, or
// for a space too large, prunes nothing and says why in `skipped`.
PruneResult prune_by_prior(const StrategyContext& context, uint64_t keep,
                           const PruneOptions& options, uint64_t seed);

// "predicted by the cost model to be more than 1.5x slower than the best": the reason a
// report gives for the configs pruned.
std::string prune_reason(const PruneResult& result);

}  // namespace gputune
