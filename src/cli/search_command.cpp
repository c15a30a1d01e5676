#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/interrupt.h"
#include "cli/options.h"
#include "cli/progress_printer.h"
#include "gputune/error.h"
#include "gputune/results.h"
#include "gputune/session.h"

namespace gputune::cli {
namespace {

constexpr size_t kTableRows = 10;  // the table's length when --top is not given

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune search SPEC [options]\n\n"
      "Compiles each variant the strategy proposes with NVRTC, checks its outputs against the\n"
      "baseline's, times it (CUDA events, L2 flushed, adaptive sample count) and stores every\n"
      "attempt in the database. A rerun measures nothing already measured; Ctrl-C stops after\n"
      "the variant in flight and the next run resumes.\n\noptions");
  add_spec_options(options);
  std::string strategies;
  for (const auto& name : strategy_list()) strategies += (strategies.empty() ? "" : ", ") + name;
  auto add = options.add_options();
  add("strategy", po::value<std::string>(),
      ("search strategy: " + strategies + " (default: the spec's, else brute_force)").c_str());
  add("profiler", po::value<std::string>()->default_value("auto"),
      "where --strategy bottleneck's counters come from: cupti (CUPTI's range profiler in the "
      "GPU worker, tenths of a second a variant), ncu (Nsight Compute, a program of its own, "
      "seconds a variant) or auto (CUPTI, else ncu)");
  add("budget", po::value<std::string>(),
      "evaluations (100), time (90s, 10m, 2h), or none to lift the spec's; stored "
      "evaluations count too");
  add("seed", po::value<uint64_t>(), "seed of the random strategies (default: the spec's)");
  add("force", "measure again variants the database already has");
  add("no-prior", "do not learn from the kernel's other workloads in the database");
  add("replay", po::value<std::string>(),
      "answer from a recording (gputune export; it names its spec) or from a database (give "
      "the SPEC) instead of the GPU; no GPU needed; the results go to --db only when it is "
      "given");
  add("top", po::value<size_t>(),
      "correct variants listed: 10 in the table, every one with --json, unless given");
  add("device", po::value<int>()->default_value(0), "GPU ordinal");
  add("devices", po::value<std::string>(),
      "GPUs to measure on, one worker process each: 'all', a list such as 0,1 (identical "
      "GPUs; they share one workload), or with --mpi 'local': this rank's share of its host's "
      "GPUs, so that ranks on one host each get GPUs of their own");
  add("jobs,j", po::value<std::string>(),
      "compiler processes (default: one per CPU this process may use; with --mpi, shared among the "
      "ranks on a host)");
  add("cache-dir", po::value<std::string>(),
      "module cache (default: $XDG_CACHE_HOME/gputune/modules or ~/.cache/gputune/modules)");
  add("no-cache",
      "compile every variant, neither reading nor writing the module cache, and with NVRTC's own "
      "cache (CUDA 12.9+, in the driver's compute cache) off");
  add("timeout-floor", po::value<double>()->default_value(2.0),
      "seconds a variant may always run beyond its timing budget before it is killed");
  add("timeout-factor", po::value<double>()->default_value(50.0),
      "... or this many times the best kernel time so far (per launch), if longer");
  add("warm-cache", "time without flushing L2 between samples");
  add("max-seconds", po::value<double>()->default_value(1.0),
      "time spent timing one variant; one too slow for 10 samples in it may take up to 3 times "
      "as long to reach them");
  add("fast",
      "quick, noisier timing for broad sweeps: 5 ms warm-up, 5 to 100 samples, at most 0.1 s "
      "per variant (an explicit --max-seconds wins)");
  add("sampling", po::value<std::string>()->default_value("race"),
      "race: stop timing a variant once its samples show it is more than 5% slower than the "
      "best so far (stored flagged 'cut short'), then re-measure the 3 fastest in 3 "
      "interleaved rounds to pick the winner; full: time every variant in full");
  add("quiet,q", "no progress on stderr");
  add("warnings",
      "after the results, each compiler warning with the variants that got it; with "
      "--compile-only, each failure's whole log too (the database keeps both)");
  add("compile-only",
      "only compile the variants (no GPU needed) and report failures: every valid one in the "
      "space's order, or the first N with --budget N (no --strategy: strategies choose from "
      "measurements); a space of more than 100000 needs --budget N or none");
  add("arch", po::value<std::string>()->default_value("sm_90"),
      "target architecture with --compile-only");
  add("mpi",
      "one rank of mpirun --enable-recovery --bind-to none -n N gputune search SPEC --mpi: rank 0 "
      "runs the "
      "strategy and the database, every rank measures on its --devices (docs/cluster.md)");
  add("replay-real-time",
      "with --replay, take as long as the recording says compiling and measuring took");
  add("shard", po::value<std::string>(),
      "K/N: measure only the configs whose index is K mod N (0 <= K < N; brute force), for "
      "a Slurm job array; give each shard its own --db and merge them (gputune db merge)");
  po::positional_options_description positional;
  positional.add("spec", 1);
  const auto parsed = parse(
      args, options, positional,
      "\nexamples:\n"
      "  gputune search spaces/transpose.yaml\n"
      "  gputune search transpose --set n=4096 --strategy random --budget 50\n"
      "  gputune search transpose --compile-only --arch sm_90\n"
      "  gputune search transpose --strategy brute_force --shard 3/8 --db shard-3.db\n"
      "  mpirun --enable-recovery --bind-to none -n 4 gputune search transpose --mpi --devices "
      "all\n"
      "    (one rank per node, each on all its GPUs)\n"
      "  mpirun --enable-recovery --bind-to none -n 2 gputune search sgemm --mpi --devices local\n"
      "    (one rank per GPU of one host)\n"
      "  gputune search sgemm --set m=2048,n=2048,k=2048 --strategy bottleneck --budget 2m\n"
      "    (the model, plus profiles of batch bests (CUPTI, else ncu) within 10% of the\n"
      "    planned time, whose remedies steer it; docs/bottleneck.md)\n");
  if (!parsed) return 0;
  const auto& vm = *parsed;
  SearchRequest request;
  if (vm.count("strategy")) request.strategy = vm["strategy"].as<std::string>();
  request.profiler = vm["profiler"].as<std::string>();
  if (vm.count("budget")) request.budget = vm["budget"].as<std::string>();
  if (vm.count("seed")) request.seed = vm["seed"].as<uint64_t>();
  request.force = vm.count("force");
  request.use_prior = !vm.count("no-prior");
  if (vm.count("replay")) request.replay = vm["replay"].as<std::string>();
  if (vm.count("spec")) request.spec = vm["spec"].as<std::string>();
  request.overrides = parse_overrides(vm);
  if (!vm["db"].defaulted()) request.db = vm["db"].as<std::string>();
  request.device = vm["device"].as<int>();
  if (vm.count("devices")) request.devices = vm["devices"].as<std::string>();
  request.jobs = jobs_option(vm);
  if (vm.count("cache-dir")) request.cache_dir = vm["cache-dir"].as<std::string>();
  request.use_cache = !vm.count("no-cache");
  request.timeout_floor_s = vm["timeout-floor"].as<double>();
  request.timeout_factor = vm["timeout-factor"].as<double>();
  request.warm_cache = vm.count("warm-cache");
  if (!vm["max-seconds"].defaulted()) request.max_seconds = vm["max-seconds"].as<double>();
  request.fast = vm.count("fast");
  request.sampling = vm["sampling"].as<std::string>();
  request.compile_only = vm.count("compile-only");
  request.arch = vm["arch"].as<std::string>();
  if (vm.count("shard")) request.shard = vm["shard"].as<std::string>();
  request.mpi = vm.count("mpi");
  request.replay_real_time = vm.count("replay-real-time");

