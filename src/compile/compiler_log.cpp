#include "compile/compiler_log.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <sstream>

#include "core/text.h"

namespace gputune {

namespace {

// "ptxas info    : Used 22 registers" and its continuation "ptxas         .     0 bytes stack
// frame"; ptxas's warnings and errors say "ptxas warning" and "ptxas error".
bool is_resource_report(const std::string& line) {
  if (line.compare(0, 5, "ptxas") != 0) return false;
  const size_t word = skip_spaces(line, 5);
  if (word == 5 || word >= line.size()) return false;
  if (line[word] == '.') return true;
  if (line.compare(word, 4, "info") != 0) return false;
  const size_t colon = skip_spaces(line, word + 4);
  return colon < line.size() && line[colon] == ':';
}

// "error:" or "error #20" as a word ("kernel.cu(3): error: ...", "fatal error: ...",
// "ptxas error   : ..."), not "error_count = 0" or "terror".
bool says_error(const std::string& line) {
  static const std::string kWord = "error";
  for (size_t at = line.find(kWord); at != std::string::npos; at = line.find(kWord, at + 1)) {
    const bool starts_word =
        at == 0 || std::isspace(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == ':';
    if (!starts_word) continue;
    const size_t after = at + kWord.size();
    const size_t next = skip_spaces(line, after);
    if (next >= line.size()) continue;
    if (line[next] == ':' || (line[next] == '#' && next > after)) return true;
  }
  return false;
}

bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

// The digits written between `prefix` and `phrase` ("32" of "Used 32 registers"), saturated
// at INT_MAX; -1 where the line has none.
int number_between(const std::string& line, const std::string& prefix, const std::string& phrase) {
  for (size_t at = line.find(phrase); at != std::string::npos; at = line.find(phrase, at + 1)) {
    size_t begin = at;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
    if (begin == at ||
        line.compare(begin - std::min(begin, prefix.size()), prefix.size(), prefix) != 0) {
      continue;
    }
    long long value = 0;
    for (size_t i = begin; i < at; ++i)
      value = std::min<long long>(value * 10 + (line[i] - '0'), INT_MAX);
    return static_cast<int>(value);
  }
  return -1;
}

// The name in "Compiling entry function 'NAME'", or "" where the line has none.
std::string entry_function(const std::string& line) {
  static const std::string kPhrase = "Compiling entry function '";
  const size_t at = line.find(kPhrase);
  if (at == std::string::npos) return "";
  const size_t begin = at + kPhrase.size();
  const size_t end = line.find('\'', begin);
  if (end == std::string::npos || end == begin) return "";
  return line.substr(begin, end - begin);
}

}  // namespace

ResourceReport resources_of(const std::string& log, const std::vector<std::string>& symbols) {
  ResourceReport out;
  std::istringstream lines(log);
  std::string line;
  bool in_section = false;
  while (std::getline(lines, line)) {
    const std::string entry = entry_function(line);
    if (!entry.empty()) {
      in_section = std::find(symbols.begin(), symbols.end(), entry) != symbols.end();
      continue;
    }
    if (!in_section) continue;
    const int stores = number_between(line, "", " bytes spill stores");
    const int loads = number_between(line, "", " bytes spill loads");
    if (stores >= 0 && loads >= 0) {
      out.spill_bytes = static_cast<int>(
          std::min<long long>(static_cast<long long>(out.spill_bytes) + stores + loads, INT_MAX));
    }
    out.registers = std::max(out.registers, number_between(line, "Used ", " registers"));
    out.shared_bytes = std::max(out.shared_bytes, number_between(line, "", " bytes smem"));
  }
  return out;
}

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
  std::istringstream in(log);
  std::string line, first;
  while (std::getline(in, line)) {
    if (is_resource_report(line)) continue;
    if (first.empty() && !is_blank(line)) first = line;
    if (says_error(line)) return line;
  }
  return first;
}

}  // namespace gputune
