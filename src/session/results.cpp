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

}  // namespace gputune
