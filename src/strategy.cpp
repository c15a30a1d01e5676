#include "gputune/strategy.h"

#include "gputune/error.h"
#include "strategies.h"

namespace gputune {

std::vector<std::string> strategy_names() { return {"brute_force", "random"}; }

std::unique_ptr<Strategy> make_strategy(const std::string& name, uint64_t seed) {
  if (name == "brute_force") return std::make_unique<BruteForceStrategy>();
  if (name == "random") return std::make_unique<RandomStrategy>(seed);
  std::string known;
  for (const auto& n : strategy_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error(ErrorCode::kUsage, "unknown strategy '" + name + "' (known: " + known + ")");
}

}  // namespace gputune
