#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/counter_source.h"
#include "compile/output_checker.h"
#include "core/text.h"
#include "gputune/analysis.h"
#include "gputune/error.h"
#include "run/cuda_driver.h"
#include "run/runner.h"
#include "search/search.h"
#include "session/analysis_outcome.h"
#include "session/variant_counters.h"
#include "space/problem.h"
#include "spec/spec_catalog.h"
#include "spec/spec_loader.h"
#include "store/store.h"

namespace gputune {
namespace {

// "TILE=32,PAD=1" on top of the baseline.
uint64_t config_index_of(const Problem& problem, const std::string& assignments) {
  const SearchSpace& space = problem.space();
  std::vector<size_t> digits = space.decode(problem.baseline_index());
  std::vector<std::string> names;
  for (const auto& d : space.dimensions()) names.push_back(d.name);
  std::stringstream in(assignments);
  for (std::string item; std::getline(in, item, ',');) {
    item = trim(item);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      throw Error(
          ErrorCode::kUsage,
          "--config '" + item + "' is not NAME=VALUE; expected e.g. --config TILE=32,PAD=1");
    }
    const std::string name = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    const int dim = space.dimension_index(name);
    if (dim < 0) {
      throw Error(ErrorCode::kUsage, "--config names '" + name + "', not a parameter of " +
                                         problem.spec().path + suggestion(name, names) +
                                         "; expected one of: " + join(names));
    }
    const auto& values = space.dimensions()[dim].values;
    std::vector<std::string> texts;
    size_t found = values.size();
    for (size_t i = 0; i < values.size(); ++i) {
      texts.push_back(values[i].text());
      if (values[i].text() == value) found = i;
    }
    if (found == values.size()) {
      throw Error(ErrorCode::kUsage,
                  "--config " + name + "=" + value +
                      " is not among its values; expected one of: " + join(texts));
    }
    digits[dim] = found;
  }
  const uint64_t index = space.encode(digits);
  if (!space.valid(index)) {
    throw Error(ErrorCode::kUsage, "--config gives " + space.describe(index) +
                                       ", which a constraint or device limit of the space rules "
                                       "out; pick values the constraints allow");
  }
  return index;
}

}  // namespace

AnalysisOutcome analyze(const AnalyzeRequest& request) {
  if (request.spec.empty()) {
    throw Error(ErrorCode::kUsage, "a SPEC is required (a file or a shipped name)");
  }
  const std::string spec_path = resolve_spec(request.spec);
  Problem problem(load_spec(spec_path, request.overrides));
  const std::string db = request.db.value_or("gputune.db");
  std::unique_ptr<Store> store = open_sqlite_store(db);
  const auto workloads = store->workloads(problem.spec().spec_hash(), problem.problem_json());
  const WorkloadSummary* workload = workloads.empty() ? nullptr : &workloads.front();

  uint64_t index = problem.baseline_index();
  if (request.best) {
    if (workload == nullptr || !workload->best) {
      throw Error(ErrorCode::kUsage, "--best: " + db + " has no measured variant of " + spec_path +
                                         " at these problem values; run gputune "
                                         "search first, or give --config or --baseline");
    }
    index = workload->best->config_index;
  } else if (!request.config.empty()) {
    index = config_index_of(problem, request.config);
  }

  AnalysisOutcome outcome;
  outcome.config = problem.space().json(index);
  auto source = make_ncu_counter_source(request.ncu);
  const CounterResult result =
      profile_variant(*source, problem, spec_path, request.overrides, index,
                      {request.ncu, request.self, request.device, request.timeout_s});
  outcome.profile_s = result.wall_s;
  if (!result.ok) {
    outcome.message = "no counters for " + problem.space().describe(index) + ": " + result.message;
    return outcome;
  }
  outcome.source = result.source;
  classify_into(problem.spec(),
                "Variant " + problem.space().describe(index) + " (" + result.counters.kernel + ")",
                result.counters.values, &outcome);
  if (workload != nullptr) {
    StoredCounters stored;
    stored.source = result.source;
    stored.wall_s = result.wall_s;
    stored.values = outcome.counters;
    store->store_counters(workload->id, index, outcome.config, stored);
    outcome.stored = true;
  }
  return outcome;
}

void profile_launch(const ProfileLaunchRequest& request) {
  Problem problem(load_spec(resolve_spec(request.spec), request.overrides));
  const SearchSpace& space = problem.space();
  uint64_t index = problem.baseline_index();
  bool found = false;
  for (uint64_t i = 0; i < space.size() && !found; ++i) {
    if (space.json(i) == request.config_json) {
      index = i;
      found = true;
    }
  }
  if (!found) {
    throw Error(ErrorCode::kUsage, "profile-launch: --config-json " + request.config_json +
                                       " is no config of " + request.spec);
  }
  // In this process, not a forked child: under ncu a forked child sees no GPU.
  const std::string arch = cuda::query_device(request.device).arch();
  std::unique_ptr<Compiler> compiler = make_nvrtc_compiler();
  TimingOptions timing;
  timing.warmup_ms = 0;
  timing.min_samples = 1;
  timing.max_samples = 1;
  timing.max_seconds = 0.01;
  timing.flush_l2 = false;
  auto runner = make_gpu_runner(problem, request.device, timing,
                                compile_output_checkers(problem.spec(), *compiler, arch));
  const Variant variant = problem.variant(index);
  Candidate candidate{variant, compiler->compile(compile_request(problem, variant, arch))};
  if (!candidate.kernel.ok) {
    throw Error(ErrorCode::kNvrtc, "profile-launch: " + space.describe(index) +
                                       " does not compile:\n" + candidate.kernel.log);
  }
  runner->set_reference(candidate);
}

}  // namespace gputune
