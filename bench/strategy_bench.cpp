// Search strategies measured on replayed spaces: how many evaluations each needs to come close
// to the best known config of a recording, cold and warm-started from another recording of the
// same spec. Usage: gputune_strategy_bench [options] [recording.csv ...] (--help lists them).
// Without recordings it replays db/recordings/*.csv; --synthetic DIR generates synthetic test
// recordings there instead (labelled synthetic everywhere they are reported).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gputune/error.h"
#include "model/features.h"
#include "profile/variant_profilers.h"
#include "replay/replay.h"
#include "replay_bench.h"
#include "search/report.h"
#include "space/rule_pick.h"
#include "strategy/bottleneck_strategy.h"
#include "strategy/first_configs.h"
#include "strategy/model_strategy.h"
#include "strategy/strategy.h"
#include "support/synthetic_recording.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

struct Options {
  int seeds = 20;
  size_t cap = 300;  // evaluations per run at most
  size_t batch = 4;  // as the search driver's default
  std::vector<std::string> strategies = {"random", "annealing", "genetic", "model", "bottleneck"};
  std::vector<std::string> recordings;
  std::string results = std::string(GPUTUNE_SOURCE_DIR) + "/bench/RESULTS.md";
  bool write = true;
  bool geometry = true;  // launch-geometry features for the model
  std::string synthetic_dir;
  ModelStrategyOptions model;
  size_t remedy_moves = BottleneckStrategyOptions{}.remedy_moves;
  double profile_share = BottleneckStrategyOptions{}.profile_share;
  bool plan = true;
  double profile_start_s = kProfileStartS;
};

struct Run {
  size_t to95 = 0, to99 = 0;  // cap + 1 when not reached
  double at[3] = {0, 0, 0};   // fraction of the best performance after 25, 50, 100
  double step_ms = 0;
  double measure_s = 0;  // the recorded compile, check and timing times of the evaluations
};

constexpr size_t kCheckpoints[3] = {25, 50, 100};

std::vector<PriorData> priors_for(const std::vector<Recording>& all, size_t self) {
  std::vector<PriorData> out;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i == self || all[i].info.spec_hash != all[self].info.spec_hash) continue;
    Problem problem = recording_problem(all[i], std::string(GPUTUNE_SOURCE_DIR));
    PriorData prior;
    prior.problem_values = problem.problem_values();
    prior.label = all[i].info.problem_json + " on " + all[i].info.device.name;
    prior.sm_count = all[i].info.device.sm_count;
    prior.measurements = all[i].measurements;
    out.push_back(std::move(prior));
  }
  return out;
}

// Every run goes on to the cap (or the end of the space), as a search with that budget would:
// the bottleneck strategy's profiling share is then that of a whole search, as its plan assumed.
Run replay(Strategy& strategy, const StrategyContext& context, const Recording& recording,
           double best, const Options& options) {
  auto runner = make_replay_runner(recording);
  strategy.start(context);
  Run run;
  run.to95 = run.to99 = options.cap + 1;
  double found = std::numeric_limits<double>::infinity();
  size_t count = 0;
  while (count < options.cap) {
    std::vector<uint64_t> proposal = strategy.propose(std::min(options.batch, options.cap - count));
    if (proposal.empty()) break;
    std::vector<Candidate> batch(proposal.size());
    for (size_t i = 0; i < proposal.size(); ++i) batch[i].variant.index = proposal[i];
    std::vector<Measurement> results = runner->run(batch);
    for (const Measurement& m : results) {
      ++count;
      if (m.status == Status::kOk) found = std::min(found, m.median_ms());
      const double fraction = std::isfinite(found) ? best / found : 0;
      if (fraction >= 0.95 && run.to95 > options.cap) run.to95 = count;
      if (fraction >= 0.99 && run.to99 > options.cap) run.to99 = count;
      for (int c = 0; c < 3; ++c) {
        if (count == kCheckpoints[c]) run.at[c] = fraction;
      }
    }
    for (const Measurement& m : results)
      run.measure_s += (m.compile_ms + m.check_ms + m.time_ms) / 1000;
    strategy.observe(results);
    // As the search does once the GPU is idle: the bottleneck strategy profiles here.
    if (strategy.wants_idle_gpu()) strategy.use_idle_gpu();
  }
  // A run that covered the space before a checkpoint keeps its last fraction.
  const double fraction = std::isfinite(found) ? best / found : 0;
  for (int c = 0; c < 3; ++c) {
    if (count < kCheckpoints[c]) run.at[c] = fraction;
  }
  return run;
}

