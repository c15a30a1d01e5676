#pragma once
#include <string>
#include <vector>

namespace gputune::cli {

// Each command takes its own arguments (without the command name) and returns an exit code.
int search_command(const std::vector<std::string>& args);
int best_command(const std::vector<std::string>& args);
int show_command(const std::vector<std::string>& args);
int list_command(const std::vector<std::string>& args);
int export_command(const std::vector<std::string>& args);

}  // namespace gputune::cli
