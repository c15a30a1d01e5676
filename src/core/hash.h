#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace gputune {

// FNV-1a, 64 bits, as 16 hex digits: stable across platforms and runs (std::hash is not).
inline std::string stable_hash(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace gputune
