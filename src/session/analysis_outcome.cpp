#include "session/analysis_outcome.h"

#include "analysis/bottleneck.h"
#include "analysis/bottleneck_report.h"
#include "analysis/remedies.h"

namespace gputune {

void classify_into(const Spec& spec, const std::string& heading,
                   const std::map<std::string, double>& counters, AnalysisOutcome* outcome) {
  const BottleneckAnalysis analysis = classify_bottleneck(counters);
  outcome->profiled = true;
  outcome->counters = counters;
  outcome->step = step_name(analysis.step);
  outcome->verdict = analysis.verdict;
  outcome->knobs.clear();
  for (const auto& [remedy, knobs] : knobs_for(spec, analysis.remedies)) {
    outcome->knobs.emplace_back(remedy_name(remedy), knobs);
  }
  outcome->stall_shares = analysis.stall_shares;
  outcome->throughput_pct = {{"DRAM", analysis.dram_pct},
                             {"memory system", analysis.memory_pct},
                             {"issue slots", analysis.issue_active_pct}};
  if (!analysis.pipe_utilisation.empty()) {
    outcome->throughput_pct.emplace_back("pipe " + analysis.pipe_utilisation.front().first,
                                         analysis.pipe_utilisation.front().second);
  }
  outcome->report = heading + "\n" + format_bottleneck_report(analysis, spec);
}

}  // namespace gputune
