// A T1 tuning-problem file (.json), as `gputune search problem.json` reads it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_contract.h"
#include "space/problem.h"
#include "spec/spec_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gputune;
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Beside the T1 test files, so that their kernel files resolve.
  static const std::string path = std::string(GPUTUNE_SOURCE_DIR) + "/tests/formats/fuzzed.json";
  fuzz::expect_data_error_only(path, [&] {
    const Problem problem(parse_spec(text, path, {}));
    problem.variant(problem.baseline_index());
  });
  return 0;
}
