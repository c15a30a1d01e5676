#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "cluster/launcher.h"
#include "compile/compiler.h"
#include "compile/compiler_log.h"
#include "compile/reference_kernel.h"
#include "core/shard.h"
#include "gputune/argument_mismatch.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/session.h"
#include "process/compile_pool.h"
#include "process/gpu_list.h"
#include "process/process_runner.h"
#include "profile/variant_profilers.h"
#include "replay/replay.h"
#include "run/runner.h"
#include "search/matching_workloads.h"
#include "search/report.h"
#include "search/search.h"
#include "session/mpi_search.h"
#include "session/problem_info.h"
#include "session/recording_root.h"
#include "session/search_parts.h"
#include "session/writable_store.h"
#include "space/problem.h"
#include "space/signature_check.h"
#include "spec/spec_catalog.h"
#include "spec/spec_loader.h"
#include "store/store.h"
#include "strategy/strategy.h"

namespace gputune {

namespace search_parts {

SearchOptions search_options(const SearchRequest& request) {
  SearchOptions search;
  if (!request.strategy.empty()) {
    search.strategy = request.strategy;
    make_strategy(search.strategy, 0);  // an unknown name fails before the GPU is touched
  }
  if (!request.budget.empty()) {
    int64_t evaluations = 0;
    double seconds = 0;
    if (request.budget != "none" && !parse_budget(request.budget, &evaluations, &seconds)) {
      throw Error(ErrorCode::kUsage, "--budget " + request.budget +
                                         ": expected a number of evaluations (100), a time "
                                         "(90s, 10m, 2h) or none");
    }
    search.budget_evaluations = evaluations;
    search.budget_seconds = seconds;
  }
  if (request.sampling != "race" && request.sampling != "full") {
    throw Error(ErrorCode::kUsage, "--sampling " + request.sampling +
                                       ": expected race (the default: stop timing variants that "
                                       "cannot win) or full (time every variant in full)");
  }
  // A shard cannot race: its cuts and final rounds would follow its own best, not the
  // campaign's, and its merged rows would differ from one search's.
  search.racing.enabled = request.sampling == "race" && request.shard.empty();
  search.seed = request.seed;
  search.force = request.force;
  search.strict = request.strict;
  search.use_prior = request.use_prior;
  search.prune = request.prune;
  if (!(request.prune_above > 1)) {
    throw Error(ErrorCode::kUsage, "--prune-above " + Value(request.prune_above).text() +
                                       ": expected a factor above 1 (1.5: prune configs "
                                       "predicted more than 1.5 times slower than the best)");
  }
  search.pruning.above = request.prune_above;
  if (!request.shard.empty()) search.shard = parse_shard(request.shard, "--shard");
  return search;
}

// --devices all | local | 0,1,... | (empty) device
std::vector<int> device_ordinals(const SearchRequest& request) {
  if (request.devices.empty()) return {request.device};
  const std::string& text = request.devices;
  std::vector<int> ordinals;
  if (text == "all" || text == "local") {
    for (const DeviceInfo& gpu : list_gpus()) ordinals.push_back(gpu.ordinal);
    if (ordinals.empty()) {
      throw Error(ErrorCode::kNoGpu, "--devices " + text +
                                         ": no GPU found. Measuring needs an NVIDIA GPU "
                                         "and its driver; use --compile-only to check that the "
                                         "variants compile without one.");
    }
    if (text == "all") return ordinals;
    const std::optional<LocalRank> local = local_rank_from_environment();
    if (!local) {
      throw Error(ErrorCode::kUsage,
                  "--devices local: no launcher said which rank on this host this process is "
                  "(OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID or SLURM_LOCALID); start it "
                  "with mpirun or srun and --mpi, or name the GPUs with --devices 0,1");
    }
    return local_share(ordinals, *local);
  }
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) {
      throw Error(ErrorCode::kUsage,
                  "--devices " + text + ": expected 'all' or GPU ordinals such as 0,1");
    }
    const int ordinal = std::stoi(item);
    if (std::find(ordinals.begin(), ordinals.end(), ordinal) == ordinals.end()) {
      ordinals.push_back(ordinal);
    }
  }
  if (ordinals.empty()) throw Error(ErrorCode::kUsage, "--devices: no GPU given");
  return ordinals;
}

