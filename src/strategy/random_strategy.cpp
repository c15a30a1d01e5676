#include "strategy/strategies.h"

namespace gputune {

void RandomStrategy::start(const SearchSpace& space, const std::vector<Measurement>&) {
  space_ = &space;
  order_ = std::make_unique<RandomPermutation>(space.size(), seed_);
  next_ = 0;
}

std::vector<uint64_t> RandomStrategy::propose(size_t max_batch) {
  std::vector<uint64_t> batch;
  while (batch.size() < max_batch && next_ < space_->size()) {
    uint64_t index = (*order_)(next_++);
    if (space_->valid(index)) batch.push_back(index);
  }
  return batch;
}

}  // namespace gputune
