#include "search/evaluation_pipeline.h"

#include <algorithm>

#include "compile/compiler_log.h"
#include "search/compile_outcome.h"
#include "search/search.h"
#include "search/search_accounting.h"

namespace gputune {

size_t pipeline_depth(size_t requested, size_t batch, bool pipelined, size_t compile_workers,
                      size_t idle_gpus) {
  size_t depth = requested;
  if (depth == 0) {
    depth = pipelined ? 2 * compile_workers + 4 * std::max<size_t>(idle_gpus, 1) : batch;
  }
  return std::max<size_t>({depth, batch, 1});
}

RaceLimit race_limit(const RacingOptions& racing, double best_ms) {
  RaceLimit race;
  if (!racing.enabled || best_ms <= 0) return race;
  race.cut_above_ms = best_ms * (1 + racing.margin);
  race.min_samples = racing.min_samples;
  return race;
}

EvaluationPipeline::EvaluationPipeline(PipelineParts parts, StoredResults& stored,
                                       const SearchBudget& budget, size_t batch, size_t depth,
                                       ProgressTracker& tracker, SearchRecord& record)
    : parts_(std::move(parts)),
      stored_(stored),
      budget_(budget),
      batch_(batch),
      depth_(depth),
      tracker_(tracker),
      record_(record) {}

void EvaluationPipeline::complete(Slot& slot, Measurement m) {
  in_flight_.erase(slot.index);
  --unfinished_;
  account_measurement(record_, m);
  tracker_.add(m, true);
  stored_.add_measured(m);
  ++record_.evaluated;
  fresh_.push_back(m);
  slot.outcome = std::move(m);
  slot.state = Slot::State::kDone;
}

void EvaluationPipeline::fill() {
  while (!exhausted_ && unfinished_ < depth_) {
    const size_t want = budget_.allow(std::min(batch_, depth_ - unfinished_), proposed_);
    if (want == 0) {
      exhausted_ = true;
      break;
    }
    std::vector<uint64_t> proposal = parts_.strategy.propose(want);
    if (proposal.empty()) {
      exhausted_ = true;
      break;
    }
    for (uint64_t index : proposal) propose_into_window(index);
  }
}

void EvaluationPipeline::propose_into_window(uint64_t index) {
  ++proposed_;
  Slot slot;
  slot.index = index;
  if (const Measurement* reused = stored_.reusable(index)) {
    slot.outcome = *reused;
    slot.state = Slot::State::kDone;
    ++record_.reused;
    tracker_.add(slot.outcome, false);
  } else if (in_flight_.count(index)) {
    slot.state = Slot::State::kDuplicate;  // takes the earlier slot's outcome
  } else {
    slot.candidate.variant = parts_.problem.variant(index);
    const uint64_t ticket = parts_.compiles.submit(
        compile_request(parts_.problem, slot.candidate.variant, parts_.arch));
    compile_seq_[ticket] = first_seq_ + window_.size();
    in_flight_.insert(index);
    ++unfinished_;
  }
  window_.push_back(std::move(slot));
}

// Compiled candidates go to the GPU in proposal order, as workers free up (or have room for
// their next, which they load while measuring).
void EvaluationPipeline::dispatch() {
  for (size_t i = 0; i < window_.size() && parts_.gpu.accepting() > 0; ++i) {
    Slot& slot = window_[i];
    if (slot.state != Slot::State::kCompiled) continue;
    slot.candidate.race = race_limit(parts_.racing, stored_.best_full_ms());
    run_seq_[parts_.gpu.submit(slot.candidate)] = first_seq_ + i;
    slot.state = Slot::State::kRunning;
    tracker_.set_phase(SearchPhase::kMeasuring);
  }
}

// Drops what has not reached the GPU; what is on it finishes.
void EvaluationPipeline::stop_early() {
  stopped_ = true;
  exhausted_ = true;
  parts_.compiles.cancel();
  compile_seq_.clear();
  for (Slot& slot : window_) {
    if (slot.state == Slot::State::kCompiling || slot.state == Slot::State::kCompiled) {
      --unfinished_;
      in_flight_.erase(slot.index);
      slot.state = Slot::State::kDropped;
    } else if (slot.state == Slot::State::kDuplicate) {
      slot.state = Slot::State::kDropped;
    }
  }
}

// The finished front of the window goes to the strategy, in proposal order.
void EvaluationPipeline::retire() {
  std::vector<Measurement> observed;
  while (!window_.empty()) {
    Slot& slot = window_.front();
    if (slot.state == Slot::State::kDuplicate) {
      const Measurement* earlier = stored_.latest(slot.index);
      if (earlier == nullptr) break;
      slot.outcome = *earlier;
      slot.state = Slot::State::kDone;
      ++record_.reused;
      tracker_.add(slot.outcome, false);
    }
    if (slot.state == Slot::State::kDone) {
      observed.push_back(std::move(slot.outcome));
    } else if (slot.state != Slot::State::kDropped) {
      break;
    }
    window_.pop_front();
    ++first_seq_;
  }
  if (observed.empty()) return;
  if (!stopped_) parts_.strategy.observe(observed);
  evaluated_.insert(evaluated_.end(), observed.begin(), observed.end());
}

// Waits for whichever side can make progress; the GPU side wakes at once when a variant
// finishes (or its watchdog fires), the compile side within a few milliseconds.
void EvaluationPipeline::wait_and_collect() {
  std::vector<std::pair<uint64_t, Measurement>> measured;
  std::vector<std::pair<uint64_t, CompiledKernel>> compiled;
  if (parts_.gpu.busy() > 0) {
    measured = parts_.gpu.poll(!compile_seq_.empty() ? 2 : 50);
    if (!compile_seq_.empty()) compiled = parts_.compiles.poll(0);
  } else if (!compile_seq_.empty()) {
    compiled = parts_.compiles.poll(50);
  } else if (unfinished_ > 0) {
    measured = parts_.gpu.poll(50);  // compiled variants wait for a worker that is starting again
  }
  for (auto& [ticket, kernel] : compiled) {
    auto it = compile_seq_.find(ticket);
    if (it == compile_seq_.end()) continue;
    Slot& slot = slot_of(it->second);
    compile_seq_.erase(it);
    account_compilation(record_, kernel);
    if (!kernel.ok) {
      complete(slot, compile_failure(slot.candidate.variant, kernel));
    } else {
      slot.candidate.kernel = std::move(kernel);
      slot.state = Slot::State::kCompiled;
    }
  }
  for (auto& [ticket, m] : measured) {
    auto it = run_seq_.find(ticket);
    if (it == run_seq_.end()) continue;
    Slot& slot = slot_of(it->second);
    run_seq_.erase(it);
    // A runner that compiled the variant itself (another MPI rank) reports its own warnings.
    if (!slot.candidate.kernel.log.empty()) {
      m.compiler_warnings = compiler_warnings(slot.candidate.kernel.log);
    }
    slot.candidate = {};
    tracker_.set_phase(SearchPhase::kMeasuring);  // again, after a worker filled its inputs anew
    complete(slot, std::move(m));
  }
}

std::vector<Measurement> EvaluationPipeline::run(const std::atomic<bool>* stop) {
  for (;;) {
    if (!stopped_ && stop && *stop) stop_early();
    if (!stopped_) fill();
    if (!stopped_ && parts_.strategy.wants_idle_gpu()) {
      // Nothing more goes to the GPU until what runs there is done: the strategy's own GPU work
      // (profiling) must not run beside a timing, nor a timing beside it.
      if (parts_.gpu.busy() == 0) parts_.strategy.use_idle_gpu();
    } else {
      dispatch();
    }
    retire();
    tracker_.report();
    if (window_.empty() && exhausted_) break;
    wait_and_collect();
    if (!fresh_.empty()) {
      parts_.store.commit(parts_.workload, fresh_);
      fresh_.clear();
    }
  }
  return std::move(evaluated_);
}

}  // namespace gputune
