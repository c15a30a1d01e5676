#pragma once
// The runner of one GPU (make_gpu_runner, run/runner.h): it loads each variant's module,
// checks its outputs against the reference and times it. Its parts: gpu_runner.cpp (setting
// up, the reference, checking and timing a variant), gpu_runner_module.cpp (loading modules,
// ahead of their turn too, and readying their launches) and gpu_runner_profile.cpp (counters
// of one variant, copy bandwidth).
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/error.h"
#include "run/cuda_driver.h"
#include "run/device_fill.h"
#include "run/host_buffers.h"
#include "run/output_check.h"
#include "run/range_profiler.h"
#include "run/runner.h"
#include "run/sampling.h"

namespace gputune {

// A module loaded ahead of its variant's turn (Runner::set_lookahead).
struct PrefetchedModule {
  Candidate candidate;
  bool loaded = false;
  CUresult result = CUDA_SUCCESS;
  cuda::Module module;
};

// Everything that lives in the CUDA context; dropped and rebuilt after a sticky error.
struct GpuDeviceState {
  cuda::Stream stream;
  cuda::Event start, stop;
  cuda::Event busy_start, busy_stop;           // around launches not timed as samples
  std::unique_ptr<DeviceFill> fill;            // null: every input was filled on the host
  std::vector<cuda::DeviceBuffer> buffers;     // parallel to GpuRunner::host_
  cuda::DeviceBuffer flush;                    // written between samples to evict L2
  std::vector<cuda::DeviceBuffer> references;  // outputs' reference, for checking on the GPU
  std::unique_ptr<DeviceOutputCheck> check;    // loaded once there is a reference
  std::deque<PrefetchedModule> prefetched;     // oldest first
};

// Measures on one GPU in this process; a sticky CUDA error rebuilds the context where the driver
// allows it, else the runner is lost (every call throws) and a new process must go on.
class GpuRunner : public Runner {
 public:
  GpuRunner(const Problem& problem, int ordinal, const TimingOptions& timing,
            OutputCheckers checkers, std::shared_ptr<const StoppingRule> stopping,
            InputFillers fillers, std::optional<ReferenceKernel> reference, bool keep_outputs);

  ~GpuRunner() override;

  const DeviceInfo& device() const override { return device_; }

  Measurement set_reference(const Candidate& baseline) override;

  std::vector<Measurement> run(const std::vector<Candidate>& batch) override;

  void set_lookahead(Lookahead next) override { lookahead_ = std::move(next); }

  double measure_copy_bandwidth() override;

  std::vector<std::vector<unsigned char>> take_checked_outputs() override {
    return std::exchange(checked_outputs_, {});
  }

  RangeCounters profile(const Candidate& candidate,
                        const std::vector<RangeMetric>& metrics) override;

 private:
  void setup_device();
  // Each buffer's bytes for misused_arguments (run/argument_use.h), before or after the baseline.
  std::vector<std::vector<unsigned char>> argument_contents(bool before) const;
  // The inputs the baseline changed (changed_inputs_) filled again as at the start, so that
  // every variant's checked run reads the same inputs.
  void restore_changed_inputs();

  // Runs the reference kernel on the inputs (with the baseline's scalar arguments) and keeps
  // its outputs as the reference of those outputs that have none given. Its failures are
  // errors that name it: without it nothing can be checked.
  void compute_reference_outputs(const Variant& baseline);

  // Downloading a large output and walking it on the host costs more than measuring the
  // variant (256 MB at n = 8192), so outputs are checked where they are; the host compares
  // only when the GPU finds a mismatch, for the message.
  void load_device_check();

  // True when every element of output i passes the check against the reference.
  bool matches_on_device(size_t i);

  // The way out of a sticky error: everything in the context goes, then comes back. The
  // 580 driver refuses this (the whole process stays poisoned, as its documentation says), so
  // failing is expected: the runner is then lost, and only a new process can go on.
  void recover(const Measurement& failed);

  void throw_if_lost() const {
    if (!lost_.empty()) throw Error(ErrorCode::kCuda, lost_);
  }

  Measurement measure(const Candidate& candidate, bool is_reference);

  // A variant's launches, ready to go: each with its function and argument slots.
  struct Prepared {
    struct Call {
      const Launch* launch = nullptr;
      CUfunction function = nullptr;
      std::vector<uint64_t> slots;  // each argument's bytes: a device pointer or a scalar
      std::vector<void*> params;    // pointers into slots, as cuLaunchKernel takes them
    };
    std::vector<Call> calls;
  };

  // Launches every call in order; the first failure stops and is returned.
  CUresult launch_all(Prepared& prepared) const;

  void launch_all_or_throw(Prepared& prepared) const {
    cuda::check(launch_all(prepared), "cuLaunchKernel");
  }

  // The bytes of spec argument `a` as a kernel parameter: its buffer's device pointer or its
  // scalar value converted to its type.
  uint64_t argument_slot(size_t a, const Variant& v) const;

  // Copies each constant argument into its symbol of a freshly loaded module (constant memory
  // belongs to the module, so every variant's needs it); returns why one cannot be, or "".
  std::string upload_constants(const cuda::Module& module, bool missing_ok = false) const;

  // Loads the candidate's module and readies its launches; false (with m's status and
  // message) for a variant that cannot run. A CUDA failure propagates as CudaError.
  bool load(const Candidate& candidate, cuda::Module* module, std::vector<CUfunction>* functions,
            Prepared* prepared, Measurement* m);

  // Fills m; a CUDA failure propagates as CudaError, which measure() turns into the Status.
  void evaluate(const Candidate& candidate, bool is_reference, Measurement* m);

  void keep_checked_outputs();

  // Initialised outputs get their initial contents; the others, and scratch, are poisoned
  // where `poison` asks for it (before a checked run), so that unwritten elements show.
  void prepare_outputs(bool poison);

  // Event-timed launches, one per sample, until the stopping rule says enough or the race is
  // lost. Adds the GPU time of every launch, warm-up included, to *busy_ms.
  TimedSamples time(Prepared& prepared, const RaceLimit& race, double* busy_ms);

  // Takes the module loaded ahead for `candidate`, with its load's result, if there is one.
  bool take_prefetched(const Candidate& candidate, cuda::Module* module, CUresult* result);

  // Loads the candidate the lookahead says comes next, unless it is loaded already.
  void load_prefetched();

  TimingOptions timing_;
  std::shared_ptr<const StoppingRule> stopping_;
  // When the GPU last finished this runner's work (steady seconds): a hot GPU warms up briefly.
  double last_gpu_work_s_ = -1e300;
  std::vector<ArgumentSpec> arguments_;
  bool check_outputs_;
  bool keep_outputs_;  // for a host check: see take_checked_outputs()
  std::vector<std::vector<unsigned char>> checked_outputs_;
  double rtol_, atol_;
  OutputCheckers checkers_;
  InputFillers fillers_;
  std::optional<ReferenceKernel> reference_;
  std::vector<size_t> changed_inputs_;  // host_ indexes of inputs the baseline wrote
  bool reference_computed_ = false;     // its outputs are in host_, kept across context resets
  std::string kernel_file_;             // named where a constant's symbol is missing
  DeviceInfo device_;
  std::unique_ptr<cuda::Context> context_;
  std::vector<HostBuffer> host_;
  std::unique_ptr<GpuDeviceState> state_;
  bool has_reference_ = false;
  std::string lost_;  // why the context is gone for good; empty while it works
  Lookahead lookahead_;
  std::unique_ptr<RangeProfiler> range_profiler_;  // made on the first profile
};

}  // namespace gputune
