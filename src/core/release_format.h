#pragma once
// A release database (docs/release-format.md): the contract between the builder that writes it
// (src/release/) and the run-time library that reads it (src/runtime/). One row type per table,
// field for column; a table's ids number its rows from 1 in the order the builder sorted them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gputune {

constexpr int kReleaseFormat = 1;  // PRAGMA user_version; a reader refuses a newer one
// 'GTRE': what `PRAGMA application_id` says of a release database.
constexpr int32_t kReleaseApplicationId = 0x47545245;

// The tables, as the builder creates them.
inline constexpr const char* kReleaseSchema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE kernels (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  space_hash TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  UNIQUE (name, source_hash, space_hash));
CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL, cc_major INTEGER NOT NULL, cc_minor INTEGER NOT NULL,
  sm_count INTEGER NOT NULL, toolchain TEXT NOT NULL,
  UNIQUE (name, cc_major, cc_minor, sm_count, toolchain));
CREATE TABLE configs (
  id INTEGER PRIMARY KEY,
  kernel_id INTEGER NOT NULL REFERENCES kernels (id),
  config_json TEXT NOT NULL,
  is_baseline INTEGER NOT NULL,
  UNIQUE (kernel_id, config_json));
CREATE TABLE choices (
  kernel_id INTEGER NOT NULL REFERENCES kernels (id),
  device_id INTEGER NOT NULL REFERENCES devices (id),
  problem_json TEXT NOT NULL,
  rank INTEGER NOT NULL,
  config_id INTEGER NOT NULL REFERENCES configs (id),
  median_ms REAL NOT NULL, spread REAL NOT NULL,
  speedup_over_baseline REAL,
  margin_to_runner_up REAL,
  registers INTEGER NOT NULL, shared_bytes INTEGER NOT NULL,
  provenance TEXT NOT NULL,
  PRIMARY KEY (kernel_id, device_id, problem_json, rank));
CREATE TABLE observations (
  kernel_id INTEGER NOT NULL, device_id INTEGER NOT NULL, problem_json TEXT NOT NULL,
  config_json TEXT NOT NULL, median_ms REAL NOT NULL);
CREATE TABLE code (
  config_id INTEGER NOT NULL REFERENCES configs (id),
  target TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('cubin', 'ptx')),
  entry TEXT NOT NULL,
  image BLOB NOT NULL,
  registers INTEGER, shared_bytes INTEGER,
  PRIMARY KEY (config_id, target));
CREATE TABLE overrides (
  kernel TEXT NOT NULL, device_name TEXT NOT NULL,
  problem_json TEXT NOT NULL,
  config_json TEXT NOT NULL);
)sql";

struct ReleaseKernel {
  int64_t id = 0;
  std::string name, source_hash, space_hash;
  std::string spec_json;
};

struct ReleaseDevice {
  int64_t id = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::string toolchain;  // NVRTC version of the results
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
  int rank = 0;  // 0: the best
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

// Written by users into a layer of their own, never by the builder: '*' matches any device or
// problem.
struct ReleaseOverride {
  std::string kernel, device_name, problem_json, config_json;
};

// A whole release database in memory, as the builder makes it and the dump reads it back.
struct Release {
  std::map<std::string, std::string> meta;
  std::vector<ReleaseKernel> kernels;
  std::vector<ReleaseDevice> devices;
  std::vector<ReleaseConfig> configs;
  std::vector<ReleaseChoice> choices;
  std::vector<ReleaseObservation> observations;
  std::vector<ReleaseCode> code;
};

}  // namespace gputune
