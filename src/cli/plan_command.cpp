#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/session.h"

namespace gputune::cli {
namespace {

// --sweep n=1024,2048,4096
std::pair<std::string, std::vector<std::string>> parse_sweep(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw Error(ErrorCode::kUsage,
                "--sweep " + text + ": expected name=value,value,..., such as --sweep n=1024,2048");
  }
  std::vector<std::string> values;
  std::string rest = text.substr(eq + 1);
  for (size_t start = 0;;) {
    const size_t comma = rest.find(',', start);
    values.push_back(rest.substr(start, comma - start));
    if (values.back().empty()) {
      throw Error(ErrorCode::kUsage, "--sweep " + text +
                                         ": an empty value; expected "
                                         "name=value,value,...");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return {text.substr(0, eq), values};
}

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune plan SPEC... [options]\n\n"
      "Lists the shards of a tuning campaign, for a Slurm job array or any batch system: each\n"
      "spec at each combination of the --sweep values is a workload, dealt to the shards in\n"
      "turn; a single workload is split by config index instead (a brute-force search, search\n"
      "--shard K/N). Each shard writes its own database; gputune merge joins them, and a\n"
      "shard that was lost simply runs again. The same arguments always give the same plan.\n"
      "See docs/cluster.md.\n\noptions");
  auto add = options.add_options();
  add("spec", po::value<std::vector<std::string>>(), "spec files or shipped specs' names");
  add("set", po::value<std::vector<std::string>>()->composing(),
      "problem values for every workload: --set m=4096 (repeatable)");
  add("sweep", po::value<std::vector<std::string>>()->composing(),
      "problem values to sweep: --sweep n=1024,2048,4096 (repeatable: every combination)");
  add("shards", po::value<uint64_t>()->default_value(1), "how many shards (array tasks)");
  add("db", po::value<std::string>()->default_value("shard-{K}.db"),
      "each shard's database; {K} becomes the shard's index");
  add("search-options", po::value<std::string>()->default_value(""),
      "appended to every gputune search command, such as \"--fast --devices all\"");
  add("commands", po::value<uint64_t>(),
      "print only shard K's commands, one per line, for a job script to run");
  add("json", "write the plan as JSON");
  add("help,h", "show this help");
  po::positional_options_description positional;
  positional.add("spec", -1);
  const auto parsed =
      parse(args, options, positional,
            "\nexamples:\n"
            "  gputune plan transpose reduce --sweep n=1024,2048,4096 --shards 4\n"
            "  gputune plan transpose --shards 8          # one space, by config index\n"
            "  gputune plan transpose --shards 8 --commands $SLURM_ARRAY_TASK_ID | sh\n");
  if (!parsed) return 0;
  const auto& vm = *parsed;
  CampaignRequest request;
  if (vm.count("spec")) request.specs = vm["spec"].as<std::vector<std::string>>();
  request.overrides = parse_overrides(vm);
  if (vm.count("sweep")) {
    for (const auto& sweep : vm["sweep"].as<std::vector<std::string>>()) {
      request.sweeps.push_back(parse_sweep(sweep));
    }
  }
  request.shards = vm["shards"].as<uint64_t>();
  request.db_pattern = vm["db"].as<std::string>();
  request.search_options = vm["search-options"].as<std::string>();
  const std::vector<PlannedShard> shards = plan_campaign(request);

  if (vm.count("commands")) {
    const uint64_t k = vm["commands"].as<uint64_t>();
    if (k >= shards.size()) {
      throw Error(ErrorCode::kUsage, "--commands " + std::to_string(k) +
                                         ": expected a shard from 0 to " +
                                         std::to_string(shards.size() - 1) + " (--shards " +
                                         std::to_string(shards.size()) + ")");
    }
    for (const std::string& command : shards[k].commands) std::cout << command << "\n";
    return 0;
  }
  if (vm.count("json")) {
    std::cout << plan_json(shards) << "\n";
    return 0;
  }
  for (const PlannedShard& shard : shards) {
    std::cout << "shard " << shard.index << "/" << shard.count << " -> " << shard.db << "\n";
    for (size_t i = 0; i < shard.workloads.size(); ++i) {
      const PlannedWorkload& w = shard.workloads[i];
      std::cout << "  " << w.title << ": " << (w.configs_estimated ? "about " : "") << w.configs
                << " configs" << (w.configs_estimated ? " (estimated from a sample)" : "")
                << "\n    " << shard.commands[i] << "\n";
    }
    if (shard.workloads.empty()) std::cout << "  (nothing: more shards than workloads)\n";
  }
  return 0;
}

const CommandRegistrar kRegistrar{
    {"plan", "plan SPEC...",
     "list the shards of a campaign (specs x problem sizes, or one space by config\n"
     "index) for a job array; each shard runs gputune search into its own database",
     70, run}};

}  // namespace
}  // namespace gputune::cli
