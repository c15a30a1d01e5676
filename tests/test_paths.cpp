#include "test_paths.h"

#include <cstdlib>

namespace gputune::test {

std::string source_dir() {
  const char* env = std::getenv("GPUTUNE_SOURCE_DIR");
  return env != nullptr && *env != '\0' ? env : GPUTUNE_SOURCE_DIR;
}

std::string gputune_binary() {
  const char* env = std::getenv("GPUTUNE_BINARY");
  return env != nullptr && *env != '\0' ? env : GPUTUNE_BINARY;
}

}  // namespace gputune::test
