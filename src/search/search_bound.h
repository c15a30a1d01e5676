#pragma once
#include <string>

#include "store/store.h"

namespace gputune {

// What bounded a search's throughput, from its record's busy and idle times over the measuring
// phase: the GPU (its variants' own kernels), the host around them (checks, L2 flushes, inputs
// and module loads in the GPU workers, or the search process dispatching), or compilation (the
// compile workers, on the host's CPUs). README, "The evaluation engine".
struct SearchBound {
  // "gpu", "compile", "host" (the GPU workers' own overhead), "search" (the search process kept
  // the workers waiting), or "" where the record cannot tell (a replay: no GPU measured).
  std::string kind;
  // Shares of the measuring phase: of the GPUs' time running the variants' kernels; of the GPU
  // workers' time taken by a variant (checked run and timing, kernels included); of the compile
  // workers' time compiling.
  double gpu_busy = 0, workers_occupied = 0, compile_busy = 0;
  // What twice as many of the bounding resource's peers would buy, at most: a second set of
  // GPUs where the GPUs bound, twice the CPUs (compilers) where compilation does (1 where it
  // would buy nothing).
  double twice_the_gpus = 1, twice_the_cpus = 1;
  std::string text;  // "compile-bound: 16 compiler processes 97% busy kept 1 GPU 41% busy; ..."
};

SearchBound search_bound(const SearchRecord& record);

}  // namespace gputune
