#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/session.h"

namespace gputune::cli {
namespace {

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune merge OUT IN... [options]\n\n"
      "Merges result databases (from shards of a campaign, or from other machines) into OUT,\n"
      "which is created if missing: devices, specs, workloads, variants, measurements and\n"
      "searches. Where both measured the same variant of the same workload, the lower median\n"
      "counts (an ok measurement beats a failure) and the other stays as an older attempt.\n"
      "Merging the same file again changes nothing, and a shard run again can simply be merged\n"
      "again. Copied rows keep their origin: the file, the host that created it and their row\n"
      "there (table origins). Inputs are only read (one of an older schema is upgraded in a\n"
      "private copy) and checked whole first: a damaged one is refused, nothing merged from it.\n\n"
      "options");
  auto add = options.add_options();
  add("databases", po::value<std::vector<std::string>>(), "OUT, then each IN");
  add("json", "write what each input brought as JSON");
  add("help,h", "show this help");
  po::positional_options_description positional;
  positional.add("databases", -1);
  const auto parsed = parse(args, options, positional,
                            "\nexamples:\n"
                            "  gputune merge all.db shard-*.db\n"
                            "  gputune merge lab.db cluster.db laptop.db\n");
  if (!parsed) return 0;
  const auto& vm = *parsed;
  std::vector<std::string> databases;
  if (vm.count("databases")) databases = vm["databases"].as<std::vector<std::string>>();
  if (databases.empty()) {
    throw Error(ErrorCode::kUsage,
                "gputune merge: expected OUT and at least one IN, such as gputune merge all.db "
                "shard-*.db");
  }
  const std::string output = databases.front();
  databases.erase(databases.begin());
  const MergeOutcome outcome = merge_databases(output, databases);
  print_warnings(outcome.warnings);
  const std::vector<MergedDatabase>& merged = outcome.inputs;
  if (vm.count("json")) {
    std::cout << outcome.json() << "\n";
    return 0;
  }
  for (const MergedDatabase& m : merged) {
    std::cout << m.input << " (" << m.host << ", " << m.created_at << "): " << m.workloads_added
              << " workloads and " << m.variants_added << " variants new, " << m.replaced
              << " variants faster there, " << m.kept << " kept, " << m.attempts_copied
              << " attempts and " << m.searches_copied << " searches copied\n";
  }
  std::cout << "merged into " << output << "\n";
  return 0;
}

const CommandRegistrar kRegistrar{
    {"merge", "merge OUT IN",
     "merge result databases (shards, other machines) into one; idempotent, the\n"
     "lower median counts, each row keeps its origin",
     75, run}};

}  // namespace
}  // namespace gputune::cli
