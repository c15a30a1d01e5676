#pragma once
#include <string>

namespace gputune::testing {

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace gputune::testing
