#include "cli/options.h"

#include <iostream>

#include "gputune/error.h"
#include "gputune/search_options.h"
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
  return vm.count("jobs") ? parse_jobs(vm["jobs"].as<std::string>()) : 0;
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

Spec open_spec_of(const po::variables_map& vm) {
  Spec spec = open_spec(required_spec(vm), parse_overrides(vm));
  print_warnings(spec.warnings);
  return spec;
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) std::cerr << "gputune: warning: " << warning << "\n";
}

}  // namespace gputune::cli
