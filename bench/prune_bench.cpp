// Pruning by the prior (docs/pruning.md) measured on recordings: each recording is the
// workload searched, the other recordings of the same kernel (other sizes, other GPUs, other
// kernel versions) its prior data. Per recording and prior: the share of the space pruned,
// whether the best was kept, brute force's evaluations and recorded time with and without
// pruning, and the model strategy's evaluations and recorded time to the best.
// Usage: gputune_prune_bench [options] [recording.csv[.xz] ...] (--help lists them).
// Without recordings it reads db/recordings/*.csv, db/recordings/kt/*.csv (Kernel Tuner's
// example kernels: bench/kt_compare/kt_specs) and db/counters/*.csv.xz.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "gputune/error.h"
#include "model/cost_model.h"
#include "model/features.h"
#include "replay/replay.h"
#include "replay_bench.h"
#include "search/prior.h"
#include "search/pruned_space.h"
#include "strategy/model_strategy.h"
#include "strategy/prior_pruning.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

struct Options {
  PruneOptions prune;
  int seeds = 10;
  size_t cap = 300;  // model evaluations per run at most
  size_t batch = 4;
  std::vector<std::string> recordings;
  std::string results = std::string(GPUTUNE_SOURCE_DIR) + "/bench/RESULTS.md";
  bool write = true;
  bool model = true;
  size_t partial = 60;  // configs of a prior measured as a budgeted search would; 0: none
};

// The recordings, with a readable copy of each compressed one.
struct Loaded {
  std::string name;  // file name without .xz
  Recording recording;
  std::unique_ptr<Problem> problem;
  PriorKey kernel;
  double best = 0;  // the recorded best of the valid configs
};

Recording read_recording(const std::string& path, const fs::path& scratch) {
  if (path.size() < 3 || path.substr(path.size() - 3) != ".xz") return load_recording(path);
  const fs::path plain = scratch / fs::path(path).stem();
  std::ofstream(plain, std::ios::binary) << command_output("xz -dc '" + path + "'");
  return load_recording(plain.string());
}

// What a search measures to replay a config: its recorded compile, check and timing time.
double recorded_s(const Measurement& m) {
  double ms = std::max(0.0, m.compile_ms) + std::max(0.0, m.check_ms);
  if (m.time_ms > 0) {
    ms += m.time_ms;
  } else {
    for (double s : m.samples_ms) ms += std::max(0.0, s);
  }
  return ms / 1e3;
}

// "n=4096 H200": a recording's problem values and GPU, short.
std::string short_label(const Loaded& l) {
  std::string out;
  for (const auto& [name, value] : l.problem->problem_values()) {
    out += name + "=" + Value(value).text() + " ";
  }
  std::string gpu = l.recording.info.device.name;
  for (const std::string prefix : {"NVIDIA "}) {
    if (gpu.rfind(prefix, 0) == 0) gpu = gpu.substr(prefix.size());
  }
  return out + gpu.substr(0, gpu.find(' '));
}

PriorData prior_of(const Loaded& self, const Loaded& other) {
  PriorData prior;
  std::string changes;
  const Recording& r = other.recording;
  auto measurements = measurements_in_terms_of(
      self.kernel, other.kernel.kernel_name, other.kernel.parameters,
      other.problem->space().json(other.problem->baseline_index()), r.measurements, &changes);
  prior.problem_values = other.problem->problem_values();
  prior.label = short_label(other) + (changes.empty() ? "" : " (" + changes + ")");
  prior.sm_count = r.info.device.sm_count;
  if (measurements) prior.measurements = std::move(*measurements);
  return prior;
}

// The model strategy with the prior: evaluations (and recorded seconds) until a config within
// 1% of the recording's best; cap + 1 (and the time of cap evaluations) where it got none.
std::pair<size_t, double> model_to_best(const StrategyContext& context, const Loaded& target,
                                        const Options& options, uint64_t seed) {
  ModelStrategy strategy(seed);
  strategy.start(context);
  auto runner = make_replay_runner(target.recording);
  size_t count = 0;
  double seconds = 0;
  while (count < options.cap) {
    std::vector<uint64_t> proposal = strategy.propose(std::min(options.batch, options.cap - count));
    if (proposal.empty()) break;
    std::vector<Candidate> batch(proposal.size());
    for (size_t i = 0; i < proposal.size(); ++i) batch[i].variant.index = proposal[i];
    std::vector<Measurement> results = runner->run(batch);
    for (const Measurement& m : results) {
      ++count;
      seconds += recorded_s(m);
      if (m.status == Status::kOk && m.median_ms() <= target.best * 1.01) return {count, seconds};
    }
    strategy.observe(results);
  }
  return {options.cap + 1, seconds};
}