  const bool json = vm.count("json");
  SearchOutcome outcome;
  {
    ProgressPrinter printer(!vm.count("quiet"));
    outcome = search(request, std::ref(printer), &install_interrupt_handler());
  }
  print_warnings(outcome.warnings);
  if (outcome.measuring_rank) return 0;  // rank 0 reports
  if (outcome.compile_only) {
    std::cout << compile_only_text(outcome, json, vm.count("warnings") > 0);
    if (outcome.interrupted) return kInterrupted;
    return outcome.compile_failures() ? kSomeVariantsFailed : 0;
  }
  const size_t top = vm.count("top") ? vm["top"].as<size_t>()
                     : json          ? ResultReport::kAllRows
                                     : kTableRows;
  if (json && outcome.profiling_reported) {
    auto document = nlohmann::ordered_json::parse(outcome.report.json(top));
    document["profiling"] = {{"asked", outcome.profiles_asked},
                             {"profiled", outcome.profiles_taken},
                             {"seconds", outcome.profiling_s},
                             {"share_of_wall_time", outcome.profiling_share},
                             {"summary", outcome.profiling}};
    std::cout << document.dump(2) << "\n";
  } else {
    std::cout << (json ? outcome.report.json(top) + "\n" : outcome.report.table(top));
  }
  if (!json && vm.count("warnings")) std::cout << outcome.report.compiler_warnings();
  if (!outcome.profiling.empty()) std::cerr << outcome.profiling << "\n";
  return outcome.interrupted ? kInterrupted : 0;
}

const CommandRegistrar kRegistrar{
    {"search", "search SPEC",
     "compile, check and time the variants of a spec's space on the GPU; every\n"
     "attempt is stored in the database, and a rerun measures nothing twice",
     10, run}};

}  // namespace
}  // namespace gputune::cli
