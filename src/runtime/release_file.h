#pragma once
// One release database (core/release_format.h), opened read-only and immutable. The small
// tables are read whole when it opens; observations and code only when a lookup needs them.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/release_format.h"
#include "gputune/runtime.h"

namespace gputune::sqlite {
class Database;
}

namespace gputune::runtime {

// A choice row with its problem values, parsed once when the file opens.
struct ParsedChoice : ReleaseChoice {
  ProblemValues problem;
};

// An observation row with its problem values parsed.
struct ParsedObservation : ReleaseObservation {
  ProblemValues problem;
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
  const std::vector<ParsedChoice>& choices() const { return choices_; }  // by kernel, device
  const std::vector<ReleaseOverride>& overrides() const { return overrides_; }

  std::vector<ParsedObservation> observations(int64_t kernel_id) const;
  bool has_code(int64_t config_id) const;
  // Every embedded image of the config; empty when none.
  std::vector<ReleaseCode> code(int64_t config_id) const;

 private:
  ReleaseFile() = default;
  void read_tables();

  std::string path_;
  std::unique_ptr<sqlite::Database> db_;
  mutable std::mutex mutex_;  // the connection, for the lazy reads
  std::vector<ReleaseKernel> kernels_;
  std::map<int64_t, ReleaseDevice> devices_;
  std::map<int64_t, ReleaseConfig> configs_;
  std::vector<ParsedChoice> choices_;
  std::vector<ReleaseOverride> overrides_;
  std::set<std::string> tables_;
};

// {"m":4096,...} -> values; throws RuntimeError for anything but an object of numbers.
ProblemValues parse_problem_json(const std::string& text);

}  // namespace gputune::runtime
