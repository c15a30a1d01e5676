#include <sysexits.h>
#include <unistd.h>

#include <climits>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/analysis.h"

namespace gputune::cli {
namespace {

std::string self_path() {
  char buffer[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "gputune";
}

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune analyze SPEC [--config k=v,... | --best | --baseline] [options]\n\n"
      "Why a variant is slow. Profiles one launch of it with Nsight Compute (ncu) in a program\n"
      "of its own, under a watchdog, and walks the bottleneck method: global memory\n"
      "(achieved against required occupancy, DRAM share of peak), shared memory (bank\n"
      "conflicts), execution dependency (eligible warps, dependency stalls), instructions\n"
      "(issue slots, pipes). Ends with a verdict and the parameters of this space that\n"
      "address it (a spec's remedies: map; docs/bottleneck.md). The counters are stored with\n"
      "the variant's measurement when the database has this workload.\n\noptions");
  add_spec_options(options);
  options.add_options()("config", po::value<std::string>(),
                        "the variant: NAME=VALUE,... (the rest from the baseline)")(
      "best", "the workload's best stored variant")(
      "baseline", "the spec's baseline (the default)")("device", po::value<int>()->default_value(0),
                                                       "the GPU's ordinal")(
      "timeout", po::value<double>()->default_value(120),
      "seconds the profiled launch may take, ncu's replays included")(
      "ncu", po::value<std::string>()->default_value(""),
      "ncu's path (default: $GPUTUNE_NCU, PATH, $CUDA_HOME/bin)");
  po::positional_options_description positional;
  positional.add("spec", 1);
  const auto parsed = parse(args, options, positional,
                            "examples:\n"
                            "  gputune analyze transpose --baseline\n"
                            "  gputune analyze sgemm --best --db runs.db\n"
                            "  gputune analyze transpose --config PAD=1 --json\n");
  if (!parsed) return 0;
  const auto& vm = *parsed;
  if (vm.count("config") + vm.count("best") + vm.count("baseline") > 1) {
    std::cerr << "gputune analyze: give one of --config, --best and --baseline\n";
    return EX_USAGE;
  }
  AnalyzeRequest request;
  request.spec = required_spec(vm);
  request.overrides = parse_overrides(vm);
  request.db = vm["db"].as<std::string>();
  if (vm.count("config")) request.config = vm["config"].as<std::string>();
  request.best = vm.count("best") > 0;
  request.device = vm["device"].as<int>();
  request.timeout_s = vm["timeout"].as<double>();
  request.ncu = vm["ncu"].as<std::string>();
  request.self = self_path();
  const AnalysisOutcome outcome = analyze(request);
  if (vm.count("json")) {
    nlohmann::json out = {{"profiled", outcome.profiled},
                          {"message", outcome.message},
                          {"config", nlohmann::json::parse(outcome.config)},
                          {"step", outcome.step},
                          {"verdict", outcome.verdict},
                          {"knobs", outcome.knobs},
                          {"counters", outcome.counters},
                          {"profile_s", outcome.profile_s},
                          {"stored", outcome.stored}};
    std::cout << out.dump(2) << "\n";
  } else if (outcome.profiled) {
    std::cout << outcome.report;
    if (!outcome.stored) {
      std::cout << "(not stored: " << request.db.value_or("")
                << " has no search of this workload)\n";
    }
  }
  if (!outcome.profiled) {
    std::cerr << "gputune analyze: " << outcome.message << "\n";
    return EX_UNAVAILABLE;
  }
  return 0;
}

const CommandRegistrar kRegistrar{{"analyze", "analyze SPEC",
                                   "why a variant is slow: hardware counters and the bottleneck",
                                   35, run}};

}  // namespace
}  // namespace gputune::cli
