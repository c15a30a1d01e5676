#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compile/compile_service.h"
#include "run/async_runner.h"
#include "search/progress_tracker.h"
#include "search/search.h"
#include "search/search_budget.h"
#include "search/stored_results.h"
#include "space/problem.h"
#include "store/store.h"
#include "strategy/strategy.h"

namespace gputune {

// Where a pipeline's evaluations go, and what it takes them from.
struct PipelineParts {
  const Problem& problem;
  std::string arch;
  CompileService& compiles;
  AsyncRunner& gpu;
  Strategy& strategy;
  Store& store;
  int64_t workload = 0;
  RacingOptions racing;
};

// Proposals, compilations and measurements in flight at once: the strategy's proposals are
// compiled up to `depth` ahead of the GPU, go to the GPU in proposal order as workers free up,
// and are observed by the strategy in proposal order. Stored results are reused; every
// measurement is committed as it completes.
class EvaluationPipeline {
 public:
  EvaluationPipeline(PipelineParts parts, StoredResults& stored, const SearchBudget& budget,
                     size_t batch, size_t depth, ProgressTracker& tracker, SearchRecord& record);

  // Runs until the strategy or the budget is done, or `stop` becomes true; returns every
  // evaluation observed, in proposal order.
  std::vector<Measurement> run(const std::atomic<bool>* stop);

 private:
  // One proposed evaluation, from proposal to the strategy's observe().
  struct Slot {
    enum class State { kCompiling, kCompiled, kRunning, kDone, kDuplicate, kDropped };
    uint64_t index = 0;
    State state = State::kCompiling;
    Candidate candidate;  // kCompiled, kRunning
    Measurement outcome;  // kDone
  };

  Slot& slot_of(uint64_t seq) { return window_[seq - first_seq_]; }
  void fill();
  void propose_into_window(uint64_t index);
  void dispatch();
  void stop_early();
  void retire();
  void wait_and_collect();
  void complete(Slot& slot, Measurement m);

  PipelineParts parts_;
  StoredResults& stored_;
  const SearchBudget& budget_;
  size_t batch_, depth_;
  ProgressTracker& tracker_;
  SearchRecord& record_;

  std::deque<Slot> window_;  // proposal order; the front is observed first
  uint64_t first_seq_ = 0;   // sequence number of window_.front()
  std::unordered_map<uint64_t, uint64_t> compile_seq_, run_seq_;  // ticket -> sequence number
  std::unordered_set<uint64_t> in_flight_;                        // config indices
  size_t unfinished_ = 0;  // slots compiling, compiled or running
  int64_t proposed_ = 0;
  bool exhausted_ = false, stopped_ = false;
  std::vector<Measurement> fresh_;  // measured, not committed yet
  std::vector<Measurement> evaluated_;
};

// What a variant races against when the best full measurement so far is `best_ms` (0: none
// yet, so nothing is cut).
RaceLimit race_limit(const RacingOptions& racing, double best_ms);

// Evaluations in flight at most: options.pipeline, else twice the compile workers plus four
// per GPU when compilation and timing can overlap, else one batch.
size_t pipeline_depth(size_t requested, size_t batch, bool pipelined, size_t compile_workers,
                      size_t idle_gpus);

}  // namespace gputune
