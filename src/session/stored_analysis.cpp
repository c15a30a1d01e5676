#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "gputune/analysis.h"
#include "gputune/error.h"
#include "profile/analysis_outcome.h"
#include "search/matching_workloads.h"
#include "space/problem.h"
#include "store/store.h"

namespace gputune {
namespace {

// {"n":8192} as --set's n=8192 pairs.
ProblemOverrides overrides_of(const std::string& problem_json) {
  ProblemOverrides out;
  const nlohmann::json values = nlohmann::json::parse(problem_json, nullptr, false);
  if (!values.is_object()) return out;
  for (const auto& [name, value] : values.items()) out.emplace_back(name, value.dump());
  return out;
}

std::string joined(const ProblemOverrides& pairs, const char* separator) {
  std::string out;
  for (const auto& [name, value] : pairs)
    out += (out.empty() ? "" : separator) + name + "=" + value;
  return out;
}

// {"PAD":0,"TILE":32} as TILE=32 PAD=0 pairs (symbols unquoted).
ProblemOverrides config_pairs(const std::string& config_json) {
  ProblemOverrides out;
  const nlohmann::json config = nlohmann::json::parse(config_json, nullptr, false);
  if (!config.is_object()) return out;
  for (const auto& [name, value] : config.items()) {
    out.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

// The spec that names the knobs: the caller's, else the workload's file while it still measures
// what was measured (it may have gained remedies since).
std::optional<Spec> spec_for(const WorkloadSummary& workload, const std::optional<Spec>& given) {
  if (given) return given;
  try {
    Spec spec = open_spec(workload.key.spec_path, overrides_of(workload.key.problem_json));
    if (measures_as(spec, workload.key)) return spec;
  } catch (const Error&) {
    // Moved or edited since: the report then names no knobs.
  }
  return std::nullopt;
}

std::string how_to_take(const std::string& db, const WorkloadSummary& workload,
                        const std::string& config_json) {
  const ProblemOverrides problem = overrides_of(workload.key.problem_json);
  const ProblemOverrides config = config_pairs(config_json);
  std::string python_config;
  for (const auto& [name, value] : config) {
    python_config +=
        std::string(python_config.empty() ? "" : ", ") + "\"" + name + "\": " +
        (nlohmann::json::parse(value, nullptr, false).is_discarded() ? "\"" + value + "\"" : value);
  }
  return "take them on a GPU with `gputune analyze " + workload.key.spec_path +
         (problem.empty() ? "" : " --set " + joined(problem, ",")) + " --config " +
         joined(config, ",") + " --db " + db + "`, or in Python gputune.analyze(\"" +
         workload.key.spec_path + "\", config={" + python_config + "}, db=\"" + db +
         "\"), or search with --strategy bottleneck";
}

}  // namespace

AnalysisOutcome stored_analysis(const std::string& db, int64_t workload, uint64_t config_index,
                                const std::optional<Spec>& spec) {
  if (!std::filesystem::exists(db)) {
    throw Error(ErrorCode::kIo, db + ": no such database (run gputune search first, or --db)");
  }
  std::unique_ptr<Store> store = open_sqlite_store(db, true);
  std::optional<WorkloadSummary> summary;
  for (const WorkloadSummary& w : store->workloads()) {
    if (w.id == workload) summary = w;
  }
  if (!summary) throw Error(ErrorCode::kUsage, db + ": no workload " + std::to_string(workload));
  std::optional<Measurement> measured;
  for (Measurement& m : store->measured(workload)) {
    if (m.config_index == config_index) measured = std::move(m);
  }
  if (!measured) {
    throw Error(ErrorCode::kUsage,
                db + ": workload " + std::to_string(workload) + " has no measurement of config " +
                    std::to_string(config_index) + "; pick a config the search measured");
  }
  AnalysisOutcome outcome;
  outcome.config = measured->config;
  const std::optional<Spec> knobs_spec = spec_for(*summary, spec);
  std::string described = joined(config_pairs(measured->config), " ");
  if (knobs_spec) {
    const Problem problem(*knobs_spec);  // the spec's order of parameters, as analyze shows
    if (config_index < problem.space().size() &&
        problem.space().json(config_index) == measured->config) {
      described = problem.space().describe(config_index);
    }
  }
  const std::optional<StoredCounters> counters = store->counters(workload, config_index);
  if (!counters) {
    outcome.message = "no counters stored for " + described + " in " + db + "; " +
                      how_to_take(db, *summary, measured->config);
    return outcome;
  }
  outcome.stored = true;
  outcome.source = counters->source;
  outcome.profile_s = counters->wall_s;
  const Spec no_knobs;
  classify_into(knobs_spec ? *knobs_spec : no_knobs,
                "Variant " + described + " (stored " + counters->source + " counters)",
                counters->values, store->copy_bandwidth(summary->key.device).value_or(0), &outcome);
  if (!knobs_spec) {
    outcome.report += "(" + summary->key.spec_path +
                      " is gone or no longer the spec measured, so no knobs are named; give the "
                      "spec to name them)\n";
  }
  return outcome;
}

}  // namespace gputune
