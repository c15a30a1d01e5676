#include "search/search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include "compile/compile_pool.h"
#include "gputune/error.h"
#include "model/features.h"
#include "process/process_runner.h"
#include "model/cost_model.h"
#include "search/prior.h"
#include "strategy/strategy.h"

namespace gputune {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Measurement compile_failure(const Variant& variant, const CompiledKernel& kernel) {
  Measurement m;
  m.config_index = variant.index;
  m.config = variant.config;
  m.status = Status::kCompileError;
  m.compile_ms = kernel.compile_ms;
  m.message = kernel.log;
  return m;
}

// Spaces too large to walk get the product size as their (upper) total.
uint64_t valid_total(const SearchSpace& space) {
  constexpr uint64_t kWalkLimit = 10'000'000;
  return space.size() <= kWalkLimit ? space.count_valid() : space.size();
}

class ProgressTracker {
 public:
  ProgressTracker(uint64_t total, const ProgressCallback& callback)
      : callback_(callback), start_(Clock::now()) {
    progress_.total = total;
  }
  void add(const Measurement& m, bool measured) {
    ++progress_.done;
    if (measured) ++progress_.measured;
    if (m.status != Status::kOk) {
      ++progress_.failed;
    } else if (progress_.best_ms == 0 || m.median_ms() < progress_.best_ms) {
      progress_.best_ms = m.median_ms();
      progress_.best_config = m.config;
    }
  }
  void report() {
    progress_.elapsed_s = seconds_since(start_);
    if (callback_) callback_(progress_);
  }
  uint64_t done() const { return progress_.done; }

 private:
  const ProgressCallback& callback_;
  Clock::time_point start_;
  SearchProgress progress_;
};

// A plain Compiler behind the asynchronous interface: compiles what was submitted on poll().
class SerialCompiles : public CompileService {
 public:
  explicit SerialCompiles(Compiler& compiler) : compiler_(compiler) {}
  size_t parallelism() const override { return 1; }
  uint64_t submit(const CompileRequest& request) override {
    queue_.emplace_back(next_, request);
    return next_++;
  }
  std::vector<std::pair<uint64_t, CompiledKernel>> poll(int) override {
    std::vector<std::pair<uint64_t, CompiledKernel>> out;
    while (!queue_.empty()) {
      auto [ticket, request] = std::move(queue_.front());
      queue_.pop_front();
      out.emplace_back(ticket, compiler_.compile(request));
    }
    return out;
  }
  size_t pending() const override { return queue_.size(); }
  void cancel() override { queue_.clear(); }

 private:
  Compiler& compiler_;
  std::deque<std::pair<uint64_t, CompileRequest>> queue_;
  uint64_t next_ = 1;
};

// A plain Runner behind the asynchronous interface: up to `batch` candidates, measured in one
// run() call on poll(). After a sticky error the rest stay queued, and the next run() throws.
class BatchRuns : public AsyncRunner {
 public:
  BatchRuns(Runner& runner, size_t batch) : runner_(runner), batch_(std::max<size_t>(batch, 1)) {}
  const DeviceInfo& device() const override { return runner_.device(); }
  Measurement set_reference(const Candidate& baseline) override {
    return runner_.set_reference(baseline);
  }
  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    return runner_.run(batch);
  }
  double measure_copy_bandwidth() override { return runner_.measure_copy_bandwidth(); }
  size_t idle() const override { return batch_ > queue_.size() ? batch_ - queue_.size() : 0; }
  size_t busy() const override { return queue_.size(); }
  uint64_t submit(Candidate candidate) override {
    queue_.emplace_back(next_, std::move(candidate));
    return next_++;
  }
  std::vector<std::pair<uint64_t, Measurement>> poll(int) override {
    std::vector<std::pair<uint64_t, Measurement>> out;
    if (queue_.empty()) return out;
    std::vector<Candidate> batch;
    for (const auto& [ticket, candidate] : queue_) batch.push_back(candidate);
    std::vector<Measurement> results = runner_.run(batch);
    for (size_t i = 0; i < results.size() && i < queue_.size(); ++i) {
      out.emplace_back(queue_[i].first, std::move(results[i]));
    }
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<ptrdiff_t>(out.size()));
    return out;
  }

 private:
  Runner& runner_;
  size_t batch_;
  std::deque<std::pair<uint64_t, Candidate>> queue_;
  uint64_t next_ = 1;
};

CompiledKernel compile_now(CompileService& compiles, const CompileRequest& request) {
  const uint64_t ticket = compiles.submit(request);
  for (;;) {
    for (auto& [t, kernel] : compiles.poll(-1)) {
      if (t == ticket) return std::move(kernel);
    }
  }
}

}  // namespace