std::unique_ptr<CompilePool> make_compile_pool(const SearchRequest& request) {
  std::shared_ptr<ModuleCache> cache;
  if (request.use_cache) {
    cache = std::make_shared<ModuleCache>(
        request.cache_dir.empty() ? ModuleCache::default_directory() : request.cache_dir);
  }
  if (cache) return std::make_unique<CompilePool>(request.jobs, make_nvrtc_compiler, cache);
  // NVRTC (CUDA 12.9 and later) keeps cubins in the driver's compute cache where a driver is
  // loaded: a compile it has seen before takes milliseconds. --no-cache means every variant
  // compiles, so each compile worker turns that cache off for itself.
  return std::make_unique<CompilePool>(request.jobs, [] {
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    return make_nvrtc_compiler();
  });
}

TimingOptions timing_options(const SearchRequest& request) {
  TimingOptions timing;
  timing.flush_l2 = !request.warm_cache;
  if (request.fast) {
    timing.warmup_ms = 5;
    timing.min_samples = 5;
    timing.max_samples = 100;
    timing.max_seconds = 0.1;
  }
  if (request.max_seconds || !request.fast) timing.max_seconds = request.max_seconds.value_or(1.0);
  return timing;
}

WatchdogOptions watchdog_options(const SearchRequest& request) {
  WatchdogOptions watchdog;
  watchdog.floor_s = request.timeout_floor_s;
  watchdog.factor = request.timeout_factor;
  if (watchdog.floor_s <= 0 || watchdog.factor <= 0) {
    throw Error(ErrorCode::kUsage, "--timeout-floor and --timeout-factor must be positive");
  }
  return watchdog;
}

// The spec a request names; with a replay, a name that is no spec is a misuse of --replay.
Spec named_spec(const SearchRequest& request) {
  if (request.inline_spec) return *request.inline_spec;
  if (!request.replay.empty()) {
    try {
      return load_spec(resolve_spec(request.spec), request.overrides);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kIo) throw;
      throw Error(ErrorCode::kUsage, std::string(e.what()) + "; with --replay, give the spec " +
                                         "the replay source was measured with, or none");
    }
  }
  return load_spec(resolve_spec(request.spec), request.overrides);
}

// The spec a request names, with the check it asks for (--check, --atol, --rtol).
Spec requested_spec(const SearchRequest& request) {
  Spec spec = named_spec(request);
  override_check(spec, request.check);
  return spec;
}

// A recording of another spec text still replays when every recorded config has the same index
// in this problem's space (e.g. only comments or input data changed).
void check_recording_matches(const Recording& recording, const Problem& problem,
                             const std::string& path) {
  const Spec& spec = problem.spec();
  if (recording.info.problem_json != problem.problem_json()) {
    throw Error(ErrorCode::kUsage, path + ": recorded at " + recording.info.problem_json +
                                       ", not at " + problem.problem_json() +
                                       "; expected the same problem values (--set)");
  }
  if (recording.info.spec_hash == spec.spec_hash() &&
      recording.info.source_hash == spec.source_hash()) {
    return;
  }
  const SearchSpace& space = problem.space();
  for (const Measurement& m : recording.measurements) {
    if (m.config_index >= space.size() || space.json(m.config_index) != m.config) {
      throw Error(ErrorCode::kUsage, path + ": recorded for another spec or kernel, and config " +
                                         std::to_string(m.config_index) + " (" + m.config +
                                         ") is not that config in this space; expected a " +
                                         "recording of " + report_title(problem));
    }
  }
}

