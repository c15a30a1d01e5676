#pragma once
#include <memory>
#include <vector>

#include "compile/compiler.h"
#include "gputune/device.h"
#include "gputune/measurement.h"
#include "space/problem.h"

namespace gputune {

struct Candidate {
  Variant variant;
  CompiledKernel kernel;
};

// Measures variants: the GPU, or a replay of stored results.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual const DeviceInfo& device() const = 0;
  // Runs the baseline and keeps its outputs as the reference every later variant is checked
  // against. Throws Error if the baseline itself fails: nothing could be checked.
  virtual Measurement set_reference(const Candidate& baseline) = 0;
  // One Measurement per candidate, in order; a variant's failure is its Status. After a sticky
  // CUDA error (illegal address, ...) that the runner cannot recover from, the results stop at
  // that variant and every later call throws Error(kCuda): only a new process can go on.
  virtual std::vector<Measurement> run(const std::vector<Candidate>& batch) = 0;
  // Device-to-device copy bandwidth in GB/s, bytes read plus bytes written.
  virtual double measure_copy_bandwidth() = 0;
};

struct TimingOptions {
  int warmup_ms = 20;  // run at least this long before sampling
  int min_samples = 10;
  int max_samples = 500;
  double max_seconds = 1.0;     // per variant
  double target_noise = 0.005;  // stop when the median's relative standard error is below this
  bool flush_l2 = true;
};

// Throws Error(kNoGpu) when no driver or no device is present.
std::unique_ptr<Runner> make_gpu_runner(const Problem& problem, int device_ordinal,
                                        const TimingOptions& timing);

// Devices visible to the driver; empty without a driver or a GPU (never throws for that).
std::vector<DeviceInfo> list_gpus();

}  // namespace gputune
