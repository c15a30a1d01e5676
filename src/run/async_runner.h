#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "gputune/device.h"
#include "gputune/measurement.h"
#include "gputune/progress.h"
#include "run/runner.h"

namespace gputune {

// Hears what a GPU worker is doing while the search waits for it (filling inputs, ...).
using PhaseListener = std::function<void(SearchPhase)>;

// What happened to the workers that measure: each replaced after a sticky error, a timeout or a
// crash is a restart.
struct WorkerStats {
  int64_t restarts = 0;
  int64_t timeouts = 0;
  int64_t crashes = 0;  // workers that died on their own
  // Where the runner's workers compile the variants themselves (the ranks of an MPI search):
  // their compile processes and the seconds those spent compiling (module cache hits not
  // counted). Zero where the search's own compile service compiles.
  int64_t compile_jobs = 0;
  double compile_s = 0;
};

// A Runner that takes candidates without waiting for them, so that the search compiles while
// the GPUs measure: GPU worker processes (process/process_runner.h), the ranks of an MPI search
// (cluster/remote_runner.h), or any Runner a batch at a time (search/async_adapters.h).
class AsyncRunner : public Runner {
 public:
  virtual size_t idle() const = 0;  // how many candidates submit() would start at once
  // How many submit() would hand to a worker now: idle() and, where a runner sends workers
  // their next candidate ahead, those slots too.
  virtual size_t accepting() const { return idle(); }
  virtual size_t busy() const = 0;  // submitted, not yet handed back
  // The ticket comes back with the measurement.
  virtual uint64_t submit(Candidate candidate) = 0;
  // Finished candidates, waiting up to timeout_ms (< 0: until one finishes) while none has.
  virtual std::vector<std::pair<uint64_t, Measurement>> poll(int timeout_ms) = 0;

  // The GPUs that measure at once, one per worker.
  virtual std::vector<DeviceInfo> devices() const { return {device()}; }
  // Whether GPUs time the candidates now, as opposed to a replay or a test's stand-in: only
  // then does the search know how idle they were.
  virtual bool times_gpus() const { return false; }
  // Routes what the workers are doing to `listener` (a worker started again fills its inputs
  // anew); returns the listener it replaces.
  virtual PhaseListener set_phase_listener(PhaseListener listener) {
    (void)listener;
    return {};
  }
  virtual WorkerStats stats() const { return {}; }
};

}  // namespace gputune
