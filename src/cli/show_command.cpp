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
      "gputune show [options]\n\n"
      "Every workload in the database (spec, problem values, GPU) with its best variant.\n\n"
      "options");
  auto add = options.add_options();
  add("db", po::value<std::string>()->default_value("gputune.db"), "database file");
  add("json", "write JSON to stdout instead of a table");
  add("warnings", "each workload's compiler warnings, with the variants that got them");
  add("help,h", "show this help");
  const auto parsed = parse(args, options, {});
  if (!parsed) return 0;
  const auto& vm = *parsed;
  std::string db = vm["db"].as<std::string>();
  nlohmann::json out = nlohmann::json::array();
  for (const WorkloadInfo& w : stored_workloads(db)) {
    const double speedup = w.speedup();
    if (vm.count("json")) {
      nlohmann::json row = nlohmann::json::parse(workload_record(w));
      if (vm.count("warnings")) {
        row["compiler_warnings"] = load_stored(db, w.id).report.compiler_warnings();
      }
      out.push_back(row);
      continue;
    }
    std::printf("#%lld %s %s on %s: %lld attempts, %lld ok\n", static_cast<long long>(w.id),
                w.spec_path.c_str(), config_text(w.problem_json).c_str(), w.device.name.c_str(),
                static_cast<long long>(w.attempts), static_cast<long long>(w.ok));
    if (w.best) {
      std::printf("    best %.4f ms", w.best->median_ms());
      if (speedup > 0) std::printf(" (%.2fx the baseline)", speedup);
      std::printf(": %s\n", config_text(w.best->config).c_str());
    }
    if (vm.count("warnings")) std::cout << load_stored(db, w.id).report.compiler_warnings();
  }
  if (vm.count("json")) std::cout << json_text(out, 2) << "\n";
  return 0;
}

const CommandRegistrar kRegistrar{
    {"show", "show", "the workloads in a database and their best variants", 30, run}};

}  // namespace
}  // namespace gputune::cli
