#include "run/output_check.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "gputune/error.h"
#include "run/scalar_visit.h"

namespace gputune {
namespace {

std::string number_text(double value) {
  std::ostringstream text;
  text.precision(9);
  text << value;
  return text.str();
}

}  // namespace

std::string compare_on_host(const std::string& name, ScalarType type, const unsigned char* got,
                            const unsigned char* expected, const CheckRegion& region, double rtol,
                            double atol) {
  return visit_type(type, [&](auto zero) -> std::string {
    using T = decltype(zero);
    const T* g = reinterpret_cast<const T*>(got);
    const T* e = reinterpret_cast<const T*>(expected);
    const uint64_t size = region.size();
    uint64_t mismatches = 0, first = 0;
    for (uint64_t n = 0; n < size; ++n) {
      const uint64_t i = region.element(n);
      if (g[i] == e[i]) continue;  // also equal infinities; NaN never equals, so never passes
      const double x = static_cast<double>(g[i]), r = static_cast<double>(e[i]);
      if (std::isnan(x) || std::isnan(r) || !(std::fabs(x - r) <= atol + rtol * std::fabs(r))) {
        if (mismatches++ == 0) first = i;
      }
    }
    if (mismatches == 0) return "";
    const std::string where =
        region.dimensions > 1 ? region.coordinates(first) + " (index " + std::to_string(first) + ")"
                              : "index " + std::to_string(first);
    return name + ": " + std::to_string(mismatches) + " of " + std::to_string(size) +
           (region.is_whole() ? "" : " checked") + " elements differ; first at " + where +
           ": got " + number_text(static_cast<double>(g[first])) + ", expected " +
           number_text(static_cast<double>(e[first])) + " (rtol " + number_text(rtol) + ", atol " +
           number_text(atol) + ")";
  });
}

std::string compare_on_host(const std::string& name, ScalarType type, const unsigned char* got,
                            const unsigned char* expected, uint64_t count, double rtol,
                            double atol) {
  return compare_on_host(name, type, got, expected, CheckRegion::whole(count), rtol, atol);
}

uint64_t count_nan(ScalarType type, const std::vector<unsigned char>& data,
                   const CheckRegion& region) {
  if (!is_floating(type)) return 0;
  return visit_type(type, [&](auto zero) -> uint64_t {
    using T = decltype(zero);
    const T* values = reinterpret_cast<const T*>(data.data());
    const uint64_t size = std::min<uint64_t>(region.size(), data.size() / sizeof(T));
    uint64_t nan = 0;
    for (uint64_t n = 0; n < size; ++n) {
      nan += std::isnan(static_cast<double>(values[region.element(n)])) ? 1 : 0;
    }
    return nan;
  });
}

uint64_t count_nan(ScalarType type, const std::vector<unsigned char>& data) {
  const uint64_t size = is_floating(type) ? data.size() / size_of(type) : 0;
  return count_nan(type, data, CheckRegion::whole(size));
}

DeviceOutputCheck::DeviceOutputCheck(const OutputCheckers& checkers)
    : mismatches_(sizeof(uint64_t)) {
  for (const auto& [type, kernel] : checkers) {
    const std::string name = output_checker_name(type);
    if (!kernel.ok || kernel.lowered_names.size() != 1) {
      throw Error(ErrorCode::kInternal, "the output checker " + name + " was not compiled");
    }
    cuda::Module module;
    CUfunction function = nullptr;
    CUresult result = cuda::Module::load(kernel.image, &module);
    if (result == CUDA_SUCCESS) result = module.function(kernel.lowered_names[0], &function);
    if (result != CUDA_SUCCESS) {
      throw cuda::CudaError(result, "loading the output checker " + name);
    }
    functions_.emplace(type, std::make_pair(std::move(module), function));
  }
}

bool DeviceOutputCheck::matches(ScalarType type, const cuda::DeviceBuffer& got,
                                const cuda::DeviceBuffer& expected, const CheckRegion& region,
                                double rtol, double atol, int sm_count,
                                const cuda::Stream& stream) const {
  const auto checker = functions_.find(type);
  if (checker == functions_.end()) {
    throw Error(ErrorCode::kInternal,
                "no output checker " + output_checker_name(type) + " was handed to the runner");
  }
  CUdeviceptr got_pointer = got.get(), expected_pointer = expected.get();
  CUdeviceptr mismatches = mismatches_.get();
  unsigned long long n = region.size();
  unsigned long long shape1 = region.shape[1], shape2 = region.shape[2];
  unsigned long long begin0 = region.begin[0], begin1 = region.begin[1], begin2 = region.begin[2];
  unsigned long long height = region.end[1] - region.begin[1];
  unsigned long long width = region.end[2] - region.begin[2];
  void* params[] = {&got_pointer, &expected_pointer, &n,     &shape1, &shape2, &begin0,    &begin1,
                    &begin2,      &height,           &width, &rtol,   &atol,   &mismatches};
  constexpr uint32_t kThreads = 256;
  const uint64_t blocks = std::max<uint64_t>(
      1, std::min<uint64_t>((n + kThreads - 1) / kThreads, uint64_t{16} * sm_count));
  mismatches_.fill_bytes(0);
  cuda::check(cuda::launch(checker->second.second, {static_cast<uint32_t>(blocks), 1, 1},
                           {kThreads, 1, 1}, 0, stream, params),
              "cuLaunchKernel (output check)");
  stream.synchronize();
  uint64_t mismatched = 1;
  mismatches_.download(&mismatched);
  return mismatched == 0;
}

}  // namespace gputune
