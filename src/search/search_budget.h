#pragma once
#include <cstdint>

#include "search/progress_tracker.h"
#include "space/search_space.h"

namespace gputune {

// How far a search may go: evaluations proposed (reused ones included) and seconds since it
// started; a limit of 0 is no limit.
class SearchBudget {
 public:
  SearchBudget(int64_t evaluations, double seconds, SearchClock::time_point start)
      : evaluations_(evaluations), seconds_(seconds), start_(start) {}

  // What the search will evaluate at most: the valid configs (the product size for a space
  // too large to walk), within the evaluation limit.
  uint64_t total(const SearchSpace& space) const;
  // Of `want` more proposals, how many the budget allows after `proposed`; 0 once spent.
  size_t allow(size_t want, int64_t proposed) const;
  // Whether it limits evaluations or time at all (a search to the end of its space does not).
  bool limited() const { return evaluations_ > 0 || seconds_ > 0; }
  double seconds() const { return seconds_; }  // 0: no time limit

 private:
  int64_t evaluations_;
  double seconds_;
  SearchClock::time_point start_;
};

// The valid configs, or the product size for a space too large to walk.
uint64_t valid_total(const SearchSpace& space);

}  // namespace gputune
