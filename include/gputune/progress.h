#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace gputune {

// What a search is doing, in the order a search goes through them. A GPU worker that starts
// again (after a variant broke its context) goes back to kFillingInputs for a while.
enum class SearchPhase {
  kStarting,       // opening the workload, compiling the output checkers
  kFillingInputs,  // a GPU worker allocates its buffers and fills the inputs
  kBaseline,       // compiling and running the baseline, the reference of every check
  kCompiling,      // compiling variants, none on the GPU yet
  kMeasuring,      // checking and timing variants (compilation goes on alongside)
};

// "allocating and filling inputs", ...: what progress lines print.
inline const char* phase_name(SearchPhase phase) {
  switch (phase) {
    case SearchPhase::kStarting:
      return "starting";
    case SearchPhase::kFillingInputs:
      return "allocating and filling inputs";
    case SearchPhase::kBaseline:
      return "baseline";
    case SearchPhase::kCompiling:
      return "compiling";
    case SearchPhase::kMeasuring:
      return "measuring";
  }
  return "?";
}

// Where a search stands: reported when its phase changes and after each evaluation.
struct SearchProgress {
  SearchPhase phase = SearchPhase::kStarting;
  uint64_t done = 0;      // evaluations so far, reused ones included
  uint64_t total = 0;     // what the search will evaluate at most; 0 before it is known
  uint64_t measured = 0;  // evaluations that ran on the GPU in this search
  uint64_t failed = 0;
  double elapsed_s = 0;
  double best_ms = 0;  // 0 until a variant is ok
  std::string best_config;
};
using ProgressCallback = std::function<void(const SearchProgress&)>;

}  // namespace gputune
