#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "space/problem.h"
#include "store/store.h"
#include "strategy/strategy.h"

namespace gputune {

// What prior data is matched by (a release's KernelIdentity also pins the source and spec
// hashes): what makes two workloads measurements of the same kernel, whatever their problem values,
// GPU or kernel source version, and wherever or under whatever name their spec file lies: the
// kernel's name (as the spec gives it) and the names of the space's parameters. A kernel
// version that adds or drops a parameter starts afresh: its configs would not fit the prior's.
struct PriorKey {
  std::string kernel_name;
  std::vector<std::string> parameters;  // sorted
};

PriorKey prior_key(const Problem& problem);

// What the store holds for the same kernel under other workloads: the prior data a later
// search learns from. A stored workload's parameters are the keys of its measured configs.
std::vector<PriorData> prior_from_store(const Store& store, int64_t workload,
                                        const PriorKey& kernel);

}  // namespace gputune