Replay open_replay(const SearchRequest& request) {
  const std::string& path = request.replay;
  const bool has_spec = request.inline_spec || !request.spec.empty();
  Replay replay;
  if (replay_source_kind(path) == ReplaySource::kDatabase) {
    if (!has_spec) {
      throw Error(ErrorCode::kUsage, path +
                                         ": a database holds many workloads; give the SPEC "
                                         "(and --set) of the one to replay");
    }
    replay.problem = std::make_unique<Problem>(requested_spec(request));
    const Spec& spec = replay.problem->spec();
    auto store = open_sqlite_store(path, true);
    for (const WorkloadSummary& w :
         workloads_measured_as(*store, spec, replay.problem->problem_json())) {
      replay.runner = make_replay_runner(*store, w.id);
      replay.counters = store->all_counters(w.id);
      return replay;
    }
    throw Error(ErrorCode::kUsage, path + ": no workload of " + report_title(*replay.problem) +
                                       " (same spec and kernel source) to replay");
  }
  if (!has_spec && !request.check.empty()) {
    throw Error(ErrorCode::kUsage, request.check.text() +
                                       " with --replay of a recording: the recording's check "
                                       "holds; give its SPEC to replay under another check");
  }
  if (!has_spec && !request.overrides.empty()) {
    throw Error(ErrorCode::kUsage,
                "--replay takes the spec and problem values from the "
                "recording: give no SPEC or --set");
  }
  Recording recording = load_recording(path);
  if (has_spec) {
    replay.problem = std::make_unique<Problem>(requested_spec(request));
    check_recording_matches(recording, *replay.problem, path);
  } else {
    recording.info.spec_path = recording_spec_file(path, recording);
    replay.problem = std::make_unique<Problem>(
        recording_problem(recording, "", false, request.replay_unverified).spec());
  }
  check_recording_configs(recording, *replay.problem, path);
  replay.counters = std::move(recording.counters);
  replay.runner = make_replay_runner(std::move(recording));
  return replay;
}

// The source's counters of every variant the replay measured, with the measurement they
// explain, as a search that profiled them would have left them; a variant that already has
// counters in this database keeps them.
void store_replayed_counters(const Problem& problem,
                             const std::map<uint64_t, StoredCounters>& counters, int64_t workload,
                             Store& store) {
  if (counters.empty() || workload == 0) return;
  for (const Measurement& m : store.measured(workload)) {
    const auto found = counters.find(m.config_index);
    if (found == counters.end() || store.counters(workload, m.config_index)) continue;
    store.store_counters(workload, m.config_index, problem.space().json(m.config_index),
                         found->second);
  }
}

SearchOutcome compile_everything(const Problem& problem, Compiler& compiler,
                                 const SearchRequest& request, const ProgressCallback& progress,
                                 const std::atomic<bool>* stop) {
  if (!request.strategy.empty() && request.strategy != "brute_force") {
    throw Error(ErrorCode::kUsage,
                "--strategy " + request.strategy +
                    " with --compile-only: compile-only compiles in the space's order "
                    "(brute_force), since strategies choose from measurements; give --budget N "
                    "to compile the first N valid variants");
  }
  const SearchOptions options = search_options(request);  // --budget checked as for a search
  if (options.budget_seconds.value_or(0) > 0) {
    throw Error(ErrorCode::kUsage, "--budget " + request.budget +
                                       " with --compile-only: expected a number of variants "
                                       "to compile (100) or none");
  }
  // The spec's own budget of evaluations (a T1 file's ConfigurationCount) holds where no
  // --budget is given; a time budget is no number of variants to compile.
  const int64_t budget =
      options.budget_evaluations.value_or(problem.spec().search.budget_evaluations);
  // Counted without walking a huge product (issue 27): the walk itself is minutes there.
  const ConfigCount valid = problem.space().count_valid_bounded();
  if (request.budget.empty() && budget == 0 && valid.configs > SearchRequest::kCompileOnlyUnasked) {
    throw Error(ErrorCode::kUsage,
                (valid.estimated ? "about " : "") + std::to_string(valid.configs) +
                    " valid variants: --compile-only compiles every one unless --budget N "
                    "limits it to the first N; give --budget N, or --budget none to compile "
                    "all of them");
  }
  SearchOutcome outcome;
  outcome.compile_only = true;
  outcome.arch = request.arch;
  compile_reference_kernel(problem, compiler, request.arch);  // an error where it does not compile
  outcome.planned =
      budget > 0 ? std::min(valid.configs, static_cast<uint64_t>(budget)) : valid.configs;
  outcome.planned_estimated = valid.estimated;
  outcome.compiled = compile_all(problem, compiler, request.arch, progress, stop,
                                 static_cast<uint64_t>(std::max<int64_t>(budget, 0)));
  outcome.interrupted = stop && *stop;
  outcome.nvrtc_version = nvrtc_version();
  return outcome;
}

