#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/analysis.h"

namespace gputune::cli {
namespace {

// What `gputune analyze` has ncu run: one launch of one variant in a process of its own.
int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune profile-launch SPEC --config-json JSON [--set ...] [--device N]\n\n"
      "Internal: launches one variant once and exits, for ncu (gputune analyze runs it).\n\n"
      "options");
  add_spec_options(options);
  options.add_options()("config-json", po::value<std::string>()->required(),
                        "the config, as the database stores it")(
      "device", po::value<int>()->default_value(0), "the GPU's ordinal");
  po::positional_options_description positional;
  positional.add("spec", 1);
  const auto parsed = parse(args, options, positional);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  ProfileLaunchRequest request;
  request.spec = required_spec(vm);
  request.overrides = parse_overrides(vm);
  request.config_json = vm["config-json"].as<std::string>();
  request.device = vm["device"].as<int>();
  profile_launch(request);
  return 0;
}

const CommandRegistrar kRegistrar{{"profile-launch", "profile-launch SPEC", "", 1000, run}};

}  // namespace
}  // namespace gputune::cli
