#pragma once
#include <cstdlib>
#include <string>

namespace gputune::test {

// The checkout lives at another path on the GPU machine, so the environment wins over the
// path baked in at build time.
inline std::string source_dir() {
  const char* env = std::getenv("GPUTUNE_SOURCE_DIR");
  return env != nullptr && *env != '\0' ? env : GPUTUNE_SOURCE_DIR;
}

inline std::string gputune_binary() {
  const char* env = std::getenv("GPUTUNE_BINARY");
  return env != nullptr && *env != '\0' ? env : GPUTUNE_BINARY;
}

}  // namespace gputune::test
