#include <sysexits.h>

#include <boost/program_options/errors.hpp>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "gputune/error.h"

namespace {

constexpr const char* kUsage = R"(gputune: an empirical autotuner for CUDA kernels

usage: gputune <command> [options]

commands:
  search SPEC   compile, check and time the variants of a spec's space on the GPU; every
                attempt is stored in the database, and a rerun measures nothing twice
  best SPEC     the best variant stored for a spec and its problem values
  show          the workloads in a database and their best variants
  list          the specs shipped with gputune
  export        write a database's workloads as text recordings, which
                `gputune search --replay FILE` answers from without a GPU

`gputune <command> --help` tells more. SPEC is a YAML file or the name of a shipped spec.
Data goes to stdout, progress and errors to stderr. Exit codes: 0 ok, 1 some variants failed
to compile (--compile-only), 64 usage, 65 bad spec, 69 no GPU, 70 internal error,
130 interrupted.
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? EX_USAGE : 0;
  }
  if (args[0] == "--version") {
    std::cout << "gputune " << GPUTUNE_CLI_VERSION << "\n";
    return 0;
  }
  const std::map<std::string, int (*)(const std::vector<std::string>&)> commands = {
      {"search", gputune::cli::search_command}, {"best", gputune::cli::best_command},
      {"show", gputune::cli::show_command},     {"list", gputune::cli::list_command},
      {"export", gputune::cli::export_command},
  };
  auto command = commands.find(args[0]);
  if (command == commands.end()) {
    std::cerr << "gputune: unknown command '" << args[0] << "'\n\n" << kUsage;
    return EX_USAGE;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    return command->second(rest);
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
