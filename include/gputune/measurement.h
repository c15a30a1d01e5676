#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gputune/status.h"

namespace gputune {

struct Measurement {
  uint64_t config_index = 0;
  std::string config;  // the parameter values as a JSON object, for people and tools
  Status status = Status::kOk;
  std::vector<double> samples_ms;  // every timed sample, not only the summary
  double compile_ms = 0;
  double check_ms = 0;  // the checked run: load, launch, compare with the reference
  double time_ms = 0;   // warm-up and timed samples
  int registers = 0, shared_bytes = 0, spill_bytes = 0;
  std::string message;  // NVRTC log, checker diff, CUDA error name, ...

  double median_ms() const;  // NaN without samples
  double spread() const;     // (p90 - p10) / median; 0 with fewer than 2 samples
};

}  // namespace gputune
