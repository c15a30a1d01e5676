#include "cli/options.h"

#include <iostream>

#include "gputune/error.h"
#include "gputune/session.h"

namespace gputune::cli {

std::optional<po::variables_map> parse(const std::vector<std::string>& args,
                                       const po::options_description& options,
                                       const po::positional_options_description& positional,
                                       const std::string& examples) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  } catch (const po::unknown_option& e) {
    std::vector<std::string> known;
    for (const auto& option : options.options()) known.push_back("--" + option->long_name());
    const std::string given = e.get_option_name();
    throw Error(ErrorCode::kUsage, "unrecognised option '" + given + "'" +
                                       did_you_mean(given.substr(0, given.find('=')), known));
  }
  if (vm.count("help")) {
    std::cout << options << examples;
    return std::nullopt;
  }
  po::notify(vm);
  return vm;
}

ProblemOverrides parse_overrides(const po::variables_map& vm) {
  if (!vm.count("set")) return {};
  return parse_assignments(vm["set"].as<std::vector<std::string>>());
}

std::string required_spec(const po::variables_map& vm) {
  if (!vm.count("spec")) {
    throw Error(ErrorCode::kUsage, "a SPEC is required (a file or a shipped name)");
  }
  return vm["spec"].as<std::string>();
}

size_t jobs_option(const po::variables_map& vm) {
  if (!vm.count("jobs")) return 0;
  const std::string text = vm["jobs"].as<std::string>();
  const bool digits = !text.empty() && text.size() <= 4 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  const size_t jobs = digits ? std::stoul(text) : 0;
  if (jobs == 0 || jobs > kMaxJobs) {
    throw Error(ErrorCode::kUsage, "--jobs " + text +
                                       ": expected a number of compiler processes "
                                       "from 1 to " +
                                       std::to_string(kMaxJobs) +
                                       " (leave it out for one per CPU)");
  }
  return jobs;
}

void add_spec_options(po::options_description& options) {
  auto add = options.add_options();
  add("spec", po::value<std::string>(), "spec file, or the name of a shipped spec");
  add("set", po::value<std::vector<std::string>>()->composing(),
      "override problem values: --set n=4096, --set m=4096,n=2048 (repeatable)");
  add("db", po::value<std::string>()->default_value("gputune.db"), "database file");
  add("json", "write JSON to stdout instead of a table");
  add("help,h", "show this help");
}

}  // namespace gputune::cli
