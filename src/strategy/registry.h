#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "strategy/strategy.h"

namespace gputune {

using StrategyFactory = std::function<std::unique_ptr<Strategy>(uint64_t seed)>;

struct StrategyRegistration {
  std::string name;  // what --strategy and the spec's search.strategy name
  int rank = 0;      // where strategy_names() lists it: lower first
  StrategyFactory make;
};

// Adds a strategy to the registry. Throws Error(kInternal) for an empty or taken name.
void register_strategy(StrategyRegistration registration);

// Registers a strategy from its own .cpp, at static initialisation, so that adding a strategy
// touches only that file and its test:
//   const StrategyRegistrar kRegistrar{{"name", 60, [](uint64_t seed) { ... }}};
// (gputune_core is linked whole, so that a file nothing else refers to is still linked.)
class StrategyRegistrar {
 public:
  explicit StrategyRegistrar(StrategyRegistration registration) {
    register_strategy(std::move(registration));
  }
};

}  // namespace gputune
