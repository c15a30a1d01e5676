#pragma once
#include <cstdint>
#include <memory>
#include <unordered_set>

#include "space/search_space.h"
#include "strategy/permutation.h"

namespace gputune {

// Valid configs not proposed yet, in a seeded random order; shared by the local searches.
class UnproposedPool {
 public:
  void reset(const SearchSpace& space, uint64_t seed);
  bool proposed(uint64_t index) const { return proposed_.count(index) > 0; }
  void mark(uint64_t index) { proposed_.insert(index); }
  // A random valid config not proposed yet; false when none is left.
  bool next_random(uint64_t* index);

 private:
  const SearchSpace* space_ = nullptr;
  std::unique_ptr<RandomPermutation> order_;
  uint64_t next_ = 0;
  std::unordered_set<uint64_t> proposed_;
};

}  // namespace gputune