SearchOutcome search_and_report(const Problem& problem, Runner& runner, Compiler& compiler,
                                Store& store, SearchOptions options, SearchProfiler& profiler,
                                bool replay, const ProgressCallback& progress,
                                const std::atomic<bool>* stop) {
  options.profiler = &profiler;
  SearchResult result = run_search(problem, runner, compiler, store, options, progress, stop);
  // The runner goes on past a failing baseline only where it is not the reference: the spec
  // gives the expected outputs, or a check function judges them.
  std::vector<std::string> baseline_warnings;
  if (result.baseline.status == Status::kOk && !result.baseline.message.empty()) {
    // Arguments it used otherwise than declared (GpuRunner::set_reference).
    baseline_warnings.push_back(result.baseline.message);
  } else if (result.baseline.status != Status::kOk) {
    const std::string& why = result.baseline.message;
    baseline_warnings.push_back(
        "the baseline (" + result.baseline.config + ") is " + status_name(result.baseline.status) +
        ": " + why.substr(0, why.find('\n')) +
        "; it is stored as such, and the search went on with every variant checked against the "
        "expected outputs, not against the baseline");
  }
  auto report = std::make_shared<Report>(
      make_report(report_title(problem), result.device, result.copy_bandwidth_gbs, result.baseline,
                  store.measured(result.workload), metrics_of(problem)));
  report->search = result.record;
  report->pruned = problem.pruned();
  if (!result.pruning.pruned.empty()) {
    report->pruned.push_back({prune_reason(result.pruning), result.pruning.pruned.size()});
  }
  report->prior_pruning = result.pruning;
  if (result.rule_pick) {
    report->rule_pick_config = problem.space().json(result.rule_pick->config_index);
    for (const RuleChoice& choice : result.rule_pick->choices) {
      report->rule_pick.emplace_back(choice.knob, choice.value.text() + ": " + choice.rule);
    }
  }
  report->outputs_checked = problem.spec().check_outputs;
  report->check_override = problem.spec().check_override;
  report->rtol = problem.spec().rtol;
  report->atol = problem.spec().atol;
  SearchOutcome outcome;
  outcome.warnings = std::move(baseline_warnings);
  outcome.interrupted = result.record.interrupted;
  outcome.workload = result.workload;
  outcome.device = result.device;
  outcome.copy_bandwidth_gbs = result.copy_bandwidth_gbs;
  outcome.baseline = result.baseline;
  outcome.evaluated = std::move(result.evaluated);
  outcome.report = ResultReport(std::move(report));
  // A replay's wall time is not the recorded search's: its profiling share would mean nothing.
  const bool reported = result.record.strategy == "bottleneck" || options.strategy == "bottleneck";
  outcome.profiling = profiler.summary(replay ? 0 : result.record.wall_s, reported);
  outcome.profiling_reported = reported || profiler.asked() > 0;
  outcome.profiles_asked = profiler.asked();
  outcome.profiles_taken = profiler.profiled();
  outcome.profiling_s = profiler.spent_s();
  if (!replay && result.record.wall_s > 0) {
    outcome.profiling_share = profiler.spent_s() / result.record.wall_s;
  }
  return outcome;
}

std::vector<std::string> with_spec_warnings(const Spec& spec, std::vector<std::string> warnings) {
  warnings.insert(warnings.begin(), spec.warnings.begin(), spec.warnings.end());
  return warnings;
}

}  // namespace search_parts

using namespace search_parts;

ReplaySource replay_source_kind(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  return in && std::memcmp(header, "SQLite format 3", 16) == 0 ? ReplaySource::kDatabase
                                                               : ReplaySource::kRecording;
}

