#pragma once
// The recording format: a workload's measurements as text, for replaying searches without a
// GPU. `# key: value` metadata lines, then a CSV header and one row per variant (RFC 4180
// quoting; samples separated by ';'). The columns are the fields of measurement_fields() that
// recordings hold, with the samples' median before the samples.
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

#include "gputune/device.h"
#include "gputune/measurement.h"
#include "store/store.h"

namespace gputune {

// Where a recording came from: enough to rebuild its Problem and to say what it measured.
struct RecordingInfo {
  std::string spec_path;  // relative to the repository root
  std::string spec_hash, source_hash;
  // spec/measurement_hash.h: what the spec must still match to replay (empty in recordings
  // made before it was written: the spec hash must match then).
  std::string measurement_hash;
  std::string kernel_name;
  std::string problem_json;  // {"n":8192}
  DeviceInfo device;
  std::string nvrtc_version;
  uint64_t baseline_index = 0;
  double copy_bandwidth_gbs = 0;  // 0 when unknown
  std::string recorded_at;        // UTC, ISO 8601
  std::string commit;             // of gputune, when known
  std::string origin = "gpu";     // "gpu", or "synthetic" for generated test data
};

// The measured variants of one workload, and the hardware counters of those profiled. The
// counters follow the rows as a section of their own, `# counters` and a CSV of
// config_index,source,profile_s,metric,value (one row per metric); a recording without it is
// one without counters.
struct Recording {
  RecordingInfo info;
  std::vector<Measurement> measurements;        // latest attempt per config, by config index
  std::map<uint64_t, StoredCounters> counters;  // latest profile per config, by config index
};

// The workload's measurements and key. `repo_root` (where the shipped specs' folder lies;
// empty: keep the stored path) makes the spec path relative when the spec lies inside it. Throws
// Error(kUsage) for an unknown workload.
Recording recording_from_store(const Store& store, int64_t workload, const std::string& repo_root);

// Throws Error(kIo).
void write_recording(const Recording& recording, const std::string& path);
void export_recording(const Store& store, int64_t workload, const std::string& path,
                      const std::string& commit, const std::string& repo_root);
// "<spec>_<problem>_<gpu>.csv", in letters, digits and '_': where a workload's recording goes.
std::string recording_file_name(const WorkloadKey& key);

// Throws Error(kIo) for a file that cannot be read or is not a recording, with file:line.
// Columns may come in any order; a field whose column is absent keeps its `missing` value.
// Numbers are checked: samples positive and finite, no negative times or counts, device fields
// within what a GPU has. Whether the configs belong to the space is the replay's to check
// (check_recording_configs).
Recording load_recording(const std::string& path);
// The same from a stream; `path` names it in errors.
Recording read_recording(std::istream& in, const std::string& path);

}  // namespace gputune
