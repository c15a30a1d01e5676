#pragma once
#include <cstdint>
#include <limits>
#include <string>

namespace gputune {

// Where tuning time went in one search.
struct SearchRecord {
  std::string strategy;
  uint64_t seed = 0;
  int64_t evaluated = 0, reused = 0;
  double wall_s = 0, compile_s = 0, check_s = 0, time_s = 0;
  bool interrupted = false;
  int64_t cache_hits = 0;       // variants whose module came from the module cache
  int64_t jobs = 0, gpus = 0;   // compile workers and GPU workers
  int64_t worker_restarts = 0;  // GPU workers replaced (sticky errors, timeouts, crashes)
  // The measuring phase (after the baseline, until the last variant's result) and the GPU time
  // its variants' launches took; NaN where no GPU measured (a replay).
  double measuring_s = std::numeric_limits<double>::quiet_NaN();
  double gpu_busy_s = std::numeric_limits<double>::quiet_NaN();
  // The share of the GPUs' time in the measuring phase that ran none of the search's kernels:
  // 1 - gpu_busy_s / (gpus x measuring_s), in [0, 1]; NaN where unknown.
  double gpu_idle_share() const;
  // Wall time the GPUs spent neither checking nor timing: waiting for compilations, starting
  // workers, the driver's own work.
  double overhead_s() const {
    return wall_s - (check_s + time_s) / static_cast<double>(gpus > 0 ? gpus : 1);
  }
};

}  // namespace gputune
