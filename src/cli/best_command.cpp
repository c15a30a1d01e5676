#include <sysexits.h>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/results.h"
#include "gputune/session.h"

namespace gputune::cli {
namespace {

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune best SPEC [options]\n\n"
      "The fastest correct variant stored for SPEC at its problem values (after --set), per\n"
      "GPU. Runs nothing.\n\noptions");
  add_spec_options(options);
  po::positional_options_description positional;
  positional.add("spec", 1);
  const auto parsed = parse(args, options, positional);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  Spec spec = open_spec_of(vm);
  std::string db = vm["db"].as<std::string>();
  nlohmann::json out = nlohmann::json::array();
  size_t found = 0;
  for (const WorkloadInfo& w : stored_workloads(db, spec)) {
    if (!w.best) continue;
    ++found;
    const Measurement& best = *w.best;
    const double speedup = w.speedup();
    if (vm.count("json")) {
      out.push_back(nlohmann::json::parse(workload_record(w)));
    } else {
      std::printf("%s: %s  %.4f ms", w.device.name.c_str(), config_text(best.config).c_str(),
                  best.median_ms());
      if (speedup > 0) std::printf("  %.2fx the baseline", speedup);
      std::printf("  (%lld variants measured)\n", static_cast<long long>(w.ok));
    }
  }
  if (vm.count("json")) std::cout << json_text(out, 2) << "\n";
  if (!found) {
    std::cerr << "gputune best: nothing measured for " << workload_title(spec) << " in " << db
              << ": " << why_nothing_measured(db, spec) << "\n";
    return EX_DATAERR;
  }
  return 0;
}

const CommandRegistrar kRegistrar{
    {"best", "best SPEC", "the best variant stored for a spec and its problem values", 20, run}};

}  // namespace
}  // namespace gputune::cli
