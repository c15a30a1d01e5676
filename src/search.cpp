#include "gputune/search.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include "gputune/error.h"
#include "gputune/strategy.h"
#include "prior.h"

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

}  // namespace

CompileRequest compile_request(const Problem& problem, const Variant& variant,
                               const std::string& arch) {
  CompileRequest request;
  request.source_name = std::filesystem::path(problem.spec().kernel_path).filename().string();
  // #line keeps compiler messages pointing at the user's file, whatever the prelude adds.
  request.source = variant.prelude + "\n#line 1 \"" + request.source_name + "\"\n" +
                   problem.spec().kernel_source;
  request.kernel_name_expression = variant.kernel_name_expression;
  request.options = variant.compile_options;
  request.arch = arch;
  return request;
}

std::vector<Measurement> compile_all(const Problem& problem, Compiler& compiler,
                                     const std::string& arch, const ProgressCallback& progress,
                                     const std::atomic<bool>* stop) {
  const SearchSpace& space = problem.space();
  ProgressTracker tracker(valid_total(space), progress);
  std::vector<Measurement> results;
  for (uint64_t index = 0; index < space.size(); ++index) {
    if (stop && *stop) break;
    if (!space.valid(index)) continue;
    Variant variant = problem.variant(index);
    CompiledKernel kernel = compiler.compile(compile_request(problem, variant, arch));
    Measurement m = compile_failure(variant, kernel);
    if (kernel.ok) {
      m.status = Status::kOk;
      m.registers = kernel.registers;
      m.shared_bytes = kernel.shared_bytes;
      m.spill_bytes = kernel.spill_bytes;
    }
    tracker.add(m, true);
    tracker.report();
    results.push_back(std::move(m));
  }
  return results;
}

SearchResult run_search(const Problem& problem, Runner& runner, Compiler& compiler,
                        Store& store, const SearchOptions& options,
                        const ProgressCallback& progress, const std::atomic<bool>* stop) {
  const Spec& spec = problem.spec();
  const SearchSpace& space = problem.space();
  const auto start = Clock::now();
  SearchResult result;
  result.device = runner.device();
  const std::string arch = result.device.arch();

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
  const int64_t budget = options.budget_evaluations.value_or(spec.search.budget_evaluations);
  const double budget_s = options.budget_seconds.value_or(spec.search.budget_seconds);
  auto strategy = make_strategy(record.strategy, record.seed);

  std::unordered_map<uint64_t, Measurement> stored;
  for (auto& m : store.measured(result.workload)) stored.emplace(m.config_index, std::move(m));
  // With --force, what this search measured itself is still never measured twice.
  std::unordered_set<uint64_t> measured_now;

  // The baseline always runs: its outputs are the reference every variant is checked against.
  {
    Variant variant = problem.variant(problem.baseline_index());
    CompiledKernel kernel = compiler.compile(compile_request(problem, variant, arch));
    if (!kernel.ok) {
      throw Error(ErrorCode::kSpec, spec.baseline_where.str() +
                                        ": the baseline does not compile, so nothing can be "
                                        "checked against it:\n" + kernel.log);
    }
    record.compile_s += kernel.compile_ms / 1e3;
    result.baseline = runner.set_reference({std::move(variant), std::move(kernel)});
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
  if (options.use_prior) {
    strategy->use_prior(problem.problem_values(), prior_from_store(store, result.workload, key));
  }
  strategy->start(space, {});
  tracker.report();

  while (!(stop && *stop)) {
    if (budget_s > 0 && seconds_since(start) >= budget_s) break;
    size_t want = options.batch;
    if (budget > 0) {
      int64_t left = budget - static_cast<int64_t>(tracker.done());
      if (left <= 0) break;
      want = std::min<size_t>(want, static_cast<size_t>(left));
    }
    std::vector<uint64_t> proposal = strategy->propose(want);
    if (proposal.empty()) break;

    std::vector<Measurement> outcome(proposal.size());
    std::vector<bool> ready(proposal.size(), false);
    std::vector<Candidate> to_run;
    std::vector<size_t> to_run_slot;
    std::vector<Measurement> fresh;
    for (size_t i = 0; i < proposal.size(); ++i) {
      auto cached = stored.find(proposal[i]);
      if (cached != stored.end() && (!options.force || measured_now.count(proposal[i]))) {
        outcome[i] = cached->second;
        ready[i] = true;
        ++record.reused;
        tracker.add(outcome[i], false);
        continue;
      }
      if (stop && *stop) break;
      Variant variant = problem.variant(proposal[i]);
      CompiledKernel kernel = compiler.compile(compile_request(problem, variant, arch));
      record.compile_s += kernel.compile_ms / 1e3;
      if (!kernel.ok) {
        outcome[i] = compile_failure(variant, kernel);
        ready[i] = true;
        fresh.push_back(outcome[i]);
        continue;
      }
      to_run.push_back({std::move(variant), std::move(kernel)});
      to_run_slot.push_back(i);
    }
    if (!to_run.empty()) {
      auto run_start = Clock::now();
      std::vector<Measurement> measured = runner.run(to_run);
      record.time_s += seconds_since(run_start);
      for (size_t j = 0; j < measured.size(); ++j) {
        outcome[to_run_slot[j]] = measured[j];
        ready[to_run_slot[j]] = true;
        fresh.push_back(measured[j]);
      }
    }
    for (auto& m : fresh) {
      tracker.add(m, true);
      stored[m.config_index] = m;
      measured_now.insert(m.config_index);
    }
    store.commit(result.workload, fresh);
    record.evaluated += static_cast<int64_t>(fresh.size());

    std::vector<Measurement> observed;
    for (size_t i = 0; i < proposal.size(); ++i) {
      if (ready[i]) observed.push_back(outcome[i]);
    }
    strategy->observe(observed);
    result.evaluated.insert(result.evaluated.end(), observed.begin(), observed.end());
    tracker.report();
  }

  record.interrupted = stop && *stop;
  record.wall_s = seconds_since(start);
  store.record_search(result.workload, record);
  return result;
}

}  // namespace gputune