CompileRequest compile_request(const Problem& problem, const Variant& variant,
                               const std::string& arch) {
  CompileRequest request;
  request.source_name = std::filesystem::path(problem.spec().kernel_path).filename().string();
  // #line keeps compiler messages pointing at the user's file, whatever the prelude adds.
  request.source = variant.prelude + "\n#line 1 \"" + request.source_name + "\"\n" +
                   problem.spec().kernel_source;
  request.kernel_name_expressions = variant.kernel_name_expressions;
  request.options = variant.compile_options;
  request.headers_hash = problem.spec().headers_hash;
  request.arch = arch;
  return request;
}

std::vector<Measurement> compile_all(const Problem& problem, Compiler& compiler,
                                     const std::string& arch, const ProgressCallback& progress,
                                     const std::atomic<bool>* stop) {
  const SearchSpace& space = problem.space();
  ProgressTracker tracker(valid_total(space), progress);
  SerialCompiles serial(compiler);
  auto* service = dynamic_cast<CompileService*>(&compiler);
  CompileService& compiles = service != nullptr ? *service : serial;
  // Enough queued to keep every worker busy, few enough that Ctrl-C stops soon.
  const size_t ahead = 2 * compiles.parallelism();
  std::unordered_map<uint64_t, Variant> submitted;  // ticket -> variant
  std::vector<Measurement> results;
  uint64_t index = 0;
  while (true) {
    const bool stopping = stop && *stop;
    while (!stopping && submitted.size() < ahead && index < space.size()) {
      const uint64_t i = index++;
      if (!space.valid(i)) continue;
      Variant variant = problem.variant(i);
      const uint64_t ticket = compiles.submit(compile_request(problem, variant, arch));
      submitted.emplace(ticket, std::move(variant));
    }
    if (submitted.empty() || stopping) break;
    for (auto& [ticket, kernel] : compiles.poll(100)) {
      auto it = submitted.find(ticket);
      if (it == submitted.end()) continue;
      Measurement m = compile_failure(it->second, kernel);
      if (kernel.ok) {
        m.status = Status::kOk;
        m.registers = kernel.registers;
        m.shared_bytes = kernel.shared_bytes;
        m.spill_bytes = kernel.spill_bytes;
      }
      submitted.erase(it);
      tracker.add(m, true);
      tracker.report();
      results.push_back(std::move(m));
    }
  }
  if (!submitted.empty()) compiles.cancel();
  std::sort(results.begin(), results.end(), [](const Measurement& a, const Measurement& b) {
    return a.config_index < b.config_index;
  });
  return results;
}

namespace {

// One proposed evaluation, from proposal to the strategy's observe().
struct Slot {
  enum class State { kCompiling, kCompiled, kRunning, kDone, kDuplicate, kDropped };
  uint64_t index = 0;
  State state = State::kCompiling;
  Candidate candidate;  // kCompiled, kRunning
  Measurement outcome;  // kDone
};

}  // namespace

