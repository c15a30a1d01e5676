#include "compile/compiler_log.h"

#include <regex>
#include <sstream>

namespace gputune {

namespace {

// "ptxas info    : Used 22 registers" and its continuation "ptxas         .     0 bytes stack
// frame"; ptxas's warnings and errors say "ptxas warning" and "ptxas error".
bool is_resource_report(const std::string& line) {
  static const std::regex kReport(R"(^ptxas\s+(info\s*:|\.))");
  return std::regex_search(line, kReport);
}

bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

}  // namespace

std::string compiler_warnings(const std::string& log) {
  std::istringstream in(log);
  std::string line, out;
  bool blank_pending = false;
  while (std::getline(in, line)) {
    if (is_resource_report(line)) continue;
    if (is_blank(line)) {
      blank_pending = !out.empty();
      continue;
    }
    if (blank_pending) out += "\n";
    blank_pending = false;
    out += line + "\n";
  }
  if (!out.empty()) out.pop_back();
  return out;
}

std::string first_error_line(const std::string& log) {
  static const std::regex kError(R"((^|[\s:])(fatal |catastrophic )?error(\s*:|\s+#))");
  std::istringstream in(log);
  std::string line, first;
  while (std::getline(in, line)) {
    if (is_resource_report(line)) continue;
    if (first.empty() && !is_blank(line)) first = line;
    if (std::regex_search(line, kError)) return line;
  }
  return first;
}

}  // namespace gputune