std::string provenance(const Recording& r, const std::string& path) {
  const RecordingInfo& i = r.info;
  return "`" + path + "`: " + (i.origin == "synthetic" ? "**synthetic** " : "") + "spec " +
         i.spec_path + " (" + i.spec_hash.substr(0, 12) + "), problem " + i.problem_json + ", " +
         i.device.name + " " + i.device.arch() + ", driver " +
         std::to_string(i.device.driver_version) + ", NVRTC " + i.nvrtc_version + ", recorded " +
         i.recorded_at + (i.commit.empty() ? "" : " at " + i.commit) + ", " +
         std::to_string(r.measurements.size()) + " variants";
}

int run_bench(const Options& options) {
  std::vector<std::string> paths = options.recordings;
  if (!options.synthetic_dir.empty()) {
    const std::string spec = testing::write_synthetic_spec(options.synthetic_dir);
    auto store = open_sqlite_store(":memory:");
    const std::pair<double, int> workloads[] = {{1024, 0}, {4096, 0}, {4096, 1}};
    for (const auto& [n, gpu] : workloads) {
      Recording r = testing::record_synthetic(*store, spec, n, gpu);
      const std::string path = options.synthetic_dir + "/synthetic_n" +
                               std::to_string(static_cast<int>(n)) + "_gpu" + std::to_string(gpu) +
                               ".csv";
      write_recording(r, path);
      paths.push_back(path);
    }
  }
  if (paths.empty()) {
    const fs::path dir = fs::path(GPUTUNE_SOURCE_DIR) / "db" / "recordings";
    if (fs::is_directory(dir)) {
      for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() == ".csv") paths.push_back(entry.path().string());
      }
    }
    std::sort(paths.begin(), paths.end());
  }
  if (paths.empty()) {
    std::cerr << "no recordings: give some, put them in db/recordings/, or use --synthetic DIR\n";
    return 66;
  }
  std::vector<Recording> recordings;
  for (const auto& path : paths) recordings.push_back(load_recording(path));

  const std::string commit = source_commit(GPUTUNE_SOURCE_DIR);
  std::ostringstream report;
  report << "\n## " << today() << ", commit " << commit << "\n\n";
  report << options.seeds << " seeds per row, batch " << options.batch << ", at most "
         << options.cap << " evaluations per run (every run goes on to that many). Evaluations "
         << "to 95%/99% of the best known "
         << "performance (median over seeds; >cap when the median run did not get there), and "
         << "the median fraction of the best performance after 25/50/100 evaluations. Prior: "
         << "the other recordings of the same spec.\n\nRecordings:\n\n";
  for (size_t i = 0; i < paths.size(); ++i) {
    report << "- " << provenance(recordings[i], fs::path(paths[i]).filename().string()) << "\n";
  }

  for (size_t r = 0; r < recordings.size(); ++r) {
    const Recording& recording = recordings[r];
    Problem problem = recording_problem(recording, std::string(GPUTUNE_SOURCE_DIR));
    double best = std::numeric_limits<double>::infinity();
    for (const auto& m : recording.measurements) {
      if (m.status == Status::kOk && problem.space().valid(m.config_index)) {
        best = std::min(best, m.median_ms());
      }
    }
    const std::vector<PriorData> priors = priors_for(recordings, r);
    report << "\n### " << fs::path(paths[r]).filename().string() << " ("
           << problem.space().count_valid() << " valid variants, best " << fixed(best, 4) << " ms"
           << (recording.info.origin == "synthetic" ? ", synthetic" : "") << ")\n\n";
    const std::optional<RulePick> pick = rule_pick(problem);
    if (pick) {
      const auto found =
          std::find_if(recording.measurements.begin(), recording.measurements.end(),
                       [&](const Measurement& m) { return m.config_index == pick->config_index; });
      report << "The rules' pick: " << config_text(problem.space().json(pick->config_index));
      if (found != recording.measurements.end() && found->status == Status::kOk) {
        report << ", " << fixed(found->median_ms(), 4) << " ms ("
               << fixed(best / found->median_ms(), 3) << " of the best)";
      }
      report << ".\n\n";
    }
    report << "| strategy | prior | evals to 95% | evals to 99% | @25 | @50 | @100 | "
              "ms per model step |\n|---|---|---|---|---|---|---|---|\n";
    for (const auto& name : options.strategies) {
      for (bool warm : {false, true}) {
        if (warm && (name != "model" || priors.empty())) continue;
        if (name == "bottleneck" && recording.counters.empty()) {
          std::cerr << paths[r] << ": no counters recorded; bottleneck runs as the model\n";
        }
        std::vector<size_t> to95, to99;
        std::vector<double> at[3];
        double step_ms = 0, max_ms = 0, prior_ms = 0;
        double profile_s = 0, wall_s = 0;  // bottleneck: profiling against the whole
        size_t steps = 0, profiled = 0;
        for (int seed = 1; seed <= options.seeds; ++seed) {
          Run run;
          if (name == "model") {
            ModelStrategy strategy(seed, options.model);
            StrategyContext context(problem.space());
            context.problem_values = problem.problem_values();
            if (warm) context.prior = priors;
            if (options.geometry) {
              context.launch = launch_of(problem.spec());
              context.sm_count = recording.info.device.sm_count;
            }
            run = replay(strategy, context, recording, best, options);
            step_ms += strategy.stats().total_ms;
            steps += strategy.stats().model_steps;
            max_ms = std::max(max_ms, strategy.stats().max_ms);
            prior_ms = std::max(prior_ms, strategy.stats().prior_fit_ms);
          } else if (name == "bottleneck") {
            BottleneckStrategyOptions bottleneck;
            bottleneck.model = options.model;
            bottleneck.remedy_moves = options.remedy_moves;
            bottleneck.profile_share = options.profile_share;
            BottleneckStrategy strategy(seed, bottleneck);
            auto profiler =
                make_recorded_profiler(problem.spec(), recording.counters, options.profile_start_s,
                                       recording.info.copy_bandwidth_gbs);
            StrategyContext context(problem.space());
            context.problem_values = problem.problem_values();
            if (options.geometry) {
              context.launch = launch_of(problem.spec());
              context.sm_count = recording.info.device.sm_count;
            }
            context.profiler = profiler.get();
            // As `gputune search --budget CAP` plans it.
            if (options.plan) {
              context.planned_evaluations =
                  std::min<uint64_t>(options.cap, problem.space().count_valid());
            }
            run = replay(strategy, context, recording, best, options);
            step_ms += strategy.model().stats().total_ms;
            steps += strategy.model().stats().model_steps;
            max_ms = std::max(max_ms, strategy.model().stats().max_ms);
            profile_s += strategy.stats().profile_s;
            profiled += strategy.stats().profiled;
            wall_s += run.measure_s + strategy.stats().profile_s;
          } else {
            // "rules" starts from the rules' pick; "NAME+rules" is NAME proposing it first, as
            // every strategy of a search does. The others start without it.
            const bool first = name.size() > 6 && name.compare(name.size() - 6, 6, "+rules") == 0;
            const std::string base = first ? name.substr(0, name.size() - 6) : name;
            std::unique_ptr<Strategy> strategy = make_strategy(base, seed);
            if (first) strategy = proposing_first_configs(std::move(strategy));
            StrategyContext context(problem.space());
            context.problem_values = problem.problem_values();
            if (options.geometry) {
              context.launch = launch_of(problem.spec());
              context.sm_count = recording.info.device.sm_count;
            }
            if ((first || base == "rules") && pick) {
              const uint64_t start = problem.space().nearest_valid(pick->config_index);
              if (start < problem.space().size()) context.first_configs = {start};
            }
            run = replay(*strategy, context, recording, best, options);
          }
          to95.push_back(run.to95);
          to99.push_back(run.to99);
          for (int c = 0; c < 3; ++c) at[c].push_back(run.at[c]);
        }
        report << "| " << name << (name == "random" ? " (baseline)" : "") << " | "
               << (warm ? "yes" : "no") << " | " << evaluations(median(to95), options.cap) << " | "
               << evaluations(median(to99), options.cap);
        for (int c = 0; c < 3; ++c) report << " | " << fixed(median(at[c]), 3);
        report << " | "
               << (steps ? fixed(step_ms / steps, 2) + " (max " + fixed(max_ms, 1) + ")" : "-")
               << (prior_ms > 0 ? "; prior fit " + fixed(prior_ms, 0) + " max" : "")
               << (name == "bottleneck"
                       ? "; " + fixed(static_cast<double>(profiled) / options.seeds, 1) +
                             " profiled per run, profiling " +
                             fixed(wall_s > 0 ? 100 * profile_s / wall_s : 0, 1) +
                             "% of the recorded time"
                       : "")
               << " |\n";
        std::cerr << paths[r] << ": " << name << (warm ? " with prior" : "") << " done\n";
      }
    }
  }
  std::cout << report.str();
  if (options.write) {
    const bool fresh = !fs::exists(options.results);
    std::ofstream out(options.results, std::ios::app);
    if (!out) throw Error(ErrorCode::kIo, options.results + ": cannot be written");
    if (fresh) {
      out << "# Strategy benchmark\n\nWritten by `gputune_strategy_bench` "
             "(bench/strategy_bench.cpp); each run appends a section.\n";
    }
    out << report.str();
  }
  return 0;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

}  // namespace
}  // namespace gputune