struct Row {
  std::string target, prior;
  size_t prior_sizes = 0;  // other problem values of the same kernel version in the prior
  uint64_t valid = 0, pruned = 0;
  double factor = 0, held_out = 0;
  double kept = 0;  // best kept / best
  bool best_pruned = false;
  double brute_s = 0, brute_pruned_s = 0;
  size_t model_evals = 0, model_pruned_evals = 0;
  double model_s = 0, model_pruned_s = 0;
  double decide_s = 0;
};

// A prior of `keep` of its measurements (0: all), picked at random as a budgeted random search
// would have measured them.
void keep_random(PriorData* prior, size_t keep, uint64_t seed) {
  if (keep == 0 || prior->measurements.size() <= keep) return;
  std::mt19937_64 random(seed);
  std::shuffle(prior->measurements.begin(), prior->measurements.end(), random);
  prior->measurements.resize(keep);
  prior->label += " (" + std::to_string(keep) + " random)";
}

Row measure(const Loaded& target, const std::vector<const Loaded*>& priors, size_t partial,
            const Options& options) {
  Row row;
  row.target = target.kernel.kernel_name + " " + short_label(target);
  const Problem& problem = *target.problem;
  StrategyContext context(problem.space());
  context.problem_values = problem.problem_values();
  context.launch = launch_of(problem.spec());
  context.sm_count = target.recording.info.device.sm_count;
  context.cost_model = gaussian_process_factory();
  std::vector<std::vector<std::pair<std::string, double>>> sizes;
  for (const Loaded* p : priors) {
    context.prior.push_back(prior_of(target, *p));
    keep_random(&context.prior.back(), partial, context.prior.size());
    row.prior += (row.prior.empty() ? "" : " + ") + context.prior.back().label;
    // Sizes for the goal: of the same kernel version, other than this workload's.
    if (p->kernel.parameters == target.kernel.parameters &&
        p->problem->problem_values() != problem.problem_values() &&
        std::find(sizes.begin(), sizes.end(), p->problem->problem_values()) == sizes.end()) {
      sizes.push_back(p->problem->problem_values());
    }
  }
  row.prior_sizes = sizes.size();
  SearchOptions search;
  search.pruning = options.prune;
  PrunedSpace pruned = prune_space(problem, context, search, 1);
  row.decide_s = pruned.result.seconds;
  row.factor = pruned.result.factor;
  row.held_out = pruned.result.held_out_factor;
  const SearchSpace& space = pruned.space ? *pruned.space : problem.space();
  double kept = std::numeric_limits<double>::infinity();
  for (const Measurement& m : target.recording.measurements) {
    if (!problem.space().valid(m.config_index)) continue;
    ++row.valid;
    row.brute_s += recorded_s(m);
    const bool in = space.valid(m.config_index);
    if (!in) {
      ++row.pruned;
      if (m.status == Status::kOk && m.median_ms() == target.best) row.best_pruned = true;
      continue;
    }
    row.brute_pruned_s += recorded_s(m);
    if (m.status == Status::kOk) kept = std::min(kept, m.median_ms());
  }
  row.kept = kept / target.best;
  if (options.model) {
    std::vector<size_t> evals, pruned_evals;
    std::vector<double> secs, pruned_secs;
    const StrategyContext narrowed = with_space(context, space);
    for (int seed = 1; seed <= options.seeds; ++seed) {
      auto [e, s] = model_to_best(context, target, options, seed);
      evals.push_back(e);
      secs.push_back(s);
      auto [pe, ps] = model_to_best(narrowed, target, options, seed);
      pruned_evals.push_back(pe);
      pruned_secs.push_back(ps);
    }
    row.model_evals = median(evals);
    row.model_s = median(secs);
    row.model_pruned_evals = median(pruned_evals);
    row.model_pruned_s = median(pruned_secs);
  }
  return row;
}

