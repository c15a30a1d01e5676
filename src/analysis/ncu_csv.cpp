#include "analysis/ncu_csv.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "gputune/error.h"

namespace gputune {
namespace {

// One CSV line of quoted cells ("a","1,234",""), doubled quotes inside a cell.
bool split_csv_line(const std::string& line, std::vector<std::string>* cells) {
  cells->clear();
  size_t i = 0;
  while (i <= line.size()) {
    std::string cell;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) return false;  // an unterminated quote
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cell += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        cell += line[i++];
      }
    } else {
      while (i < line.size() && line[i] != ',') cell += line[i++];
    }
    cells->push_back(cell);
    if (i >= line.size()) break;
    if (line[i] != ',') return false;
    ++i;
    if (i == line.size()) cells->push_back("");
  }
  return true;
}

// "1,980,000" -> 1980000, "50.61" -> 50.61; false for text.
bool parse_number(const std::string& cell, double* value) {
  std::string digits;
  for (char c : cell) {
    if (c != ',') digits += c;
  }
  if (digits.empty()) return false;
  char* end = nullptr;
  *value = std::strtod(digits.c_str(), &end);
  return end == digits.c_str() + digits.size() && std::isfinite(*value);
}

double prefix_scale(char prefix) {
  switch (prefix) {
    case 'K':
    case 'k':
      return 1e3;
    case 'M':
      return 1e6;
    case 'G':
      return 1e9;
    case 'T':
      return 1e12;
    case 'P':
      return 1e15;
    default:
      return 0;
  }
}

// The scale of one side of a unit ("Kbyte", "us", "Ghz") and its base, relative to the base
// ncu prints: byte and hz for quantities, ns for a time on top, s for a time below ("/s").
double unit_part_scale(const std::string& part, bool denominator, std::string* base) {
  static const std::pair<const char*, double> kTimes[] = {
      {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
  for (const auto& [name, seconds] : kTimes) {
    if (part == name) {
      *base = denominator ? "s" : "ns";
      return denominator ? 1 / seconds : seconds * 1e9;
    }
  }
  for (const char* quantity : {"byte", "hz"}) {
    const std::string q = quantity;
    std::string lower;
    for (char c : part) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.size() == q.size() + 1 && lower.compare(1, q.size(), q) == 0) {
      const double scale = prefix_scale(part[0]);
      if (scale > 0) {
        *base = q;
        return denominator ? 1 / scale : scale;
      }
    }
  }
  *base = part;
  return 1;
}

}  // namespace

double to_base_unit(double value, const std::string& unit, std::string* base_unit) {
  const size_t slash = unit.find('/');
  std::string top_base, bottom_base;
  const double top = unit_part_scale(unit.substr(0, slash), false, &top_base);
  if (slash == std::string::npos) {
    *base_unit = top_base;
    return value * top;
  }
  const double bottom = unit_part_scale(unit.substr(slash + 1), true, &bottom_base);
  *base_unit = top_base + "/" + bottom_base;
  return value * top * bottom;
}

std::vector<KernelCounters> parse_ncu_raw_csv(const std::string& output, const std::string& what) {
  std::istringstream in(output);
  std::string line;
  std::vector<std::string> header, units, cells;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("\"ID\",", 0) == 0 && split_csv_line(line, &header)) break;
  }
  if (header.empty()) {
    throw Error(ErrorCode::kIo, what +
                                    ": no CSV header (a line starting with \"ID\",); expected "
                                    "the output of ncu --csv --page raw");
  }
  if (!std::getline(in, line) || !split_csv_line(line, &units) || units.size() != header.size()) {
    throw Error(ErrorCode::kIo, what + ":" + std::to_string(line_number + 1) +
                                    ": expected the units row after the header, with " +
                                    std::to_string(header.size()) + " cells");
  }
  ++line_number;
  std::vector<KernelCounters> kernels;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] != '"') break;  // ==PROF== lines or the program's output
    if (!split_csv_line(line, &cells) || cells.size() != header.size()) {
      throw Error(ErrorCode::kIo, what + ":" + std::to_string(line_number) + ": a row with " +
                                      std::to_string(cells.size()) + " cells, expected " +
                                      std::to_string(header.size()) + " as in the header");
    }
    KernelCounters kernel;
    for (size_t i = 0; i < header.size(); ++i) {
      const std::string& cell = cells[i];
      if (header[i] == "Kernel Name") kernel.kernel = cell;
      if (cell.empty() || cell == "n/a") continue;
      double value = 0;
      if (parse_number(cell, &value)) {
        std::string base;
        kernel.values[header[i]] = to_base_unit(value, units[i], &base);
        kernel.units[header[i]] = base;
      } else {
        kernel.text[header[i]] = cell;
      }
    }
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

}  // namespace gputune
