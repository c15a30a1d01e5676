#include "search/search.h"

#include <filesystem>
#include <limits>

#include "compile/compiler_log.h"
#include "gputune/error.h"
#include "search/async_adapters.h"
#include "search/evaluation_pipeline.h"
#include "search/final_remeasure.h"
#include "search/matching_workloads.h"
#include "search/progress_tracker.h"
#include "search/pruned_space.h"
#include "search/search_accounting.h"
#include "search/search_budget.h"
#include "search/stored_results.h"
#include "search/strategy_context.h"
#include "strategy/first_configs.h"
#include "strategy/shard_filter.h"

namespace gputune {

WorkloadKey workload_key(const Problem& problem, const DeviceInfo& device,
                         const std::string& toolchain) {
  const Spec& spec = problem.spec();
  WorkloadKey key;
  key.spec_hash = spec.spec_hash();
  key.source_hash = spec.source_hash();
  key.spec_path = spec.path;
  key.spec_text = spec.text;
  key.kernel_name = spec.kernel_name.text;
  key.problem_json = problem.problem_json();
  key.device = device;
  key.nvrtc_version = toolchain;
  return key;
}

namespace {

// Routes the GPU workers' phases to the search while it runs, and no longer after.
class PhaseListenerScope {
 public:
  PhaseListenerScope(AsyncRunner& gpus, PhaseListener listener) : gpus_(gpus) {
    previous_ = gpus_.set_phase_listener(std::move(listener));
  }
  ~PhaseListenerScope() { gpus_.set_phase_listener(std::move(previous_)); }
  PhaseListenerScope(const PhaseListenerScope&) = delete;
  PhaseListenerScope& operator=(const PhaseListenerScope&) = delete;

