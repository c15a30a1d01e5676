#include <sysexits.h>

#include <algorithm>
#include <boost/program_options/errors.hpp>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "gputune/error.h"
#include "gputune/session.h"

namespace {

// The command list comes from the commands themselves (cli/command.h).
std::string usage() {
  std::ostringstream out;
  out << "gputune: an empirical autotuner for CUDA kernels\n\n"
      << "usage: gputune <command> [options]\n\ncommands:\n";
  for (const auto& command : gputune::cli::commands()) {
    if (command.summary.empty()) continue;  // internal (profile-launch)
    std::string summary = command.summary;
    for (size_t at = summary.find('\n'); at != std::string::npos; at = summary.find('\n', at)) {
      summary.insert(at + 1, 16, ' ');
      at += 17;
    }
    // A synopsis as wide as the column gets a line of its own, so it never runs into its summary.
    if (command.synopsis.size() >= 14) {
      out << "  " << command.synopsis << "\n" << std::string(16, ' ') << summary << "\n";
    } else {
      out << "  " << std::left << std::setw(14) << command.synopsis << summary << "\n";
    }
  }
  out << R"(
`gputune <command> --help` tells more. SPEC is a YAML file or the name of a shipped spec.
Data goes to stdout, progress and errors to stderr. Exit codes: 0 ok, 1 some variants failed
to compile (--compile-only), 64 usage, 65 bad input data, 69 no GPU, 70 internal error,
73 the database cannot be created or written, 74 a file cannot be read, 130 interrupted.
)";
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << usage();
    return args.empty() ? EX_USAGE : 0;
  }
  if (args[0] == "--version") {
    std::cout << "gputune " << GPUTUNE_CLI_VERSION << "\n";
    return 0;
  }
  const auto all = gputune::cli::commands();
  auto command = std::find_if(all.begin(), all.end(),
                              [&](const gputune::cli::Command& c) { return c.name == args[0]; });
  if (command == all.end()) {
    std::vector<std::string> names;
    for (const auto& c : all) {
      if (!c.summary.empty()) names.push_back(c.name);
    }
    std::cerr << "gputune: unknown command '" << args[0] << "'"
              << gputune::did_you_mean(args[0], names) << "\n\n"
              << usage();
    return EX_USAGE;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    return command->run(rest);
  } catch (const gputune::Error& e) {
    std::cerr << "gputune " << args[0] << ": " << e.what() << "\n";
    return gputune::exit_code_for(e.code());
  } catch (const boost::program_options::error& e) {
    std::cerr << "gputune " << args[0] << ": " << e.what() << " (see gputune " << args[0]
              << " --help)\n";
    return EX_USAGE;
  } catch (const std::exception& e) {
    std::cerr << "gputune " << args[0] << ": internal error: " << e.what() << "\n";
    return EX_SOFTWARE;
  }
}
