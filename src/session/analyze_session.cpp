#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/counter_source.h"
#include "compile/output_checker.h"
#include "core/text.h"
#include "gputune/analysis.h"
#include "gputune/error.h"
#include "gputune/session.h"
#include "process/gpu_list.h"
#include "profile/analysis_outcome.h"
#include "profile/config_assignments.h"
#include "profile/variant_counters.h"
#include "run/cuda_driver.h"
#include "run/runner.h"
#include "search/matching_workloads.h"
#include "search/report.h"
#include "search/search.h"
#include "session/search_parts.h"
#include "space/problem.h"
#include "spec/spec_catalog.h"
#include "spec/spec_loader.h"
#include "store/store.h"

namespace gputune {
namespace {

// The variant a request names: --best (the workload's best on the GPU), --config, else the
// baseline.
uint64_t requested_index(const AnalyzeRequest& request, const Problem& problem,
                         const std::vector<WorkloadSummary>& workloads,
                         const WorkloadSummary* workload, const std::optional<DeviceInfo>& gpu,
                         const std::string& db) {
  if (request.best) {
    if (workload == nullptr || !workload->best) {
      std::string elsewhere;
      for (const WorkloadSummary& w : workloads) {
        if (&w != workload && w.best)
          elsewhere += (elsewhere.empty() ? "" : ", ") + w.key.device.name;
      }
      throw Error(ErrorCode::kUsage,
                  "--best: " + db + " has no measured variant of " + problem.spec().path +
                      " at these problem values" + (gpu ? " on " + gpu->name : "") +
                      (elsewhere.empty() ? "" : " (only on " + elsewhere + ")") +
                      "; run gputune search first, or give --config or --baseline");
    }
    return workload->best->config_index;
  }
  if (!request.config.empty()) return config_index_of(problem, request.config);
  return problem.baseline_index();
}

// --stored: what the database holds, read-only; nothing runs.
AnalysisOutcome stored_counters(const AnalyzeRequest& request, const Problem& problem,
                                const std::string& db) {
  if (!std::filesystem::exists(db)) {
    throw Error(ErrorCode::kIo, db + ": no such database (give the --db a search wrote)");
  }
  const auto store = open_sqlite_store(db, true);
  const auto workloads = workloads_measured_as(*store, problem.spec(), problem.problem_json());
  const WorkloadSummary* workload = workload_on(workloads, std::nullopt);
  if (workload == nullptr) {
    throw Error(ErrorCode::kUsage, "--stored: nothing stored for " + report_title(problem) +
                                       " in " + db + ": " +
                                       why_nothing_measured(db, problem.spec()));
  }
  const uint64_t index = requested_index(request, problem, workloads, workload, std::nullopt, db);
  return stored_analysis(db, workload->id, index, problem.spec());
}

}  // namespace

AnalysisOutcome analyze(const AnalyzeRequest& request) {
  if (request.spec.empty()) {
    throw Error(ErrorCode::kUsage, "a SPEC is required (a file or a shipped name)");
  }
  const std::string spec_path = resolve_spec(request.spec);
  Problem problem(load_spec(spec_path, request.overrides));
  const std::string db = request.db.value_or("gputune.db");
  if (request.stored) return stored_counters(request, problem, db);
  std::unique_ptr<Store> store = open_sqlite_store(db);
  const auto workloads = workloads_measured_as(*store, problem.spec(), problem.problem_json());
  const std::optional<DeviceInfo> gpu = listed_gpu(request.device);
  const WorkloadSummary* workload = workload_on(workloads, gpu);
  const uint64_t index = requested_index(request, problem, workloads, workload, gpu, db);

  AnalysisOutcome outcome;
  outcome.warnings = problem.spec().warnings;
  outcome.config = problem.space().json(index);
  CounterResult result;
  if (request.profiler == "cupti") {
    SearchRequest settings;
    settings.device = request.device;
    auto compiler = search_parts::make_compile_pool(settings);
    auto runner =
        make_process_runner(problem, {request.device}, search_parts::timing_options(settings),
                            *compiler, search_parts::watchdog_options(settings));
    result = profile_variant_in_worker(*runner, *compiler, problem, index, request.timeout_s);
  } else if (request.profiler == "ncu") {
    auto source = make_ncu_counter_source(request.ncu);
    result = profile_variant(*source, problem, spec_path, request.overrides, index,
                             {request.ncu, request.self, request.device, request.timeout_s});
  } else {
    throw Error(ErrorCode::kUsage, "--profiler " + request.profiler + ": expected ncu or cupti");
  }
  outcome.profile_s = result.wall_s;
  if (!result.ok) {
    outcome.message = "no counters for " + problem.space().describe(index) + ": " + result.message;
    return outcome;
  }
  record_profile(problem, index, result.counters, result.source, result.wall_s, *store, workload,
                 &outcome);
  return outcome;
}

}  // namespace gputune
