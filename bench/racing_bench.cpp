// Racing against full sampling, replayed on recordings that hold every sample: for each
// recording and racing setting, the sampling time racing spends, and whether its winner is the
// full-sampling best (or within 1% of it). Usage:
//   gputune_racing_bench [--sweep] [recording.csv ...]
// Without recordings it replays db/recordings/*.csv. The replay serves each variant its recorded
// samples one at a time, so a cut variant costs the prefix it got. Time is the samples' own
// kernel time plus a warm-up per timed variant (TimingOptions' 20 ms): what a GPU search spends
// on timing, launch overheads aside. --sweep also tries other margins, minimum samples and
// top-k (how the defaults in docs/racing.md were chosen).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gputune/error.h"
#include "replay/replay.h"
#include "search/search.h"
#include "store/store.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

constexpr double kWarmupMs = 20;  // TimingOptions::warmup_ms: paid by every timed variant

struct Outcome {
  double sample_ms = 0;  // the samples' kernel time
  double timing_ms = 0;  // with a warm-up per timed variant
  size_t cut = 0;
  uint64_t best = 0;
};

Outcome replay_search(const Recording& recording, const Problem& problem,
                      const RacingOptions& racing) {
  auto runner = make_replay_runner(recording);
  auto compiler = make_replay_compiler();
  auto store = open_sqlite_store(":memory:");
  SearchOptions options;
  options.strategy = "brute_force";
  options.budget_evaluations = 0;
  options.budget_seconds = 0;
  options.use_prior = false;
  options.racing = racing;
  SearchResult result = run_search(problem, *runner, *compiler, *store, options);
  Outcome out;
  for (const Attempt& a : store->attempts(result.workload)) {
    const Measurement& m = a.measurement;
    if (m.status != Status::kOk || m.samples_ms.empty()) continue;
    for (double s : m.samples_ms) out.sample_ms += s;
    const int timings = std::max(m.final_rounds, 1);  // one warm-up per round
    out.timing_ms += kWarmupMs * timings;
    out.cut += m.cut_short != 0;
  }
  for (const WorkloadSummary& w : store->workloads()) {
    if (w.best) out.best = w.best->config_index;
  }
  return out;
}

struct Row {
  std::string name;
  Outcome full, race;
  double ratio = 1;  // the race winner's recorded median over the recorded best's
};

std::vector<Row> run_all(const std::vector<std::pair<std::string, Recording>>& recordings,
                         const RacingOptions& racing, bool verbose) {
  std::vector<Row> rows;
  for (const auto& [name, recording] : recordings) {
    const Problem problem = recording_problem(recording, GPUTUNE_SOURCE_DIR);
    Row row;
    row.name = name;
    RacingOptions full;
    row.full = replay_search(recording, problem, full);
    row.race = replay_search(recording, problem, racing);
    const Outcome again = replay_search(recording, problem, racing);
    if (again.best != row.race.best) {
      std::fprintf(stderr, "%s: two racing replays disagree\n", name.c_str());
    }
    std::map<uint64_t, double> median;
    for (const Measurement& m : recording.measurements) median[m.config_index] = m.median_ms();
    row.ratio = median.at(row.race.best) / median.at(row.full.best);
    row.full.timing_ms += row.full.sample_ms;
    row.race.timing_ms += row.race.sample_ms;
    if (verbose) {
      std::printf("| %s | %zu | %.0f | %.0f | %.0f%% | %.1f | %.1f | %.0f%% | %s (%.4f) |\n",
                  name.c_str(), row.race.cut, row.full.sample_ms, row.race.sample_ms,
                  100 * (1 - row.race.sample_ms / row.full.sample_ms), row.full.timing_ms / 1e3,
                  row.race.timing_ms / 1e3, 100 * (1 - row.race.timing_ms / row.full.timing_ms),
                  row.race.best == row.full.best ? "same" : "other", row.ratio);
    }
    rows.push_back(row);
  }
  return rows;
}

int run(int argc, char** argv) {
  bool sweep = false;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--sweep") {
      sweep = true;
    } else if (arg == "--help" || arg == "-h") {
      std::printf("usage: gputune_racing_bench [--sweep] [recording.csv ...]\n");
      return 0;
    } else {
      paths.push_back(arg);
    }
  }
  if (paths.empty()) {
    for (const auto& entry :
         fs::directory_iterator(fs::path(GPUTUNE_SOURCE_DIR) / "db" / "recordings")) {
      if (entry.path().extension() == ".csv") paths.push_back(entry.path().string());
    }
    std::sort(paths.begin(), paths.end());
  }
  std::vector<std::pair<std::string, Recording>> recordings;
  for (const auto& path : paths) {
    recordings.emplace_back(fs::path(path).stem().string(), load_recording(path));
  }
  RacingOptions defaults;
  defaults.enabled = true;
  std::printf("racing defaults: margin %.2f, min samples %d, top %d, %d final rounds\n\n",
              defaults.margin, defaults.min_samples, defaults.top_k, defaults.final_rounds);
  std::printf(
      "| recording | cut | samples ms, full | race | saved | timing s, full | race | "
      "saved | best (winner / full best) |\n|---|---|---|---|---|---|---|---|---|\n");
  const std::vector<Row> rows = run_all(recordings, defaults, true);
  bool all_within = true;
  for (const Row& row : rows) all_within = all_within && row.ratio <= 1.01;
  if (sweep) {
    std::printf(
        "\n| margin | min samples | top k | within 1%% | same best | samples saved | "
        "timing saved |\n|---|---|---|---|---|---|---|\n");
    for (double margin : {0.01, 0.02, 0.05, 0.10, 0.20, 0.50}) {
      for (int min_samples : {3, 5}) {
        for (int top_k : {1, 3, 5}) {
          RacingOptions racing = defaults;
          racing.margin = margin;
          racing.min_samples = min_samples;
          racing.top_k = top_k;
          size_t within = 0, same = 0;
          double full_s = 0, race_s = 0, full_t = 0, race_t = 0;
          for (const Row& row : run_all(recordings, racing, false)) {
            within += row.ratio <= 1.01;
            same += row.race.best == row.full.best;
            full_s += row.full.sample_ms;
            race_s += row.race.sample_ms;
            full_t += row.full.timing_ms;
            race_t += row.race.timing_ms;
          }
          std::printf("| %.2f | %d | %d | %zu/%zu | %zu/%zu | %.0f%% | %.0f%% |\n", margin,
                      min_samples, top_k, within, recordings.size(), same, recordings.size(),
                      100 * (1 - race_s / full_s), 100 * (1 - race_t / full_t));
        }
      }
    }
  }
  return all_within ? 0 : 1;
}

}  // namespace
}  // namespace gputune

int main(int argc, char** argv) {
  try {
    return gputune::run(argc, argv);
  } catch (const gputune::Error& e) {
    std::fprintf(stderr, "gputune_racing_bench: %s\n", e.what());
    return 2;
  }
}