 private:
  AsyncRunner& gpus_;
  PhaseListener previous_;
};

// Finds or creates the workload this search stores its results under.
int64_t open_workload(const Problem& problem, const DeviceInfo& device, Store& store) {
  const int64_t workload = workload_measured_as(store, problem, device, nvrtc_version());
  store.set_baseline(workload, problem.baseline_index());
  return workload;
}

// The device's copy bandwidth, measured once per device and stored.
double copy_bandwidth(Runner& runner, Store& store) {
  if (auto stored = store.copy_bandwidth(runner.device())) return *stored;
  const double measured = runner.measure_copy_bandwidth();
  store.set_copy_bandwidth(runner.device(), measured);
  return measured;
}

SearchRecord begin_record(const Spec& spec, const SearchOptions& options, const AsyncRunner& gpus,
                          const CompileService& compiles) {
  SearchRecord record;
  record.strategy = options.strategy.empty() ? spec.search.strategy : options.strategy;
  record.seed = options.seed.value_or(spec.search.seed);
  record.jobs = static_cast<int64_t>(compiles.parallelism());
  record.gpus = static_cast<int64_t>(gpus.devices().size());
  return record;
}

// The baseline always runs: its outputs are the reference every variant is checked against.
// It counts as an evaluation where it is in the space and not stored yet (or forced).
Measurement run_baseline(const Problem& problem, const std::string& arch, CompileService& compiles,
                         Runner& runner, const SearchOptions& options, Store& store,
                         int64_t workload, StoredResults& stored, SearchRecord& record) {
  const uint64_t index = problem.baseline_index();
  Variant variant = problem.variant(index);
  CompiledKernel kernel = compile_now(compiles, compile_request(problem, variant, arch));
  if (!kernel.ok) {
    throw Error(ErrorCode::kSpec, problem.spec().baseline_where.message(
                                      "the baseline does not compile, so nothing can be "
                                      "checked against it: " +
                                      first_error_line(kernel.log) + "\n" + kernel.log));
  }
  account_compilation(record, kernel);
  std::string warnings = compiler_warnings(kernel.log);
  Measurement baseline = runner.set_reference({std::move(variant), std::move(kernel), RaceLimit{}});
  if (options.strict && baseline.status == Status::kOk && !baseline.message.empty()) {
    throw Error(ErrorCode::kSpec, baseline.message + " (an error with --strict)");
  }
  baseline.compiler_warnings = std::move(warnings);
  account_measurement(record, baseline);
  if (problem.space().valid(index) && (options.force || !stored.contains(index))) {
    store.commit(workload, {baseline});
    stored.add_measured(baseline);
    ++record.evaluated;
  }
  return baseline;
}

}  // namespace

CompileRequest compile_request(const Problem& problem, const Variant& variant,
                               const std::string& arch) {
  CompileRequest request;
  request.source_name = std::filesystem::path(problem.spec().kernel_path).filename().string();
  // #line keeps compiler messages pointing at the user's file, whatever the prelude adds.
  // The engine's rewrite where the variant has one, else the kernel file as written (so the
  // module cache's keys of specs without engine knobs stay as they were).
  request.source = variant.prelude + "\n#line 1 \"" + request.source_name + "\"\n" +
                   (variant.source.empty() ? problem.spec().kernel_source : variant.source);
  request.refusal = variant.refusal;
  request.kernel_name_expressions = variant.kernel_name_expressions;
  request.options = variant.compile_options;
  request.headers_hash = problem.spec().headers_hash;
  request.arch = arch;
  return request;
}

SearchResult run_search(const Problem& problem, Runner& runner, Compiler& compiler, Store& store,
                        const SearchOptions& options, const ProgressCallback& progress,
                        const std::atomic<bool>* stop) {
  const Spec& spec = problem.spec();
  const auto start = SearchClock::now();
  SearchResult result;
  result.device = runner.device();
  const std::string arch = result.device.arch();

  SerialCompiles serial_compiles(compiler);
  auto* compile_service = dynamic_cast<CompileService*>(&compiler);
  CompileService& compiles = compile_service != nullptr ? *compile_service : serial_compiles;
  BatchRuns batch_runs(runner, options.batch);
  auto* async_runner = dynamic_cast<AsyncRunner*>(&runner);
  AsyncRunner& gpu = async_runner != nullptr ? *async_runner : batch_runs;

  result.workload = open_workload(problem, result.device, store);
  result.copy_bandwidth_gbs = copy_bandwidth(runner, store);
  SearchRecord& record = result.record;
  record = begin_record(spec, options, gpu, compiles);
  const SearchBudget budget(options.budget_evaluations.value_or(spec.search.budget_evaluations),
                            options.budget_seconds.value_or(spec.search.budget_seconds), start);
  if (!options.shard.whole() && record.strategy != "brute_force") {
    throw Error(ErrorCode::kUsage,
                "--shard " + options.shard.text() +
                    ": shards split a brute-force search by "
                    "config index, and strategy " +
                    record.strategy +
                    " decides from what it measured; use --strategy brute_force, or shard the "
                    "campaign's workloads instead (gputune plan)");
  }
  auto strategy = restrict_to_shard(
      proposing_first_configs(make_strategy(record.strategy, record.seed)), options.shard);

  ProgressTracker tracker(budget.total(problem.space()), progress);
  // A GPU worker started again mid-search fills its inputs anew: that shows as its phase.
  PhaseListenerScope worker_phases(gpu,
                                   [&tracker](SearchPhase phase) { tracker.set_phase(phase); });
  // A full-sampling search measures in full what racing cut short before.
  const std::vector<Measurement> measured = store.measured(result.workload);
  // The workload's key holds the spec's hash, so its rows are configs of this space; one beyond
  // it is a damaged or hand-made database, which would end the search after it ran.
  for (const Measurement& m : measured) {
    if (m.config_index >= problem.space().size()) {
      throw Error(ErrorCode::kDb, "the database holds config " + std::to_string(m.config_index) +
                                      " for this workload, outside its space of " +
                                      std::to_string(problem.space().size()) +
                                      " configs: it is damaged; search into another --db");
    }
  }
  StoredResults stored(measured, options.force, options.racing.enabled);
  // Recorded now, as unfinished (interrupted, no wall time), so that a killed search leaves its
  // row; its figures are written when it ends.
  SearchRecord started = record;
  started.interrupted = true;
  started.wall_s = std::numeric_limits<double>::quiet_NaN();
  const int64_t search_id = store.record_search(result.workload, started);
  tracker.set_phase(SearchPhase::kBaseline);
  result.baseline = run_baseline(problem, arch, compiles, runner, options, store, result.workload,
                                 stored, record);

  StrategyContext full = strategy_context(problem, store, result.workload, runner.device().sm_count,
                                          options.use_prior, budget);
  full.profiler = options.profiler;
  PrunedSpace pruned = prune_space(problem, full, options, record.seed);
  result.pruning = pruned.result;
  const SearchSpace& space = pruned.space ? *pruned.space : problem.space();
  StrategyContext context = with_space(std::move(full), space);
  // Every strategy starts from the rules' pick (in the pruned space: its nearest valid config).
  result.rule_pick = rule_pick(problem);
  if (result.rule_pick) {
    const uint64_t first = space.nearest_valid(result.rule_pick->config_index);
    if (first < space.size()) context.first_configs = {first};
  }
  if (budget.limited()) context.planned_evaluations = budget.total(space);
  tracker.set_total(budget.total(space));
  strategy->start(context);
  tracker.set_phase(SearchPhase::kCompiling);

  const bool pipelined = async_runner != nullptr || compiles.parallelism() > 1;
  const size_t depth = pipeline_depth(options.pipeline, options.batch, pipelined,
                                      compiles.parallelism(), gpu.idle());
  EvaluationPipeline pipeline(
      {problem, arch, compiles, gpu, *strategy, store, result.workload, options.racing}, stored,
      budget, options.batch, depth, tracker, record);
  // Only GPUs timing now have an idle share; a replay's or a test's runner has none.
  const auto measuring_start = SearchClock::now();
  if (gpu.times_gpus()) begin_measuring(record);
  result.evaluated = pipeline.run(stop);

  record.interrupted = stop && *stop;
  if (options.racing.enabled && !record.interrupted) {
    result.final_measurements = remeasure_top(problem, arch, compiles, runner, options.racing,
                                              stored, store, result.workload, record);
  }
  // The final rounds are measuring too: their GPU time is in gpu_busy_s.
  if (gpu.times_gpus()) record.measuring_s = seconds_since(measuring_start);
  const WorkerStats stats = gpu.stats();
  record.worker_restarts = stats.restarts;
  // The ranks of an MPI search compile what they measure: theirs are the compilers that count.
  if (stats.compile_jobs > 0) {
    record.jobs = stats.compile_jobs;
    record.compile_s = stats.compile_s;
  }
  record.wall_s = seconds_since(start);
  store.update_search(search_id, record);
  return result;
}

}  // namespace gputune
