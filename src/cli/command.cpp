#include "cli/command.h"

#include <algorithm>
#include <utility>

namespace gputune::cli {

namespace {
std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace

CommandRegistrar::CommandRegistrar(Command command) { registry().push_back(std::move(command)); }

std::vector<Command> commands() {
  std::vector<Command> sorted = registry();
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Command& a, const Command& b) { return a.order < b.order; });
  return sorted;
}

}  // namespace gputune::cli
