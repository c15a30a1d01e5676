#pragma once
#include <cstdint>
#include <vector>

#include "store/store.h"
#include "strategy/strategy.h"

namespace gputune {

// What the store holds for the same kernel under other workloads (problem values, GPUs, kernel
// versions): the prior data a later search learns from.
std::vector<PriorData> prior_from_store(const Store& store, int64_t workload,
                                        const WorkloadKey& key);

}  // namespace gputune
