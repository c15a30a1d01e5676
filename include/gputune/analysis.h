#pragma once
// `gputune analyze`: why a variant is slow, from hardware counters of one launch, by the
// bottleneck method (docs/bottleneck.md). For the CLI and Python alike.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/session.h"

namespace gputune {

struct AnalyzeRequest {
  std::string spec;               // a YAML file or a shipped spec's name
  ProblemOverrides overrides;     // --set
  std::optional<std::string> db;  // unset: gputune.db
  std::string config;             // "TILE=32,PAD=1": the rest from the baseline
  bool best = false;              // the workload's best stored variant
  int device = 0;
  double timeout_s = 120;  // the watchdog of the profiled launch
  std::string ncu;         // ncu's path; empty: $GPUTUNE_NCU, PATH, $CUDA_HOME/bin
  std::string self;        // this program, which ncu runs as `self profile-launch ...`
};

struct AnalysisOutcome {
  bool profiled = false;  // false: `message` says why (no ncu, no permission, a timeout)
  std::string message;
  std::string config;  // {"TILE":32,"PAD":1}
  std::string report;  // the four steps with their numbers, the verdict and the knobs
  std::string step;    // "global memory", "shared memory", ...
  std::string verdict;
  std::vector<std::pair<std::string, std::vector<std::string>>> knobs;  // remedy -> knobs
  std::map<std::string, double> counters;  // metric -> value in base units
  double profile_s = 0;
  bool stored = false;  // the counters went to the database (a workload of it was found)
};

// Profiles one variant in a separate program under ncu and classifies it; stores the counters
// with the workload's measurement of that config when the database has the workload. Throws
// Error for misuse (an unknown parameter in `config`, --best with nothing stored).
AnalysisOutcome analyze(const AnalyzeRequest& request);

// What ncu runs: compiles (or takes from the module cache) one variant, sets up its inputs as a
// search does, launches it and exits. `config_json` as AnalysisOutcome::config.
struct ProfileLaunchRequest {
  std::string spec;
  ProblemOverrides overrides;
  std::string config_json;
  int device = 0;
};
void profile_launch(const ProfileLaunchRequest& request);

}  // namespace gputune
