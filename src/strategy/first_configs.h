#pragma once
#include <memory>

#include "strategy/strategy.h"

namespace gputune {

// A strategy that proposes the context's `first_configs` (the rules' pick) before anything the
// wrapped strategy proposes, and never again after: the wrapped strategy observes their results
// like its own. Without first configs it is the wrapped strategy.
std::unique_ptr<Strategy> proposing_first_configs(std::unique_ptr<Strategy> strategy);

}  // namespace gputune
