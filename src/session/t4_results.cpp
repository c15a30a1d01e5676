// T4, the results format shared by autotuners (schema: odgaard/TuningSchema results-schema.json,
// version 1.0.0): one entry per stored attempt, times in milliseconds as Kernel Tuner writes them.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/config_codec.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/session.h"

namespace gputune {
namespace {

// T4's invalidity names. A config over the device's limits is Kernel Tuner's InvalidConfig,
// which it writes as "constraints".
const char* invalidity_of(Status status) {
  switch (status) {
    case Status::kOk:
      return "correct";
    case Status::kCompileError:
      return "compile";
    case Status::kResourceExceeded:
      return "constraints";
    case Status::kRuntimeError:
      return "runtime";
    case Status::kTimeout:
      return "timeout";
    case Status::kWrongAnswer:
      return "correctness";
  }
  return "runtime";
}

nlohmann::json t4_entry(const AttemptInfo& attempt) {
  const Measurement& m = attempt.measurement;
  nlohmann::json entry;
  entry["timestamp"] = attempt.created_at;
  nlohmann::json configuration = nlohmann::json::object();
  if (const auto config = config_from_json(m.config)) {
    for (const auto& [name, value] : *config) configuration[name] = value;
  }
  entry["configuration"] = configuration;
  entry["objectives"] = {"time"};
  entry["times"] = {
      {"compilation_time", m.compile_ms}, {"validation", m.check_ms}, {"runtimes", m.samples_ms}};
  entry["invalidity"] = invalidity_of(m.status);
  entry["correctness"] = m.status == Status::kOk ? 1 : 0;
  nlohmann::json measurements = nlohmann::json::array();
  if (m.status == Status::kOk && !m.samples_ms.empty()) {
    measurements.push_back({{"name", "time"}, {"value", m.median_ms()}, {"unit", "ms"}});
  }
  if (m.registers > 0) {
    measurements.push_back({{"name", "registers"}, {"value", m.registers}, {"unit", ""}});
  }
  if (m.shared_bytes > 0) {
    measurements.push_back({{"name", "shared_bytes"}, {"value", m.shared_bytes}, {"unit", "B"}});
  }
  entry["measurements"] = measurements;
  return entry;
}

}  // namespace

std::string t4_results(const std::string& db, int64_t workload) {
  const StoredWorkload stored = load_stored(db, workload);
  nlohmann::json results = nlohmann::json::array();
  for (const AttemptInfo& attempt : stored.history) results.push_back(t4_entry(attempt));
  nlohmann::json document = {{"schema_version", "1.0.0"}, {"results", results}};
  return json_text(document, 2) + "\n";
}

std::vector<std::pair<std::string, WorkloadInfo>> export_t4(const std::string& db,
                                                            const std::string& folder,
                                                            std::optional<int64_t> workload) {
  std::vector<std::pair<std::string, WorkloadInfo>> written;
  const std::vector<WorkloadInfo> stored = stored_workloads(db);
  std::filesystem::create_directories(folder);
  for (const WorkloadInfo& w : stored) {
    if (workload && w.id != *workload) continue;
    const std::string path =
        (std::filesystem::path(folder) / ("workload-" + std::to_string(w.id) + ".t4.json"))
            .string();
    std::ofstream out(path);
    out << t4_results(db, w.id);
    if (!out) throw Error(ErrorCode::kIo, path + ": cannot write the T4 results");
    written.emplace_back(path, w);
  }
  return written;
}

}  // namespace gputune
