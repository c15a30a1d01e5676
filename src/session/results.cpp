#include "gputune/results.h"

#include <nlohmann/json.hpp>

#include "gputune/json_text.h"
#include "search/report.h"

namespace gputune {

ResultReport::ResultReport(std::shared_ptr<const Report> report) : report_(std::move(report)) {}

std::string ResultReport::table(size_t top) const {
  return report_ ? format_table(*report_, top) : std::string();
}

std::string ResultReport::json(size_t top) const {
  return report_ ? format_json(*report_, top) : std::string("{}");
}

std::string ResultReport::compiler_warnings() const {
  return report_ ? format_warnings(*report_) : std::string();
}

double WorkloadInfo::speedup() const {
  if (!best || !baseline || baseline->status != Status::kOk) return 0;
  return baseline->median_ms() / best->median_ms();
}

std::string measurement_record(const Measurement& m) { return json_text(measurement_json(m)); }

std::string workload_record(const WorkloadInfo& w) {
  nlohmann::json out = {{"workload", w.id},
                        {"spec", w.spec_path},
                        {"spec_hash", w.spec_hash},
                        {"source_hash", w.source_hash},
                        {"kernel", w.kernel_name},
                        {"problem", nlohmann::json::parse(w.problem_json)},
                        {"device",
                         {{"name", w.device.name},
                          {"arch", w.device.arch()},
                          {"sm_count", w.device.sm_count},
                          {"driver", w.device.driver_version}}},
                        {"nvrtc_version", w.nvrtc_version},
                        {"attempts", w.attempts},
                        {"ok", w.ok},
                        {"created_at", w.created_at},
                        {"baseline_index", w.baseline_index}};
  if (w.best) out["best"] = measurement_json(*w.best);
  if (w.baseline) out["baseline"] = measurement_json(*w.baseline);
  if (w.speedup() > 0) out["speedup"] = w.speedup();
  return json_text(out);
}

}  // namespace gputune
