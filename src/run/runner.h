#pragma once
#include <memory>
#include <vector>

#include "compile/compiler.h"
#include "compile/output_checker.h"
#include "gputune/device.h"
#include "gputune/measurement.h"
#include "run/sampling.h"
#include "space/problem.h"

namespace gputune {

struct Candidate {
  Variant variant;
  CompiledKernel kernel;
  RaceLimit race;  // inactive: sampled in full
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

// Throws Error(kNoGpu) when no driver or no device is present. `checkers`: one compiled for
// the device (compile_output_checkers) per element type of the problem's outputs; the runner
// compiles nothing. `stopping`: when to stop sampling; null: AdaptiveStopping(timing).
std::unique_ptr<Runner> make_gpu_runner(const Problem& problem, int device_ordinal,
                                        const TimingOptions& timing, OutputCheckers checkers,
                                        std::shared_ptr<const StoppingRule> stopping = nullptr);

}  // namespace gputune
