#pragma once
// `gputune analyze`: why a variant is slow, from hardware counters of one launch, by the
// bottleneck method (docs/bottleneck.md). For the CLI and Python alike.
#include <cstdint>
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
  // Where the time goes, for plots: each stall reason's share of all stalls, largest first;
  // throughputs as % of peak: "DRAM", "memory system", "issue slots", "pipe <busiest>".
  std::vector<std::pair<std::string, double>> stall_shares;
  std::vector<std::pair<std::string, double>> throughput_pct;
  double profile_s = 0;
  bool stored = false;  // the counters went to (or came from) the database
  std::string source;   // "ncu"
};

// What a counter is: ncu's base unit ("%", "ns", "inst", ...; "" for plain numbers) and the
// step of the method that reads it ("global memory", "shared memory", "execution dependency",
// "instructions"; "" for the rest).
struct CounterMeaning {
  std::string unit;
  std::string step;
};
CounterMeaning counter_meaning(const std::string& metric);

// Profiles one variant in a separate program under ncu and classifies it; stores the counters
// with the workload's measurement of that config when the database has the workload. Throws
// Error for misuse (an unknown parameter in `config`, --best with nothing stored).
AnalysisOutcome analyze(const AnalyzeRequest& request);

// The counters stored for config `config_index` of a stored workload (by `gputune analyze`, the
// bottleneck strategy, or a replay of a recording that carries counters), classified as
// `gputune analyze` does, without a GPU. `spec` names the knobs of the verdict; without it the
// workload's spec file is read when it is still the one measured. With none stored, `profiled`
// is false and `message` gives the command that takes them. Throws Error for an unknown
// workload or a config index the workload never measured.
AnalysisOutcome stored_analysis(const std::string& db, int64_t workload, uint64_t config_index,
                                const std::optional<Spec>& spec = std::nullopt);

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
