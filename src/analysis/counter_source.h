#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "analysis/ncu_csv.h"

namespace gputune {

// One launch to profile: a program that launches the variant once and exits (`gputune
// profile-launch ...`), and the kernel to read counters of. The program is exec()ed, never
// forked from a process that holds a CUDA context: a profiler does not follow fork().
struct ProfileTarget {
  std::vector<std::string> command;  // argv of the launcher
  std::string kernel;                // the entry's name (-k)
  std::vector<std::string> metrics;  // what to collect
  double timeout_s = 120;            // the watchdog: the launch is killed after this
  // Launches to collect (-c). Several when the launcher runs a batch of variants.
  size_t launch_count = 1;
  // false: only launches between the launcher's cuda::profiler_start and profiler_stop count
  // (--profile-from-start off), so each variant contributes its own launches and no others.
  bool profile_from_start = true;
  // Once *stop is set, `stop_file` is created: the launcher sees it before its next variant and
  // exits cleanly, so the profiler still reports what it collected.
  const std::atomic<bool>* stop = nullptr;
  std::string stop_file;
};

struct CounterResult {
  bool ok = false;
  // Why there are no counters, for the user: ncu missing, no permission, a timeout, a crash.
  std::string message;
  // No launch can be profiled (the profiler is missing or has no permission), as opposed to
  // this one failing (a timeout, a crash).
  bool unavailable = false;
  KernelCounters counters;               // the first launch collected
  std::vector<KernelCounters> launches;  // every launch collected, in order
  // How the profiler ended: its exit status, or the signal that killed it (0: none).
  int exit_status = 0, signal = 0;
  bool timed_out = false;
  double wall_s = 0;
  std::string source;  // "ncu 2025.3.1" (what produced the counters)
};

// Hardware counters of a single launch: Nsight Compute now, an in-process CUPTI range
// profiler possibly later. Never throws for a profiler that is missing or refused: the result
// says why, and a search goes on without counters.
class CounterSource {
 public:
  virtual ~CounterSource() = default;
  virtual std::string name() const = 0;
  // "" when it can profile; otherwise why not and what to do.
  virtual std::string unavailable_reason() const = 0;
  virtual CounterResult profile(const ProfileTarget& target) = 0;
};

// `ncu` is the path of the ncu program; empty: $GPUTUNE_NCU, then ncu on PATH, then
// $CUDA_HOME/bin/ncu and /usr/local/cuda/bin/ncu.
std::unique_ptr<CounterSource> make_ncu_counter_source(const std::string& ncu = "");

}  // namespace gputune
