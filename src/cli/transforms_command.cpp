#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/session.h"
#include "gputune/transforms.h"

namespace gputune::cli {
namespace {

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune transforms SPEC [options]\n\n"
      "What each transform of SPEC can do with its kernel, and the transformation engine's\n"
      "knobs it could add (docs/engine.md): whether each applies, its legal values in this\n"
      "space and why the others are not, and the statements it changes. Runs nothing.\n\n"
      "options");
  auto add = options.add_options();
  add("spec", po::value<std::string>(), "spec file, or the name of a shipped spec");
  add("set", po::value<std::vector<std::string>>()->composing(),
      "override problem values: --set n=4096 (repeatable)");
  add("json", "write JSON to stdout instead of text");
  add("help,h", "show this help");
  po::positional_options_description positional;
  positional.add("spec", 1);
  const auto parsed = parse(args, options, positional);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  const TransformsReport report = transforms_report(open_spec_of(vm));
  if (vm.count("json")) {
    std::cout << report.json() << "\n";
  } else {
    std::cout << report.text();
  }
  return 0;
}

const CommandRegistrar kRegistrar{
    {"transforms", "transforms SPEC",
     "what each transform and each knob of the engine can do with a spec's kernel", 25, run}};

}  // namespace
}  // namespace gputune::cli
