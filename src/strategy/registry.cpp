#include "strategy/strategy.h"

#include "gputune/error.h"
#include "strategy/local_strategies.h"
#include "strategy/strategies.h"

namespace gputune {

std::vector<std::string> strategy_names() {
  return {"brute_force", "random", "annealing", "genetic", "model"};
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, uint64_t seed) {
  if (name == "brute_force") return std::make_unique<BruteForceStrategy>();
  if (name == "random") return std::make_unique<RandomStrategy>(seed);
  if (name == "annealing") return std::make_unique<AnnealingStrategy>(seed);
  if (name == "genetic") return std::make_unique<GeneticStrategy>(seed);
  if (name == "model") return make_model_strategy(seed);
  std::string known;
  for (const auto& n : strategy_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error(ErrorCode::kUsage, "unknown strategy '" + name + "' (known: " + known + ")");
}

}  // namespace gputune
