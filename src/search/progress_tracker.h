#pragma once
#include <chrono>
#include <cstdint>

#include "gputune/measurement.h"
#include "search/search.h"

namespace gputune {

using SearchClock = std::chrono::steady_clock;

double seconds_since(SearchClock::time_point start);

// Counts evaluations, failures and the best so far, and reports them and the search's phase to
// a ProgressCallback.
class ProgressTracker {
 public:
  ProgressTracker(uint64_t total, const ProgressCallback& callback);
  void add(const Measurement& m, bool measured);
  void set_total(uint64_t total) { progress_.total = total; }  // once pruning has narrowed it
  void set_phase(SearchPhase phase);  // reports at once when the phase changes
  SearchPhase phase() const { return progress_.phase; }
  void report();
  uint64_t done() const { return progress_.done; }

 private:
  const ProgressCallback& callback_;
  SearchClock::time_point start_;
  SearchProgress progress_;
};

}  // namespace gputune
