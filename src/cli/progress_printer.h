#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "gputune/progress.h"

namespace gputune::cli {

// Progress on stderr, naming the phase: one line redrawn in place on a terminal; otherwise
// (logs, CI) a line at each phase change and every few seconds in between, never one per event.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(bool enabled);
  ProgressPrinter(bool enabled, std::FILE* out, bool terminal);
  ~ProgressPrinter();  // ends the redrawn line
  void operator()(const SearchProgress& progress);

 private:
  double since_start_s() const;

  bool enabled_, terminal_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
  double last_print_s_ = -1e9;
  bool drew_ = false;
  bool printed_any_ = false;
  SearchPhase last_phase_ = SearchPhase::kStarting;
  uint64_t last_done_ = 0;
};

}  // namespace gputune::cli
