#pragma once
#include "gputune/progress.h"

namespace gputune::cli {

// Progress on stderr: one line redrawn in place on a terminal, a line every few seconds
// otherwise (logs, CI).
class ProgressPrinter {
 public:
  explicit ProgressPrinter(bool enabled);
  ~ProgressPrinter();  // ends the redrawn line
  void operator()(const SearchProgress& progress);

 private:
  bool enabled_, terminal_;
  double last_print_s_ = -1e9;
  bool drew_ = false;
};

}  // namespace gputune::cli
