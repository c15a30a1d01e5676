#pragma once
// Whether a variant's outputs match the reference: on the GPU with the compiled checker
// (compile/output_checker.h), and on the host to say what differs.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compile/output_checker.h"
#include "gputune/spec.h"
#include "run/check_region.h"
#include "run/cuda_driver.h"

namespace gputune {

// Empty when every element of `region` passes; else what differs, for people. Equal passes
// (also equal infinities), NaN never does, else |got - expected| <= atol + rtol |expected|.
std::string compare_on_host(const std::string& name, ScalarType type, const unsigned char* got,
                            const unsigned char* expected, const CheckRegion& region, double rtol,
                            double atol);
// The whole buffer of `count` elements.
std::string compare_on_host(const std::string& name, ScalarType type, const unsigned char* got,
                            const unsigned char* expected, uint64_t count, double rtol,
                            double atol);

// NaN elements of floating data (what an output poisoned and never written holds), within
// `region` or the whole buffer.
uint64_t count_nan(ScalarType type, const std::vector<unsigned char>& data,
                   const CheckRegion& region);
uint64_t count_nan(ScalarType type, const std::vector<unsigned char>& data);

// The checkers loaded in the current context; dropped and loaded again with it.
class DeviceOutputCheck {
 public:
  // Throws Error naming the checker when one does not load.
  explicit DeviceOutputCheck(const OutputCheckers& checkers);
  // True when every element of `region` in `got` passes against `expected` (same size).
  // Throws Error when there is no checker for `type`, CudaError when the check itself fails.
  bool matches(ScalarType type, const cuda::DeviceBuffer& got, const cuda::DeviceBuffer& expected,
               const CheckRegion& region, double rtol, double atol, int sm_count,
               const cuda::Stream& stream) const;

 private:
  std::map<ScalarType, std::pair<cuda::Module, CUfunction>> functions_;
  cuda::DeviceBuffer mismatches_;  // the checker's count
};

}  // namespace gputune
