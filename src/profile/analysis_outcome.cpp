#include "profile/analysis_outcome.h"

#include <iomanip>
#include <sstream>

#include "analysis/bottleneck.h"
#include "analysis/bottleneck_report.h"
#include "analysis/remedies.h"

namespace gputune {

namespace {

std::string fixed(double value, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << value;
  return out.str();
}

}  // namespace

std::string key_number(const BottleneckAnalysis& a) {
  switch (a.step) {
    case BottleneckStep::kGlobalMemory:
      if (a.at_copy_limit) {
        return "DRAM " + fixed(a.dram_gbs, 0) + " GB/s, " + fixed(a.copy_pct, 1) + "% of copy";
      }
      return a.bandwidth_bound ? "DRAM " + fixed(a.dram_pct, 1) + "% of peak"
                               : "occupancy " + fixed(100 * a.achieved_occupancy, 1) + "% < " +
                                     fixed(100 * a.required_occupancy, 1) + "% required";
    case BottleneckStep::kSharedMemory:
      return fixed(a.conflicts_per_request, 2) + " bank conflicts per request";
    case BottleneckStep::kExecutionDependency:
      return fixed(a.eligible_warps, 2) + " eligible warps, " + fixed(100 * a.dependency_share, 0) +
             "% dependency stalls";
    case BottleneckStep::kInstructions:
      if (!a.pipe_utilisation.empty() && a.pipe_utilisation.front().second > a.issue_active_pct) {
        return "pipe " + a.pipe_utilisation.front().first + " " +
               fixed(a.pipe_utilisation.front().second, 1) + "% busy";
      }
      return "issue slots " + fixed(a.issue_active_pct, 1) + "% busy";
    case BottleneckStep::kLatency:
      break;
  }
  if (a.stall_shares.empty()) return "";
  return "stall " + a.stall_shares.front().first + " " +
         fixed(100 * a.stall_shares.front().second, 0) + "%";
}

void classify_into(const Spec& spec, const std::string& heading,
                   const std::map<std::string, double>& counters, double copy_bandwidth_gbs,
                   AnalysisOutcome* outcome) {
  const Diagnosis diagnosis = diagnose(spec, counters, copy_bandwidth_gbs);
  const BottleneckAnalysis& analysis = diagnosis.analysis;
  outcome->profiled = true;
  outcome->counters = counters;
  outcome->step = step_name(analysis.step);
  outcome->verdict = analysis.verdict;
  outcome->knobs.clear();
  for (const auto& [remedy, knobs] : diagnosis.knobs) {
    outcome->knobs.emplace_back(remedy_name(remedy), knob_names(knobs));
  }
  outcome->stall_shares = analysis.stall_shares;
  outcome->throughput_pct = {{"DRAM", analysis.dram_pct},
                             {"memory system", analysis.memory_pct},
                             {"issue slots", analysis.issue_active_pct}};
  if (!analysis.pipe_utilisation.empty()) {
    outcome->throughput_pct.emplace_back("pipe " + analysis.pipe_utilisation.front().first,
                                         analysis.pipe_utilisation.front().second);
  }
  outcome->key_number = key_number(analysis);
  outcome->report = heading + "\n" + format_bottleneck_report(analysis, diagnosis.knobs);
}

void record_profile(const Problem& problem, uint64_t index, const KernelCounters& counters,
                    const std::string& source, double cost_s, Store& store,
                    const WorkloadSummary* workload, AnalysisOutcome* outcome) {
  outcome->source = source;
  outcome->profile_s = cost_s;
  const double copy_gbs =
      workload != nullptr ? store.copy_bandwidth(workload->key.device).value_or(0) : 0;
  classify_into(problem.spec(),
                "Variant " + problem.space().describe(index) + " (" + counters.kernel + ")",
                counters.values, copy_gbs, outcome);
  if (workload == nullptr) return;
  StoredCounters stored;
  stored.source = source;
  stored.wall_s = cost_s;
  stored.values = outcome->counters;
  store.store_counters(workload->id, index, problem.space().json(index), stored);
  outcome->stored = true;
}

}  // namespace gputune