namespace po = boost::program_options;

int main(int argc, char** argv) {
  gputune::Options options;
  po::options_description visible(
      "gputune_strategy_bench [options] [recording.csv ...]\n\n"
      "Replays search strategies over recordings (default db/recordings/*.csv): evaluations to\n"
      "95%/99% of the best, over seeds; appends a table to bench/RESULTS.md.\n\nOptions");
  std::string strategies;  // as given: "random,model"
  for (const std::string& name : options.strategies) {
    strategies += (strategies.empty() ? "" : ",") + name;
  }
  gputune::ModelStrategyOptions& model = options.model;
  auto add = visible.add_options();
  add("seeds", po::value(&options.seeds)->default_value(options.seeds), "seeds per strategy");
  add("cap", po::value(&options.cap)->default_value(options.cap), "evaluations per run at most");
  add("batch", po::value(&options.batch)->default_value(options.batch), "proposals per batch");
  add("strategies", po::value(&strategies)->default_value(strategies),
      "random, annealing, genetic, model, bottleneck, rules (from the rules' pick), NAME+rules "
      "(NAME proposing the pick first), separated by commas");
  add("results", po::value(&options.results)->default_value(options.results, "bench/RESULTS.md"),
      "where the table goes");
  add("no-write", "print only");
  add("synthetic", po::value(&options.synthetic_dir)->value_name("DIR"),
      "generate synthetic recordings there and replay them");
  add("remedy-moves", po::value(&options.remedy_moves)->default_value(options.remedy_moves),
      "bottleneck: proposals per batch that apply the remedy to the variant that steers (0: "
      "the model alone)");
  add("no-plan",
      "bottleneck: no evaluation budget of --cap (the profiling budget is then a share of the "
      "time so far only)");
  add("profile-share",
      po::value(&options.profile_share)
          ->default_value(options.profile_share, gputune::shown(options.profile_share)),
      "bottleneck: the share of the search's wall time profiling may take (1 with "
      "--profile-start 0: profiles all but free, to see what steering could do at best)");
  add("profile-start",
      po::value(&options.profile_start_s)
          ->default_value(options.profile_start_s, gputune::shown(options.profile_start_s)),
      "bottleneck: seconds each profile costs beyond its recorded counters' share (starting ncu "
      "and a launcher)");
  add("model-penalty",
      po::value(&model.failure_penalty)
          ->default_value(model.failure_penalty, gputune::shown(model.failure_penalty)),
      "the model strategy: a failure's target, the worst ok log time plus this");
  add("model-exploration",
      po::value(&model.exploration)
          ->default_value(model.exploration, gputune::shown(model.exploration)),
      "the model strategy: expected improvement beyond this margin, in log time");
  add("model-initial", po::value(&model.initial_random)->default_value(model.initial_random),
      "the model strategy: random configs before the model takes over");
  add("model-local-every", po::value(&model.local_every)->default_value(model.local_every),
      "the model strategy: every so many model steps, only the best's neighbours");
  add("model-rbf", "the model strategy: an RBF kernel for its Gaussian process");
  add("no-geometry", "the model strategy: no launch-geometry features");
  add("help,h", "show this help");
  try {
    const std::optional<po::variables_map> vm =
        gputune::parse_bench_options(argc, argv, visible, &options.recordings);
    if (!vm) return 0;
    options.strategies = gputune::split(strategies);
    if (vm->count("model-rbf")) options.model.gp.kernel = gputune::GpKernel::kRbf;
    options.plan = !vm->count("no-plan");
    options.geometry = !vm->count("no-geometry");
    options.write = !vm->count("no-write");
    return gputune::run_bench(options);
  } catch (const gputune::Error& e) {
    std::cerr << "gputune_strategy_bench: " << e.what() << "\n";
    return gputune::exit_code_for(e.code());
  } catch (const std::exception& e) {
    std::cerr << "gputune_strategy_bench: " << e.what() << "\n";
    return 64;
  }
}
