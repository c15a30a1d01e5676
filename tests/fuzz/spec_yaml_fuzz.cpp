// A spec in YAML, as `gputune search SPEC` reads it: the loader, the checks, and the space and
// launches it makes (Problem), at the baseline.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_contract.h"
#include "space/problem.h"
#include "spec/spec_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gputune;
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Beside the shipped specs, so that their kernel paths (../kernels/...) resolve.
  static const std::string path = std::string(GPUTUNE_SOURCE_DIR) + "/spaces/fuzzed.yaml";
  fuzz::expect_data_error_only(path, [&] {
    const Problem problem(parse_spec(text, path, {}));
    problem.variant(problem.baseline_index());
  });
  return 0;
}
