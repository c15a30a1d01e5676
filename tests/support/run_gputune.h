#pragma once
// Runs the gputune binary as a user would and keeps what it said and how it exited.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "test_paths.h"

namespace gputune::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

// Runs a shell command line, keeping stdout and stderr apart.
inline CommandResult run_command(const std::string& command_line) {
  namespace fs = std::filesystem;
  fs::path err_file = fs::temp_directory_path() / ("gputune_cli_err_" + std::to_string(getpid()));
  std::string command = command_line + " 2>" + err_file.string();
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) {
    result.out.append(buffer.data(), n);
  }
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  result.err.assign(std::istreambuf_iterator<char>(in), {});
  fs::remove(err_file);
  return result;
}

inline CommandResult run_gputune(const std::string& args) {
  return run_command(test::gputune_binary() + " " + args);
}

}  // namespace gputune::testing
