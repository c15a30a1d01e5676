#pragma once
// The profilers a search's strategy gets (--strategy bottleneck): ncu on the GPU, or the
// counters a recording or database holds, for a replay.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "compile/compiler.h"
#include "gputune/device.h"
#include "process/process_runner.h"
#include "profile/variant_counters.h"
#include "space/problem.h"
#include "store/store.h"
#include "strategy/variant_profiler.h"

namespace gputune {

class SearchProfiler : public VariantProfiler {
 public:
  // One line for the user after a search: what was profiled and what it cost, or why nothing
  // was; "" when nothing was asked for.
  // `always`: also when nothing was asked for, saying why (--strategy bottleneck).
  virtual std::string summary(double search_wall_s, bool always = false) const = 0;
  virtual size_t asked() const = 0;
  virtual size_t profiled() const = 0;
  virtual double spent_s() const = 0;
};

// Profiles with ncu and stores the counters with the workload's measurements in `store`. The
// budget's clock starts now. `spec_path` and `overrides` are what `gputune profile-launch`
// rebuilds the problem from; a spec without a file cannot be profiled (the profile says so).
std::unique_ptr<SearchProfiler> make_ncu_profiler(const Problem& problem,
                                                  const std::string& spec_path,
                                                  const ProblemOverrides& overrides, Store& store,
                                                  const DeviceInfo& device, NcuLaunch launch);

// The profiler of a live search: `kind` "cupti" (CUPTI's range profiler in the GPU worker that
// measures), "ncu" (make_ncu_profiler) or "auto" (CUPTI, and ncu once CUPTI says it cannot
// profile here).
std::unique_ptr<SearchProfiler> make_search_profiler(const std::string& kind,
                                                     const Problem& problem, Compiler& compiler,
                                                     ProcessRunner& runner, Store& store,
                                                     const std::string& spec_path,
                                                     const ProblemOverrides& overrides,
                                                     NcuLaunch launch);

// What a search's profile of one variant costs beyond the counters' own share: starting ncu
// and a launcher process (an H100, 2026-11-23: `gputune analyze --best` 2.2 to 2.8 s in all,
// against 0.3 s per variant inside 64-variant batches). Counters recorded in batches carry the
// batch's time per variant, so a replay adds this to each profile recorded below it.
constexpr double kProfileStartS = 2.0;

// Answers from recorded counters (a recording's or a database's), charging what they cost when
// they were taken, plus `start_s` where that was a batch's share (less than `start_s`); a variant
// without counters has none, at no cost. `copy_bandwidth_gbs` is the copy bandwidth recorded
// with them (0 when the recording has none), the practical DRAM limit the verdicts judge against.
std::unique_ptr<SearchProfiler> make_recorded_profiler(const Spec& spec,
                                                       std::map<uint64_t, StoredCounters> counters,
                                                       double start_s = kProfileStartS,
                                                       double copy_bandwidth_gbs = 0);

}  // namespace gputune
