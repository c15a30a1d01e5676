#pragma once
// One release database (docs/release-format.md), opened read-only and immutable. The small
// tables are read whole when it opens; observations and code only when a lookup needs them.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "gputune/runtime.h"

struct sqlite3;

namespace gputune::runtime {

constexpr int kReleaseApplicationId = 0x47545245;  // 'GTRE'
constexpr int kReleaseFormat = 1;

struct ReleaseKernel {
  int64_t id = 0;
  std::string name, source_hash, space_hash, spec_json;
};

struct ReleaseDevice {
  int64_t id = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::string toolchain;
};

struct ReleaseConfig {
  int64_t id = 0;
  int64_t kernel_id = 0;
  std::string config_json;
  bool is_baseline = false;
};

struct ReleaseChoice {
  int64_t kernel_id = 0, device_id = 0;
  std::string problem_json;
  ProblemValues problem;
  int rank = 0;
  int64_t config_id = 0;
  double median_ms = 0;
  int registers = 0, shared_bytes = 0;
};

struct ReleaseOverride {
  std::string kernel, device_name, problem_json, config_json;
};

struct ReleaseObservation {
  int64_t device_id = 0;
  ProblemValues problem;
  std::string config_json;
  double median_ms = 0;
};

struct ReleaseCode {
  std::string target, kind, entry, image;
};

class ReleaseFile {
 public:
  // Throws RuntimeError whose message is the cause: "not found", "not a gputune release
  // database", "newer schema", "truncated or corrupt".
  static std::unique_ptr<ReleaseFile> open(const std::string& path);
  ~ReleaseFile();

  const std::string& path() const { return path_; }
  const std::vector<ReleaseKernel>& kernels() const { return kernels_; }
  const std::map<int64_t, ReleaseDevice>& devices() const { return devices_; }
  const std::map<int64_t, ReleaseConfig>& configs() const { return configs_; }
  const std::vector<ReleaseChoice>& choices() const { return choices_; }  // by kernel, device
  const std::vector<ReleaseOverride>& overrides() const { return overrides_; }

  std::vector<ReleaseObservation> observations(int64_t kernel_id) const;
  bool has_code(int64_t config_id) const;
  // Every embedded image of the config; empty when none.
  std::vector<ReleaseCode> code(int64_t config_id) const;

 private:
  ReleaseFile() = default;
  void read_tables();

  std::string path_;
  sqlite3* db_ = nullptr;
  mutable std::mutex mutex_;  // the connection, for the lazy reads
  std::vector<ReleaseKernel> kernels_;
  std::map<int64_t, ReleaseDevice> devices_;
  std::map<int64_t, ReleaseConfig> configs_;
  std::vector<ReleaseChoice> choices_;
  std::vector<ReleaseOverride> overrides_;
  std::set<std::string> tables_;
};

// {"m":4096,...} -> values; throws RuntimeError for anything but an object of numbers.
ProblemValues parse_problem_json(const std::string& text);

}  // namespace gputune::runtime
