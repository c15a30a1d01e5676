#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "core/shard.h"
#include "gputune/measurement.h"
#include "gputune/progress.h"
#include "run/runner.h"
#include "space/problem.h"
#include "space/rule_pick.h"
#include "store/store.h"
#include "strategy/prior_pruning.h"
#include "strategy/variant_profiler.h"

namespace gputune {

// Racing (docs/racing.md): a variant is timed only until its samples show it cannot come
// within `margin` of the best full measurement so far; then the `top_k` fastest full
// measurements are re-measured round-robin for `final_rounds` rounds, and those samples decide
// the winner.
struct RacingOptions {
  bool enabled = false;  // the session turns it on by default (SearchRequest::sampling)
  // Chosen on the H200 recordings with gputune_racing_bench --sweep (docs/racing.md).
  double margin = 0.05;
  int min_samples = 3;
  int top_k = 3;
  int final_rounds = 3;
};

struct SearchOptions {
  std::string strategy;                       // empty: the spec's
  std::optional<int64_t> budget_evaluations;  // unset: the spec's; 0: no limit
  std::optional<double> budget_seconds;       // unset: the spec's; 0: no limit
  std::optional<uint64_t> seed;               // unset: the spec's
  bool force = false;                         // measure again what the database already has
  // An ok baseline that used an argument otherwise than declared (its message says which: an
  // input it changed, an output it left untouched) stops the search instead of a warning.
  bool strict = false;
  bool use_prior = true;  // strategies may learn from the kernel's other workloads
  // With prior data, leave out the configs the model predicts to be far from the best
  // (docs/pruning.md); only where use_prior.
  bool prune = true;
  PruneOptions pruning;
  size_t batch = 4;  // variants the strategy is asked for at a time
  // Evaluations proposed but not finished, at most: compilation runs this far ahead of the
  // GPU. 0: twice the compile workers plus four per GPU when the compiler or the runner works
  // asynchronously (CompilePool, ProcessRunner), else `batch` (compile a batch, then run it).
  size_t pipeline = 0;
  // Counters of measured variants for a strategy that follows the bottleneck; null: none.
  VariantProfiler* profiler = nullptr;
  RacingOptions racing;
  // Only this shard's configs (index mod count); brute force only, so that the shards of a
  // space, run apart and merged, measure what one search would.
  Shard shard;
};

struct SearchResult {
  int64_t workload = 0;
  DeviceInfo device;
  double copy_bandwidth_gbs = 0;
  Measurement baseline;
  std::vector<Measurement> evaluated;  // this search's evaluations, reused ones included
  // Racing's final re-measurement of the top few (see remeasure_top), fastest first.
  std::vector<Measurement> final_measurements;
  SearchRecord record;
  // What the prior data pruned (PruneResult::skipped says why nothing, where nothing).
  PruneResult pruning;
  // The method's rules' pick, which every strategy proposed first (space/rule_pick.h); absent
  // where the spec has no engine knobs or no rule fired.
  std::optional<RulePick> rule_pick;
};

// What identifies a workload in the store: the spec and its kernel, the problem values, the
// device and the toolchain that compiled the variants.
WorkloadKey workload_key(const Problem& problem, const DeviceInfo& device,
                         const std::string& toolchain);

// Compiles, checks and times what the strategy proposes until it stops, the budget is spent
// or `stop` becomes true; every evaluation is committed as it completes, so an interrupted
// search resumes where it stopped. Evaluations found in the store count towards the budget
// without running again (unless options.force).
// A compiler that is also a CompileService (CompilePool) compiles ahead while a runner that is
// an AsyncRunner (ProcessRunner) measures: compilation and timing overlap. The strategy
// observes results in the order it proposed them. On `stop`, what has not reached the GPU is
// dropped and what is on it finishes and is stored.
SearchResult run_search(const Problem& problem, Runner& runner, Compiler& compiler, Store& store,
                        const SearchOptions& options, const ProgressCallback& progress = {},
                        const std::atomic<bool>* stop = nullptr);

// Compiles every valid variant for `arch` in the space's order (brute force's), or the first
// `limit` of them where it is above 0; the result has one Measurement per variant whose status
// is kOk or kCompileError (with the log).
std::vector<Measurement> compile_all(const Problem& problem, Compiler& compiler,
                                     const std::string& arch, const ProgressCallback& progress = {},
                                     const std::atomic<bool>* stop = nullptr, uint64_t limit = 0);

// The source NVRTC sees for a variant: its prelude, then the kernel file.
CompileRequest compile_request(const Problem& problem, const Variant& variant,
                               const std::string& arch);

}  // namespace gputune
