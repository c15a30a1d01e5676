#pragma once
#include <memory>

#include "core/shard.h"
#include "strategy/strategy.h"

namespace gputune {

// A strategy that proposes only the configs of one shard of the space, in the order the wrapped
// strategy proposes them. With brute force the shards of a space, run apart, measure each valid
// config exactly once between them.
std::unique_ptr<Strategy> restrict_to_shard(std::unique_ptr<Strategy> strategy, Shard shard);

}  // namespace gputune
