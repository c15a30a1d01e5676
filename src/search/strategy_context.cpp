#include "search/strategy_context.h"

#include "model/cost_model.h"
#include "model/features.h"
#include "search/prior.h"

namespace gputune {

StrategyContext strategy_context(const Problem& problem, const Store& store, int64_t workload,
                                 int sm_count, bool use_prior, const SearchBudget& budget) {
  StrategyContext context(problem.space());
  if (use_prior) {
    context.problem_values = problem.problem_values();
    context.prior = prior_from_store(store, workload, prior_key(problem));
  }
  context.launch = launch_of(problem.spec());
  context.sm_count = sm_count;
  context.cost_model = gaussian_process_factory();
  if (budget.limited()) {
    context.planned_evaluations = budget.total(problem.space());
    context.planned_seconds = budget.seconds();
  }
  return context;
}

}  // namespace gputune
