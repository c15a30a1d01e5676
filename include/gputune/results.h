#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/device.h"
#include "gputune/measurement.h"
#include "gputune/value.h"

namespace gputune {

struct Report;  // search/report.h

// A spec at its problem values, as front ends lay out results.
struct DimensionInfo {
  std::string name;
  std::vector<Value> values;
  bool is_transform = false;
};
struct BufferInfo {
  std::string name;
  std::string type;  // "float32", ...
  uint64_t count = 0;
};
// Configs left out before compiling because they break a limit of the device (or of the
// compile target), as a constraint would.
struct PrunedConfigs {
  std::string reason;  // "exceed 1024 threads per block"
  uint64_t configs = 0;
  bool estimated = false;  // from a sample of a product too large to walk
};
struct ProblemInfo {
  std::string title;         // "spaces/transpose.yaml n=8192"
  std::string problem_json;  // {"n":8192}
  std::vector<std::pair<std::string, double>> values;
  std::vector<DimensionInfo> dimensions;
  uint64_t size = 0, variants = 0, baseline_index = 0;
  bool variants_estimated = false;  // from a sample of a product too large to walk
  std::vector<BufferInfo> buffers;
  std::vector<PrunedConfigs> pruned;  // only limits that pruned some config
};

// The report `gputune search` prints: variants fastest first, then the failures.
class ResultReport {
 public:
  ResultReport() = default;
  explicit ResultReport(std::shared_ptr<const Report> report);
  std::string table(size_t top) const;
  // One JSON document; kAllRows lists every correct variant (the records front ends build on).
  std::string json(size_t top) const;
  // Each distinct compiler warning after the variants that got it; "" when none did.
  std::string compiler_warnings() const;
  static constexpr size_t kAllRows = static_cast<size_t>(-1);
  bool empty() const { return !report_; }

 private:
  std::shared_ptr<const Report> report_;
};

// A stored workload (spec, problem values, GPU) and its best variant.
struct WorkloadInfo {
  int64_t id = 0;
  std::string spec_path, spec_hash, source_hash, kernel_name;
  std::string problem_json;  // {"n":8192}
  DeviceInfo device;
  std::string nvrtc_version;
  int64_t attempts = 0, ok = 0;
  std::optional<Measurement> best;
  std::optional<Measurement> baseline;
  uint64_t baseline_index = 0;
  std::string created_at;
  // Baseline median over the best's; 0 when either is missing.
  double speedup() const;
};

// One stored attempt at a variant, oldest first.
struct AttemptInfo {
  int64_t id = 0;
  std::string created_at;  // UTC, ISO 8601
  Measurement measurement;
};

// One Measurement as JSON text, with the fields and names of `gputune search --json`.
std::string measurement_record(const Measurement& m);
// One stored workload as JSON text, the one shape of `gputune show --json`, `gputune best
// --json` and Python's workloads() and best(): workload, spec, spec_hash, source_hash, kernel,
// problem, device (name, arch, sm_count, driver: as in the search's report), nvrtc_version,
// attempts, ok, created_at, baseline_index, and where there are such, best and baseline (records
// as measurement_record writes them) and speedup.
std::string workload_record(const WorkloadInfo& w);
// {"A":1,"B":"x"} -> "A=1 B=x"
std::string config_text(const std::string& config_json);

}  // namespace gputune
