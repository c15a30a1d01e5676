#include "strategy/registry.h"

#include <algorithm>
#include <vector>

#include "gputune/error.h"

namespace gputune {

namespace {

// A function-local static: registrars in other files run before main in an unspecified order.
std::vector<StrategyRegistration>& registry() {
  static std::vector<StrategyRegistration> registrations;
  return registrations;
}

}  // namespace

void register_strategy(StrategyRegistration registration) {
  auto& all = registry();
  if (registration.name.empty() || !registration.make) {
    throw Error(ErrorCode::kInternal, "a strategy registers without a name or a factory");
  }
  for (const auto& known : all) {
    if (known.name == registration.name) {
      throw Error(ErrorCode::kInternal, "strategy '" + registration.name + "' is registered twice");
    }
  }
  auto at = std::upper_bound(all.begin(), all.end(), registration,
                             [](const StrategyRegistration& a, const StrategyRegistration& b) {
                               return a.rank < b.rank || (a.rank == b.rank && a.name < b.name);
                             });
  all.insert(at, std::move(registration));
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& registration : registry()) names.push_back(registration.name);
  return names;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, uint64_t seed) {
  for (const auto& registration : registry()) {
    if (registration.name == name) return registration.make(seed);
  }
  std::string known;
  for (const auto& n : strategy_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error(ErrorCode::kUsage, "unknown strategy '" + name + "' (known: " + known + ")");
}

}  // namespace gputune
