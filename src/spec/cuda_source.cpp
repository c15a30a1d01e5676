#include "spec/cuda_source.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gputune {

std::vector<std::string> global_functions(const std::string& source) {
  std::vector<std::string> names;
  const std::string marker = "__global__";
  size_t pos = 0;
  while ((pos = source.find(marker, pos)) != std::string::npos) {
    pos += marker.size();
    size_t i = pos;
    while (i < source.size()) {
      const size_t next = source.find_first_of("(;{", i);
      if (next == std::string::npos || source[next] != '(') break;
      size_t end = next;
      while (end > i && std::isspace(static_cast<unsigned char>(source[end - 1]))) --end;
      size_t begin = end;
      while (begin > i && (std::isalnum(static_cast<unsigned char>(source[begin - 1])) ||
                           source[begin - 1] == '_')) {
        --begin;
      }
      const std::string name = source.substr(begin, end - begin);
      if (name.rfind("__", 0) == 0) {  // an attribute with arguments: skip its parentheses
        int depth = 0;
        size_t j = next;
        for (; j < source.size(); ++j) {
          if (source[j] == '(') ++depth;
          if (source[j] == ')' && --depth == 0) break;
        }
        i = j + 1;
        continue;
      }
      if (!name.empty()) names.push_back(name);
      break;
    }
  }
  return names;
}

namespace {

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The declared name of one declarator ("filter[17 * 17]", "bias = 1"): the last identifier
// before its size, initialiser or end.
std::string declarator_name(const std::string& declarator) {
  size_t end = declarator.find_first_of("[={");
  if (end == std::string::npos) end = declarator.size();
  while (end > 0 && !is_identifier_char(declarator[end - 1])) --end;
  size_t begin = end;
  while (begin > 0 && is_identifier_char(declarator[begin - 1])) --begin;
  return declarator.substr(begin, end - begin);
}

}  // namespace

std::vector<std::string> constant_symbols(const std::string& source) {
  std::vector<std::string> names;
  const std::string marker = "__constant__";
  size_t pos = 0;
  while ((pos = source.find(marker, pos)) != std::string::npos) {
    pos += marker.size();
    if (pos < source.size() && is_identifier_char(source[pos])) continue;
    int depth = 0;
    size_t start = pos, i = pos;
    for (; i < source.size(); ++i) {
      const char c = source[i];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth == 0 && (c == ',' || c == ';')) {
        const std::string name = declarator_name(source.substr(start, i - start));
        if (!name.empty()) names.push_back(name);
        start = i + 1;
        if (c == ';') break;
      }
    }
    pos = i;
  }
  return names;
}

std::string quoted_includes(const std::string& source, const std::string& folder,
                            std::set<std::string>* seen) {
  namespace fs = std::filesystem;
  std::string out;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    const size_t hash = line.find_first_not_of(" \t");
    if (hash == std::string::npos || line[hash] != '#') continue;
    const size_t include = line.find("include", hash);
    const size_t open = line.find('"', hash);
    const size_t close = open == std::string::npos ? open : line.find('"', open + 1);
    if (include == std::string::npos || close == std::string::npos || include > open) continue;
    const fs::path header =
        (fs::path(folder) / line.substr(open + 1, close - open - 1)).lexically_normal();
    if (!seen->insert(header.string()).second) continue;
    std::ifstream in(header, std::ios::binary);
    if (!in) continue;
    std::ostringstream text;
    text << in.rdbuf();
    out += "\n" + text.str() + quoted_includes(text.str(), header.parent_path().string(), seen);
  }
  return out;
}

}  // namespace gputune
