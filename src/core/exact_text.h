#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gputune {

// The shortest text that reads back as the same double ("8192", "0.1", "1e+16").
inline std::string exact_text(double v) {
  char text[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}

}  // namespace gputune
