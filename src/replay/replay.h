#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "gputune/device.h"
#include "gputune/measurement.h"
#include "run/runner.h"
#include "space/problem.h"
#include "store/store.h"

namespace gputune {

// Where a recording came from: enough to rebuild its Problem and to say what it measured.
struct RecordingInfo {
  std::string spec_path;  // relative to the repository root
  std::string spec_hash, source_hash;
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

// The measured variants of one workload.
struct Recording {
  RecordingInfo info;
  std::vector<Measurement> measurements;  // latest attempt per config, by config index
};

// The workload's measurements and key. `repo_root` (empty: the source tree gputune was built
// from) makes the spec path relative when the spec lies inside it. Throws Error(kUsage) for
// an unknown workload.
Recording recording_from_store(const Store& store, int64_t workload,
                               const std::string& repo_root = "");

// A recording as text: `# key: value` metadata lines, then a CSV header and one row per
// variant (RFC 4180 quoting; samples separated by ';'). Throws Error(kIo).
void write_recording(const Recording& recording, const std::string& path);
void export_recording(const Store& store, int64_t workload, const std::string& path,
                      const std::string& commit = "", const std::string& repo_root = "");
// "<spec>_<problem>_<gpu>.csv", in letters, digits and '_': where a workload's recording goes.
std::string recording_file_name(const WorkloadKey& key);

// Throws Error(kIo) for a file that cannot be read or is not a recording, with file:line.
Recording load_recording(const std::string& path);

// The recording's spec at its problem values: `repo_root`/spec_path with the problem values as
// --set overrides. Throws Error(kUsage) when the spec's hash differs from the recorded one
// (the space may have changed), unless `allow_changed_spec`.
Problem recording_problem(const Recording& recording, const std::string& repo_root = "",
                          bool allow_changed_spec = false);

// A Runner that answers from a recording instead of a GPU: recorded statuses (compile errors
// included), samples, compile times and resources. A config that was not recorded is
// kRuntimeError "not in the recording".
std::unique_ptr<Runner> make_replay_runner(Recording recording);
std::unique_ptr<Runner> make_replay_runner(const Store& store, int64_t workload);

// A Compiler for replay: every request succeeds at no cost, because the replay runner reports
// the recorded compile failures itself.
std::unique_ptr<Compiler> make_replay_compiler();

}  // namespace gputune
