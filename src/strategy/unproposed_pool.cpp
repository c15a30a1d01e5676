#include "strategy/unproposed_pool.h"

namespace gputune {

void UnproposedPool::reset(const SearchSpace& space, uint64_t seed) {
  space_ = &space;
  order_ = std::make_unique<RandomPermutation>(space.size(), seed);
  next_ = 0;
  proposed_.clear();
}

bool UnproposedPool::next_random(uint64_t* index) {
  while (next_ < space_->size()) {
    const uint64_t candidate = (*order_)(next_++);
    if (!proposed(candidate) && space_->valid(candidate)) {
      *index = candidate;
      return true;
    }
  }
  return false;
}

}  // namespace gputune
