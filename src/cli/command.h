#pragma once
#include <string>
#include <vector>

namespace gputune::cli {

// One `gputune <name>` command. Each lives in its own <name>_command.cpp and registers itself;
// `gputune --help` lists them by `order`.
struct Command {
  std::string name;
  std::string synopsis;  // "search SPEC": the command as the usage text shows it
  std::string summary;   // what it does, in a line or two
  int order = 0;
  // Takes the arguments after the command name; returns the exit code.
  int (*run)(const std::vector<std::string>& args) = nullptr;
};

struct CommandRegistrar {
  explicit CommandRegistrar(Command command);
};

// Every registered command, by order.
std::vector<Command> commands();

}  // namespace gputune::cli
