#include <sysexits.h>

#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/error.h"
#include "gputune/results.h"
#include "gputune/session.h"
#include "gputune/transforms.h"

namespace gputune::cli {
namespace {

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune source SPEC [options]\n\n"
      "A variant's kernel file as it is compiled, after the transformation engine's rewrite\n"
      "(docs/engine.md); the baseline's without a choice. Its launches go to stderr.\n\n"
      "options");
  add_spec_options(options);
  auto add = options.add_options();
  add("config", po::value<std::string>(),
      "the variant: '{\"thread_merge_y\":2}' or thread_merge_y=2,unroll=4 (the rest at the "
      "baseline's values)");
  add("index", po::value<uint64_t>(), "the variant with this index of the space");
  add("best", "the best variant stored in --db for SPEC (the first GPU's)");
  add("diff", "a unified diff against the kernel file instead of the whole file");
  po::positional_options_description positional;
  positional.add("spec", 1);
  const auto parsed = parse(args, options, positional,
                            "\nexamples:\n"
                            "  gputune source matmul.yaml --config '{\"thread_merge_y\":4}'\n"
                            "  gputune source matmul.yaml --best --db gputune.db --diff\n");
  if (!parsed) return 0;
  const auto& vm = *parsed;
  if (vm.count("config") + vm.count("index") + vm.count("best") > 1) {
    throw Error(ErrorCode::kUsage, "--config, --index and --best choose the variant; give one");
  }
  VariantChoice choice;
  if (vm.count("config")) choice.config = vm["config"].as<std::string>();
  if (vm.count("index")) choice.index = vm["index"].as<uint64_t>();
  if (vm.count("best")) choice.best_db = vm["db"].as<std::string>();
  const VariantSource variant = variant_source(open_spec_of(vm), choice);
  if (vm.count("json")) {
    std::cout << variant.json() << "\n";
    return 0;
  }
  std::cerr << "gputune source: " << config_text(variant.config);
  if (!variant.device.empty()) std::cerr << " (best on " << variant.device << ")";
  std::cerr << "\n";
  for (const VariantSource::Launch& launch : variant.launches) {
    std::cerr << "  launch " << launch.kernel << " block [" << launch.block[0] << ", "
              << launch.block[1] << ", " << launch.block[2] << "] grid [" << launch.grid[0] << ", "
              << launch.grid[1] << ", " << launch.grid[2] << "]";
    if (!launch.trailing_arguments.empty()) {
      std::cerr << ", then the trailing arguments";
      for (uint32_t value : launch.trailing_arguments) std::cerr << " " << value << "u";
    }
    std::cerr << "\n";
  }
  if (!variant.pruned.empty()) {
    std::cerr << "gputune source: warning: the space leaves this config out: " << variant.pruned
              << "\n";
  }
  if (!variant.refusal.empty()) {
    std::cerr << "gputune source: the engine cannot rewrite the kernel for this config: "
              << variant.refusal << "\n";
    return EX_DATAERR;
  }
  std::cout << (vm.count("diff") ? variant.diff() : variant.source);
  return 0;
}

const CommandRegistrar kRegistrar{
    {"source", "source SPEC",
     "a variant's kernel file after the transformation engine's rewrite (or its diff)", 26, run}};

}  // namespace
}  // namespace gputune::cli
