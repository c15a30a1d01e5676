#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "compile/compiler.h"
#include "compile/input_filler.h"
#include "compile/output_checker.h"
#include "compile/reference_kernel.h"
#include "gputune/device.h"
#include "gputune/measurement.h"
#include "run/range_profiler.h"
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
  // against. Throws Error if the baseline itself fails where its outputs are the reference:
  // nothing could be checked (where the spec gives every output's expected contents, a failing
  // baseline is its Measurement). An ok baseline's message, where it has one, says which
  // arguments it used otherwise than declared (run/argument_use.h).
  virtual Measurement set_reference(const Candidate& baseline) = 0;
  // One Measurement per candidate, in order; a variant's failure is its Status. After a sticky
  // CUDA error (illegal address, ...) that the runner cannot recover from, the results stop at
  // that variant and every later call throws Error(kCuda): only a new process can go on.
  virtual std::vector<Measurement> run(const std::vector<Candidate>& batch) = 0;
  // Device-to-device copy bandwidth in GB/s, bytes read plus bytes written.
  virtual double measure_copy_bandwidth() = 0;
  // Where the runner may ask, while the GPU works on a candidate, for the one likely to come
  // next (null: none known yet), to load it meanwhile. Results never depend on it.
  using Lookahead = std::function<const Candidate*()>;
  virtual void set_lookahead(Lookahead next) { (void)next; }
  // The outputs the last measured candidate's checked run left, one per output buffer in
  // argument order, handed over once; empty unless the runner keeps them (a host check) and
  // the checked run completed.
  virtual std::vector<std::vector<unsigned char>> take_checked_outputs() { return {}; }
  // Hardware counters of one run of the candidate's launches (CUPTI's range profiler, in this
  // process, never while timing), with what ncu adds of a launch (run/launch_counters.h) to
  // the first launch's. Never throws for a profiler that is missing or refused.
  virtual RangeCounters profile(const Candidate& candidate,
                                const std::vector<RangeMetric>& metrics) {
    (void)candidate;
    (void)metrics;
    RangeCounters none;
    none.unavailable = true;
    none.message = "this runner takes no hardware counters";
    return none;
  }
};

// Throws Error(kNoGpu) when no driver or no device is present. `checkers`: one compiled for
// the device (compile_output_checkers) per element type of the problem's outputs; the runner
// compiles nothing. `stopping`: when to stop sampling; null: AdaptiveStopping(timing).
// `fillers` (compile_input_fillers): the inputs of their types are filled on the GPU; the
// others, and all without them, on the host.
// `reference`: the spec's reference kernel compiled for the device (compile_reference_kernel);
// set_reference() runs it first, and its outputs are what every variant is checked against,
// so a baseline that disagrees is a wrong answer like any variant, not an error.
// `keep_outputs`: a host check judges the outputs elsewhere (gputune/host_check.h), so the
// runner compares nothing (no checkers, no reference) and keeps each checked run's outputs for
// take_checked_outputs(); variants that complete are kOk.
std::unique_ptr<Runner> make_gpu_runner(const Problem& problem, int device_ordinal,
                                        const TimingOptions& timing, OutputCheckers checkers,
                                        std::shared_ptr<const StoppingRule> stopping = nullptr,
                                        InputFillers fillers = {},
                                        std::optional<ReferenceKernel> reference = std::nullopt,
                                        bool keep_outputs = false);

}  // namespace gputune