int run_bench(const Options& options) {
  std::vector<std::string> paths = options.recordings;
  if (paths.empty()) {
    for (const char* folder : {"db/recordings", "db/recordings/kt", "db/counters"}) {
      const fs::path dir = fs::path(GPUTUNE_SOURCE_DIR) / folder;
      if (!fs::is_directory(dir)) continue;
      for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.size() > 4 &&
            (name.substr(name.size() - 4) == ".csv" || name.substr(name.size() - 7) == ".csv.xz")) {
          paths.push_back(entry.path().string());
        }
      }
    }
    std::sort(paths.begin(), paths.end());
  }
  if (paths.empty()) {
    std::cerr << "no recordings: give some, or put them in db/recordings/\n";
    return 66;
  }
  const fs::path scratch =
      fs::temp_directory_path() / ("gputune_prune_bench_" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  std::vector<Loaded> all;
  for (const auto& path : paths) {
    Loaded l;
    l.recording = read_recording(path, scratch);
    l.name = fs::path(path).filename().string();
    if (l.name.size() > 3 && l.name.substr(l.name.size() - 3) == ".xz") {
      l.name = l.name.substr(0, l.name.size() - 3);
    }
    try {
      l.problem = std::make_unique<Problem>(
          recording_problem(l.recording, std::string(GPUTUNE_SOURCE_DIR)).spec());
    } catch (const Error& e) {
      // Recordings of other people's kernels need them staged (bench/kt_compare/kt_specs).
      std::cerr << l.name << ": left out: " << e.what() << "\n";
      continue;
    }
    l.kernel = prior_key(*l.problem);
    l.best = std::numeric_limits<double>::infinity();
    for (const Measurement& m : l.recording.measurements) {
      if (m.status == Status::kOk && l.problem->space().valid(m.config_index)) {
        l.best = std::min(l.best, m.median_ms());
      }
    }
    all.push_back(std::move(l));
  }
  fs::remove_all(scratch);

  std::vector<Row> rows;
  for (size_t t = 0; t < all.size(); ++t) {
    std::vector<const Loaded*> others;
    for (size_t o = 0; o < all.size(); ++o) {
      if (o == t) continue;
      const Loaded& other = all[o];
      if (measurements_in_terms_of(all[t].kernel, other.kernel.kernel_name, other.kernel.parameters,
                                   "", {}) &&
          !prior_of(all[t], other).measurements.empty()) {
        others.push_back(&other);
      }
    }
    // Each other recording, every pair, all; and each of the same kernel version as a
    // budgeted search would have left it (options.partial random configs).
    std::vector<std::pair<std::vector<const Loaded*>, size_t>> scenarios;
    for (const Loaded* o : others) scenarios.push_back({{o}, 0});
    for (size_t a = 0; a < others.size(); ++a) {
      for (size_t b = a + 1; b < others.size(); ++b) {
        scenarios.push_back({{others[a], others[b]}, 0});
      }
    }
    if (others.size() > 2) scenarios.push_back({others, 0});
    if (options.partial > 0) {
      for (const Loaded* o : others) {
        if (o->kernel.parameters == all[t].kernel.parameters) {
          scenarios.push_back({{o}, options.partial});
        }
      }
    }
    for (const auto& [prior, partial] : scenarios) {
      rows.push_back(measure(all[t], prior, partial, options));
      std::cerr << all[t].name << " <- " << rows.back().prior << ": pruned " << rows.back().pruned
                << "/" << rows.back().valid << ", kept " << fixed(rows.back().kept, 4) << "\n";
    }
  }

  std::ostringstream report;
  report << "\n## Pruning by the prior, replayed (gputune_prune_bench), " << today() << ", commit "
         << source_commit(GPUTUNE_SOURCE_DIR) << "\n\n";
  report << "Each recording is the workload searched, other recordings of the same kernel its "
            "prior data (one, every pair, all; and each of the same kernel version cut to "
         << options.partial
         << " random configs, as a budgeted search leaves it). Rule (docs/pruning.md): prune "
            "a config when its optimistic time (the prior model's mean; less "
         << fixed(options.prune.z, 1)
         << " standard deviations where the prior never measured it; less the gain in SM fill "
            "where it fills more of the GPU here) is more than the factor times the predicted "
            "best's: --prune-above "
         << options.prune.above << ", or the held-out check's need times " << options.prune.margin
         << " where larger (" << options.prune.unchecked
         << " assumed where nothing can be held out; the factor column gives the check's need "
            "in brackets). Kept: the best unpruned config over the recording's best. Brute "
            "force: the "
            "recorded compile and timing seconds of the whole space. Model: the model strategy "
            "with the same prior, median over "
         << options.seeds << " seeds of the evaluations (and recorded seconds) until a config "
         << "within 1% of the best; >" << options.cap << " when not within " << options.cap
         << ".\n\n";
  report << "| workload | prior | pruned | factor (held-out) | kept | brute force s | model "
            "evals to best | model s to best | decide s |\n|---|---|---|---|---|---|---|---|---|\n";
  size_t two_sizes = 0, two_sizes_half = 0, lost = 0, best_pruned = 0;
  double worst_kept = 1, least_share = 1;
  for (const Row& r : rows) {
    const double share = r.valid ? static_cast<double>(r.pruned) / r.valid : 0;
    report << "| " << r.target << " | " << r.prior << " | " << r.pruned << "/" << r.valid << " ("
           << fixed(100 * share, 0) << "%) | " << fixed(r.factor, 2)
           << (r.held_out > 0 ? " (" + fixed(r.held_out, 2) + ")" : "") << " | " << fixed(r.kept, 4)
           << (r.best_pruned ? " (best pruned)" : "") << " | " << fixed(r.brute_s, 0) << " -> "
           << fixed(r.brute_pruned_s, 0) << " | " << evaluations(r.model_evals, options.cap)
           << " -> " << evaluations(r.model_pruned_evals, options.cap) << " | "
           << fixed(r.model_s, 1) << " -> " << fixed(r.model_pruned_s, 1) << " | "
           << fixed(r.decide_s, 2) << " |\n";
    lost += r.kept > 1.01;
    best_pruned += r.best_pruned;
    worst_kept = std::max(worst_kept, r.kept);
    if (r.prior_sizes >= 2) {
      ++two_sizes;
      two_sizes_half += share >= 0.5;
      least_share = std::min(least_share, share);
    }
  }
  report << "\n"
         << rows.size() << " cases: the best pruned in " << best_pruned << ", more than 1% lost in "
         << lost << " (worst kept " << fixed(worst_kept, 4)
         << "); with prior data from two or more other sizes of the same kernel version ("
         << two_sizes << " cases) at least half the space pruned in " << two_sizes_half
         << " (least " << fixed(100 * least_share, 0) << "%).\n";
  std::cout << report.str();
  if (options.write) {
    std::ofstream out(options.results, std::ios::app);
    if (!out) throw Error(ErrorCode::kIo, options.results + ": cannot be written");
    out << report.str();
  }
  return lost > 0 ? 1 : 0;
}

}  // namespace
}  // namespace gputune

