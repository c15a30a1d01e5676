#pragma once
// Hardware counters of one variant of a search's problem, shared by `gputune analyze` and the
// bottleneck strategy's profiler: ncu runs `gputune profile-launch` on it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/counter_source.h"
#include "compile/compiler.h"
#include "gputune/session.h"
#include "process/process_runner.h"
#include "space/problem.h"
#include "strategy/variant_profiler.h"

namespace gputune {

struct NcuLaunch {
  std::string ncu;   // ncu's path; empty: $GPUTUNE_NCU, PATH, $CUDA_HOME/bin
  std::string self;  // the gputune program ncu runs; empty: gputune_program()
  int device = 0;
  double timeout_s = 120;
};

// The gputune program for ncu to run: this process's own executable when it is gputune,
// else gputune on PATH; "" when there is none (the Python module outside an installation).
std::string gputune_program();

// `self profile-launch spec_path --device N [--set a=1,b=2]`: the launcher ncu runs; the caller
// adds the configs (--config-json) and its own options.
std::vector<std::string> profile_launch_command(const std::string& self,
                                                const std::string& spec_path,
                                                const ProblemOverrides& overrides, int device);

// Profiles config `index` of `problem` (read from `spec_path` at `overrides`) with ncu, in a
// program of its own under a watchdog. Never throws for a missing or refused profiler.
CounterResult profile_variant(CounterSource& source, const Problem& problem,
                              const std::string& spec_path, const ProblemOverrides& overrides,
                              uint64_t index, const NcuLaunch& launch);

// Profiles config `index` with CUPTI's range profiler in a GPU worker of `runner` (compiled by
// `compiler`, a cache hit when it was measured). Never throws for a missing or refused
// profiler; a profile that crashes or hangs costs its worker, which is replaced.
CounterResult profile_variant_in_worker(ProcessRunner& runner, Compiler& compiler,
                                        const Problem& problem, uint64_t index, double timeout_s);

// What counters say, in the terms of this spec's knobs: the verdict's step and the parameters
// that address it, most direct remedy first. `copy_bandwidth_gbs`, the device's copy bandwidth
// the search measured (0 when unknown), is the practical DRAM limit the verdict judges against.
VariantProfile variant_profile(const Spec& spec, const std::map<std::string, double>& counters,
                               double copy_bandwidth_gbs);

}  // namespace gputune
