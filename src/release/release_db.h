#pragma once
// A release database in memory, row for row the tables of docs/release-format.md. Positions in
// the vectors are the rows' ids minus one; the builder sorts every vector before it numbers
// them, so that the same inputs give the same file.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gputune {

constexpr int kReleaseFormat = 1;
// 'GTRE': what `PRAGMA application_id` says of a release database.
constexpr int32_t kReleaseApplicationId = 0x47545245;

struct ReleaseKernel {
  std::string name, source_hash, space_hash;
  std::string spec_json;
};

struct ReleaseDevice {
  std::string name;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::string toolchain;  // NVRTC version of the results
};

struct ReleaseConfig {
  int64_t kernel_id = 0;
  std::string config_json;
  bool is_baseline = false;
};

struct ReleaseChoice {
  int64_t kernel_id = 0, device_id = 0;
  std::string problem_json;
  int rank = 0;
  int64_t config_id = 0;
  double median_ms = 0, spread = 0;
  std::optional<double> speedup_over_baseline, margin_to_runner_up;
  int registers = 0, shared_bytes = 0;
  std::string provenance;
};

struct ReleaseObservation {
  int64_t kernel_id = 0, device_id = 0;
  std::string problem_json, config_json;
  double median_ms = 0;
};

struct ReleaseCode {
  int64_t config_id = 0;
  std::string target;  // "sm_90" (cubin) or "compute_90" (PTX)
  std::string kind;    // "cubin" or "ptx"
  // The lowered kernel name; a multi-launch variant's lowered names, space-separated, in the
  // order its launches first use them.
  std::string entry;
  std::string image;
  std::optional<int> registers, shared_bytes;
};

struct Release {
  std::map<std::string, std::string> meta;
  std::vector<ReleaseKernel> kernels;
  std::vector<ReleaseDevice> devices;
  std::vector<ReleaseConfig> configs;
  std::vector<ReleaseChoice> choices;
  std::vector<ReleaseObservation> observations;
  std::vector<ReleaseCode> code;
};

// Writes `release` to a new file at `path` (which must not exist). Throws Error(kDb / kIo).
void write_release_db(const Release& release, const std::string& path);
// Reads a release database back. Throws Error(kDb) naming the file for one that is not a
// gputune release database or has a newer format.
Release read_release_db(const std::string& path);

}  // namespace gputune
