#include "search/progress_tracker.h"

namespace gputune {

double seconds_since(SearchClock::time_point start) {
  return std::chrono::duration<double>(SearchClock::now() - start).count();
}

ProgressTracker::ProgressTracker(uint64_t total, const ProgressCallback& callback)
    : callback_(callback), start_(SearchClock::now()) {
  progress_.total = total;
}

void ProgressTracker::add(const Measurement& m, bool measured) {
  ++progress_.done;
  if (measured) ++progress_.measured;
  if (m.status != Status::kOk) {
    ++progress_.failed;
  } else if (progress_.best_ms == 0 || m.median_ms() < progress_.best_ms) {
    progress_.best_ms = m.median_ms();
    progress_.best_config = m.config;
  }
}

void ProgressTracker::set_phase(SearchPhase phase) {
  if (phase == progress_.phase) return;
  progress_.phase = phase;
  report();
}

void ProgressTracker::report() {
  progress_.elapsed_s = seconds_since(start_);
  if (callback_) callback_(progress_);
}

}  // namespace gputune
