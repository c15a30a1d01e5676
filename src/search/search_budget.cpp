#include "search/search_budget.h"

#include <algorithm>

namespace gputune {

uint64_t valid_total(const SearchSpace& space) { return space.count_valid_bounded().configs; }

uint64_t SearchBudget::total(const SearchSpace& space) const {
  uint64_t total = valid_total(space);
  if (evaluations_ > 0) total = std::min<uint64_t>(total, static_cast<uint64_t>(evaluations_));
  return total;
}

size_t SearchBudget::allow(size_t want, int64_t proposed) const {
  if (seconds_ > 0 && seconds_since(start_) >= seconds_) return 0;
  if (evaluations_ > 0) {
    const int64_t left = evaluations_ - proposed;
    if (left <= 0) return 0;
    want = std::min<size_t>(want, static_cast<size_t>(left));
  }
  return want;
}

}  // namespace gputune