namespace po = boost::program_options;

int main(int argc, char** argv) {
  gputune::Options options;
  po::options_description visible(
      "gputune_prune_bench [options] [recording.csv[.xz] ...]\n\n"
      "Prunes each recording's space by the other recordings of the same kernel and replays\n"
      "brute force and the model strategy on it (default: db/recordings/*.csv and\n"
      "db/counters/*.csv.xz); appends a table to bench/RESULTS.md; exits 1 when a pruned\n"
      "space's best is more than 1% off the recording's.\n\nOptions");
  gputune::PruneOptions& prune = options.prune;
  auto add = visible.add_options();
  add("above", po::value(&prune.above)->default_value(prune.above, gputune::shown(prune.above)),
      "prune above this many times the predicted best");
  add("z", po::value(&prune.z)->default_value(prune.z, gputune::shown(prune.z)),
      "standard deviations of confidence");
  add("margin", po::value(&prune.margin)->default_value(prune.margin, gputune::shown(prune.margin)),
      "the held-out check's factor is raised by this factor");
  add("partial", po::value(&options.partial)->default_value(options.partial),
      "also each prior of the same kernel version cut to this many random configs, as a "
      "budgeted search leaves it (0: none)");
  add("unchecked",
      po::value(&prune.unchecked)->default_value(prune.unchecked, gputune::shown(prune.unchecked)),
      "the held-out factor assumed where none can be checked");
  add("points", po::value(&prune.points)->default_value(prune.points),
      "prior measurements the model is fit on, at most");
  add("seeds", po::value(&options.seeds)->default_value(options.seeds), "model runs per case");
  add("cap", po::value(&options.cap)->default_value(options.cap),
      "model evaluations per run at most");
  add("no-model", "pruning only, no model runs");
  add("results", po::value(&options.results)->default_value(options.results, "bench/RESULTS.md"),
      "where the table goes");
  add("no-write", "print only");
  add("help,h", "show this help");
  try {
    const std::optional<po::variables_map> vm =
        gputune::parse_bench_options(argc, argv, visible, &options.recordings);
    if (!vm) return 0;
    options.model = !vm->count("no-model");
    options.write = !vm->count("no-write");
    return gputune::run_bench(options);
  } catch (const gputune::Error& e) {
    std::cerr << "gputune_prune_bench: " << e.what() << "\n";
    return gputune::exit_code_for(e.code());
  } catch (const std::exception& e) {
    std::cerr << "gputune_prune_bench: " << e.what() << "\n";
    return 64;
  }
}
