#pragma once
// `gputune analyze`: why a variant is slow, from hardware counters of one launch, by the
// bottleneck method (docs/bottleneck.md). For the CLI and Python alike.
#include <atomic>
#include <cstdint>
#include <functional>
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
  // "ncu": Nsight Compute runs a launcher program; "cupti": CUPTI's range profiler in a GPU
  // worker, as a search profiles (no SASS-patched branch counts).
  std::string profiler = "ncu";
  // Profile nothing: the counters `db` already holds for the variant (stored_analysis), on the
  // first GPU the workload was measured on. No GPU needed.
  bool stored = false;
};

struct AnalysisOutcome {
  bool profiled = false;  // false: `message` says why (no ncu, no permission, a timeout)
  std::string message;
  std::string config;  // {"TILE":32,"PAD":1}
  std::string report;  // the four steps with their numbers, the verdict and the knobs
  std::string step;    // "global memory", "shared memory", ...
  std::string verdict;
  std::string key_number;  // the number that decided the verdict ("15.70 bank conflicts ...")
  std::vector<std::pair<std::string, std::vector<std::string>>> knobs;  // remedy -> knobs
  std::map<std::string, double> counters;  // metric -> value in base units
  // Where the time goes, for plots: each stall reason's share of all stalls, largest first;
  // throughputs as % of peak: "DRAM", "memory system", "issue slots", "pipe <busiest>".
  std::vector<std::pair<std::string, double>> stall_shares;
  std::vector<std::pair<std::string, double>> throughput_pct;
  double profile_s = 0;
  bool stored = false;                // the counters went to (or came from) the database
  std::string source;                 // "ncu"
  std::vector<std::string> warnings;  // as SearchOutcome::warnings (the spec's)
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

// `gputune analyze --all | --top N | --configs FILE`: many variants, compiled first in
// parallel into the module cache, then profiled by one ncu run per batch over one
// `gputune profile-launch` process. The watchdog of a batch of n is timeout_s + n *
// variant_timeout_s.
struct AnalyzeManyRequest {
  AnalyzeRequest base;       // spec, --set, db, device, timeout_s, ncu, self
  bool all = false;          // every measured ok variant of the workload, fastest first
  size_t top = 0;            // the N fastest measured ok variants
  std::string configs_file;  // one NAME=VALUE,... per line (the rest from the baseline)
  size_t batch = 64;         // variants per ncu run
  double variant_timeout_s = 10;
  size_t jobs = 0;  // compile workers; 0: one per hardware thread
  std::string cache_dir;
  bool use_cache = true;
  // Leaves out variants whose counters the database already holds (a run cut short resumes).
  bool unprofiled = false;
};

struct AnalyzeProgress {
  size_t done = 0, total = 0;  // variants settled (profiled or failed) of those asked for
  size_t profiled = 0, failed = 0;
  double elapsed_s = 0;  // since profiling began (compilation before it not counted)
};
using AnalyzeProgressCallback = std::function<void(const AnalyzeProgress&)>;

struct AnalyzeManyOutcome {
  // One per variant asked for, in the order asked (fastest first for --all and --top);
  // `profiled` false with `message` for those without counters.
  std::vector<AnalysisOutcome> variants;
  std::vector<double> median_ms;  // parallel to variants; 0 where the database has none
  size_t profiled = 0, compile_failed = 0, failed = 0, batches = 0;
  size_t already_profiled = 0;          // left out by `unprofiled`
  size_t compile_cached = 0;            // compiled modules found in the module cache
  double compile_s = 0, profile_s = 0;  // wall time of the two phases
  bool interrupted = false;             // stopped early; what was profiled is stored
  std::string unavailable;              // no variant can be profiled: why (no ncu, permission)
  std::vector<std::string> warnings;    // as SearchOutcome::warnings (the spec's)
};

// Throws Error for misuse (no measured workload for --all/--top, a bad --configs line).
AnalyzeManyOutcome analyze_many(const AnalyzeManyRequest& request,
                                const AnalyzeProgressCallback& progress = nullptr,
                                const std::atomic<bool>* stop = nullptr);

// The counters stored for config `config_index` of a stored workload (by `gputune analyze`, the
// bottleneck strategy, or a replay of a recording that carries counters), classified as
// `gputune analyze` does, without a GPU. `spec` names the knobs of the verdict; without it the
// workload's spec file is read when it is still the one measured. With none stored, `profiled`
// is false and `message` gives the command that takes them. Throws Error for an unknown
// workload or a config index the workload never measured.
AnalysisOutcome stored_analysis(const std::string& db, int64_t workload, uint64_t config_index,
                                const std::optional<Spec>& spec = std::nullopt);

// What ncu runs: loads each variant from the module cache (compiling it on a miss), sets up its
// inputs as a search does, launches it and exits. `configs` as AnalysisOutcome::config. With a
// `manifest`, only each variant's checked launches are inside a profiler range (ncu
// --profile-from-start off) and a JSON line per variant, in order, says whether it launched
// (flushed after each); a variant that fails on the GPU ends the program with status 3.
struct ProfileLaunchRequest {
  std::string spec;
  ProblemOverrides overrides;
  std::vector<std::string> configs;
  std::string manifest;   // "": a single variant, profiled from the program's start
  std::string stop_file;  // once it exists, launch no further variant and exit with 0
  std::string cache_dir;  // "": the module cache's default directory
  bool use_cache = true;
  int device = 0;
};
// Returns the exit status: 0, or 3 after a variant failed on the GPU (the rest not launched).
int profile_launch(const ProfileLaunchRequest& request);

}  // namespace gputune
