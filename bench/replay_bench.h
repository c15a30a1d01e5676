#pragma once
// What the replay benchmarks (strategy_bench.cpp, prune_bench.cpp) share: their tables' dates,
// commits and figures.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

namespace gputune {

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
