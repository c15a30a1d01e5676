#include "search/pruned_space.h"

#include <algorithm>
#include <utility>

namespace gputune {

PrunedSpace prune_space(const Problem& problem, const StrategyContext& context,
                        const SearchOptions& options, uint64_t seed) {
  PrunedSpace out;
  if (!options.use_prior || !options.prune) {
    out.result.skipped = !options.use_prior      ? "--no-prior"
                         : context.prior.empty() ? "no prior data"
                                                 : "--no-prune";
    return out;
  }
  out.result = prune_by_prior(context, problem.baseline_index(), options.pruning, seed);
  if (out.result.pruned.empty()) return out;
  const SearchSpace& space = problem.space();
  auto pruned = std::make_shared<const std::vector<uint64_t>>(out.result.pruned);
  SpaceLimit limit;
  limit.violation = prune_reason(out.result);
  limit.holds = [&space, pruned](const std::vector<size_t>& digits) {
    return !std::binary_search(pruned->begin(), pruned->end(), space.encode(digits));
  };
  out.space = std::make_unique<SearchSpace>(space.with_limit(std::move(limit)));
  return out;
}

StrategyContext with_space(StrategyContext context, const SearchSpace& space) {
  StrategyContext out(space);
  out.problem_values = std::move(context.problem_values);
  out.prior = std::move(context.prior);
  out.launch = std::move(context.launch);
  out.sm_count = context.sm_count;
  out.cost_model = std::move(context.cost_model);
  out.profiler = context.profiler;
  out.planned_evaluations = context.planned_evaluations;
  out.planned_seconds = context.planned_seconds;
  out.first_configs = std::move(context.first_configs);
  return out;
}

}  // namespace gputune