SearchResult run_search(const Problem& problem, Runner& runner, Compiler& compiler, Store& store,
                        const SearchOptions& options, const ProgressCallback& progress,
                        const std::atomic<bool>* stop) {
  const Spec& spec = problem.spec();
  const SearchSpace& space = problem.space();
  const auto start = Clock::now();
  SearchResult result;
  result.device = runner.device();
  const std::string arch = result.device.arch();

  SerialCompiles serial_compiles(compiler);
  auto* compile_service = dynamic_cast<CompileService*>(&compiler);
  CompileService& compiles = compile_service != nullptr ? *compile_service : serial_compiles;
  BatchRuns batch_runs(runner, options.batch);
  auto* async_runner = dynamic_cast<AsyncRunner*>(&runner);
  AsyncRunner& gpu = async_runner != nullptr ? *async_runner : batch_runs;

  WorkloadKey key;
  key.spec_hash = spec.spec_hash();
  key.source_hash = spec.source_hash();
  key.spec_path = spec.path;
  key.spec_text = spec.text;
  key.kernel_name = spec.kernel_name.text;
  key.problem_json = problem.problem_json();
  key.device = result.device;
  key.nvrtc_version = nvrtc_version();
  result.workload = store.workload(key);
  store.set_baseline(result.workload, problem.baseline_index());

  if (auto bandwidth = store.copy_bandwidth(result.device)) {
    result.copy_bandwidth_gbs = *bandwidth;
  } else {
    result.copy_bandwidth_gbs = runner.measure_copy_bandwidth();
    store.set_copy_bandwidth(result.device, result.copy_bandwidth_gbs);
  }

  SearchRecord& record = result.record;
  record.strategy = options.strategy.empty() ? spec.search.strategy : options.strategy;
  record.seed = options.seed.value_or(spec.search.seed);
  record.jobs = static_cast<int64_t>(compiles.parallelism());
  const auto* process_runner = dynamic_cast<const ProcessRunner*>(&runner);
  record.gpus =
      process_runner != nullptr ? static_cast<int64_t>(process_runner->devices().size()) : 1;
  const int64_t budget = options.budget_evaluations.value_or(spec.search.budget_evaluations);
  const double budget_s = options.budget_seconds.value_or(spec.search.budget_seconds);
  auto strategy = make_strategy(record.strategy, record.seed);

  std::unordered_map<uint64_t, Measurement> stored;
  for (auto& m : store.measured(result.workload)) stored.emplace(m.config_index, std::move(m));
  // With --force, what this search measured itself is still never measured twice.
  std::unordered_set<uint64_t> measured_now;

  auto account = [&record](const Measurement& m) {
    record.check_s += m.check_ms / 1e3;
    record.time_s += m.time_ms / 1e3;
  };
  auto account_compile = [&record](const CompiledKernel& kernel) {
    if (kernel.cached) {
      ++record.cache_hits;
    } else {
      record.compile_s += kernel.compile_ms / 1e3;
    }
  };

  // The baseline always runs: its outputs are the reference every variant is checked against.
  {
    Variant variant = problem.variant(problem.baseline_index());
    CompiledKernel kernel = compile_now(compiles, compile_request(problem, variant, arch));
    if (!kernel.ok) {
      throw Error(ErrorCode::kSpec, spec.baseline_where.str() +
                                        ": the baseline does not compile, so nothing can be "
                                        "checked against it:\n" +
                                        kernel.log);
    }
    account_compile(kernel);
    result.baseline = runner.set_reference({std::move(variant), std::move(kernel)});
    account(result.baseline);
    bool in_space = space.valid(problem.baseline_index());
    if (in_space && (options.force || !stored.count(problem.baseline_index()))) {
      store.commit(result.workload, {result.baseline});
      stored[problem.baseline_index()] = result.baseline;
      measured_now.insert(problem.baseline_index());
      ++record.evaluated;
    }
  }

  uint64_t total = valid_total(space);
  if (budget > 0) total = std::min<uint64_t>(total, static_cast<uint64_t>(budget));
  ProgressTracker tracker(total, progress);
  StrategyContext context(space);
  if (options.use_prior) {
    context.problem_values = problem.problem_values();
    context.prior = prior_from_store(store, result.workload, kernel_identity(problem));
  }
  context.launch = launch_of(spec);
  context.sm_count = runner.device().sm_count;
  context.cost_model = gaussian_process_factory();
  strategy->start(context);
  tracker.report();

  const bool pipelined = async_runner != nullptr || compiles.parallelism() > 1;
  size_t depth = options.pipeline;
  if (depth == 0) {
    depth = pipelined ? 2 * compiles.parallelism() + 4 * std::max<size_t>(gpu.idle(), 1)
                      : options.batch;
  }
  depth = std::max<size_t>({depth, options.batch, 1});

  std::deque<Slot> window;  // proposal order; the front is observed first
  uint64_t first_seq = 0;   // sequence number of window.front()
  std::unordered_map<uint64_t, uint64_t> compile_seq, run_seq;  // ticket -> sequence number
  std::unordered_set<uint64_t> in_flight;                       // config indices
  size_t unfinished = 0;  // slots compiling, compiled or running
  int64_t proposed = 0;
  bool exhausted = false, stopped = false;
  std::vector<Measurement> fresh;

  auto slot_of = [&](uint64_t seq) -> Slot& { return window[seq - first_seq]; };
  auto complete = [&](Slot& slot, Measurement m) {
    in_flight.erase(slot.index);
    --unfinished;
    account(m);
    tracker.add(m, true);
    stored[m.config_index] = m;
    measured_now.insert(m.config_index);
    ++record.evaluated;
    fresh.push_back(m);
    slot.outcome = std::move(m);
    slot.state = Slot::State::kDone;
  };

  auto fill = [&] {
    while (!exhausted && unfinished < depth) {
      if (budget_s > 0 && seconds_since(start) >= budget_s) {
        exhausted = true;
        break;
      }
      size_t want = std::min(options.batch, depth - unfinished);
      if (budget > 0) {
        const int64_t left = budget - proposed;
        if (left <= 0) {
          exhausted = true;
          break;
        }
        want = std::min<size_t>(want, static_cast<size_t>(left));
      }
      std::vector<uint64_t> proposal = strategy->propose(want);
      if (proposal.empty()) {
        exhausted = true;
        break;
      }
      for (uint64_t index : proposal) {
        ++proposed;
        Slot slot;
        slot.index = index;
        auto cached = stored.find(index);
        if (cached != stored.end() && (!options.force || measured_now.count(index))) {
          slot.outcome = cached->second;
          slot.state = Slot::State::kDone;
          ++record.reused;
          tracker.add(slot.outcome, false);
        } else if (in_flight.count(index)) {
          slot.state = Slot::State::kDuplicate;  // takes the earlier slot's outcome
        } else {
          slot.candidate.variant = problem.variant(index);
          const uint64_t ticket =
              compiles.submit(compile_request(problem, slot.candidate.variant, arch));
          compile_seq[ticket] = first_seq + window.size();
          in_flight.insert(index);
          ++unfinished;
        }
        window.push_back(std::move(slot));
      }
    }
  };

  // Compiled candidates go to the GPU in proposal order, as workers free up.
  auto dispatch = [&] {
    for (size_t i = 0; i < window.size() && gpu.idle() > 0; ++i) {
      Slot& slot = window[i];
      if (slot.state != Slot::State::kCompiled) continue;
      run_seq[gpu.submit(slot.candidate)] = first_seq + i;
      slot.state = Slot::State::kRunning;
    }
  };

  // Drops what has not reached the GPU; what is on it finishes.
  auto stop_early = [&] {
    stopped = true;
    exhausted = true;
    compiles.cancel();
    compile_seq.clear();
    for (Slot& slot : window) {
      if (slot.state == Slot::State::kCompiling || slot.state == Slot::State::kCompiled) {
        --unfinished;
        in_flight.erase(slot.index);
        slot.state = Slot::State::kDropped;
      } else if (slot.state == Slot::State::kDuplicate) {
        slot.state = Slot::State::kDropped;
      }
    }
  };

  auto retire = [&] {
    std::vector<Measurement> observed;
    while (!window.empty()) {
      Slot& slot = window.front();
      if (slot.state == Slot::State::kDuplicate) {
        auto it = stored.find(slot.index);
        if (it == stored.end()) break;
        slot.outcome = it->second;
        slot.state = Slot::State::kDone;
        ++record.reused;
        tracker.add(slot.outcome, false);
      }
      if (slot.state == Slot::State::kDone) {
        observed.push_back(std::move(slot.outcome));
      } else if (slot.state != Slot::State::kDropped) {
        break;
      }
      window.pop_front();
      ++first_seq;
    }
    if (observed.empty()) return;
    if (!stopped) strategy->observe(observed);
    result.evaluated.insert(result.evaluated.end(), observed.begin(), observed.end());
  };

  for (;;) {
    if (!stopped && stop && *stop) stop_early();
    if (!stopped) fill();
    dispatch();
    retire();
    tracker.report();
    if (window.empty() && exhausted) break;

    // Wait for whichever side can make progress; the GPU side wakes at once when a variant
    // finishes (or its watchdog fires), the compile side within a few milliseconds.
    std::vector<std::pair<uint64_t, Measurement>> measured;
    std::vector<std::pair<uint64_t, CompiledKernel>> compiled;
    if (gpu.busy() > 0) {
      measured = gpu.poll(!compile_seq.empty() ? 2 : 50);
      if (!compile_seq.empty()) compiled = compiles.poll(0);
    } else if (!compile_seq.empty()) {
      compiled = compiles.poll(50);
    } else if (unfinished > 0) {
      measured = gpu.poll(50);  // compiled variants wait for a worker that is starting again
    }
    for (auto& [ticket, kernel] : compiled) {
      auto it = compile_seq.find(ticket);
      if (it == compile_seq.end()) continue;
      Slot& slot = slot_of(it->second);
      compile_seq.erase(it);
      account_compile(kernel);
      if (!kernel.ok) {
        complete(slot, compile_failure(slot.candidate.variant, kernel));
      } else {
        slot.candidate.kernel = std::move(kernel);
        slot.state = Slot::State::kCompiled;
      }
    }
    for (auto& [ticket, m] : measured) {
      auto it = run_seq.find(ticket);
      if (it == run_seq.end()) continue;
      Slot& slot = slot_of(it->second);
      run_seq.erase(it);
      slot.candidate = {};
      complete(slot, std::move(m));
    }
    if (!fresh.empty()) {
      store.commit(result.workload, fresh);
      fresh.clear();
    }
  }

  record.interrupted = stop && *stop;
  if (process_runner != nullptr) record.worker_restarts = process_runner->stats().restarts;
  record.wall_s = seconds_since(start);
  store.record_search(result.workload, record);
  return result;
}

}  // namespace gputune