size_t SearchOutcome::compile_failures() const {
  return std::count_if(compiled.begin(), compiled.end(),
                       [](const Measurement& m) { return m.status != Status::kOk; });
}

SearchOutcome search(const SearchRequest& request, const ProgressCallback& progress,
                     const std::atomic<bool>* stop) {
  if (request.profiler != "auto" && request.profiler != "cupti" && request.profiler != "ncu") {
    throw Error(ErrorCode::kUsage, "--profiler " + request.profiler +
                                       ": expected cupti, ncu or auto (CUPTI, else ncu)");
  }
  // Before anything compiles: a typo is one usage error, not one NVRTC error per variant.
  check_architecture(request.arch, "--arch");
  if (request.mpi) return mpi_search(request, progress, stop);
  const SearchOptions options = search_options(request);
  std::vector<std::string> warnings;
  if (!request.replay.empty()) {
    if (request.host_check) {
      warnings.push_back(
          "a replay cannot run the check function: the variants' statuses are those stored "
          "when they were measured (and checked)");
    }
    Replay replay = open_replay(request);
    if (request.replay_real_time) replay.runner = pace_like_recorded(std::move(replay.runner));
    auto compiler = make_replay_compiler();
    const std::string db = request.db.value_or(":memory:");
    auto database = open_writable_store(db, &warnings);
    auto store = keep_answered(*database);
    // The recording's copy bandwidth (a database's, for its device): 0 when it has none.
    auto profiler = make_recorded_profiler(replay.problem->spec(), replay.counters, kProfileStartS,
                                           replay.runner->measure_copy_bandwidth());
    SearchOutcome outcome = search_and_report(*replay.problem, *replay.runner, *compiler, *store,
                                              options, *profiler, true, progress, stop);
    store_replayed_counters(*replay.problem, replay.counters, outcome.workload, *store);
    const auto unanswered =
        std::count_if(outcome.evaluated.begin(), outcome.evaluated.end(), is_unrecorded);
    if (unanswered > 0) {
      warnings.push_back(std::to_string(unanswered) + " of the configs the search chose " +
                         (unanswered == 1 ? "is" : "are") + " not in " + request.replay +
                         "; nothing is stored for them, so a search on a GPU measures them");
    }
    outcome.db = request.db.value_or("");
    outcome.problem = problem_info_of(*replay.problem);
    outcome.spec = replay.problem->spec();
    warnings.insert(warnings.end(), outcome.warnings.begin(), outcome.warnings.end());
    outcome.warnings = with_spec_warnings(outcome.spec, std::move(warnings));
    return outcome;
  }
  if (!request.inline_spec && request.spec.empty()) {
    throw Error(ErrorCode::kUsage, "a SPEC is required (a file or a shipped name)");
  }
  Problem problem(requested_spec(request));
  if (request.host_check && !problem.spec().check_outputs) {
    throw Error(ErrorCode::kUsage,
                problem.spec().path +
                    " says check: none, and a check function was given; expected one of them "
                    "(drop check: none to have the function judge the outputs)");
  }
  if (!problem.baseline_note().empty()) warnings.push_back(problem.baseline_note());
  if (!problem.engine_note().empty()) warnings.push_back(problem.engine_note());
  // Before anything compiles. Python's arrays are their bytes: a wrong element type is an error.
  SignatureRules signature_rules;
  signature_rules.element_types_must_match = request.inline_spec.has_value();
  for (const std::string& warning : check_signatures(problem, signature_rules)) {
    if (request.strict) throw ArgumentMismatch(warning + " (an error with --strict)");
    warnings.push_back(warning);
  }
  // Compilers and GPU workers are forked processes; this one never initialises CUDA.
  auto compiler = make_compile_pool(request);
  SearchOutcome outcome;
  if (request.compile_only) {
    outcome = compile_everything(problem, *compiler, request, progress, stop);
  } else {
    const TimingOptions timing = timing_options(request);
    const WatchdogOptions watchdog = watchdog_options(request);
    const auto announce = [&progress](SearchPhase phase) {
      SearchProgress starting;
      starting.phase = phase;
      if (progress) progress(starting);
    };
    announce(SearchPhase::kStarting);
    const std::vector<int> devices = device_ordinals(request);
    auto runner = make_process_runner(problem, devices, timing, *compiler, watchdog, announce,
                                      request.host_check);
    const std::string db = request.db.value_or("gputune.db");
    auto store = open_writable_store(db, &warnings);
    NcuLaunch launch;
    launch.device = devices.front();
    launch.timeout_s = 60;
    auto profiler = make_search_profiler(request.profiler, problem, *compiler, *runner, *store,
                                         problem.spec().path, request.overrides, launch);
    outcome = search_and_report(problem, *runner, *compiler, *store, options, *profiler, false,
                                progress, stop);
    outcome.db = db;
    outcome.nvrtc_version = nvrtc_version();
  }
  outcome.problem = problem_info_of(problem);
  outcome.spec = problem.spec();
  warnings.insert(warnings.end(), outcome.warnings.begin(), outcome.warnings.end());
  outcome.warnings = with_spec_warnings(outcome.spec, std::move(warnings));
  return outcome;
}

