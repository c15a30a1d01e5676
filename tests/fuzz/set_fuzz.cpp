// --set: the texts (one per NUL-separated part of the input) split into assignments as the CLI
// splits them, applied to a shipped spec: problem values in the spec's expression language.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/text.h"
#include "fuzz_contract.h"
#include "space/problem.h"
#include "spec/spec_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gputune;
  const std::string input(reinterpret_cast<const char*>(data), size);
  static const std::string spec = std::string(GPUTUNE_SOURCE_DIR) + "/spaces/transpose.yaml";
  fuzz::expect_data_error_only(
      spec,
      [&] {
        Overrides overrides;
        for (size_t start = 0; start <= input.size();) {
          const size_t end = std::min(input.find('\0', start), input.size());
          for (const std::string& item : split_assignments(input.substr(start, end - start))) {
            const size_t eq = item.find('=');
            if (eq == std::string::npos || eq == 0) return;  // refused before the spec is read
            overrides.emplace_back(item.substr(0, eq), item.substr(eq + 1));
          }
          start = end + 1;
        }
        const Problem problem(load_spec(spec, overrides));
        problem.variant(problem.baseline_index());
      },
      /*usage_too=*/true);
  return 0;
}
