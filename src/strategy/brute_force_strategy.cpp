#include "strategy/strategies.h"

namespace gputune {

void BruteForceStrategy::start(const SearchSpace& space, const std::vector<Measurement>&) {
  space_ = &space;
  next_ = 0;
}

std::vector<uint64_t> BruteForceStrategy::propose(size_t max_batch) {
  std::vector<uint64_t> batch;
  while (batch.size() < max_batch && next_ < space_->size()) {
    uint64_t index = next_++;
    if (space_->valid(index)) batch.push_back(index);
  }
  return batch;
}

}  // namespace gputune