std::string compile_only_text(const SearchOutcome& outcome, bool json, bool diagnostics) {
  const size_t failed = outcome.compile_failures();
  std::ostringstream out;
  if (json) {
    nlohmann::json failures = nlohmann::json::array();
    nlohmann::json warnings = nlohmann::json::array();
    for (const auto& m : outcome.compiled) {
      if (!m.compiler_warnings.empty()) {
        warnings.push_back({{"index", m.config_index},
                            {"config", nlohmann::json::parse(m.config)},
                            {"compiler_warnings", m.compiler_warnings}});
      }
      if (m.status == Status::kOk) continue;
      failures.push_back({{"index", m.config_index},
                          {"config", nlohmann::json::parse(m.config)},
                          {"error", first_error_line(m.message)},
                          {"log", m.message}});
    }
    nlohmann::json document = {{"spec", outcome.spec.path},
                               {"arch", outcome.arch},
                               {"compiled", outcome.compiled.size()},
                               {"failed", failed},
                               {"failures", failures}};
    if (outcome.interrupted) {
      document["interrupted"] = true;
      document["variants"] = outcome.planned;
      if (outcome.planned_estimated) document["variants_estimated"] = true;
    }
    if (!warnings.empty()) document["warnings"] = warnings;
    if (!outcome.problem.pruned.empty()) document["pruned"] = pruned_json(outcome.problem.pruned);
    out << json_text(document, 2) << "\n";
    return out.str();
  }
  // Variants that fail alike (a macro the spec does not define) get one line, not N: the error
  // once, with how many variants got it and the first of them.
  std::vector<std::pair<std::string, std::vector<const Measurement*>>> errors;
  for (const auto& m : outcome.compiled) {
    if (m.status == Status::kOk) continue;
    const std::string error = diagnostics ? "\n" + m.message : first_error_line(m.message);
    auto same = std::find_if(errors.begin(), errors.end(),
                             [&error](const auto& e) { return e.first == error; });
    if (same == errors.end()) same = errors.insert(errors.end(), {error, {}});
    same->second.push_back(&m);
  }
  for (const auto& [error, variants] : errors) {
    if (variants.size() == 1) {
      out << "compile error: " << config_text(variants.front()->config) << ": " << error << "\n";
    } else {
      out << "compile error, the same in " << variants.size() << " variants (the first "
          << config_text(variants.front()->config) << "): " << error << "\n";
    }
  }
  if (diagnostics) out << format_warnings(outcome.compiled);
  // A cancelled run must not read as a complete one (a CI step stopped by Ctrl-C).
  if (outcome.interrupted) {
    out << "interrupted: " << outcome.compiled.size() << " of "
        << (outcome.planned_estimated ? "about " : "") << outcome.planned
        << " variants compiled for " << outcome.arch << " before the stop, " << failed
        << " failed\n";
    return out.str();
  }
  out << outcome.compiled.size() << " variants compiled for " << outcome.arch << ", " << failed
      << " failed\n"
      << pruned_text(outcome.problem.pruned);
  return out.str();
}

}  // namespace gputune
