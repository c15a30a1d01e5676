// A recording (`gputune search --replay FILE`): metadata lines, CSV rows, counters.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_contract.h"
#include "replay/recording.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gputune;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  fuzz::expect_data_error_only("fuzzed.csv", [&] { read_recording(in, "fuzzed.csv"); });
  return 0;
}
