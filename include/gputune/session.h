#pragma once
// The front ends' one door into gputune: the command line (src/cli) and the Python module
// (python/src/gputune/_core.cpp) build a request, call these functions and present what
// comes back. Everything that assembles the pipeline lives behind them (src/session).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gputune/device.h"
#include "gputune/host_check.h"
#include "gputune/measurement.h"
#include "gputune/progress.h"
#include "gputune/results.h"
#include "gputune/spec.h"

namespace gputune {

using ProblemOverrides = std::vector<std::pair<std::string, std::string>>;  // {"n", "4096"}

// Every option of `gputune search`, with its defaults.
struct SearchRequest {
  std::string spec;                 // a YAML file or a shipped spec's name
  ProblemOverrides overrides;       // --set
  std::optional<Spec> inline_spec;  // a Spec built in memory (Python's tune()); wins over spec
  // A recording (gputune export) or a database to answer from instead of the GPU; see
  // replay_rule() below.
  std::string replay;
  // --check, --atol, --rtol: the spec's check changed for this search (override_check).
  CheckOverride check;
  std::optional<std::string> db;  // unset: gputune.db, or an in-memory database with replay
  std::string strategy;           // empty: the spec's, else brute_force
  // Where --strategy bottleneck's counters come from: "cupti" (CUPTI's range profiler in the
  // GPU worker), "ncu" (Nsight Compute, a program of its own) or "auto" (CUPTI, else ncu).
  std::string profiler = "auto";
  std::string budget;            // "100", "90s", "10m", "none"; empty: the spec's
  std::optional<uint64_t> seed;  // unset: the spec's
  bool force = false;            // measure again what the database already has
  bool use_prior = true;         // learn from the kernel's other workloads in the database
  // With that prior data, leave out the configs a cost model fit on it predicts, with
  // confidence, to be more than `prune_above` times slower than the best (docs/pruning.md).
  bool prune = true;
  double prune_above = 1.5;
  int device = 0;
  std::string devices;    // "all" or "0,1": one worker process each; empty: `device`
  size_t jobs = 0;        // compiler processes; 0: one per hardware thread
  std::string cache_dir;  // empty: ModuleCache's default folder
  bool use_cache = true;
  double timeout_floor_s = 2.0;       // watchdog: seconds beyond the timing budget ...
  double timeout_factor = 50.0;       // ... or this many times the best kernel time, if longer
  bool warm_cache = false;            // no L2 flush between samples
  std::optional<double> max_seconds;  // timing one variant; unset: 1 s, or 0.1 s with fast
  bool fast = false;                  // 5 ms warm-up, 5 to 100 samples, at most 0.1 s per variant
  // "race": stop timing a variant once its samples show it cannot come within the margin of
  // the best so far, then re-measure the top few interleaved (docs/racing.md); "full": time
  // every variant until the stopping rule has enough.
  std::string sampling = "race";
  bool compile_only = false;
  std::string arch = "sm_90";  // with compile_only
  // Compile-only compiles in the space's order (brute force's: no strategy can choose without
  // measurements); `budget` N compiles the first N valid variants. A space of more than
  // kCompileOnlyUnasked variants needs a budget (none: all of them), so that a huge space is
  // not compiled for days by accident.
  static constexpr uint64_t kCompileOnlyUnasked = 100000;
  // Judges each variant's outputs (the baseline's included) in this process, instead of the
  // spec's check and references (Python's tune(check=...)): every checked run's outputs cross
  // from the GPU worker. A replay cannot call it: it answers with the statuses stored when the
  // variants were measured, and says so on stderr.
  HostCheck host_check;
  // "K/N": only the configs whose index is K mod N, brute force only (gputune plan); empty:
  // the whole space.
  std::string shard;
  // Run as one rank of `mpirun -n N gputune search SPEC --mpi`: rank 0 runs the strategy, the
  // cost model and the database; every rank (rank 0 too, in a worker process) compiles and
  // measures on its own GPUs (`devices`). See docs/cluster.md.
  bool mpi = false;
  // With replay: take as long as the recording says compiling and measuring took (benchmarks
  // of the search machinery itself).
  bool replay_real_time = false;
  // With replay: replay a recording that carries no spec or measurement hash, so that nothing
  // shows its rows were measured with this spec (its configs are still checked against the
  // space). Without it such a recording is refused.
  bool replay_unverified = false;
  // Warnings about the spec's arguments are errors (kSpec): a type that differs from the kernel's
  // parameter, an argument the baseline used otherwise than declared.
  bool strict = false;
};

// The replay rule, one for every front end: a replay source is a CSV recording or a gputune
// database. A recording names its spec and problem values: with no spec given they are used,
// and a spec given must be the recording's (same problem values, same configs). A database
// holds many workloads: the spec (and overrides) pick one, so a spec is required.
enum class ReplaySource { kRecording, kDatabase };
ReplaySource replay_source_kind(const std::string& path);

struct SearchOutcome {
  bool compile_only = false;
  bool interrupted = false;
  ProblemInfo problem;
  Spec spec;
  std::string db;  // where the results were stored; empty when nowhere (replay without db)
  // A search:
  int64_t workload = 0;
  DeviceInfo device;
  double copy_bandwidth_gbs = 0;
  Measurement baseline;
  std::vector<Measurement> evaluated;  // in the order they completed, reused ones included
  ResultReport report;                 // every stored variant of the workload
  std::string nvrtc_version;           // empty for a replay
  // What profiling cost and found (--strategy bottleneck, always), or why it found nothing;
  // "" for other strategies.
  std::string profiling;
  // The same in numbers (--json's "profiling"); `profiling_reported` false for other strategies.
  bool profiling_reported = false;
  size_t profiles_asked = 0, profiles_taken = 0;
  double profiling_s = 0;
  double profiling_share = 0;  // of the search's wall time; 0 for a replay
  // compile_only:
  std::string arch;
  std::vector<Measurement> compiled;  // kOk or kCompileError (with the log), per variant
  uint64_t planned = 0;               // the variants it set out to compile (--budget)
  bool planned_estimated = false;     // a space too large to count: `planned` is from a sample
  size_t compile_failures() const;
  // An MPI rank other than 0: it measured for rank 0, which stores and reports everything.
  bool measuring_rank = false;
  // For the user, one sentence each (the spec's, a database on a network file system, ranks
  // lost, ...): the command line prints them on stderr, Python raises them as warnings.
  std::vector<std::string> warnings;
};

// Runs `gputune search`. `progress` is called after each evaluation; the search ends after
// the variants in flight once `stop` becomes true, and what was measured is stored.
SearchOutcome search(const SearchRequest& request, const ProgressCallback& progress = {},
                     const std::atomic<bool>* stop = nullptr);
// The compile-only summary `gputune search --compile-only` prints (table or --json): each
// failure's first error line, or with `diagnostics` its whole log and every compiler warning
// (the JSON always has both).
std::string compile_only_text(const SearchOutcome& outcome, bool json, bool diagnostics = false);

// --set's texts as assignments, in order: "m=4096,n=2*m" is two; a comma inside an expression
// ("n=max(a, b)") is not a separator. Throws Error(kUsage) for an item that is not name=value.
ProblemOverrides parse_assignments(const std::vector<std::string>& given);
// " (did you mean 'x'?)" when one of `known` is close enough to `word` to be the one meant (a
// typo of a command, an option or a name), else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& known);

// Specs: a file or a shipped spec's name (catalog: $GPUTUNE_SPACES, the install, the source
// tree in a development build), or YAML text.
Spec open_spec(const std::string& path_or_name, const ProblemOverrides& overrides = {});
Spec spec_from_text(const std::string& text, const std::string& path,
                    const ProblemOverrides& overrides = {});
ProblemInfo problem_info(const Spec& spec);
std::string workload_title(const Spec& spec);  // "spaces/transpose.yaml n=8192"

struct ShippedSpec {
  std::string name, path, description;
  uint64_t variants = 0, product = 0;
  bool variants_estimated = false;  // from a sample of a product too large to walk
  std::string error;                // why it does not load; empty when it does
  // {"name", "path", "description", "variants", "product"} (or "error"): a row of
  // `gputune list --json`, and of Python's specs().
  std::string json() const;
};
std::vector<ShippedSpec> shipped_spec_list();

// Stored results. Databases are opened read-only and must exist (Error(kIo) otherwise).
// With a spec: only the workloads of that spec (and kernel source) at its problem values.
std::vector<WorkloadInfo> stored_workloads(const std::string& db,
                                           const std::optional<Spec>& spec = std::nullopt);
// Why `db` (which exists) holds nothing measured for `spec` at its problem values, in words:
// what it holds of the spec's kernel instead (other problem values, another version of the
// spec, another kernel source, only failures), else which kernels it does hold.
std::string why_nothing_measured(const std::string& db, const Spec& spec);
// One stored workload: its summary, its results as `gputune show` reports them, every attempt.
struct StoredWorkload {
  WorkloadInfo summary;
  double copy_bandwidth_gbs = 0;
  ResultReport report;  // with the spec's metrics when the spec is given
  std::vector<AttemptInfo> history;
  std::optional<ProblemInfo> problem;
};
StoredWorkload load_stored(const std::string& db, int64_t workload,
                           const std::optional<Spec>& spec = std::nullopt);
// Writes recordings; returns each file written with its workload. `workload`: only that one.
std::vector<std::pair<std::string, WorkloadInfo>> export_recordings(
    const std::string& db, const std::string& folder, std::optional<int64_t> workload = {},
    const std::string& commit = "");
void export_workload(const std::string& db, int64_t workload, const std::string& path);
// One workload's every attempt as T4 results (the JSON results format shared by autotuners,
// schema version 1.0.0), times in milliseconds, with a "workload" member that says what they
// measured: kernel, spec, problem values, GPU, toolchain.
std::string t4_results(const std::string& db, int64_t workload);
// Writes each workload (`workload`: only that one) named as its recording is (spec, problem,
// GPU; FOLDER/SPEC_PROBLEM_GPU.t4.json, an id added where two would share a name); returns each
// file written with its workload, as export_recordings does.
std::vector<std::pair<std::string, WorkloadInfo>> export_t4(const std::string& db,
                                                            const std::string& folder,
                                                            std::optional<int64_t> workload = {});
// The files an export wrote, as JSON text (`gputune export --json`, Python's export()): an
// array of {"path", "workload", "attempts", "ok"}.
std::string exported_json(const std::vector<std::pair<std::string, WorkloadInfo>>& written);

// Kernel Tuner results (a cache file written with cache=, or store_results output) stored as a
// workload of `spec`'s kernel at its problem values, so that searches of that kernel learn from
// them as prior data. Configs are matched by parameter name; a parameter Kernel Tuner did not
// tune takes the spec's baseline value; times become samples, failed configs failures. The same
// file imported again stores nothing new. `gpu`: the compute capability and SM count of the GPU
// the results were measured on (0: the file's, where it holds Kernel Tuner's environment);
// `gputune release` compiles for the one and needs both, so results without them are prior data
// only.
struct ImportedGpu {
  int cc_major = 0, cc_minor = 0, sm_count = 0;
};
struct PriorImport {
  int64_t workload = 0;
  int64_t ok = 0, failures = 0;       // stored now
  int64_t unchanged = 0;              // stored already as they are: not stored again
  int64_t outside = 0;                // results that are no config of the spec's space
  std::set<std::string> defaulted;    // spec parameters the file lacks
  std::vector<std::string> warnings;  // as SearchOutcome::warnings
  DeviceInfo device;                  // the GPU as stored: name, compute capability, SM count
  bool releasable() const { return device.cc_major > 0 && device.sm_count > 0; }
  // `gputune import kt-cache --json`, Python's import_kernel_tuner(): {"workload", "ok",
  // "failures", "unchanged", "outside", "defaulted", "gpu": {"name", "compute_capability",
  // "sm_count"}, "releasable"}.
  std::string json() const;
};
PriorImport import_kernel_tuner(const std::string& file, const Spec& spec, const std::string& db,
                                const ImportedGpu& gpu = {});
// "9.0" or "9" -> {9, 0}; nullopt for text that is no compute capability.
std::optional<std::pair<int, int>> parse_compute_capability(const std::string& text);

// Databases from several machines or shards merged into `output` (created if missing), one
// input at a time, each in one transaction. A variant both measured counts the lower median (an
// ok measurement beats a failure); rows are matched by content, so merging an input again
// changes nothing; copied rows keep their origin (file, host, row). See docs/cluster.md.
struct MergedDatabase {
  std::string input, host, created_at;  // the file merged, the host and time it was created
  int64_t workloads_added = 0, variants_added = 0, attempts_copied = 0;
  int64_t replaced = 0;  // variants both measured where the input's measurement now counts
  int64_t kept = 0;      // ... where the output's still counts
  int64_t searches_copied = 0;
};
struct MergeOutcome {
  std::vector<MergedDatabase> inputs;  // in the order given
  std::vector<std::string> warnings;   // as SearchOutcome::warnings
  // `gputune merge --json`, Python's merge(): an array with each input's counts, in order.
  std::string json() const;
};
MergeOutcome merge_databases(const std::string& output, const std::vector<std::string>& inputs);

// The shards of a tuning campaign (gputune plan): every spec at every combination of the sweep's
// problem values is one workload; several workloads are dealt to the shards in turn (workload i
// to shard i mod N); a single workload is split by config index instead (brute force, search
// --shard K/N). Deterministic: the same request gives the same plan.
struct CampaignRequest {
  std::vector<std::string> specs;  // files or shipped names
  ProblemOverrides overrides;      // --set, for every workload
  // --sweep n=1024,2048: each name with its values; every combination is a workload.
  std::vector<std::pair<std::string, std::vector<std::string>>> sweeps;
  uint64_t shards = 1;
  std::string db_pattern = "shard-{K}.db";  // {K}: the shard's index
  std::string search_options;               // appended to every command as given
};
struct PlannedWorkload {
  std::string spec;
  ProblemOverrides overrides;
  std::string title;     // "spaces/transpose.yaml n=4096"
  uint64_t configs = 0;  // valid configs (of the shard's part of the space when one is split)
  bool configs_estimated = false;  // from a sample of a product too large to walk
};
struct PlannedShard {
  uint64_t index = 0, count = 1;
  std::string db;
  std::vector<PlannedWorkload> workloads;
  std::vector<std::string> commands;  // the gputune search command lines that run the shard
};
std::vector<PlannedShard> plan_campaign(const CampaignRequest& request);
// `gputune plan --json`, Python's plan(): an array of {"shard", "of", "db", "workloads":
// [{"spec", "set", "title", "configs"}], "commands"}.
std::string plan_json(const std::vector<PlannedShard>& shards);

std::vector<std::string> strategy_list();
std::vector<DeviceInfo> gpus();
std::string nvrtc_toolchain_version();

}  // namespace gputune
