// Kernel Tuner's cache files and store_results output (`gputune import kt-cache FILE --spec S`),
// read against the T1 test spec the shipped example cache belongs to.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_contract.h"
#include "session/kernel_tuner_results.h"
#include "space/problem.h"
#include "spec/spec_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gputune;
  static const std::unique_ptr<Problem> problem = std::make_unique<Problem>(
      load_spec(std::string(GPUTUNE_SOURCE_DIR) + "/tests/formats/scaled_sum.json"));
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::expect_data_error_only("fuzzed.json",
                               [&] { read_kernel_tuner(text, "fuzzed.json", *problem); });
  return 0;
}
