#include <sysexits.h>
#include <unistd.h>

#include <climits>
#include <iostream>

#include "cli/analyze_many_output.h"
#include "cli/command.h"
#include "cli/interrupt.h"
#include "cli/options.h"
#include "gputune/analysis.h"
#include "gputune/json_text.h"

namespace gputune::cli {
namespace {

std::string self_path() {
  char buffer[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "gputune";
}

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune analyze SPEC [--config k=v,... | --best | --baseline] [options]\n"
      "gputune analyze SPEC (--all | --top N | --configs FILE) [--batch N] [options]\n\n"
      "Why a variant is slow. Profiles one launch of it with Nsight Compute (ncu) in a program\n"
      "of its own, under a watchdog, and walks the bottleneck method: global memory\n"
      "(achieved against required occupancy, DRAM share of peak), shared memory (bank\n"
      "conflicts), execution dependency (eligible warps, dependency stalls), instructions\n"
      "(issue slots, pipes). Ends with a verdict and the parameters of this space that\n"
      "address it, and which way to turn them where the spec says (raise UNROLL, lower BM;\n"
      "a spec's remedies: map; docs/bottleneck.md). The counters are stored with the\n"
      "variant's measurement when the database has this workload.\n\n"
      "Many variants at once (--all, --top, --configs): compiles them first, in parallel,\n"
      "into the module cache, then profiles a batch of them per ncu run over one launcher\n"
      "process; progress on stderr, a table (config, time, bottleneck step, the number that\n"
      "decided it) on stdout. A variant that crashes or hangs the launcher is marked failed\n"
      "and the rest of its batch runs again. Ctrl-C (SIGINT, SIGTERM) stops after the\n"
      "variant in flight and keeps what was stored.\n\n"
      "With --stored, profiles nothing: shows the counters --db already holds for the variant\n"
      "(taken by analyze, a bottleneck search, or a replayed recording), without a "
      "GPU.\n\noptions");
  add_spec_options(options);
  options.add_options()("config", po::value<std::string>(),
                        "the variant: NAME=VALUE,... (the rest from the baseline)")(
      "best", "the workload's best stored variant")("baseline",
                                                    "the spec's baseline (the default)")(
      "stored", "show the counters --db already stores for the variant; profiles nothing")(
      "device", po::value<int>()->default_value(0), "the GPU's ordinal")(
      "timeout", po::value<double>()->default_value(120),
      "seconds the profiled launch may take, ncu's replays included")(
      "ncu", po::value<std::string>()->default_value(""),
      "ncu's path (default: $GPUTUNE_NCU, PATH, $CUDA_HOME/bin)")(
      "profiler", po::value<std::string>()->default_value("ncu"),
      "ncu (Nsight Compute, a launcher program of its own) or cupti (CUPTI's range profiler in "
      "a GPU worker, as searches profile: much quicker, without SASS-patched branch counts); "
      "one variant only")("all",
                          "every measured ok variant of the workload in --db, fastest first")(
      "top", po::value<size_t>(), "the N fastest measured ok variants")(
      "configs", po::value<std::string>(),
      "a file of variants, one NAME=VALUE,... per line (the rest from the baseline; # comments)")(
      "unprofiled",
      "leave out variants that already have counters in --db (resumes a run cut short)")(
      "batch", po::value<size_t>()->default_value(64), "variants per ncu run")(
      "variant-timeout", po::value<double>()->default_value(10),
      "seconds each variant adds to a batch's watchdog (--timeout plus this per variant)")(
      "jobs,j", po::value<std::string>(),
      "compile workers (default: one per CPU this process may use)")(
      "cache-dir", po::value<std::string>()->default_value(""),
      "the module cache (default: ~/.cache/gputune/modules)")("no-cache",
                                                              "do not use the module cache");
  po::positional_options_description positional;
  positional.add("spec", 1);
  const auto parsed =
      parse(args, options, positional,
            "examples:\n"
            "  gputune analyze transpose --baseline\n"
            "  gputune analyze sgemm --best --db runs.db\n"
            "  gputune analyze transpose --config SHARED=1,PAD=1 --json\n"
            "  gputune analyze transpose --config PAD=0 --profiler cupti\n"
            "  gputune analyze sgemm --set m=1024,n=1024,k=1024 --all --db runs.db\n"
            "  gputune analyze sgemm --top 20 --batch 10 --db runs.db\n"
            "  gputune analyze sgemm --all --unprofiled --db runs.db   # resume\n"
            "  gputune analyze sgemm --best --stored --db runs.db      # no GPU needed\n");
  if (!parsed) return 0;
  const auto& vm = *parsed;
  const size_t singles = vm.count("config") + vm.count("best") + vm.count("baseline");
  const size_t manies = vm.count("all") + vm.count("top") + vm.count("configs");
  if (vm.count("unprofiled") && manies == 0) {
    std::cerr << "gputune analyze: --unprofiled goes with --all, --top or --configs\n";
    return EX_USAGE;
  }
  if (vm.count("stored") && manies > 0) {
    std::cerr << "gputune analyze: --stored shows one variant's stored counters; --all, --top "
                 "and --configs profile\n";
    return EX_USAGE;
  }
  if (singles + manies > 1) {
    std::cerr << "gputune analyze: give one of --config, --best, --baseline, --all, --top and "
                 "--configs\n";
    return EX_USAGE;
  }
  AnalyzeRequest request;
  request.spec = required_spec(vm);
  request.overrides = parse_overrides(vm);
  request.db = vm["db"].as<std::string>();
  if (vm.count("config")) request.config = vm["config"].as<std::string>();
  request.best = vm.count("best") > 0;
  request.stored = vm.count("stored") > 0;
  request.device = vm["device"].as<int>();
  request.timeout_s = vm["timeout"].as<double>();
  request.ncu = vm["ncu"].as<std::string>();
  request.self = self_path();
  request.profiler = vm["profiler"].as<std::string>();
  if (request.profiler != "ncu" && request.profiler != "cupti") {
    std::cerr << "gputune analyze: --profiler " << request.profiler << ": expected ncu or cupti\n";
    return EX_USAGE;
  }
  if (request.profiler == "cupti" && manies > 0) {
    std::cerr << "gputune analyze: --profiler cupti profiles one variant; --all, --top and "
                 "--configs profile with ncu\n";
    return EX_USAGE;
  }
  if (manies > 0) {
    AnalyzeManyRequest many;
    many.base = request;
    many.all = vm.count("all") > 0;
    if (vm.count("top")) many.top = vm["top"].as<size_t>();
    if (vm.count("top") && many.top == 0) {
      std::cerr << "gputune analyze: --top 0 profiles nothing; expected a count above 0\n";
      return EX_USAGE;
    }
    if (vm.count("configs")) many.configs_file = vm["configs"].as<std::string>();
    many.batch = vm["batch"].as<size_t>();
    if (many.batch == 0) {
      std::cerr << "gputune analyze: --batch 0: expected at least 1 variant per ncu run\n";
      return EX_USAGE;
    }
    many.variant_timeout_s = vm["variant-timeout"].as<double>();
    many.jobs = jobs_option(vm);
    many.cache_dir = vm["cache-dir"].as<std::string>();
    many.use_cache = vm.count("no-cache") == 0;
    many.unprofiled = vm.count("unprofiled") > 0;
    const std::atomic<bool>& stop = install_interrupt_handler();
    const AnalyzeManyOutcome outcome = analyze_many(many, print_analyze_progress, &stop);
    print_warnings(outcome.warnings);
    std::cout << (vm.count("json") ? analyze_many_json(outcome) : analyze_many_table(outcome));
    std::cerr << analyze_many_summary(outcome, request.db.value_or(""));
    if (!outcome.unavailable.empty()) return EX_UNAVAILABLE;
    return outcome.profiled > 0 || outcome.variants.empty() ? 0 : EX_UNAVAILABLE;
  }
  const AnalysisOutcome outcome = analyze(request);
  print_warnings(outcome.warnings);
  if (vm.count("json")) {
    std::cout << json_text(analysis_json(outcome), 2) << "\n";
  } else if (outcome.profiled) {
    std::cout << outcome.report;
    if (!outcome.stored && !request.stored) {
      std::cout << "(not stored: " << request.db.value_or("")
                << " has no search of this workload)\n";
    }
  }
  if (!outcome.profiled) {
    std::cerr << "gputune analyze: " << outcome.message << "\n";
    return request.stored ? EX_DATAERR : EX_UNAVAILABLE;  // none stored, or none could be taken
  }
  return 0;
}

const CommandRegistrar kRegistrar{{"analyze", "analyze SPEC",
                                   "why a variant is slow: hardware counters and the bottleneck",
                                   35, run}};

}  // namespace
}  // namespace gputune::cli
