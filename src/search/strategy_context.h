#pragma once
#include <cstdint>

#include "search/search_budget.h"
#include "space/problem.h"
#include "store/store.h"
#include "strategy/strategy.h"

namespace gputune {

// What every strategy starts from in a search of `problem` on a GPU of `sm_count` SMs: the
// space, the launch geometry, the cost model and the plan `budget` makes (where it limits
// anything) always; with `use_prior`, this workload's problem values and what the store holds
// for the same kernel under other workloads.
StrategyContext strategy_context(const Problem& problem, const Store& store, int64_t workload,
                                 int sm_count, bool use_prior, const SearchBudget& budget);

}  // namespace gputune
