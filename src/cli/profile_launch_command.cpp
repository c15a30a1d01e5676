#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/analysis.h"

namespace gputune::cli {
namespace {

// What `gputune analyze` has ncu run: variants launched once each, in a process of their own.
int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune profile-launch SPEC --config-json JSON [--config-json JSON ...] [--set ...]\n"
      "                       [--manifest FILE] [--stop-file FILE] [--device N]\n\n"
      "Internal: launches variants once each and exits, for ncu (gputune analyze runs it).\n"
      "Modules come from the module cache; a miss is compiled here.\n\n"
      "options");
  add_spec_options(options);
  options.add_options()("config-json", po::value<std::vector<std::string>>()->required(),
                        "a config, as the database stores it; repeat for a batch")(
      "manifest", po::value<std::string>()->default_value(""),
      "append a JSON line per variant launched (a batch: only the variants' checked launches "
      "are inside the profiler's range)")("stop-file", po::value<std::string>()->default_value(""),
                                          "launch no further variant once this file exists")(
      "cache-dir", po::value<std::string>()->default_value(""),
      "the module cache (default: ~/.cache/gputune/modules)")(
      "no-cache", "compile every variant here")("device", po::value<int>()->default_value(0),
                                                "the GPU's ordinal");
  po::positional_options_description positional;
  positional.add("spec", 1);
  const auto parsed = parse(args, options, positional);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  ProfileLaunchRequest request;
  request.spec = required_spec(vm);
  request.overrides = parse_overrides(vm);
  request.configs = vm["config-json"].as<std::vector<std::string>>();
  request.manifest = vm["manifest"].as<std::string>();
  request.stop_file = vm["stop-file"].as<std::string>();
  request.cache_dir = vm["cache-dir"].as<std::string>();
  request.use_cache = vm.count("no-cache") == 0;
  request.device = vm["device"].as<int>();
  return profile_launch(request);
}

const CommandRegistrar kRegistrar{{"profile-launch", "profile-launch SPEC", "", 1000, run}};

}  // namespace
}  // namespace gputune::cli
