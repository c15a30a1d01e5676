#pragma once
#include <cstdint>
#include <memory>

#include "search/search.h"
#include "space/problem.h"
#include "strategy/prior_pruning.h"
#include "strategy/strategy.h"

namespace gputune {

// The space a search measures once its prior data has pruned it (docs/pruning.md).
struct PrunedSpace {
  // The problem's space without the pruned configs; null when none were pruned.
  std::unique_ptr<SearchSpace> space;
  PruneResult result;
};

// Prunes `problem`'s space by the prior data of `context` (strategy_context's), never its
// baseline, where `options` ask for it (prune and use_prior); the pruned configs are then
// invalid in `space` as a constraint would make them, so that no strategy proposes them and
// the progress counts without them. Where nothing is pruned, `result.skipped` says why.
PrunedSpace prune_space(const Problem& problem, const StrategyContext& context,
                        const SearchOptions& options, uint64_t seed);

// `context` over another space (a pruned one), everything else the same.
StrategyContext with_space(StrategyContext context, const SearchSpace& space);

}  // namespace gputune
