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
                            const unsigned char* expected, uint64_t count, double rtol,
                            double atol) {
  return visit_type(type, [&](auto zero) -> std::string {
    using T = decltype(zero);
    const T* g = reinterpret_cast<const T*>(got);
    const T* e = reinterpret_cast<const T*>(expected);
    uint64_t mismatches = 0, first = 0;
    for (uint64_t i = 0; i < count; ++i) {
      if (g[i] == e[i]) continue;  // also equal infinities; NaN never equals, so never passes
      const double x = static_cast<double>(g[i]), r = static_cast<double>(e[i]);
      if (std::isnan(x) || std::isnan(r) || !(std::fabs(x - r) <= atol + rtol * std::fabs(r))) {
        if (mismatches++ == 0) first = i;
      }
    }
    if (mismatches == 0) return "";
    return name + ": " + std::to_string(mismatches) + " of " + std::to_string(count) +
           " elements differ; first at index " + std::to_string(first) + ": got " +
           number_text(static_cast<double>(g[first])) + ", expected " +
           number_text(static_cast<double>(e[first])) + " (rtol " + number_text(rtol) + ", atol " +
           number_text(atol) + ")";
  });
}

uint64_t count_nan(ScalarType type, const std::vector<unsigned char>& data) {
  if (!is_floating(type)) return 0;
  return visit_type(type, [&](auto zero) -> uint64_t {
    using T = decltype(zero);
    const T* values = reinterpret_cast<const T*>(data.data());
    const uint64_t count = data.size() / sizeof(T);
    return static_cast<uint64_t>(std::count_if(
        values, values + count, [](T v) { return std::isnan(static_cast<double>(v)); }));
  });
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
                                const cuda::DeviceBuffer& expected, uint64_t count, double rtol,
                                double atol, int sm_count, const cuda::Stream& stream) const {
  const auto checker = functions_.find(type);
  if (checker == functions_.end()) {
    throw Error(ErrorCode::kInternal,
                "no output checker " + output_checker_name(type) + " was handed to the runner");
  }
  CUdeviceptr got_pointer = got.get(), expected_pointer = expected.get();
  CUdeviceptr mismatches = mismatches_.get();
  unsigned long long n = count;
  void* params[] = {&got_pointer, &expected_pointer, &n, &rtol, &atol, &mismatches};
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
