#pragma once
#include <cstdint>
#include <vector>

#include "space/search_space.h"

namespace gputune {

// The configs a model ranks, in index order: every valid config up to `limit`, else a seeded
// sample of `limit` of them (drawn without walking a product too large to walk).
std::vector<uint64_t> candidate_configs(const SearchSpace& space, size_t limit, uint64_t seed);

}  // namespace gputune
