#pragma once
// Reads result databases (read-only) into workloads keyed as a release keys them: kernel
// identity, device identity with the toolchain, and problem point.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "release/keep_rule.h"

namespace gputune {

struct KernelIdentity {
  std::string name, source_hash, space_hash;
  auto tie() const { return std::tie(name, source_hash, space_hash); }
  bool operator<(const KernelIdentity& o) const { return tie() < o.tie(); }
};

struct DeviceIdentity {
  std::string name;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::string toolchain;
  auto tie() const { return std::tie(name, cc_major, cc_minor, sm_count, toolchain); }
  bool operator<(const DeviceIdentity& o) const { return tie() < o.tie(); }
};

struct MeasuredWorkload {
  KernelIdentity kernel;
  DeviceIdentity device;
  std::string problem_json;  // canonical
  // Every config with an ok, timed latest attempt, by canonical config JSON. Where several
  // databases measured a config, the lower median wins.
  std::map<std::string, MeasuredConfig> configs;
};

struct MeasuredKernel {
  std::string spec_text;  // as stored
  std::string spec_path;  // as stored by the first database that has the kernel
  std::string database;   // that database
};

struct MeasuredResults {
  std::map<KernelIdentity, MeasuredKernel> kernels;
  std::vector<MeasuredWorkload> workloads;  // sorted by kernel, device, problem text
  std::vector<std::pair<std::string, std::string>> sources;  // database path, content hash
};

// `kernels`: only those kernel names (empty: every kernel). Throws Error(kIo) for a missing
// database and Error(kDb) for one that is not a gputune database or has a newer schema.
MeasuredResults read_measured_results(const std::vector<std::string>& databases,
                                      const std::vector<std::string>& kernels);

}  // namespace gputune
