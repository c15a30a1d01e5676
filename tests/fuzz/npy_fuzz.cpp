// A reference file a spec names (check: reference:), as .npy; the first byte picks the output's
// element type.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_contract.h"
#include "spec/reference_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gputune;
  if (size == 0) return 0;
  const ScalarType types[] = {ScalarType::kFloat32, ScalarType::kFloat64, ScalarType::kInt32,
                              ScalarType::kUint8,   ScalarType::kInt64,   ScalarType::kUint16};
  const ScalarType type = types[data[0] % (sizeof types / sizeof types[0])];
  std::vector<unsigned char> bytes(data + 1, data + size);
  fuzz::expect_data_error_only("fuzzed.npy",
                               [&] { reference_from_bytes(std::move(bytes), "fuzzed.npy", type); });
  return 0;
}
