#pragma once
// The parts `gputune search` assembles a pipeline from (search_session.cpp), shared with the MPI
// search (mpi_search.cpp).
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "gputune/session.h"
#include "process/compile_pool.h"
#include "process/process_runner.h"
#include "profile/variant_profilers.h"
#include "run/runner.h"
#include "search/search.h"
#include "space/problem.h"
#include "store/store.h"

namespace gputune::search_parts {

SearchOptions search_options(const SearchRequest& request);
std::vector<int> device_ordinals(const SearchRequest& request);
std::unique_ptr<CompilePool> make_compile_pool(const SearchRequest& request);
TimingOptions timing_options(const SearchRequest& request);
WatchdogOptions watchdog_options(const SearchRequest& request);
Spec requested_spec(const SearchRequest& request);

struct Replay {
  std::unique_ptr<Problem> problem;
  std::unique_ptr<Runner> runner;
  std::map<uint64_t, StoredCounters> counters;  // what the bottleneck strategy replays
};
Replay open_replay(const SearchRequest& request);

// `replay`: the runner answers from a recording (the profiler from its counters).
SearchOutcome search_and_report(const Problem& problem, Runner& runner, Compiler& compiler,
                                Store& store, SearchOptions options, SearchProfiler& profiler,
                                bool replay, const ProgressCallback& progress,
                                const std::atomic<bool>* stop);

// The spec's own warnings (what loading it noticed), then `warnings`.
std::vector<std::string> with_spec_warnings(const Spec& spec, std::vector<std::string> warnings);

}  // namespace gputune::search_parts
