#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace gputune {

// Where a search stands, after each evaluation.
struct SearchProgress {
  uint64_t done = 0;      // evaluations so far, reused ones included
  uint64_t total = 0;     // what the search will evaluate at most
  uint64_t measured = 0;  // evaluations that ran on the GPU in this search
  uint64_t failed = 0;
  double elapsed_s = 0;
  double best_ms = 0;  // 0 until a variant is ok
  std::string best_config;
};
using ProgressCallback = std::function<void(const SearchProgress&)>;

}  // namespace gputune
