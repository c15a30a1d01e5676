#pragma once
// What the replay benchmarks (strategy_bench.cpp, prune_bench.cpp) share: their command lines,
// their tables' dates, commits and figures.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gputune/error.h"

namespace gputune {

// The command line, parsed with Boost.Program_options as gputune's own is (src/cli/options.h):
// `visible`'s options (--help among them) and the recordings as operands. nullopt after printing
// the options for --help; Error(kUsage) for an option they do not take or a value they cannot.
inline std::optional<boost::program_options::variables_map> parse_bench_options(
    int argc, char** argv, const boost::program_options::options_description& visible,
    std::vector<std::string>* recordings) {
  namespace po = boost::program_options;
  po::options_description all;
  all.add(visible).add_options()("recording", po::value(recordings));
  po::positional_options_description operands;
  operands.add("recording", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(operands).run(), vm);
    if (vm.count("help")) {
      std::cout << visible;
      return std::nullopt;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw Error(ErrorCode::kUsage, e.what());
  }
  return vm;
}

// A default as --help shows it: 1.1, not 1.1000000000000001.
inline std::string shown(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// What `command` prints on stdout, as it is.
inline std::string command_output(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    pclose(pipe);
  }
  return out;
}

// The checkout's short commit, "unknown" outside git.
inline std::string source_commit(const std::string& source_dir) {
  std::string out =
      command_output("git -C '" + source_dir + "' rev-parse --short HEAD 2>/dev/null");
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

inline std::string today() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

inline std::string fixed(double v, int digits) {
  std::ostringstream out;
  out.precision(digits);
  out << std::fixed << v;
  return out.str();
}

template <typename T>
T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? T() : v[v.size() / 2];
}

// Evaluations to a target, ">cap" where a run never reached it (cap + 1).
inline std::string evaluations(size_t value, size_t cap) {
  return value > cap ? ">" + std::to_string(cap) : std::to_string(value);
}

}  // namespace gputune
