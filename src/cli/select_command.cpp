#include <sysexits.h>

#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/error.h"
#include "gputune/select.h"

namespace gputune::cli {
namespace {

const char kExamples[] =
    "examples:\n"
    "  gputune select spaces/sgemm.yaml --set m=3000,n=3000,k=1000 --db sgemm.gtrel --explain\n"
    "  gputune select transpose --set n=6000 --db mine.gtrel --db shipped.gtrel \\\n"
    "      --device-name 'NVIDIA H100 80GB HBM3' --cc 9.0 --sm-count 132 --json\n";

std::string launch_text(const runtime::LaunchGeometry& l) {
  auto dims = [](const std::array<uint32_t, 3>& d) {
    return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
           ")";
  };
  return l.kernel + " grid " + dims(l.grid) + " block " + dims(l.block) + " shared " +
         std::to_string(l.dynamic_shared_bytes) + " B";
}

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune select SPEC [options]\n\n"
      "The config the run-time library (gputune::runtime) picks for SPEC at its problem values\n"
      "(after --set) on a GPU, from release databases: the tier that answered (override, exact,\n"
      "nearest_problem, same_family, model, default), the layer, the distance and the launch\n"
      "geometry. SPEC is a spec file or shipped spec's name, or a kernel's name as the release\n"
      "database stores it. Runs nothing; without a GPU, describe one.\n\noptions");
  auto add = options.add_options();
  add("spec", po::value<std::string>(), "spec file, shipped spec's name, or kernel name");
  add("set", po::value<std::vector<std::string>>()->composing(),
      "problem values: --set n=4096, --set m=4096,n=2048 (repeatable)");
  add("db", po::value<std::vector<std::string>>()->composing(),
      "release database (.gtrel), repeatable: the first given wins within a tier");
  add("device-name", po::value<std::string>(), "describe a GPU instead of using GPU 0: its name");
  add("cc", po::value<std::string>(), "the described GPU's compute capability, as 9.0");
  add("sm-count", po::value<int>(), "the described GPU's number of SMs");
  add("explain", "say which tier answered and why each tier above it did not");
  add("strict", "fail on bad input (a missing or foreign file, ...) instead of warning");
  add("json", "write JSON to stdout");
  add("help,h", "show this help");
  po::positional_options_description positional;
  positional.add("spec", 1);
  const auto parsed = parse(args, options, positional, kExamples);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  SelectRequest request;
  request.spec_or_kernel = required_spec(vm);
  request.overrides = parse_overrides(vm);
  if (!vm.count("db")) {
    throw Error(ErrorCode::kUsage,
                "gputune select needs --db FILE: a release database (built by gputune release)");
  }
  request.dbs = vm["db"].as<std::vector<std::string>>();
  if (vm.count("device-name")) request.device_name = vm["device-name"].as<std::string>();
  if (vm.count("cc")) request.cc = vm["cc"].as<std::string>();
  if (vm.count("sm-count")) request.sm_count = vm["sm-count"].as<int>();
  request.strict = vm.count("strict") > 0;
  const SelectOutcome outcome = select_config(request);
  for (const std::string& warning : outcome.warnings) {
    std::cerr << "gputune select: warning: " << warning << "\n";
  }
  const runtime::Selection& s = outcome.selection;
  if (vm.count("json")) {
    std::cout << s.to_json() << "\n";
    return 0;
  }
  std::printf("%s: %s", outcome.kernel.c_str(), runtime::tier_name(s.tier));
  if (!s.layer.empty()) std::printf(" from %s", s.layer.c_str());
  if (s.tier == runtime::Tier::kNearestProblem || s.tier == runtime::Tier::kSameFamily) {
    std::printf(" (distance %.3f)", s.distance);
  }
  if (s.predicted_ms >= 0) std::printf(", %.4g ms", s.predicted_ms);
  std::printf("\n");
  std::string config;
  for (const runtime::Parameter& p : s.config) {
    config += (config.empty() ? "" : ", ") + p.name + "=" + p.text;
  }
  if (config.empty()) {
    // The explanation's first line says why nothing was selected (no release database holds
    // the kernel, or holds it tuned on another source).
    config = "(none: " + s.explanation.substr(0, s.explanation.find('\n')) + ")";
  }
  std::printf("  config: %s\n", config.c_str());
  for (const runtime::LaunchGeometry& l : s.launches) {
    std::printf("  launch: %s\n", launch_text(l).c_str());
  }
  if (vm.count("explain")) std::printf("%s\n", s.explanation.c_str());
  return 0;
}

const CommandRegistrar kRegistrar{
    {"select", "select SPEC", "the config a release database gives an application", 60, run}};

}  // namespace
}  // namespace gputune::cli
