#include "analysis/bottleneck_report.h"

#include <cstdio>
#include <sstream>

#include "analysis/remedies.h"
#include "core/text.h"

namespace gputune {
namespace {

std::string pct(double fraction_or_pct, bool is_fraction = true) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%",
                is_fraction ? fraction_or_pct * 100 : fraction_or_pct);
  return buffer;
}

std::string number(double value, const char* pattern = "%.3g") {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

std::string mark(bool fired) { return fired ? "  <- bottleneck" : ""; }

}  // namespace

std::string format_bottleneck_report(const BottleneckAnalysis& a, const Spec& spec) {
  return format_bottleneck_report(a, knobs_for(spec, a.remedies));
}

std::string format_bottleneck_report(const BottleneckAnalysis& a, const RemedyKnobs& knobs) {
  std::ostringstream out;
  out << "1. Global memory" << mark(a.step == BottleneckStep::kGlobalMemory) << "\n"
      << "   occupancy: achieved " << pct(a.achieved_occupancy) << ", theoretical "
      << pct(a.theoretical_occupancy) << " (limited by " << a.occupancy_limiter << "), required "
      << pct(a.required_occupancy) << "\n"
      << "   required = (Nm/Ni) * T / W = " << number(a.memory_per_instruction) << " * "
      << number(a.latency_cycles, "%.0f") << " / " << number(a.warps_per_sm, "%.0f") << "\n"
      << "   throughput of peak: DRAM " << pct(a.dram_pct, false) << ", memory system "
      << pct(a.memory_pct, false) << ", L1 " << pct(a.l1_pct, false) << ", L2 "
      << pct(a.l2_pct, false) << "\n";
  if (a.dram_gbs > 0) {
    out << "   DRAM " << number(a.dram_gbs, "%.0f") << " GB/s";
    if (a.copy_gbs > 0) {
      out << ", " << pct(a.copy_pct, false) << " of the measured copy bandwidth ("
          << number(a.copy_gbs, "%.0f") << " GB/s)";
    }
    out << "\n";
  }
  out << "2. Shared memory" << mark(a.step == BottleneckStep::kSharedMemory) << "\n"
      << "   bank conflicts per request: " << number(a.conflicts_per_request, "%.2f") << " ("
      << number(a.shared_requests, "%.4g") << " requests)\n"
      << "3. Execution dependency" << mark(a.step == BottleneckStep::kExecutionDependency) << "\n"
      << "   eligible warps per cycle: " << number(a.eligible_warps, "%.2f")
      << ", dependency stalls: " << pct(a.dependency_share) << "\n"
      << "   top stalls:";
  for (size_t i = 0; i < a.stall_shares.size() && i < 5; ++i) {
    out << (i ? ", " : " ") << a.stall_shares[i].first << " " << pct(a.stall_shares[i].second);
  }
  out << "\n4. Instructions" << mark(a.step == BottleneckStep::kInstructions) << "\n"
      << "   issue slots busy: " << pct(a.issue_active_pct, false) << "; pipes:";
  for (size_t i = 0; i < a.pipe_utilisation.size() && i < 4; ++i) {
    out << (i ? ", " : " ") << a.pipe_utilisation[i].first << " "
        << pct(a.pipe_utilisation[i].second, false);
  }
  out << "\n   branches: " << pct(a.branch_uniform_pct, false) << " uniform, "
      << number(a.divergent_branches, "%.0f") << " divergent targets\n";
  out << "Verdict (" << step_name(a.step) << "): " << a.verdict << "\n";
  if (knobs.empty()) {
    std::vector<std::string> wanted;
    for (Remedy r : a.remedies) wanted.push_back(remedy_name(r));
    out << "No parameter of this space is annotated as a remedy for it (" << join(wanted)
        << "); see remedies: in docs/bottleneck.md.\n";
  }
  for (const auto& [remedy, remedy_knobs] : knobs) {
    out << "  " << remedy_description(remedy) << ": " << describe_remedy_knobs(remedy_knobs)
        << "\n";
  }
  if (!a.missing.empty()) {
    out << "Missing counters (read as 0): " << join(a.missing) << "\n";
  }
  return out.str();
}

}  // namespace gputune
