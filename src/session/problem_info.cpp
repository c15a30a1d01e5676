#include "session/problem_info.h"

#include "search/report.h"

namespace gputune {

ProblemInfo problem_info_of(const Problem& problem) {
  ProblemInfo info;
  info.title = report_title(problem);
  info.problem_json = problem.problem_json();
  info.values = problem.problem_values();
  for (const Dimension& d : problem.space().dimensions()) {
    info.dimensions.push_back({d.name, d.values, d.is_transform});
  }
  info.size = problem.space().size();
  const ConfigCount variants = problem.space().count_valid_bounded();
  info.variants = variants.configs;
  info.variants_estimated = variants.estimated;
  info.baseline_index = problem.baseline_index();
  for (const BufferShape& b : problem.buffers()) {
    info.buffers.push_back({b.name, type_name(b.type), b.count});
  }
  info.pruned = problem.pruned();
  return info;
}

WorkloadInfo workload_info(const WorkloadSummary& w) {
  WorkloadInfo info;
  info.id = w.id;
  info.spec_path = w.key.spec_path;
  info.spec_hash = w.key.spec_hash;
  info.source_hash = w.key.source_hash;
  info.kernel_name = w.key.kernel_name;
  info.problem_json = w.key.problem_json;
  info.device = w.key.device;
  info.nvrtc_version = w.key.nvrtc_version;
  info.attempts = w.attempts;
  info.ok = w.ok;
  info.best = w.best;
  info.baseline = w.baseline;
  info.baseline_index = w.baseline_index;
  info.created_at = w.created_at;
  return info;
}

}  // namespace gputune
