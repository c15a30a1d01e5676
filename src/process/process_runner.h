#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "gputune/host_check.h"
#include "gputune/progress.h"
#include "process/gpu_worker.h"
#include "run/async_runner.h"
#include "run/runner.h"

namespace gputune {

// When a variant counts as hung. It may run for
//   timing_s + 4 x (the reference's checked run) + max(floor_s, factor x best x 8)
// where best is the fastest kernel time measured so far and 8 bounds the launches a variant
// gets beyond the timing budget (checked run, warm-up, the fewest samples).
struct WatchdogOptions {
  double floor_s = 2;
  double factor = 50;
  double timing_s = 3.1;  // sampling_limit_seconds(TimingOptions) plus warm-up
  double start_s = 120;   // a worker's start: CUDA, buffers, the reference run
};

// Judges a variant the worker measured kOk by the outputs its checked run left (one per output
// buffer, in argument order), in the driver's process: a host check (host_check_judge.h).
using OutputJudge =
    std::function<void(Measurement* m, std::vector<std::vector<unsigned char>> outputs)>;

// Each GPU is driven by a worker process (fork()ed, dies with this one), so that nothing a
// variant does can stop the search: a sticky CUDA error is the variant's kRuntimeError and a
// new worker takes over (allocating again and running the reference again); a variant that
// outruns the watchdog is killed with its worker and stored as kTimeout; a worker that dies
// on its own gets the variant once more, then it is a kRuntimeError. The constructor waits
// until every worker is up; GPUs must be identical (DeviceInfo::key()), since their results
// go to one workload. Throws the worker's Error (kNoGpu, ...) when one cannot start.
// A worker says kFillingInputs as it starts (making its runner allocates and fills the
// inputs); `on_phase` hears it, then whatever set_phase_listener() gives.
// With a `judge`, a worker sends the outputs its runner keeps (Runner::take_checked_outputs)
// after each measurement, and every kOk result, the reference's included, is judged before it
// is handed back. Without one, no outputs cross the socket.
class ProcessRunner : public AsyncRunner {
 public:
  ProcessRunner(std::vector<int> ordinals, RunnerFactory factory, WatchdogOptions watchdog,
                PhaseListener on_phase = {}, OutputJudge judge = {});
  ~ProcessRunner() override;
  ProcessRunner(const ProcessRunner&) = delete;
  ProcessRunner& operator=(const ProcessRunner&) = delete;

  const DeviceInfo& device() const override;
  std::vector<DeviceInfo> devices() const override;
  bool times_gpus() const override { return true; }
  Measurement set_reference(const Candidate& baseline) override;
  std::vector<Measurement> run(const std::vector<Candidate>& batch) override;
  double measure_copy_bandwidth() override;

  size_t idle() const override;
  size_t accepting() const override;
  size_t busy() const override;
  uint64_t submit(Candidate candidate) override;
  std::vector<std::pair<uint64_t, Measurement>> poll(int timeout_ms) override;

  // Hardware counters of one run of the candidate's launches (Runner::profile) on an idle
  // worker; the GPU does nothing else meanwhile. A profile that crashes its worker or outlives
  // `timeout_s` costs the profile (the result says why) and the worker, which is replaced.
  RangeCounters profile(const Candidate& candidate, const std::vector<RangeMetric>& metrics,
                        double timeout_s);

  PhaseListener set_phase_listener(PhaseListener listener) override;
  double limit_s() const;  // what the watchdog allows the next variant
  WorkerStats stats() const override;
  std::vector<int> worker_pids() const;  // for tests

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Workers holding make_gpu_runner. The output checkers and input fillers are compiled first by
// `compiler` (the search's pool) for the GPUs' architecture and handed to every worker; one
// that does not compile is an Error. Each worker is sent its next candidate while it measures
// one, and loads that one's module during the checked run. With a `host_check`, it judges the
// outputs instead of the spec's check (no checkers or reference kernel are compiled) and the
// workers send every checked run's outputs to this process.
std::unique_ptr<ProcessRunner> make_process_runner(const Problem& problem,
                                                   std::vector<int> ordinals,
                                                   const TimingOptions& timing, Compiler& compiler,
                                                   WatchdogOptions watchdog = {},
                                                   PhaseListener on_phase = {},
                                                   HostCheck host_check = {});

}  // namespace gputune
