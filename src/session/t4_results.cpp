// T4, the results format shared by autotuners (schema: odgaard/TuningSchema results-schema.json,
// version 1.0.0): one entry per stored attempt, times in milliseconds as Kernel Tuner writes them.
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
  const WorkloadInfo& w = stored.summary;
  nlohmann::json problem = nlohmann::json::object();
  if (const auto values = problem_from_json(w.problem_json)) {
    for (const auto& [name, value] : *values) problem[name] = value;
  }
  // Not a member of the T4 schema (which allows others): a file read on its own says which
  // kernel, problem and GPU its results are of.
  const nlohmann::json about = {{"kernel", w.kernel_name},
                                {"spec", w.spec_path},
                                {"spec_hash", w.spec_hash},
                                {"source_hash", w.source_hash},
                                {"problem", problem},
                                {"gpu",
                                 {{"name", w.device.name},
                                  {"compute_capability", std::to_string(w.device.cc_major) + "." +
                                                             std::to_string(w.device.cc_minor)},
                                  {"sm_count", w.device.sm_count}}},
                                {"toolchain", w.nvrtc_version}};
  nlohmann::json document = {
      {"schema_version", "1.0.0"}, {"workload", about}, {"results", results}};
  return json_text(document, 2) + "\n";
}

}  // namespace gputune
